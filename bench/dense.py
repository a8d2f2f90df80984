#!/usr/bin/python3
"""Speed on a settled frictional packing: dem against LAMMPS, per core.

    /usr/bin/python3 bench/dense.py [--steps 2000] [--threads 1,2]
        [--repeats 3] [--lammps auto|off] [--config examples/pile_rods.yaml]

The dilute rods gas of bench/bench.py has about one contact per sphere;
a granular packing at rest has several, each with friction history. This
benchmark settles the pile of examples/pile_rods.yaml once (2,000 rods of
three overlapping spheres poured under gravity, hertz_mindlin; 28 s on
one core of the Zen 5 machine of docs/performance.md, kept in the work
folder), then times `steps` more steps of the packing at rest:
  * dem: `dem run --restart` of a copy of the settled file (the product
    itself, with its checks; the rate is the one it prints);
  * LAMMPS, when `lmp` is installed: the same spheres, radii, positions
    and velocities as rigid bodies (fix rigid/small), pair granular
    hertz/material with damping tsuji, tangential mindlin and rolling
    sds (bench.lammps_law's), gravity, wall/gran on the six box faces,
    the same time step and skin, on 1 rank and on the largest thread
    count's ranks.
The two codes' bodies differ in mass where spheres overlap (dem: the exact
union; LAMMPS's rigid/small: the sum of the spheres), its walls are glass
where dem's are steel, and LAMMPS starts without friction history: fine for
speed, not for comparing trajectories. Runs are interleaved and repeated;
the report gives each rate's best and the dem/LAMMPS ratio per core in the
same repeat (median and range), and contacts per sphere.
"""
import argparse
import os
import re
import shutil
import statistics
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench  # noqa: E402
import demfile  # noqa: E402

LAMMPS_INPUT = """\
# settled pile for bench/dense.py: {n_bodies} rigid bodies
""" + bench.LAMMPS_RIGID_SETUP + """\
fix g all gravity {g!r} vector 0 0 -1
fix wx all wall/gran granular {law} xplane {lo[0]!r} {hi[0]!r}
fix wy all wall/gran granular {law} yplane {lo[1]!r} {hi[1]!r}
fix wz all wall/gran granular {law} zplane {lo[2]!r} {hi[2]!r}
timestep {dt!r}
thermo_style custom step
thermo {steps}
run {steps}
"""


def settle(dem, config, work):
    """The settled pile (run once, then reused)."""
    path = os.path.join(work, "dense_settled.h5")
    if not os.path.exists(path):
        bench.log("dense: settling %s (once; kept as %s)" % (config, path))
        bench.run_cmd([dem, "run", config, "-o", path + ".tmp.h5", "--force",
                       "-q"])
        os.replace(path + ".tmp.h5", path)
        xmf = path + ".tmp.xmf"
        if os.path.exists(xmf):
            os.remove(xmf)
    return path


def packing(path):
    """Spheres, bodies and touching contacts of the last snapshot."""
    with demfile.open_run(path) as run:
        snap = run.snapshot(-1)
        s, b = snap.spheres(), snap.bodies()
        force = snap.fields("contacts")["force"]
        wall_force = snap.fields("wall_contacts")["force"]
        out = {"config": run.config(), "time": snap.time}
    touching = int(np.count_nonzero(np.any(force != 0, axis=1)))
    walls = int(np.count_nonzero(np.any(wall_force != 0, axis=1)))
    out.update(x=s["position"], r=s["radius"], body=s["body"],
               v=s["velocity"], w=s["angular_velocity_lab"],
               n_bodies=len(b["position"]),
               contacts_per_sphere=(2 * touching + walls) / len(s["radius"]))
    return out


def write_lammps_data(path, p, lo, hi, density):
    n = len(p["r"])
    ids = np.arange(1, n + 1)
    with open(path, "w") as f:
        f.write("settled pile (dem bench/dense.py)\n\n%d atoms\n1 atom types\n\n"
                % n)
        for k, ax in enumerate("xyz"):
            f.write("%.17g %.17g %slo %shi\n" % (lo[k], hi[k], ax, ax))
        f.write("\nAtoms # sphere\n\n")
        np.savetxt(f, np.column_stack([ids, np.ones(n), 2 * p["r"],
                                       np.full(n, density), p["x"]]),
                   fmt="%d %d %.17g %.17g %.17g %.17g %.17g")
        f.write("\nVelocities\n\n")
        np.savetxt(f, np.column_stack([ids, p["v"], p["w"]]),
                   fmt="%d %.17g %.17g %.17g %.17g %.17g %.17g")
        f.write("\nMolecules\n\n")
        np.savetxt(f, np.column_stack([ids, p["body"] + 1]), fmt="%d %d")


