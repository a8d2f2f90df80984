#!/usr/bin/python3
"""The Fig. 7 study of the SPIRAL paper, one command: chess pieces in a box.

For each rotation scheme (spiral_leapfrog, omelyan, fincham), each time step
and each random start (simulation.seed), run examples/box_chess.yaml with
`dem run` and measure the relative energy error in percent,

    err(t) = 100 |E(t) - E0| / E0,   E0 = E(t = 0),

from the run's energy series (/energy/total, one row every
output.energy_interval). Then average over the random starts and print a table,
write a CSV and draw a log-log PNG (one line per scheme, the Rayleigh time step
as a dashed vertical line, the paper's 0.0068 % as a dotted horizontal line,
the paper's own means as hollow markers).

Which number is "the relative energy error" of a run (--metric):
  end    err at the end of the run (default). Fig. 7's caption: "the relative
         deviation of the total energy from its initial value ... for a
         simulation time of 1.5 s".
  mean   the mean of err over the run's energy rows.
  max    the largest err over the run.
  paper  min(mean, end): what the paper's batch script computed
         (YADE/Chess_In_Box_Batch.py, Energy_Error(), in the repository
         cdelv/AlgorithmsForRotationalMotion; 250 samples per run there, every
         energy row here).
All four are written to the per-run CSV; the table, the summary CSV's main
columns and the plot use the one chosen.

Default (a few minutes on 2 cores): 3 seeds, 0.1 s, 5 time steps from 4.96e-7
to 1.93e-5 s. --full: the paper's size, 50 seeds, 1.5 s, its 10 time steps from
1.1e-7 to 1.93e-5 s (about 1.4e8 steps per scheme: days on 2 cores, see
docs/chess.md). Runs go in parallel processes (--jobs, default: the number of
cores), each `dem run --threads 1`. Finished runs are appended to
OUT/runs.csv as they end; --resume skips those already there, so a long study
can be stopped and continued.

Where the error comes from (--diagnose): one run per scheme at one time step
and seed, with an energy row every step, split into the energy change over
steps without any contact (both ends of the step have zero elastic energy:
translation is then exact, so this is the rotation integrator's error in free
flight) and over steps with contacts; prints the split and the rotational share
of the kinetic energy, and plots err(t) (OUT/chess_energy_time.png).
--decompose FILE.h5 ... does the split for existing runs (energy every step).

Examples:
  tools/chess_study.py                                  # short default
  tools/chess_study.py --seeds 5 --end-time 0.5         # medium
  tools/chess_study.py --full --resume --out build/chess_full
  tools/chess_study.py --plot-only --out build/chess_study   # redraw from runs.csv
  tools/chess_study.py --diagnose --end-time 1.5 --dts 4.85088067e-6 --seed 1
"""

import argparse
import concurrent.futures as cf
import csv
import math
import os
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCHEMES = ["spiral_leapfrog", "omelyan", "fincham"]
LABELS = {"spiral_leapfrog": "SPIRAL (leapfrog)", "omelyan": "Omelyan",
          "fincham": "Fincham"}
COLORS = {"spiral_leapfrog": "tab:red", "omelyan": "tab:blue",
          "fincham": "tab:green"}
MARKERS = {"spiral_leapfrog": "o", "omelyan": "s", "fincham": "^"}

# The paper's ten time steps (Chess_Batch_Params*.txt of the repository).
PAPER_DTS = [1.1e-07, 1.93117038e-07, 3.06069879e-07, 4.96369887e-07,
             8.96369887e-07, 1.21848613e-06, 2.89675556e-06, 4.85088067e-06,
             8.85088067e-06, 1.93117038e-05]
DEFAULT_DTS = [4.96369887e-07, 1.21848613e-06, 2.89675556e-06, 4.85088067e-06,
               1.93117038e-05]

