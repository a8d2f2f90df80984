#!/usr/bin/env bash
# The loads on the walls (/walls/NAME/force and torque, one row per energy row): a ball at rest on the floor of an STL box and of the analytic box pushes it with its weight; the torque about a mesh's motion centre is r x F; a turning plate's -torque.w integrates to /energy/wall_work; 1 vs 2 threads and restart N + N = 2N bitwise; a truncated series refused by the restart; the row at an insertion's rebuild; demfile.py and plot_walls.py read them.
# Usage: bash tests/cli_walls.sh DEM_BINARY SOURCE_DIR
NAME=cli_walls
. "$(dirname "$0")/lib.sh"
need_python h5py numpy
run() { # run WHAT DEM-RUN-ARGUMENTS...
  local what=$1
  shift
  "$DEM" run "$@" -q 2> err || bad "$what: $(cat err)"
}

"$PY" "$SRC/tools/make_mesh.py" box box.stl --min 0 0 0 --max 1 1 1 > /dev/null
plate_stl plate.stl

# (1), (2), (3) A ball dropped 1 cm settles (restitution 0.3) and rests at
# (0.3, 0.5) on the floor of an STL box, of the analytic box, and at
# (0.8, 0.3) on a plate whose motion centre is (0.5, 0.5, 0).
cat > rest.yaml << 'EOF'
simulation: {time_step: 1.0e-5, end_time: 0.3, gravity: [0, 0, -9.81]}
materials:
  glass: {density: 2500, young_modulus: 1.0e7, poisson_ratio: 0.2, restitution: 0.3, friction: 0.3, rolling_friction: 0.02}
shapes:
  ball: {material: glass, spheres: [{center: [0, 0, 0], radius: 0.05}]}
particles:
  - body: {shape: ball, position: [0.3, 0.5, 0.06]}
domain:
  box: {min: [0, 0, 0], max: [1, 1, 1]}
  wall_material: glass
contact: {model: hertz_mindlin, skin: 0.005}
output: {snapshot_interval: 0.1, energy_interval: 0.01}
EOF
box_to_meshes rest.yaml '[{name: walls, file: box.stl, material: glass}]' > stl.yaml
box_to_meshes rest.yaml '[{name: plate, file: plate.stl, material: glass, motion: {center: [0.5, 0.5, 0]}}]' \
  -e 's/position: \[0.3, 0.5, 0.06\]/position: [0.8, 0.3, 0.06]/' > plate.yaml
cat > rest.py << 'EOF'
# rest.py FILE WALL: the last row of WALL's load against the ball's weight
# m g at its contact point p (below its centre, z = 0): F = (0, 0, -m g),
# T = (p - c) x F about the wall's torque point c; every other wall
# carries nothing.
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
name = sys.argv[2]
last = f['snapshots'][sorted(f['snapshots'])[-1]]
x, m = last['spheres/position'][0], last['bodies/mass'][0]
walls = f['walls']
n = len(f['energy/time'])
for w in walls:
    for s in ('force', 'torque'):
        if walls[w][s].shape != (n, 3):
            sys.exit('/walls/%s/%s has shape %s, the energy %d rows' % (w, s, walls[w][s].shape, n))
F, T = walls[name]['force'][-1], walls[name]['torque'][-1]
c = walls[name].attrs['torque_point']
W = m * 9.81
want_F = np.array([0, 0, -W])
p = np.array([x[0], x[1], 0.0])
want_T = np.cross(p - c, want_F)
# the same, written out: (p - c) x (0, 0, -W) = W (-(y - cy), x - cx, 0)
assert np.allclose(want_T, W * np.array([-(x[1] - c[1]), x[0] - c[0], 0]), rtol=1e-14, atol=0)
errF = np.max(np.abs(F - want_F)) / W
errT = np.max(np.abs(T - want_T)) / (W * np.linalg.norm(p - c))
others = max([float(np.max(np.abs(walls[w]['force'][-1]))) for w in walls if w != name] + [0.0])
if errF > 1e-6 or errT > 1e-6 or others != 0:
    sys.exit('force %s (weight %s: %.3g), torque %s about %s (r x F %s: %.3g), '
             'other walls %.3g' % (F, want_F, errF, T, c, want_T, errT, others))
