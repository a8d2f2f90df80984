#!/usr/bin/env bash
# Insertion: restart N + N = 2N and 1 vs 2 threads bitwise across an insertion window, dem energy and demfile.py on a run whose body count grows, and bad insert entries refused (exit 2, FILE:LINE:COL and the key, no output).
# Usage: bash tests/cli_insert_restart.sh DEM_BINARY SOURCE_DIR
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
  echo "cli_insert_restart: 0 passed, 1 failed"
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

echo "cli_insert_restart: $pass passed, $fail failed"
[ "$fail" = 0 ]
