#!/usr/bin/env bash
# The Python reader tools/demfile.py on a short run (tests/demfile_check.py), and the tools' interpreter rule: each one runs where another python3 comes first on PATH.
# Usage: bash tests/cli_demfile.sh DEM_BINARY SOURCE_DIR
NAME=cli_demfile
. "$(dirname "$0")/lib.sh"
need_python numpy h5py matplotlib

# Two dumbbells in free flight: the numbers demfile_check.py expects.
cat > two.yaml << 'EOF'
simulation: {time_step: 1.0e-5, end_time: 0.01, seed: 5}
materials:
  glass: {density: 2500, young_modulus: 1.0e9, poisson_ratio: 0.1}
shapes:
  dumbbell:
    material: glass
    spheres: [{center: [-0.02, 0, 0], radius: 0.02}, {center: [0.02, 0, 0], radius: 0.02}]
particles:
  - body: {shape: dumbbell, position: [0.3, 0.5, 0.5], velocity: [1, 0, 0]}
  - body: {shape: dumbbell, position: [0.7, 0.5, 0.5], velocity: [0, 0.5, 0]}
domain: {box: {min: [0, 0, 0], max: [1, 1, 1]}, wall_material: glass}
output: {snapshot_interval: 0.005, energy_interval: 0.001}
EOF
if "$DEM" run two.yaml -q -o two.h5 2> err; then ok; else
  bad "dem run two.yaml: $(cat err)"
fi

# 1. The module: every accessor, a grown layout, fill rows, bad files.
version=$("$DEM" --version | awk '{print $2}')
if "$PY" "$SRC/tests/demfile_check.py" two.h5 "$version" "$work" > out 2>&1; then ok; else
  bad "tests/demfile_check.py: $(cat out)"
fi

# 2. Its summary, run as a script.
if "$SRC/tools/demfile.py" two.h5 > out 2> err &&
  grep -q "scheme spiral_leapfrog" out && grep -q "2 bodies, 4 spheres" out; then
  ok
else
  bad "tools/demfile.py two.h5: $(cat out err)"
fi

# 3. Every tool that needs numpy, h5py or matplotlib names Debian's
#    python, and starts with another python3 first on PATH (PyPI is not
#    reachable here: only Debian's has the packages).
mkdir fakebin
printf '#!/bin/sh\necho "the wrong python3" >&2\nexit 1\n' > fakebin/python3
chmod +x fakebin/python3
n_tools=0
for tool in "$SRC"/tools/*.py; do
  grep -qE '^ *(import|from) (numpy|h5py|matplotlib|demfile)' "$tool" || continue
  n_tools=$((n_tools + 1))
  name=$(basename "$tool")
  if [ "$(head -1 "$tool")" != "#!/usr/bin/python3" ]; then
    bad "$name starts with '$(head -1 "$tool")', not #!/usr/bin/python3"
  elif [ ! -x "$tool" ]; then
    bad "$name is not executable"
  elif PATH="$work/fakebin:$PATH" "$tool" --help > out 2>&1; then
    ok
  else
    bad "$name --help with another python3 first on PATH: $(tail -3 out)"
  fi
done
if [ "$n_tools" -ge 6 ]; then ok; else bad "only $n_tools tools found in $SRC/tools"; fi

echo "cli_demfile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