# The paper's Fig. 7 data: mean (and standard deviation) over 50 starts of
# min(mean, end) of 100 |E - E0| / E0 in 1.5 s, YADE; Data/Energy.csv of
# cdelv/AlgorithmsForRotationalMotion (commit 8b888cd). dt -> (mean, std).
PAPER = {
    "fincham": {
        1.1e-07: (0.002512521505359314, 0.0008148070317854276),
        1.93117038e-07: (0.004405975698716138, 0.0013230722745263622),
        3.06069879e-07: (0.006808167251839602, 0.001727660016680984),
        4.96369887e-07: (0.011352727429255359, 0.0036582270587830136),
        8.96369887e-07: (0.020038178121824828, 0.007439540973641702),
        1.21848613e-06: (0.025517418194023925, 0.008493681071976402),
        2.89675556e-06: (0.06213274944908153, 0.019774898449288494),
        4.85088067e-06: (0.1204624372568682, 0.033767009360470654),
        8.85088067e-06: (0.2091022691141973, 0.0781268376189684),
        1.93117038e-05: (0.5977966476836756, 0.2765295979244666)},
    "omelyan": {
        1.1e-07: (7.2361556744338115e-06, 6.436217561289856e-06),
        1.93117038e-07: (5.94854525606779e-06, 6.2765702633425854e-06),
        3.06069879e-07: (9.610968668897684e-06, 7.119916999861586e-06),
        4.96369887e-07: (3.833364868226294e-05, 3.042148203498464e-05),
        8.96369887e-07: (0.00015084843966336388, 0.00011117191506370767),
        1.21848613e-06: (0.00026177729489882377, 0.00015364880938795297),
        2.89675556e-06: (0.001805947016553144, 0.001152541225346632),
        4.85088067e-06: (0.0067853532323766345, 0.003617540518858048),
        8.85088067e-06: (0.02651592670275108, 0.020310058135108444),
        1.93117038e-05: (0.17415983396585272, 0.12075038215350764)},
    "spiral_leapfrog": {
        1.1e-07: (2.0644273815417756e-06, 1.9846821387472203e-06),
        1.93117038e-07: (3.708664746946305e-06, 3.220735407997049e-06),
        3.06069879e-07: (8.754717128896152e-06, 8.803385058590084e-06),
        4.96369887e-07: (2.892393071157527e-05, 2.3047725353534762e-05),
        8.96369887e-07: (0.0001268568067505051, 0.00011254795859658555),
        1.21848613e-06: (0.0002830008810701833, 0.00020937912676302056),
        2.89675556e-06: (0.001879952022789354, 0.0011898441598958635),
        4.85088067e-06: (0.0054073304745993625, 0.004259127209481048),
        8.85088067e-06: (0.027542657742037943, 0.018270845735313224),
        1.93117038e-05: (0.21783179310911852, 0.15044706926693763)},
}
PAPER_LEVEL = 0.0068   # % : the dotted line of Fig. 7 (Omelyan/SPIRAL at 4.85e-6 s)

