#!/usr/bin/env bash
# Torn writes (tests/kill_writes.c: a write stopped at a page boundary of the file, as a SIGKILL inside it leaves it): (1) the writer of tests/test_h5io.c killed at each write of the append that adds each energy column's second chunk, torn after each of its first pages, leaves a file whose snapshots and energy rows read whole, and a restart from it goes on; (2) a dem run's series whose chunk-index nodes are torn by hand read whole through dem and tools/demfile.py, and a restart writes them again whole; (3) a run of 521 snapshots killed at the writes that link snapshots 104, 105 and 300, torn after each page, leaves /snapshots listing and reading; (4) so does one restarted past its planned links, killed where /snapshots' header grows.
# Usage: bash tests/cli_h5_tear.sh DEM_BINARY SOURCE_DIR
# Before dem 869680b, a chunk-index node torn so lost its last key and
# HDF5 found none of /energy/wall_work's chunks: dem energy read no rows.
NAME=cli_h5_tear
. "$(dirname "$0")/lib.sh"
bin=$(dirname "$DEM")
test_h5io=$bin/test_h5io
preload=$bin/kill_writes.so
for f in "$test_h5io" "$preload"; do
  if [ ! -f "$f" ]; then
    echo "FAIL: $f is not built (CMakeLists.txt)"
    echo "$NAME: 0 passed, 1 failed"
    exit 1
  fi
done
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
export CK_RUN_CASE=tear CK_FORK=yes
# dem's short spin under libgomp, set here: unset, a dem linked with
# libgomp starts twice (src/cli/main.c runs itself again with it set),
# 17 ms more a run.
export GOMP_SPINCOUNT=20000
pages_max=8
[ -n "${DEM_TEST_QUICK:-}" ] && pages_max=1

# 1. The writer of tests/test_h5io.c ("tear" case), killed at each write
#    from the 20 before its 11th append to its end.
# writes ITERATIONS: the child's count of writes in a run of that many
# appends and snapshots, closed
writes() {
  rm -f writes.txt
  DEM_H5_TEAR_ITERATIONS=$1 DEM_WRITES_COUNT=$PWD/writes.txt LD_PRELOAD="$preload" \
    "$test_h5io" > out 2>&1 || bad "the run of $1 appends: $(cat out)"
  cat writes.txt 2> /dev/null || echo 0
}
n10=$(writes 10)
n11=$(writes 11)
echo "writes: $n10 after 10 appends and snapshots, $n11 after 11"
if [ "$n11" -gt "$n10" ] && [ "$n10" -ge 100 ]; then ok; else bad "write counts $n10, $n11 (is pwrite still how HDF5 writes?)"; fi

failed=""
for k in $(seq $((n10 - 20)) "$n11"); do
  for p in $(seq 0 $pages_max); do
    if ! DEM_H5_TEAR_ITERATIONS=11 DEM_KILL_AT_WRITE=$k DEM_KILL_PAGES=$p \
      LD_PRELOAD="$preload" "$test_h5io" > out 2>&1; then
      failed="$failed $k/$p"
      grep -h "torn\|kill trial" out | head -2
    fi
  done
done
echo "killed at writes $((n10 - 20))..$n11, torn after 0..$pages_max pages"
if [ -z "$failed" ]; then ok; else bad "unreadable after kills at write/pages$failed"; fi

# 2. A dem run of rods falling in a box (1,101 energy rows: two chunks of
#    each energy column, 18 of each wall's series) whose /energy/total and
#    /walls/box_zmin/force have their index node's last key zeroed, as the
#    torn write above leaves /energy/wall_work's (the node found with
#    h5debug). Plain HDF5 then misses chunks; dem energy and
#    tools/demfile.py read every row; a restart from it (to 0.03 s) writes
#    the same series as one from the whole run, and plain HDF5 reads them.
need_python h5py,numpy
rods_yaml base.yaml
sed 's/end_time: 0.04, seed: 3}/end_time: 0.022, seed: 3, gravity: [0, 0, -9.81]}/; s/speed: 2.0, angular_speed: 20/speed: 0.5, angular_speed: 5/; s/^output:.*/output: {snapshot_interval: 0.004, energy_interval: 2.0e-5}/' \
  base.yaml > falling.yaml
