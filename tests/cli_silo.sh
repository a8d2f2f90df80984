#!/usr/bin/env bash
# The silo of examples/silo.yaml, small (320 balls in a silo 64 mm wide with a 40 mm orifice, 0.55 s): the gate holds the balls until it slides away, then they discharge (the count below the orifice grows); the energy balance closes within 1e-3; tools/silo_flow.py measures a flow rate and a bulk density that are sane for Beverloo's law.
# Usage: bash tests/cli_silo.sh DEM_BINARY SOURCE_DIR
NAME=cli_silo
. "$(dirname "$0")/lib.sh"
need_python h5py numpy yaml matplotlib

# A smaller silo (8 ball diameters wide, the orifice 5 diameters), the
# fill lower; the gate opens at 0.2 s, the run stops at 0.55 s.
"$PY" "$SRC/tools/make_mesh.py" silo silo.stl --width 0.064 --depth 0.064 \
  --height 0.16 --orifice 0.040 --round > /dev/null || bad "make_mesh.py silo"
if "$DEM" run "$SRC/examples/silo.yaml" -q -o silo.h5 --threads 2 \
  --set domain.meshes.0.file="$work/silo.stl" \
  --set particles.0.random_fill.count=320 \
  --set 'particles.0.random_fill.region={min: [-0.027, -0.027, 0.005], max: [0.027, 0.027, 0.125]}' \
  --set 'domain.meshes.1.motion={velocity: [1.0, 0, 0], start: 0.2}' \
  --set simulation.end_time=0.55 --set output.snapshot_interval=0.025 \
  2> err; then ok; else
  bad "the silo run: $(cat err)"
  echo "$NAME: $pass passed, $fail failed"
  exit 1
fi

# Energy: kinetic + potential + elastic + dissipated - wall work within
# 1e-3 of the starting energy (the bed's, above the orifice), and the
# check worth something: the balls fell out and the contacts dissipated.
check "energy balance" "$PY" "$SRC/tests/balance_check.py" silo.h5 --dissipated 0.5
check "dem energy" "$DEM" energy silo.h5

# Discharge: nothing below the orifice while the gate is shut (t <= 0.2 s),
# then a count that never falls and grows to more than 15 % of the balls.
check "discharge" "$PY" - silo.h5 << 'PYEOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")["snapshots"]
rows = sorted((f[k].attrs["time"], int((f[k]["bodies/position"][:, 2] < 0).sum()),
               len(f[k]["bodies/mass"])) for k in f)
print(" ".join("%.3f:%d" % r[:2] for r in rows))
shut = [n for t, n, _ in rows if t <= 0.2 + 1e-9]
after = [n for t, n, _ in rows if t > 0.2 + 1e-9]
ok = (max(shut) == 0 and all(b >= a for a, b in zip(after, after[1:]))
      and after[-1] > 0.15 * rows[-1][2])
sys.exit(0 if ok else 1)
PYEOF

# The flow rate: W > 0 with a small fit error, a bulk density of a random
# packing (solid fraction 0.5 to 0.68 of glass), and Beverloo's C with
# k = 1.5 within 0.3 to 0.9 (literature 0.55 to 0.65).
check "silo_flow.py" "$PY" "$SRC/tools/silo_flow.py" silo.h5 --json flow.json -o flow.png
check "flow numbers" "$PY" - flow.json << 'PYEOF'
import sys, json, math
r = json.load(open(sys.argv[1]))
W, sW, rho, d = r["W"], r["W_err"], r["bulk_density"], r["mean_diameter"]
C = W / (rho * math.sqrt(9.81) * (0.040 - 1.5 * d) ** 2.5)
print("W = %.4g +- %.2g kg/s, rho_b = %.0f kg/m^3, C (k = 1.5) = %.3f"
      % (W, sW, rho, C))
sys.exit(0 if (W > 0 and sW < 0.1 * W and 1250 < rho < 1700
               and 0.3 < C < 0.9) else 1)
PYEOF
[ -s flow.png ] && ok || bad "silo_flow.py wrote no plot"

echo "cli_silo: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
