#!/usr/bin/env bash
# Feeds dem every bad input of tests/bad_inputs/cases.txt: exit code, one clear message, no output file touched.
# Usage: bash tests/cli_bad_inputs.sh DEM_BINARY SOURCE_DIR
set -u
DEM=$(realpath "$1")
SRC=$(realpath "$2")
CASES="$SRC/tests/bad_inputs"
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL: $*"
}
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
# run_dem CMD ARGS...: sets rc and err (stderr) and out (stdout).
run_dem() {
  (cd "$work/d" && "$DEM" "$@" > "$work/stdout" 2> "$work/stderr")
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

# 4. docs/errors.md is generated from these cases and must be current.
if command -v python3 > /dev/null; then
  if python3 "$SRC/tools/gen_error_table.py" --dem "$DEM" --check > "$work/gen" 2>&1; then
    ok
  else
    bad "docs/errors.md is stale: $(cat "$work/gen") (run: python3 tools/gen_error_table.py)"
  fi
fi

echo "cli_bad_inputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
