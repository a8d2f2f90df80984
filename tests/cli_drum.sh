#!/usr/bin/env bash
# The rotating drum of examples/drum.yaml (150 balls, 0.6 s of turning): the energy balance kinetic + potential + elastic + dissipated - wall work closes within 1e-3 of the starting energy; the angle tool reads the run; the sidecar draws the drum where its motion puts it.
# Usage: bash tests/cli_drum.sh DEM_BINARY SOURCE_DIR
NAME=cli_drum
. "$(dirname "$0")/lib.sh"
need_python h5py numpy yaml

# The example as shipped, smaller and shorter: the balls fall and settle
# for 0.3 s, then the drum turns for 0.6 s (1.2 rad); the drum does work
# on the bed and the contacts dissipate it.
if "$DEM" run "$SRC/examples/drum.yaml" -q -o drum.h5 \
  --set particles.0.random_fill.count=150 --set simulation.end_time=0.9 \
  2> err; then ok; else bad "the drum run: $(cat err)"; fi
# The balance within 1e-3 of E0, worth something only if the drum did work
# comparable to E0 and the contacts dissipated it.
check "energy balance" "$PY" "$SRC/tests/balance_check.py" drum.h5 --work 0.1 --dissipated 0.1
if "$PY" "$SRC/tools/drum_angle.py" drum.h5 --from 0.6 > out 2>&1 &&
  grep -q "dynamic angle of repose" out; then ok; else bad "drum_angle.py: $(cat out)"; fi
grep "dynamic angle" out

# The drum drawn in the XDMF sidecar (a collection mesh_drum of its
# triangles, every data item resolved: tests/xdmf_check.py), and its
# vertices in each snapshot where the motion puts them: the rest vertices
# turned by w (t - start) about the axis y through the centre (Rodrigues,
# computed here from the config's numbers).
check "sidecar" "$PY" "$SRC/tests/xdmf_check.py" drum.xmf
grep -q 'Name="mesh_drum"' drum.xmf && ok || bad "no mesh_drum collection in drum.xmf"
check "drum vertices" "$PY" - drum.h5 << 'PYEOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
rest = f["meshes/drum/vertices"][()]
c, w, start = np.array([0, 0, 0.1]), 2.0, 0.3   # examples/drum.yaml
worst = 0.0
for k in sorted(f["snapshots"]):
    g = f["snapshots"][k]
    th = w * max(g.attrs["time"] - start, 0.0)
    r = rest - c
    turned = np.stack([r[:, 0] * np.cos(th) + r[:, 2] * np.sin(th), r[:, 1],
                       -r[:, 0] * np.sin(th) + r[:, 2] * np.cos(th)], axis=1)
    worst = max(worst, np.max(np.abs(g["meshes/drum"][()] - (c + turned))))
print("largest vertex error %.3g m over %d snapshots" % (worst, len(f["snapshots"])))
sys.exit(0 if worst < 1e-12 else 1)
PYEOF

echo "cli_drum: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