sed 's/end_time: 0.022,/end_time: 0.03,/' falling.yaml > longer.yaml
if "$DEM" run falling.yaml -q -o whole.h5 2> err; then ok; else bad "the run: $(cat err)"; fi
cp whole.h5 torn.h5
check "the indexes torn" "$PY" - torn.h5 energy/total walls/box_zmin/force << 'EOF'
import re, subprocess, sys
import h5py, numpy as np
path, names = sys.argv[1], sys.argv[2:]
f = h5py.File(path, "r")
places = []
for name in names:
    ds = f[name]
    header = h5py.h5o.get_info(ds.id).addr
    out = subprocess.run(["h5debug", path, str(header)], capture_output=True, text=True).stdout
    node = int(re.search(r"Index address:\s+(\d+)", out).group(1))
    key = 8 + 8 * (ds.ndim + 1)  # chunk size, filter mask, offsets
    places.append((name, node, key, ds.id.get_num_chunks()))
f.close()
with open(path, "r+b") as g:
    for name, node, key, n in places:
        g.seek(node)
        head = g.read(8)
        assert head[:4] == b"TREE" and head[5] == 0, (name, head)  # one leaf
        assert int.from_bytes(head[6:8], "little") == n, (name, n)
        g.seek(node + 24 + n * (key + 8))  # the header, n keys and children
        g.write(bytes(key))
f = h5py.File(path, "r")
for name, *_ in places:
    x = f[name][()]
    fill = int(np.isnan(x).sum())
    print("%s: %d of %d values read as fill" % (name, fill, x.size))
    if not fill:
        sys.exit("%s: the torn index still finds every chunk" % name)
EOF
for f in whole torn; do "$DEM" energy "$f.h5" --csv | tail -n +2 | cut -d, -f2- > "$f.csv"; done
if [ -s whole.csv ] && cmp -s whole.csv torn.csv; then ok; else bad "dem energy differs: $(cat whole.csv torn.csv)"; fi
check "demfile reads the torn file whole" "$PY" - whole.h5 torn.h5 << 'EOF'
import sys
import demfile
a, b = (demfile.open_run(p) for p in sys.argv[1:])
ea, eb = a.energy(), b.energy()
bad = [k for k in ea if ea[k].tobytes() != eb[k].tobytes()]
wa, wb = a.walls(), b.walls()
bad += [w + "/" + k for w in wa for k in ("force", "torque")
        if wa[w][k].tobytes() != wb[w][k].tobytes()]
print("%d energy rows" % len(ea["step"]))
sys.exit("differ: " + " ".join(bad) if bad else 0)
EOF
for f in whole torn; do
  rm -f "$f.xmf"
  if "$DEM" run longer.yaml -q --restart "$f.h5" 2> err; then ok; else bad "restart from $f.h5: $(cat err)"; fi
done
check "the restarts write the same series, whole" "$PY" - whole.h5 torn.h5 << 'EOF'
import sys
import h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:])
names = []
for g in ("energy", "walls"):
    a[g].visititems(lambda n, o: names.append(g + "/" + n) if isinstance(o, h5py.Dataset) else None)
bad = [n for n in names if a[n][()].tobytes() != b[n][()].tobytes()]
fill = [n for n in names if b[n].dtype == np.float64
        and (b[n][()].view(np.uint64) == 0x7FF80DE0DE0DE0DE).any()]
print("%d series, %d energy rows" % (len(names), a["energy/step"].shape[0]))
sys.exit("differ: %s; fill in: %s" % (bad, fill) if bad or fill else 0)
EOF

# lists_snapshots FILE: /snapshots lists 000000.. without a gap and its
# last three snapshots read (plain h5py, tests/lib.sh); else prints what
# is wrong and fails.
start_snapshot_lister
lists_snapshots() {
  local answer
  answer=$(listed_snapshots "$1")
  case $answer in # a count, or what is wrong
    '' | *[!0-9]*) echo "$answer"; return 1 ;;
  esac
}

# 3. /snapshots at its links: 2 rods and a snapshot every step (521), the
#    run killed at each write of the flushes that link snapshots 104, 105
#    and 300, torn after each page it spans but the last (at most 8):
#    /snapshots lists 000000.. without a
#    gap and its last snapshots read (plain h5py). The writes: those to
#    each place of the file written at least 500 times in the whole run
#    (tests/kill_writes.c logs them). When /snapshots was a symbol table,
#    the 105th link's node write torn after its first page left it
#    listing an empty name, and 000104 not found.
sed 's/end_time: 0.022,/end_time: 0.0104,/; s/count: 40/count: 2/; s/^output:.*/output: {snapshot_interval: 2.0e-5, energy_interval: 1.0}/' \
  falling.yaml > many.yaml