METRICS = ["end", "mean", "max", "paper"]
RUN_FIELDS = ["scheme", "dt", "seed", "end_time", "steps", "e0", "e_end",
              "end", "mean", "max", "paper", "drift", "wall_s"]


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("Examples:")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:" + __doc__.split("Examples:")[1])
    p.add_argument("--full", action="store_true",
                   help="the paper's size: 50 seeds, 1.5 s, its 10 time steps")
    p.add_argument("--seeds", type=int, help="random starts (default 3; "
                   "--full: 50); seeds are 1..N")
    p.add_argument("--end-time", type=float,
                   help="simulated time in s (default 0.1; --full: 1.5)")
    p.add_argument("--dts", type=str,
                   help="comma-separated time steps in s (default: 5 of the "
                        "paper's from 4.96e-7 to 1.93e-5; --full: all 10, "
                        "1.1e-7 .. 1.93e-5)")
    p.add_argument("--schemes", type=str, default=",".join(SCHEMES),
                   help="comma-separated named schemes (default %(default)s)")
    p.add_argument("--metric", choices=METRICS, default="end",
                   help="the per-run error that is averaged (default "
                        "%(default)s; see the top of this file)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="parallel dem processes, each --threads 1 "
                        "(default %(default)s)")
    p.add_argument("--energy-interval", type=float, default=1e-4,
                   help="s between energy rows (default %(default)s)")
    p.add_argument("--config", default=os.path.join(ROOT, "examples",
                                                    "box_chess.yaml"))
    p.add_argument("--dem", default=os.path.join(ROOT, "build", "dem"))
    p.add_argument("--out", default=os.path.join(ROOT, "build",
                                                 "chess_study"),
                   help="directory for runs.csv, the .h5 files while they "
                        "run, and (unless given) the CSV and PNG "
                        "(default %(default)s)")
    p.add_argument("--csv", help="summary CSV (default OUT/chess_fig7.csv)")
    p.add_argument("--png", help="plot (default OUT/chess_fig7.png)")
    p.add_argument("--resume", action="store_true",
                   help="skip runs already in OUT/runs.csv")
    p.add_argument("--keep", action="store_true",
                   help="keep each run's .h5 file (default: deleted once "
                        "measured)")
    p.add_argument("--plot-only", action="store_true",
                   help="run nothing: table, CSV and PNG from OUT/runs.csv")
    p.add_argument("--no-paper", action="store_true",
                   help="leave the paper's markers out of the plot")
    p.add_argument("--diagnose", action="store_true",
                   help="one run per scheme (first of --dts, default "
                        "4.85088067e-6 s; --seed; --end-time, default 1.5 s) "
                        "with energy every step: free-flight vs contact "
                        "split and OUT/chess_energy_time.png")
    p.add_argument("--seed", type=int, default=1,
                   help="the seed of --diagnose (default %(default)s)")
    p.add_argument("--decompose", nargs="+", metavar="H5",
                   help="the free-flight vs contact split of these runs "
                        "(energy rows every step)")
    a = p.parse_args(argv)
    if a.diagnose:
        a.end_time = a.end_time or 1.5
        a.dts = a.dts or "4.85088067e-6"
    if a.full:
        a.seeds = a.seeds or 50
        a.end_time = a.end_time or 1.5
        a.dts = a.dts or ",".join(repr(x) for x in PAPER_DTS)
    a.seeds = a.seeds or 3
    a.end_time = a.end_time or 0.1
    a.dts = ([float(x) for x in a.dts.split(",")] if a.dts
             else list(DEFAULT_DTS))
    a.schemes = [s.strip() for s in a.schemes.split(",") if s.strip()]
    a.csv = a.csv or os.path.join(a.out, "chess_fig7.csv")
    a.png = a.png or os.path.join(a.out, "chess_fig7.png")
    return a


def rayleigh_step(a):
    """The setup report of `dem check` ends with the Rayleigh time step."""
    r = subprocess.run([a.dem, "check", a.config], capture_output=True,
                       text=True)
    if r.returncode != 0:
        sys.exit("chess_study: `dem check %s` failed:\n%s" % (a.config,
                                                              r.stderr))
    m = re.search(r"Rayleigh time step ([0-9.eE+-]+) s", r.stderr)
    if not m:
        sys.exit("chess_study: no Rayleigh time step in `dem check`'s "
                 "report:\n" + r.stderr)
    return float(m.group(1)), r.stderr


def measure(path):
    """The energy errors (percent) of one run's output file."""
    import numpy as np
    import demfile
    with demfile.open_run(path) as run:
        energy = run.energy()
    e, t = energy["total"], energy["time"]
    steps = int(energy["step"][-1])
    e0 = e[0]
    err = 100.0 * np.abs(e - e0) / abs(e0)
    end, mean = float(err[-1]), float(err[1:].mean())
    return {"steps": steps, "e0": e0, "e_end": float(e[-1]),
            "end": end, "mean": mean, "max": float(err.max()),
            "paper": min(mean, end),
            "drift": 100.0 * (e[-1] - e0) / abs(e0), "t_end": float(t[-1])}


def key(scheme, dt, seed, end_time):
    return (scheme, "%.9g" % dt, int(seed), "%.9g" % end_time)


