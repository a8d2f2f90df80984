#!/usr/bin/env bash
# Size distributions of inserted bodies against theory (Kolmogorov-Smirnov, mean, std; table fractions), and scaled single spheres exact against rho 4/3 pi (s r)^3 and 2/5 m (s r)^2.
# Usage: bash tests/cli_insert_sizes.sh DEM_BINARY SOURCE_DIR
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
  echo "cli_insert_sizes: 0 passed, 1 failed"
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

# (c) Size distributions: 3000 draws each against the law asked.
dist() { # dist NAME 'SCALE' CHECK-ARGS...
  local n=$1 s=$2
  shift 2
  cfg "$n" "{region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}, shape: ball, count: 3000, scale: $s}" 1e-4
  if run "$n"; then ok; else bad "$n: $(cat "$n.log")"; fi
  py dist "$n.h5" "$@"
}
dist uniform '{distribution: uniform, min: 0.5, max: 2.0}' uniform 0.5 2.0
dist normal '{distribution: normal, mean: 1.0, std: 0.2, min: 0.7, max: 1.5}' normal 1.0 0.2 0.7 1.5
dist lognormal '{distribution: lognormal, median: 1.0, sigma: 0.3, min: 0.5, max: 2.5}' lognormal 1.0 0.3 0.5 2.5
dist table '{distribution: table, sizes: [0.5, 1.0, 2.0], fractions: [0.5, 0.3, 0.2]}' table 0.5 1.0 2.0 0.5 0.3 0.2

# (d) Scaled properties exact: single spheres against rho 4/3 pi (s r)^3
# and 2/5 m (s r)^2; rods against their shape's mass s^3, inertia s^5.
py scaled uniform.h5 2500 0.01
py scaled table.h5 2500 0.01

# random_fill takes `scale` too (bodies at t = 0): the sizes against the
# law, the scaled spheres exact, no overlap.
cfg fill '{region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}, shape: ball, count: 1}' 1e-4
sed -i 's/^  - insert: .*/  - random_fill: {shape: ball, count: 2000, scale: {distribution: uniform, min: 0.5, max: 2.0}}/' fill.yaml
if run fill; then ok; else bad "fill: $(cat fill.log)"; fi
py dist fill.h5 uniform 0.5 2.0
py scaled fill.h5 2500 0.01
py overlap fill.h5

echo "cli_insert_sizes: $pass passed, $fail failed"
[ "$fail" = 0 ]
