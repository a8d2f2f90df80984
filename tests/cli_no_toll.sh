#!/usr/bin/env bash
# A small system pays no OpenMP toll: a run below the parallel threshold makes (almost) no futex calls (strace -c), where a parallel region with a false if clause made about ten a step.
# Usage: bash tests/cli_no_toll.sh DEM_BINARY SOURCE_DIR
set -u
DEM=$(realpath "$1")
SRC=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
if ! command -v strace > /dev/null || ! strace -f -o /dev/null true 2> /dev/null; then
  echo "SKIP: strace is not installed or may not trace here (apt-get install strace)"
  echo "cli_no_toll: 0 passed, 0 failed"
  exit 0
fi
# 30 rods, 5,263 steps: before, about 55,000 futex calls on one thread.
# LeakSanitizer cannot work under ptrace: off here (other tests check leaks).
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
if ! strace -f -c -e trace=futex -o trace.txt "$DEM" run "$SRC/examples/box_rods.yaml" \
  -q -o rods.h5 --threads 1 --set simulation.end_time=0.2 2> err; then
  echo "FAIL: the run: $(cat err)"
  echo "cli_no_toll: 0 passed, 1 failed"
  exit 1
fi
calls=$(awk '$NF == "futex" { print $4 }' trace.txt)
calls=${calls:-0}
echo "futex calls in 5,263 steps of 90 spheres on one thread: $calls"
if [ "$calls" -le 20 ]; then
  echo "cli_no_toll: 1 passed, 0 failed"
else
  echo "FAIL: $calls futex calls (a parallel region entered below the threshold?)"
  cat trace.txt
  echo "cli_no_toll: 0 passed, 1 failed"
  exit 1
fi
