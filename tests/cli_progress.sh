#!/usr/bin/env bash
# Progress in a log: with stderr not a terminal, dem run prints a progress line (step, t, steps/s, ETA, energy drift) every DEM_PROGRESS_INTERVAL seconds of wall time (10 by default).
# Usage: bash tests/cli_progress.sh DEM_BINARY SOURCE_DIR
NAME=cli_progress
. "$(dirname "$0")/lib.sh"
now() { date +%s.%N; }
calc() { awk "BEGIN { print ($1) }"; } # floating point, as bc would (awk is everywhere)

RODS="$SRC/examples/box_rods.yaml"
PAT='^step [0-9]+ / [0-9]+ \([0-9]+ %\)  t = [0-9.e+-]+ / [0-9.e+-]+ s  [0-9.]+ steps/s  .* (ETA|done in) [0-9]+ (s|min)'

# 1. A run of a few seconds (the example's whole 20 s: since small systems
#    stopped paying OpenMP's toll, 2 s of it lasts only a few tenths of a
#    second) with a 0.1 s interval, stderr to a file. The
#    run is waited for (it is in the foreground); how many lines to expect
#    follows from how long it took, whatever the machine's load.
interval=0.1
t0=$(now)
DEM_PROGRESS_INTERVAL=$interval "$DEM" run "$RODS" -o rods.h5 --threads 1 \
  --set simulation.end_time=20 2> log
rc=$?
t1=$(now)
wall=$(calc "$t1 - $t0")
if [ "$rc" -ne 0 ]; then
  bad "run exited $rc: $(cat log)"
fi
lines=$(grep -cE "$PAT" log)
most=$(calc "int($wall / $interval + 2)")
least=$(calc "int($wall / $interval / 2)")
[ "$least" -gt 3 ] || least=3
if [ "$(calc "$wall > 4 * $interval")" -eq 1 ] &&
  [ "$lines" -ge "$least" ] && [ "$lines" -le "$most" ]; then
  ok
else
  bad "$lines progress lines in $wall s at one per $interval s (expected $least to $most): $(cat log)"
fi
# every line but the last has an ETA, the last says how long it took; the
# energy drift is there once an energy row was recorded, the steps grow
if grep -E '^step ' log | head -n -1 | grep -qv ' ETA '; then
  bad "a progress line without ETA: $(cat log)"
else ok; fi
if tail -n 3 log | grep -E '^step ' | grep -q "done in .*drift (E-E0)/|E0| [+-]"; then
  ok
else
  bad "the last progress line lacks 'done in' or the drift: $(cat log)"
fi
if grep -E '^step ' log | awk '{print $2}' | sort -n -c 2> /dev/null; then
  ok
else
  bad "steps do not grow: $(cat log)"
fi

# 2. By default (10 s) a run shorter than that logs only its last line.
t0=$(now)
"$DEM" run "$RODS" -o short.h5 --threads 1 --set simulation.end_time=0.2 2> log
t1=$(now)
if [ "$(calc "$t1 - $t0 < 9")" -eq 1 ]; then
  lines=$(grep -cE "$PAT" log)
  if [ "$lines" -eq 1 ]; then ok; else bad "default interval: $lines lines: $(cat log)"; fi
fi

# 3. A bad interval is said, and the default used; --quiet prints none.
DEM_PROGRESS_INTERVAL=soon "$DEM" run "$RODS" -o short.h5 --force --threads 1 \
  --set simulation.end_time=0.05 2> log
if grep -q "warning: DEM_PROGRESS_INTERVAL='soon' is not a positive number" log; then
  ok
else
  bad "no warning for a bad DEM_PROGRESS_INTERVAL: $(cat log)"
fi
DEM_PROGRESS_INTERVAL=0.001 "$DEM" run "$RODS" -q -o short.h5 --force \
  --threads 1 --set simulation.end_time=0.05 2> log
if [ -s log ]; then bad "--quiet printed: $(cat log)"; else ok; fi

# 4. A dissipative contact law reports the balance E + W - E0.
DEM_PROGRESS_INTERVAL=0.1 "$DEM" run "$RODS" -o fric.h5 --threads 1 \
  --set simulation.end_time=0.3 --set contact.model=hertz_mindlin \
  --set materials.glass.friction=0.3 --set materials.glass.restitution=0.5 2> log
if grep -E '^step ' log | tail -n 1 | grep -q "balance (E+W-E0)/|E0| [+-]"; then
  ok
else
  bad "no balance with hertz_mindlin: $(cat log)"
fi

echo "cli_progress: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