print('force off by %.2g of the weight, torque by %.2g' % (errF, errT))
EOF
run "(1) STL box" stl.yaml -o stl.h5
check "(1) STL box: the floor carries the weight, torque about the origin" "$PY" rest.py stl.h5 walls
run "(2) analytic box" rest.yaml -o box.h5
check "(2) analytic box: box_zmin carries the weight, the other five nothing" "$PY" rest.py box.h5 box_zmin
run "(3) plate" plate.yaml -o plate.h5
check "(3) plate: torque = (p - c) x F about the motion centre" "$PY" rest.py plate.h5 plate

# (4) The piston's plate (tests/lib.sh) turning about y through the balls
# (friction, rolling resistance), a row every step: the power the plate
# gives, -torque . w, integrates (trapezoid over the rows) to
# /energy/wall_work.
piston_yaml turn.yaml
TURN=(--set simulation.end_time=0.1 --set output.energy_interval=2.0e-5
  --set domain.meshes.0.name=plate
  --set 'domain.meshes.0.motion={angular_velocity: [0, 3.0, 0], center: [0.5, 0.5, 0.2], start: 0.02}')
cat > power.py << 'EOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
t, W = f['energy/time'][()], f['energy/wall_work'][()]
T = f['walls/plate/torque'][()]
w, start = np.array([0, 3.0, 0]), 0.02
P = -(T @ w) * (t >= start)
I = np.concatenate([[0], np.cumsum(0.5 * (P[1:] + P[:-1]) * np.diff(t))])
err = np.max(np.abs(I - W)) / np.max(np.abs(W))
if not np.all(np.diff(t) > 0) or abs(W[-1]) == 0 or err > 1e-9:
    sys.exit('wall work %g J, integral of -T.w %g J, max difference %.3g of it' % (W[-1], I[-1], err))
print('wall work %g J, -T.w integrates to it within %.3g' % (W[-1], err))
EOF
run "(4) turning plate" turn.yaml -o turn.h5 "${TURN[@]}"
check "(4) turning plate: integral of -torque.w = wall_work" "$PY" power.py turn.h5

# (5), (6) 700 balls dropped onto a turntable (over 512 wall contacts: the
# loops run on threads): 1 vs 2 threads, and a restart N + N, give the same
# /walls bitwise.
cat > layer.yaml << 'EOF'
simulation: {time_step: 2.0e-5, end_time: 0.03, gravity: [0, 0, -9.81]}
materials:
  glass: {density: 2500, young_modulus: 1.0e7, poisson_ratio: 0.2, restitution: 0.5, friction: 0.4, rolling_friction: 0.05}
shapes:
  ball: {material: glass, spheres: [{center: [0, 0, 0], radius: 0.01}]}
particles:
  - random_fill: {shape: ball, count: 700, speed: 0.05, region: {min: [0.01, 0.01, 0.0], max: [0.99, 0.99, 0.026]}}
domain:
  meshes: [{name: table, file: plate.stl, material: glass, motion: {angular_velocity: [0, 0, 2.0], center: [0.5, 0.5, 0]}}]
contact: {model: hertz_mindlin, skin: 0.002}
output: {snapshot_interval: 0.015, energy_interval: 0.001}
EOF
cat > same.py << 'EOF'
import sys, h5py
a, b = h5py.File(sys.argv[1], 'r'), h5py.File(sys.argv[2], 'r')
bad = [w + '/' + s for w in a['walls'] for s in ('force', 'torque')
       if a['walls'][w][s][()].tobytes() != b['walls'][w][s][()].tobytes()]
n = a['snapshots'][sorted(a['snapshots'])[-1]]['wall_contacts/force'].shape[0]
if bad or n <= 512 or not a['walls/table/torque'][-1].any():
    sys.exit('differ: %s; %d wall contacts' % (bad, n))