def read_runs(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def run_all(a, todo):
    os.makedirs(a.out, exist_ok=True)
    runs_csv = os.path.join(a.out, "runs.csv")
    new = not os.path.exists(runs_csv)
    lock = threading.Lock()
    out = open(runs_csv, "a", newline="")
    w = csv.DictWriter(out, fieldnames=RUN_FIELDS)
    if new:
        w.writeheader()
        out.flush()
    done = [0]
    t_start = time.time()

    def one(job):
        scheme, dt, seed = job
        h5 = os.path.join(a.out, "%s_dt%.6g_seed%d.h5" % (scheme, dt, seed))
        cmd = [a.dem, "run", a.config, "-o", h5, "--force", "--quiet",
               "--threads", "1",
               "--set", "scheme=" + scheme,
               "--set", "simulation.time_step=%r" % dt,
               "--set", "simulation.seed=%d" % seed,
               "--set", "simulation.end_time=%r" % a.end_time,
               "--set", "output.energy_interval=%r" % a.energy_interval,
               "--set", "output.snapshot_interval=%r" % a.end_time]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.time() - t0
        if r.returncode != 0:
            with lock:
                print("chess_study: FAILED (%d): %s\n%s" % (
                    r.returncode, " ".join(cmd), r.stderr), file=sys.stderr)
            return None
        m = measure(h5)
        if not a.keep:
            os.remove(h5)
            xmf = os.path.splitext(h5)[0] + ".xmf"
            if os.path.exists(xmf):
                os.remove(xmf)
        row = {"scheme": scheme, "dt": "%.9g" % dt, "seed": seed,
               "end_time": "%.9g" % a.end_time, "steps": m["steps"],
               "e0": "%.17g" % m["e0"], "e_end": "%.17g" % m["e_end"],
               "wall_s": "%.2f" % wall}
        for k in ("end", "mean", "max", "paper", "drift"):
            row[k] = "%.6e" % m[k]
        with lock:
            w.writerow(row)
            out.flush()
            done[0] += 1
            print("  [%3d/%d] %-16s dt %.4g  seed %-3d  %8d steps  "
                  "%7.1f s  err(end) %.3e %%  mean %.3e %%  max %.3e %%" % (
                      done[0], len(todo), scheme, dt, seed, m["steps"],
                      wall, m["end"], m["mean"], m["max"]),
                  file=sys.stderr, flush=True)
        return row

    # Longest first (smallest dt; omelyan iterates), so the pool ends together.
    todo = sorted(todo, key=lambda j: (j[1], j[0] != "omelyan", j[2]))
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        results = list(ex.map(one, todo))
    out.close()
    failed = sum(r is None for r in results)
    print("chess_study: %d runs in %.0f s wall on %d processes%s" % (
        len(todo), time.time() - t_start, a.jobs,
        ", %d FAILED" % failed if failed else ""), file=sys.stderr)
    return failed


def summarise(a, rows, dt_r):
    """{(scheme, dt): {metric: (mean, std, n)}, 'wall': mean s}."""
    import numpy as np
    want_dts = {"%.9g" % d for d in a.dts}
    want_seeds = set(range(1, a.seeds + 1))
    groups = {}
    for r in rows:
        if (r["scheme"] not in a.schemes or r["dt"] not in want_dts
                or int(r["seed"]) not in want_seeds
                or r["end_time"] != "%.9g" % a.end_time):
            continue
        groups.setdefault((r["scheme"], float(r["dt"])), {})[
            int(r["seed"])] = r   # a rerun seed replaces the older row
    out = {}
    for k, by_seed in groups.items():
        g = list(by_seed.values())
        s = {}
        for m in METRICS + ["drift"]:
            v = np.array([float(r[m]) for r in g])
            s[m] = (float(v.mean()), float(v.std(ddof=1)) if len(v) > 1
                    else 0.0, len(v))
        s["wall"] = float(np.mean([float(r["wall_s"]) for r in g]))
        s["steps"] = int(g[0]["steps"])
        out[k] = s
    return out


def closest_paper(scheme, dt):
    tab = PAPER.get(scheme, {})
    for d, v in tab.items():
        if abs(d - dt) <= 0.01 * dt:
            return v
    return None


def print_table(a, summ, dt_r):
    m = a.metric
    dts = sorted({dt for (_, dt) in summ})
    print()
    print("Chess pieces in a box: %s relative energy error 100|E-E0|/E0 in %%,"
          " mean over seeds" % ({"end": "end-of-run", "mean": "run-mean",
                                  "max": "run-max",
                                  "paper": "min(run-mean, end) (paper's)"}[m]))
    print("(%.3g s simulated; Rayleigh time step %.6g s; paper: YADE, 1.5 s, "
          "50 seeds, min(mean, end))" % (a.end_time, dt_r))
    hdr = "%-11s %-7s" % ("dt [s]", "dt/dtR")
    for s in a.schemes:
        hdr += " %-24s" % (LABELS.get(s, s) + " (n)")
    if "fincham" in a.schemes:
        for s in a.schemes:
            if s != "fincham":
                hdr += " %-9s" % ("F/" + {"spiral_leapfrog": "S",
                                          "omelyan": "O"}.get(s, s[:3]))
    print(hdr)
    for dt in dts:
        line = "%-11.4g %-7.3g" % (dt, dt / dt_r)
        for s in a.schemes:
            v = summ.get((s, dt))
            if v:
                mu, sd, n = v[m]
                line += " %-24s" % ("%.3e ± %.1e (%d)" % (mu, sd, n))
            else:
                line += " %-24s" % "-"
        if "fincham" in a.schemes:
            f = summ.get(("fincham", dt))
            for s in a.schemes:
                if s == "fincham":
                    continue
                v = summ.get((s, dt))
                if f and v and v[m][0] > 0:
                    line += " %-9s" % ("%.3g" % (f[m][0] / v[m][0]))
                else:
                    line += " %-9s" % "-"
        print(line)
    if a.end_time < 1.5:
        print("Note: %g s is shorter than the paper's 1.5 s. Fincham's error is "
              "made in free flight and grows faster than linearly in time\n"
              "(the pieces spin up from 0.2 %% to ~40 %% rotational energy in "
              "the first 0.4 s), SPIRAL's and Omelyan's come from contacts;\n"
              "so the Fincham/SPIRAL ratios here are smaller than at 1.5 s "
              "(docs/chess.md, --diagnose)." % a.end_time)
    print()
    print("The paper's Fig. 7 at the same time steps (mean of 50 starts, %):")
    print("%-11s" % "dt [s]" + "".join(" %-17s" % LABELS.get(s, s)
                                       for s in a.schemes))
    for dt in dts:
        vals = [closest_paper(s, dt) for s in a.schemes]
        if any(vals):
            print("%-11.4g" % dt + "".join(
                " %-17s" % ("%.3e" % v[0] if v else "-") for v in vals))
    print()
    print("Mean wall time per run (s, one thread each):")
    for dt in dts:
        print("%-11.4g" % dt + "".join(
            " %-17s" % ("%.1f (%d steps)" % (summ[(s, dt)]["wall"],
                                             summ[(s, dt)]["steps"])
                        if (s, dt) in summ else "-") for s in a.schemes))


def write_csv(a, summ, dt_r):
    os.makedirs(os.path.dirname(os.path.abspath(a.csv)), exist_ok=True)
    with open(a.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scheme", "dt", "dt_over_rayleigh", "end_time", "seeds",
                    "metric", "err_percent", "err_std"] +
                   ["%s_mean" % m for m in METRICS] +
                   ["%s_std" % m for m in METRICS] +
                   ["drift_mean", "wall_s_mean", "steps",
                    "paper_fig7_mean", "paper_fig7_std"])
        for (s, dt) in sorted(summ, key=lambda k: (k[0], k[1])):
            v = summ[(s, dt)]
            p = closest_paper(s, dt)
            w.writerow([s, "%.9g" % dt, "%.4g" % (dt / dt_r),
                        "%.9g" % a.end_time, v[a.metric][2], a.metric,
                        "%.6e" % v[a.metric][0], "%.3e" % v[a.metric][1]] +
                       ["%.6e" % v[m][0] for m in METRICS] +
                       ["%.3e" % v[m][1] for m in METRICS] +
                       ["%.6e" % v["drift"][0], "%.2f" % v["wall"],
                        v["steps"],
                        "%.6e" % p[0] if p else "", "%.3e" % p[1] if p
                        else ""])


