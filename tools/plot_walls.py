#!/usr/bin/python3
"""Plot the force and torque the spheres exert on each wall of a dem run.

usage: plot_walls.py OUT.h5 -o walls.png [--components] [--walls NAME ...]

Reads /walls (tools/demfile.py: run.walls()): for each wall (box_xmin ...
box_zmax, and each mesh by name) the force on it (N) and its torque about
the wall's torque point (N m; docs/walls.md), one row per energy row. Two
panels against time: the magnitudes |F| and |T|, one line per wall, or with
--components the x, y, z components (solid, dashed, dotted). Walls that
carry nothing over the run are left out unless named with --walls.
"""
import argparse
import os
import sys

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import demfile  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("-o", "--output", default="walls.png")
    ap.add_argument("--components", action="store_true",
                    help="x, y, z components instead of magnitudes")
    ap.add_argument("--walls", nargs="+", metavar="NAME",
                    help="these walls only (default: every wall with a load)")
    args = ap.parse_args(argv)
    try:
        with demfile.open_run(args.file) as run:
            walls = run.walls()
    except (ValueError, OSError) as err:
        print(f"plot_walls.py: {err}", file=sys.stderr)
        return 1
    if not walls:
        print(f"plot_walls.py: {args.file}: no /walls (no box or mesh, or an "
              "older dem)", file=sys.stderr)
        return 1
    names = args.walls or [n for n, w in walls.items()
                           if np.any(np.nan_to_num(w["force"]) != 0)]
    unknown = [n for n in names if n not in walls]
    if unknown:
        print(f"plot_walls.py: no wall {', '.join(unknown)} in {args.file} "
              f"(it has {', '.join(walls)})", file=sys.stderr)
        return 1
    fig, ax = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    styles = ("-", "--", ":")
    for k, name in enumerate(names):
        w = walls[name]
        colour = f"C{k % 10}"
        for a, key, unit in ((ax[0], "force", "N"), (ax[1], "torque", "N m")):
            if args.components:
                for c in range(3):
                    a.plot(w["time"], w[key][:, c], styles[c], color=colour,
                           label=f"{name} {'xyz'[c]}")
            else:
                a.plot(w["time"], np.linalg.norm(w[key], axis=1), color=colour,
                       label=name)
            a.set_ylabel(f"{key} on the wall ({unit})")
    p = ", ".join(f"{n}: ({', '.join(f'{x:g}' for x in walls[n]['torque_point'])})"
                  for n in names)
    ax[1].set_title(f"torque about {p} m", fontsize=8)
    ax[1].set_xlabel("time (s)")
    ax[0].set_title(os.path.basename(args.file))
    for a in ax:
        if names:
            a.legend(fontsize=7, ncol=3 if args.components else 1)
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}: {len(names)} walls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
