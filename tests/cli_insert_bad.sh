#!/usr/bin/env bash
# Bad insert entries refused before anything is written: exit 2, one line naming FILE:LINE:COL and the key, no output file.
# Usage: bash tests/cli_insert_bad.sh DEM_BINARY SOURCE_DIR
NAME=cli_insert_bad
. "$(dirname "$0")/insert_lib.sh"
# (g) Bad insert entries: exit 2, one message naming the file, line and
# key, no output file.
refuse() { # refuse NAME 'ENTRY' 'TEXT EXPECTED'
  cfg "$1" "$2"
  rm -f "$1.h5"
  "$DEM" run "$1.yaml" -o "$1.h5" > "$1.log" 2>&1
  local rc=$?
  if [ $rc != 2 ]; then
    bad "$1: exit $rc, expected 2: $(cat "$1.log")"
  elif ! grep -q "$1.yaml:1[2-3]:[0-9]*: .*$3" "$1.log"; then
    bad "$1: no 'FILE:LINE:COL: ...$3' in: $(cat "$1.log")"
  elif [ "$(wc -l < "$1.log")" != 1 ]; then
    bad "$1: more than one line: $(cat "$1.log")"
  elif [ -e "$1.h5" ]; then
    bad "$1: an output file was written"
  else
    ok
  fi
}
R='region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}'
refuse bad_sum "{$R, shapes: [{shape: ball, fraction: 0.5}, {shape: rod, fraction: 0.4}], count: 5}" "fractions sum to 0.9"
refuse bad_sum_close "{$R, shapes: [{shape: ball, fraction: 0.5}, {shape: rod, fraction: 0.50000001}], count: 5}" "fractions sum to 1.00000001"
refuse bad_both "{$R, shape: ball, count: 5, rate: 10}" "not both"
refuse bad_neither "{$R, shape: ball}" "not neither"
refuse bad_mix "{$R, shape: ball, shapes: [{shape: ball, fraction: 1}], count: 5}" "not both"
refuse bad_size "{$R, shape: ball, count: 5, scale: {distribution: table, sizes: [-1, 1], fractions: [0.5, 0.5]}}" "key 'sizes\[0\]'"
refuse bad_zero "{$R, shape: ball, count: 5, scale: {distribution: uniform, min: 0, max: 1}}" "key 'min'"
refuse bad_scale "{$R, shape: ball, count: 5, scale: -2}" "key 'scale'"
refuse bad_region "{region: {box: {min: [0, 0, 0], max: [1, 1, 1.5]}}, shape: ball, count: 5}" "not inside the domain box"
refuse bad_cyl "{region: {cylinder: {center: [0.5, 0.5, 0.5], axis: [0, 0, 1], radius: 0.6, height: 0.2}}, shape: ball, count: 5}" "not inside the domain box"
refuse bad_end "{$R, shape: ball, rate: 5, start: 0.2, end: 0.1}" "key 'end'"
refuse bad_key "{$R, shape: ball, count: 5, rat: 5}" "unknown key 'rat'"
refuse bad_shape "{$R, shape: bal, count: 5}" "unknown shape 'bal'"
refuse bad_dist "{$R, shape: ball, count: 5, scale: {distribution: gamma}}" "distribution"
refuse bad_table "{$R, shape: ball, count: 5, scale: {distribution: table, sizes: [1, 2], fractions: [1]}}" "one fraction per size"
refuse bad_trunc "{$R, shape: ball, count: 5, scale: {distribution: normal, mean: 1, std: 0.01, min: 2, max: 3}}" "share"
refuse bad_minmax "{$R, shape: ball, count: 5, scale: {distribution: normal, mean: 1, std: 0.1, min: 1.2, max: 0.8}}" "key 'max'"

echo "cli_insert_bad: $pass passed, $fail failed"
[ "$fail" = 0 ]
