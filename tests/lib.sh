# The shared start of the shell tests, sourced with NAME set to the test's name: DEM and SRC from the arguments, a work folder removed at exit, the ok/bad counters and check, need_python, and the pieces several tests share (plate_stl, box_to_meshes, piston_yaml).
set -u
DEM=$(realpath "$1")
SRC=$(realpath "$2")
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# tests/same_run.py and tools/demfile.py, importable by the tests' python
# checks
export PYTHONPATH="$SRC/tests:$SRC/tools${PYTHONPATH:+:$PYTHONPATH}"

ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL: $*"
}
# check WHAT COMMAND...: passes when the command succeeds (it may read a
# here-document: `check WHAT "$PY" - ARGS << 'EOF'`); what it printed is
# shown after WHAT, or in the failure.
check() {
  local what=$1 out
  shift
  if out=$("$@" 2>&1); then
    ok
    if [ -n "$out" ]; then echo "$what: $out"; fi
  else
    bad "$what: $out"
  fi
}

# need_python MODULE...: PY, the first of Debian's python3 and the python3
# on PATH that imports them all; else the test fails at once.
need_python() {
  local p mods
  mods=$(IFS=,; echo "$*")
  PY=""
  for p in /usr/bin/python3 python3; do
    if command -v "$p" > /dev/null && "$p" -c "import $mods" 2> /dev/null; then
      PY=$p
      return 0
    fi
  done
  echo "FAIL: no python3 with $mods (tools/install_deps.sh installs them: python3-numpy python3-h5py python3-matplotlib python3-yaml)"
  echo "$NAME: 0 passed, 1 failed"
  exit 1
}

# start_snapshot_lister, then listed_snapshots FILE: how many snapshots
# FILE lists without a gap, its last three read (plain h5py); "none"
# without the file; "-1 WHY" else (tests/listed_snapshots.py). One python
# process answers for every file, a line each: a start of python and h5py
# for each killed file took 43 s of cli_h5_tear. Needs PY (need_python
# h5py); the lister must start in the test's own shell, not in $(...).
start_snapshot_lister() {
  coproc LISTER { "$PY" -u "$SRC/tests/listed_snapshots.py"; }
}
listed_snapshots() {
  local answer="-1 the lister (tests/listed_snapshots.py) is not running"
  if [ -n "${LISTER[1]:-}" ] && echo "$1" >&"${LISTER[1]}"; then
    read -r answer <&"${LISTER[0]}" ||
      answer="-1 the lister (tests/listed_snapshots.py) ended"
  fi
  echo "$answer"
}

# rods_yaml FILE: the rods several tests start from (and change with sed):
# 40 glass rods of three spheres thrown into a 0.3 m box, time step 2e-5 s
# to 0.04 s, seed 3, no gravity, snapshots every 0.01 s and energy every
# 0.0005 s.
rods_yaml() {
  cat > "$1" << 'EOF2'
simulation: {time_step: 2.0e-5, end_time: 0.04, seed: 3}
materials:
  glass: {density: 2500, young_modulus: 1.0e8, poisson_ratio: 0.2}
shapes:
  rod:
    material: glass
    spheres: [{center: [-0.03, 0, 0], radius: 0.02}, {center: [0, 0, 0], radius: 0.02}, {center: [0.03, 0, 0], radius: 0.02}]
particles:
  - random_fill: {shape: rod, count: 40, speed: 2.0, angular_speed: 20}
domain: {box: {min: [0, 0, 0], max: [0.3, 0.3, 0.3]}, wall_material: glass}
contact: {skin: 0.004}
output: {snapshot_interval: 0.01, energy_interval: 0.0005}
EOF2
}

# plate_stl FILE: a unit square in the plane z = 0 (two triangles, one flat
# patch), ASCII STL.
plate_stl() {
  cat > "$1" << 'EOF2'
solid plate
 facet normal 0 0 1
  outer loop
   vertex 0 0 0
   vertex 1 0 0
   vertex 1 1 0
  endloop
 endfacet
 facet normal 0 0 1
  outer loop
   vertex 0 0 0
   vertex 1 1 0
   vertex 0 1 0
  endloop
 endfacet
endsolid plate
EOF2
}

# box_to_meshes CONFIG 'MESHES' [SED-ARGS...]: CONFIG (on stdout) with its
# domain's box [0, 1]^3 and wall material replaced by `meshes: MESHES`.
box_to_meshes() {
  local file=$1 meshes=$2
  shift 2
  sed -e "s/  box: {min: \[0, 0, 0\], max: \[1, 1, 1\]}/  meshes: $meshes/" \
    -e '/wall_material/d' "$@" "$file"
}

# piston_yaml FILE: 20 balls of 5 cm (hertz_mindlin: friction, rolling
# friction) dropped in the unit box under plate.stl lifted to z = 0.2,
# which moves down at 0.5 m/s from t = 0.02 s; gravity, 0.2 s.
piston_yaml() {
  cat > "$1" << 'EOF2'
simulation: {time_step: 2.0e-5, end_time: 0.2, gravity: [0, 0, -9.81]}
materials:
  glass: {density: 2500, young_modulus: 1.0e8, poisson_ratio: 0.2, restitution: 0.8, friction: 0.3, rolling_friction: 0.02}
shapes:
  ball: {material: glass, spheres: [{center: [0, 0, 0], radius: 0.05}]}
particles:
  - random_fill: {shape: ball, count: 20, speed: 0.5, region: {min: [0, 0, 0], max: [1, 1, 0.145]}}
domain:
  box: {min: [0, 0, 0], max: [1, 1, 1]}
  wall_material: glass
  meshes:
    - {name: piston, file: plate.stl, material: glass, translate: [0, 0, 0.2], motion: {velocity: [0, 0, -0.5], start: 0.02}}
contact: {model: hertz_mindlin, skin: 0.005}
output: {snapshot_interval: 0.05, energy_interval: 0.002}
EOF2
}
