#!/usr/bin/env bash
# Triangle-mesh walls: a box of 12 STL triangles (ASCII and binary) gives the analytic box's trajectories to 1e-8 over 1 s (hits on edges and corners); one contact across a flat patch's shared edge; the sphere-point Hertz force at a convex edge and corner; a moving piston's wall work closes the energy balance; restart N + N = 2N and 1 vs 2 threads bitwise; bad meshes refused (exit 2).
# Usage: bash tests/cli_mesh.sh DEM_BINARY SOURCE_DIR
NAME=cli_mesh
. "$(dirname "$0")/lib.sh"
need_python h5py

# The closed box [0,1]^3 as 12 triangles, two per face (tools/make_mesh.py,
# ASCII and binary); the faces' diagonals are inner edges of flat patches.
"$PY" "$SRC/tools/make_mesh.py" box box.stl > /dev/null
"$PY" "$SRC/tools/make_mesh.py" box boxb.stl --binary > /dev/null

# (a) A sphere aimed at an edge, one at a corner, one at a face, and a
# 3-sphere clump, in the analytic box and in the STL boxes.
cat > base.yaml << 'EOF'
simulation: {time_step: 2.0e-5, end_time: 1.0}
materials:
  glass: {density: 2500, young_modulus: 1.0e8, poisson_ratio: 0.2, restitution: 0.7, friction: 0.3}
shapes:
  ball: {material: glass, spheres: [{center: [0, 0, 0], radius: 0.05}]}
  rod:
    material: glass
    spheres: [{center: [-0.06, 0, 0], radius: 0.05}, {center: [0, 0, 0], radius: 0.05}, {center: [0.06, 0, 0], radius: 0.05}]
particles:
  - body: {shape: ball, position: [0.5, 0.5, 0.3], velocity: [2.0, 2.0, 0.0]}
  - body: {shape: ball, position: [0.3, 0.3, 0.7], velocity: [-2.0, -2.0, 2.0]}
  - body: {shape: ball, position: [0.25, 0.75, 0.5], velocity: [0.0, 0.0, 2.5]}
  - body: {shape: rod, position: [0.6, 0.7, 0.6], velocity: [1.5, 2.5, -2.0], angular_velocity: [1.0, 2.0, 3.0]}
domain:
  box: {min: [0, 0, 0], max: [1, 1, 1]}
  wall_material: glass
contact: {model: hertz, skin: 0.005}
output: {snapshot_interval: 0.05, energy_interval: 0.01}
EOF
for f in box.stl boxb.stl; do
  box_to_meshes base.yaml "[{name: walls, file: $f, material: glass}]" > "mesh_$f.yaml"
done
cat > traj.py << 'EOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], 'r'), h5py.File(sys.argv[2], 'r')
worst, n = 0.0, 0
for k in a['snapshots']:
    for d in ('bodies/position', 'bodies/velocity', 'bodies/orientation'):
        x, y = a['snapshots'][k][d][()], b['snapshots'][k][d][()]
        worst = max(worst, float(np.max(np.abs(x - y))))
    n += 1
# the bodies must have hit the walls: the wall contacts carry force sometime
hits = sum(int(np.any(a['snapshots'][k]['wall_contacts/force'][()] != 0)) for k in a['snapshots']
           if 'wall_contacts/force' in a['snapshots'][k])
t = a['snapshots'][sorted(a['snapshots'])[-1]].attrs['time']
# Mesh and plane round differently in the contacts, and the bodies' paths
# grow that chaotically: with the rod started 1-4 ulps away in x or y, 14
# runs ended between 8e-13 and 2.4e-9 apart; a face contact point off by
# 1e-7 of itself ends 0.1 apart.
if n < 20 or t < 1.0 or worst > 1e-8:
    sys.exit('%d snapshots to t = %g, max difference %.3g' % (n, t, worst))
print('max difference %.3g' % worst)
EOF
for model in hertz hertz_mindlin; do
  "$DEM" run base.yaml -q -o "box_$model.h5" --force --set contact.model=$model 2> /dev/null
  files="box.stl boxb.stl"
  [ $model = hertz_mindlin ] && files=box.stl # friction and damping: ASCII only
  for f in $files; do
    "$DEM" run "mesh_$f.yaml" -q -o "mesh_$model.h5" --force --set contact.model=$model 2> /dev/null
    check "(a) $model, $f: the mesh box's trajectories are the analytic box's" \
      "$PY" traj.py "box_$model.h5" "mesh_$model.h5"
  done