def plot(a, summ, dt_r):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    m = a.metric
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=150)
    for s in a.schemes:
        pts = sorted((dt, v[m][0], v[m][1]) for (sc, dt), v in summ.items()
                     if sc == s and v[m][0] > 0)
        if not pts:
            continue
        x = [p[0] for p in pts]
        y = [p[1] for p in pts]
        n = summ[(s, x[0])][m][2]
        ax.plot(x, y, "-", marker=MARKERS.get(s, "o"),
                color=COLORS.get(s), label="%s (dem, %d starts)" % (
                    LABELS.get(s, s), n))
        if not a.no_paper and s in PAPER:
            px = sorted(PAPER[s])
            ax.plot(px, [PAPER[s][d][0] for d in px], linestyle="none",
                    marker=MARKERS.get(s, "o"), mfc="none",
                    color=COLORS.get(s), alpha=0.6,
                    label="%s (paper, YADE, min(mean, end))" %
                    LABELS.get(s, s))
    ax.axvline(dt_r, color="k", linestyle="--", linewidth=1,
               label="Rayleigh time step %.3g s" % dt_r)
    ax.axhline(PAPER_LEVEL, color="k", linestyle=":", linewidth=1,
               label="paper: %.4g %% at 4.85e-6 s" % PAPER_LEVEL)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("time step $\\Delta t$ [s]")
    what = {"end": "at the end", "mean": "mean over the run",
            "max": "max over the run", "paper": "min(mean, end)"}[m]
    ax.set_ylabel("100 |E - E$_0$| / E$_0$ [%%] (%s)" % what)
    ax.set_title("Chess pieces in a box: %g s, energy error vs time step"
                 % a.end_time, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(a.png)), exist_ok=True)
    fig.savefig(a.png)
    plt.close(fig)


