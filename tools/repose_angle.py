#!/usr/bin/python3
"""The static angle of repose of a conical pile: the last snapshot of a run.

usage: repose_angle.py PILE.h5 [--snapshot N|last] [--centre X Y]
                       [--floor Z] [--bin B] [--sectors S] [--flank H0 H1]
                       [--json OUT.json] [-o pile.png]

Gravity (the run's config) is vertical, along -z. The pile's axis is the
vertical through --centre (default: the horizontal centroid of the bodies'
mass within the pile, found iteratively from the highest sphere); its floor
is --floor (default: the lowest point of any sphere). Around the axis the
spheres are binned by horizontal distance r (bins --bin wide, default one
mean sphere diameter) in S azimuthal sectors (default 8); the surface of
the pile in each bin is the top (z + radius) of the highest sphere there.

The flank is the rings of bins where the pile's mean profile (the median
over the sectors of each ring's top) lies between H0 and H1 of the pile's
height (--flank, default 0.2 0.8), and at least 1.5 mean sphere diameters
above the floor: from the first ring below H1 (outside the profile's
highest ring) to the last ring above the
lower bound, so that the rounded or flattened top and the toe (a layer of
balls strewn on the floor) are left out. A
straight line fitted to height against r over the flank bins of all
sectors gives the angle of repose, atan(-slope), with the standard error
of the fit; the same fit in each sector alone gives the spread between
sides of the pile (mean and standard deviation of the sectors' angles). -o
draws the pile's profile (every sphere at its (r, z)), the bins' tops and
the fitted line.
"""
import argparse
import json
import math
import os
import sys

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import demfile  # noqa: E402


def find_centre(x, r, floor):
    """The pile's axis (x, y): the centroid of the spheres above a quarter of
    the pile's height, twice refined to those within the pile's reach."""
    top = x[:, 2] + r - floor
    h = top.max()
    c = x[np.argmax(top), :2]
    for _ in range(3):
        d = np.hypot(x[:, 0] - c[0], x[:, 1] - c[1])
        sel = (top > 0.25 * h) & (d < 4 * h + 4 * r.max())
        if sel.sum() < 3:
            break
        c = x[sel, :2].mean(axis=0)
    return c


def line_fit(r, h):
    """(slope, intercept, slope's standard error) of h = a r + b."""
    if len(r) < 3 or np.ptp(r) == 0:
        return math.nan, math.nan, math.nan
    A = np.vstack([r, np.ones_like(r)]).T
    coef, *_ = np.linalg.lstsq(A, h, rcond=None)
    res = h - A @ coef
    dof = len(r) - 2
    if dof <= 0:
        return coef[0], coef[1], math.nan
    s2 = res @ res / dof
    cov = s2 * np.linalg.inv(A.T @ A)
    return coef[0], coef[1], math.sqrt(cov[0, 0])


def angle_of(slope, err):
    """Degrees of a downward slope and its error (propagated)."""
    return (math.degrees(math.atan(-slope)),
            math.degrees(err / (1 + slope * slope)))