done

# (b), (c): one sphere pressed into a plate (two triangles, one flat patch)
# or a cube; the force at t = 0 against Hertz's.
plate_stl plate.stl
cat > one.yaml << 'EOF'
simulation: {time_step: 1.0e-5, end_time: 1.0e-5}
materials:
  glass: {density: 2500, young_modulus: 1.0e8, poisson_ratio: 0.2}
shapes:
  ball: {material: glass, spheres: [{center: [0, 0, 0], radius: 0.05}]}
particles:
  - body: {shape: ball, position: [0.5, 0.5, 0.045]}
domain:
  meshes: [{name: plate, file: plate.stl, material: glass}]
contact: {model: hertz, skin: 0.005}
EOF
cat > force.py << 'EOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
s = f['snapshots/000000']
x = s['spheres/position'][0]
fw = s['wall_contacts/force'][()] if 'wall_contacts/force' in s else np.zeros((0, 3))
touching = [v for v in fw if np.any(v != 0)]
p = np.array([float(c) for c in sys.argv[2].split(',')])   # the touched point
E, nu, r = 1.0e8, 0.2, 0.05
estar = 1.0 / (2 * (1 - nu * nu) / E)
d = x - p
dist = np.linalg.norm(d)
want = 4.0 / 3.0 * estar * np.sqrt(r) * (r - dist) ** 1.5 * d / dist
if len(touching) != 1:
    sys.exit('%d touching contacts, expected 1: %s' % (len(touching), fw))
err = np.max(np.abs(touching[0] - want)) / np.linalg.norm(want)
if err > 1e-12:
    sys.exit('force %s, Hertz %s (rel %.3g)' % (touching[0], want, err))
EOF
one() { # one WHAT MESH POSITION TOUCHED_POINT
  "$DEM" run one.yaml -q -o one.h5 --force --set "domain.meshes.0.file=$2" \
    --set "particles.0.body.position=$3" 2> err || bad "$1: $(cat err)"
  check "$1" "$PY" force.py one.h5 "$4"
}
one "(b) above the shared edge of a flat patch" plate.stl "[0.5, 0.5, 0.045]" "0.5,0.5,0"
one "(b) above a shared vertex inside... the plate's corner below" plate.stl "[0.3, 0.3, -0.046]" "0.3,0.3,0"
one "(c) beyond a convex edge of the plate" plate.stl "[1.02, 0.5, 0.03]" "1,0.5,0"
one "(c) beyond a convex corner of the plate" plate.stl "[1.02, 1.02, 0.03]" "1,1,0"
one "(c) beyond a convex edge of the cube" box.stl "[1.03, 0.5, 1.03]" "1,0.5,1"
one "(c) beyond a convex corner of the cube" box.stl "[1.02, 1.02, 1.03]" "1,1,1"
one "(c) above a cube's face near its edge: the face alone" box.stl "[0.98, 0.5, 1.045]" "0.98,0.5,1"

# (d) A piston (the plate, moving down: tests/lib.sh) squeezes balls under
# gravity; and the plate turning about an axis: the wall work closes the
# balance.
piston_yaml piston.yaml
cat > balance.py << 'EOF'
import sys, h5py, numpy as np
from demfile import energy_balance
e = {k: v[()] for k, v in h5py.File(sys.argv[1], 'r')['energy'].items()}
E, W = e['total'], e['wall_work']
scale = max(abs(E[0]), np.max(np.abs(E)), np.max(np.abs(W)))
err = np.max(np.abs(energy_balance(e) - E[0])) / scale
if abs(W[-1]) < 0.1 * scale or err > 1e-3:
    sys.exit('wall work %g J, energy scale %g J, balance off by %.3g of it' % (W[-1], scale, err))
