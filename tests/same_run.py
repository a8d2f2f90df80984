"""Whether two dem runs agree bitwise: the last snapshots (every dataset, or
those of some groups; their step and time) and the energy rows of the
steps both files have (a restart adds a row at its start). For the shell
tests' restart and thread checks (tests/lib.sh puts this folder on
PYTHONPATH); each adds its own checks on what the run must have done.
"""
import h5py


def last_snapshot(f):
    return f["snapshots"][sorted(f["snapshots"])[-1]]


def _datasets(snap, groups):
    out = []
    snap.visititems(lambda n, o: out.append(n) if isinstance(o, h5py.Dataset) else None)
    if groups is not None:
        out = [n for n in out if n.split("/")[0] in groups]
    return set(out)


def snapshot_differences(a, b, groups=None):
    """What differs between the last snapshots of files a and b (h5py
    Files): the step, the time, or a dataset (shape, type or bits), of
    every group or only of `groups`."""
    la, lb = last_snapshot(a), last_snapshot(b)
    bad = ["%s %r != %r" % (k, la.attrs[k], lb.attrs[k])
           for k in ("step", "time") if la.attrs[k] != lb.attrs[k]]
    for n in sorted(_datasets(la, groups) | _datasets(lb, groups)):
        if n not in la or n not in lb:
            bad.append("%s missing" % n)
            continue
        x, y = la[n][()], lb[n][()]
        if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
            bad.append("%s differs" % n)
    return bad


def energy_differences(a, b, most_missing=None):
    """The energy rows of the steps both files have, bitwise; with
    most_missing, also fewer common steps than the shorter series less
    that many."""
    ea, eb = a["energy"], b["energy"]
    ra = {int(s): i for i, s in enumerate(ea["step"][()])}
    rb = {int(s): i for i, s in enumerate(eb["step"][()])}
    common = sorted(set(ra) & set(rb))
    bad = []
    if most_missing is not None and len(common) < min(len(ra), len(rb)) - most_missing:
        bad.append("energy: only %d common steps of %d and %d" % (len(common), len(ra), len(rb)))
    cols = [c for c in ea if c != "step"]
    diff = [s for s in common
            if any(ea[c][ra[s]].tobytes() != eb[c][rb[s]].tobytes() for c in cols)]
    if diff:
        bad.append("energy rows differ at %d steps, first %d" % (len(diff), diff[0]))
    return bad


def differences(a, b, groups=None, most_missing=None):
    return snapshot_differences(a, b, groups) + energy_differences(a, b, most_missing)


if __name__ == "__main__":
    import sys
    bad = differences(h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"))
    print("; ".join(bad))
    sys.exit(1 if bad else 0)
