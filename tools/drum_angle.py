#!/usr/bin/python3
"""The dynamic angle of repose of a rotating drum run, and its energy balance.

usage: drum_angle.py DRUM.h5 [--from T] [--to T] [--mesh NAME] [-o drum.png]

The drum is the mesh NAME (default: the first mesh with a motion) of the
run's config: its axis is the motion's angular velocity through its
`center`. For every snapshot from --from (default: the motion's start plus
a quarter turn, when the bed has reached its steady roll) to --to (default:
the end), the spheres are seen along the axis; the bed's free surface is
the highest sphere top in each of 16 strips across the middle 60 % of the
drum's width, and a straight line fitted to those tops gives the angle to
the horizontal (gravity's plane). Prints each snapshot's angle, their mean
and standard deviation, and the energy balance
(kinetic + potential + elastic + dissipated - wall work, relative to its
first value). With -o, draws the last snapshot's bed with the fitted
surface and the angle against time.
"""
import argparse
import math
import os
import sys

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import demfile  # noqa: E402

STRIPS = 16
WIDTH = 0.6  # share of the drum's diameter the surface is fitted over


def drum_of(cfg, name):
    meshes = (cfg.get("domain") or {}).get("meshes") or []
    for m in meshes:
        if (name is None and m.get("motion")) or m.get("name") == name:
            motion = m.get("motion") or {}
            w = np.array([float(x) for x in motion.get("angular_velocity",
                                                       [0, 0, 0])])
            if not np.any(w):
                sys.exit("drum_angle.py: mesh '%s' does not turn" % m["name"])
            c = np.array([float(x) for x in motion.get("center", [0, 0, 0])])
            return m["name"], w, c, float(motion.get("start", 0.0))
    sys.exit("drum_angle.py: no turning mesh%s in the config"
             % (" named '%s'" % name if name else ""))


def frame(axis, g):
    """Unit vectors across the drum: e_up against gravity (in the plane
    normal to the axis) and e_side = e_up x axis."""
    a = axis / np.linalg.norm(axis)
    up = -g + np.dot(g, a) * a
    if np.linalg.norm(up) == 0:
        sys.exit("drum_angle.py: gravity along the drum's axis: no slope")
    up /= np.linalg.norm(up)
    return np.cross(up, a), up


def surface_angle(x, r, centre, side, up, radius):
    """The free surface's angle (degrees) from the sphere tops, the strip
    tops and the fitted line (slope, intercept) in (side, up) coordinates."""
    s = (x - centre) @ side
    u = (x - centre) @ up + r
    edges = np.linspace(-WIDTH * radius, WIDTH * radius, STRIPS + 1)
    mid, top = [], []
    for k in range(STRIPS):
        inside = (s >= edges[k]) & (s < edges[k + 1])
        if inside.any():
            mid.append(0.5 * (edges[k] + edges[k + 1]))
            top.append(u[inside].max())
    if len(mid) < 4:
        return math.nan, None, None
    slope, icpt = np.polyfit(mid, top, 1)
    return math.degrees(math.atan(abs(slope))), (np.array(mid),
                                                 np.array(top)), (slope, icpt)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--from", dest="t_from", type=float)
    ap.add_argument("--to", dest="t_to", type=float)
    ap.add_argument("--mesh")
    ap.add_argument("-o", "--out")
    a = ap.parse_args()
    try:
        run = demfile.open_run(a.file)
    except (ValueError, OSError) as e:
        sys.exit("drum_angle.py: %s" % e)
    with run:
        cfg = run.config()
        name, w, centre, start = drum_of(cfg, a.mesh)
        g = np.array([float(x) for x in
                      (cfg.get("simulation") or {}).get("gravity", [0, 0, 0])])
        side, up = frame(w, g)
        quarter = 0.5 * math.pi / np.linalg.norm(w)
        t_from = a.t_from if a.t_from is not None else start + quarter
        t_to = a.t_to if a.t_to is not None else math.inf
        times, angles, last = [], [], None
        for snap in run.snapshots():
            if not (t_from <= snap.time <= t_to):
                continue
            s = snap.spheres()
            x, r = s["position"], s["radius"]
            # the drum's radius as the bed sees it: a bed that fills the
            # lower part of the drum touches its wall on both sides
            radius = np.max(np.abs((x - centre) @ side) + r)
            ang, tops, fit = surface_angle(x, r, centre, side, up, radius)
            times.append(snap.time)
            angles.append(ang)
            last = (snap.time, x, r, tops, fit, radius)
            print("t = %7.3f s: angle %6.2f deg" % (snap.time, ang))
        e = run.energy()
    if not angles:
        sys.exit("drum_angle.py: no snapshot between %g s and %g s"
                 % (t_from, t_to))
    ang = np.array(angles)
    ok = ang[np.isfinite(ang)]
    print("mesh '%s', turning at %.3g rad/s from t = %g s; %d snapshots "
          "from t = %g s" % (name, np.linalg.norm(w), start, len(ang), t_from))
    print("dynamic angle of repose: %.2f deg (standard deviation %.2f deg, "
          "%d snapshots)" % (ok.mean(), ok.std(ddof=1) if len(ok) > 1 else 0,
                             len(ok)))
    total = demfile.energy_balance(e)
    bal = (total - total[0]) / abs(total[0])
    print("energy balance (E + D - W - E0) / |E0|: largest %.3g, at the end "
          "%.3g; wall work %.4g J, dissipated %.4g J, E0 %.4g J"
          % (np.max(np.abs(bal)), bal[-1], e.get("wall_work", [0])[-1],
             e.get("dissipated", [0])[-1], total[0]))
    if a.out:
        plt = demfile.pyplot()
        t, x, r, tops, fit, radius = last
        fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.8))
        s_, u_ = (x - centre) @ side, (x - centre) @ up
        for si, ui, ri in zip(s_, u_, r):
            ax.add_patch(plt.Circle((si, ui), ri, color="tab:blue", alpha=0.6))
        circ = np.linspace(0, 2 * math.pi, 200)
        R = radius
        ax.plot(R * np.cos(circ), R * np.sin(circ), "k-", lw=1)
        if fit:
            xs = np.array([-WIDTH * R, WIDTH * R])
            ax.plot(xs, fit[0] * xs + fit[1], "r-", lw=2,
                    label="fitted surface, %.1f deg" % ang[-1])
            ax.plot(tops[0], tops[1], "r.")
        ax.set_aspect("equal")
        ax.set_xlim(-1.1 * R, 1.1 * R)
        ax.set_ylim(-1.1 * R, 1.1 * R)
        ax.set_xlabel("across the drum (m)")
        ax.set_ylabel("up (m)")
        ax.set_title("t = %.2f s" % t)
        ax.legend(loc="upper right")
        bx.plot(times, angles, "o-")
        bx.axhline(ok.mean(), color="k", ls="--",
                   label="mean %.1f deg" % ok.mean())
        bx.set_xlabel("time (s)")
        bx.set_ylabel("angle of the free surface (deg)")
        bx.legend()
        demfile.save_figure(fig, a.out, "drum_angle.py", dpi=110)


if __name__ == "__main__":
    main()
