#!/usr/bin/env bash
# Insertion: restart N + N = 2N and 1 vs 2 threads bitwise across an insertion window, bodies sorted in space or not bitwise, and dem energy, demfile.py, plot_energy.py, the XDMF sidecar and the layout (tests/output_check.py, scaled bodies) on a run whose body count grows.
# Usage: bash tests/cli_insert_restart.sh DEM_BINARY SOURCE_DIR
set -u
DEM=$(realpath "$1")
SRC=$(realpath "$2")
CHECK="$SRC/tests/insert_check.py"
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL: $*"
}
PY=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" > /dev/null && "$p" -c 'import h5py, numpy' 2> /dev/null; then
    PY=$p
    break
  fi
done
if [ -z "$PY" ]; then
  echo "FAIL: no python3 with h5py and numpy"
  echo "cli_insert_restart: 0 passed, 1 failed"
  exit 1
fi

# cfg NAME 'INSERT ENTRY (flow mapping)' [END_TIME]: a config whose insert
# entry is line 12 of NAME.yaml. No gravity, bodies at rest: they stay
# where they were put.
cfg() {
  cat > "$1.yaml" << EOF2
simulation: {time_step: 1.0e-4, end_time: ${3:-0.002}, seed: 3}
materials:
  glass: {density: 2500, young_modulus: 1.0e7, poisson_ratio: 0.25}
shapes:
  ball:
    material: glass
    spheres: [{center: [0, 0, 0], radius: 0.01}]
  rod:
    material: glass
    spheres: [{center: [-0.01, 0, 0], radius: 0.01}, {center: [0.01, 0, 0], radius: 0.01}]
particles:
  - insert: $2
domain: {box: {min: [0, 0, 0], max: [1, 1, 1]}, wall_material: glass}
contact: {model: hertz}
output: {snapshot_interval: 1.0e-4}
EOF2
}
run() { # run NAME [args]: quiet run to NAME.h5, log in NAME.log
  local n=$1
  shift
  "$DEM" run "$n.yaml" -o "$n.h5" --force "$@" > "$n.log" 2>&1
}
py() { # py WHAT ARGS...: a check of insert_check.py, its line printed
  local out
  if out=$("$PY" "$CHECK" "$@" 2>&1); then
    ok
    echo "  $out" | head -3
  else
    bad "$*: $out"
  fi
}

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
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
la = a["snapshots"][sorted(a["snapshots"])[-1]]
lb = b["snapshots"][sorted(b["snapshots"])[-1]]
bad = [k for k in ("step", "time") if la.attrs[k] != lb.attrs[k]]
for g in ("bodies", "spheres", "state", "contacts"):
    for n in sorted(set(la[g]) | set(lb[g])):
        if n not in la[g] or n not in lb[g] or la[g][n][()].tobytes() != lb[g][n][()].tobytes():
            bad.append(g + "/" + n)
# energy rows of the steps both files have (a restart adds one at its
# start), bitwise
ea, eb = a["energy"], b["energy"]
ra = {int(s): i for i, s in enumerate(ea["step"][()])}
rb = {int(s): i for i, s in enumerate(eb["step"][()])}
common = sorted(set(ra) & set(rb))
if len(common) < min(len(ra), len(rb)) - 1:
    bad.append("energy: %d common steps of %d and %d" % (len(common), len(ra), len(rb)))
for c in ea:
    if any(ea[c][ra[k]].tobytes() != eb[c][rb[k]].tobytes() for k in common):
        bad.append("energy/" + c)
if len(la["bodies/mass"]) != 60:
    bad.append("%d bodies, 1500/s x 0.04 s = 60 asked" % len(la["bodies/mass"]))
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
