#!/usr/bin/python3
"""Plots of `dem study rotation` (the rotation-scheme validation study).

Reads DIR/study_error_vs_dt.csv, study_error_growth.csv, study_cost.csv,
study_speedup.csv and study_table2.csv as written by
`dem study rotation --out DIR` and writes, into --img (default DIR):

  fig2_error_vs_dt.png   error of q and w at t = 1 s vs dt (paper Fig. 2)
  fig3_error_growth.png  error vs time at dt = 1e-5 s (paper Fig. 3)
  fig4_cost.png          cost per step relative to Direct Euler (Fig. 4)
  fig5_speedup.png       speedup over Direct Euler per target error (Fig. 5)
  table2_vs_paper.png    measured Table 2 dt against the paper's

usage: tools/plot_rotation_study.py DIR [--img OUTDIR]
"""
import argparse
import csv
import math
import os
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# One look per scheme, fixed so that every figure agrees.
STYLE = OrderedDict(
    [
        ("spiral_leapfrog", dict(color="#d62728", marker="o", lw=2.2)),
        ("spiral", dict(color="#ff7f0e", marker="s", lw=1.4, ls="--")),
        ("velocity_verlet_spiral", dict(color="#8c564b", marker="^", lw=1.4, ls="--")),
        ("omelyan", dict(color="#1f77b4", marker="D", lw=1.6)),
        ("pcdm", dict(color="#17becf", marker="v", lw=1.4)),
        ("buss", dict(color="#2ca02c", marker="P", lw=1.4)),
        ("velocity_verlet", dict(color="#9467bd", marker="X", lw=1.4)),
        ("fincham", dict(color="#e377c2", marker="<", lw=1.4)),
        ("direct_euler", dict(color="#7f7f7f", marker=">", lw=1.6)),
        ("johnson", dict(color="#bcbd22", marker="h", lw=1.4)),
        ("pfc4", dict(color="#000000", marker="*", lw=1.4)),
        ("pfc4_not_normalised", dict(color="#000000", marker="*", lw=1.0, ls=":")),
        ("rk4", dict(color="#aec7e8", marker="o", lw=1.4, ls="-.")),
    ]
)
TARGETS = ["1e-05", "0.0001", "0.001", "0.01"]
TARGET_LABEL = {"1e-05": "1e-5", "0.0001": "1e-4", "0.001": "1e-3", "0.01": "1e-2"}
TARGET_COLOR = {"0.01": "#2ca02c", "0.001": "#1f77b4", "0.0001": "#ff7f0e", "1e-05": "#d62728"}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def by_scheme(rows):
    out = OrderedDict()
    for r in rows:
        out.setdefault(r["scheme"], []).append(r)
    return out


def style(name):
    return STYLE.get(name, dict(color="#333333", marker=".", lw=1.0))


def order_schemes(names):
    known = [n for n in STYLE if n in names]
    return known + [n for n in names if n not in STYLE]


def slope(pts):
    """Least-squares order in the asymptotic window: dt in [1e-4, 1.1e-2]
    and error in [1e-10, 1e-2] (away from round-off and from dt too large)."""
    sel = [(math.log(x), math.log(y)) for x, y in pts if 1e-4 <= x <= 1.1e-2 and 1e-10 <= y <= 1e-2]
    if len(sel) < 2:
        return math.nan
    mx = sum(p[0] for p in sel) / len(sel)
    my = sum(p[1] for p in sel) / len(sel)
    sxx = sum((p[0] - mx) ** 2 for p in sel)
    return sum((p[0] - mx) * (p[1] - my) for p in sel) / sxx


