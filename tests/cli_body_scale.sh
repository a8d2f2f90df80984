#!/usr/bin/env bash
# `scale` on a particles body entry: a scaled sphere's and a scaled rod's mass and principal moments in the output are a sphere's and three touching spheres' of the scaled sizes (analytic, 1e-12), the layout checks of tests/output_check.py hold, and a scaled sphere bouncing off the floor (hertz) stays in contact for the Hertz time of its scaled radius and mass.
# Usage: bash tests/cli_body_scale.sh DEM_BINARY SOURCE_DIR
NAME=cli_body_scale
. "$(dirname "$0")/lib.sh"
need_python h5py

# A ball of radius 0.01 m scaled by 2.5 falls on the floor at 1 m/s
# (no gravity); a rod of three touching balls of 0.01 m, scaled by 0.6,
# floats far from it.
cat > scaled.yaml << 'EOF'
simulation: {time_step: 1.0e-6, end_time: 0.004}
materials:
  glass: {density: 2500, young_modulus: 1.0e8, poisson_ratio: 0.2}
shapes:
  ball: {material: glass, spheres: [{center: [0, 0, 0], radius: 0.01}]}
  rod: {material: glass, spheres: [{center: [-0.02, 0, 0], radius: 0.01}, {center: [0, 0, 0], radius: 0.01}, {center: [0.02, 0, 0], radius: 0.01}]}
particles:
  - body: {shape: ball, position: [0.2, 0.2, 0.0255], velocity: [0, 0, -1], scale: 2.5}
  - body: {shape: rod, position: [0.7, 0.7, 0.7], orientation: [0.9238795325112867, 0, 0.3826834323650898, 0], angular_velocity: [1, 2, 3], scale: 0.6}
domain: {box: {min: [0, 0, 0], max: [1, 1, 1]}, wall_material: glass}
contact: {model: hertz, skin: 0.002}
scheme: spiral_leapfrog
output: {snapshot_interval: 0.002, energy_interval: 1.0e-6}
EOF
if "$DEM" run -q scaled.yaml -o scaled.h5 --force 2> err; then ok; else bad "run: $(cat err)"; fi
if "$PY" "$SRC/tests/output_check.py" scaled.h5 > layout.txt 2>&1; then ok; else bad "output_check: $(cat layout.txt)"; fi

cat > check.py << 'EOF'
import math, sys
import h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
bad = []
rho, E, nu, v0 = 2500.0, 1.0e8, 0.2, 1.0
# mass and principal moments (ascending) from the sizes: a sphere of
# 0.01 x 2.5; three touching spheres of 0.01 x 0.6 in a row
r = 0.01 * 2.5
m = rho * 4.0 / 3.0 * math.pi * r ** 3
want = {0: (m, [0.4 * m * r * r] * 3)}
a = 0.01 * 0.6
m1 = rho * 4.0 / 3.0 * math.pi * a ** 3
i1 = 0.4 * m1 * a * a
want[1] = (3 * m1, [3 * i1, 3 * i1 + 2 * m1 * (2 * a) ** 2, 3 * i1 + 2 * m1 * (2 * a) ** 2])
for k in f["snapshots"]:
    b = f["snapshots"][k]["bodies"]
    for i, (mass, inertia) in want.items():
        if abs(b["mass"][i] / mass - 1) > 1e-12:
            bad.append("%s: body %d mass %r, expected %r" % (k, i, b["mass"][i], mass))
        if np.abs(b["inertia"][i] / np.array(inertia) - 1).max() > 1e-12:
            bad.append("%s: body %d inertia %r, expected %r" % (k, i, b["inertia"][i].tolist(), inertia))
    if not np.allclose(b["scale"][()], [2.5, 0.6], rtol=0, atol=0):
        bad.append("%s: bodies/scale %r" % (k, b["scale"][()].tolist()))
# Hertz contact of the ball with the floor (same material): 1/E* = 2 (1 -
# nu^2) / E, R* = r; the largest overlap d from 1/2 m v^2 = 8/15 E*
# sqrt(R) d^(5/2), and the duration 2 d / v int_0^1 (1 - x^(5/2))^(-1/2)
# dx = 2 d / v (2/5) B(2/5, 1/2)
estar = E / (2 * (1 - nu * nu))
dmax = (15 * m * v0 * v0 / (16 * estar * math.sqrt(r))) ** 0.4
beta = math.gamma(0.4) * math.gamma(0.5) / math.gamma(0.9)
tc = 2 * dmax / v0 * 0.4 * beta
dt = 1.0e-6
force = f["walls/box_zmin/force"][()][:, 2]
touching = np.count_nonzero(force != 0)
measured = touching * dt
if not abs(measured - tc) <= 2 * dt:
    bad.append("contact lasts %.6g s, Hertz for the scaled ball %.6g s" % (measured, tc))
vz = f["snapshots"][sorted(f["snapshots"])[-1]]["bodies/velocity"][0, 2]
if not abs(vz - v0) < 1e-6:
    bad.append("the ball leaves at %r m/s, not %r" % (vz, v0))
for line in bad:
    print(line)
print("contact %.6g s (Hertz %.6g s), %d snapshots" % (measured, tc, len(f["snapshots"])))
sys.exit(1 if bad else 0)
EOF
if "$PY" check.py scaled.h5 > out.txt 2>&1; then ok; else bad "$(cat out.txt)"; fi
cat out.txt

# Two balls of 0.01 m scaled by 3 meet head-on at 2 m/s, alone: the
# neighbour grid (cells of 2 r_max + skin over the two) must know their
# size to see them touch. Equal masses, elastic: they swap velocities.
if "$DEM" run -q scaled.yaml -o meet.h5 --force --set 'particles=[{body: {shape: ball, position: [0.4, 0.6, 0.5], velocity: [1, 0, 0], scale: 3}}, {body: {shape: ball, position: [0.461, 0.6, 0.5], velocity: [-1, 0, 0], scale: 3}}]' 2> err; then ok; else bad "run meet: $(cat err)"; fi
if "$PY" -c '
import sys, h5py, numpy as np
s = h5py.File("meet.h5", "r")["snapshots"]
v = s[sorted(s)[-1]]["bodies/velocity"][:, 0]
sys.exit(0 if np.abs(v - [-1, 1]).max() < 1e-6 else "the balls of scale 3 leave at %r m/s, not -1 and 1" % v.tolist())' 2> err; then ok; else bad "$(cat err)"; fi

echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
