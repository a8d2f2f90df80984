#!/usr/bin/env bash
# The command line: every spelling of the options works, every command answers --help, and a bad command line gets one line and exit code 2.
# Usage: bash tests/cli_options.sh DEM_BINARY SOURCE_DIR
NAME=cli_options
. "$(dirname "$0")/lib.sh"
cp "$SRC/tests/bad_inputs/valid.yaml" .
# run_dem ARGS...: sets rc, out (stdout) and err (stderr).
run_dem() {
  "$DEM" "$@" > stdout 2> stderr
  rc=$?
  out=$(cat stdout)
  err=$(cat stderr)
}

# 1. Options in every spelling, before and after the config: the run
#    writes the named file with the override applied.
spellings=(
  "run valid.yaml --threads=2 --output=a.h5 --set=simulation.seed=7"
  "run valid.yaml --threads 2 --output a.h5 --set simulation.seed=7"
  "run -o a.h5 --threads 2 --set simulation.seed=7 valid.yaml"
  "run valid.yaml -oa.h5 --threads=2 --set simulation.seed=7 --force -q"
  "run valid.yaml -q -o a.h5 --set=simulation.seed=7 --threads=2 --quiet"
)
for args in "${spellings[@]}"; do
  rm -f a.h5 a.xmf
  read -r -a argv <<< "$args"
  run_dem "${argv[@]}"
  if [ "$rc" -ne 0 ]; then
    bad "dem $args: exit $rc: $err"
  elif ! h5dump -d /config a.h5 2> /dev/null | grep -q "seed: 7"; then
    bad "dem $args: a.h5 missing or without the override seed: 7"
  elif [[ "$args" != *-q* ]] && ! grep -qw "2 threads" stderr; then
    bad "dem $args: the run does not say it used 2 threads: $err"
  else
    ok
  fi
done

# 2. Every command answers --help (and dem help COMMAND) on stdout with
#    its own usage, exit 0.
for cmd in run check energy operators schemes study; do
  for how in "$cmd --help" "$cmd -h" "help $cmd"; do
    read -r -a argv <<< "$how"
    run_dem "${argv[@]}"
    if [ "$rc" -eq 0 ] && [[ "$out" == "usage: dem $cmd"* ]] && [ -z "$err" ]; then ok; else
      bad "dem $how: exit $rc, stdout starts '${out:0:40}', stderr '$err'"
    fi
  done
done
for how in "--help" "-h" "help"; do
  run_dem "$how"
  if [ "$rc" -eq 0 ] && [[ "$out" == *"usage: dem run"* ]]; then ok; else
    bad "dem $how: exit $rc"
  fi
done
run_dem --version
if [ "$rc" -eq 0 ] && [[ "$out" == "dem "[0-9]* ]]; then ok; else bad "dem --version: $out"; fi

# 3. Bad command lines: exit 2, one line on stderr naming the problem,
#    nothing written. ARGS | text the message must hold
while IFS='|' read -r args text; do
  [ -z "$args" ] && continue
  args=${args% }
  text=${text# }
  rm -f valid.h5 a.h5
  read -r -a argv <<< "$args"
  run_dem "${argv[@]}"
  if [ "$rc" -ne 2 ]; then
    bad "dem $args: exit $rc, expected 2; stderr: $err"
  elif [[ "$err" != *"$text"* ]]; then
    bad "dem $args: message lacks '$text': $err"
  elif [ "$(wc -l < stderr)" -ne 1 ]; then
    bad "dem $args: expected one line on stderr: $err"
  elif [ -e valid.h5 ] || [ -e a.h5 ]; then
    bad "dem $args: wrote an output file"
  else
    ok
  fi
done << 'EOF'
run valid.yaml --set simulation.seed | dem run: --set needs PATH=VALUE, found 'simulation.seed'
run valid.yaml --set=simulation.seed | --set needs PATH=VALUE, found 'simulation.seed'
check valid.yaml --set =7 | --set needs PATH=VALUE, found '=7'
run valid.yaml --set | --set needs a value (PATH=VALUE)
run valid.yaml --threads 10000 | found '10000' (the allowed range is 1 to 4096)
run valid.yaml --threads=0 | found '0' (the allowed range is 1 to 4096)
run valid.yaml --threads two | --threads: expected a positive integer, found 'two'
check valid.yaml --threads 99999999999999999999 | the allowed range is 1 to 4096
run valid.yaml -o | -o/--output needs a value (FILE)
run valid.yaml --output | -o/--output needs a value (FILE)
run valid.yaml --restart | --restart needs a value (FILE)
run valid.yaml --force=yes | --force takes no value
run valid.yaml --frce | unknown option '--frce'
check valid.yaml -x | dem check: unknown option '-x'
run valid.yaml other.yaml | one config file expected, found 'other.yaml' too
run valid.yaml -- -o | one config file expected, found '-o' too
energy a.h5 --cvs | dem energy: unknown option '--cvs'
schemes spiral extra | dem schemes: unexpected argument 'extra'
schemes no_such_scheme | dem schemes: unknown scheme 'no_such_scheme'
operators extra | dem operators: unexpected argument 'extra'
study rotation --out | --out needs a value (DIR)
study rotation --lng | unknown option '--lng'
study nothing | dem study: unknown study 'nothing'
help nothing | dem help: unknown command 'nothing'
nothing | dem: unknown command 'nothing'
EOF

# 4. A missing operand shows the usage on stderr, exit 2.
for cmd in run check energy study; do
  run_dem "$cmd"
  if [ "$rc" -eq 2 ] && [[ "$err" == *"usage: dem $cmd"* ]] && [ -z "$out" ]; then ok; else
    bad "dem $cmd (no operand): exit $rc, stderr: $err"
  fi
done

# 5. OMP_THREAD_LIMIT lowers the largest --threads and the message says so.
OMP_THREAD_LIMIT=3 run_dem check valid.yaml --threads 4
if [ "$rc" -eq 2 ] && [[ "$err" == *"range is 1 to 3, set by OMP_THREAD_LIMIT"* ]]; then ok; else
  bad "OMP_THREAD_LIMIT=3 --threads 4: exit $rc: $err"
fi

echo "cli_options: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
