"""Checks that a dem output file reads without the docs, with h5py alone.

Usage: /usr/bin/python3 tests/output_check.py RUN.h5
Every dataset has a "unit" and a one-line "description"; the root says
what the file is and the unit of time_step; /config is UTF-8 text that
.asstr() returns as a str; /shapes has a row per shape whose numbers agree
with the bodies and spheres of every snapshot; the spheres' velocity is
v + w x r of their body. Prints one line per failure and exits 1 if any.
"""
import sys

import h5py
import numpy as np

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def rotate(q, v):
    """Rotates vectors v (N, 3) by unit quaternions q (N, 4), (w, x, y, z)."""
    w, u = q[:, :1], q[:, 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


f = h5py.File(sys.argv[1], "r")

# Every dataset says what it holds.
datasets = []
f.visititems(lambda n, o: datasets.append(n) if isinstance(o, h5py.Dataset) else None)
check(len(datasets) > 20, "only %d datasets" % len(datasets))
for name in datasets:
    a = f[name].attrs
    check(isinstance(a.get("unit"), str), "%s: no unit" % name)
    d = a.get("description")
    check(isinstance(d, str) and d and "\n" not in d, "%s: no one-line description" % name)
for key in ("dem_version", "scheme", "time_step", "time_step_unit", "description"):
    check(key in f.attrs, "root attribute %s missing" % key)
check(f.attrs.get("time_step_unit") == "s", "time_step_unit is not s")

# /config: UTF-8 text; h5py returns bytes for string datasets, .asstr() a str.
cfg = f["config"]
info = h5py.check_string_dtype(cfg.dtype)
check(info is not None and info.encoding == "utf-8" and info.length is None,
      "/config is not a variable-length UTF-8 string: %r" % (info,))
text = cfg.asstr()[()]
check(isinstance(text, str) and "simulation:" in text, "/config.asstr() is not the YAML text")

# /shapes agrees with the snapshots.
if "shapes" not in f or "snapshots" not in f:
    print("FAIL: no /shapes or no /snapshots")
    sys.exit(1)
sh = f["shapes"]
names = sh["name"].asstr()[:]
n = len(names)
first = sh["first_sphere"][:]
check(len(first) == n + 1 and first[0] == 0 and np.all(np.diff(first) == sh["n_spheres"][:]),
      "first_sphere and n_spheres disagree")
for key, width in (("mass", 0), ("volume", 0), ("inertia", 3), ("centre_of_mass", 3),
                   ("principal_axes", 4), ("bounding_radius", 0), ("material", 0)):
    shape = (n, width) if width else (n,)
    check(sh[key].shape == shape, "shapes/%s has shape %s" % (key, sh[key].shape))
check(np.allclose(np.linalg.norm(sh["principal_axes"][:], axis=1), 1.0),
      "shapes/principal_axes are not unit quaternions")
check(np.all(np.diff(sh["inertia"][:], axis=1) >= 0), "shapes/inertia not ascending")
offset, radius = sh["sphere_offset"][:], sh["sphere_radius"][:]
check(offset.shape == (first[-1], 3) and radius.shape == (first[-1],),
      "sphere_offset/sphere_radius have the wrong length")

snaps = sorted(f["snapshots"].keys())
check(len(snaps) >= 2, "fewer than 2 snapshots")
for s in snaps:
    g = f["snapshots"][s]
    b, sp = g["bodies"], g["spheres"]
    shape = b["shape"][:]
    check(np.all((shape >= 0) & (shape < n)), "%s: bodies/shape outside /shapes" % s)
    # a body's size factor (1 but for sizes drawn by insert or
    # random_fill): mass x s^3, inertia x s^5, radii and offsets x s,
    # multiplied in the order dem multiplies
    sc = b["scale"][:] if "scale" in b else np.ones(len(shape))
    check(np.array_equal(b["mass"][:], sh["mass"][:][shape] * (sc * sc * sc)),
          "%s: masses differ from /shapes" % s)
    check(np.array_equal(b["inertia"][:],
                         sh["inertia"][:][shape] * (sc * sc * sc * sc * sc)[:, None]),
          "%s: inertia differs from /shapes" % s)
    # spheres: bodies in order, each body's spheres in its shape's order
    counts = sh["n_spheres"][:][shape]
    body = sp["body"][:]
    check(np.array_equal(body, np.repeat(np.arange(len(shape)), counts)),
          "%s: spheres/body is not the bodies' spheres in order" % s)
    member = np.arange(len(body)) - np.repeat(np.cumsum(counts) - counts, counts)
    row = first[shape[body]] + member
    check(np.array_equal(sp["radius"][:], radius[row] * sc[body]),
          "%s: radii differ from /shapes" % s)
    q, x = b["orientation"][:][body], b["position"][:][body]
    where = x + rotate(q, offset[row] * sc[body][:, None])
    check(np.allclose(where, sp["position"][:], rtol=0, atol=1e-12),
          "%s: body position + orientation x sphere_offset is not the sphere's "
          "position (max %g)" % (s, np.abs(where - sp["position"][:]).max(initial=0)))
    # velocities: the sphere's centre moves with its body
    w_lab = b["angular_velocity_lab"][:]
    check(np.allclose(w_lab, rotate(b["orientation"][:], b["angular_velocity"][:]),
                      rtol=1e-12, atol=1e-12),
          "%s: angular_velocity_lab is not the body-frame one turned" % s)
    v = b["velocity"][:][body] + np.cross(w_lab[body], sp["position"][:] - x)
    check(np.allclose(v, sp["velocity"][:], rtol=1e-12, atol=1e-12),
          "%s: spheres/velocity is not v + w x r" % s)
    check(np.array_equal(sp["angular_velocity_lab"][:], w_lab[body]),
          "%s: spheres/angular_velocity_lab is not its body's" % s)

for line in failures:
    print("FAIL:", line)
print("output_check: %d datasets, %d shapes, %d snapshots, %d failures"
      % (len(datasets), n, len(snaps), len(failures)))
sys.exit(1 if failures else 0)
