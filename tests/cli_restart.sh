#!/usr/bin/env bash
# Restart and thread-count runs end bitwise the same: 2N steps vs N + N (every scheme), after SIGKILL/SIGTERM, 1 vs 2 threads, bodies in spatial order or not.
# Usage: bash tests/cli_restart.sh DEM_BINARY SOURCE_DIR
# DEM_TEST_QUICK=1 (the sanitizer build) runs fewer schemes, kills and signals.
NAME=cli_restart
. "$(dirname "$0")/lib.sh"
need_python h5py

# same A.h5 B.h5: the last snapshots hold bitwise the same bodies, spheres
# and integrator state, and the energy rows of the steps both files have
# are bitwise equal. Prints what differs.
cat > same.py << 'EOF'
import sys
import h5py
from same_run import differences
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
bad = differences(a, b, groups=("bodies", "spheres", "state"), most_missing=0)
for f in (a, b):
    steps = list(f["energy/step"][()])
    if steps != sorted(set(steps)):
        bad.append("%s: energy steps not strictly increasing" % f.filename)
    snaps = sorted(f["snapshots"])
    if snaps != ["%06d" % i for i in range(len(snaps))]:
        bad.append("%s: snapshots not numbered without gaps" % f.filename)
    t = [f["snapshots"][s].attrs["step"] for s in snaps]
    if t != sorted(set(t)):
        bad.append("%s: snapshot steps not increasing" % f.filename)
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
same() {
  local why
  if why=$("$PY" same.py "$1" "$2" 2>&1); then ok; else bad "$3: $why"; fi
}
# last_step FILE: the step of the last snapshot ("" if the file does not open).
last_step() {
  "$PY" -c 'import sys, h5py
f = h5py.File(sys.argv[1], "r"); s = f["snapshots"]
print(s[sorted(s)[-1]].attrs["step"])' "$1" 2> /dev/null
}
# ready.py FILE PID: waits until the run PID has written a complete snapshot
# to FILE (exit 0), or has ended (exit 2); gives up after 600 s (exit 1).
# The file is created after dem has installed its signal handlers, and a
# snapshot is linked into /snapshots only once its data are flushed, so
# from then on a kill leaves a file to restart from and SIGTERM/SIGINT
# stop the run cleanly. The file is read while dem writes it: without
# HDF5's file lock, and a read that fails is simply retried.
cat > ready.py << 'EOF'
import os, sys, time
os.environ["HDF5_USE_FILE_LOCKING"] = "FALSE"
import h5py
path, pid = sys.argv[1], int(sys.argv[2])
def alive():
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
end = time.monotonic() + 600
while time.monotonic() < end:
    if os.path.exists(path):
        try:
            with h5py.File(path, "r") as f:
                if len(f["snapshots"]) > 0:
                    sys.exit(0)
        except Exception:
            pass
    if not alive():
        sys.exit(2)
    time.sleep(0.01)
sys.exit(1)
EOF
# wait_ready FILE PID WHAT: waits for ready.py's condition; 0 when ready.
wait_ready() {
  local rc
  while :; do
    "$PY" ready.py "$1" "$2"
    rc=$?
    case $rc in
      0) return 0 ;;
      2)
        echo "note: $3: the run ended before it was signalled"
        return 1
        ;;
      1)
        bad "$3: no snapshot in $1 after 600 s"
        kill -KILL "$2" 2> /dev/null
        return 1
        ;;
    esac # anything else: the reader died on a half-written file; retry
  done
}
expect_rc() { # expect_rc WANT WHAT: checks $rc
  if [ "$rc" -eq "$1" ]; then ok; else bad "$2: exit $rc, expected $1: $(cat err)"; fi
}

# Rods bouncing in a box, with contacts, wall hits and rotation.
rods_yaml base.yaml
sed 's/^contact:.*/contact: {skin: 0.004, sort_bodies: on}/' base.yaml > rods.yaml

