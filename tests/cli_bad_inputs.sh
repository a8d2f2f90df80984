#!/usr/bin/env bash
# Feeds dem every bad input of tests/bad_inputs/cases.txt: exit code, one clear message, no output file touched.
# Usage: bash tests/cli_bad_inputs.sh DEM_BINARY SOURCE_DIR
NAME=cli_bad_inputs
. "$(dirname "$0")/lib.sh"
CASES="$SRC/tests/bad_inputs"
trim() {
  local s="$1"
  s="${s#"${s%%[![:space:]]*}"}"
  s="${s%"${s##*[![:space:]]}"}"
  printf '%s' "$s"
}
# A scratch copy of the cases, where each one runs (its output: out.h5).
fresh() {
  rm -rf "$work/d"
  mkdir "$work/d"
  cp -r "$CASES"/. "$work/d"/
  rm -f "$work/d/cases.txt"
}
# Every file with its size, mtime and checksum: what "untouched" means.
listing() {
  (cd "$work/d" && find . -mindepth 1 -printf '%p %y %s %T@\n' | sort &&
    find . -type f -print0 | sort -z | xargs -0 md5sum)
}
sentinel() {
  printf 'not an HDF5 file: dem must leave it alone\n' > "$work/d/out.h5"
  printf 'not a sidecar either\n' > "$work/d/out.xmf"
  touch -d '2001-01-01 00:00:00' "$work/d/out.h5" "$work/d/out.xmf"
}
# limit CMD ARGS...: runs CMD with a time limit, so that an input that
# makes dem hang (a FIFO, /dev/zero) fails its case instead of the suite.
limit() {
  if command -v timeout > /dev/null; then timeout -s KILL 120 "$@"; else "$@"; fi
}
# run_dem CMD ARGS...: sets rc and err (stderr) and out (stdout).
run_dem() {
  (cd "$work/d" && limit "$DEM" "$@" > "$work/stdout" 2> "$work/stderr")
  rc=$?
  err=$(cat "$work/stderr")
}
# check_message NAME WHAT EXPECTED_RC EXPECTED_TEXT: exit code and message;
# on failure (rc 2) the message must be the only line on stderr.
check_message() {
  local name=$1 what=$2 want_rc=$3 text=$4
  if [ "$rc" -ne "$want_rc" ]; then
    bad "$name ($what): exit $rc, expected $want_rc; stderr: $err"
    return 1
  fi
  if [[ "$err" != *"$text"* ]]; then
    bad "$name ($what): message lacks '$text'; stderr: $err"
    return 1
  fi
  if [ "$want_rc" -eq 2 ] && [ "$(wc -l < "$work/stderr")" -ne 1 ]; then
    bad "$name ($what): expected one line on stderr, found: $err"
    return 1
  fi
  ok
}

# The last snapshot of out.h5 must be at the step the message names.
check_last_snapshot() {
  local name=$1 step last got
  step=$(sed -n 's/.*step \([0-9][0-9]*\),.*/\1/p' "$work/stderr" | tail -1)
  last=$(h5ls "$work/d/out.h5/snapshots" 2> /dev/null | awk '{print $1}' | sort | tail -1)
  if [ -z "$last" ]; then
    bad "$name: out.h5 does not open or has no snapshot"
    return
  fi
  got=$(h5dump -a "/snapshots/$last/step" "$work/d/out.h5" 2> /dev/null |
    sed -n 's/.*(0): *\([0-9-][0-9]*\).*/\1/p')
  if [ -n "$step" ] && [ "$got" = "$step" ]; then
    ok
  else
    bad "$name: last snapshot $last is at step '$got', the message names step '$step'"
  fi
}

n_cases=0
while IFS= read -r line; do
  case "$line" in '' | '#'*) continue ;; esac
  IFS='|' read -r class config run_rc check_rc text args <<< "$line"
  class=$(trim "$class")
  config=$(trim "$config")
  run_rc=$(trim "$run_rc")
  check_rc=$(trim "$check_rc")
  text=$(trim "$text")
  args=$(trim "${args:-}")
  existing=0
  if [[ " $args " == *" EXISTING "* ]]; then
    existing=1
    args=$(trim "${args//EXISTING/}")
  fi
  read -r -a extra <<< "$args"
  n_cases=$((n_cases + 1))
  name="$config${args:+ $args} [$class]"

  # 1. dem run: exit code and message; nothing written on a bad input.
  fresh
  [ "$existing" -eq 1 ] && sentinel
  before=$(listing)
  run_dem run "$config" "${extra[@]}"
  check_message "$name" "dem run" "$run_rc" "$text"
  case "$run_rc" in
    2)
      if [ "$(listing)" = "$before" ]; then ok; else
        bad "$name: files changed: $(diff <(echo "$before") <(listing) | tr '\n' ' ')"
      fi
      ;;
    3) check_last_snapshot "$name" ;;
    0)
      if [ -f "$work/d/out.h5" ]; then ok; else bad "$name: no out.h5 written"; fi
      ;;
  esac

  # 2. An existing output file survives a bad input, even with --force.
  if [ "$run_rc" -eq 2 ] && [ "$existing" -eq 0 ]; then
    fresh
    sentinel
    before=$(listing)
    run_dem run "$config" "${extra[@]}" --force
    check_message "$name" "dem run --force over an existing out.h5" 2 "$text"
    if [ "$(listing)" = "$before" ]; then ok; else
      bad "$name: --force touched files: $(diff <(echo "$before") <(listing) | tr '\n' ' ')"
    fi
  fi

  # 3. dem check finds the same problem and writes nothing.
  fresh
  [ "$existing" -eq 1 ] && sentinel
  before=$(listing)
  run_dem check "$config" "${extra[@]}"
  if [ "$check_rc" -eq 2 ]; then
    check_message "$name" "dem check" 2 "$text"
  elif [ "$rc" -eq "$check_rc" ]; then
    ok
  else
    bad "$name (dem check): exit $rc, expected $check_rc; stderr: $err"
  fi
  if [ "$(listing)" = "$before" ]; then ok; else bad "$name: dem check wrote files"; fi
