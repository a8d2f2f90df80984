"""Checks of a run with insertion against theory, computed here from the
output file alone (never from dem's own checks).
  overlap FILE            every body, in the first snapshot that holds it,
                          overlaps no sphere of another body (the run must
                          write a snapshot at every step, so that this is
                          the state at its insertion)
  count FILE RATE START END   bodies in each snapshot = floor(RATE (t - START))
                          (up to END), the number the rate asks for
  mix FILE F0 F1 ...      the share of each shape number within 4 binomial
                          standard deviations of the fractions asked
  dist FILE KIND ...      the scales against the distribution asked:
                          Kolmogorov-Smirnov distance below 1.95/sqrt(N)
                          (0.1 % level) and mean within 4 standard errors
  scaled FILE RHO R       mass and inertia of scaled single spheres of
                          radius R against rho 4/3 pi (s R)^3, 2/5 m (s R)^2
  clump FILE              mass and inertia of every body = the shape's
                          (/shapes) times s^3 and s^5
"""
import math
import sys

import h5py
import numpy as np


def snaps(f):
    return [f["snapshots"][k] for k in sorted(f["snapshots"])]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def overlap(path):
    f = h5py.File(path, "r")
    seen = 0
    checked = 0
    worst = -np.inf
    for g in snaps(f):
        n = len(g["bodies/mass"])
        if n > seen:
            x = g["spheres/position"][()]
            r = g["spheres/radius"][()]
            b = g["spheres/body"][()]
            new = np.nonzero(b >= seen)[0]
            for i in new:
                d = np.sqrt(((x - x[i]) ** 2).sum(axis=1))
                gap = d - (r + r[i])
                gap[b == b[i]] = np.inf
                worst = max(worst, -gap.min())
                if gap.min() < -1e-12 * r[i]:
                    j = int(np.argmin(gap))
                    fail("t = %g: sphere %d (body %d) overlaps sphere %d "
                         "(body %d) by %g" % (g.attrs["time"], i, b[i], j,
                                              b[j], -gap.min()))
            checked += n - seen
            seen = n
    if checked == 0:
        fail("no body inserted")
    print("overlap: %d inserted bodies checked, largest overlap %g (<= 0)"
          % (checked, worst))


def walls(path, lo, hi):
    f = h5py.File(path, "r")
    for g in snaps(f):
        x = g["spheres/position"][()]
        r = g["spheres/radius"][()]
        if len(r) and ((x - r[:, None] < lo).any() or (x + r[:, None] > hi).any()):
            fail("t = %g: a sphere crosses a wall" % g.attrs["time"])
    print("walls: every sphere inside [%s, %s]" % (lo, hi))


def count(path, rate, start, end):
    f = h5py.File(path, "r")
    for g in snaps(f):
        t = g.attrs["time"]
        want = math.floor(rate * (min(t, end) - start) + 1e-9) if t >= start else 0
        n = len(g["bodies/mass"])
        if n != want:
            fail("t = %.9g: %d bodies, rate x time asks %d" % (t, n, want))
    print("count: every snapshot holds floor(rate (t - start)) bodies (%d at the end)" % n)


def mix(path, fractions):
    f = h5py.File(path, "r")
    shape = snaps(f)[-1]["bodies/shape"][()]
    n = len(shape)
    for k, p in enumerate(fractions):
        got = int((shape == k).sum())
        sigma = math.sqrt(n * p * (1 - p))
        if abs(got - n * p) > 4 * sigma + 1e-9:
            fail("shape %d: %d of %d, asked %g (%.1f sigma)" % (k, got, n, p, (got - n * p) / sigma))
        print("mix: shape %d: %d of %d (asked %g, %.2f sigma)" % (k, got, n, p, (got - n * p) / max(sigma, 1e-300)))


def phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def dist(path, kind, args):
    f = h5py.File(path, "r")
    s = np.sort(snaps(f)[-1]["bodies/scale"][()])
    n = len(s)
    if kind == "table":
        half = len(args) // 2
        sizes, fr = args[:half], args[half:]
        for v, p in zip(sizes, fr):
            got = int((s == v).sum())
            sigma = math.sqrt(n * p * (1 - p))
            if abs(got - n * p) > 4 * sigma + 1e-9:
                fail("table size %g: %d of %d, asked %g" % (v, got, n, p))
            print("dist table: size %g: %d of %d (asked %g, %.2f sigma)" % (v, got, n, p, (got - n * p) / max(sigma, 1e-300)))
        if not np.isin(s, sizes).all():
            fail("a scale not in the table")
        return
    if kind == "uniform":
        a, b = args
        cdf = lambda x: np.clip((x - a) / (b - a), 0, 1)
        mean, var = (a + b) / 2, (b - a) ** 2 / 12
    else:
        m, sg, a, b = args
        if kind == "normal":
            z = lambda x: (x - m) / sg
        else:
            z = lambda x: math.log(x / m) / sg
        pa, pb = phi(z(a)), phi(z(b))
        cdf = np.vectorize(lambda x: (phi(z(x)) - pa) / (pb - pa))
        # moments of the truncated law by quadrature of its density
        xs = np.linspace(a, b, 200001)
        if kind == "normal":
            dens = np.exp(-0.5 * ((xs - m) / sg) ** 2)
        else:
            dens = np.exp(-0.5 * (np.log(xs / m) / sg) ** 2) / xs
        w = dens / np.trapz(dens, xs)
        mean = np.trapz(w * xs, xs)
        var = np.trapz(w * (xs - mean) ** 2, xs)
    F = cdf(s)
    i = np.arange(1, n + 1)
    D = max(np.max(i / n - F), np.max(F - (i - 1) / n))
    if s.min() < (a if kind == "uniform" else args[2]) or s.max() > (b if kind == "uniform" else args[3]):
        fail("a scale outside [min, max]")
    if D > 1.95 / math.sqrt(n):
        fail("%s: KS distance %g > %g" % (kind, D, 1.95 / math.sqrt(n)))
    se = math.sqrt(var / n)
    if abs(s.mean() - mean) > 4 * se:
        fail("%s: mean %g, theory %g (+- %g)" % (kind, s.mean(), mean, se))
    sd = s.std(ddof=1)
    if abs(sd - math.sqrt(var)) > 0.1 * math.sqrt(var):
        fail("%s: std %g, theory %g" % (kind, sd, math.sqrt(var)))
    print("dist %s: n %d, KS %.4f (bound %.4f), mean %.5f (theory %.5f), std %.5f (theory %.5f)"
          % (kind, n, D, 1.95 / math.sqrt(n), s.mean(), mean, sd, math.sqrt(var)))


def scaled(path, rho, r0):
    f = h5py.File(path, "r")
    g = snaps(f)[-1]
    s = g["bodies/scale"][()]
    m = g["bodies/mass"][()]
    inertia = g["bodies/inertia"][()]
    r = g["spheres/radius"][()]
    want_m = rho * 4.0 / 3.0 * math.pi * (s * r0) ** 3
    want_i = 0.4 * want_m * (s * r0) ** 2
    em = np.max(np.abs(m / want_m - 1))
    ei = np.max(np.abs(inertia / want_i[:, None] - 1))
    er = np.max(np.abs(r / (s * r0) - 1))
    if em > 1e-13 or ei > 1e-13 or er > 1e-15:
        fail("scaled sphere: relative errors mass %g inertia %g radius %g" % (em, ei, er))
    print("scaled: %d spheres, scales %.3f..%.3f: mass, inertia, radius rel. errors %.1e %.1e %.1e"
          % (len(s), s.min(), s.max(), em, ei, er))


def clump(path):
    f = h5py.File(path, "r")
    g = snaps(f)[-1]
    s = g["bodies/scale"][()]
    k = g["bodies/shape"][()]
    sm = f["shapes/mass"][()]
    si = f["shapes/inertia"][()]
    em = np.max(np.abs(g["bodies/mass"][()] / (sm[k] * s ** 3) - 1))
    ei = np.max(np.abs(g["bodies/inertia"][()] / (si[k] * (s ** 5)[:, None]) - 1))
    if em > 1e-13 or ei > 1e-13:
        fail("clump: relative errors mass %g inertia %g" % (em, ei))
    print("clump: %d bodies: mass = shape mass s^3, inertia = shape inertia s^5 (rel. errors %.1e, %.1e)" % (len(s), em, ei))


if __name__ == "__main__":
    cmd, path, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if cmd == "overlap":
        overlap(path)
    elif cmd == "walls":
        walls(path, float(rest[0]), float(rest[1]))
    elif cmd == "count":
        count(path, *map(float, rest))
    elif cmd == "mix":
        mix(path, list(map(float, rest)))
    elif cmd == "dist":
        dist(path, rest[0], list(map(float, rest[1:])))
    elif cmd == "scaled":
        scaled(path, float(rest[0]), float(rest[1]))
    elif cmd == "clump":
        clump(path)