# 1. Every named scheme: 2N steps vs N + N, N not on a snapshot boundary;
#    the first half on 2 threads, the second on 1.
schemes="spiral_leapfrog spiral velocity_verlet_spiral direct_euler
  velocity_verlet fincham buss omelyan johnson pfc4 pcdm rk4"
kills="0.1 0.25 0.45"
signals="TERM INT"
long_end=1.0
if [ -n "${DEM_TEST_QUICK:-}" ]; then
  schemes="spiral_leapfrog velocity_verlet_spiral fincham rk4"
  kills="0.2"
  signals="TERM"
  long_end=0.4
fi
for scheme in $schemes; do
  rm -f full.h5 part.h5 ./*.xmf
  "$DEM" run rods.yaml -q -o full.h5 --set scheme=$scheme --threads 1 2> err
  rc=$?
  expect_rc 0 "$scheme: full run"
  "$DEM" run rods.yaml -q -o part.h5 --set scheme=$scheme \
    --set simulation.end_time=0.0173 --threads 2 2> err
  rc=$?
  expect_rc 0 "$scheme: first part"
  "$DEM" run rods.yaml -q --restart part.h5 --set scheme=$scheme --threads 1 2> err
  rc=$?
  expect_rc 0 "$scheme: restart"
  same full.h5 part.h5 "$scheme: 2N vs N + N"
done

# 2. A pile under gravity (many lasting contacts), restarted twice.
sed 's/seed: 3}/seed: 3, gravity: [0, 0, -9.81]}/; s/end_time: 0.04/end_time: 0.3/; s/speed: 2.0, angular_speed: 20/speed: 0.5, angular_speed: 5/' \
  rods.yaml > pile.yaml
rm -f full.h5 part.h5 full.xmf part.xmf
"$DEM" run pile.yaml -q -o full.h5 2> err
rc=$?
expect_rc 0 "pile: full run"
"$DEM" run pile.yaml -q -o part.h5 --set simulation.end_time=0.1 2> err
"$DEM" run pile.yaml -q --restart part.h5 --set simulation.end_time=0.21 2> err
"$DEM" run pile.yaml -q --restart part.h5 2> err
rc=$?
expect_rc 0 "pile: second restart"
same full.h5 part.h5 "pile: 3 parts vs one run"

# 2b. Clumps of 9 spheres (the neighbour search's broad phase on bodies).
cat > clumps.yaml << 'EOF2'
simulation: {time_step: 2.0e-5, end_time: 0.2, seed: 7, gravity: [0, 0, -9.81]}
materials:
  glass: {density: 2500, young_modulus: 1.0e8, poisson_ratio: 0.2}
shapes:
  star:
    material: glass
    spheres:
      - {center: [0, 0, 0], radius: 0.015}
      - {center: [0.02, 0, 0], radius: 0.01}
      - {center: [-0.02, 0, 0], radius: 0.01}
      - {center: [0, 0.02, 0], radius: 0.01}
      - {center: [0, -0.02, 0], radius: 0.01}
      - {center: [0, 0, 0.02], radius: 0.01}
      - {center: [0, 0, -0.02], radius: 0.01}
      - {center: [0.03, 0.0, 0], radius: 0.008}
      - {center: [0, 0.03, 0.0], radius: 0.008}
particles:
  - random_fill: {shape: star, count: 45, speed: 0.5, angular_speed: 5}
domain: {box: {min: [0, 0, 0], max: [0.25, 0.25, 0.25]}, wall_material: glass}
contact: {skin: 0.003, sort_bodies: on}
output: {snapshot_interval: 0.01, energy_interval: 0.0005}
EOF2
rm -f full.h5 part.h5 full.xmf part.xmf
"$DEM" run clumps.yaml -q -o full.h5 2> err
rc=$?
expect_rc 0 "clumps: full run"
"$DEM" run clumps.yaml -q -o part.h5 --set simulation.end_time=0.0973 --threads 2 2> err
cp part.h5 short.h5
"$DEM" run clumps.yaml -q --restart part.h5 --threads 1 2> err
rc=$?
expect_rc 0 "clumps: restart"
same full.h5 part.h5 "clumps: 2N vs N + N"
# The restart puts the bodies in spatial order before its first lists (a
# packing at rest may build none again in the whole run): a few steps with
# no build but the restart's own, sorted.
"$DEM" run clumps.yaml --restart short.h5 --set simulation.end_time=0.0974 2> err
rc=$?
expect_rc 0 "clumps: short restart"
if grep -q "builds: 1 (bodies put in spatial order at 1 of them)" err; then ok
else bad "clumps: the restart did not sort its bodies: $(tail -1 err)"; fi

# 3. Runs killed with SIGKILL at random moments once their first snapshot
#    is on disk: the file opens with its snapshots, and a restart from it
#    ends bitwise as the full run.
sed "s/end_time: 0.3/end_time: $long_end/; s/snapshot_interval: 0.01/snapshot_interval: 0.002/" \
  pile.yaml > long.yaml
n_long=$(awk -v t=$long_end 'BEGIN { printf "%d", t / 2e-5 + 0.5 }')
rm -f full.h5 full.xmf
"$DEM" run long.yaml -q -o full.h5 2> err
rc=$?
expect_rc 0 "long: full run"
for delay in $kills; do
  rm -f killed.h5 killed.xmf
  "$DEM" run long.yaml -q -o killed.h5 2> err &
  pid=$!
  if ! wait_ready killed.h5 "$pid" "SIGKILL after ${delay}s"; then
    wait "$pid" 2> /dev/null
    rc=$?
    expect_rc 0 "SIGKILL after ${delay}s: the run, ended on its own"
    continue
  fi
  # then a little later, at a random moment (any moment must do)
  sleep "$(awk -v d=$delay -v r=$RANDOM 'BEGIN { print d + (r % 100) / 1000 }')"
  kill -KILL "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  step=$(last_step killed.h5)
  if [ -n "$step" ]; then ok; else bad "SIGKILL after ${delay}s: killed.h5 does not open"; continue; fi
  if [ "$step" -ge "$n_long" ]; then
    echo "note: the run ended before SIGKILL after ${delay}s"
    continue
  fi
  "$DEM" run long.yaml -q --restart killed.h5 2> err
  rc=$?
  expect_rc 0 "restart after SIGKILL at step $step"
  same full.h5 killed.h5 "SIGKILL at step $step, restarted"
done

# 3b. Kills early and at random (during the file's creation, the first
#     snapshots): whatever file exists opens, with complete snapshots.
for i in 1 2 3 4 5 6; do
  rm -f early.h5 early.xmf .early.h5.*
  "$DEM" run long.yaml -q -o early.h5 2> err &
  pid=$!
  sleep "$(awk -v r=$RANDOM -v i=$i 'BEGIN { print (r % 50) / 1000 + i * 0.01 }')"
  kill -KILL "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  if [ ! -e early.h5 ]; then
    ok # killed before the first snapshot was on disk: no file (a hidden one)
  elif "$PY" -c 'import sys, h5py, demfile
f = h5py.File(sys.argv[1], "r")
for s in f["snapshots"]:  # every listed snapshot is complete
    f["snapshots"][s]["bodies/position"][()]
demfile.open_run(sys.argv[1]).energy()  # as docs/output.md says to read it' early.h5 2> err; then
    ok
  else
    bad "SIGKILL early (try $i): early.h5 does not open: $(tail -1 err)"
  fi
done

# 4. SIGTERM and SIGINT (sent once the run is under way) stop cleanly with
#    a final snapshot at the step the message names; a restart continues
#    bitwise.
for sig in $signals; do
  rm -f stopped.h5 stopped.xmf
  "$DEM" run long.yaml -q -o stopped.h5 2> err &
  pid=$!
  if ! wait_ready stopped.h5 "$pid" "SIG$sig"; then
    wait "$pid" 2> /dev/null
    rc=$?
    expect_rc 0 "SIG$sig: the run, ended on its own"
    continue
  fi
  sleep "$(awk -v r=$RANDOM 'BEGIN { print (r % 200) / 1000 }')"
  kill -$sig "$pid" 2> /dev/null
  wait "$pid"
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "note: the run ended before SIG$sig"
    continue
  fi
  expect_rc 130 "SIG$sig"
  named=$(sed -n 's/.*at step \([0-9][0-9]*\),.*/\1/p' err)
  step=$(last_step stopped.h5)
  if [ -n "$step" ] && [ "$step" = "$named" ]; then ok; else
    bad "SIG$sig: last snapshot at step '$step', message: $(cat err)"
  fi
  "$DEM" run long.yaml -q --restart stopped.h5 2> err
  rc=$?
  expect_rc 0 "restart after SIG$sig"
  same full.h5 stopped.h5 "SIG$sig, restarted"
