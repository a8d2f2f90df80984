#!/usr/bin/env bash
# The advice dem gives before a run: the time-step checks (Rayleigh for spheres, the contact time for clumps) and the warning for rotation integrators that hold the torque over a step.
# Usage: bash tests/cli_advice.sh DEM_BINARY SOURCE_DIR
NAME=cli_advice
. "$(dirname "$0")/lib.sh"
# check NAME ARGS...: runs dem check, keeps its stderr in $err.
check() {
  local name=$1
  shift
  err=$("$DEM" check "$@" 2>&1 > /dev/null)
  rc=$?
  if [ "$rc" -ne 0 ]; then
    bad "$name: dem check exited $rc: $err"
    return 1
  fi
}
has() { # NAME TEXT: the last check's output holds TEXT
  if [[ "$err" == *"$2"* ]]; then ok; else bad "$1: no '$2' in: $err"; fi
}
lacks() { # NAME TEXT
  if [[ "$err" != *"$2"* ]]; then ok; else bad "$1: '$2' in: $err"; fi
}

CHESS="$SRC/examples/box_chess.yaml"
RODS="$SRC/examples/box_rods.yaml"
SPHERE="$SRC/tests/bad_inputs/time_step_warning.yaml"
CYL="$SRC/examples/validation/cylinder_torque.yaml"

# 1. Clumps: the Rayleigh step of a member sphere is reported, not a limit.
check chess "$CHESS" && {
  lacks chess "warning:"
  has chess "2.75 x the Rayleigh time step 1.76292e-06 s (of a clump's smallest sphere: not a limit for rigid clumps"
  has chess "the time step is 1/23.2 of it"
}
# ... the contact time is: too long a step for the contacts warns.
check chess_dt "$CHESS" --set simulation.time_step=1.93e-5 &&
  has chess_dt "warning: the time step 1.93e-05 s exceeds the Hertz limit"
# ... and with nothing moving (no contact time) the Rayleigh step warns.
check chess_rest "$CHESS" --set 'particles=[{random_fill: {shape: pawn, count: 3}}]' &&
  has chess_rest "warning: the time step 4.85e-06 s exceeds the Rayleigh time step 1.76292e-06 s"
# 2. A single sphere: the Rayleigh step is a limit.
check sphere "$SPHERE" &&
  has sphere "warning: the time step 0.001 s exceeds the Rayleigh time step 0.000412566 s"
check sphere_ok "$SPHERE" --set simulation.time_step=1e-5 &&
  lacks sphere_ok "warning:"

# 3. Integrators that hold the torque over the step warn with contacts.
for s in spiral buss johnson rk4; do
  check "$s" "$RODS" --set scheme=$s &&
    has "$s" "warning: rotation integrator '$s' holds the torque at the step's start over the whole step: with contacts the energy grows"
done
for s in spiral_leapfrog velocity_verlet_spiral omelyan direct_euler; do
  check "$s" "$RODS" --set scheme=$s && lacks "$s" "warning:"
done
# ... not without contacts (one body, no walls).
check spiral_alone "$CYL" --set scheme=spiral && lacks spiral_alone "warning:"
# ... and an inline scheme with the integrator warns too.
check spiral_inline "$RODS" --set 'scheme=[push_velocity: {dt_scale: 0.5}, push_position, push_rotation: {integrator: spiral}, update_spheres, reset_forces, neighbor_update, contact_forces, gather_forces, push_velocity: {dt_scale: 0.5}]' &&
  has spiral_inline "rotation integrator 'spiral' holds the torque"

# 4. Bodies yet to come and walls of meshes count. A pour (insert
#    entries only, nothing at t = 0) gets the contact time of its smallest
#    balls, and halving the smallest size halves it (Hertz: t_c grows as
#    the size, m* ~ s^3, R* ~ s); a drum of a stiff mesh, with balls at
#    rest, gets the time of a ball falling onto the drum.
POUR="$SRC/examples/pour_spheres.yaml"
tc() { sed -n 's/.*Hertz contact time \([0-9.e+-]*\) s.*/\1/p' <<< "$err" | head -1; }
if check pour "$POUR"; then
  lacks pour "warning:"
  has pour "(ball against ball at"
  t1=$(tc)
  if check pour_small "$POUR" --set particles.0.insert.scale.min=0.35; then
    t2=$(tc)
    if awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(a > 0 && (a / b - 2) ^ 2 < 1e-10) }'; then
      ok
    else
      bad "pour: smallest size 0.7 -> 0.35: contact time $t1 -> $t2 s, not half"
    fi
  fi
fi
check drum "$SRC/examples/drum.yaml" --set materials.steel.young_modulus=2e11 &&
  has drum "(ball against drum at"

echo "cli_advice: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
