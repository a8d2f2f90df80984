#!/usr/bin/python3
"""Checks tools/demfile.py against a short dem run (tests/cli_demfile.sh makes it).

usage: demfile_check.py OUT.h5 DEM_VERSION WORKDIR

OUT.h5 is the run of the config in cli_demfile.sh: two bodies of two spheres,
time step 1e-5 s, snapshots at t = 0, 0.005 and 0.01 s. A copy in WORKDIR
gets datasets and groups dem does not write yet, and energy rows of fill
values, as a growing layout and a run killed mid-flush would have. Prints
one line per failed check; exits 1 if any failed.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

import h5py  # noqa: E402
import numpy as np  # noqa: E402

import demfile  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def raises(exc, fn, text):
    """True if fn() raises exc with text in its message."""
    try:
        fn()
    except exc as e:
        return text in str(e)
    return False


def main(path, version, work):
    with demfile.open_run(path) as run:
        check(run.dem_version == version, f"dem_version {run.dem_version!r}, expected {version!r}")
        check(run.scheme == "spiral_leapfrog", f"scheme {run.scheme!r}")
        check(run.time_step == 1e-5, f"time_step {run.time_step!r}")
        check(isinstance(run.attrs["scheme"], str), "root attributes: strings not decoded")
        check(len(run) == 3, f"{len(run)} snapshots, expected 3")
        check(run.snapshot_names() == ["000000", "000001", "000002"],
              f"snapshot names {run.snapshot_names()}")
        times = [s.time for s in run.snapshots()]
        check(np.allclose(times, [0.0, 0.005, 0.01], atol=1e-5), f"snapshot times {times}")
        last = run.snapshot(-1)
        check(last.name == run.snapshot("last").name == run.snapshot("000002").name,
              "snapshot(-1), ('last') and ('000002') differ")
        check(last.step == 1000, f"last step {last.step}")
        check(raises(IndexError, lambda: run.snapshot(3), "there are 3"),
              "snapshot(3) does not raise IndexError naming the snapshots")
        check(raises(IndexError, lambda: run.snapshot("000009"), "no snapshot"),
              "snapshot('000009') does not raise IndexError")
        b, s = last.bodies(), last.spheres()
        for name, shape in (("position", (2, 3)), ("velocity", (2, 3)), ("orientation", (2, 4)),
                            ("angular_velocity", (2, 3)), ("mass", (2,)), ("inertia", (2, 3)),
                            ("shape", (2,))):
            check(name in b and b[name].shape == shape,
                  f"bodies/{name}: {b[name].shape if name in b else 'missing'}, expected {shape}")
        check(s["position"].shape == (4, 3) and s["radius"].shape == (4,),
              "spheres: position or radius of the wrong shape")
        check(list(s["body"]) == [0, 0, 1, 1], f"spheres/body {list(s['body'])}")
        check(np.allclose(s["radius"], 0.02), f"spheres/radius {s['radius']}")
        # The first body moves at 1 m/s along x and nothing touches.
        first = run.snapshot(0).bodies()["position"]
        check(np.allclose(b["position"][0] - first[0], [0.01, 0, 0], atol=1e-9),
              "body 0 did not move 1 cm along x in 0.01 s")
        check("bodies" in last.groups() and "spheres" in last.groups(), f"groups {last.groups()}")
        check(raises(KeyError, lambda: last.fields("nothing"), "has no group 'nothing'"),
              "fields('nothing') does not raise KeyError naming the group")
        check(set(last.field_attrs("bodies")) == set(b), "field_attrs('bodies') misses datasets")
        e = run.energy()
        for name in ("step", "time", "kinetic_translational", "kinetic_rotational", "elastic",
                     "gravity", "total"):
            check(name in e, f"energy: no {name}")
        n = len(e["time"])
        check(n > 2 and all(len(v) == n for v in e.values()), "energy columns of unequal length")
        check(abs(e["time"][-1] - 0.01) < 1e-9, f"energy ends at t = {e['time'][-1]}")
        check(np.allclose(e["total"], e["total"][0], rtol=1e-12), "energy not constant in free flight")
        # the balance's W: dissipated - wall_work - inserted, each column
        # (zero here) made up to see its sign, and a missing one as zero
        made = dict(e, dissipated=e["time"] * 2, wall_work=e["time"] * 3, inserted=e["time"] * 5)
        check(np.allclose(demfile.energy_exchanged(made), -6 * e["time"]), "energy_exchanged: signs")
        del made["inserted"]
        check(np.allclose(demfile.energy_balance(made), e["total"] - e["time"]),
              "energy_balance: a missing column is not zero")
        text = run.config_text()
        check(isinstance(text, str) and "end_time: 0.01" in text, "config_text: not the config")
        check(run.config()["simulation"]["seed"] == 5, "config(): seed not 5")
        rows = n

    # A layout that has grown, and a tail of unflushed energy rows.
    grown = os.path.join(work, "grown.h5")
    shutil.copy(path, grown)
    with h5py.File(grown, "a") as f:
        g = f["snapshots/000002"]
        t = g["bodies"].create_dataset("temperature", data=np.array([300.0, 310.0]))
        t.attrs["unit"] = "K"
        t.attrs["description"] = "made up by the test"
        g.create_group("extra_items").create_dataset("pair", data=np.zeros((0, 2), dtype=np.int64))
        f["energy"].create_dataset("made_up_column", data=np.zeros(rows), maxshape=(None,))
        for name, col in f["energy"].items():
            col.resize((rows + 3,))
            if col.dtype == np.int64:
                col[rows:] = demfile.STEP_FILL
            else:
                col[rows:] = np.full(3, demfile.DOUBLE_FILL_BITS, dtype=np.uint64).view(np.float64)
    with demfile.open_run(grown) as run:
        last = run.snapshot(-1)
        b = last.bodies()
        check("temperature" in b and list(b["temperature"]) == [300.0, 310.0],
              "a new bodies/ dataset is not returned")
        attrs = last.field_attrs("bodies")["temperature"]
        check(attrs.get("unit") == "K" and attrs.get("description") == "made up by the test",
              f"dataset attributes {attrs}")
        check("extra_items" in last.groups() and last.fields("extra_items")["pair"].shape == (0, 2),
              "a new snapshot group is not readable")
        e = run.energy()
        check("made_up_column" in e, "a new energy column is not returned")
        check(len(e["total"]) == rows, f"{len(e['total'])} energy rows, expected {rows}: "
              "the fill rows were not dropped")

    # Files that are not dem's: one message naming the file.
    other = os.path.join(work, "other.h5")
    with h5py.File(other, "w") as f:
        f["x"] = 1
    check(raises(ValueError, lambda: demfile.open_run(other), "not a dem output file"),
          "an HDF5 file without dem_version is not refused")
    missing = os.path.join(work, "missing.h5")
    check(raises(ValueError, lambda: demfile.open_run(missing), "No such file"),
          "a missing file is not refused with 'No such file'")

    for f in failures:
        print("FAIL: demfile:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
