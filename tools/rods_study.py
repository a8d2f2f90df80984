#!/usr/bin/python3
"""The rods-in-a-box energy study: several seeds with SPIRAL, the three schemes
of the conference paper's Fig. 2 on one seed, and the energy error of a single
head-on collision against an independent 1-D leapfrog (the source of the error).

    /usr/bin/python3 tools/rods_study.py [--dem build/dem] [--seeds 10] [--out DIR]
"""
import argparse
import concurrent.futures as cf
import math
import os
import subprocess
import sys

import numpy as np

import demfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(dem, out, sets):
    cmd = [dem, "run", os.path.join(ROOT, "examples/box_rods.yaml"), "-o", out,
           "--force", "--quiet", "--threads", "1"]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True)
    with demfile.open_run(out) as r:
        e = r.energy()
    t, tot = e["time"], e["total"]
    d = (tot - tot[0]) / abs(tot[0])
    return t, d


def collision(dem, workdir, k):
    """Two glass spheres head on at 1 m/s each, onset phase k/10 of a step."""
    cfg = os.path.join(workdir, "collision.yaml")
    with open(cfg, "w") as f:
        f.write("simulation: {time_step: 38.0e-6, end_time: 0.04}\n"
                "materials: {glass: {density: 2500, young_modulus: 1.0e9, poisson_ratio: 0.1}}\n"
                "shapes: {ball: {material: glass, spheres: [{center: [0,0,0], radius: 0.035}]}}\n"
                "particles:\n"
                f"  - body: {{shape: ball, position: [{-0.045 - k * 3.8e-6!r}, 0, 0], velocity: [1, 0, 0]}}\n"
                "  - body: {shape: ball, position: [0.045, 0, 0], velocity: [-1, 0, 0]}\n"
                "contact: {skin: 0.005}\n")
    out = os.path.join(workdir, f"collision_{k}.h5")
    subprocess.run([dem, "run", cfg, "-o", out, "--force", "--quiet"], check=True)
    with demfile.open_run(out) as r:
        tot = r.energy()["total"]
    dem_dev = (tot[-1] - tot[0]) / tot[0]
    # the same collision by a plain 1-D leapfrog, written independently here
    R, rho, E, nu, dt = 0.035, 2500.0, 1e9, 0.1, 38e-6
    m = 4 / 3 * math.pi * R**3 * rho
    es, rs = E / (2 * (1 - nu * nu)), R / 2
    x = np.array([-0.045 - k * 3.8e-6, 0.045])
    v = np.array([1.0, -1.0])

    def force(x):
        d = 2 * R - (x[1] - x[0])
        if d <= 0:
            return np.zeros(2)
        F = 4 / 3 * es * math.sqrt(rs * d) * d
        return np.array([-F, F])

    f = force(x)
    v = v - 0.5 * dt * f / m
    for _ in range(int(0.04 / dt + 0.5)):
        v = v + dt * f / m
        x = x + dt * v
        f = force(x)
    vs = v + 0.5 * dt * f / m
    ref_dev = (0.5 * m * (vs**2).sum() - m) / m
    return dem_dev, ref_dev


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dem", default=os.path.join(ROOT, "build/dem"))
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--out", default="rods_study")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    jobs = {}
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        for s in range(1, a.seeds + 1):
            jobs[("spiral_leapfrog", s)] = pool.submit(
                run, a.dem, os.path.join(a.out, f"seed{s}.h5"), [f"simulation.seed={s}"])
        for sc in ("omelyan", "fincham"):
            jobs[(sc, 1)] = pool.submit(
                run, a.dem, os.path.join(a.out, f"{sc}.h5"), [f"scheme={sc}"])
        coll = [pool.submit(collision, a.dem, a.out, k) for k in range(10)]
        results = {k: j.result() for k, j in jobs.items()}
        coll = [c.result() for c in coll]

    print("rods in a box, 20 s, dt = 38 us: relative energy deviation |E-E0|/E0")
    print(f"{'scheme':16s} {'seed':>4s} {'max':>10s} {'end':>10s}")
    rows = []
    for (sc, s), (t, d) in sorted(results.items()):
        rows.append((sc, s, np.abs(d).max(), d[-1]))
        print(f"{sc:16s} {s:4d} {np.abs(d).max():10.3e} {d[-1]:+10.3e}")
    sp = np.array([r[2] for r in rows if r[0] == "spiral_leapfrog"])
    print(f"spiral_leapfrog over {len(sp)} seeds: max deviation median "
          f"{np.median(sp):.3e}, range {sp.min():.3e} .. {sp.max():.3e}")
    print("\nsingle head-on collision (1 m/s each), onset phase k/10 of a step:")
    print(f"{'k':>2s} {'dem':>12s} {'1-D leapfrog':>13s}")
    for k, (dd, rd) in enumerate(coll):
        print(f"{k:2d} {dd:+12.4e} {rd:+13.4e}")
    with open(os.path.join(a.out, "rods_study.csv"), "w") as f:
        f.write("scheme,seed,max_rel_dev,end_rel_dev\n")
        for r in rows:
            f.write(f"{r[0]},{r[1]},{r[2]:.6e},{r[3]:.6e}\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for sc in ("spiral_leapfrog", "omelyan", "fincham"):
            t, d = results[(sc, 1)]
            ax.plot(t, d, lw=0.8, label=sc)
        ax.set_xlabel("time [s]")
        ax.set_ylabel("(E - E0) / E0")
        ax.set_title("30 rods in a box, dt = 38 us, seed 1 (cf. EPJ WoC Fig. 2)")
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "rods_energy.png"), dpi=120)
    except ImportError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
