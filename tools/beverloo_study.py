#!/usr/bin/python3
"""The silo example at several orifice sizes, against Beverloo's law.

usage: beverloo_study.py [--dem BUILD/dem] [--config examples/silo.yaml]
                         [--diameters D1 D2 ...] [--threads 2] [--work DIR]
                         [--window F0 F1] [--k-fixed K] [--reuse]
                         [--width W] [--depth D] [--height H] [--set K=V]
                         [--json OUT.json] [-o beverloo.png]

For each orifice diameter D (default 40, 44, 48, 52 and 56 mm: 5 to 7 mean
ball diameters), tools/make_mesh.py writes the silo of examples/silo.yaml
with a round orifice of that diameter (the example's width, depth and
height: --width, --depth, --height, default 0.112 0.112 0.22 m), and
the example runs with it (`--set domain.meshes.0.file=...`), long enough
for F1 of its content to come out (the end time is estimated from
Beverloo's law with C = 0.45, and said). tools/silo_flow.py measures each
run: the steady mass flow rate W (slope of the discharged mass between F0
and F1 of the content, --window, default 0.1 0.4), and the bulk density of
the settled packing before the gate opens.

Beverloo's law for a circular orifice in a flat-bottomed 3-D silo,

    W = C rho_b sqrt(g) (D - k d)^(5/2),

with rho_b the bulk density (the runs' mean) and d the mean ball diameter,
is fitted as the straight line W^(2/5) = (C rho_b sqrt(g))^(2/5) (D - k d)
(least squares weighted by the errors of W, scaled by the reduced
chi-square when it exceeds 1): C from the slope, k from the intercept,
with their standard errors. A fit with k fixed (--k-fixed, default 1.5)
gives C alone. Runs go one at a time; the outputs stay in --work (default
a new folder beverloo_runs/), and --reuse measures the files already there
instead of running again. -o plots W^(2/5) against D with the fitted line,
and W against D with the two fitted laws.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import numpy as np  # noqa: E402
import demfile  # noqa: E402
import silo_flow  # noqa: E402

ROOT = os.path.dirname(HERE)
C_GUESS, K_GUESS = 0.45, 1.5  # only for the run lengths: W is underestimated


def load_yaml(path):
    try:
        import yaml
    except ImportError:
        sys.exit("beverloo_study.py: needs PyYAML (python3-yaml)")
    with open(path) as f:
        return yaml.safe_load(f)


def example_numbers(cfg):
    """(content mass estimate kg, mean diameter m, t_open s) from the
    example's config."""
    fill = cfg["particles"][0]["random_fill"]
    shape = cfg["shapes"][fill["shape"]]
    rho = float(cfg["materials"][shape["material"]]["density"])
    r = float(shape["spheres"][0]["radius"])
    sc = fill.get("scale", 1.0)
    if isinstance(sc, dict):
        lo, hi = float(sc["min"]), float(sc["max"])
        s1, s3 = (lo + hi) / 2, (hi ** 4 - lo ** 4) / (4 * (hi - lo))
    else:
        s1, s3 = float(sc), float(sc) ** 3
    mass = int(fill["count"]) * rho * 4 / 3 * math.pi * r ** 3 * s3
    gate = [m for m in cfg["domain"]["meshes"] if m["name"] == "gate"][0]
    return mass, 2 * r * s1, float(gate["motion"]["start"])


def weighted_line(x, y, sy):
    """(a, b, cov, chi2/dof) of y = a x + b weighted by 1/sy^2; the
    covariance scaled by chi2/dof when that exceeds 1."""
    w = 1 / sy ** 2
    A = np.vstack([x, np.ones_like(x)]).T
    N = A.T @ (A * w[:, None])
    cov = np.linalg.inv(N)
    a, b = cov @ (A.T @ (w * y))
    dof = len(x) - 2
    chi2 = float(np.sum(w * (y - a * x - b) ** 2) / dof) if dof > 0 else 0.0
    return a, b, cov * max(chi2, 1.0), chi2


