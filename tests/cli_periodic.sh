#!/usr/bin/env bash
# Periodic boundaries end to end: two clumps crossing the boundaries many times and colliding across one follow the same trajectories (unwrapped) as in a large closed box; frictional periodic runs end bitwise the same restarted (N + N = 2N), on 1 or 2 threads, sorted in space or not.
# Usage: bash tests/cli_periodic.sh DEM_BINARY SOURCE_DIR
NAME=cli_periodic
. "$(dirname "$0")/lib.sh"
need_python h5py
run() { # run WHAT ARGS...: dem run, must succeed
  local what=$1
  shift
  if "$DEM" run -q "$@" 2> err; then ok; else bad "$what: $(cat err)"; fi
}

# Two rods drifting at 10 m/s along x and 3 m/s along y through a box
# periodic on every axis, one catching up with the other (1 m/s): they
# collide once, across the x boundary (one has wrapped, the other not
# yet), and cross the boundaries again and again. The same start in a box
# far larger than their path is the reference.
cat > cross.yaml << 'EOF'
simulation: {time_step: 2.0e-5, end_time: 0.2, seed: 1}
materials:
  glass: {density: 2500, young_modulus: 1.0e9, poisson_ratio: 0.1}
shapes:
  rod: {material: glass, spheres: [{center: [-0.07, 0, 0], radius: 0.035}, {center: [0, 0, 0], radius: 0.035}, {center: [0.07, 0, 0], radius: 0.035}]}
particles:
  - body: {shape: rod, position: [0.15, 0.3, 0.3], velocity: [10.5, 3, 0], angular_velocity: [0, 0, 2]}
  - body: {shape: rod, position: [0.45, 0.33, 0.29], orientation: [0.9950041652780258, 0, 0.09983341664682815, 0], velocity: [9.5, 3, 0], angular_velocity: [1, 0, -1]}
domain: {box: {min: [0, 0, 0], max: [0.6, 0.6, 0.6]}, wall_material: glass, periodic: [x, y, z]}
contact: {model: hertz, skin: 0.005}
output: {snapshot_interval: 0.005, energy_interval: 0.001}
EOF
run "periodic run" cross.yaml -o per.h5 --force
run "closed run" cross.yaml -o ref.h5 --force \
  --set 'domain={box: {min: [-1, -1, -1], max: [4, 2, 2]}, wall_material: glass}'
cat > cross.py << 'EOF'
import sys
import h5py
import numpy as np
per, ref = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
bad = []
L, skin = 0.6, 0.005
keys = sorted(per["snapshots"])
if keys != sorted(ref["snapshots"]):
    bad.append("snapshots differ")
# Tolerances: round-off (the wraps change the rounding of positions by
# 1e-16 m) grown through one collision; measured 3.5e-13 m, 4.8e-13 m/s,
# 9.3e-13, 1.2e-11 rad/s.
tol = {"position": 1e-12, "velocity": 5e-12, "orientation": 1e-11,
       "angular_velocity": 1e-10}
before = None
collided = across = 0
for k in keys:
    p, r = per["snapshots"][k]["bodies"], ref["snapshots"][k]["bodies"]
    x, image = p["position"][()], p["image"][()]
    if not np.array_equal(p["position_unwrapped"][()], x + image * L):
        bad.append("%s: position_unwrapped is not position + image L" % k)
    if x.min() < -skin or x.max() >= L + skin:
        bad.append("%s: a body is not wrapped into the box: %r" % (k, x))
    for name, t in tol.items():
        mine = p["position_unwrapped" if name == "position" else name][()]
        d = np.abs(mine - r[name][()]).max()
        if not d <= t:
            bad.append("%s: %s differs by %.3g (> %g)" % (k, name, d, t))
    v = p["velocity"][()]
    if before is not None and not collided and np.abs(v - before[0]).max() > 0.3:
        collided = 1
        across = before[1][0, 0] != before[1][1, 0]
    before = (v, image)
if not collided:
    bad.append("the rods never collided")
elif not across:
    bad.append("the rods collided, but not across the boundary")
last = per["snapshots"][keys[-1]]["bodies/image"][()]
if last[:, 0].min() < 3 or last[:, 1].min() < 1:
    bad.append("too few crossings: images %r" % last.tolist())
ep, er = per["energy"], ref["energy"]
scale = abs(er["total"][0])
for name in ("total", "kinetic_translational", "kinetic_rotational", "elastic"):
    d = np.abs(ep[name][()] - er[name][()]).max()
    if not d <= 1e-11 * scale:
        bad.append("energy %s differs by %.3g J" % (name, d))
if not er["elastic"][()].max() > 0:
    bad.append("no elastic energy: no collision")
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
if why=$("$PY" cross.py per.h5 ref.h5 2>&1); then ok; else bad "periodic vs closed: $why"; fi

# Frictional rods falling under gravity between walls in z, periodic in x
# and y: enough spheres (2160) for the threads to share every loop.
cat > many.yaml << 'EOF'
simulation: {time_step: 2.0e-5, end_time: 0.008, seed: 9, gravity: [0, 0, -9.81]}
materials:
  glass: {density: 2500, young_modulus: 5.0e7, poisson_ratio: 0.25, restitution: 0.5, friction: 0.5, rolling_friction: 0.05}
shapes:
  rod: {material: glass, spheres: [{center: [-0.012, 0, 0], radius: 0.006}, {center: [0, 0, 0], radius: 0.006}, {center: [0.012, 0, 0], radius: 0.006}]}
particles:
  - random_fill: {shape: rod, count: 720, speed: 8.0, angular_speed: 20}
domain: {box: {min: [0, 0, 0], max: [0.24, 0.24, 0.4]}, wall_material: glass, periodic: [x, y]}
contact: {model: hertz_mindlin, sort_bodies: on}
output: {snapshot_interval: 0.002, energy_interval: 0.001}
EOF
# same A.h5 B.h5: the last snapshots (every dataset) and the energy rows
# of the steps both files have are bitwise equal.
cat > same.py << 'EOF'
import sys
import h5py
import numpy as np
from same_run import differences, last_snapshot
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
bad = differences(a, b)
if np.abs(last_snapshot(a)["bodies/image"][()]).sum() < 10:
    bad.append("few crossings: a weak test")
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
same() {
  local why
  if why=$("$PY" same.py "$1" "$2" 2>&1); then ok; else bad "$3: $why"; fi
}
run "2 threads" many.yaml -o t2.h5 --force --threads 2
run "1 thread" many.yaml -o t1.h5 --force --threads 1
same t1.h5 t2.h5 "1 vs 2 threads"
run "unsorted" many.yaml -o unsorted.h5 --force --threads 2 \
  --set contact.sort_bodies=off
same t2.h5 unsorted.h5 "sorted vs unsorted"
run "first half" many.yaml -o part.h5 --force --threads 2 \
  --set simulation.end_time=0.004
# The first half must have wrapped bodies already (their image counts
# are restart state).
if "$PY" -c '
import sys, h5py, numpy as np
s = h5py.File("part.h5", "r")["snapshots"]
sys.exit(0 if np.abs(s[sorted(s)[-1]]["bodies/image"][()]).sum() >= 5 else 1)'; then ok; else bad "first half: few crossings"; fi
run "restart" many.yaml --restart part.h5 --threads 2
same t2.h5 part.h5 "restarted (N + N) vs 2N"

echo "cli_periodic: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
