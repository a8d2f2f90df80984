# The shared start of the insertion tests (sourced with NAME set): the binary, a work folder, ok/bad counters, python with h5py, cfg/run/py helpers.
set -u
DEM=$(realpath "$1")
SRC=$(realpath "$2")
CHECK="$SRC/tests/insert_check.py"
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL: $*"
}
PY=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" > /dev/null && "$p" -c 'import h5py, numpy' 2> /dev/null; then
    PY=$p
    break
  fi
done
if [ -z "$PY" ]; then
  echo "FAIL: no python3 with h5py and numpy"
  echo "$NAME: 0 passed, 1 failed"
  exit 1
fi

# cfg NAME 'INSERT ENTRY (flow mapping)' [END_TIME]: a config whose insert
# entry is line 12 of NAME.yaml. No gravity, bodies at rest: they stay
# where they were put.
cfg() {
  cat > "$1.yaml" << EOF2
simulation: {time_step: 1.0e-4, end_time: ${3:-0.002}, seed: 3}
materials:
  glass: {density: 2500, young_modulus: 1.0e7, poisson_ratio: 0.25}
shapes:
  ball:
    material: glass
    spheres: [{center: [0, 0, 0], radius: 0.01}]
  rod:
    material: glass
    spheres: [{center: [-0.01, 0, 0], radius: 0.01}, {center: [0.01, 0, 0], radius: 0.01}]
particles:
  - insert: $2
domain: {box: {min: [0, 0, 0], max: [1, 1, 1]}, wall_material: glass}
contact: {model: hertz}
output: {snapshot_interval: 1.0e-4}
EOF2
}
run() { # run NAME [args]: quiet run to NAME.h5, log in NAME.log
  local n=$1
  shift
  "$DEM" run "$n.yaml" -o "$n.h5" --force "$@" > "$n.log" 2>&1
}
py() { # py WHAT ARGS...: a check of insert_check.py, its line printed
  local out
  if out=$("$PY" "$CHECK" "$@" 2>&1); then
    ok
    echo "  $out" | head -3
  else
    bad "$*: $out"
  fi
}

