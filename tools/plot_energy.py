#!/usr/bin/python3
"""Plot the total energy (or its relative deviation) of dem runs against time.

usage: plot_energy.py OUT.h5 [MORE.h5 ...] -o energy.png [--relative] [--log]
                      [--label file|scheme] [--title TEXT]

Reads /energy/time and /energy/total of each file; one line per run, the
legend names the file (or its root attribute `scheme` with --label scheme).
--relative plots (E - E0)/|E0|; --log plots |E - E0|/|E0| on a log axis.
Files still being written can be plotted (HDF5 file locking is off).
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

# Fill values of the /energy columns (src/io/h5_util.h): rows of a run
# killed in the middle of a flush may read as these; they are dropped.
STEP_FILL = np.iinfo(np.int64).min
DOUBLE_FILL_BITS = np.uint64(0x7FF80DE0DE0DE0DE)


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def read_energy(path):
    """(time, total, scheme) of a dem output file; ValueError if unusable."""
    with open_dem_file(path) as f:
        if "energy" not in f:
            raise ValueError(f"{path}: not a dem output file (no /energy)")
        g = f["energy"]
        n = min(g[k].shape[0] for k in ("step", "time", "total"))
        step = g["step"][:n]
        time = g["time"][:n]
        total = g["total"][:n]
        scheme = _text(f.attrs.get("scheme", ""))
    fill = (step == STEP_FILL) | (time.view(np.uint64) == DOUBLE_FILL_BITS) | (
        total.view(np.uint64) == DOUBLE_FILL_BITS)
    written = np.nonzero(~fill)[0]
    n = int(written[-1]) + 1 if len(written) else 0
    if n == 0:
        raise ValueError(f"{path}: no energy rows")
    return time[:n], total[:n], scheme


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Plot total energy (or its relative deviation) against time for dem runs.")
    p.add_argument("files", nargs="+", metavar="OUT.h5")
    p.add_argument("-o", "--output", required=True, metavar="energy.png")
    p.add_argument("--relative", action="store_true",
                   help="plot (E - E0)/|E0| instead of E")
    p.add_argument("--log", action="store_true",
                   help="plot |E - E0|/|E0| on a logarithmic axis")
    p.add_argument("--label", choices=("file", "scheme"), default="file",
                   help="legend entries: file name (default) or the run's scheme")
    p.add_argument("--title", default=None)
    args = p.parse_args(argv)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    status = 0
    plotted = 0
    for path in args.files:
        try:
            t, e, scheme = read_energy(path)
        except ValueError as err:
            print(f"plot_energy.py: {err}", file=sys.stderr)
            status = 1
            continue
        label = scheme if args.label == "scheme" and scheme else path
        e0 = e[0]
        if args.log or args.relative:
            if e0 == 0.0:
                print(f"plot_energy.py: {path}: E0 is 0, no relative deviation",
                      file=sys.stderr)
                status = 1
                continue
            y = (e - e0) / abs(e0)
            if args.log:
                y = np.abs(y)
                y[y == 0.0] = np.nan  # log axis: skip exact zeros
        else:
            y = e
        ax.plot(t, y, lw=1.0, label=label)
        plotted += 1
    if plotted == 0:
        return 1
    ax.set_xlabel("time")
    if args.log:
        ax.set_yscale("log")
        ax.set_ylabel("|E - E0| / |E0|")
    elif args.relative:
        ax.set_ylabel("(E - E0) / |E0|")
    else:
        ax.set_ylabel("total energy")
    if args.title:
        ax.set_title(args.title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(args.output, dpi=150)
    return status


if __name__ == "__main__":
    sys.exit(main())
