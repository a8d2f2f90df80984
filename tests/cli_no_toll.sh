#!/usr/bin/env bash
# A small system pays no OpenMP toll: a run below the parallel threshold makes (almost) no futex calls (strace -c), where a parallel region with a false if clause made about ten a step, and its steps make no call into libgomp's regions or worksharing (counted with build/omp_calls.so).
# Usage: bash tests/cli_no_toll.sh DEM_BINARY SOURCE_DIR
set -u
DEM=$(realpath "$1")
SRC=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0
fail=0
# The steps call nothing in libgomp that makes a team, a work share or a
# lock: the count of such calls (tests/omp_calls.c, preloaded; not the
# few-instruction calls an orphaned static loop makes) is the same for
# 2,632 and 5,263 steps. An orphaned `omp for schedule(dynamic)` made
# two a step, with a work share allocated and freed each time.
preload=$(dirname "$DEM")/omp_calls.so
if [ ! -f "$preload" ]; then
  echo "FAIL: $preload is not built (the omp_calls target of CMakeLists.txt)"
  fail=$((fail + 1))
else
  counts=""
  for end in 0.1 0.2; do
    if ! GOMP_SPINCOUNT=20000 DEM_OMP_CALLS="$work/calls_$end" \
      ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0" \
      LD_PRELOAD="$preload" "$DEM" run "$SRC/examples/box_rods.yaml" -q \
      -o "calls_$end.h5" --threads 1 --set simulation.end_time=$end 2> err; then
      echo "FAIL: the run to $end s under omp_calls.so: $(cat err)"
    fi
    counts="$counts $(head -1 "$work/calls_$end" 2> /dev/null || echo none)"
  done
  set -- $counts
  echo "libgomp region and worksharing calls, runs of 2,632 and 5,263 steps: $1 and $2"
  if [ "$1" != none ] && [ "$1" = "$2" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL: the steps call libgomp (a region or an orphaned dynamic loop below the threshold?); by entry, the longer run:"
    tail -n +2 "$work/calls_0.2"
    fail=$((fail + 1))
  fi
fi

if ! command -v strace > /dev/null || ! strace -f -o /dev/null true 2> /dev/null; then
  echo "SKIP: strace is not installed or may not trace here (apt-get install strace)"
  echo "cli_no_toll: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
fi
# 30 rods, 5,263 steps: before, about 55,000 futex calls on one thread.
# LeakSanitizer cannot work under ptrace: off here (other tests check leaks).
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
if ! strace -f -c -e trace=futex -o trace.txt "$DEM" run "$SRC/examples/box_rods.yaml" \
  -q -o rods.h5 --threads 1 --set simulation.end_time=0.2 2> err; then
  echo "FAIL: the run: $(cat err)"
  echo "cli_no_toll: $pass passed, $((fail + 1)) failed"
  exit 1
fi
calls=$(awk '$NF == "futex" { print $4 }' trace.txt)
calls=${calls:-0}
echo "futex calls in 5,263 steps of 90 spheres on one thread: $calls"
if [ "$calls" -le 20 ]; then
  pass=$((pass + 1))
else
  echo "FAIL: $calls futex calls (a parallel region entered below the threshold?)"
  cat trace.txt
  fail=$((fail + 1))
fi
echo "cli_no_toll: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
