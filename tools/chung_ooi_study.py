#!/usr/bin/python3
"""The eight benchmark tests of Chung & Ooi (Granular Matter 13 (2011) 643)
for the hertz_mindlin contact model: runs dem on
examples/validation/chung_ooi_test{1..8}.yaml, sweeping each test with
--set, reads the runs with tools/demfile.py and compares them with theory:
Hertz (normal impacts), impulse theory (gross sliding), Maw, Barber &
Fawcett's elastic solution with micro-slip (the sticking range, solved by the
method of dimensionality reduction) and the model's own equations integrated
independently. Writes CSVs and plots and prints a summary table.

    /usr/bin/python3 tools/chung_ooi_study.py [--dem build/dem] [--quick]
        [--out docs/data/chung_ooi] [--img docs/img] [--check TOL]
    /usr/bin/python3 tools/chung_ooi_study.py --read chung_ooi_test4.h5

--check TOL exits with status 1 if a normal-impact quantity (tests 1-3), a
gross-sliding point (tests 4-8) or a spin-only case (test 7) is off by more
than TOL (relative) from theory. docs/validation.md explains every quantity.
"""
import argparse
import concurrent.futures as cf
import csv
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

import demfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "validation")

# Steps per contact for the dem runs. The normal quantities are good to
# 1e-4 at 200; the sticking range converges at first order in the time step
# (the stick-slip switches fall between steps): 1000 keeps that error near
# 1 % (the convergence study in test 4 measures it: 1.1 % at 10 degrees).
STEPS_NORMAL = 200
STEPS_OBLIQUE = 1000
# A point counts as gross sliding (checked against impulse theory) when
# impulse theory says the contact point still slides at the end with this
# margin: 3.5 mu (1 + e) v_n / v_st <= GROSS.
GROSS = 0.9


# ----------------------------------------------------------------------
# The config as run: materials, pair values, bodies


def num(x):
    """A YAML number (PyYAML reads 1e-05, without a dot, as a string)."""
    return float(x)


def pair_props(cfg, ma, mb):
    """E*, G*, e, mu of materials ma and mb as dem mixes them
    (docs/configuration.md): geometric means unless contact.pairs gives
    the pair."""
    mats = cfg["materials"]
    a, b = mats[ma], mats[mb]

    def eg(m):
        E, nu = num(m["young_modulus"]), num(m["poisson_ratio"])
        return E, nu, E / (2 * (1 + nu))

    Ea, nua, Ga = eg(a)
    Eb, nub, Gb = eg(b)
    estar = 1 / ((1 - nua**2) / Ea + (1 - nub**2) / Eb)
    gstar = 1 / ((2 - nua) / Ga + (2 - nub) / Gb)
    e = math.sqrt(num(a.get("restitution", 1)) * num(b.get("restitution", 1)))
    mu = math.sqrt(num(a.get("friction", 0)) * num(b.get("friction", 0)))
    for p in (cfg.get("contact") or {}).get("pairs") or []:
        if sorted(p["materials"]) == sorted([ma, mb]):
            e = num(p.get("restitution", e))
            mu = num(p.get("friction", mu))
    return dict(estar=estar, gstar=gstar, e=e, mu=mu)


def body_props(cfg, k):
    """Material, radius, mass, moment of inertia and initial state (lab) of
    particle k, a shape of one sphere at its centre."""
    body = cfg["particles"][k]["body"]
    shape = cfg["shapes"][body["shape"]]
    (sph,) = shape["spheres"]
    assert all(num(c) == 0 for c in sph["center"]), "one sphere at the centre"
    R = num(sph["radius"]) * num(shape.get("scale", 1))
    mat = shape["material"]
    rho = num(cfg["materials"][mat]["density"])
    m = rho * 4 / 3 * math.pi * R**3
    assert body.get("angular_velocity_frame", "lab") == "lab"
    return dict(material=mat, R=R, m=m, I=0.4 * m * R * R,
                x=np.array([num(c) for c in body["position"]]),
                v=np.array([num(c) for c in body.get("velocity", [0, 0, 0])]),
                w=np.array([num(c) for c in body.get("angular_velocity", [0, 0, 0])]))


def rotate(q, v):
    """v turned by the unit quaternion q = (w, x, y, z)."""
    w, u = q[0], np.asarray(q[1:])
    t = 2 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


# The planar description every oblique test shares. Owner i is body 0; its
# partner j is body 1 or the floor (z = 0). n points from j to i, t is the
# tangent along which the contact point slides, s = n x t the spin axis:
# contact-point velocities are u_i - R_i W_i and u_j + R_j W_j along t (u =
# v.t, W = w.s), and the tangential force on i, F_t t, turns i and j by
# -arm F_t about s.
WALL = dict(n=np.array([0, 0, 1.0]), t=np.array([1.0, 0, 0]))
PAIR = dict(n=np.array([-1.0, 0, 0]), t=np.array([0, 0, 1.0]))


def planar(cfg, final):
    """The case as the theories take it: masses, radii, pair values, and
    the initial and final planar velocities. `final` is the last snapshot's
    bodies (lab velocities; angular velocities turned from the principal
    frame to the lab with the orientations)."""
    nb = len(cfg["particles"])
    bodies = [body_props(cfg, k) for k in range(nb)]
    geo = WALL if nb == 1 else PAIR
    n, t = geo["n"], geo["t"]
    s = np.cross(n, t)
    mi = bodies[0]["material"]
    mj = cfg["domain"]["wall_material"] if nb == 1 else bodies[1]["material"]
    c = dict(pair_props(cfg, mi, mj), wall=nb == 1, nbodies=nb)
    for side, k in (("i", 0), ("j", 1)):
        if k < nb:
            b = bodies[k]
            c.update({"m" + side: b["m"], "I" + side: b["I"], "R" + side: b["R"],
                      "u" + side: b["v"] @ t, "W" + side: b["w"] @ s,
                      "n" + side: b["v"] @ n})
        else:
            c.update({"m" + side: math.inf, "I" + side: math.inf,
                      "R" + side: math.inf, "u" + side: 0.0, "W" + side: 0.0,
                      "n" + side: 0.0})
    c["vn"] = -(c["ni"] - c["nj"])  # approach speed along the normal
    if final is not None:
        v, w, q = final["velocity"], final["angular_velocity"], final["orientation"]
        for side, k in (("i", 0), ("j", 1)):
            if k < nb:
                wl = rotate(q[k], w[k])
                c.update({"u" + side + "_f": v[k] @ t, "W" + side + "_f": wl @ s,
                          "n" + side + "_f": v[k] @ n})
            else:
                c.update({"u" + side + "_f": 0.0, "W" + side + "_f": 0.0,
                          "n" + side + "_f": 0.0})
        c["vn_f"] = c["ni_f"] - c["nj_f"]  # separation speed
    c["mstar"] = c["mi"] if c["wall"] else c["mi"] * c["mj"] / (c["mi"] + c["mj"])
    c["rstar"] = c["Ri"] if c["wall"] else c["Ri"] * c["Rj"] / (c["Ri"] + c["Rj"])
    c["vct"] = contact_velocity(c, "")
    if final is not None:
        c["vct_f"] = contact_velocity(c, "_f")
    return c


