#!/usr/bin/env bash
# Crash safety at every write: dem killed (SIGKILL) just before each of its writes in turn, or in the middle of it, in a run of rods and in one that pours spheres in, leaves no file or one that opens with plain h5py, lists its snapshots without gaps, holds them bitwise as the full run wrote them, and whose energy and wall series read through dem and tools/demfile.py as a prefix of the full run's (tests/kill_check.py); a restart from it ends bitwise as the full run; /snapshots lists across its 513th link.
# Usage: bash tests/cli_kill_writes.sh DEM_BINARY SOURCE_DIR
# DEM_TEST_QUICK=1 (the sanitizer build) kills before every 7th write only.
NAME=cli_kill_writes
. "$(dirname "$0")/lib.sh"
need_python h5py,numpy
preload=$(dirname "$DEM")/kill_writes.so
if [ ! -f "$preload" ]; then
  echo "FAIL: $preload is not built (the kill_writes target of CMakeLists.txt)"
  echo "$NAME: 0 passed, 1 failed"
  exit 1
fi
# ASan wants its runtime first; the preloaded library only wraps pwrite.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
# dem's short spin under libgomp, set here: unset, a dem linked with
# libgomp starts twice (src/cli/main.c runs itself again with it set),
# 17 ms more for each of this test's 1,164 runs.
export GOMP_SPINCOUNT=20000
stride=1
[ -n "${DEM_TEST_QUICK:-}" ] && stride=7

# 40 rods falling in a box: 500 steps, 6 snapshots and 101 energy rows, so
# the walls' series (chunks of 64 rows) and /snapshots grow during the run.
rods_yaml base.yaml
sed 's/end_time: 0.04, seed: 3}/end_time: 0.01, seed: 3, gravity: [0, 0, -9.81]}/; s/speed: 2.0, angular_speed: 20/speed: 0.5, angular_speed: 5/; s/^output:.*/output: {snapshot_interval: 0.002, energy_interval: 1.0e-4}/' \
  base.yaml > rods.yaml
