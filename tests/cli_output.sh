#!/usr/bin/env bash
# Output a scientist can read: units and descriptions on every dataset, /shapes, /config as text (tests/output_check.py); the same bytes from the same run on 1 thread or more, at any time; the XDMF sidecar's spheres and bodies with their velocities, every data item resolved (tests/xdmf_check.py), also after a restart; and ParaView's readers on it (tests/paraview_load.py, when pvbatch and xvfb-run are installed).
# Usage: bash tests/cli_output.sh DEM_BINARY SOURCE_DIR
NAME=cli_output
. "$(dirname "$0")/lib.sh"
need_python numpy h5py
# expect NAME COMMAND...: the command succeeds (its output shown if not)
expect() {
  local name=$1
  shift
  if "$@" > out 2>&1; then ok; else bad "$name: $(cat out)"; fi
}

# 1. Rods (one shape, three spheres each) and chess pieces (six shapes of
#    100 overlapping spheres, bodies put in spatial order).
expect "rods run" "$DEM" run "$SRC/examples/box_rods.yaml" -q -o rods.h5 \
  --set simulation.end_time=0.3
expect "chess run" "$DEM" run "$SRC/examples/box_chess.yaml" -q -o chess.h5 \
  --set simulation.end_time=0.01 --set output.snapshot_interval=0.005
for run in rods chess; do
  expect "$run: output_check" "$PY" "$SRC/tests/output_check.py" $run.h5
  expect "$run: xdmf_check" "$PY" "$SRC/tests/xdmf_check.py" $run.xmf
done

# 1b. The same run writes the same bytes, whatever the thread count and
#     the clock: HDF5's object times are off. The second run starts in a
#     later second of the clock than the first.
started=$(date +%s)
while [ "$(date +%s)" = "$started" ]; do sleep 0.1; done
expect "rods again, 1 thread" "$DEM" run "$SRC/examples/box_rods.yaml" -q \
  -o again.h5 --set simulation.end_time=0.3 --threads 1
if cmp rods.h5 again.h5 > out 2>&1; then ok; else bad "rods.h5 and again.h5 (1 thread, a second later) are not the same bytes: $(cat out)"; fi

# 2. A continued run rebuilds the sidecar's frames, bodies included.
FRICTION="--set contact.model=hertz_mindlin --set materials.glass.friction=0.3"
expect "first part" "$DEM" run "$SRC/examples/box_rods.yaml" -q -o part.h5 \
  --set simulation.end_time=0.15 $FRICTION
expect "restart" "$DEM" run "$SRC/examples/box_rods.yaml" -q --restart part.h5 \
  --set simulation.end_time=0.3 $FRICTION
expect "restarted: xdmf_check" "$PY" "$SRC/tests/xdmf_check.py" part.xmf
if [ "$(grep -c '<Grid Name="0000' part.xmf)" -eq 10 ]; then
  ok
else
  bad "the restarted sidecar has $(grep -c '<Grid Name="0000' part.xmf) grids, expected 5 frames x 2"
fi

# 3. ParaView: both readers load the velocity fields (./NAME.xmf: ParaView
#    resolves a bare relative name against the wrong directory).
# pvbatch SCRIPT ARGS...: under a virtual X server. Up to three tries,
# each on another display number: xvfb-run -a can race another X server
# starting at the same moment (other tests, other jobs); a real failure
# fails every time. -ac: no access control, since a machine whose host
# name changes under it (containers) never matches xvfb-run's cookie.
pvbatch_x() {
  local try
  for try in 1 2 3; do
    if timeout 600 xvfb-run -n $((100 + ($$ * 7 + try * 131) % 800)) \
      -s "-ac -screen 0 1280x1024x24" pvbatch "$@"; then
      return 0
    fi
    echo "(try $try failed)"
  done
  return 1
}
if command -v pvbatch > /dev/null && command -v xvfb-run > /dev/null; then
  expect "paraview_load" pvbatch_x "$SRC/tests/paraview_load.py" ./rods.xmf
  grep -q "paraview_load: 0 failures" out || bad "paraview_load: $(cat out)"
  # Rendering needs a window on the virtual X server. A machine where no
  # client can reach that server (pvbatch: "bad X server connection" on
  # every try) cannot take the picture at all: said, not counted.
  if pvbatch_x "$SRC/tests/paraview_screenshot.py" ./rods.xmf shot.png > out 2>&1; then
    ok
    # the picture has coloured spheres, not only the white background and
    # the black box
    expect "screenshot has colour" "$PY" -c '
import sys, matplotlib.image as m
img = m.imread("shot.png")[:, :, :3]
spread = img.max(axis=2) - img.min(axis=2)
n = int((spread > 0.15).sum())
print(n, "coloured pixels")
sys.exit(0 if n > 2000 else 1)'
  elif [ "$(grep -c 'bad X server connection' out)" -ge 3 ]; then
    echo "SKIP: ParaView screenshot: no client reaches the virtual X server on this machine (pvbatch: bad X server connection, 3 tries); paraview_load checked the readers"
  else
    bad "paraview_screenshot: $(cat out)"
  fi
else
  echo "SKIP: ParaView (pvbatch) or xvfb-run not installed; tests/xdmf_check.py checked the sidecar"
fi

echo "cli_output: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