def contact_velocity(c, suffix):
    """Tangential velocity of i's contact point relative to j's (arms R)."""
    ui, Wi = c["ui" + suffix], c["Wi" + suffix]
    uj, Wj = c["uj" + suffix], c["Wj" + suffix]
    rj = 0.0 if c["wall"] else c["Rj"]
    return (ui - c["Ri"] * Wi) - (uj + rj * Wj)


# ----------------------------------------------------------------------
# Theory


# The duration of Hertz's impact is 2 (d_max / v) int_0^1 (1 - x^(5/2))^(-1/2)
# dx = (4/5) B(2/5, 1/2) d_max / v = 2.94328 d_max / v, i.e. 2.86827
# (m*^2 / (R* E*^2 v))^(1/5): the usual 2.868 is 1e-4 short of it.
HERTZ_T = 0.8 * math.gamma(0.4) * math.gamma(0.5) / math.gamma(0.9)


def hertz(mstar, rstar, estar, v):
    """Hertz's elastic impact at approach speed v: maximum overlap, maximum
    force, duration (Johnson, Contact Mechanics, 11.2)."""
    dmax = (15 * mstar * v * v / (16 * estar * math.sqrt(rstar))) ** 0.4
    fmax = 4 / 3 * estar * math.sqrt(rstar) * dmax**1.5
    return dmax, fmax, HERTZ_T * dmax / v


def hertz_curve(mstar, rstar, estar, v, n=4000):
    """Overlap and force against time through Hertz's impact: the equation
    of motion m* d'' = -4/3 E* sqrt(R*) d^1.5 by RK4 in n steps."""
    _, _, tc = hertz(mstar, rstar, estar, v)
    h = tc / n
    k = 4 / 3 * estar * math.sqrt(rstar) / mstar

    def acc(d):
        return -k * max(d, 0.0) ** 1.5

    d, dv, out = 0.0, v, [(0.0, 0.0)]
    for i in range(1, n + 1):
        k1 = (dv, acc(d))
        k2 = (dv + 0.5 * h * k1[1], acc(d + 0.5 * h * k1[0]))
        k3 = (dv + 0.5 * h * k2[1], acc(d + 0.5 * h * k2[0]))
        k4 = (dv + h * k3[1], acc(d + h * k3[0]))
        d += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        dv += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        out.append((i * h, max(d, 0.0)))
    t, d = np.array(out).T
    return t, d, 4 / 3 * estar * math.sqrt(rstar) * d**1.5


