"""The files left by runs killed at their writes (tests/cli_kill_writes.sh).

    kill_check.py FULL.h5 FOLDER N STRIDE PAGES[,PAGES...]

FOLDER holds kK_P.h5 for K = 1, 1 + STRIDE, ... <= N (the run killed at its
K-th write, torn after P pages); a K without a file is a run killed before
its file had its name. Every file must open with plain h5py, list its
snapshots 000000.. without a gap and hold them (and the sidecar's
connectivity /xdmf) bitwise as the full run wrote them, and its energy and
walls read with demfile.py must be a prefix of the full run's (a chunk a
kill cut dropped, its wall rows NaN), reaching the last snapshot. Files
appear from some write on, and then after every write.
"""
import sys

import h5py
import numpy as np

import demfile


def datasets(group):
    out = {}
    group.visititems(lambda k, o: out.__setitem__(k, o) if isinstance(o, h5py.Dataset) else None)
    return out


def same(x, y):
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


def check_file(path, full, fe, fw):
    """What is wrong with one killed file (a list), and its wall rows cut."""
    bad, cut = [], 0
    f = h5py.File(path, "r")
    names = list(f["snapshots"])
    if names != ["%06d" % i for i in range(len(names))]:
        return ["snapshots %s" % names], 0
    if not names:
        bad.append("a file without a snapshot")
    for s in names:
        a, b = f["snapshots"][s], full["snapshots"][s]
        for key in ("step", "time"):
            if a.attrs[key] != b.attrs[key]:
                bad.append("%s %s differs" % (s, key))
        da, db = datasets(a), datasets(b)
        if set(da) != set(db):
            bad.append("%s has datasets %s" % (s, sorted(set(da) ^ set(db))))
        for key in set(da) & set(db):
            if not same(da[key][()], db[key][()]):
                bad.append("%s/%s differs from the full run's" % (s, key))
    if "xdmf" in f:
        for key, ds in datasets(f["xdmf"]).items():
            if not same(ds[()], full["xdmf"][key][()]):
                bad.append("xdmf/%s differs from the full run's" % key)
    run = demfile.open_run(path)
    e, w = run.energy(), run.walls()
    m = len(e["step"])
    if m > len(fe["step"]) or any(not same(e[c], fe[c][:m]) for c in e):
        bad.append("energy rows not a prefix of the full run's")
    if names:
        last = f["snapshots"][names[-1]].attrs["step"]
        if m == 0 or e["step"][-1] < last:
            bad.append("energy rows end before the last snapshot (step %s)" % last)
    for wall, series in w.items():
        for c in ("force", "torque"):
            x, y = series[c], fw[wall][c][:m]
            kept = ~np.isnan(x).all(axis=1)
            if x.shape != y.shape or x[kept].tobytes() != y[kept].tobytes():
                bad.append("%s %s not the full run's" % (wall, c))
            cut += int((~kept).sum())
    return bad, cut


def main():
    full_path, folder = sys.argv[1], sys.argv[2]
    n, stride = int(sys.argv[3]), int(sys.argv[4])
    full = h5py.File(full_path, "r")
    full_run = demfile.open_run(full_path)
    fe, fw = full_run.energy(), full_run.walls()
    bad, files, cut = [], 0, 0
    for pages in (int(p) for p in sys.argv[5].split(",")):
        first = None
        for k in range(1, n + 1, stride):
            path = "%s/k%d_%d.h5" % (folder, k, pages)
            try:
                h5py.File(path, "r").close()
            except FileNotFoundError:
                if first is not None:
                    bad.append("%s: no file, but the kill at write %d left one" % (path, first))
                continue
            except OSError as e:
                bad.append("%s: does not open: %s" % (path, e))
                continue
            files += 1
            first = k if first is None else first
            try:
                why, c = check_file(path, full, fe, fw)
                cut += c
                bad += ["%s: %s" % (path, x) for x in why]
            except Exception as ex:
                bad.append("%s: %s: %s" % (path, type(ex).__name__, ex))
    print("%d files, %d wall rows cut by a kill (read as NaN)" % (files, cut))
    for b in bad[:20]:
        print(b)
    return 1 if bad or files == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