done

# 5. A restart that cannot continue fails before touching the file.
rm -f part.h5 part.xmf
"$DEM" run rods.yaml -q -o part.h5 --set simulation.end_time=0.01 2> err
sum=$(md5sum < part.h5)
check_refused() { # check_refused TEXT ARGS...: exit 2, TEXT in the message
  local text=$1
  shift
  "$DEM" run "$@" 2> err
  rc=$?
  expect_rc 2 "refused restart ($*)"
  if grep -qF -- "$text" err; then ok; else bad "refused restart ($*): message lacks '$text': $(cat err)"; fi
  if [ "$(md5sum < part.h5)" = "$sum" ]; then ok; else bad "refused restart ($*) changed the file"; fi
}
check_refused "nothing to do" rods.yaml --restart part.h5 --set simulation.end_time=0.01
check_refused "time step" rods.yaml --restart part.h5 --set simulation.time_step=1e-5
check_refused "scheme" rods.yaml --restart part.h5 --set scheme=omelyan
check_refused "bodies" rods.yaml --restart part.h5 --set particles.0.random_fill.count=39
check_refused "cannot name another" rods.yaml --restart part.h5 -o other.h5
check_refused "unknown key" rods.yaml --restart part.h5 --set simulation.tme=1
printf 'not HDF5\n' > junk.h5
"$DEM" run rods.yaml --restart junk.h5 2> err
rc=$?
expect_rc 2 "restart from a file that is not HDF5"
"$DEM" check rods.yaml --restart part.h5 2> err
rc=$?
expect_rc 0 "dem check --restart"