# Dormand & Prince's 5(4) pair (J. Comput. Appl. Math. 6 (1980) 19).
_DP_A = ((), (1 / 5,), (3 / 40, 9 / 40), (44 / 45, -56 / 15, 32 / 9),
         (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
         (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
         (35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84))
_DP_E = (71 / 57600, 0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40)


def rebound_speed(beta, tol=1e-11):
    """Rebound speed of u'' = -(u^1.5 + beta u^0.25 u')_+ from u = 0, u' = 1
    (m = k = v = 1): adaptive Dormand-Prince; near the exit the force is
    clipped to zero, so the last step is a straight line. 0 if it stops."""
    def f(y):
        u, v = y
        if u <= 0:
            return (v, 0.0)
        a = u**1.5 + beta * u**0.25 * v
        return (v, -a if a > 0 else 0.0)

    y, h = (0.0, 1.0), 1e-4
    while True:
        k = [f(y)]
        for i in range(1, 7):
            k.append(f(tuple(y[j] + h * sum(a * kk[j] for a, kk in zip(_DP_A[i], k))
                             for j in range(2))))
        yn = tuple(y[j] + h * sum(a * kk[j] for a, kk in zip(_DP_A[6], k)) for j in range(2))
        err = max(abs(h * sum(e * kk[j] for e, kk in zip(_DP_E, k))) / (tol + tol * abs(yn[j]))
                  for j in range(2))
        if err > 1:
            h *= max(0.2, 0.9 * err**-0.2)
            continue
        if yn[0] <= 0 and y[1] < 0:
            s = y[0] / (y[0] - yn[0])
            return -(y[1] + s * (yn[1] - y[1]))
        if yn[1] >= 0 > y[1]:
            return 0.0
        y = yn
        h *= min(5.0, 0.9 * max(err, 1e-10) ** -0.2)


_BETA = {}


def beta_of_e(e):
    """The damping constant beta whose collision rebounds at e; dem's alpha
    is beta / sqrt(3/2) (docs/contacts.md). Found here independently of
    dem's solver (which is fixed-step RK4): adaptive integration, bisection."""
    if e >= 1:
        return 0.0
    if e not in _BETA:
        lo, hi = 0.0, 1.0
        while rebound_speed(hi) > e:
            lo, hi = hi, 2 * hi
        while hi - lo > 1e-10 * hi:
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if rebound_speed(mid) > e else (lo, mid)
        _BETA[e] = 0.5 * (lo + hi)
    return _BETA[e]


def arrays(cases, keys):
    return {k: np.array([c[k] for c in cases], float) for k in keys}


def model_reference(cases, n):
    """The hertz_mindlin equations (docs/contacts.md) for the planar
    collision, integrated here independently of dem: Hertz + Tsuji dashpot
    (never attractive) along the normal; along the tangent a spring whose
    force changes by -k_t v_t dt while it sticks, a dashpot -c_t v_t, and
    Coulomb's cap mu F_n (the spring then holds the capped force); torque
    arms R - d (wall) and R - d/2 (pair) as dem puts the contact point. RK4
    in n steps per Hertz contact time, the cap applied after each step, all
    cases at once. Also returns the force-weighted mean overlap
    int F_n d dt / int F_n dt (for the torque arm in impulse theory)."""
    a = arrays(cases, ["mi", "mj", "Ii", "Ij", "Ri", "Rj", "mstar", "rstar",
                       "estar", "gstar", "mu", "e", "vn", "ui", "uj", "Wi", "Wj"])
    wall = np.array([c["wall"] for c in cases])
    inv_mj = np.where(wall, 0.0, 1 / np.where(wall, 1, a["mj"]))
    inv_Ij = np.where(wall, 0.0, 1 / np.where(wall, 1, a["Ij"]))
    ms, rs, es, gs, mu = a["mstar"], a["rstar"], a["estar"], a["gstar"], a["mu"]
    alpha = np.array([beta_of_e(e) for e in a["e"]]) / math.sqrt(1.5)
    tc = np.array([hertz(m, r, E, v)[2] for m, r, E, v in zip(ms, rs, es, a["vn"])])
    h = tc / n
    y = np.zeros((7, len(cases)))
    y[1] = a["vn"]
    y[2], y[3], y[4], y[5] = a["ui"], a["uj"], a["Wi"], a["Wj"]

    def rates(y):
        touch = y[0] > 0
        d = np.maximum(y[0], 0.0)
        sq = np.sqrt(rs * d)
        kn = 2 * es * sq
        fn = np.maximum((2 / 3) * kn * d + alpha * np.sqrt(ms * kn) * y[1], 0.0)
        fn = np.where(touch, fn, 0.0)
        ai = np.where(wall, a["Ri"] - d, a["Ri"] - d / 2)
        aj = np.where(wall, 0.0, a["Rj"] - d / 2)
        vt = (y[2] - ai * y[4]) - (y[3] + aj * y[5])
        kt = 8 * gs * sq
        ft = y[6] - alpha * np.sqrt(ms * kt) * vt
        capped = np.abs(ft) > mu * fn
        ft = np.where(capped, np.sign(ft) * mu * fn, ft)
        ft = np.where(touch, ft, 0.0)
        r = np.empty_like(y)
        r[0], r[1] = y[1], -fn / ms
        r[2], r[3] = ft / a["mi"], -ft * inv_mj
        r[4], r[5] = -ai * ft / a["Ii"], -aj * ft * inv_Ij
        r[6] = np.where(capped | ~touch, 0.0, -kt * vt)
        return r, ft, capped, fn

    active = np.ones(len(cases), bool)
    started = np.zeros(len(cases), bool)
    pn = np.zeros(len(cases))
    pd = np.zeros(len(cases))
    for _ in range(6 * n):
        H = h * active
        k1, _, _, fn0 = rates(y)
        k2 = rates(y + 0.5 * H * k1)[0]
        k3 = rates(y + 0.5 * H * k2)[0]
        k4 = rates(y + H * k3)[0]
        d0 = np.maximum(y[0], 0.0)
        y = y + H / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        _, ft, capped, fn1 = rates(y)
        pn += 0.5 * H * (fn0 + fn1)
        pd += 0.5 * H * (fn0 * d0 + fn1 * np.maximum(y[0], 0.0))
        y[6] = np.where(capped, ft, y[6])
        started |= y[0] > 0
        done = started & (y[0] <= 0)
        y[6] = np.where(done, 0.0, y[6])
        active &= ~done
        if not active.any():
            break
    if active.any():
        raise RuntimeError("model reference: a contact did not end")
    return dict(vn_f=-y[1], ui_f=y[2], uj_f=y[3], Wi_f=y[4], Wj_f=y[5],
                dmean=pd / pn)


def model_reference_extrapolated(cases, n):
    """model_reference at n and 2n steps, Richardson-extrapolated: the
    stick-slip switches make it first order (measured: the spin at 10
    degrees in test 4 moves by 0.58, 0.30, 0.15 rad/s per doubling from
    5000 steps)."""
    lo, hi = model_reference(cases, n), model_reference(cases, 2 * n)
    return {k: 2 * hi[k] - lo[k] for k in hi}


def maw_mdr(cases, n, nx):
    """Maw, Barber & Fawcett's oblique impact of elastic spheres (Wear 38
    (1976) 101): Hertz along the normal, Cattaneo-Mindlin tangential
    tractions with micro-slip and Coulomb friction, normal and tangential
    problems uncoupled as they take them, arms R. Solved by the method of
    dimensionality reduction (Popov & Hess, 2015), exact for this problem:
    springs of normal stiffness E* dx and tangential stiffness 4 G* dx (G*
    as dem defines it) along x in [0, a], a = sqrt(R* d); a spring entering
    the contact starts unstrained, follows the tangential approach while it
    sticks, slips at mu E* (d - x^2/R*) and is released when the contact
    leaves it. Elastic (e = 1): the paper's theory has no damping. Leapfrog
    in n steps per contact, nx springs."""
    a = arrays(cases, ["mi", "mj", "Ii", "Ij", "Ri", "Rj", "mstar", "rstar",
                       "estar", "gstar", "mu", "vn", "ui", "uj", "Wi", "Wj"])
    wall = np.array([c["wall"] for c in cases])
    col = {k: v[:, None] for k, v in a.items()}
    wallc = wall[:, None]
    inv_mj = np.where(wallc, 0.0, 1 / np.where(wallc, 1, col["mj"]))
    inv_Ij = np.where(wallc, 0.0, 1 / np.where(wallc, 1, col["Ij"]))
    rj = np.where(wallc, 0.0, col["Rj"])
    ms, rs, es, mu = col["mstar"], col["rstar"], col["estar"], col["mu"]
    gm = 4 * col["gstar"]
    dmax = np.array([hertz(m, r, E, v)[0] for m, r, E, v in
                     zip(a["mstar"], a["rstar"], a["estar"], a["vn"])])[:, None]
    h = HERTZ_T * dmax / col["vn"] / n
    dx = 1.02 * np.sqrt(rs * dmax) / nx
    x = (np.arange(nx)[None, :] + 0.5) * dx
    u = np.zeros((len(cases), nx))
    d = np.zeros_like(h)
    dd = col["vn"].copy()
    ui, uj, Wi, Wj = (col[k].copy() for k in ("ui", "uj", "Wi", "Wj"))
    active = np.ones_like(h, bool)
    for _ in range(3 * n):
        vt = (ui - col["Ri"] * Wi) - (uj + rj * Wj)
        hh = h * active
        d = d + hh * dd
        inside = x * x < rs * np.maximum(d, 0)
        u = np.where(inside, u + hh * vt, 0.0)
        lim = mu * es * np.maximum(d - x * x / rs, 0) / gm
        u = np.clip(u, -lim, lim)
        ft = -2 * gm * dx * u.sum(axis=1, keepdims=True)
        fn = 4 / 3 * es * np.sqrt(rs) * np.maximum(d, 0) ** 1.5
        dd = dd - hh * fn / ms
        ui = ui + hh * ft / col["mi"]
        uj = uj - hh * ft * inv_mj
        Wi = Wi - hh * col["Ri"] * ft / col["Ii"]
        Wj = Wj - hh * rj * ft * inv_Ij
        active &= d > 0
        if not active.any():
            break
    return dict(vn_f=-dd[:, 0], ui_f=ui[:, 0], uj_f=uj[:, 0], Wi_f=Wi[:, 0],
                Wj_f=Wj[:, 0])


def mindlin_check(nx=800):
    """The springs of maw_mdr at a fixed overlap, pushed sideways: the
    largest relative deviation of their force from Mindlin's loading curve
    F_t = mu F_n (1 - (1 - delta/delta*)^(3/2)), delta* = 3 mu F_n / (16 G*
    a) (Johnson, Contact Mechanics, 7.2), over F_t / (mu F_n) = 0.1 .. 0.99."""
    R, estar, gstar, mu, d = 0.01, 1e9, 0.4e9, 0.3, 1e-5
    a = math.sqrt(R * d)
    dx = 1.02 * a / nx
    x = (np.arange(nx) + 0.5) * dx
    fn = 4 / 3 * estar * math.sqrt(R) * d**1.5
    dstar = 3 * mu * fn / (16 * gstar * a)
    worst = 0.0
    for f in (0.1, 0.3, 0.5, 0.7, 0.9, 0.99):
        delta = dstar * (1 - (1 - f) ** (2 / 3))
        u = np.minimum(delta, mu * estar * np.maximum(d - x * x / R, 0) / (4 * gstar))
        worst = max(worst, abs(2 * 4 * gstar * dx * u.sum() / (mu * fn) / f - 1))
    return worst


def impulse_theory(c, dmean=None):
    """Rigid-body impulse theory with Coulomb friction: normal impulse P_n =
    m* (1 + e) v_n; while the contact point slides throughout, the
    tangential impulse is mu P_n against the slip; when impulse theory says
    the slip would stop, the contact point leaves with no tangential
    velocity (rigid-body sticking). Arms R, or R - <d> (wall) and R - <d>/2
    (pair) with <d> the force-weighted mean overlap, as dem puts the
    contact point."""
    pn = c["mstar"] * (1 + c["e"]) * c["vn"]
    ai, aj = c["Ri"], (0.0 if c["wall"] else c["Rj"])
    if dmean is not None:
        ai, aj = (ai - dmean, 0.0) if c["wall"] else (ai - dmean / 2, aj - dmean / 2)
    inv_mj = 0.0 if c["wall"] else 1 / c["mj"]
    inv_Ij = 0.0 if c["wall"] else 1 / c["Ij"]
    # dv_ct per unit tangential impulse on i (with the arms R of the
    # definition of the contact point's velocity after the impact)
    rj = 0.0 if c["wall"] else c["Rj"]
    per = 1 / c["mi"] + inv_mj + c["Ri"] * ai / c["Ii"] + rj * aj * inv_Ij
    slip = c["vct"]
    pt = -math.copysign(min(c["mu"] * pn, abs(slip) / per), slip)
    # gross: 3.5 mu (1 + e) v_n / |v_st|, at most 1 when the contact slides
    # throughout (the classical criterion)
    gross = 3.5 * c["mu"] * pn / c["mstar"] / abs(slip) if slip else math.inf
    return dict(ui_f=c["ui"] + pt / c["mi"], uj_f=c["uj"] - pt * inv_mj,
                Wi_f=c["Wi"] - ai * pt / c["Ii"], Wj_f=c["Wj"] - aj * pt * inv_Ij,
                vn_f=c["e"] * c["vn"], gross=gross)


# ----------------------------------------------------------------------
# Runs


class Case:
    """One dem run: a test, a series (usually the material), the swept
    parameter and the --set values that make it from the example."""

    def __init__(self, test, series, param, sets, steps):
        self.test, self.series, self.param = test, series, param
        self.sets, self.steps = sets, steps
        self.name = f"test{test}_{series}_{param:g}".replace(".", "p")


def fmt(x):
    return "[" + ", ".join(repr(float(v)) for v in x) + "]" if np.ndim(x) else repr(float(x))


def load_config(test):
    import yaml
    with open(os.path.join(EXAMPLES, f"chung_ooi_test{test}.yaml")) as f:
        return yaml.safe_load(f)


def apply_sets(cfg, sets):
    """The config after --set PATH=VALUE, as dem applies them (for the
    contact time the sweep needs before the run)."""
    import copy
    import yaml
    cfg = copy.deepcopy(cfg)
    for s in sets:
        path, value = s.split("=", 1)
        keys = path.split(".")
        node = cfg
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        last = keys[-1]
        if isinstance(node, list):
            node[int(last)] = yaml.safe_load(value)
        else:
            node[last] = yaml.safe_load(value)
    return cfg


def timed(test, series, param, sets, steps, normal_series=False):
    """A Case whose time step is 1/steps of its Hertz contact time, whose
    bodies start a hair (half a step at the approach speed) from touching
    and whose run ends 2.5 contact times later (damped contacts last longer
    than Hertz's); with a snapshot every step for the normal tests."""
    cfg = apply_sets(load_config(test), sets)
    c = planar(cfg, None)
    tc = hertz(c["mstar"], c["rstar"], c["estar"], c["vn"])[2]
    dt = tc / steps
    gap = 0.5 * c["vn"] * dt
    end = 1.5 * tc if normal_series else 2.5 * tc
    more = [f"simulation.time_step={dt!r}", f"simulation.end_time={end!r}"]
    if c["wall"]:
        x = body_props(cfg, 0)["x"]
        more.append(f"particles.0.body.position={fmt([x[0], x[1], c['Ri'] + gap])}")
    else:
        x0, x1 = body_props(cfg, 0)["x"], body_props(cfg, 1)["x"]
        more.append(f"particles.0.body.position={fmt([-c['Ri'] - gap / 2, x0[1], x0[2]])}")
        more.append(f"particles.1.body.position={fmt([c['Rj'] + gap / 2, x1[1], x1[2]])}")
    if normal_series:
        more.append(f"output.snapshot_interval={dt!r}")
    return Case(test, series, param, sets + more, steps)


def run_case(dem, case, workdir):
    out = os.path.join(workdir, case.name + ".h5")
    cmd = [dem, "run", os.path.join(EXAMPLES, f"chung_ooi_test{case.test}.yaml"),
           "-o", out, "--force", "--quiet", "--threads", "1"]
    for s in case.sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}\n{p.stderr}")
    return out


def read_run(path, series=False):
    """The config as run, the planar case with its final state, and (for the
    normal tests) the overlap and contact force at every snapshot."""
    with demfile.open_run(path) as run:
        cfg = run.config()
        last = run.snapshot(-1)
        c = planar(cfg, last.bodies())
        # the bodies must have parted by the end of the run
        b = last.bodies()
        if c["wall"]:
            gap = b["position"][0][2] - c["Ri"]
        else:
            gap = np.linalg.norm(b["position"][0] - b["position"][1]) - c["Ri"] - c["Rj"]
        if not gap > 0:
            raise RuntimeError(f"{path}: still in contact at the end of the run")
        c["dt"] = num(cfg["simulation"]["time_step"])
        if series:
            ts, ds, fs = [], [], []
            for snap in run.snapshots():
                bb = snap.bodies()
                group = "wall_contacts" if c["wall"] else "contacts"
                if c["wall"]:
                    d = c["Ri"] - bb["position"][0][2]
                else:
                    d = c["Ri"] + c["Rj"] - np.linalg.norm(bb["position"][0] - bb["position"][1])
                f = snap.fields(group).get("force", np.zeros((0, 3))) \
                    if group in snap.groups() else np.zeros((0, 3))
                ts.append(snap.time)
                ds.append(d)
                fs.append(np.linalg.norm(f, axis=1).sum() if len(f) else 0.0)
            c["t"], c["d"], c["f"] = np.array(ts), np.array(ds), np.array(fs)
    return cfg, c


# ----------------------------------------------------------------------
# The tests: cases to run, and what each compares


def angles(quick, q):
    return q if quick else list(range(5, 90, 5))


def cases_for(test, quick):
    """The runs of a test: its example with --set values; speeds, radii and
    friction are the example's."""
    out = []
    base = planar(load_config(test), None)
    if test in (1, 2):
        mats = {1: ["glass", "limestone"], 2: ["aluminium_alloy", "magnesium_alloy"]}[test]
        for m in mats[:1] if quick else mats:
            out.append(timed(test, m, 0, [f"shapes.ball.material={m}"], STEPS_NORMAL, True))
    elif test == 3:
        grid = ([("alumina", 0.2, 3.9), ("alumina", 0.6, 3.9), ("alumina", 0.6, 0.1),
                 ("alumina", 0.6, 10.0)] if quick else
                [(m, e, v) for m in ("alumina", "cast_iron")
                 for e in (0.2, 0.4, 0.6, 0.8, 1.0) for v in (0.1, 1.0, 3.9, 10.0)])
        for m, e, v in grid:
            k = 0 if m == "alumina" else 1
            out.append(timed(3, f"{m}_v{v:g}", e,
                             [f"shapes.ball.material={m}",
                              f"contact.pairs.{k}.restitution={e!r}",
                              f"particles.0.body.velocity={fmt([0, 0, -v])}"], 400))
    elif test == 4:  # the example's speed at each angle
        v = math.hypot(base["ui"], base["vn"])
        for m in ["alumina"] if quick else ["alumina", "aluminium_alloy"]:
            for a in angles(quick, [10, 45, 80]):
                th = math.radians(a)
                vel = fmt([v * math.sin(th), 0, -v * math.cos(th)])
                out.append(timed(4, m, a, [f"shapes.ball.material={m}",
                                           f"particles.0.body.velocity={vel}"], STEPS_OBLIQUE))
    elif test == 5:
        xs = [2, 10] if quick else [0.25, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5,
                                    5.5, 6, 6.5, 7, 8, 10, 12, 14]
        for m in ["steel"] if quick else ["steel", "polyethylene"]:
            for x in xs:  # v_t = x mu v_n at the example's v_n and mu
                vel = fmt([x * base["mu"] * base["vn"], 0, -base["vn"]])
                out.append(timed(5, m, x, [f"shapes.ball.material={m}",
                                           f"particles.0.body.velocity={vel}"], STEPS_OBLIQUE))
    elif test == 6:  # v_st = v_n tan(angle) from the spin alone
        for m in ["aluminium_alloy"] if quick else ["aluminium_alloy", "nylon"]:
            for a in angles(quick, [30, 80]):
                w0 = -base["vn"] * math.tan(math.radians(a)) / base["Ri"]
                out.append(timed(6, m, a, [f"shapes.ball.material={m}",
                                           f"particles.0.body.angular_velocity={fmt([0, w0, 0])}"],
                                 STEPS_OBLIQUE))
    elif test == 7:
        series = ([("opposite", "aluminium_alloy"), ("same", "aluminium_alloy")] if quick else
                  [("opposite", "aluminium_alloy"), ("opposite", "copper"),
                   ("same", "aluminium_alloy"), ("same", "copper")])
        for sense, m in series:
            for a in angles(quick, [80]):  # each sphere's R w = v_n tan(angle) / 2
                w = base["vn"] / 2 * math.tan(math.radians(a)) / base["Ri"]
                w1 = w if sense == "same" else -w
                out.append(timed(7, f"{sense}_{m}", a,
                                 [f"shapes.ball.material={m}",
                                  f"particles.0.body.angular_velocity={fmt([0, w, 0])}",
                                  f"particles.1.body.angular_velocity={fmt([0, w1, 0])}"],
                                 STEPS_OBLIQUE))
    elif test == 8:  # as test 6
        for m in ["aluminium_alloy"] if quick else ["aluminium_alloy", "nylon"]:
            for a in angles(quick, [30, 80]):
                w0 = -base["vn"] * math.tan(math.radians(a)) / base["Ri"]
                out.append(timed(8, m, a, [f"shapes.small.material={m}",
                                           f"shapes.large.material={m}",
                                           f"particles.0.body.angular_velocity={fmt([0, w0, 0])}"],
                                 STEPS_OBLIQUE))
    return out


def convergence_cases(tests):
    """Test 4's alumina at 10 degrees (sticking for part of the impact) at
    20 (dem's own advice) to 3200 steps per contact; test 3's restitution
    0.2 at 400 (the study's) to 6400."""
    base = planar(load_config(4), None)
    v, th = math.hypot(base["ui"], base["vn"]), math.radians(10)
    vel = fmt([v * math.sin(th), 0, -v * math.cos(th)])
    spin = [timed(4, "convergence", n, ["shapes.ball.material=alumina",
                                        f"particles.0.body.velocity={vel}"], n)
            for n in (20, 50, 100, 200, 400, 800, 1600, 3200)]
    e = [timed(3, "convergence", n, ["contact.pairs.0.restitution=0.2"], n)
         for n in (400, 1600, 6400)]
    return (spin if 4 in tests else []) + (e if 3 in tests else [])


class Rows:
    """Measured against theory, one row each: what the summary prints, the
    CSV keeps and --check tests."""

    def __init__(self):
        self.rows = []

    def add(self, test, series, param, quantity, measured, theory, reference,
            checked=False, scale=None):
        """scale: compare |measured - theory| / scale (for quantities that
        pass through zero); otherwise the relative error."""
        if scale:
            err = abs(measured - theory) / scale
        else:
            err = abs(measured / theory - 1) if theory != 0 else abs(measured)
        self.rows.append(dict(test=test, series=series, param=param, quantity=quantity,
                              measured=measured, theory=theory, reference=reference,
                              rel_err=err, checked=checked))


def normal_analysis(rows, case, c):
    """Tests 1 and 2: maximum overlap and force, duration, rebound."""
    dmax, fmax, tc = hertz(c["mstar"], c["rstar"], c["estar"], c["vn"])
    t, d, f = c["t"], c["d"], c["f"]
    k = int(np.argmax(d))
    # the duration: where the overlap crosses zero, interpolated between
    # snapshots (the overlap is linear in time there: no force)
    on = np.nonzero(d > 0)[0]
    i0, i1 = on[0], on[-1]
    t_on = t[i0 - 1] + (t[i0] - t[i0 - 1]) * (-d[i0 - 1]) / (d[i0] - d[i0 - 1])
    t_off = t[i1] + (t[i1 + 1] - t[i1]) * d[i1] / (d[i1] - d[i1 + 1])
    meas = dict(dmax=d[k], fmax=f.max(), tc=t_off - t_on, e=c["vn_f"] / c["vn"])
    ref = "Hertz"
    rows.add(case.test, case.series, case.param, "max overlap (m)", meas["dmax"], dmax, ref, True)
    rows.add(case.test, case.series, case.param, "max force (N)", meas["fmax"], fmax, ref, True)
    rows.add(case.test, case.series, case.param, "contact duration (s)", meas["tc"], tc, ref, True)
    rows.add(case.test, case.series, case.param, "rebound / approach speed", meas["e"], c["e"], "e = 1", True)
    return dict(case=case, c=c, t_on=t_on, **meas, th_dmax=dmax, th_fmax=fmax, th_tc=tc)


def vary(test, c, p):
    """Case c of a series with its swept parameter set to p (for the
    impulse-theory curves): the angle of incidence (tests 4, 6-8) or v_t /
    (mu v_n) (test 5)."""
    c = dict(c)
    if test == 4:
        v, th = math.hypot(c["ui"], c["vn"]), math.radians(p)
        c["ui"], c["vn"] = v * math.sin(th), v * math.cos(th)
    elif test == 5:
        c["ui"] = p * c["mu"] * c["vn"]
    elif test in (6, 8):
        c["Wi"] = -c["vn"] * math.tan(math.radians(p)) / c["Ri"]
    elif test == 7:  # the same sense: the contact points slip at 2 R w
        c["Wi"] = c["Wj"] = c["vn"] / 2 * math.tan(math.radians(p)) / c["Ri"]
    c["vct"] = contact_velocity(c, "")
    return c


def oblique_quantities(test, c, r):
    """The normalised quantities each oblique test reads, from a planar
    case c and a final state r (measured: r = c)."""
    vn, vst = c["vn"], c["vct"]
    vn_f = r["vn_f"]
    ui, Wi = r["ui_f"], r["Wi_f"]
    uj, Wj = r["uj_f"], r["Wj_f"]
    rj = 0.0 if c["wall"] else c["Rj"]
    vct_f = (ui - c["Ri"] * Wi) - (uj + rj * Wj)
    q = {}
    if test == 4:
        q["tangential restitution v_t'/v_t"] = ui / c["ui"]
        q["spin w' (rad/s)"] = Wi
        q["rebound angle (deg)"] = math.degrees(math.atan2(vct_f, vn_f))
    elif test == 5:
        q["(v_t' - R w')/(mu v_n')"] = vct_f / (c["mu"] * vn_f)
        q["R w'/(mu v_n)"] = c["Ri"] * Wi / (c["mu"] * vn)
    elif test == 7 and abs(vst) < 1e-9 * abs(c["Ri"] * c["Wi"]):
        q["w'/w (sphere 0)"] = Wi / c["Wi"]
        q["w'/w (sphere 1)"] = Wj / c["Wj"]
        q["v_t'/v_n (sphere 0)"] = ui / vn
        q["v_t'/v_n (sphere 1)"] = uj / vn
    else:
        q["beta = -v_st'/v_st"] = -vct_f / vst
        q["v_st'/v_n'"] = vct_f / vn_f
        q["w' (rad/s)"] = Wi
        q["v_t' (m/s)"] = ui
    return q


def oblique_analysis(rows, group, quick, n_model, maw_too=True):
    """Tests 4-8, one series: dem against impulse theory in gross sliding
    (checked; with dem's torque arm, and with the classical arm R to show
    its effect), the model's equations (everywhere) and Maw et al. (tests 4
    and 5). Where a quantity passes through zero (the sticking range) the
    unchecked comparisons give |dem - reference| over the largest
    |reference| of the series."""
    cases = [c for _, c in group]
    test = group[0][0].test
    ref = model_reference_extrapolated(cases, n_model)
    maw = None
    if test in (4, 5) and maw_too:
        maw = maw_mdr(cases, 3000 if quick else 10000, 200 if quick else 800)
    out = []
    for k, (case, c) in enumerate(group):
        rm = {key: ref[key][k] for key in ref}
        imp = impulse_theory(c)
        meas = oblique_quantities(test, c, c)
        out.append(dict(case=case, c=c, meas=meas, imp=oblique_quantities(test, c, imp),
                        arm=oblique_quantities(test, c, impulse_theory(c, rm["dmean"])),
                        model=oblique_quantities(test, c, rm),
                        maw=oblique_quantities(test, c, {kk: maw[kk][k] for kk in maw}) if maw else None,
                        gross=imp["gross"] <= GROSS, X=imp["gross"],
                        spin_only=test == 7 and "w'/w (sphere 0)" in meas))
    scale = {q: max(abs(r["model"][q]) for r in out) for q in out[0]["meas"]}
    for r in out:
        case, c = r["case"], r["c"]
        for q, mv in r["meas"].items():
            if r["spin_only"]:
                rows.add(test, case.series, case.param, q, mv, r["imp"][q],
                         "no tangential force", True)
                continue
            if r["gross"]:
                rows.add(test, case.series, case.param, q, mv, r["arm"][q],
                         "impulse theory (dem's arm)", True)
                rows.add(test, case.series, case.param, q, mv, r["imp"][q],
                         "impulse theory (arm R)", False)
            rows.add(test, case.series, case.param, q, mv, r["model"][q],
                     "model equations", False, scale[q])
            if r["maw"]:
                rows.add(test, case.series, case.param, q, mv, r["maw"][q],
                         "Maw et al. by MDR (e = 1)", False, scale[q])
        rows.add(test, case.series, case.param, "normal restitution", c["vn_f"] / c["vn"],
                 c["e"], "configured e", True)
    return out


# ----------------------------------------------------------------------
# Output


def write_csv(path, rows, keys):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.9g}" if isinstance(v, float) else v) for k, v in r.items()})


