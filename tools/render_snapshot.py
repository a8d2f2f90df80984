#!/usr/bin/python3
"""Draw the spheres of one snapshot of a dem output file in 3-D.

usage: render_snapshot.py OUT.h5 [--snapshot N|last] -o snap.png
                          [--elev DEG] [--azim DEG] [--size INCHES] [--dpi N]
                          [--no-box]

Spheres are drawn at their true radius, colored by body, in an orthographic
projection: each one is a disc whose radius is the sphere's, measured on the
screen through the axes' own projection (so overlapping spheres of a clump
make its solid shape). The box of the run (domain.box in the stored
/config) is outlined when the config has one.
"""
import argparse
import os
import sys

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from mpl_toolkits.mplot3d import proj3d  # noqa: E402

import demfile  # noqa: E402


def read_box(run):
    """(min, max) of domain.box in the run's config, or None."""
    try:
        box = run.config()["domain"]["box"]
        lo = np.asarray(box["min"], dtype=float)
        hi = np.asarray(box["max"], dtype=float)
    except Exception:  # no PyYAML, no box, or not the expected shape
        return None
    if lo.shape != (3,) or hi.shape != (3,):
        return None
    return lo, hi


def read_snapshot(path, which):
    """(name, time, step, positions, radii, bodies, box) of one snapshot."""
    with demfile.open_run(path) as run:
        if which != "last":
            which = f"{int(which):06d}"
        try:
            snap = run.snapshot(which)
        except IndexError as err:
            raise ValueError(str(err)) from None
        s = snap.spheres()
        return (snap.name, snap.time, snap.step, s["position"], s["radius"],
                s["body"], read_box(run))


def points_per_unit(ax, fig):
    """Screen points per data unit of a length seen face-on, in the axes'
    orthographic projection as it will be drawn.

    The projection maps a ball of radius r to a disc whose radius is r
    times the largest singular value of the linear map from data to
    screen: measured here on the three unit vectors of the data axes."""
    fig.canvas.draw()  # fixes the layout and the projection
    proj = ax.get_proj()
    origin = np.zeros(3)
    pts = np.vstack([origin, np.eye(3)])
    x, y, _ = proj3d.proj_transform(pts[:, 0], pts[:, 1], pts[:, 2], proj)
    disp = ax.transData.transform(np.column_stack([x, y]))
    jac = (disp[1:] - disp[0]).T  # 2 x 3: pixels per data unit, per axis
    pixels = np.linalg.svd(jac, compute_uv=False).max()  # both are equal
    # when the box aspect is the data's (set_box_aspect(extent))
    return pixels * 72.0 / fig.dpi


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
    p.add_argument("--dpi", type=float, default=150.0, help="pixels per inch of the picture")
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

    fig = plt.figure(figsize=(args.size, args.size), dpi=args.dpi)
    ax = fig.add_subplot(projection="3d", proj_type="ortho")
    ax.set_box_aspect(extent)
    ax.view_init(elev=args.elev, azim=args.azim)
    if box is not None and not args.no_box:
        draw_box(ax, lo, hi)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_zlabel("z (m)")
    n_bodies = len(np.unique(body)) if len(body) else 0
    ax.set_title(f"{os.path.basename(args.file)}  snapshot {name}  t = {time:.6g} s  "
                 f"({n_bodies} bodies, {len(rad)} spheres)", fontsize="small")
    fig.tight_layout()
    if len(rad):
        # Sized after the layout is final: a marker's size is its diameter
        # in points, squared. The edges, a darker shade of the body's
        # colour, are thin (they widen a disc by half their width) so that
        # a clump reads as one solid piece.
        sizes = (2.0 * rad * points_per_unit(ax, fig)) ** 2
        colors = plt.get_cmap("tab20")(np.asarray(body) % 20)
        edges = colors * [0.6, 0.6, 0.6, 1.0]
        ax.scatter(pos[:, 0], pos[:, 1], pos[:, 2], s=sizes, c=colors,
                   edgecolors=edges, linewidths=0.3, depthshade=True)
    fig.savefig(args.output, dpi=args.dpi)
    return 0


if __name__ == "__main__":
    sys.exit(main())