def measure(path, which="last", centre=None, floor=None, bin_w=None,
            sectors=8, flank=(0.2, 0.8)):
    with demfile.open_run(path) as run:
        if which != "last":
            which = "%06d" % int(which)
        snap = run.snapshot(which)
        s = snap.spheres()
        t = snap.time
    x, rad = s["position"], s["radius"]
    if len(rad) < 10:
        raise ValueError("fewer than 10 spheres in the snapshot")
    if floor is None:
        floor = float((x[:, 2] - rad).min())
    c = np.array(centre) if centre is not None else find_centre(x, rad, floor)
    if bin_w is None:
        bin_w = 2 * rad.mean()
    dx, dy = x[:, 0] - c[0], x[:, 1] - c[1]
    rr = np.hypot(dx, dy)
    phi = np.mod(np.arctan2(dy, dx), 2 * math.pi)
    top = x[:, 2] + rad - floor
    height = top.max()
    k_r = (rr / bin_w).astype(int)
    k_s = np.minimum((phi / (2 * math.pi) * sectors).astype(int), sectors - 1)
    bins = []  # (sector, r of the bin's middle, the highest top)
    for sct in range(sectors):
        in_s = k_s == sct
        for k in np.unique(k_r[in_s]):
            sel = in_s & (k_r == k)
            bins.append((sct, (k + 0.5) * bin_w, top[sel].max()))
    b = np.array(bins)
    # The flank's radii, from the pile's mean profile (the median over the
    # sectors of each ring's top): from where it comes down below H1 of
    # the height, outside its highest ring (near the axis, sectors are
    # small and their tops low), to where it reaches H0, or 1.5 mean
    # diameters (one layer of balls strewn on the floor, the toe, is not
    # the pile).
    low = max(flank[0] * height, 1.5 * 2 * rad.mean())
    rings = np.unique(b[:, 1])
    prof = np.array([np.median(b[b[:, 1] == q, 2]) for q in rings])
    below = np.nonzero((prof <= flank[1] * height) &
                       (rings > rings[np.argmax(prof)]))[0]
    if len(below) == 0:
        raise ValueError("the pile's profile never comes down below %g of "
                         "its height" % flank[1])
    r_a = rings[below[0]]
    above = np.nonzero((prof >= low) & (rings >= r_a))[0]
    r_b = rings[above[-1]] if len(above) else r_a
    fl = (b[:, 1] >= r_a) & (b[:, 1] <= r_b)
    slope, icpt, err = line_fit(b[fl, 1], b[fl, 2])
    ang, ang_err = angle_of(slope, err)
    per = []
    for sct in range(sectors):
        m = fl & (b[:, 0] == sct)
        sl, _, e = line_fit(b[m, 1], b[m, 2])
        if math.isfinite(sl):
            per.append(angle_of(sl, e)[0])
    per = np.array(per)
    return {"file": path, "time": t, "centre": c.tolist(), "floor": floor,
            "height": float(height), "bin": bin_w, "sectors": sectors,
            "flank": list(flank), "n_flank_bins": int(fl.sum()),
            "flank_r": [float(r_a), float(r_b)],
            "angle": ang, "angle_err": ang_err, "slope": slope,
            "intercept": icpt,
            "sector_angles": per.tolist(),
            "sector_mean": float(per.mean()) if len(per) else math.nan,
            "sector_std": float(per.std(ddof=1)) if len(per) > 1 else math.nan,
            "n_spheres": int(len(rad)),
            "bins": b.tolist(), "flank_mask": fl.tolist(),
            "profile": np.column_stack([rr, top]).tolist(),
            "radii": rad.tolist()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--snapshot", default="last")
    ap.add_argument("--centre", type=float, nargs=2, metavar=("X", "Y"))
    ap.add_argument("--floor", type=float)
    ap.add_argument("--bin", type=float, help="radial bin width, m")
    ap.add_argument("--sectors", type=int, default=8)
    ap.add_argument("--flank", type=float, nargs=2, default=[0.2, 0.8],
                    metavar=("H0", "H1"))
    ap.add_argument("--json")
    ap.add_argument("-o", "--out")
    a = ap.parse_args()
    if not 0 <= a.flank[0] < a.flank[1] <= 1:
        sys.exit("repose_angle.py: --flank needs 0 <= H0 < H1 <= 1")
    if a.sectors < 1:
        sys.exit("repose_angle.py: --sectors must be at least 1")
    if a.bin is not None and a.bin <= 0:
        sys.exit("repose_angle.py: --bin must be positive")
    try:
        r = measure(a.file, a.snapshot, a.centre, a.floor, a.bin, a.sectors,
                    tuple(a.flank))
    except (ValueError, OSError, KeyError, IndexError) as e:
        sys.exit("repose_angle.py: %s" % e)
    print("t = %g s: %d spheres; pile axis at (%.4f, %.4f) m, floor z = "
          "%.4f m, height %.4f m" % (r["time"], r["n_spheres"],
                                     r["centre"][0], r["centre"][1],
                                     r["floor"], r["height"]))
    if not math.isfinite(r["angle"]):
        sys.exit("repose_angle.py: fewer than 3 surface bins between %g and "
                 "%g of the pile's height: no flank to fit" % tuple(a.flank))
    print("flank: %d bins (%d sectors, %.4g m wide) at r = %.4f..%.4f m "
          "(profile between %g and %g of the height)"
          % (r["n_flank_bins"], r["sectors"], r["bin"], r["flank_r"][0],
             r["flank_r"][1], a.flank[0], a.flank[1]))
    print("sectors: mean %.1f deg, standard deviation %.1f deg over %d"
          % (r["sector_mean"], r["sector_std"], len(r["sector_angles"])))
    print("angle of repose: %.1f +- %.1f deg (fit standard error)"
          % (r["angle"], r["angle_err"]))
    if a.json:
        slim = {k: v for k, v in r.items()
                if k not in ("bins", "flank_mask", "profile", "radii")}
        with open(a.json, "w") as f:
            json.dump(slim, f, indent=1)
    if a.out:
        plt = demfile.pyplot()
        p, b = np.array(r["profile"]), np.array(r["bins"])
        fl = np.array(r["flank_mask"])
        fig, ax = plt.subplots(figsize=(7, 3.6))
        ax.scatter(p[:, 0], p[:, 1], s=2, color="0.6",
                   label="spheres' tops (r, z)")
        ax.plot(b[~fl, 1], b[~fl, 2], "x", color="tab:blue", ms=4,
                label="bins' highest top")
        ax.plot(b[fl, 1], b[fl, 2], "o", color="tab:blue", ms=4,
                label="flank bins (fitted)")
        rs = np.array([b[fl, 1].min(), b[fl, 1].max()])
        ax.plot(rs, r["slope"] * rs + r["intercept"], "r-", lw=2,
                label="%.1f $\\pm$ %.1f deg" % (r["angle"], r["angle_err"]))
        ax.set_aspect("equal")
        ax.set_xlim(0, None)
        ax.set_ylim(0, None)
        ax.set_xlabel("distance from the pile's axis (m)")
        ax.set_ylabel("height above the floor (m)")
        ax.legend(fontsize=8, loc="upper right")
        demfile.save_figure(fig, a.out, "repose_angle.py", dpi=90)


if __name__ == "__main__":
    main()
