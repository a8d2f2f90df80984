#!/usr/bin/env bash
# Faults around the output file: a full disk, two runs of one output, planted sidecar files, special files as -o, damaged files, changed physics and broken runs given to --restart.
# Usage: bash tests/cli_output_faults.sh DEM_BINARY SOURCE_DIR
# The full-disk part mounts small tmpfs file systems (root only: skipped
# with a note otherwise); every wait is for a condition, with a time limit.
NAME=cli_output_faults
. "$(dirname "$0")/lib.sh"
need_python h5py
mounts=()
bg=()
cleanup() {
  for p in "${bg[@]}"; do kill -KILL "$p" 2> /dev/null; done
  for m in "${mounts[@]}"; do umount "$m" 2> /dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' INT TERM
# Readers open files that a run may still be writing (h5py locks by default).
export HDF5_USE_FILE_LOCKING=FALSE

note() { echo "note: $*"; }
# expect RC WHAT TEXT: the last run's exit code ($rc) and stderr (err).
expect() {
  if [ "$rc" -ne "$1" ]; then
    bad "$2: exit $rc, expected $1: $(tail -2 err)"
  elif [ -n "${3:-}" ] && ! grep -qF -- "$3" err; then
    bad "$2: stderr lacks '$3': $(tail -2 err)"
  else
    ok
  fi
}
# unchanged FILE SUM WHAT: FILE's checksum is still SUM.
unchanged() {
  if [ "$(md5sum < "$1")" = "$2" ]; then ok; else bad "$3: $1 was changed"; fi
}
# wait_for SECONDS COMMAND...: polls until COMMAND succeeds; 1 on timeout.
wait_for() {
  local limit=$1 t=0
  shift
  until "$@"; do
    sleep 0.05
    t=$((t + 1))
    [ "$t" -ge $((limit * 20)) ] && return 1
  done
  return 0
}

# readable FILE: every dataset and attribute reads; prints snapshots and
# energy rows ("S R").
cat > readable.py << 'EOF'
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    def visit(name, obj):
        for k in obj.attrs:
            obj.attrs[k]
        if isinstance(obj, h5py.Dataset):
            obj[()]
    f.visititems(visit)
    print(len(f["snapshots"]), len(f["energy/step"]))
EOF
readable() { "$PY" readable.py "$1" 2> /dev/null; }

# Rods in a box: small and quick, with contacts and rotation.
rods_yaml base.yaml
sed 's/end_time: 0.04/end_time: 0.01/; s/^output:.*/output: {snapshot_interval: 0.002, energy_interval: 0.0002}/' \
  base.yaml > rods.yaml
"$DEM" run rods.yaml -q -o base.h5 2> err
rc=$?
expect 0 "the base run"

# 1. A full disk: exit 1 with the reason, never a crash, no file left
#    half-written, and a restart that cannot fit leaves its file as it was.
# fill_to DIR KB: a file DIR/fill that leaves about KB kilobytes free.
fill_to() {
  rm -f "$1/fill"
  local avail
  avail=$(df --output=avail -k "$1" | tail -1)
  if [ "$avail" -gt "$2" ]; then
    dd if=/dev/zero of="$1/fill" bs=1k count=$((avail - $2)) 2> /dev/null
  fi
}
disk="$work/disk"
mkdir "$disk"
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=4m tmpfs "$disk" 2> /dev/null; then
  note "cannot mount a tmpfs (not root, or no permission): full-disk checks skipped"
else
  mounts+=("$disk")
  cp rods.yaml "$disk/"
  # 1a. At creation, with a few KB free: exit 1, the reason, no file.
  for kb in 0 8 24; do
    fill_to "$disk" $kb
    (cd "$disk" && "$DEM" run rods.yaml -q -o new.h5 2> "$work/err")
    rc=$?
    expect 1 "full disk at creation ($kb KB free)" "No space left on device"
    if ls -A "$disk" | grep -q "new"; then
      bad "full disk at creation ($kb KB free): left $(ls -A "$disk" | grep new | tr '\n' ' ')"
    else ok; fi
  done
  # 1b. --force over an existing output on a full disk keeps the old file.
  rm -f "$disk/fill"
  cp base.h5 "$disk/old.h5"
  sum=$(md5sum < "$disk/old.h5")
  fill_to "$disk" 0
  (cd "$disk" && "$DEM" run rods.yaml -q -o old.h5 --force 2> "$work/err")
  rc=$?
  expect 1 "full disk, --force over an existing file" "No space left on device"
  unchanged "$disk/old.h5" "$sum" "full disk, --force"
  rm -f "$disk/old.h5" "$disk/old.xmf"
  # 1c. A restart with too little room is refused before it writes; one
  #     that runs out of room while running keeps every complete snapshot,
  #     and restarts once there is room again.
  for kb in 0 16 64 160; do
    rm -f "$disk"/r.h5 "$disk"/r.xmf "$disk/fill"
    cp base.h5 "$disk/r.h5"
    sum=$(md5sum < "$disk/r.h5")
    fill_to "$disk" $kb
    (cd "$disk" && "$DEM" run rods.yaml -q --restart r.h5 \
      --set simulation.end_time=0.05 2> "$work/err")
    rc=$?
    expect 1 "restart with $kb KB free" "no room to continue the run"
    unchanged "$disk/r.h5" "$sum" "restart with $kb KB free"
  done
  for kb in 320 400 700; do
    rm -f "$disk"/r.h5 "$disk"/r.xmf "$disk/fill"
    cp base.h5 "$disk/r.h5"
    fill_to "$disk" $kb
    (cd "$disk" && "$DEM" run rods.yaml -q --restart r.h5 \
      --set simulation.end_time=0.2 2> "$work/err")
    rc=$?
    expect 1 "restart that fills the disk ($kb KB free)" "No space left on device"
    if counts=$(readable "$disk/r.h5"); then ok; else
      bad "restart that fills the disk ($kb KB free): r.h5 no longer reads"
    fi
    rm -f "$disk/fill"
    (cd "$disk" && "$DEM" run rods.yaml -q --restart r.h5 \
      --set simulation.end_time=0.2 --set output.snapshot_interval=0.1 \
      2> "$work/err")
    rc=$?
    expect 0 "restart again once there is room ($kb KB free before, ${counts:-?})"
  done
  # 1d. A fresh run that fills the disk: exit 1, the file reads, at
  #     every amount of room (the disk may fill during an energy append or
  #     a snapshot; with 290 KB free, a snapshot that ran out part way left
  #     HDF5's metadata pointing past the file's end: "addr overflow").
  for kb in 150 220 290 300 360 500 800; do
    rm -f "$disk/full.h5" "$disk/full.xmf"
    fill_to "$disk" $kb
    (cd "$disk" && "$DEM" run rods.yaml -q -o full.h5 \
      --set simulation.end_time=0.2 2> "$work/err")
    rc=$?
    expect 1 "a run that fills the disk ($kb KB free)" "No space left on device"
    if readable "$disk/full.h5" > /dev/null; then ok; else
      bad "a run that fills the disk ($kb KB free): full.h5 does not read"
    fi
    rm -f "$disk/fill"
  done
fi

# 2. Two runs of one output: the second is refused at once (exit 2) while
#    the first holds the output's lock, with or without --force; the file
#    left is the first run's.
for force in "" "--force"; do
  rm -f two.h5 two.xmf .two.h5.lock
  "$DEM" run rods.yaml -q -o two.h5 --set simulation.end_time=100 2> err1 &
  first=$!
  bg+=("$first")
  holds() { [ "$(cat .two.h5.lock 2> /dev/null)" = "$first" ]; }
  if ! wait_for 60 holds; then
    bad "two runs ($force): the first never took the lock"
  else
    "$DEM" run rods.yaml -q -o two.h5 $force 2> err
    rc=$?
    expect 2 "a second run of the same output $force" "another dem run (process $first) is writing it"
  fi
  # The sidecar is written after each snapshot.
  wait_for 60 test -s two.xmf || bad "two runs ($force): the first wrote no snapshot"
  kill -TERM "$first"
  wait "$first"
  rc=$?
  expect 130 "the first run, stopped by SIGTERM ($force)"
  # The first run's config (end_time 100) is the one in the file.
  if "$PY" -c 'import sys, h5py
c = h5py.File("two.h5", "r")["config"][()]
sys.exit("end_time: 100" not in (c.decode() if isinstance(c, bytes) else c))'; then
    ok
  else
    bad "two runs ($force): the file left is not the first run's"
  fi
  if [ -e .two.h5.lock ]; then bad "two runs ($force): lock left behind"; else ok; fi
done

# 3. The sidecar: a symbolic link planted where the old temporary name
#    was is left alone, and an existing sidecar needs --force.
rm -f side.h5 side.xmf
echo precious > target
ln -s target side.xmf.tmp
"$DEM" run rods.yaml -q -o side.h5 2> err
rc=$?
expect 0 "a symbolic link at side.xmf.tmp"
if [ "$(cat target)" = precious ]; then ok; else bad "side.xmf.tmp: its target was overwritten"; fi
if ls -A | grep -q '^\.side'; then bad "temporary files left: $(ls -A | grep '^\.side')"; else ok; fi
rm -f side.h5
sum=$(md5sum < side.xmf)
"$DEM" run rods.yaml -q -o side.h5 2> err
rc=$?
expect 2 "an existing sidecar without --force" "its sidecar 'side.xmf' exists"
unchanged side.xmf "$sum" "an existing sidecar without --force"
[ -e side.h5 ] && bad "an existing sidecar without --force: side.h5 written"
"$DEM" run rods.yaml -q -o side.h5 --force 2> err
rc=$?
expect 0 "an existing sidecar with --force"

# 4. -o naming the config (directly, by a link, or as the sidecar) or a
#    special file: refused with exit 2, even with --force.
cp rods.yaml conf.yaml
sum=$(md5sum < conf.yaml)
ln -s conf.yaml link.h5
cp rods.yaml side2.xmf
for args in "conf.yaml -o conf.yaml" "conf.yaml -o link.h5" \
  "side2.xmf -o side2.h5"; do
  read -r -a a <<< "$args"
  "$DEM" run "${a[@]}" -q --force 2> err
  rc=$?
  expect 2 "dem run $args --force" "is the configuration file"
done
unchanged conf.yaml "$sum" "-o the config"
# A symbolic link to nothing: "exists" without --force (it was exit 1);
# --force replaces the link, never creating its target.
ln -s nowhere dangling.h5
"$DEM" run rods.yaml -q -o dangling.h5 2> err
rc=$?
expect 2 "-o a dangling symbolic link" "output file 'dangling.h5' exists"
"$DEM" run rods.yaml -q -o dangling.h5 --force 2> err
rc=$?
expect 0 "-o a dangling symbolic link with --force"
if [ -e nowhere ]; then bad "-o a dangling link: its target was created"; else ok; fi
mkfifo fifo.h5
"$DEM" run rods.yaml -q -o fifo.h5 --force 2> err
rc=$?
expect 2 "-o a named pipe" "is a named pipe: dem writes only regular files"
if [ "$(id -u)" -eq 0 ] && mknod nul c 1 3 2> /dev/null; then
  "$DEM" run rods.yaml -q -o nul --force 2> err
  rc=$?
  expect 2 "-o a device node" "is a character device"
  if [ -c nul ]; then ok; else bad "-o a device node: replaced"; fi
else
  note "cannot make a device node (not root): -o DEVICE not checked"
fi
"$DEM" run rods.yaml -q --restart fifo.h5 2> err
rc=$?
expect 2 "--restart a named pipe" "is a named pipe"

# 5. A damaged file given to --restart: bytes flipped at random places of
#    a copy (fixed seed). Each restart either refuses (exit 2) and leaves
#    the copy as it was, or runs on a file that reads whole and keeps every
#    energy row.
tries=60
[ -n "${DEM_TEST_QUICK:-}" ] && tries=20
cat > flips.py << 'EOF'
import os, random, shutil, subprocess, sys
import h5py
dem, tries = sys.argv[1], int(sys.argv[2])
rng = random.Random(12)
size = os.path.getsize("base.h5")
def rows(p):
    with h5py.File(p, "r") as f:
        return len(f["energy/step"])
def readable(p):
    try:
        with h5py.File(p, "r") as f:
            def visit(name, obj):
                for k in obj.attrs:
                    obj.attrs[k]
                if isinstance(obj, h5py.Dataset):
                    obj[()]
            f.visititems(visit)
        return True
    except Exception:
        return False
n0, bad, refused = rows("base.h5"), 0, 0
for t in range(tries):
    shutil.copy("base.h5", "flip.h5")
    if os.path.exists("flip.xmf"):
        os.remove("flip.xmf")
    with open("flip.h5", "r+b") as f:
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(size)
            f.seek(at)
            b = f.read(1)[0]
            f.seek(at)
            f.write(bytes([b ^ (1 << rng.randrange(8))]))
    before = open("flip.h5", "rb").read()
    p = subprocess.run([dem, "run", "rods.yaml", "-q", "--restart", "flip.h5",
                        "--set", "simulation.end_time=0.012"],
                       capture_output=True, text=True)
    why = None
    if p.returncode == 0:
        if not readable("flip.h5"):
            why = "ran, and the file does not read"
        elif rows("flip.h5") < n0:
            why = "ran, and lost %d energy rows" % (n0 - rows("flip.h5"))
    elif p.returncode == 2:
        refused += 1
        if open("flip.h5", "rb").read() != before:
            why = "refused, and changed the file"
    else:
        why = "exit %d" % p.returncode
    if why:
        bad += 1
        print("byte flip %d: %s: %s" % (t, why, p.stderr.strip()[-300:]))
print("byte flips: %d tries, %d refused, %d failed" % (tries, refused, bad))
sys.exit(1 if bad or not refused else 0)
EOF
if "$PY" flips.py "$DEM" "$tries" > flips.out 2>&1; then ok; else bad "$(cat flips.out)"; fi
tail -1 flips.out

# 5b. Damage made on purpose, one check each: a global heap object longer
#     than its collection (HDF5 1.10 crashes reading it: the check runs in
#     a child process), an energy step out of order (the restart used to
#     drop every row after it), energy rows missing, a snapshot step out of
#     order, a type dem does not write.
cat > damage.py << 'EOF'
import shutil, subprocess, sys
import h5py
import numpy as np
dem = sys.argv[1]
def copy():
    shutil.copy("base.h5", "dmg.h5")
def gcol():
    data = bytearray(open("dmg.h5", "rb").read())
    at = data.find(b"GCOL")
    # the first object after the 16-byte collection header: index, refcount,
    # reserved, then its size (8 bytes): far longer than the collection
    data[at + 16 + 8: at + 16 + 16] = (1 << 40).to_bytes(8, "little")
    open("dmg.h5", "wb").write(bytes(data))
def energy_step():
    with h5py.File("dmg.h5", "r+") as f:
        s = f["energy/step"]
        s[20] = 10 ** 9
def energy_short():
    with h5py.File("dmg.h5", "r+") as f:
        for c in f["energy"]:
            f["energy"][c].resize((5,))
def snapshot_step():
    with h5py.File("dmg.h5", "r+") as f:
        f["snapshots/000003"].attrs.modify("step", np.int64(50))
def big_endian():
    with h5py.File("dmg.h5", "r+") as f:
        g = f["snapshots/000002/bodies"]
        m = g["mass"][()]
        del g["mass"]
        g.create_dataset("mass", data=m.astype(">f8"))
cases = [("a damaged global heap", gcol, "the file is damaged"),
         ("an energy step out of order", energy_step, "energy row 20"),
         ("energy rows missing", energy_short, "has no row at step"),
         ("a snapshot step out of order", snapshot_step, "snapshot 000003 is at step 50"),
         ("a type dem does not write", big_endian, "has a type dem does not write")]
bad = 0
for what, damage, text in cases:
    copy()
    damage()
    before = open("dmg.h5", "rb").read()
    p = subprocess.run([dem, "run", "rods.yaml", "-q", "--restart", "dmg.h5",
                        "--set", "simulation.end_time=0.012"],
                       capture_output=True, text=True)
    if p.returncode != 2 or text not in p.stderr:
        bad += 1
        print("damage: %s: exit %d, expected 2 and '%s': %s" % (what, p.returncode, text, p.stderr.strip()[-300:]))
    elif open("dmg.h5", "rb").read() != before:
        bad += 1
        print("damage: %s: refused, and changed the file" % what)
sys.exit(1 if bad else 0)
EOF
if "$PY" damage.py "$DEM" > damage.out 2>&1; then ok; else bad "$(cat damage.out)"; fi

# 6. A restart whose config changes the physics is refused, naming the
#    key; what changes no number of the dynamics may differ.
sum=$(md5sum < base.h5)
for set in materials.glass.young_modulus=2e8 materials.glass.poisson_ratio=0.3 \
  "domain.box.max=[0.4,0.3,0.3]" "simulation.gravity=[0,0,-9.81]" \
  contact.skin=0.005 contact.model=hertz_mindlin simulation.seed=4 \
  particles.0.random_fill.speed=1.0 \
  "materials.glass={density: 2500, young_modulus: 1.0e8, poisson_ratio: 0.2, restitution: 0.5}"; do
  key=${set%%=*}
  key=${key//.0./[0].}
  [ "$key" = domain.box.max ] && key="domain.box.max[0]"
  [ "$key" = materials.glass ] && key=materials.glass.restitution
  cp base.h5 phys.h5
  "$DEM" run rods.yaml -q --restart phys.h5 --set simulation.end_time=0.012 \
    --set "$set" 2> err
  rc=$?
  expect 2 "restart with $set" "$key is "
  unchanged phys.h5 "$sum" "restart with $set"
done
for set in simulation.end_time=0.014 output.snapshot_interval=0.001 \
  output.energy_interval=0.0004 contact.sort_bodies=on contact.broad_phase=on \
  materials.glass.young_modulus=1e8; do
  cp base.h5 phys.h5
  rm -f phys.xmf
  "$DEM" run rods.yaml -q --restart phys.h5 --set simulation.end_time=0.012 \
    --set "$set" --threads 2 2> err
  rc=$?
  expect 0 "restart with $set (no change to the dynamics)"
done

# 7. A run that stopped with exit 3 (NaN, a sphere through a wall) is not
#    continued: exit 2, a clear message, no snapshot appended.
for case in numeric_nan numeric_tunnelling; do
  cp "$SRC/tests/bad_inputs/$case.yaml" .
  rm -f "$case.h5" "$case.xmf"
  "$DEM" run "$case.yaml" -q -o "$case.h5" 2> err
  rc=$?
  expect 3 "$case: the run"
  sum=$(md5sum < "$case.h5")
  for again in 1 2; do
    "$DEM" run "$case.yaml" -q --restart "$case.h5" \
      --set simulation.end_time=0.5 2> err
    rc=$?
    expect 2 "$case: restart $again" "holds the state of a run that stopped on numerical trouble"
    unchanged "$case.h5" "$sum" "$case: restart $again"
  done
done

echo "cli_output_faults: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
