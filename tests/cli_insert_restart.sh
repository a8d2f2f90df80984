#!/usr/bin/env bash
# Insertion: restart N + N = 2N and 1 vs 2 threads bitwise across an insertion window, bodies sorted in space or not bitwise, and dem energy, demfile.py, plot_energy.py, the XDMF sidecar and the layout (tests/output_check.py, scaled bodies) on a run whose body count grows.
# Usage: bash tests/cli_insert_restart.sh DEM_BINARY SOURCE_DIR
NAME=cli_insert_restart
. "$(dirname "$0")/insert_lib.sh"
# (e) Restart N + N = 2N bitwise across an insertion window, and 1 vs 2
# threads, and bodies sorted in space or not: the poured example,
# shortened (insertion from 0 to 0.1 s, restart at 0.02 s).
EX="$SRC/examples/pour_spheres.yaml"
short=(--set simulation.end_time=0.04 --set particles.0.insert.end=0.1 --set output.snapshot_interval=0.01)
"$DEM" run "$EX" -q -o two.h5 --force --threads 2 "${short[@]}" 2> /dev/null
"$DEM" run "$EX" -q -o one.h5 --force --threads 1 "${short[@]}" 2> /dev/null
"$DEM" run "$EX" -q -o sorted.h5 --force --threads 2 "${short[@]}" --set contact.sort_bodies=on 2> /dev/null
"$DEM" run "$EX" -q -o half.h5 --force --threads 2 "${short[@]}" --set simulation.end_time=0.02 2> /dev/null
"$DEM" run "$EX" -q --restart half.h5 --threads 2 "${short[@]}" 2> restart.log || bad "restart: $(cat restart.log)"
cat > same.py << 'EOF2'
import sys, h5py
from same_run import differences, last_snapshot
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
# energy rows of the steps both files have (a restart adds one at its
# start), bitwise
bad = differences(a, b, groups=("bodies", "spheres", "state", "contacts"),
                  most_missing=1)
n = len(last_snapshot(a)["bodies/mass"])
if n != 60:
    bad.append("%d bodies, 1500/s x 0.04 s = 60 asked" % n)
print(" ".join(bad))
sys.exit(1 if bad else 0)
EOF2
out=$("$PY" same.py two.h5 half.h5) && ok || bad "restart 0.02 + 0.02 != 0.04: $out"
out=$("$PY" same.py two.h5 one.h5) && ok || bad "1 thread != 2 threads: $out"
out=$("$PY" same.py two.h5 sorted.h5) && ok || bad "bodies sorted in space != not: $out"
"$DEM" energy two.h5 > energy.txt 2>&1 && ok || bad "dem energy: $(cat energy.txt)"
"$PY" "$SRC/tools/demfile.py" two.h5 > demfile.txt 2>&1 && ok || bad "demfile.py: $(cat demfile.txt)"
"$PY" "$SRC/tools/plot_energy.py" two.h5 -o energy.png > plot.txt 2>&1 && ok || bad "plot_energy.py: $(cat plot.txt)"
"$PY" "$SRC/tests/xdmf_check.py" two.xmf > xdmf.txt 2>&1 && ok || bad "xdmf_check: $(cat xdmf.txt)"
"$PY" "$SRC/tests/output_check.py" two.h5 > layout.txt 2>&1 && ok || bad "output_check: $(cat layout.txt)"

echo "cli_insert_restart: $pass passed, $fail failed"
[ "$fail" = 0 ]