done < "$CASES/cases.txt"

if [ "$n_cases" -lt 30 ]; then
  bad "only $n_cases cases read from $CASES/cases.txt"
fi

# 4. Inputs that cannot live in tests/bad_inputs (special files, files of
#    the size limits, generated configs), made here in a scratch directory:
#    each is refused (or accepted) at once, with one line and nothing written.
gen="$work/gen"
# gen_case NAME WANT_RC TEXT ARGS...: runs `dem ARGS` in $gen.
gen_case() {
  local name=$1 want_rc=$2 text=$3
  shift 3
  (cd "$gen" && limit "$DEM" "$@" > "$work/stdout" 2> "$work/stderr")
  rc=$?
  err=$(cat "$work/stderr")
  check_message "$name" "generated" "$want_rc" "$text" || return
  if [ -n "$(cd "$gen" && ls ./*.h5 ./*.xmf 2> /dev/null)" ]; then
    bad "$name: an output file was written"
  else
    ok
  fi
}
rm -rf "$gen"
mkdir "$gen"
valid="$CASES/valid.yaml"
# A copy of valid.yaml whose ball reads its spheres from FILE.
with_shape_file() { sed "s|spheres: \[{center: \[0, 0, 0\], radius: 0.05}\]|file: $1|" "$valid"; }

gen_case "config /dev/zero" 2 "/dev/zero: cannot open: it is a character device, not a regular file" check /dev/zero
mkdir "$gen/dir.yaml"
gen_case "config directory" 2 "dir.yaml: cannot open: it is a directory" run dir.yaml
rmdir "$gen/dir.yaml"
if mkfifo "$gen/fifo.yaml" 2> /dev/null; then
  gen_case "config FIFO" 2 "fifo.yaml: cannot open: it is a FIFO, not a regular file" run fifo.yaml
  mv "$gen/fifo.yaml" "$gen/fifo.txt"
  with_shape_file fifo.txt > "$gen/c.yaml"
  gen_case "shape file FIFO" 2 "key 'file': cannot open './fifo.txt': it is a FIFO, not a regular file" run c.yaml
  rm -f "$gen/fifo.txt"