def fit_beverloo(D, W, sW, rho_b, d, g, k_fixed):
    out = {}
    y = W ** 0.4
    sy = 0.4 * W ** -0.6 * sW
    if len(D) >= 3:
        a, b, cov, chi2 = weighted_line(D, y, sy)
        C = a ** 2.5 / (rho_b * math.sqrt(g))
        sC = 2.5 * C * math.sqrt(cov[0, 0]) / a
        k = -b / (a * d)
        J = np.array([b / (a * a * d), -1 / (a * d)])
        sk = math.sqrt(J @ cov @ J)
        out.update(C=C, C_err=sC, k=k, k_err=sk, slope=a, intercept=b,
                   chi2_dof=chi2)
    # k fixed: W / (rho_b sqrt(g) (D - k d)^2.5) = C, weighted mean
    base = rho_b * math.sqrt(g) * (D - k_fixed * d) ** 2.5
    c_i, s_i = W / base, sW / base
    wgt = 1 / s_i ** 2
    Cf = float(np.sum(wgt * c_i) / np.sum(wgt))
    dof = max(len(D) - 1, 1)
    chi2f = float(np.sum(wgt * (c_i - Cf) ** 2) / dof)
    sCf = math.sqrt(max(chi2f, 1.0) / np.sum(wgt))
    out.update(k_fixed=k_fixed, C_kfixed=Cf, C_kfixed_err=sCf,
               chi2_dof_kfixed=chi2f)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dem", default=os.path.join(ROOT, "build", "dem"))
    ap.add_argument("--config", default=os.path.join(ROOT, "examples",
                                                     "silo.yaml"))
    ap.add_argument("--diameters", type=float, nargs="+",
                    default=[0.040, 0.044, 0.048, 0.052, 0.056])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default="beverloo_runs")
    ap.add_argument("--window", type=float, nargs=2, default=[0.1, 0.4],
                    metavar=("F0", "F1"))
    ap.add_argument("--k-fixed", type=float, default=1.5)
    # the silo of examples/silo.yaml (its make_mesh command)
    ap.add_argument("--width", type=float, default=0.112)
    ap.add_argument("--depth", type=float, default=0.112)
    ap.add_argument("--height", type=float, default=0.22)
    ap.add_argument("--reuse", action="store_true",
                    help="measure the runs already in --work")
    ap.add_argument("--set", action="append", default=[],
                    help="passed on to every run (dem's --set)")
    ap.add_argument("--json")
    ap.add_argument("-o", "--out")
    a = ap.parse_args()
    if not 0 <= a.window[0] < a.window[1] <= 1:
        sys.exit("beverloo_study.py: --window needs 0 <= F0 < F1 <= 1")
    if len(a.diameters) < 2:
        sys.exit("beverloo_study.py: give at least two --diameters")
    if not a.reuse and not os.access(a.dem, os.X_OK):
        sys.exit("beverloo_study.py: no dem binary at %s (build it, or "
                 "--dem)" % a.dem)
    cfg = load_yaml(a.config)
    try:
        mass, d_mean, t_open = example_numbers(cfg)
    except (KeyError, IndexError, TypeError) as e:
        sys.exit("beverloo_study.py: %s is not shaped like examples/"
                 "silo.yaml (%s)" % (a.config, e))
    width, depth, height = a.width, a.depth, a.height
    os.makedirs(a.work, exist_ok=True)
    g = 9.81
    rows = []
    for D in sorted(a.diameters):
        tag = "D%.1fmm" % (1000 * D)
        stl = os.path.abspath(os.path.join(a.work, "silo_%s.stl" % tag))
        h5 = os.path.join(a.work, "silo_%s.h5" % tag)
        if not a.reuse:
            if D - K_GUESS * d_mean <= 0:
                sys.exit("beverloo_study.py: D = %g m is too small for these "
                         "balls" % D)
            w_est = C_GUESS * 1500 * math.sqrt(g) * (D - K_GUESS * d_mean) ** 2.5
            end = t_open + 0.15 + a.window[1] * mass / w_est
            subprocess.run([sys.executable, os.path.join(HERE, "make_mesh.py"),
                            "silo", stl, "--width", str(width), "--depth",
                            str(depth), "--height", str(height), "--orifice",
                            str(D), "--round", "--binary"], check=True,
                           stdout=subprocess.DEVNULL)
            cmd = [a.dem, "run", a.config, "-q", "--force", "-o", h5,
                   "--threads", str(a.threads),
                   "--set", "domain.meshes.0.file=%s" % stl,
                   "--set", "simulation.end_time=%.3f" % end]
            for s in a.set:
                cmd += ["--set", s]
            t0 = time.time()
            p = subprocess.run(cmd, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                sys.exit("beverloo_study.py: the run at D = %g m failed:\n%s"
                         % (D, p.stderr))
            print("D = %.1f mm: ran to t = %.2f s in %.0f s"
                  % (1000 * D, end, time.time() - t0), flush=True)
        try:
            r = silo_flow.measure(h5, window=tuple(a.window))
        except (ValueError, OSError) as e:
            sys.exit("beverloo_study.py: %s" % e)
        if not math.isfinite(r["W"]):
            sys.exit("beverloo_study.py: D = %g m: no steady window in %s "
                     "(%.0f %% discharged; clogged?)"
                     % (D, h5, 100 * r["discharged_fraction"]))
        print("D = %.1f mm (%.2f d): W = %.4f +- %.4f kg/s, bulk density "
              "%.0f kg/m^3, %.0f %% discharged%s"
              % (1000 * D, D / r["mean_diameter"], r["W"], r["W_err"],
                 r["bulk_density"], 100 * r["discharged_fraction"],
                 "" if r["reached_end_of_window"] else
                 " (window not reached)"), flush=True)
        rows.append((D, r["W"], r["W_err"], r["bulk_density"],
                     r["mean_diameter"]))
    arr = np.array(rows)
    D, W, sW = arr[:, 0], arr[:, 1], arr[:, 2]
    rho_b, d = float(arr[:, 3].mean()), float(arr[:, 4].mean())
    f = fit_beverloo(D, W, sW, rho_b, d, g, a.k_fixed)
    print("bulk density rho_b = %.0f kg/m^3 (mean of the %d runs, spread "
          "%.0f), mean ball diameter d = %.4g m"
          % (rho_b, len(D), arr[:, 3].std(), d))
    if "C" in f:
        print("Beverloo fit (C and k free): C = %.3f +- %.3f, k = %.2f +- "
              "%.2f (reduced chi-square %.2g)"
              % (f["C"], f["C_err"], f["k"], f["k_err"], f["chi2_dof"]))
    print("Beverloo fit (k fixed at %g): C = %.3f +- %.3f (reduced "
          "chi-square %.2g)" % (a.k_fixed, f["C_kfixed"], f["C_kfixed_err"],
                                f["chi2_dof_kfixed"]))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"runs": [dict(zip(["D", "W", "W_err", "bulk_density",
                                          "d"], map(float, r)))
                                for r in rows],
                       "rho_b": rho_b, "d": d, "window": a.window, **f},
                      fh, indent=1)
    if a.out:
        plt = demfile.pyplot()
        fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4))
        mm = 1000 * D
        ax.errorbar(mm, W ** 0.4, yerr=0.4 * W ** -0.6 * sW, fmt="o",
                    label="runs")
        if "C" in f:
            x0 = f["k"] * d
            xs = np.array([min(x0, D.min()), D.max() * 1.03])
            ax.plot(1000 * xs, f["slope"] * xs + f["intercept"], "r-",
                    label="C = %.2f $\\pm$ %.2f, k = %.2f $\\pm$ %.2f"
                    % (f["C"], f["C_err"], f["k"], f["k_err"]))
        ax.set_xlim(0, None)
        ax.set_ylim(0, None)
        ax.set_xlabel("orifice diameter D (mm)")
        ax.set_ylabel("W$^{2/5}$ (kg/s)$^{2/5}$")
        ax.legend(fontsize=8, loc="upper left")
        bx.errorbar(mm, W, yerr=sW, fmt="o", label="runs")
        xs = np.linspace(D.min() * 0.95, D.max() * 1.03, 100)
        if "C" in f:
            bx.plot(1000 * xs, f["C"] * rho_b * math.sqrt(g)
                    * np.clip(xs - f["k"] * d, 0, None) ** 2.5, "r-",
                    label="free fit")
        bx.plot(1000 * xs, f["C_kfixed"] * rho_b * math.sqrt(g)
                * (xs - a.k_fixed * d) ** 2.5, "k--",
                label="k = %g: C = %.2f $\\pm$ %.2f"
                % (a.k_fixed, f["C_kfixed"], f["C_kfixed_err"]))
        bx.set_xlabel("orifice diameter D (mm)")
        bx.set_ylabel("mass flow rate W (kg/s)")
        bx.legend(fontsize=8, loc="upper left")
        demfile.save_figure(fig, a.out, "beverloo_study.py", dpi=80)


if __name__ == "__main__":
    main()
