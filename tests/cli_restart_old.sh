#!/usr/bin/env bash
# A restart continues a file written by an older dem, which lacks the energy columns added since (the dissipated work, version 2; the walls' work, version 3; the inserted energy, version 4) and the walls' loads (/walls, version 4): the columns are added, zero for the rows before, the walls' series NaN for the rows before, and the run ends bitwise as one that never stopped.
# Usage: bash tests/cli_restart_old.sh DEM_BINARY SOURCE_DIR
NAME=cli_restart_old
. "$(dirname "$0")/lib.sh"
need_python h5py numpy
RODS="$SRC/examples/box_rods.yaml"
sets=(--set output.snapshot_interval=0.05 --set output.energy_interval=0.01)
"$DEM" run "$RODS" -q -o full.h5 "${sets[@]}" --set simulation.end_time=0.2 2> err || bad "full run: $(cat err)"
"$DEM" run "$RODS" -q -o part.h5 "${sets[@]}" --set simulation.end_time=0.1 2> err || bad "first part: $(cat err)"
# part.h5 as a version-1 dem wrote it: no dissipated or wall-work columns,
# no /walls
"$PY" -c '
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    for c in ("dissipated_damping", "dissipated_friction", "dissipated_rolling",
              "dissipated", "wall_work", "inserted"):
        del f["energy"][c]
    del f["walls"]' part.h5 || bad "could not make the older file"
if "$DEM" run "$RODS" -q --restart part.h5 "${sets[@]}" --set simulation.end_time=0.2 2> err; then
  ok
else
  bad "restart of an older file: exit $?: $(cat err)"
fi
if "$PY" - full.h5 part.h5 > out 2>&1 << 'PYEOF'; then ok; else bad "$(cat out)"; fi
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
bad = []
for c in a["energy"]:
    x, y = a["energy"][c][()], b["energy"][c][()]
    if x.shape != y.shape or not np.array_equal(x, y):
        bad.append("energy/" + c)
# the walls: NaN (not recorded) up to the restart's row, then the full run's
t = b["energy"]["time"][()]
before = t <= b["snapshots/000002"].attrs["time"]  # the first part's last
for w in a["walls"]:
    for s in ("force", "torque"):
        x, y = a["walls"][w][s][()], b["walls"][w][s][()]
        if (y.shape != x.shape or not np.all(np.isnan(y[before])) or
                not np.array_equal(x[~before], y[~before]) or before.all()):
            bad.append("walls/%s/%s" % (w, s))
la, lb = sorted(a["snapshots"])[-1], sorted(b["snapshots"])[-1]
for g in ("bodies", "spheres"):
    for d in a["snapshots"][la][g]:
        if not np.array_equal(a["snapshots"][la][g][d][()], b["snapshots"][lb][g][d][()]):
            bad.append("%s/%s" % (g, d))
print("differ:", bad if bad else "nothing (bitwise the same)")
sys.exit(1 if bad else 0)
PYEOF
cat out
echo "cli_restart_old: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