# 6. 1 vs 2 threads, with more spheres than the parallel threshold (2048).
sed 's/end_time: 0.04, seed: 3}/end_time: 0.006, seed: 5, gravity: [0, 0, -9.81]}/; s/count: 40, speed: 2.0, angular_speed: 20/count: 800, speed: 5.0, angular_speed: 50/; s/max: \[0.3, 0.3, 0.3\]/max: [0.8, 0.8, 0.8]/; s/snapshot_interval: 0.01,/snapshot_interval: 0.002,/' \
  base.yaml > many.yaml
rm -f t1.h5 t2.h5 t1.xmf t2.xmf
"$DEM" run many.yaml -q -o t1.h5 --threads 1 2> err
rc=$?
expect_rc 0 "many: 1 thread"
"$DEM" run many.yaml -q -o t2.h5 --threads 2 2> err
rc=$?
expect_rc 0 "many: 2 threads"
same t1.h5 t2.h5 "1 vs 2 threads"

# 7. Bodies put in spatial order now and then (contact.sort_bodies) change
#    no number: the same run with and without, on 1 and 2 threads. The
#    sorted run must really have sorted (its closing line says how often).
rm -f s1.h5 s2.h5 s1.xmf s2.xmf
"$DEM" run many.yaml -o s1.h5 --threads 2 --set contact.sort_bodies=on 2> err
rc=$?
expect_rc 0 "many: sorted"
if grep -q "spatial order at [1-9]" err; then ok; else
  bad "many: sort_bodies=on did not sort: $(tail -1 err)"
fi
"$DEM" run many.yaml -q -o s2.h5 --threads 1 --set contact.sort_bodies=off 2> err
rc=$?
expect_rc 0 "many: not sorted"
same s1.h5 s2.h5 "sorted vs not sorted"

echo "cli_restart: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