print('balance %.3g, wall work %g J' % (err, W[-1]))
EOF
"$DEM" run piston.yaml -q -o piston.h5 --force 2> err || bad "(d) piston: $(cat err)"
check "(d) piston, hertz_mindlin: E + dissipated - wall_work constant" "$PY" balance.py piston.h5
"$DEM" run piston.yaml -q -o pistonh.h5 --force --set contact.model=hertz 2> /dev/null
check "(d) piston, hertz: E - wall_work constant" "$PY" balance.py pistonh.h5
"$DEM" run piston.yaml -q -o turn.h5 --force \
  --set 'domain.meshes.0.motion={angular_velocity: [0, 3.0, 0], center: [0.5, 0.5, 0.2], start: 0.02}' 2> err ||
  bad "(d) turning plate: $(cat err)"
check "(d) turning plate: E + dissipated - wall_work constant" "$PY" balance.py turn.h5

# (f) Restart N + N = 2N, and 1 vs 2 threads, bitwise, with the moving mesh.
cat > same.py << 'EOF'
import sys, h5py
from same_run import differences, last_snapshot
a, b = h5py.File(sys.argv[1], 'r'), h5py.File(sys.argv[2], 'r')
bad = differences(a, b)
if 'wall_contacts/history' not in last_snapshot(a):
    bad.append('no wall history')
sys.exit('differ: ' + ', '.join(bad) if bad else 0)
EOF
"$DEM" run piston.yaml -q -o part.h5 --force --set simulation.end_time=0.1 2> err || bad "(f) first half: $(cat err)"
"$DEM" run piston.yaml -q --restart part.h5 2> err || bad "(f) restart: $(cat err)"
check "(f) restart N + N = 2N" "$PY" same.py piston.h5 part.h5
"$DEM" run piston.yaml -q -o t1.h5 --force --threads 1 2> /dev/null
"$DEM" run piston.yaml -q -o t2.h5 --force --threads 2 2> /dev/null
check "(f) 1 vs 2 threads" "$PY" same.py t1.h5 t2.h5

# (e) Bad meshes and bad keys: a clear message naming the file, line and
# key; exit 2; nothing written.
printf 'solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 nan\n   vertex 0 1 0\n  endloop\n endfacet\nendsolid x\n' > nan.stl
printf 'solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n  endloop\n endfacet\nendsolid x\n' > two.stl
printf 'solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 2 0 0\n  endloop\n endfacet\nendsolid x\n' > flat.stl
printf 'hello, I am not an STL file\n' > text.stl
refuse() { # refuse WHAT EXPECTED_TEXT --set ...
  local what=$1 want=$2
  shift 2
  rm -f bad.h5
  "$DEM" run one.yaml -q -o bad.h5 --force "$@" 2> err
  local rc=$?
  if [ "$rc" -ne 2 ]; then
    bad "(e) $what: exit $rc, expected 2: $(cat err)"
  elif ! grep -q "\(one.yaml\|--set\):[0-9]*:[0-9]*: .*$want" err; then
    bad "(e) $what: message '$(cat err)' lacks FILE:LINE:COL and '$want'"
  elif [ -e bad.h5 ]; then
    bad "(e) $what: an output file was written"
  else
    ok
  fi
}
# In the file itself: the message names one.yaml's line of the key.
sed -i 's/file: plate.stl/file: nothere.stl/' one.yaml
refuse "missing file" "key 'file': cannot open '.*nothere.stl'"
grep -q "one.yaml:9:" err || bad "(e) missing file: not at one.yaml:9: $(cat err)"
sed -i 's/file: nothere.stl/file: plate.stl/' one.yaml
refuse "NaN coordinate" "nan.stl" --set domain.meshes.0.file=nan.stl
refuse "two vertices" "two.stl" --set domain.meshes.0.file=two.stl
refuse "degenerate triangle" "triangle 1 is degenerate" --set domain.meshes.0.file=flat.stl
refuse "not STL" "text.stl" --set domain.meshes.0.file=text.stl
refuse "unknown key" "unknown key 'scal'" --set domain.meshes.0.scal=2
refuse "bad scale" "key 'scale'" --set domain.meshes.0.scale=-1
refuse "bad motion" "key 'velocity'" --set 'domain.meshes.0.motion={velocity: [1, 2]}'
refuse "zero rotation axis" "key 'axis'" --set 'domain.meshes.0.rotate={axis: [0, 0, 0], angle_deg: 3}'
refuse "unknown material" "steel" --set domain.meshes.0.material=steel
refuse "name box" "key 'name'" --set domain.meshes.0.name=box

echo "cli_mesh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
