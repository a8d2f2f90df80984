#!/usr/bin/python3
"""Plot the total energy (or its relative deviation) of dem runs against time.

usage: plot_energy.py OUT.h5 [MORE.h5 ...] -o energy.png [--relative] [--log]
                      [--label both|file|scheme] [--title TEXT]

Reads the energy series of each file (tools/demfile.py); one line per run,
and for a run whose contacts dissipate energy (hertz_mindlin) a second,
dashed line for the energy balance E + W (W the work dissipated since the
start, less the work of moving walls and the energy inserted bodies brought
in), which stays at E0 but for the time step's error.
The legend names the file, the scheme and the time step (--label both, the
default), the file only, or the scheme and time step only (--label scheme);
runs that would share a label get their path added, so each line can be
told apart. Time is in s, energy in J; --relative plots (E - E0)/|E0|,
--log plots |E - E0|/|E0| on a log axis. Files still being written can be
plotted.
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


def read_energy(path):
    """(time, total, W or None, scheme, time_step) of a dem output
    file; ValueError if unusable."""
    with demfile.open_run(path) as run:
        e = run.energy()
        scheme, dt = run.scheme or "", run.time_step
    if len(e.get("total", [])) == 0:
        raise ValueError(f"{path}: no energy rows")
    w = demfile.energy_exchanged(e)
    if not np.any(w != 0):
        w = None  # a conservative run: nothing to balance
    return e["time"], e["total"], w, scheme, dt


def labels(runs, how):
    """One legend label per run (path, scheme, time step): see --label."""
    def scheme_dt(scheme, dt):
        return f"{scheme or '?'}, dt = {dt:.3g} s" if dt is not None else (scheme or "?")
    if how == "file":
        out = [os.path.basename(p) for p, _, _ in runs]
    elif how == "scheme":
        out = [scheme_dt(s, dt) for _, s, dt in runs]
    else:
        out = [f"{os.path.basename(p)}: {scheme_dt(s, dt)}" for p, s, dt in runs]
    # Labels still shared (same scheme and time step, or one file name in
    # two directories) get the path, so that every line can be told apart.
    return [f"{lab} [{p}]" if out.count(lab) > 1 else lab
            for lab, (p, _, _) in zip(out, runs)]


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Plot total energy (or its relative deviation) against time for dem runs.")
    p.add_argument("files", nargs="+", metavar="OUT.h5")
    p.add_argument("-o", "--output", required=True, metavar="energy.png")
    p.add_argument("--relative", action="store_true",
                   help="plot (E - E0)/|E0| instead of E")
    p.add_argument("--log", action="store_true",
                   help="plot |E - E0|/|E0| on a logarithmic axis")
    p.add_argument("--label", choices=("both", "file", "scheme"), default="both",
                   help="legend entries: file name, scheme and time step (both, the "
                   "default), file name only, or scheme and time step only")
    p.add_argument("--title", default=None)
    args = p.parse_args(argv)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    status = 0
    series, runs = [], []
    for path in args.files:
        try:
            t, e, w, scheme, dt = read_energy(path)
        except ValueError as err:
            print(f"plot_energy.py: {err}", file=sys.stderr)
            status = 1
            continue
        e0 = e[0]
        if (args.log or args.relative) and e0 == 0.0:
            print(f"plot_energy.py: {path}: E0 is 0, no relative deviation",
                  file=sys.stderr)
            status = 1
            continue
        def shown(values):
            if not (args.log or args.relative):
                return values
            y = (values - values[0]) / abs(e0)
            if args.log:
                y = np.abs(y)
                y[y == 0.0] = np.nan  # log axis: skip exact zeros
            return y
        series.append((t, shown(e), None if w is None else shown(e + w)))
        runs.append((path, scheme, dt))
    if not series:
        return 1
    for (t, y, balance), label in zip(series, labels(runs, args.label)):
        line, = ax.plot(t, y, lw=1.0, label=label)
        if balance is not None:
            ax.plot(t, balance, lw=1.0, ls="--", color=line.get_color(),
                    label=label + ": E + W (balance)")
    ax.set_xlabel("time t (s)")
    if args.log:
        ax.set_yscale("log")
        ax.set_ylabel("|E - E0| / |E0| (dimensionless)")
    elif args.relative:
        ax.set_ylabel("(E - E0) / |E0| (dimensionless)")
    else:
        ax.set_ylabel("total energy E (J)")
    if args.title:
        ax.set_title(args.title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(args.output, dpi=150)
    return status


if __name__ == "__main__":
    sys.exit(main())
