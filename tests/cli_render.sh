#!/usr/bin/env bash
# The pictures of tools/render_snapshot.py (spheres at their true radius) and tools/plot_energy.py (runs of one scheme told apart) from short runs.
# Usage: bash tests/cli_render.sh DEM_BINARY SOURCE_DIR
NAME=cli_render
. "$(dirname "$0")/lib.sh"
need_python numpy h5py matplotlib

# The coloured (saturated) pixels of a PNG: the spheres or the curves; the
# background, grid, box and text are grey. Prints "count width height" of
# their bounding box.
cat > coloured.py << 'EOF'
import sys
import matplotlib.image
import numpy as np
img = matplotlib.image.imread(sys.argv[1])[..., :3]
sat = img.max(axis=2) - img.min(axis=2) > 0.2
ys, xs = np.nonzero(sat)
if len(xs) == 0:
    print(0, 0, 0)
else:
    print(len(xs), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1)
EOF

# 1. One dumbbell at rest, two spheres of radius 0.1 m whose centres are
#    0.2 m apart along x, seen along y: drawn at their true radius, the two
#    discs touch and their outline is twice as wide as it is high. (Discs k
#    times too large or small make the ratio (1 + k)/k.) The box is long and
#    thin, where a scale guessed from its longest side is far off.
cat > dumbbell.yaml << 'EOF'
simulation: {time_step: 1.0e-5, end_time: 0.001, seed: 1}
materials:
  glass: {density: 2500, young_modulus: 1.0e9, poisson_ratio: 0.1}
shapes:
  dumbbell:
    material: glass
    spheres: [{center: [-0.1, 0, 0], radius: 0.1}, {center: [0.1, 0, 0], radius: 0.1}]
particles:
  - body: {shape: dumbbell, position: [0.5, 0.15, 0.15]}
domain: {box: {min: [0, 0, 0], max: [1, 0.3, 0.3]}, wall_material: glass}
EOF
"$DEM" run dumbbell.yaml -q -o dumbbell.h5 2> err || bad "dem run dumbbell.yaml: $(cat err)"
for size in 6 4; do
  if "$SRC/tools/render_snapshot.py" dumbbell.h5 --elev 0 --azim -90 --size $size \
    -o side.png > err 2>&1; then
    read -r count width height < <("$PY" coloured.py side.png)
    ratio=$(awk -v w="$width" -v h="$height" 'BEGIN { if (h > 0) printf "%.3f", w / h; else print 0 }')
    if [ "$count" -gt 1000 ] && awk -v r="$ratio" 'BEGIN { exit !(r > 1.93 && r < 2.07) }'; then
      ok
    else
      bad "dumbbell seen along y (--size $size): $count coloured pixels, ${width}x$height (ratio $ratio, expected 2)"
    fi
  else
    bad "render_snapshot.py dumbbell.h5: $(cat err)"
  fi
done

# 2. The rods example, a short run: the picture holds the 30 rods.
"$DEM" run "$SRC/examples/box_rods.yaml" -q -o rods.h5 --set simulation.end_time=0.05 \
  --set output.snapshot_interval=0.01 2> err || bad "dem run box_rods.yaml: $(cat err)"
if "$SRC/tools/render_snapshot.py" rods.h5 --snapshot last -o rods.png > err 2>&1; then
  read -r count width height < <("$PY" coloured.py rods.png)
  if [ "$count" -gt 5000 ]; then ok; else bad "rods.png: only $count coloured pixels"; fi
else
  bad "render_snapshot.py rods.h5: $(cat err)"
fi
"$SRC/tools/render_snapshot.py" rods.h5 --snapshot 9 -o none.png > out 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "no snapshot" out && [ ! -e none.png ]; then ok; else
  bad "render_snapshot.py --snapshot 9 (there are 6): exit $rc: $(cat out)"
fi

# 3. plot_energy.py: two runs of one scheme and time step get different
#    legend labels, and the picture has its curves.
"$DEM" run "$SRC/examples/box_rods.yaml" -q -o rods_seed2.h5 --set simulation.end_time=0.05 \
  --set simulation.seed=2 2> err || bad "dem run box_rods.yaml seed 2: $(cat err)"
for how in both file scheme; do
  labels=$(cd "$SRC/tools" && "$PY" -c 'import sys, plot_energy
runs = [(p, "spiral_leapfrog", 3.8e-05) for p in sys.argv[2:]]
print("\n".join(plot_energy.labels(runs, sys.argv[1])))' "$how" "$work/rods.h5" "$work/rods_seed2.h5")
  if [ "$(sort -u <<< "$labels" | wc -l)" -eq 2 ]; then ok; else
    bad "plot_energy.py --label $how: the two runs share a label: $labels"
  fi
done
if "$SRC/tools/plot_energy.py" rods.h5 rods_seed2.h5 --relative -o energy.png > err 2>&1; then
  read -r count width height < <("$PY" coloured.py energy.png)
  if [ "$count" -gt 200 ]; then ok; else bad "energy.png: only $count coloured pixels"; fi
else
  bad "plot_energy.py: $(cat err)"
fi

echo "cli_render: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