else
  echo "note: mkfifo failed here; the FIFO cases are skipped"
fi
truncate -s $((16 * 1024 * 1024 + 1)) "$gen/huge.yaml"
gen_case "config over 16 MiB" 2 "huge.yaml: cannot open: it is larger than the limit of 16 MiB" check huge.yaml
rm -f "$gen/huge.yaml"
truncate -s $((256 * 1024 * 1024 + 1)) "$gen/huge.txt"
with_shape_file huge.txt > "$gen/c.yaml"
gen_case "shape file over 256 MiB" 2 "key 'file': cannot open './huge.txt': it is larger than the limit of 256 MiB" run c.yaml
rm -f "$gen/huge.txt"
awk 'BEGIN { for (i = 0; i <= 1000000; i++) printf "%d, 0, 0, 0.001\n", 2 * i }' > "$gen/many.txt"
with_shape_file many.txt > "$gen/c.yaml"
gen_case "shape file of 1,000,001 spheres" 2 "key 'file': './many.txt' holds more than 1000000 spheres, the limit for one shape" run c.yaml
rm -f "$gen/many.txt"
{ printf '0, 0, 0, 0.05'; printf ' %.0s' $(seq 2000); printf '\n'; } > "$gen/long.txt"
with_shape_file long.txt > "$gen/c.yaml"
gen_case "shape file with a long line" 2 "key 'file': ./long.txt:1: line longer than 1022 characters" run c.yaml
rm -f "$gen/long.txt"

# 300 materials and 300 shapes (the 256th used to be "unknown"): the 300th
# of each is found, a misspelt one is suggested, and 1,025 materials are
# refused by the documented limit.
many_names() { # N_MATERIALS N_SHAPES SHAPE_USED MATERIAL_OF_SHAPES
  echo "simulation: {time_step: 1.0e-5, end_time: 0.001, seed: 1}"
  echo "materials:"
  for ((i = 1; i <= $1; i++)); do
    echo "  m$i: {density: 2500, young_modulus: 1.0e9, poisson_ratio: 0.1}"
  done
  echo "shapes:"
  for ((i = 1; i <= $2; i++)); do
    echo "  s$i: {material: $4, spheres: [{center: [0, 0, 0], radius: 0.05}]}"
  done
  echo "particles:"
  echo "  - body: {shape: $3, position: [0.5, 0.5, 0.5]}"
  echo "domain: {box: {min: [0, 0, 0], max: [1, 1, 1]}, wall_material: m300}"
  echo "output: {file: out.h5}"
}
many_names 300 300 s300 m300 > "$gen/c.yaml"
gen_case "300 materials and 300 shapes" 0 "" check c.yaml -q
many_names 300 300 s300x m300 > "$gen/c.yaml"
gen_case "the 300th shape misspelt" 2 "unknown shape 's300x' (did you mean 's300'?)" check c.yaml
many_names 300 300 s300 m300x > "$gen/c.yaml"
gen_case "the 300th material misspelt" 2 "unknown material 'm300x' (did you mean 'm300'?)" check c.yaml
many_names 1025 1 s1 m1 > "$gen/c.yaml"
gen_case "1,025 materials" 2 "key 'materials': 1025 materials, more than the limit of 1024" check c.yaml

# 100,000 top-level keys: refused at once (key-by-key checks took a minute).
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "k%d: 1\n", i }' > "$gen/c.yaml"
gen_case "100,000 top-level keys" 2 "unknown key 'k0' in 'the top level'" check c.yaml
rm -rf "$gen"

# 5. docs/errors.md is generated from these cases and must be current.
if command -v python3 > /dev/null; then
  if python3 "$SRC/tools/gen_error_table.py" --dem "$DEM" --check > "$work/gen" 2>&1; then
    ok
  else
    bad "docs/errors.md is stale: $(cat "$work/gen") (run: python3 tools/gen_error_table.py)"
  fi
fi

echo "cli_bad_inputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
