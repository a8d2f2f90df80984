#!/usr/bin/env bash
# The energy inserted bodies bring: /energy/inserted against each body's kinetic + gravitational energy recomputed from the snapshots, the balance total + dissipated - inserted closing to second order in dt on a pour, and the restart of an insertion file written before the column existed.
# Usage: bash tests/cli_insert_energy.sh DEM_BINARY SOURCE_DIR
NAME=cli_insert_energy
. "$(dirname "$0")/insert_lib.sh"

# (a) Independent value: bodies of mixed shapes and sizes inserted over
# 20 steps with one velocity, in free fall (the same velocity and the
# same gravity for all, so none touches another). A body's energy is the
# same in every snapshot it is in (the leapfrog is exact for a constant
# force); the first one it appears in gives it. Their sum must be the
# last row of /energy/inserted.
cfg fall '{region: {box: {min: [0.1, 0.1, 0.5], max: [0.9, 0.9, 0.9]}}, shapes: [{shape: ball, fraction: 0.5}, {shape: rod, fraction: 0.5}], rate: 30000, end: 0.002, velocity: [0.3, -0.2, -1.5], scale: {distribution: uniform, min: 0.6, max: 1.4}}' 0.004
# tests/insert_lib.sh's config with gravity (along x too), another seed,
# an energy row at each snapshot, and a rod of unequal spheres (its centre
# of mass off its middle).
FALL=(--set simulation.seed=5 --set 'simulation.gravity=[0.5, 0, -9.81]'
  --set output.energy_interval=1.0e-4
  --set 'shapes.rod.spheres=[{center: [-0.01, 0, 0], radius: 0.01}, {center: [0.015, 0, 0], radius: 0.008}]')
for scheme in spiral_leapfrog spiral; do
  if "$DEM" run fall.yaml -q -o "fall_$scheme.h5" --force --set scheme="$scheme" "${FALL[@]}" 2> err; then ok; else bad "$scheme: $(cat err)"; fi
  check "$scheme" "$PY" - "fall_$scheme.h5" << 'PYEOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
g = np.array([0.5, 0, -9.81])
seen = {}
for k in sorted(f["snapshots"]):
    b = f["snapshots"][k]["bodies"]
    m, x, v = b["mass"][()], b["position"][()], b["velocity"][()]
    I, w = b["inertia"][()], b["angular_velocity"][()]
    for i in range(len(m)):  # rows in id order: id i
        if i not in seen:
            seen[i] = (0.5 * m[i] * v[i] @ v[i] + 0.5 * np.sum(I[i] * w[i] ** 2)
                       - m[i] * g @ x[i])
want = sum(seen[i] for i in sorted(seen))
got = f["energy/inserted"][-1]
assert len(seen) == 60, "%d bodies, 30000/s x 0.002 s = 60 asked" % len(seen)
rel = abs(got - want) / abs(want)
print("inserted %.12g J, recomputed %.12g J, rel %.2e" % (got, want, rel))
assert rel < 1e-9, "the inserted energy is not the bodies' energy at insertion"
PYEOF
done

# (b) The balance on a pour (150 bodies onto a floor with friction and
# damping): within 2e-3 of the energy scale at dt 1.6e-5, and the error
# second order in dt. Without the inserted energy it is off by all of it.
EX="$SRC/examples/pour_spheres.yaml"
short=(--set simulation.end_time=0.25 --set particles.0.insert.end=0.1)
for dt in 3.2e-5 1.6e-5; do
  "$DEM" run "$EX" -q -o "pour_$dt.h5" --force "${short[@]}" --set simulation.time_step=$dt 2> err || bad "pour dt $dt: $(cat err)"
done
check "pour balance" "$PY" - pour_3.2e-5.h5 pour_1.6e-5.h5 << 'PYEOF'
import sys, h5py, numpy as np
from demfile import energy_balance
err = []
for p in sys.argv[1:]:
    e = h5py.File(p, "r")["energy"]
    E, I = e["total"][()], e["inserted"][()]
    b = energy_balance({k: v[()] for k, v in e.items()})
    scale = abs(E[0]) + np.max(np.abs(I - I[0]))
    err.append(np.max(np.abs(b - b[0])) / scale)
    print("%s: inserted %.4g J, balance max %.3e" % (p, I[-1], err[-1]))
assert err[1] < 2e-3, "balance %.3g at dt 1.6e-5" % err[1]
assert err[0] / err[1] > 3, "halving dt gained only %.2fx (second order: 4x)" % (err[0] / err[1])
PYEOF
# dem energy reports the same balance
"$DEM" energy pour_1.6e-5.h5 > energy.txt 2>&1 || bad "dem energy: $(cat energy.txt)"
"$PY" -c '
import sys
row = open(sys.argv[1]).read().split("\n")[1].split()
assert abs(float(row[-2])) < 0.2, row  # balance_max_%
' energy.txt && ok || bad "dem energy: $(cat energy.txt)"

# (c) A file of the dem before the column (no /energy/inserted, no
# state/body_inserted_energy) is continued: the energy of the bodies
# inserted before the restart is unknown, taken as zero, and what is
# inserted after is counted.
"$DEM" run "$EX" -q -o old.h5 --force "${short[@]}" --set simulation.end_time=0.05 2> err || bad "old: $(cat err)"
"$PY" -c '
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    del f["energy/inserted"]
    for k in f["snapshots"]:
        del f["snapshots"][k]["state/body_inserted_energy"]' old.h5 || bad "could not make the older file"
if "$DEM" run "$EX" -q --restart old.h5 "${short[@]}" --set simulation.end_time=0.08 2> err; then
  ok
else
  bad "restart of a file without the inserted energy: $(cat err)"
fi
"$PY" -c '
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
t, I = f["energy/time"][()], f["energy/inserted"][()]
assert np.all(I[t <= 0.05] == 0) and I[-1] > 0, (I[t <= 0.05].max(), I[-1])
' old.h5 && ok || bad "old file: inserted column not zero before and counting after"

echo "$NAME: $pass passed, $fail failed"
[ "$fail" = 0 ]