def decompose(path):
    """Energy change over free-flight steps and over contact steps."""
    import numpy as np
    import demfile
    with demfile.open_run(path) as run:
        energy = run.energy()
        scheme = run.scheme or "?"
        dt = float(run.time_step if run.time_step is not None else float("nan"))
    e, el, t, st = energy["total"], energy["elastic"], energy["time"], energy["step"]
    kt, kr = energy["kinetic_translational"], energy["kinetic_rotational"]
    every = bool(np.all(np.diff(st) == 1))
    de = np.diff(e)
    free = (el[:-1] == 0) & (el[1:] == 0)
    e0 = e[0]
    return {"path": path, "scheme": str(scheme), "dt": dt,
            "every_step": every, "t": t, "err": 100 * (e - e0) / abs(e0),
            "rot_share": kr / (kt + kr), "free_share": float(free.mean()),
            "free": 100 * float(de[free].sum()) / abs(e0),
            "contact": 100 * float(de[~free].sum()) / abs(e0),
            "end": 100 * float(e[-1] - e0) / abs(e0)}


def report_decompose(a, paths):
    res = [decompose(p) for p in paths]
    print("\nEnergy change split by steps without / with contacts "
          "(signed, % of E0):")
    print("%-16s %-10s %-8s %-11s %-11s %-11s %-12s %s" % (
        "scheme", "dt [s]", "t_end", "end", "free flight", "contacts",
        "free steps", "rot. share of KE: start -> end"))
    for r in res:
        print("%-16s %-10.4g %-8.4g %-11.3e %-11.3e %-11.3e %-12.3f "
              "%.4f -> %.3f%s" % (
                  r["scheme"], r["dt"], r["t"][-1], r["end"], r["free"],
                  r["contact"], r["free_share"], r["rot_share"][0],
                  r["rot_share"][-1],
                  "" if r["every_step"] else
                  "  (energy rows not every step: split approximate)"))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(2, 1, figsize=(6.4, 6.0), dpi=150,
                                 sharex=True,
                                 gridspec_kw={"height_ratios": [3, 1.3]})
    for r in res:
        k = max(1, len(r["t"]) // 5000)     # thin the curve for the PNG
        ax.plot(r["t"][::k], r["err"][::k], lw=0.8,
                color=COLORS.get(r["scheme"]),
                label="%s (end %.2g %%, free flight %.2g %%, contacts "
                      "%.2g %%)" % (LABELS.get(r["scheme"], r["scheme"]),
                                    r["end"], r["free"], r["contact"]))
        bx.plot(r["t"][::k], r["rot_share"][::k], lw=0.8,
                color=COLORS.get(r["scheme"]))
    ax.axhline(0, color="k", lw=0.5)
    ax.set_ylabel("100 (E - E$_0$) / E$_0$ [%]")
    ax.set_title("Chess pieces in a box, dt = %.4g s: energy error vs time"
                 % res[0]["dt"], fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(True, alpha=0.3)
    bx.set_ylabel("E$_{rot}$ / E$_{kin}$")
    bx.set_xlabel("time [s]")
    bx.grid(True, alpha=0.3)
    fig.tight_layout()
    png = a.png if a.png != os.path.join(a.out, "chess_fig7.png") else \
        os.path.join(a.out, "chess_energy_time.png")
    os.makedirs(os.path.dirname(os.path.abspath(png)), exist_ok=True)
    fig.savefig(png)
    plt.close(fig)
    print("\nwrote %s" % png)


def diagnose(a):
    dt = a.dts[0]
    os.makedirs(a.out, exist_ok=True)
    paths = []
    procs = []
    for s in a.schemes:
        h5 = os.path.join(a.out, "diag_%s_dt%.6g_seed%d.h5" % (s, dt, a.seed))
        cmd = [a.dem, "run", a.config, "-o", h5, "--force", "--quiet",
               "--threads", "1", "--set", "scheme=" + s,
               "--set", "simulation.time_step=%r" % dt,
               "--set", "simulation.seed=%d" % a.seed,
               "--set", "simulation.end_time=%r" % a.end_time,
               "--set", "output.energy_interval=%r" % dt,
               "--set", "output.snapshot_interval=%r" % a.end_time]
        paths.append(h5)
        procs.append(cmd)
    print("diagnose: %d runs of %g s at dt %.6g s, seed %d, energy every "
          "step, %d parallel processes" % (len(procs), a.end_time, dt,
                                           a.seed, a.jobs), flush=True)
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        rcs = list(ex.map(lambda c: subprocess.run(c).returncode, procs))
    if any(rcs):
        sys.exit("chess_study: a diagnose run failed")
    report_decompose(a, paths)


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    if not os.path.exists(a.dem):
        sys.exit("chess_study: no dem binary at %s (build it: cmake -S . -B "
                 "build && cmake --build build -j2, or pass --dem)" % a.dem)
    if a.decompose:
        report_decompose(a, a.decompose)
        return
    dt_r, _ = rayleigh_step(a)
    print("Rayleigh time step (dem, smallest sphere of the set): %.6g s" %
          dt_r)
    if a.diagnose:
        diagnose(a)
        return
    runs_csv = os.path.join(a.out, "runs.csv")
    if not a.plot_only:
        have = set()
        if a.resume:
            have = {key(r["scheme"], float(r["dt"]), r["seed"],
                        float(r["end_time"])) for r in read_runs(runs_csv)}
        todo = [(s, dt, seed) for s in a.schemes for dt in a.dts
                for seed in range(1, a.seeds + 1)
                if key(s, dt, seed, a.end_time) not in have]
        steps = sum(int(math.ceil(a.end_time / dt - 1e-9))
                    for (_, dt, _) in todo)
        print("%d runs (%d schemes x %d time steps x %d seeds, %g s each; "
              "%d already done), %.3g steps in all, %d parallel processes" % (
                  len(todo), len(a.schemes), len(a.dts), a.seeds, a.end_time,
                  len(a.schemes) * len(a.dts) * a.seeds - len(todo), steps,
                  a.jobs), flush=True)
        if todo and run_all(a, todo):
            print("chess_study: some runs failed; the summary leaves them "
                  "out", file=sys.stderr)
    summ = summarise(a, read_runs(runs_csv), dt_r)
    if not summ:
        sys.exit("chess_study: no finished runs in %s match these settings"
                 % runs_csv)
    print_table(a, summ, dt_r)
    write_csv(a, summ, dt_r)
    plot(a, summ, dt_r)
    print("\nwrote %s and %s (per-run rows: %s)" % (a.csv, a.png, runs_csv))


if __name__ == "__main__":
    main()
