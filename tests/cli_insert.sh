#!/usr/bin/env bash
# Insertion over time: no overlap at insertion (checked from the output, apart from the inserter), counts by rate and by count, the shape mix, scaled clump properties exact, a full region.
# Usage: bash tests/cli_insert.sh DEM_BINARY SOURCE_DIR
NAME=cli_insert
. "$(dirname "$0")/insert_lib.sh"
# (a) No overlap at insertion: 400 polydisperse balls and rods, 20 per
# step, into a small region; each body checked in the snapshot of its
# step against every sphere of every other body there, and the walls.
cfg dense '{region: {box: {min: [0.4, 0.4, 0.0], max: [0.6, 0.6, 0.2]}},
    shapes: [{shape: ball, fraction: 0.5}, {shape: rod, fraction: 0.5}],
    rate: 200000, end: 0.002, velocity: [0, 0, 0],
    scale: {distribution: uniform, min: 0.5, max: 1.5}}'
if run dense; then ok; else bad "dense: $(cat dense.log)"; fi
py overlap dense.h5
py walls dense.h5 0 1

# (a2) Mesh walls count as walls: a cube of 12 STL triangles, no domain
# box, the region the cube itself; every sphere must stay clear of the
# faces (about 6 % of random places would cross one).
if "$PY" "$SRC/tools/make_mesh.py" box cube.stl --min 0 0 0 --max 1 1 1 > /dev/null; then
  cfg meshed '{region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}, shape: ball,
    count: 400, start: 0, velocity: [0, 0, 0]}'
  sed -i 's|^domain: .*|domain: {meshes: [{name: cube, file: cube.stl, material: glass}]}|' meshed.yaml
  if run meshed; then ok; else bad "meshed: $(cat meshed.log)"; fi
  py overlap meshed.h5
  py walls meshed.h5 0 1
else
  bad "tools/make_mesh.py box failed"
fi

# (b) Counts: rate x time in every snapshot (from start 0.0005 s to end
# 0.0015 s), and the shape mix within binomial tolerance.
cfg rate '{region: {box: {min: [0, 0, 0], max: [1, 1, 1]}},
    shapes: [{shape: ball, fraction: 0.3}, {shape: rod, fraction: 0.7}],
    rate: 1.5e6, start: 0.0005, end: 0.0015}'
if run rate; then ok; else bad "rate: $(cat rate.log)"; fi
py count rate.h5 1.5e6 0.0005 0.0015
py mix rate.h5 0.3 0.7
cfg count '{region: {cylinder: {center: [0.5, 0.5, 0.5], axis: [1, 1, 0],
    radius: 0.3, height: 0.5}}, shape: rod, count: 300, start: 0.0003}'
if run count; then ok; else bad "count: $(cat count.log)"; fi
"$PY" - << 'EOF2' && ok || bad "count: all 300 at the first step at or after start"
import h5py
f = h5py.File("count.h5", "r")
for k in sorted(f["snapshots"]):
    g = f["snapshots"][k]
    n, t = len(g["bodies/mass"]), g.attrs["time"]
    want = 300 if t >= 0.0003 - 1e-12 else 0
    assert n == want, (t, n)
EOF2
py overlap count.h5

# (f) A full region: 400 balls do not fit in 0.06^3 m^3; fewer are put
# in, the log says so once, and none overlaps.
cfg full '{region: {box: {min: [0.1, 0.1, 0.1], max: [0.16, 0.16, 0.16]}},
    shape: ball, count: 400, max_attempts: 200}' 3e-4
if run full; then ok; else bad "full: $(cat full.log)"; fi
n=$(grep -c "no free place for" full.log)
[ "$n" = 1 ] && ok || bad "full: the log says $n times that the region is full"
grep -q "insertion: [0-9]* bodies inserted, [1-9][0-9]* not inserted" full.log && ok ||
  bad "full: no count of bodies not inserted in the summary: $(cat full.log)"
py overlap full.h5
py clump dense.h5

echo "cli_insert: $pass passed, $fail failed"
[ "$fail" = 0 ]
