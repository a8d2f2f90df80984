#!/usr/bin/python3
"""Draw the spheres of one snapshot of a dem output file in 3-D.

usage: render_snapshot.py OUT.h5 [--snapshot N|last] -o snap.png
                          [--elev DEG] [--azim DEG] [--size INCHES] [--no-box]

Spheres are drawn as markers sized from their radius and colored by body;
the box of the run (domain.box in the stored /config) is outlined when the
config has one. Marker sizes are a projection estimate, good for a picture.
"""
import argparse
import os
import sys

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from demfile import open_dem_file  # noqa: E402


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def read_box(f):
    """(min, max) of domain.box in /config, or None."""
    if "config" not in f:
        return None
    try:
        import yaml
    except ImportError:
        return None
    try:
        cfg = yaml.safe_load(_text(f["config"][()]))
        box = cfg["domain"]["box"]
        lo = np.asarray(box["min"], dtype=float)
        hi = np.asarray(box["max"], dtype=float)
    except Exception:  # no box, or not the expected shape
        return None
    if lo.shape != (3,) or hi.shape != (3,):
        return None
    return lo, hi


def read_snapshot(path, which):
    """(name, time, step, positions, radii, bodies, box) of one snapshot."""
    with open_dem_file(path) as f:
        names = sorted((k for k in f.get("snapshots", {}).keys() if k.isdigit()), key=int)
        if not names:
            raise ValueError(f"{path}: no snapshots")
        if which == "last":
            name = names[-1]
        else:
            name = f"{int(which):06d}"
            if name not in names:
                raise ValueError(f"{path}: no snapshot {name} "
                                 f"(there are {names[0]}..{names[-1]})")
        g = f["snapshots"][name]
        pos = g["spheres/position"][()]
        rad = g["spheres/radius"][()]
        body = g["spheres/body"][()]
        return (name, float(g.attrs["time"]), int(g.attrs["step"]), pos, rad,
                body, read_box(f))


def draw_box(ax, lo, hi):
    for a in range(3):
        b, c = [i for i in range(3) if i != a]
        for ub in (lo[b], hi[b]):
            for uc in (lo[c], hi[c]):
                p = np.empty((2, 3))
                p[:, a] = (lo[a], hi[a])
                p[:, b] = ub
                p[:, c] = uc
                ax.plot(p[:, 0], p[:, 1], p[:, 2], color="0.4", lw=0.8)


def main(argv=None):
    p = argparse.ArgumentParser(description="Render the spheres of one dem snapshot.")
    p.add_argument("file", metavar="OUT.h5")
    p.add_argument("--snapshot", default="last", metavar="N|last",
                   help="snapshot index (the NNNNNN of /snapshots/NNNNNN) or 'last'")
    p.add_argument("-o", "--output", required=True, metavar="snap.png")
    p.add_argument("--elev", type=float, default=22.0)
    p.add_argument("--azim", type=float, default=-58.0)
    p.add_argument("--size", type=float, default=6.0, help="figure size in inches")
    p.add_argument("--no-box", action="store_true", help="do not outline the box")
    args = p.parse_args(argv)
    if args.snapshot != "last" and not args.snapshot.isdigit():
        p.error("--snapshot takes a number or 'last'")

    try:
        name, time, step, pos, rad, body, box = read_snapshot(args.file, args.snapshot)
    except ValueError as err:
        print(f"render_snapshot.py: {err}", file=sys.stderr)
        return 1

    if box is not None and not args.no_box:
        lo, hi = box
    elif len(rad):
        lo = pos.min(axis=0) - rad.max()
        hi = pos.max(axis=0) + rad.max()
    else:
        lo, hi = np.zeros(3), np.ones(3)
    extent = np.maximum(hi - lo, 1e-12)

    fig = plt.figure(figsize=(args.size, args.size))
    ax = fig.add_subplot(projection="3d")
    ax.set_box_aspect(extent)
    ax.view_init(elev=args.elev, azim=args.azim)
    if box is not None and not args.no_box:
        draw_box(ax, lo, hi)
    if len(rad):
        # Points per data unit along the longest side, roughly as projected.
        ppu = 0.55 * args.size * 72.0 / extent.max()
        sizes = (2.0 * rad * ppu) ** 2
        colors = plt.get_cmap("tab20")(np.asarray(body) % 20)
        ax.scatter(pos[:, 0], pos[:, 1], pos[:, 2], s=sizes, c=colors,
                   edgecolors="k", linewidths=0.2, alpha=0.95, depthshade=True)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")
    n_bodies = len(np.unique(body)) if len(body) else 0
    ax.set_title(f"{os.path.basename(args.file)}  snapshot {name}  t = {time:.6g}  "
                 f"({n_bodies} bodies, {len(rad)} spheres)", fontsize="small")
    fig.tight_layout()
    fig.savefig(args.output, dpi=150)
    return 0


if __name__ == "__main__":
    sys.exit(main())
