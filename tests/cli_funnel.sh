#!/usr/bin/env bash
# The funnel pile of examples/funnel_pile.yaml, small (400 balls): the energy balance, the inserted balls' energy counted, closes within 1e-3 over the whole run and after the pouring; tools/repose_angle.py finds a pile with a sane angle of repose (5 to 50 degrees).
# Usage: bash tests/cli_funnel.sh DEM_BINARY SOURCE_DIR
NAME=cli_funnel
. "$(dirname "$0")/lib.sh"
need_python h5py numpy yaml matplotlib

# 400 balls poured in 0.4 s (they queue in the funnel), at rest by 1 s.
if "$DEM" run "$SRC/examples/funnel_pile.yaml" -q -o pile.h5 --threads 2 \
  --set particles.0.insert.rate=1000 --set particles.0.insert.end=0.4 \
  --set simulation.end_time=1.0 \
  2> err; then ok; else
  bad "the funnel run: $(cat err)"
  echo "$NAME: $pass passed, $fail failed"
  exit 1
fi

# Energy over the whole run, pouring included: total + dissipated -
# wall_work - inserted (the energy each ball brought in at its insertion)
# constant within 1e-3 of the scale |E0| + the energy inserted (E0 = 0: the
# run starts with no ball); and after the pouring within 1e-3 of the energy
# then, with work dissipated since.
check "energy balance" "$PY" - pile.h5 << 'PYEOF'
import sys, h5py, numpy as np, yaml
from demfile import energy_balance
f = h5py.File(sys.argv[1], "r")
e = f["energy"]
t, E, D, W, I = (e[k][()] for k in ("time", "total", "dissipated", "wall_work", "inserted"))
b = energy_balance({k: v[()] for k, v in e.items()})
scale = abs(E[0]) + np.max(np.abs(I - I[0]))
whole = np.max(np.abs(b - b[0])) / scale
end = yaml.safe_load(f["config"][()])["particles"][0]["insert"]["end"]
after = t > end + 1e-9
dev = np.max(np.abs(b[after] - b[after][0])) / abs(E[after][0])
dD = D[after][-1] - D[after][0]
print("whole run: balance %.3g of %.4g J inserted; after t = %g s: %.3g of "
      "E(t0) %.4g J, dissipated since %.4g J" % (whole, I[-1], end, dev,
                                                 E[after][0], dD))
sys.exit(0 if whole < 1e-3 and dev < 1e-3 and dD > 0.01 * abs(E[after][0]) else 1)
PYEOF

# The pile: all 400 balls in, a pile more than two balls high, and an angle
# of repose between 10 and 50 degrees (frictionless balls spread out flat).
check "repose_angle.py" "$PY" "$SRC/tools/repose_angle.py" pile.h5 --json pile.json -o pile.png
check "pile numbers" "$PY" - pile.json << 'PYEOF'
import sys, json
r = json.load(open(sys.argv[1]))
print("%d spheres, height %.4f m, angle %.1f +- %.1f deg"
      % (r["n_spheres"], r["height"], r["angle"], r["angle_err"]))
sys.exit(0 if (r["n_spheres"] == 400 and r["height"] > 0.02
               and 5 < r["angle"] < 50 and r["angle_err"] < 10) else 1)
PYEOF
[ -s pile.png ] && ok || bad "repose_angle.py wrote no plot"

echo "cli_funnel: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
