#!/usr/bin/env bash
# Size distributions of inserted bodies against theory (Kolmogorov-Smirnov, mean, std; table fractions), and scaled single spheres exact against rho 4/3 pi (s r)^3 and 2/5 m (s r)^2.
# Usage: bash tests/cli_insert_sizes.sh DEM_BINARY SOURCE_DIR
NAME=cli_insert_sizes
. "$(dirname "$0")/insert_lib.sh"
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
