#!/usr/bin/env bash
# Crash safety at every write: dem killed (SIGKILL) just before each of its writes in turn, or in the middle of it, leaves no file or one that opens with plain h5py, lists its snapshots without gaps, holds them bitwise as the full run wrote them, and whose energy and wall series read through dem and tools/demfile.py as a prefix of the full run's; a restart from it ends bitwise as the full run.
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
stride=1
[ -n "${DEM_TEST_QUICK:-}" ] && stride=7

# 40 rods falling in a box: 500 steps, 6 snapshots and 101 energy rows, so
# the walls' series (chunks of 64 rows) and /snapshots grow during the run.
rods_yaml base.yaml
sed 's/end_time: 0.04, seed: 3}/end_time: 0.01, seed: 3, gravity: [0, 0, -9.81]}/; s/speed: 2.0, angular_speed: 20/speed: 0.5, angular_speed: 5/; s/^output:.*/output: {snapshot_interval: 0.002, energy_interval: 1.0e-4}/' \
  base.yaml > rods.yaml
# kill_run K PAGES OUT: the run killed at its K-th write (after the first
# PAGES pages of it, tests/kill_writes.c); prints "killed", "ended" or
# "failed".
kill_run() {
  DEM_KILL_AT_WRITE=$1 DEM_KILL_PAGES=$2 LD_PRELOAD="$preload" \
    "$DEM" run rods.yaml -q -o "$3" > /dev/null 2> err
  case $? in
    137) echo killed ;;
    0) echo ended ;;
    *) echo failed ;;
  esac
}

rm -f full.h5 full.xmf
if DEM_WRITES_COUNT=writes.txt LD_PRELOAD="$preload" "$DEM" run rods.yaml -q -o full.h5 2> err; then
  ok
else
  bad "the full run: $(cat err)"
fi
n=$(cat writes.txt 2> /dev/null || echo 0)
echo "the full run writes $n times (pwrite)"
if [ "$n" -ge 200 ]; then ok; else bad "only $n writes counted (is pwrite still how HDF5 writes?)"; fi

# Killed before write k, then in the middle of write k (torn after its
# first page).
mkdir -p killed
for pages in 0 1; do
  for k in $(seq 1 "$stride" "$n"); do
    out=killed/k${k}_$pages.h5
    what=$(kill_run "$k" "$pages" "$out")
    if [ "$what" != killed ]; then
      bad "kill at write $k (torn after $pages pages): the run $what: $(cat err)"
      continue
    fi
    rm -f killed/*.xmf killed/.k*
  done
done

# Every file left: plain h5py opens it, lists snapshots 000000.. without a
# gap and reads them bitwise as the full run wrote them; demfile.py reads
# the energy and walls as a prefix of the full run's (a cut last chunk
# dropped, its wall rows NaN). Files appear only after some write (before
# it, the run has no file: the header and first snapshot are written
# under a hidden name) and from then on after every write.
check "every file left by a kill" "$PY" - full.h5 "$n" "$stride" << 'EOF'
import glob, re, sys
import h5py, numpy as np
import demfile

full_path, n, stride = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
full = h5py.File(full_path, "r")
full_run = demfile.open_run(full_path)
fe, fw = full_run.energy(), full_run.walls()
bad, files, cut = [], 0, 0

def datasets(g):
    out = {}
    g.visititems(lambda k, o: out.__setitem__(k, o) if isinstance(o, h5py.Dataset) else None)
    return out

for pages in (0, 1):
    first = None
    for k in range(1, n + 1, stride):
        path = "killed/k%d_%d.h5" % (k, pages)
        try:
            f = h5py.File(path, "r")
        except FileNotFoundError:
            if first is not None:
                bad.append("%s: no file, but the kill at write %d left one" % (path, first))
            continue
        except OSError as e:
            bad.append("%s: does not open: %s" % (path, e))
            continue
        files += 1
        first = k if first is None else first
        try:
            names = list(f["snapshots"])
            if names != ["%06d" % i for i in range(len(names))]:
                bad.append("%s: snapshots %s" % (path, names))
                continue
            if not names:
                bad.append("%s: a file without a snapshot" % path)
            for s in names:
                a, b = f["snapshots"][s], full["snapshots"][s]
                for key in ("step", "time"):
                    if a.attrs[key] != b.attrs[key]:
                        bad.append("%s: %s %s differs" % (path, s, key))
                da, db = datasets(a), datasets(b)
                if set(da) != set(db):
                    bad.append("%s: %s has datasets %s" % (path, s, sorted(set(da) ^ set(db))))
                for key in set(da) & set(db):
                    x, y = da[key][()], db[key][()]
                    if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
                        bad.append("%s: %s/%s differs from the full run's" % (path, s, key))
            run = demfile.open_run(path)
            e, w = run.energy(), run.walls()
            m = len(e["step"])
            if m > len(fe["step"]) or any(
                    e[c].tobytes() != fe[c][:m].tobytes() for c in e):
                bad.append("%s: energy rows not a prefix of the full run's" % path)
            last = a.attrs["step"] if names else -1
            if names and (m == 0 or e["step"][-1] < last):
                bad.append("%s: energy rows end at step %s, before the last snapshot %s"
                           % (path, e["step"][-1] if m else None, last))
            for wall, series in w.items():
                for c in ("force", "torque"):
                    x, y = series[c], fw[wall][c][:m]
                    kept = ~np.isnan(x).all(axis=1)
                    if x.shape != y.shape or x[kept].tobytes() != y[kept].tobytes():
                        bad.append("%s: %s %s not the full run's" % (path, wall, c))
                    cut += int((~kept).sum())
        except Exception as ex:
            bad.append("%s: %s: %s" % (path, type(ex).__name__, ex))
print("%d files, %d wall rows cut by a kill (read as NaN)" % (files, cut))
for b in bad[:20]:
    print(b)
sys.exit(1 if bad or files == 0 else 0)
EOF

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

# /snapshots' symbol table node holds 512 links unless the run plans more:
# a run of 521 snapshots (2 rods, one every step) killed at each write
# around its 513th link (found by bisection) lists its snapshots.
if [ -z "${DEM_TEST_QUICK:-}" ]; then
  sed 's/end_time: 0.01,/end_time: 0.0104,/; s/count: 40/count: 2/; s/^contact:.*//; s/^output:.*/output: {snapshot_interval: 2.0e-5, energy_interval: 1.0}/' \
    rods.yaml > many.yaml
  # listed K: the snapshots listed in the file killed at write K (-1: the
  # listing fails, none: no file)
  listed() {
    rm -f many.h5 many.xmf .many.h5.*
    DEM_KILL_AT_WRITE=$1 LD_PRELOAD="$preload" "$DEM" run many.yaml -q -o many.h5 > /dev/null 2>&1
    "$PY" -c 'import sys, os, h5py
if not os.path.exists("many.h5"): print("none"); sys.exit()
try:
    f = h5py.File("many.h5", "r"); names = list(f["snapshots"])
    ok = names == ["%06d" % i for i in range(len(names))]
    for s in names[-3:]: f["snapshots"][s]["bodies/position"][()]
    print(len(names) if ok else -1)
except Exception: print(-1)'
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
