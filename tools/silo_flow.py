#!/usr/bin/python3
"""The discharge of a silo run: mass flow rate through the orifice, bulk density.

usage: silo_flow.py SILO.h5 [--plane Z] [--open T] [--window F0 F1]
                    [--json OUT.json] [-o silo_flow.png]

The orifice is in the horizontal plane z = --plane (default: the `translate`
z of the mesh named `silo` in the run's config, else 0). A body is
discharged when its centre is below that plane. For every snapshot the
discharged mass M(t) is summed; the steady mass flow rate W is the slope of
a straight line fitted (least squares) to M(t) over the snapshots where
between F0 and F1 of the silo's content at opening has come out (--window,
default 0.1 0.4: the example lets 40 % out, to stay within minutes; the
start-up after the opening is over by 10 %; when the run ends before F1,
the fit stops at the last snapshot and says so). W is printed with the
fit's standard error.

The orifice opens at --open (default: the motion `start` of the mesh named
`gate`, else the first snapshot). The bulk density of the packing is
measured in the last snapshot at or before the opening: the mass of the
bodies whose centres lie in a control volume (the silo's inside, as the
bodies span it, less two mean diameters from the side walls, the bottom and
the top of the bed), divided by its volume.

Prints the numbers; --json writes them (and M(t)) for tools/beverloo_study.py;
-o draws M(t) with the fitted line and the window.
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


def mesh_named(cfg, name):
    for m in ((cfg.get("domain") or {}).get("meshes") or []):
        if m.get("name") == name:
            return m
    return None


def bulk_density(bodies, spheres, plane):
    """(rho_b, control volume (lo, hi), mean diameter) of the bed above the
    plane: the bodies' mass with centres in the control volume over its
    volume."""
    x, m = bodies["position"], bodies["mass"]
    r = spheres["radius"]
    inside = x[:, 2] > plane
    if inside.sum() < 50:
        raise ValueError("fewer than 50 bodies above the orifice plane")
    # one sphere per body (the silo's balls): body k's radius
    rb = np.zeros(len(m))
    np.maximum.at(rb, spheres["body"], r)
    d = 2 * rb[inside].mean()
    xi, ri = x[inside], rb[inside]
    lo = np.array([(xi[:, 0] - ri).min(), (xi[:, 1] - ri).min(), plane])
    hi = np.array([(xi[:, 0] + ri).max(), (xi[:, 1] + ri).max(), np.nan])
    # the bed's top: the lowest of the highest tops of 4 x 4 columns
    tops = []
    for i in range(4):
        for j in range(4):
            a0 = lo[:2] + (hi[:2] - lo[:2]) * np.array([i, j]) / 4
            a1 = lo[:2] + (hi[:2] - lo[:2]) * np.array([i + 1, j + 1]) / 4
            c = ((xi[:, 0] >= a0[0]) & (xi[:, 0] < a1[0]) &
                 (xi[:, 1] >= a0[1]) & (xi[:, 1] < a1[1]))
            if c.any():
                tops.append((xi[c, 2] + ri[c]).max())
    hi[2] = min(tops)
    clo, chi = lo + 2 * d, hi - 2 * d
    if np.any(chi <= clo):
        raise ValueError("the bed is too shallow or narrow for a control "
                         "volume (%.3g m deep, %.3g m wide)"
                         % (hi[2] - lo[2], min(hi[:2] - lo[:2])))
    sel = np.all((xi >= clo) & (xi <= chi), axis=1)
    vol = np.prod(chi - clo)
    return m[inside][sel].sum() / vol, (clo, chi), d


def measure(path, plane=None, t_open=None, window=(0.1, 0.4)):
    """The numbers of one run as a dict (see the module's docstring)."""
    with demfile.open_run(path) as run:
        cfg = run.config()
        if plane is None:
            silo = mesh_named(cfg, "silo")
            plane = float((silo or {}).get("translate", [0, 0, 0])[2])
        if t_open is None:
            gate = mesh_named(cfg, "gate")
            t_open = float(((gate or {}).get("motion") or {}).get("start",
                                                                  -math.inf))
        g = np.array([float(v) for v in
                      (cfg.get("simulation") or {}).get("gravity", [0, 0, 0])])
        times, mass, total = [], [], None
        before = None
        for snap in run.snapshots():
            b = snap.bodies()
            below = b["position"][:, 2] < plane
            times.append(snap.time)
            mass.append(b["mass"][below].sum())
            if snap.time <= t_open + 1e-12 or before is None:
                before = (snap.time, b, snap.spheres())
            if total is None or snap.time <= t_open + 1e-12:
                total = b["mass"].sum()
                m_at_open = mass[-1]
        if len(times) < 2:
            raise ValueError("%s: fewer than 2 snapshots" % path)
    t, M = np.array(times), np.array(mass)
    content = total - m_at_open  # in the silo when it opens
    if content <= 0:
        raise ValueError("no body above the plane z = %g at the opening"
                         % plane)
    f = (M - m_at_open) / content
    rho_b, cv, d = bulk_density(before[1], before[2], plane)
    sel = (f >= window[0]) & (f <= window[1]) & (t > t_open)
    out = {"file": path, "plane": plane, "t_open": t_open,
           "t_density": before[0], "window": list(window),
           "time": t.tolist(), "discharged": M.tolist(), "content": content,
           "discharged_fraction": float(f[-1]), "bulk_density": rho_b,
           "control_volume": [cv[0].tolist(), cv[1].tolist()],
           "mean_diameter": d, "g": float(np.linalg.norm(g)),
           "reached_end_of_window": bool(f[-1] >= window[1]),
           "n_fit": int(sel.sum())}
    if sel.sum() < 3:
        out.update(W=math.nan, W_err=math.nan)
        return out
    (W, b0), cov = np.polyfit(t[sel], M[sel], 1, cov=True) if sel.sum() > 3 \
        else (np.polyfit(t[sel], M[sel], 1), np.full((2, 2), np.nan))
    out.update(W=float(W), W_err=float(math.sqrt(cov[0, 0])),
               intercept=float(b0), t_fit=[float(t[sel][0]),
                                           float(t[sel][-1])])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--plane", type=float,
                    help="z of the orifice plane (default: the silo mesh's)")
    ap.add_argument("--open", dest="t_open", type=float,
                    help="time the orifice opens (default: the gate's start)")
    ap.add_argument("--window", type=float, nargs=2, default=[0.1, 0.4],
                    metavar=("F0", "F1"),
                    help="discharged fractions the fit spans (0.1 0.4)")
    ap.add_argument("--json", help="write the numbers to this JSON file")
    ap.add_argument("-o", "--out", help="plot M(t) to this PNG")
    a = ap.parse_args()
    if not 0 <= a.window[0] < a.window[1] <= 1:
        sys.exit("silo_flow.py: --window needs 0 <= F0 < F1 <= 1")
    try:
        r = measure(a.file, a.plane, a.t_open, tuple(a.window))
    except (ValueError, OSError, KeyError) as e:
        sys.exit("silo_flow.py: %s" % e)
    print("orifice plane z = %g m, opened at t = %g s; %.4g kg in the silo "
          "then; %.1f %% discharged by t = %g s"
          % (r["plane"], r["t_open"], r["content"],
             100 * r["discharged_fraction"], r["time"][-1]))
    lo, hi = r["control_volume"]
    print("bulk density at t = %g s: %.1f kg/m^3 (control volume x %.3f..%.3f,"
          " y %.3f..%.3f, z %.3f..%.3f m; mean diameter %.4g m)"
          % (r["t_density"], r["bulk_density"], lo[0], hi[0], lo[1], hi[1],
             lo[2], hi[2], r["mean_diameter"]))
    if not math.isfinite(r["W"]):
        sys.exit("silo_flow.py: fewer than 3 snapshots with %g to %g of the "
                 "content discharged: no flow rate (%d)"
                 % (a.window[0], a.window[1], r["n_fit"]))
    if not r["reached_end_of_window"]:
        print("note: the run ended at %.1f %% discharged, before %.0f %%: "
              "the fit stops there" % (100 * r["discharged_fraction"],
                                       100 * a.window[1]))
    print("mass flow rate W = %.4g +- %.2g kg/s (fit over %d snapshots, "
          "t = %g..%g s, %g..%g of the content discharged)"
          % (r["W"], r["W_err"], r["n_fit"], r["t_fit"][0], r["t_fit"][1],
             a.window[0], a.window[1]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
    if a.out:
        plt = demfile.pyplot()
        t, M = np.array(r["time"]), np.array(r["discharged"])
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        ax.plot(t, M, "o", ms=4, label="discharged mass (centres below "
                "the orifice)")
        tf = np.array(r["t_fit"])
        ax.plot(tf, r["W"] * tf + r["intercept"], "r-", lw=2,
                label="fit: W = %.3g $\\pm$ %.1g kg/s" % (r["W"], r["W_err"]))
        ax.axvspan(tf[0], tf[1], color="r", alpha=0.08)
        ax.axvline(r["t_open"], color="k", ls=":", lw=1, label="opening")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("discharged mass (kg)")
        ax.legend(loc="upper left", fontsize=9)
        demfile.save_figure(fig, a.out, "silo_flow.py", dpi=90)


if __name__ == "__main__":
    main()