def fig2(rows, path):
    data = by_scheme(rows)
    fig, axes = plt.subplots(1, 2, figsize=(13, 6.8))
    handles, labels = [], []
    for name in order_schemes(list(data)):
        orders = []
        for ax, key in ((axes[0], "err_q"), (axes[1], "err_w")):
            pts = [(fnum(r["dt"]), fnum(r[key])) for r in data[name]]
            pts = [(x, y) for x, y in pts if y > 0 and math.isfinite(y)]
            if not pts:
                continue
            (h,) = ax.loglog([p[0] for p in pts], [p[1] for p in pts], ms=4, **style(name))
            orders.append(slope(pts))
        handles.append(h)
        labels.append("%s (q %.1f, w %.1f)" % (name, orders[0], orders[1]))
    for ax, title in ((axes[0], "orientation q"), (axes[1], "angular velocity w")):
        ax.set_xlabel("time step dt [s]")
        ax.set_ylabel("relative L1 error at t = 1 s (Eq. 13)")
        ax.set_title("error of %s vs dt" % title)
        ax.set_ylim(1e-15, 10)
        ax.grid(True, which="major", alpha=0.3)
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8,
               title="scheme (order fitted for dt in [1e-4, 1e-2])", title_fontsize=8)
    fig.suptitle("Driven cylinder (del Valle et al. 2024, Sec. 3): error at t = 1 s (cf. paper Fig. 2)")
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def fig3(rows, path):
    data = by_scheme(rows)
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
    for ax, key, title in ((axes[0], "err_q", "orientation q"), (axes[1], "err_w", "angular velocity w")):
        for name in order_schemes(list(data)):
            pts = [(fnum(r["t"]), fnum(r[key])) for r in data[name]]
            pts = [(x, y) for x, y in pts if y > 0 and math.isfinite(y)]
            st = dict(style(name))
            st.pop("marker", None)
            ax.semilogy([p[0] for p in pts], [p[1] for p in pts], label=name, **st)
        ax.set_xlabel("simulated time t [s]")
        ax.set_ylabel("relative L1 error (Eq. 13)")
        ax.set_title("error of %s, dt = 1e-5 s" % title)
        ax.grid(True, which="major", alpha=0.3)
    axes[1].legend(fontsize=7, loc="lower right", ncol=2)
    fig.suptitle("Error growth at dt = 1e-5 s (cf. paper Fig. 3)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def fig4(rows, path):
    names = order_schemes([r["scheme"] for r in rows])
    rows = {r["scheme"]: r for r in rows}
    y = list(range(len(names)))
    fig, ax = plt.subplots(figsize=(9, 6.5))
    h = 0.38
    a = [fnum(rows[n]["ratio_normalised"]) for n in names]
    b = [fnum(rows[n]["ratio_not_normalised"]) for n in names]
    ax.barh([v - h / 2 for v in y], a, height=h, color="#1f77b4", label="normalising q every step")
    ax.barh([v + h / 2 for v in y], b, height=h, color="#ff7f0e", label="without normalisation")
    for v, n in zip(y, names):
        if int(rows[n]["default_normalise"]):
            ax.text(0.02, v - h / 2, "default", va="center", fontsize=7, color="white")
        else:
            ax.text(0.02, v + h / 2, "default", va="center", fontsize=7, color="white")
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlabel("cost per body step / Direct Euler with normalisation")
    ax.set_title("Cost of one step, integrator only (cf. paper Fig. 4)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def fig5(rows, path):
    data = by_scheme(rows)
    names = [n for n in order_schemes(list(data)) if n != "direct_euler"]
    fig, ax = plt.subplots(figsize=(12, 5.5))
    w = 0.2
    for j, t in enumerate(reversed(TARGETS)):
        xs, ys = [], []
        for i, n in enumerate(names):
            for r in data[n]:
                if r["target"] == t or fnum(r["target"]) == fnum(t):
                    s = fnum(r["speedup"])
                    if math.isfinite(s) and s > 0:
                        xs.append(i + (j - 1.5) * w)
                        ys.append(s)
        ax.bar(xs, ys, width=w, color=TARGET_COLOR[t], label="target %s" % TARGET_LABEL[t])
    ax.set_yscale("log")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("time(Direct Euler) / time(scheme)")
    ax.set_title("Speedup over Direct Euler for a target error at t = 1 s (cf. paper Fig. 5)")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def fig_table2(rows, path):
    fig, ax = plt.subplots(figsize=(6.5, 6))
    seen = set()
    for r in rows:
        p, m = fnum(r["dt_paper"]), fnum(r["dt_measured"])
        if not (math.isfinite(p) and math.isfinite(m)) or r["status"] != "ok":
            continue
        n = r["scheme"]
        st = style(n)
        hollow = dict(mfc="none") if n.endswith("_not_normalised") else {}
        ax.loglog([p], [m], st["marker"], color=st["color"], ms=7, label=None if n in seen else n, **hollow)
        seen.add(n)
    lim = [1e-7, 2e-1]
    ax.loglog(lim, lim, "k-", lw=0.8)
    ax.loglog(lim, [1.1 * x for x in lim], "k:", lw=0.6)
    ax.loglog(lim, [x / 1.1 for x in lim], "k:", lw=0.6)
    ax.set_xlim(lim)
    ax.set_ylim(lim)
    ax.set_xlabel("dt in the paper's Table 2 [s]")
    ax.set_ylabel("dt measured here [s]")
    ax.set_title("Table 2: dt for a target average error\n(dotted: +-10 %)")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", help="directory holding the study_*.csv files")
    ap.add_argument("--img", help="where to write the PNGs (default: DIR)")
    a = ap.parse_args(argv)
    img = a.img or a.dir
    os.makedirs(img, exist_ok=True)
    src = lambda name: os.path.join(a.dir, name)  # noqa: E731
    try:
        jobs = [
            (fig2, "study_error_vs_dt.csv", "fig2_error_vs_dt.png"),
            (fig3, "study_error_growth.csv", "fig3_error_growth.png"),
            (fig4, "study_cost.csv", "fig4_cost.png"),
            (fig5, "study_speedup.csv", "fig5_speedup.png"),
            (fig_table2, "study_table2.csv", "table2_vs_paper.png"),
        ]
        for fn, csv_name, png in jobs:
            fn(read(src(csv_name)), os.path.join(img, png))
            print(os.path.join(img, png))
    except (OSError, KeyError, ValueError) as e:
        print("plot_rotation_study: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