rm -f many.h5 many.xmf
if DEM_WRITES_LOG=$PWD/writes.log LD_PRELOAD="$preload" "$DEM" run many.yaml -q -o many.h5 2> err; then ok; else bad "the run of 521 snapshots: $(cat err)"; fi
# the K-th writes to every place written at least 500 times, K = 105, 106,
# 301 (105 only in the sanitizer build), each with the count of pages of
# the file it spans
last_k=301
[ -n "${DEM_TEST_QUICK:-}" ] && last_k=105
targets=$(awk -v last="$last_k" '{n[$1]++
  if (n[$1] == 105 || (last > 105 && (n[$1] == 106 || n[$1] == 301))) {
    w[NR] = $1; p[NR] = int(($1 % 4096 + $2 + 4095) / 4096) } }
  END {for (i in w) if (n[w[i]] >= 500) print i ":" p[i]}' writes.log | sort -n)
echo "the links' writes (write:pages):" $targets
if [ -n "$targets" ]; then ok; else bad "no place of the file is written at each link"; fi
failed=""
for t in $targets; do
  k=${t%:*} spans=${t#*:}
  last=$((spans - 1 < pages_max ? spans - 1 : pages_max))
  for p in $(seq 0 $last); do
    rm -f killed.h5 killed.xmf .killed.h5.*
    # (the subshell, not this shell, reports the kill, to /dev/null)
    (DEM_KILL_AT_WRITE=$k DEM_KILL_PAGES=$p LD_PRELOAD="$preload" \
      "$DEM" run many.yaml -q -o killed.h5; true) > /dev/null 2>&1
    if ! lists_snapshots killed.h5 > out 2>&1; then
      failed="$failed $k/$p"
      tail -1 out
    fi
  done
done
if [ -z "$failed" ]; then ok; else bad "/snapshots unreadable after kills at write/pages$failed"; fi

# 4. /snapshots past its planned links: the run of 521 snapshots
#    restarted from one planned for 11 (so its header holds 512 links and
#    grows by a chunk at about the 510th), killed at each write from 10
#    before the first write to that chunk to 5 after it (4 and 2 in the
#    sanitizer build), torn after 0 and 1 pages: /snapshots lists and
#    reads.
sed 's/end_time: 0.0104,/end_time: 0.0002,/' many.yaml > short.yaml
rm -f short.h5 short.xmf grown.h5 grown.xmf
"$DEM" run short.yaml -q -o short.h5 2> err || bad "the short run: $(cat err)"
cp short.h5 grown.h5
if DEM_WRITES_LOG=$PWD/grow.log LD_PRELOAD="$preload" "$DEM" run many.yaml -q --restart grown.h5 2> err; then ok; else bad "the restart to 521 snapshots: $(cat err)"; fi
header=$("$PY" -c 'import h5py; print(h5py.h5o.get_info(h5py.File("grown.h5", "r")["snapshots"].id).addr)')
# its second chunk's address (h5debug), and the restart's first write there
more=$(h5debug grown.h5 "$header" | awk '/^Chunk 1/ {c = 1} c && /Address:/ {print $2; exit}')
grows=$(awk -v m="${more:--1}" '$1 == m {print NR; exit}' grow.log)
echo "/snapshots' header (at byte $header) grows by a chunk at byte ${more:-?}, the restart's write ${grows:-?}"
failed=""
before=10 after=5
[ -n "${DEM_TEST_QUICK:-}" ] && before=4 after=2
for k in $(seq $((${grows:-20} - before)) $((${grows:-20} + after))); do
  for p in 0 1; do
    cp short.h5 killed.h5
    rm -f killed.xmf
    (DEM_KILL_AT_WRITE=$k DEM_KILL_PAGES=$p LD_PRELOAD="$preload" \
      "$DEM" run many.yaml -q --restart killed.h5; true) > /dev/null 2>&1
    if ! lists_snapshots killed.h5 > out 2>&1; then
      failed="$failed $k/$p"
      tail -1 out
    fi
  done
done
if [ -n "$grows" ] && [ -z "$failed" ]; then ok; else bad "no growth found, or /snapshots unreadable after kills at write/pages$failed"; fi

echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