def series_table(results):
    """Per case: the parameter and every quantity measured and by each
    theory, flat (one CSV row per case)."""
    table = []
    for r in results:
        row = dict(series=r["case"].series, param=r["case"].param,
                   X=r.get("X", math.nan), gross=int(r.get("gross", False)))
        for src in ("meas", "imp", "arm", "model", "maw"):
            for q, v in (r.get(src) or {}).items():
                row[f"{src}: {q}"] = v
        table.append(row)
    return table


def plots(img, results, conv):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(img, name), dpi=110)
        plt.close(fig)

    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]

    # Tests 1 and 2: force and overlap against time
    for test in (1, 2):
        if not results.get(test):
            continue
        fig, ax = plt.subplots(1, 2, figsize=(10, 3.8))
        for k, r in enumerate(results[test]):
            c = r["c"]
            t, d, f = hertz_curve(c["mstar"], c["rstar"], c["estar"], c["vn"])
            col = colours[k]
            tm = (c["t"] - r["t_on"]) * 1e6
            every = max(1, len(tm) // 80)  # dem has a snapshot every step
            ax[0].plot(t * 1e6, f / 1e3, color=col, lw=1, label=f"{r['case'].series}: Hertz")
            ax[0].plot(tm[::every], c["f"][::every] / 1e3, "o", ms=3, mfc="none", color=col,
                       label=f"{r['case'].series}: dem (every {every} steps)")
            ax[1].plot(t * 1e6, d * 1e6, color=col, lw=1)
            ax[1].plot(tm[::every], c["d"][::every] * 1e6, "o", ms=3, mfc="none", color=col)
        ax[0].set_xlabel("time from first touch (us)")
        ax[0].set_ylabel("normal force (kN)")
        ax[1].set_xlabel("time from first touch (us)")
        ax[1].set_ylabel("overlap (um)")
        ax[0].legend(fontsize=8)
        ax[1].set_ylim(bottom=0)
        ax[0].set_ylim(bottom=0)
        ax[0].set_title(f"Chung & Ooi test {test}: " +
                        ("two spheres, 10 m/s each" if test == 1 else "sphere on a rigid plane, 0.2 m/s"),
                        fontsize=10)
        save(fig, f"chung_ooi_test{test}.png")

    if results.get(3):
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        ax[0].plot([0, 1], [0, 1], "k-", lw=0.8, label="measured = configured")
        series = sorted({r["case"].series for r in results[3]})
        for k, s in enumerate(series):
            m, v = s.rsplit("_v", 1)
            rs = sorted([r for r in results[3] if r["case"].series == s], key=lambda r: r["case"].param)
            e = np.array([r["case"].param for r in rs])
            em = np.array([r["e"] for r in rs])
            style = dict(marker="os^v"[k % 4] if m == "alumina" else "x+1*"[k % 4], ms=6,
                         mfc="none", label=f"{m}, {v} m/s")
            ax[0].plot(e, em, ls="none", **style)
            ax[1].plot(e, (em / e - 1) * 1e4, ls="-", lw=0.6, **style)
        ax[0].set_xlabel("configured restitution e")
        ax[0].set_ylabel("measured v_n' / v_n")
        ax[0].set_title("Chung & Ooi test 3: normal impact on a rigid plane", fontsize=10)
        ax[1].set_xlabel("configured restitution e")
        ax[1].set_ylabel("(measured / configured - 1) x 1e4")
        ax[1].axhline(0, color="k", lw=0.6)
        ax[0].legend(fontsize=7)
        for a in ax:
            a.grid(alpha=0.3)
        save(fig, "chung_ooi_test3.png")

    def sweep(ax, res, key, xfun, legend=True):
        """dem's points, the model's equations and Maw et al. at the same
        cases, impulse theory as a dense curve; one colour per series."""
        by = {}
        for r in res:
            by.setdefault(r["case"].series, []).append(r)
        for k, (s, rs) in enumerate(by.items()):
            col = colours[k % len(colours)]
            rs = sorted(rs, key=lambda r: xfun(r["c"], r["case"].param))
            x = [xfun(r["c"], r["case"].param) for r in rs]
            ax.plot(x, [r["meas"][key] for r in rs], "o", ms=4, color=col,
                    label=f"{s}: dem" if legend else None)
            ax.plot(x, [r["model"][key] for r in rs], "-", lw=0.8, color=col,
                    label=f"{s}: model equations" if legend else None)
            if rs[0]["maw"]:
                ax.plot(x, [r["maw"][key] for r in rs], "--", lw=1, color=col,
                        label=f"{s}: Maw et al. by MDR (e = 1)" if legend else None)
            test, c0 = rs[0]["case"].test, rs[0]["c"]
            ps = [r["case"].param for r in rs]
            dense = (np.linspace(0.05, max(ps), 300) if test == 5 else
                     np.linspace(0.5, 89.5, 300) if test == 4 else
                     np.linspace(min(ps), max(ps), 300))
            cs = [(vary(test, c0, p), p) for p in dense]
            ax.plot([xfun(c, p) for c, p in cs],
                    [oblique_quantities(test, c, impulse_theory(c))[key] for c, _ in cs],
                    ":", lw=1.2, color=col, label=f"{s}: impulse theory" if legend else None)
        ax.grid(alpha=0.3)

    def by_param(c, p):
        return p

    def X(c, p):
        return 3.5 * c["mu"] * (1 + c["e"]) * c["vn"] / abs(c["vct"])

    def slip_ratio(c, p):
        return c["vct"] / c["vn"]

    if results.get(4):
        res = results[4]
        fig, ax = plt.subplots(2, 2, figsize=(10, 7.5))
        keys = ["tangential restitution v_t'/v_t", "spin w' (rad/s)", "rebound angle (deg)"]
        for a, key in zip(ax.flat, keys):
            sweep(a, res, key, by_param, a is ax.flat[0])
            a.set_xlabel("angle of incidence (deg)")
            a.set_ylabel(key)
        ax.flat[0].legend(fontsize=7)
        ax.flat[0].set_title("Chung & Ooi test 4: 3.9 m/s on a rigid plane", fontsize=10)
        if not conv:
            ax.flat[3].remove()
        else:
            a = ax.flat[3]
            n = np.array([r["case"].param for r in conv])
            key = "spin w' (rad/s)"
            err = np.array([abs(r["meas"][key] / r["model"][key] - 1) for r in conv])
            a.loglog(n, err, "o-", label="spin w', alumina at 10 deg")
            a.loglog(n, err[0] * n[0] / n, "k:", lw=0.8, label="first order")
            a.set_xlabel("time steps per Hertz contact time")
            a.set_ylabel("|dem / model equations - 1|")
            a.grid(alpha=0.3, which="both")
            a.legend(fontsize=8)
        save(fig, "chung_ooi_test4.png")

    if results.get(5):
        res = results[5]
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        for a, key in zip(ax, ["(v_t' - R w')/(mu v_n')", "R w'/(mu v_n)"]):
            sweep(a, res, key, by_param, a is ax[0])
            a.set_xlabel("v_t / (mu v_n)")
            a.set_ylabel(key)
        ax[0].legend(fontsize=7)
        ax[0].set_title("Chung & Ooi test 5: v_n = 5 m/s, e = 1, mu = 0.3", fontsize=10)
        save(fig, "chung_ooi_test5.png")

    for test, title in ((6, "test 6: spinning sphere on a rigid plane, v_n = 0.2 m/s"),
                        (8, "test 8: spinning sphere (R) on a sphere of 5R")):
        if not results.get(test):
            continue
        res = results[test]
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        sweep(ax[0], res, "beta = -v_st'/v_st", X, True)
        ax[0].set_xlabel("3.5 mu (1 + e) v_n / v_st")
        ax[0].set_ylabel("beta = -v_st'/v_st")
        ax[0].set_xscale("log")
        sweep(ax[1], res, "v_st'/v_n'", slip_ratio, False)
        ax[1].set_xlabel("v_st / v_n")
        ax[1].set_ylabel("v_st' / v_n'")
        ax[1].set_xlim(0, 6)  # the sticking range; beyond, the line of gross sliding
        ax[1].set_ylim(-1.5, 4.5)
        ax[1].set_title("(v_st / v_n < 6)", fontsize=10)
        ax[0].legend(fontsize=7)
        ax[0].set_title("Chung & Ooi " + title, fontsize=10)
        save(fig, f"chung_ooi_test{test}.png")

    if results.get(7):
        res = results[7]
        opp = [r for r in res if r["case"].series.startswith("opposite")]
        same = [r for r in res if r["case"].series.startswith("same")]
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        for k, s in enumerate(sorted({r["case"].series for r in opp})):
            rs = sorted([r for r in opp if r["case"].series == s], key=lambda r: r["c"]["Wi"])
            w0 = [r["c"]["Wi"] for r in rs]
            ax[0].plot(w0, [r["meas"]["w'/w (sphere 0)"] for r in rs], "o", ms=4,
                       color=colours[k], label=f"{s}: w'/w")
            ax[0].plot(w0, [r["meas"]["v_t'/v_n (sphere 0)"] for r in rs], "x", ms=5,
                       color=colours[k], label=f"{s}: v_t'/v_n")
        ax[0].axhline(1, color="k", lw=0.6)
        ax[0].axhline(0, color="k", lw=0.6)
        ax[0].set_xlabel("w of each sphere (rad/s), opposite senses")
        ax[0].set_ylabel("w'/w (dots), v_t'/v_n (crosses)")
        ax[0].set_title("Chung & Ooi test 7: equal and opposite spins", fontsize=10)
        ax[0].legend(fontsize=7)
        if same:
            sweep(ax[1], same, "beta = -v_st'/v_st", X, True)
            ax[1].set_xscale("log")
            ax[1].set_xlabel("3.5 mu (1 + e) v_n / v_st")
            ax[1].set_ylabel("beta = -v_st'/v_st")
            ax[1].set_title("same sense: the contact points slip at 2 R w", fontsize=10)
            ax[1].legend(fontsize=7)
        save(fig, "chung_ooi_test7.png")


def summary(rows):
    """One line per test, reference and quantity: the largest error."""
    worst = {}
    for r in rows:
        key = (r["test"], r["reference"], r["quantity"])
        w = worst.get(key)
        if w is None or r["rel_err"] > w["rel_err"]:
            worst[key] = dict(r, n=(w["n"] + 1) if w else 1)
        else:
            w["n"] += 1
    print(f"{'test':>4} {'reference':28s} {'quantity':34s} {'cases':>5} {'worst':>9}"
          "  (series, parameter: measured / theory)")
    for key in sorted(worst):
        w = worst[key]
        mark = "" if w["checked"] else "  (not checked)"
        print(f"{w['test']:4d} {w['reference']:28s} {w['quantity']:34s} {w['n']:5d} {w['rel_err']:9.2e}"
              f"  ({w['series']}, {w['param']:g}: {w['measured']:.6g} / {w['theory']:.6g}){mark}")


# ----------------------------------------------------------------------


def read_one(path, test, n_model):
    """--read: one run of an example, measured against theory."""
    if test is None:
        with demfile.open_run(path) as run:
            name = os.path.basename(str(run.config().get("output", {}).get("file", "")))
        digits = [ch for ch in name if ch.isdigit()]
        if not name.startswith("chung_ooi_test") or not digits:
            sys.exit(f"{path}: not a chung_ooi_testN run (give --test N)")
        test = int(digits[0])
    rows = Rows()
    case = Case(test, "read", 0, [], 0)
    if test in (1, 2):
        _, c = read_run(path, series=True)
        normal_analysis(rows, case, c)
    else:
        _, c = read_run(path)
        if test == 3:
            rows.add(3, "read", 0, "rebound / approach speed", c["vn_f"] / c["vn"], c["e"],
                     "configured e", True)
        else:
            oblique_analysis(rows, [(case, c)], False, n_model)
    for r in rows.rows:
        print(f"{r['quantity']:34s} {r['measured']:14.7g}  {r['reference']:28s} {r['theory']:14.7g}"
              f"  {'error' if not r['checked'] else 'error (checked)'} {r['rel_err']:.2e}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 1)[1])
    ap.add_argument("--dem", default=os.path.join(ROOT, "build", "dem"))
    ap.add_argument("--quick", action="store_true", help="a few points per test")
    ap.add_argument("--tests", default="1,2,3,4,5,6,7,8", help="which tests (default all)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "data", "chung_ooi"),
                    help="CSV directory (default docs/data/chung_ooi)")
    ap.add_argument("--img", default=os.path.join(ROOT, "docs", "img"),
                    help="plot directory (default docs/img)")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--jobs", type=int, default=2, help="dem runs at once (default 2)")
    ap.add_argument("--keep", help="keep the runs' .h5 files in this directory")
    ap.add_argument("--check", type=float, help="exit 1 if a checked quantity is off by more than this")
    ap.add_argument("--read", metavar="RUN.h5", help="compare one run of an example with theory")
    ap.add_argument("--test", type=int, help="with --read: the test (default: from the file)")
    a = ap.parse_args()
    n_model = 2000 if a.quick else 5000
    if a.read:
        return read_one(a.read, a.test, n_model)
    if not os.access(a.dem, os.X_OK):
        sys.exit(f"no dem binary at {a.dem} (build it, or give --dem)")
    tests = [int(t) for t in a.tests.split(",")]
    cases = [c for t in tests for c in cases_for(t, a.quick)]
    conv = [] if a.quick else convergence_cases(tests)
    workdir = a.keep or tempfile.mkdtemp(prefix="chung_ooi_")
    os.makedirs(workdir, exist_ok=True)
    print(f"{len(cases) + len(conv)} dem runs in {workdir}", flush=True)
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        files = list(pool.map(lambda c: run_case(a.dem, c, workdir), cases + conv))
    rows = Rows()
    results = {}
    groups = {}
    conv_e = []
    for case, path in zip(cases + conv, files):
        normal = case.test in (1, 2)
        _, c = read_run(path, series=normal)
        if normal:
            results.setdefault(case.test, []).append(normal_analysis(rows, case, c))
        elif case.test == 3 and case.series == "convergence":
            conv_e.append((case.param, c["vn_f"] / c["vn"] / c["e"] - 1))
        elif case.test == 3:
            e = c["vn_f"] / c["vn"]
            rows.add(3, case.series, case.param, "rebound / approach speed", e, c["e"],
                     "configured e", True)
            results.setdefault(3, []).append(dict(case=case, c=c, e=e))
        else:
            groups.setdefault((case.test, case.series), []).append((case, c))
    conv_res = []
    for (test, series), group in groups.items():
        if series == "convergence":
            conv_res = oblique_analysis(Rows(), group, a.quick, n_model, maw_too=False)
            continue
        results.setdefault(test, []).extend(oblique_analysis(rows, group, a.quick, n_model))
    if not a.keep:
        for f in files:
            os.remove(f)
            if os.path.exists(f[:-3] + ".xmf"):
                os.remove(f[:-3] + ".xmf")
        os.rmdir(workdir)

    os.makedirs(a.out, exist_ok=True)
    write_csv(os.path.join(a.out, "summary.csv"), rows.rows,
              ["test", "series", "param", "quantity", "measured", "theory", "reference",
               "rel_err", "checked"])
    for test, res in results.items():
        if test in (1, 2):
            table = [dict(series=r["case"].series, max_overlap=r["dmax"], hertz_max_overlap=r["th_dmax"],
                          max_force=r["fmax"], hertz_max_force=r["th_fmax"], duration=r["tc"],
                          hertz_duration=r["th_tc"], restitution=r["e"]) for r in res]
        elif test == 3:
            table = [dict(series=r["case"].series, configured_e=r["case"].param, measured_e=r["e"])
                     for r in res]
        else:
            table = series_table(res)
        keys = list(dict.fromkeys(k for row in table for k in row))
        write_csv(os.path.join(a.out, f"test{test}.csv"), table, keys)
    if conv_res:
        write_csv(os.path.join(a.out, "test4_convergence.csv"),
                  [dict(steps_per_contact=r["case"].param, spin=r["meas"]["spin w' (rad/s)"],
                        model_spin=r["model"]["spin w' (rad/s)"],
                        rel_err=r["meas"]["spin w' (rad/s)"] / r["model"]["spin w' (rad/s)"] - 1)
                   for r in conv_res],
                  ["steps_per_contact", "spin", "model_spin", "rel_err"])
    if conv_e:
        write_csv(os.path.join(a.out, "test3_convergence.csv"),
                  [dict(steps_per_contact=n, rel_err=err) for n, err in conv_e],
                  ["steps_per_contact", "rel_err"])
    if not a.no_plots:
        os.makedirs(a.img, exist_ok=True)
        plots(a.img, results, conv_res)
    summary(rows.rows)
    for r in conv_res:
        key = "spin w' (rad/s)"
        print(f"test 4, alumina at 10 deg, {r['case'].param:g} steps per contact: spin "
              f"{r['meas'][key] / r['model'][key] - 1:+.2e} from the model's equations")
    for n, err in conv_e:
        print(f"test 3, e = 0.2, {n:g} steps per contact: restitution {err:+.2e} from e")
    if 4 in tests or 5 in tests:
        print(f"Maw et al.'s solver: Mindlin's loading curve to {mindlin_check():.1e}")
    if a.check is not None:
        bad = [r for r in rows.rows if r["checked"] and not r["rel_err"] <= a.check]
        n = sum(r["checked"] for r in rows.rows)
        for r in bad:
            print(f"CHECK FAILED: test {r['test']} {r['series']} {r['param']:g} {r['quantity']}: "
                  f"{r['measured']:.7g} against {r['theory']:.7g} ({r['reference']}), "
                  f"error {r['rel_err']:.3g} > {a.check:g}")
        print(f"checked {n} quantities against theory, {len(bad)} off by more than {a.check:g}")
        if bad or n == 0:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