def lammps_run(lmp, mpirun, procs, data, p, cfg, steps, skin, work):
    # PyYAML reads 5.0e7 as text (YAML 1.1 floats need a sign): numbers
    mat = {k: float(v) for k, v in
           cfg["materials"][cfg["shapes"]["rod"]["material"]].items()}
    mat["radius"] = float(np.min(p["r"]))
    box = cfg["domain"]["box"]
    inp = os.path.join(work, "dense_%d.in" % procs)
    with open(inp, "w") as f:
        f.write(LAMMPS_INPUT.format(
            n_bodies=p["n_bodies"], data=os.path.basename(data),
            law=bench.mindlin_law(mat["young_modulus"], mat["poisson_ratio"],
                                  mat["radius"], mat["restitution"],
                                  mat["friction"], mat["rolling_friction"]),
            skin=skin, lo=[float(x) for x in box["min"]],
            hi=[float(x) for x in box["max"]],
            g=-float(cfg["simulation"]["gravity"][2]),
            dt=float(cfg["simulation"]["time_step"]), steps=steps))
    _, t, n_atoms = bench.lammps_exec(lmp, inp, "dense_%d.log" % procs, procs,
                                      mpirun, work, steps)
    return n_atoms * steps / t


def dem_run(dem, config, settled, t_end, steps, dt, threads, work):
    run = os.path.join(work, "dense_run.h5")
    shutil.copyfile(settled, run)
    end = t_end + steps * dt
    _, err = bench.run_cmd(
        [dem, "run", config, "--restart", run, "--threads", str(threads),
         "--set", "simulation.end_time=%r" % end,
         "--set", "output.snapshot_interval=%r" % end,
         "--set", "output.energy_interval=%r" % end])
    m = re.findall(r"([0-9.e+]+) sphere-steps/s", err)
    if not m:
        raise RuntimeError("dem run printed no rate: " + err[-1000:])
    return float(m[-1])


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--lammps", choices=["auto", "off"], default="auto")
    ap.add_argument("--config", default=os.path.join(ROOT, "examples",
                                                     "pile_rods.yaml"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench"))
    a = ap.parse_args()
    bench.prefer_short_spin()
    os.makedirs(a.work, exist_ok=True)
    dem = os.path.join(a.build, "dem")
    threads = [int(t) for t in a.threads.split(",")]
    lmp = shutil.which("lmp") if a.lammps == "auto" else None
    mpirun = shutil.which("mpirun")

    settled = settle(dem, a.config, a.work)
    p = packing(settled)
    cfg = p["config"]
    dt = float(cfg["simulation"]["time_step"])
    r_min = float(np.min(p["r"]))
    skin = float(cfg.get("contact", {}).get("skin", r_min / 10))
    data = os.path.join(a.work, "dense.data")
    if lmp:
        density = float(
            cfg["materials"][cfg["shapes"]["rod"]["material"]]["density"])
        write_lammps_data(data, p, [float(x) for x in cfg["domain"]["box"]["min"]],
                          [float(x) for x in cfg["domain"]["box"]["max"]],
                          density)
    print("dense: %s settled to t = %g s: %d bodies, %d spheres, %.2f "
          "touching contacts per sphere (%.1f per body); %d steps of dt %g s, skin %g m; "
          "threads %s, %d repeats, LAMMPS %s, load average %.2f"
          % (os.path.relpath(a.config, ROOT), p["time"], p["n_bodies"],
             len(p["r"]), p["contacts_per_sphere"],
             p["contacts_per_sphere"] * len(p["r"]) / p["n_bodies"], a.steps, dt, skin,
             threads, a.repeats, lmp or "not used", os.getloadavg()[0]))
    rates = {}
    for rep in range(a.repeats):
        for t in threads:
            bench.log("  repeat %d: dem %d thread(s)" % (rep + 1, t))
            rates.setdefault(("dem", t), []).append(
                dem_run(dem, a.config, settled, p["time"], a.steps, dt, t,
                        a.work))
            if lmp and (t == 1 or mpirun):
                bench.log("  repeat %d: LAMMPS %d rank(s)" % (rep + 1, t))
                rates.setdefault(("lmp", t), []).append(
                    lammps_run(lmp, mpirun, t, data, p, cfg, a.steps, skin,
                               a.work))
    print("%-10s %8s %12s %12s" % ("code", "threads", "best", "worst"))
    for (code, t), r in sorted(rates.items()):
        print("%-10s %8d %11.2fM %11.2fM" % ("dem" if code == "dem" else
                                             "LAMMPS", t, max(r) / 1e6,
                                             min(r) / 1e6))
    for t in threads:
        d, l_ = rates.get(("dem", t)), rates.get(("lmp", t))
        if d and l_:
            pairs = [x / y for x, y in zip(d, l_)]
            print("dem/LAMMPS, %d thread(s)/rank(s), same repeat: median "
                  "%.2fx, range %.2f-%.2fx; best/best %.2fx"
                  % (t, statistics.median(pairs), min(pairs), max(pairs),
                     max(d) / max(l_)))
    print("(sphere-steps per second; load average %.2f at the end)"
          % os.getloadavg()[0])


if __name__ == "__main__":
    main()
