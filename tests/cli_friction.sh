#!/usr/bin/env bash
# Frictional, damped runs (hertz_mindlin) end bitwise the same: N + N steps restarted vs 2N, for all twelve named schemes; 1 vs 2 threads; bodies in spatial order or not; the base and the AVX2 kernels; and a settling pile's energy balance closes.
# Usage: bash tests/cli_friction.sh DEM_BINARY SOURCE_DIR
# DEM_TEST_QUICK=1 (the sanitizer build) runs fewer schemes.
NAME=cli_friction
. "$(dirname "$0")/lib.sh"
need_python h5py

# same A.h5 B.h5: every dataset of the last snapshots (bodies, spheres,
# contacts with their history, state) and the energy rows of the steps
# both files have are bitwise equal. Prints what differs.
cat > same.py << 'EOF'
import sys
import h5py
from same_run import differences, last_snapshot
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
bad = differences(a, b)
if "contacts/history" not in last_snapshot(a):
    bad.append("no contact history stored")
if a["energy/dissipated"][-1] <= 0:
    bad.append("nothing dissipated: a weak test")
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
same() {
  local why
  if why=$("$PY" same.py "$1" "$2" 2>&1); then ok; else bad "$3: $why"; fi
}
expect_rc() { # expect_rc WANT WHAT: checks $rc
  if [ "$rc" -eq "$1" ]; then ok; else bad "$2: exit $rc, expected $1: $(cat err)"; fi
}

# Rods falling into a pile under gravity: contacts stick, slide and roll
# when the run is cut and continued.
cat > pile.yaml << 'EOF'
simulation: {time_step: 2.0e-5, end_time: 0.08, seed: 7, gravity: [0, 0, -9.81]}
materials:
  glass: {density: 2500, young_modulus: 5.0e7, poisson_ratio: 0.25, restitution: 0.4, friction: 0.5, rolling_friction: 0.05}
  steel: {density: 7800, young_modulus: 2.0e8, poisson_ratio: 0.3, restitution: 0.8, friction: 0.3}
shapes:
  rod: {material: glass, spheres: [{center: [-0.007, 0, 0], radius: 0.005}, {center: [0, 0, 0], radius: 0.005}, {center: [0.007, 0, 0], radius: 0.005}]}
  ball: {material: steel, spheres: [{center: [0, 0, 0], radius: 0.006}]}
particles:
  - random_fill: {shape: rod, count: 40, speed: 0.5, angular_speed: 5, region: {min: [0, 0, 0], max: [0.06, 0.06, 0.1]}}
  - random_fill: {shape: ball, count: 15, speed: 0.5, region: {min: [0, 0, 0], max: [0.06, 0.06, 0.1]}}
domain: {box: {min: [0, 0, 0], max: [0.06, 0.06, 0.2]}, wall_material: steel}
contact: {model: hertz_mindlin, sort_bodies: on, pairs: [{materials: [glass, steel], restitution: 0.6, friction: 0.4, rolling_friction: 0.02}]}
output: {snapshot_interval: 0.02, energy_interval: 0.001}
EOF

schemes="spiral_leapfrog spiral velocity_verlet_spiral direct_euler velocity_verlet fincham buss omelyan johnson pfc4 pcdm rk4"
[ -n "${DEM_TEST_QUICK:-}" ] && schemes="spiral_leapfrog velocity_verlet_spiral"
for scheme in $schemes; do
  "$DEM" run pile.yaml -q -o full.h5 --force --set scheme="$scheme" 2> err
  rc=$?
  expect_rc 0 "$scheme: full run"
  "$DEM" run pile.yaml -q -o part.h5 --force --set scheme="$scheme" \
    --set simulation.end_time=0.04 2> err
  rc=$?
  expect_rc 0 "$scheme: first half"
  "$DEM" run pile.yaml -q --restart part.h5 --set scheme="$scheme" 2> err
  rc=$?
  expect_rc 0 "$scheme: restart"
  same full.h5 part.h5 "$scheme: restarted run differs"
done

# One and two threads, bodies sorted in space and not.
"$DEM" run pile.yaml -q -o t1.h5 --force --threads 1 2> err
rc=$?
expect_rc 0 "1 thread"
"$DEM" run pile.yaml -q -o t2.h5 --force --threads 2 2> err
rc=$?
expect_rc 0 "2 threads"
same t1.h5 t2.h5 "1 vs 2 threads"
"$DEM" run pile.yaml -q -o unsorted.h5 --force --threads 2 \
  --set contact.sort_bodies=off 2> err
rc=$?
expect_rc 0 "unsorted"
same t1.h5 unsorted.h5 "sorted vs unsorted"
# The kernels of every instruction set this processor runs give the same
# bits (chosen at run time; DEM_ISA caps the choice): the contact law's
# lanes for any x86-64 (two a vector), for AVX2 and for AVX-512 (four);
# the body and sphere kernels for any x86-64, AVX2 and AVX-512.
for isa in base avx2; do
  DEM_ISA=$isa "$DEM" run pile.yaml -q -o $isa.h5 --force --threads 1 2> err
  rc=$?
  expect_rc 0 "DEM_ISA=$isa"
  same t1.h5 $isa.h5 "the $isa kernels vs the best this processor runs"
done
# Whether the contact loops ask for lines ahead depends on the size of
# the processor's second-level cache (DEM_L2_BYTES sets it): asking for
# every line and for none give the same bits.
for l2 in 1 1000000000000; do
  DEM_L2_BYTES=$l2 "$DEM" run pile.yaml -q -o l2_$l2.h5 --force --threads 2 2> err
  rc=$?
  expect_rc 0 "DEM_L2_BYTES=$l2"
  same t1.h5 l2_$l2.h5 "the contact loops with a cache of $l2 bytes"
done

# dem check prints the pair table: the pair given and the mixed ones.
"$DEM" check pile.yaml 2> err
rc=$?
expect_rc 0 "dem check"
if grep -q "contact glass-steel: restitution 0.6, friction 0.4, rolling friction 0.02 (given in contact.pairs)" err &&
  grep -q "contact glass-glass: restitution 0.4, friction 0.5" err; then ok; else
  bad "dem check: no pair table: $(cat err)"
fi

# The energy balance of the pile (dem energy's balance columns) is small.
"$DEM" energy t1.h5 --csv > energy.csv 2> err
rc=$?
expect_rc 0 "dem energy"
if "$PY" - energy.csv << 'EOF'; then ok; else bad "balance: $(cat energy.csv)"; fi
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
w, bal = float(row["dissipated_end"]), float(row["max_balance_percent"])
sys.exit(0 if w > 0 and bal < 0.1 else 1)
EOF

echo "cli_friction: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