EOF
run "(5) one thread" layer.yaml -o l1.h5 --threads 1
run "(5) two threads" layer.yaml -o l2.h5 --threads 2
check "(5) 1 vs 2 threads: /walls bitwise" "$PY" same.py l1.h5 l2.h5
run "(6) first half" layer.yaml -o part.h5 --set simulation.end_time=0.015
cp part.h5 damaged.h5
run "(6) restart" layer.yaml --restart part.h5
check "(6) restart N + N = 2N: /walls bitwise" "$PY" same.py l1.h5 part.h5

# (7) A series shorter than the energy rows it goes with is refused.
"$PY" -c '
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f["walls/table/torque"].resize((3, 3))' damaged.h5
"$DEM" run layer.yaml -q --restart damaged.h5 2> err
rc=$?
if [ $rc -eq 2 ] && grep -q "damaged.*walls/table/torque" err; then ok; else bad "(7) truncated series: exit $rc: $(cat err)"; fi

# (8) A mesh cannot take a box wall's name (its group in /walls).
"$DEM" run plate.yaml -q -o bad.h5 --set domain.meshes.0.name=box_zmin 2> err
rc=$?
if [ $rc -eq 2 ] && grep -q "cannot name a mesh" err; then ok; else bad "(8) mesh named box_zmin: exit $rc: $(cat err)"; fi

# (9) The tools: demfile.py's walls(), plot_walls.py.
check "(9) demfile.py reads /walls" "$PY" -c '
import sys; sys.path.insert(0, sys.argv[1])
import demfile, numpy as np
with demfile.open_run(sys.argv[2]) as run:
    w, e = run.walls(), run.energy()
    assert sorted(w) == ["plate"], w
    assert w["plate"]["force"].shape == (len(e["time"]), 3)
    assert np.array_equal(w["plate"]["time"], e["time"])
    assert np.array_equal(w["plate"]["torque_point"], [0.5, 0.5, 0])' "$SRC/tools" plate.h5
if "$PY" -c 'import matplotlib' 2> /dev/null; then
  check "(9) plot_walls.py" "$PY" "$SRC/tools/plot_walls.py" turn.h5 -o walls.png
  [ -s walls.png ] && ok || bad "(9) plot_walls.py wrote no walls.png"
fi

# (10) A body inserted at t = 0.02 s rebuilds the contact lists, which keep
# no forces, at that row: the walls' loads are taken before. Ball 0 comes
# within reach of the floor at that rebuild, which moves ball 1's resting
# contact in the list: its force must still be in the row.
cat > ins.yaml << 'EOF'
simulation: {time_step: 1.0e-5, end_time: 0.025, gravity: [0, 0, -9.81]}
materials:
  glass: {density: 2500, young_modulus: 1.0e7, poisson_ratio: 0.2, restitution: 0.3, friction: 0.3}
shapes:
  ball: {material: glass, spheres: [{center: [0, 0, 0], radius: 0.05}]}
particles:
  - body: {shape: ball, position: [0.7, 0.5, 0.0551], velocity: [0, 0, -0.005]}
  - body: {shape: ball, position: [0.3, 0.5, 0.05]}
  - insert: {region: {box: {min: [0.4, 0.4, 0.6], max: [0.6, 0.6, 0.8]}}, shapes: [{shape: ball, fraction: 1}], count: 1, start: 0.02, end: 0.02}
domain:
  box: {min: [0, 0, 0], max: [1, 1, 1]}
  wall_material: glass
contact: {model: hertz_mindlin, skin: 0.005}
output: {snapshot_interval: 0.05, energy_interval: 0.001}
EOF
run "(10) insertion" ins.yaml -o ins.h5
check "(10) the row at an insertion holds the forces before the rebuild" "$PY" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
t, F = f["energy/time"][()], f["walls/box_zmin/force"][:, 2]
k = int(np.argmin(np.abs(t - 0.02)))
mid = 0.5 * (F[k - 1] + F[k + 1])
if len(f["snapshots"][sorted(f["snapshots"])[-1]]["bodies/mass"]) != 3 or abs(F[k] - mid) > 1e-2 * abs(mid):
    sys.exit("floor force %s at t = %s, its neighbours %s" % (F[k], t[k], F[[k - 1, k + 1]]))' ins.h5

echo "cli_walls: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