# kill_run K PAGES OUT CONFIG [ARGS...]: the run killed at its K-th write
# (after the first PAGES pages of it, tests/kill_writes.c); prints
# "killed", "ended" or "failed".
kill_run() {
  local k=$1 pages=$2 out=$3
  shift 3
  DEM_KILL_AT_WRITE=$k DEM_KILL_PAGES=$pages LD_PRELOAD="$preload" \
    "$DEM" run "$@" -q -o "$out" > /dev/null 2> err
  case $? in
    137) echo killed ;;
    0) echo ended ;;
    *) echo failed ;;
  esac
}
# full_run OUT CONFIG [ARGS...]: the run to its end; its count of writes
# in n.
full_run() {
  local out=$1
  shift
  rm -f "$out" "${out%.h5}.xmf"
  if DEM_WRITES_COUNT=writes.txt LD_PRELOAD="$preload" "$DEM" run "$@" -q -o "$out" 2> err; then
    ok
  else
    bad "the full run to $out: $(cat err)"
  fi
  n=$(cat writes.txt 2> /dev/null || echo 0)
  echo "the full run to $out writes $n times (pwrite)"
  if [ "$n" -ge 200 ]; then ok; else bad "only $n writes counted (is pwrite still how HDF5 writes?)"; fi
}
# kill_each DIR STRIDE PAGES CONFIG [ARGS...]: the run killed at every
# STRIDE-th of its n writes (torn after PAGES pages), the files left in
# DIR as kK_PAGES.h5 (tests/kill_check.py checks them).
kill_each() {
  local dir=$1 every=$2 pages=$3 k out what
  shift 3
  mkdir -p "$dir"
  for k in $(seq 1 "$every" "$n"); do
    out=$dir/k${k}_$pages.h5
    what=$(kill_run "$k" "$pages" "$out" "$@")
    if [ "$what" != killed ]; then
      bad "kill at write $k (torn after $pages pages) of $1: the run $what: $(cat err)"
      continue
    fi
    rm -f "$dir"/*.xmf "$dir"/.k*
  done
}

# 1. The rods, killed before each write, then in the middle of each (torn
#    after its first page).
full_run full.h5 rods.yaml
kill_each killed "$stride" 0 rods.yaml
kill_each killed "$stride" 1 rods.yaml
check "every file left by a kill" "$PY" "$SRC/tests/kill_check.py" full.h5 killed "$n" "$stride" 0,1
n_rods=$n

# 2. Spheres poured in (examples/pour_spheres.yaml to 0.05 s): the sphere
#    count differs from snapshot to snapshot, and each new count links its
#    sidecar connectivity /xdmf/polyvertex_M (on 9ec684e, into a group
#    whose header grew, which a kill at 4 writes left unreadable).
pour=("$SRC/examples/pour_spheres.yaml" --set simulation.end_time=0.05
  --set output.snapshot_interval=0.01)
full_run pour_full.h5 "${pour[@]}"
kill_each poured $((2 * stride)) 0 "${pour[@]}"
check "every file left by a kill while pouring" "$PY" "$SRC/tests/kill_check.py" \
  pour_full.h5 poured "$n" $((2 * stride)) 0
n=$n_rods

# dem's own reader on a sample: dem energy reads them, and a restart from
# those killed before the last snapshot ends bitwise as the full run.
sample=$(ls killed/*.h5 2> /dev/null | sort -t k -k2 -n | awk 'NR % 40 == 1')
for f in $sample; do
  if "$DEM" energy "$f" > /dev/null 2> err; then ok; else bad "dem energy $f: $(cat err)"; fi
done
last=$((n - 100)) # the last snapshot takes fewer writes than this
for f in $(echo "$sample" | awk -F'[k_]' -v last=$last '$3 <= last && NR % 3 == 2'); do
  cp "$f" restarted.h5
  rm -f restarted.xmf
  if ! "$DEM" run rods.yaml -q --restart restarted.h5 2> err; then
    bad "restart from $f: $(cat err)"
    continue
  fi
  check "restart from $f" "$PY" - full.h5 restarted.h5 << 'EOF'
import sys, h5py
from same_run import differences
bad = differences(h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"),
                  groups=("bodies", "spheres", "state"), most_missing=0)
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
done

# /snapshots' header holds 512 links unless the run plans more:
# a run of 521 snapshots (2 rods, one every step) killed at each write
# around its 513th link (found by bisection) lists its snapshots.
if [ -z "${DEM_TEST_QUICK:-}" ]; then
  sed 's/end_time: 0.01,/end_time: 0.0104,/; s/count: 40/count: 2/; s/^contact:.*//; s/^output:.*/output: {snapshot_interval: 2.0e-5, energy_interval: 1.0}/' \
    rods.yaml > many.yaml
  # listed K: the snapshots listed in the file killed at write K (-1: the
  # listing fails, none: no file; tests/lib.sh)
  start_snapshot_lister
  listed() {
    local answer
    rm -f many.h5 many.xmf .many.h5.*
    kill_run "$1" 0 many.h5 many.yaml > /dev/null
    answer=$(listed_snapshots many.h5)
    echo "${answer%% *}"
  }
  lo=1 hi=40000 # listed(lo) < 513 <= listed(hi), or fails
  while [ $((hi - lo)) -gt 1 ]; do
    mid=$(((lo + hi) / 2))
    got=$(listed $mid)
    if [ "$got" = none ] || { [ "$got" -ge 0 ] && [ "$got" -lt 513 ]; }; then lo=$mid; else hi=$mid; fi
  done
  failed=""
  for k in $(seq $((hi - 40)) $((hi + 2))); do
    got=$(listed "$k")
    if [ "$got" = -1 ]; then failed="$failed $k"; fi
  done
  echo "the 513th snapshot is listed from write $hi on"
  if [ -z "$failed" ]; then ok; else bad "killed at writes$failed (around the 513th link) /snapshots does not list"; fi
fi

echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
