# The shared start of the insertion tests (sourced with NAME set): tests/lib.sh's, and the cfg/run/py helpers.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_python h5py numpy
CHECK="$SRC/tests/insert_check.py"

# cfg NAME 'INSERT ENTRY (flow mapping)' [END_TIME]: a config whose insert
# entry is line 12 of NAME.yaml. No gravity, bodies at rest: they stay
# where they were put.
cfg() {
  cat > "$1.yaml" << EOF2
simulation: {time_step: 1.0e-4, end_time: ${3:-0.002}, seed: 3}
materials:
  glass: {density: 2500, young_modulus: 1.0e7, poisson_ratio: 0.25}
shapes:
  ball:
    material: glass
    spheres: [{center: [0, 0, 0], radius: 0.01}]
  rod:
    material: glass
    spheres: [{center: [-0.01, 0, 0], radius: 0.01}, {center: [0.01, 0, 0], radius: 0.01}]
particles:
  - insert: $2
domain: {box: {min: [0, 0, 0], max: [1, 1, 1]}, wall_material: glass}
contact: {model: hertz}
output: {snapshot_interval: 1.0e-4}
EOF2
}
run() { # run NAME [args]: quiet run to NAME.h5, log in NAME.log
  local n=$1
  shift
  "$DEM" run "$n.yaml" -o "$n.h5" --force "$@" > "$n.log" 2>&1
}
py() { # py WHAT ARGS...: a check of insert_check.py, its line printed
  local out
  if out=$("$PY" "$CHECK" "$@" 2>&1); then
    ok
    echo "  $out" | head -3
  else
    bad "$*: $out"
  fi
}

