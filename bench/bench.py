#!/usr/bin/python3
"""Speed of dem on the rods box of issue 4, side by side with LAMMPS.

    /usr/bin/python3 bench/bench.py [--sizes 1000,10000,60000,100000,1000000]
        [--steps 1000] [--threads 1,2] [--repeats 3] [--lammps auto|off]

For each size (number of spheres), a box of three-sphere rods at 15 % solid
fraction (r = 0.035 m, E = 1 GPa, nu = 0.1, rho = 2500, frictionless Hertz,
dt = 38 us, 1 m/s and pi rad/s random starts, walls) runs a fixed number of
steps:
  * dem through bench/dem_bench.c (the library's step loop, timed per
    operator), once per thread count;
  * `dem run` itself (the product, with its per-step checks and output);
  * LAMMPS, when `lmp` is installed (Debian's lammps package), with the
    same rods as rigid bodies (fix rigid/small, pair granular
    hertz/material, fix wall/gran), the same dt, skin and steps, on 1 MPI
    rank and on as many ranks as the largest thread count.
Before each repeat a probe times pure arithmetic on 1 and 2 threads: on a
shared VM its speedup falls well below 2 whenever the host takes a vCPU
away, and the repeats measured then are not dem's to answer for: the
2-thread speedup's median is given over all repeats and over those whose
probe read above 1.9. The probe also times what two threads pay to meet
(an empty parallel region, a barrier): each of the step's regions pays
it, and on a guest whose system calls are slow it is microseconds
(docs/performance.md, "On the AMD EPYC Zen 5 machine"); and how long a
cache line one thread wrote takes to reach the other (two threads hand
a counter back and forth): each line the threads of a step share pays
it (docs/performance.md, "On an AMD EPYC Zen 3").
With --compare-sort, dem also runs with its bodies kept in input order
(contact.sort_bodies=off), interleaved with the sorted runs. Runs are
interleaved and repeated; the best of the repeats is reported and
the spread (worst/best) shows how noisy the machine was. Rates are
sphere-steps per second. The driver's rate is its step loop's alone: its
one energy row and snapshot are timed after the loop and listed apart, per
sphere; `dem run` writes a snapshot every --snapshot-steps steps (and the
first), so that large sizes, cut to fewer steps by --max-sphere-steps,
pay the same output per step. Documented in docs/performance.md.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import rods  # noqa: E402


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---- dem ----------------------------------------------------------------

DEM_CONFIG = """\
# rods box for bench/bench.py: {n_rods} rods, {n_spheres} spheres
simulation: {{time_step: {dt!r}, end_time: {end!r}, seed: {seed}}}
materials:
  glass: {{density: {rho!r}, young_modulus: {E!r}, poisson_ratio: {nu!r}{friction}}}
shapes:
  rod:
    material: glass
    spheres:
      - {{center: [-0.07, 0, 0], radius: 0.035}}
      - {{center: [0.0, 0, 0], radius: 0.035}}
      - {{center: [0.07, 0, 0], radius: 0.035}}
particles:
  - random_fill: {{shape: rod, count: {n_rods}, speed: {v!r}, angular_speed: {w!r}}}
domain:
  box: {{min: [0, 0, 0], max: [{L!r}, {L!r}, {L!r}]}}
  wall_material: glass
contact: {{model: {model}, skin: {skin!r}}}
scheme: spiral_leapfrog
output: {{snapshot_interval: {snap!r}, energy_interval: {end!r}, print_shapes: false}}
"""


# The frictional, damped box (--contact hertz_mindlin): dem's hertz_mindlin
# and LAMMPS's hertz/material + damping tsuji + tangential mindlin + rolling
# sds with the same restitution and friction coefficients.
RESTITUTION, FRICTION, ROLLING_FRICTION = 0.8, 0.5, 0.05


def write_dem_config(path, n_rods, steps, skin, seed, contact="hertz",
                     snapshot_steps=0):
    friction = ""
    if contact == "hertz_mindlin":
        friction = (", restitution: %r, friction: %r, rolling_friction: %r"
                    % (RESTITUTION, FRICTION, ROLLING_FRICTION))
    with open(path, "w") as f:
        f.write(DEM_CONFIG.format(
            n_rods=n_rods, n_spheres=3 * n_rods, dt=rods.DT,
            end=steps * rods.DT, seed=seed, rho=rods.DENSITY, E=rods.YOUNG,
            nu=rods.POISSON, v=rods.SPEED, w=float(rods.ANGULAR_SPEED),
            L=rods.box_edge(n_rods), skin=skin, model=contact,
            friction=friction, snap=snapshot_steps * rods.DT))


def build_driver(build, work, root=ROOT, name="dem_bench"):
    lib = os.path.join(build, "libdemcore.a")
    if not os.path.exists(lib):
        sys.exit("bench: %s missing: build dem first (cmake -S . -B build "
                 "&& cmake --build build -j2)" % lib)
    exe = os.path.join(work, name)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "hdf5",
                            "yaml-0.1"], capture_output=True, text=True,
                           check=True).stdout.split()
    # Compiled with -fopenmp, linked with the OpenMP runtime dem was
    # linked with: LLVM's libomp when CMakeLists.txt wrote its path, else
    # the compiler's own (-fopenmp at the link, which would bring libgomp
    # beside libomp).
    runtime = os.path.join(build, "openmp_runtime.txt")
    libomp = open(runtime).read().strip() if os.path.exists(runtime) else ""
    obj = exe + ".o"
    subprocess.run(["cc", "-O3", "-fopenmp",
                    "-I" + os.path.join(root, "include"),
                    "-I" + os.path.join(root, "src"),
                    '-DDEM_VERSION_STRING="bench"',
                    os.path.join(root, "bench", "dem_bench.c")] + flags +
                   ["-c", "-o", obj], check=True)
    subprocess.run(["cc", obj, lib] + flags +
                   ([libomp, "-lpthread"] if libomp else ["-fopenmp"]) +
                   ["-lm", "-o", exe], check=True)
    os.remove(obj)
    return exe


def prefer_short_spin():
    """dem itself spins briefly at barriers unless told otherwise (see
    src/cli/main.c): the same for the harness's driver, under libgomp and
    under libomp."""
    if "OMP_WAIT_POLICY" not in os.environ:
        os.environ.setdefault("GOMP_SPINCOUNT", "20000")
        os.environ.setdefault("KMP_BLOCKTIME", "1")


def run_cmd(cmd, env=None, cwd=None):
    """Runs cmd; returns (stdout, stderr); fails loudly."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd[:3]),
                                                    p.returncode,
                                                    p.stderr[-2000:]))
    return p.stdout, p.stderr


def dem_bench(exe, cfg, steps, threads, work, sets=()):
    out, err = run_cmd(
        [exe, cfg, str(steps), str(threads), os.path.join(work, "b.h5")]
        + list(sets), env=dict(os.environ, OMP_PROC_BIND="false"))
    r = {"ops": {}}
    for line in out.splitlines():
        k, *v = line.split()
        if k == "op":
            r["ops"][v[0]] = float(v[1])
        else:
            r[k] = float(v[0])
    return r


def machine_probe(exe):
    """The host's 1-to-2-thread speedup on pure arithmetic right now; what
    two threads pay to meet, an empty region and a barrier, in us; and
    how long a line one of them wrote takes to reach the other, in ns."""
    out, _ = run_cmd([exe, "--probe"])
    r = dict(line.split() for line in out.splitlines())
    return (float(r["probe_speedup"]), float(r["probe_region_us"]),
            float(r["probe_barrier_us"]), float(r["probe_line_ns"]))


def dem_run(dem, cfg, threads, work):
    out, err = run_cmd(
        [dem, "run", cfg, "-o", os.path.join(work, "run.h5"), "--force",
         "--threads", str(threads)])
    m = re.findall(r"([0-9.e+]+) sphere-steps/s", err)
    b = re.search(r"neighbour list builds: (\d+)", err)
    e, _ = run_cmd([dem, "energy", os.path.join(work, "run.h5")])
    return {"rate": float(m[-1]) if m else float("nan"),
            "builds": int(b.group(1)) if b else -1, "energy": e.strip()}


# ---- LAMMPS -------------------------------------------------------------

# The rigid clumps of spheres and their granular law, as LAMMPS holds
# them (read_data {data}, pair coefficients {law}, skin {skin}): the start
# of this harness's and bench/dense.py's inputs.
LAMMPS_RIGID_SETUP = """\
units si
atom_style sphere
atom_modify map array
boundary f f f
newton off
comm_modify vel yes
fix m all property/atom mol ghost yes
read_data {data} fix m NULL Molecules
pair_style granular
pair_coeff * * {law}
neighbor {skin!r} bin
neigh_modify delay 0 every 1 check yes exclude molecule/intra all
fix rig all rigid/small molecule
"""

LAMMPS_INPUT = """\
# rods box for bench/bench.py: {n_rods} rods as rigid bodies
""" + LAMMPS_RIGID_SETUP + """\
fix wx all wall/gran granular {law} xplane 0 {L!r}
fix wy all wall/gran granular {law} yplane 0 {L!r}
fix wz all wall/gran granular {law} zplane 0 {L!r}
timestep {dt!r}
compute kt all ke/rigid rig
compute kr all erotate/rigid rig
compute pl all pair/local dist
thermo_style custom step c_kt c_kr
thermo_modify format float %.17g
thermo {steps}
dump p0 all local 1 {tag}_pairs0.txt c_pl
dump a0 all custom 1 {tag}_atoms0.txt id x y z radius
run 0
undump p0
undump a0
run {steps}
dump p1 all local 1 {tag}_pairs1.txt c_pl
dump a1 all custom 1 {tag}_atoms1.txt id x y z radius
run 0
"""


def lammps_data(n_rods, work, seed):
    path = os.path.join(work, "rods_%d_%d.data" % (n_rods, seed))
    if not os.path.exists(path):
        t = time.time()
        edge, c, a, v, w = rods.random_rods(n_rods, seed)
        rods.write_lammps_data(path + ".tmp", edge, c, a, v, w)
        os.replace(path + ".tmp", path)
        log("  LAMMPS start for %d rods made in %.1f s" % (n_rods,
                                                          time.time() - t))
    return path


def read_dump_column(path, column):
    """Values of one column of a LAMMPS text dump (one snapshot)."""
    with open(path) as f:
        lines = f.readlines()
    for k, line in enumerate(lines):
        if line.startswith("ITEM: ATOMS") or line.startswith("ITEM: ENTRIES"):
            names = line.split()[2:]
            body = lines[k + 1:]
            if not body:
                return [np.zeros(0) for _ in column]
            data = np.loadtxt(body, ndmin=2)
            return [data[:, names.index(c)] for c in column]
    return [np.zeros(0) for _ in column]


def hertz_elastic(pair_dist, x, y, z, radius, edge):
    """Elastic energy, as dem computes it: U = 8/15 E* sqrt(R*) d^2.5 per
    sphere pair (E* = E / (2 (1 - nu^2)), R* = r/2) and per sphere-wall
    contact (R* = r)."""
    estar = rods.YOUNG / (2.0 * (1.0 - rods.POISSON ** 2))
    r = rods.RADIUS
    d = 2 * r - pair_dist
    d = d[d > 0]
    u = np.sum(8.0 / 15.0 * estar * np.sqrt(0.5 * r) * d ** 2.5)
    for c in (x, y, z):
        for dw in (radius - c, radius - (edge - c)):
            hit = dw > 0
            u += np.sum(8.0 / 15.0 * estar * np.sqrt(radius[hit])
                        * dw[hit] ** 2.5)
    return float(u)


def mindlin_law(young, poisson, radius, restitution, friction, rolling):
    """LAMMPS's granular law for dem's hertz_mindlin with these material
    values (spheres of this radius): hertz/material, damping tsuji,
    tangential mindlin, rolling sds. Rolling sds takes a constant
    stiffness: dem's k_r = 2.25 k_n mu_r^2 R*^2 at a typical overlap of
    1e-3 R* (k_n = 2 E* sqrt(R* d))."""
    estar = young / (2 * (1 - poisson ** 2))
    rstar = radius / 2
    k_n = 2 * estar * np.sqrt(rstar * 1e-3 * rstar)
    k_roll = 2.25 * k_n * rolling ** 2 * rstar ** 2
    return ("hertz/material %r %r %r damping tsuji tangential mindlin NULL "
            "1.0 %r rolling sds %r %r %r twisting none"
            % (young, restitution, poisson, friction, k_roll,
               0.3 * 2 * np.sqrt(k_roll * 1e-6), rolling))


def lammps_law(contact):
    """LAMMPS's granular law for dem's contact model (frictionless Hertz,
    or Tsuji-damped Hertz with Mindlin friction and rolling resistance)."""
    if contact == "hertz":
        return ("hertz/material %r 0.0 %r tangential linear_nohistory 0.0 0.0"
                % (rods.YOUNG, rods.POISSON))
    return mindlin_law(rods.YOUNG, rods.POISSON, rods.RADIUS, RESTITUTION,
                       FRICTION, ROLLING_FRICTION)


def lammps_exec(lmp, inp, log, procs, mpirun, work, steps):
    """Runs LAMMPS on input inp (in work) on procs MPI ranks, its log to
    log; returns (the log's text, loop seconds of the `steps`-step run,
    atoms)."""
    cmd = [lmp, "-in", os.path.basename(inp), "-log", log, "-screen", "none"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if procs > 1:
        cmd = [mpirun, "-np", str(procs), "--oversubscribe"] + cmd
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1",
                   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    run_cmd(cmd, env=env, cwd=work)
    text = open(os.path.join(work, log)).read()
    loops = re.findall(r"Loop time of ([0-9.e+-]+) on (\d+) procs for (\d+) "
                       r"steps with (\d+) atoms", text)
    t, n_atoms = [(float(x[0]), int(x[3])) for x in loops
                  if int(x[2]) == steps][0]
    return text, t, n_atoms


def lammps_run(lmp, n_rods, steps, skin, procs, work, seed, mpirun,
               contact="hertz"):
    data = lammps_data(n_rods, work, seed)
    tag = "lmp_%d_%d" % (n_rods, procs)
    inp = os.path.join(work, tag + ".in")
    with open(inp, "w") as f:
        f.write(LAMMPS_INPUT.format(
            n_rods=n_rods, data=os.path.basename(data), law=lammps_law(contact),
            skin=skin, L=rods.box_edge(n_rods), dt=rods.DT, steps=steps,
            tag=tag))
    text, t, n_atoms = lammps_exec(lmp, inp, tag + ".log", procs, mpirun,
                                   work, steps)
    builds = [int(b) for b in re.findall(r"Neighbor list builds = (\d+)", text)]
    rows = re.findall(r"^\s*(\d+)\s+([0-9.e+-]+)\s+([0-9.e+-]+)\s*$", text,
                      re.M)
    mem = re.findall(r"Per MPI rank memory allocation \(min/avg/max\) = "
                     r"[0-9.]+ \| ([0-9.]+) \|", text)
    out = {"rate": n_atoms * steps / t, "builds": max(builds),
           "rank_mbytes": max(float(x) for x in mem) if mem else None}
    energies = []
    for k, row in ((0, rows[0]), (1, rows[-1])):
        (dist,) = read_dump_column(os.path.join(work, "%s_pairs%d.txt" % (tag, k)), ["c_pl"])
        x, y, z, rad = read_dump_column(os.path.join(work, "%s_atoms%d.txt" % (tag, k)),
                                        ["x", "y", "z", "radius"])
        el = hertz_elastic(dist, x, y, z, rad, rods.box_edge(n_rods))
        energies.append(float(row[1]) + float(row[2]) + el)
    out["energy_start"], out["energy_end"] = energies
    return out


# ---- report -------------------------------------------------------------

def fmt_rate(x):
    return "%6.2fM" % (x / 1e6) if x == x else "    -  "


def best(runs, key):
    vals = [r[key] for r in runs if r.get(key) == r.get(key)]
    return (max(vals), max(vals) / min(vals) if vals else 1.0) if vals else (float("nan"), 1.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,60000,100000,1000000",
                    help="numbers of spheres (rounded to whole rods)")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--max-sphere-steps", type=float, default=2.5e8,
                    help="fewer steps for large sizes: steps <= this / spheres")
    ap.add_argument("--snapshot-steps", type=int, default=250,
                    help="`dem run` writes a snapshot every this many steps "
                    "(and the first), so that its output per step does not "
                    "grow as --max-sphere-steps cuts the steps of large sizes "
                    "(0: the first and the last only); the driver's loop and "
                    "rate hold no output, its one snapshot is timed apart")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skin", type=float, default=None,
                    help="neighbour skin in m, for dem and LAMMPS alike "
                         "(default %g, see docs/performance.md)" % rods.SKIN)
    ap.add_argument("--lammps", choices=["auto", "off"], default="auto")
    ap.add_argument("--no-dem-run", action="store_true",
                    help="skip the `dem run` measurement")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compare-sort", action="store_true",
                    help="also run dem with contact.sort_bodies=off "
                    "(bodies kept in input order), interleaved")
    ap.add_argument("--contact", choices=["hertz", "hertz_mindlin"],
                    default="hertz",
                    help="the contact law, dem's and LAMMPS's alike: "
                    "frictionless Hertz (the default) or hertz_mindlin "
                    "(Tsuji damping e = %g, friction %g, rolling friction "
                    "%g; LAMMPS: damping tsuji, tangential mindlin, rolling "
                    "sds)" % (RESTITUTION, FRICTION, ROLLING_FRICTION))
    ap.add_argument("--baseline", metavar="DIR",
                    help="another dem checkout with its own build (DIR/build, "
                    "e.g. a git worktree of the previous commit): its driver "
                    "runs interleaved with this one, and the report gives "
                    "this build's rate over its")
    a = ap.parse_args()
    prefer_short_spin()

    os.makedirs(a.work, exist_ok=True)
    dem = os.path.join(a.build, "dem")
    exe = build_driver(a.build, a.work)
    base_exe = None
    if a.baseline:
        base_exe = build_driver(os.path.join(a.baseline, "build"), a.work,
                                root=os.path.abspath(a.baseline),
                                name="dem_bench_baseline")
    lmp = shutil.which("lmp") if a.lammps == "auto" else None
    mpirun = shutil.which("mpirun")
    threads = [int(t) for t in a.threads.split(",")]
    skin = a.skin if a.skin else rods.SKIN
    print("bench: contact %s, dem %s, LAMMPS %s, threads %s, %d repeats, skin %g m, "
          "OMP_WAIT_POLICY=%s, load average %.2f %.2f %.2f"
          % (a.contact, dem, lmp or "not installed", threads, a.repeats, skin,
             os.environ.get("OMP_WAIT_POLICY", "(unset)"), *os.getloadavg()))
    results = []
    for size in [int(float(s)) for s in a.sizes.split(",")]:
        n_rods = max(1, round(size / 3))
        steps = max(10, min(a.steps, int(a.max_sphere_steps / (3 * n_rods))))
        cfg = os.path.join(a.work, "rods_%d.yaml" % n_rods)
        write_dem_config(cfg, n_rods, steps, skin, a.seed, a.contact,
                         a.snapshot_steps)
        res = {"spheres": 3 * n_rods, "steps": steps, "dem": {}, "run": {},
               "lmp": {}}
        if lmp:
            lammps_data(n_rods, a.work, a.seed)
        for rep in range(a.repeats):
            if 2 in threads:
                speedup, region, barrier, line = machine_probe(exe)
                res.setdefault("probe", []).append(speedup)
                res.setdefault("sync", []).append((region, barrier, line))
            for t in threads:
                log("  %d spheres, %d steps, repeat %d: dem %d thread(s)"
                    % (3 * n_rods, steps, rep + 1, t))
                res["dem"].setdefault(t, []).append(
                    dem_bench(exe, cfg, steps, t, a.work))
                if base_exe:
                    res.setdefault("baseline", {}).setdefault(t, []).append(
                        dem_bench(base_exe, cfg, steps, t, a.work))
                if a.compare_sort:
                    res.setdefault("unsorted", {}).setdefault(t, []).append(
                        dem_bench(exe, cfg, steps, t, a.work,
                                  ["contact.sort_bodies=off"]))
                if not a.no_dem_run:
                    res["run"].setdefault(t, []).append(
                        dem_run(dem, cfg, t, a.work))
                if lmp and (t == 1 or mpirun):
                    log("  ... LAMMPS %d rank(s)" % t)
                    res["lmp"].setdefault(t, []).append(
                        lammps_run(lmp, n_rods, steps, skin, t, a.work,
                                   a.seed, mpirun, a.contact))
        results.append(res)
        res["load"] = os.getloadavg()[0]
        report([res], threads, header=True)
    print()
    print("=== summary (best of %d; spread = best/worst) ===" % a.repeats)
    report(results, threads, header=True)
    details(results, threads)


def report(results, threads, header):
    t1, tn = threads[0], threads[-1]
    if header:
        print("%9s %6s | %9s %9s %7s %9s | %9s %9s | %6s | %6s %6s | %7s"
              % ("spheres", "steps", "dem %dT" % t1, "dem %dT" % tn,
                 "speedup", "dem run", "LAMMPS 1", "LAMMPS %d" % tn,
                 "ratio", "builds", "lmp", "B/sph"))
    for r in results:
        d1, s1 = best(r["dem"].get(t1, []), "sphere_steps_per_second")
        dn, sn = best(r["dem"].get(tn, []), "sphere_steps_per_second")
        run1, _ = best(r["run"].get(t1, []), "rate")
        l1, ls1 = best(r["lmp"].get(t1, []), "rate")
        ln, _ = best(r["lmp"].get(tn, []), "rate")
        b = r["dem"][t1][0]["builds"]
        lb = r["lmp"][t1][0]["builds"] if r["lmp"].get(t1) else -1
        mem = min(x["peak_rss_bytes"] for x in r["dem"][t1]) / r["spheres"]
        print("%9d %6d | %9s %9s %6.2fx %9s | %9s %9s | %5.2fx | %6d %6s | %7.0f"
              % (r["spheres"], r["steps"], fmt_rate(d1), fmt_rate(dn),
                 dn / d1, fmt_rate(run1), fmt_rate(l1), fmt_rate(ln),
                 d1 / l1 if l1 == l1 else float("nan"), b,
                 lb if lb >= 0 else "-", mem))
    sys.stdout.flush()


# The probe's 2-thread speedup above which both cores were the run's: the
# issue's condition for judging dem's 2-thread speedup.
PROBE_BOTH_CORES = 1.9


def speedups(runs1, runsn, key, probe=None):
    """Rate of each many-thread run over the 1-thread run just before it
    (median and range), and best over best; with `probe` (one reading per
    repeat), also the median over the repeats whose probe read above
    PROBE_BOTH_CORES."""
    pairs = [b_[key] / a_[key] for a_, b_ in zip(runs1, runsn)]
    out = "median %.2fx, range %.2f-%.2fx; best/best %.2fx" % (
        statistics.median(pairs), min(pairs), max(pairs),
        best(runsn, key)[0] / best(runs1, key)[0])
    if probe and len(probe) == len(pairs):
        kept = [x for x, p in zip(pairs, probe) if p > PROBE_BOTH_CORES]
        out += "; with the probe above %.1f: %s" % (
            PROBE_BOTH_CORES,
            "median %.2fx over %d of %d repeats" % (
                statistics.median(kept), len(kept), len(pairs))
            if kept else "no repeat")
    lines = [b_.get("line_ns_after") for b_ in runsn]
    if all(x is not None for x in lines):
        out += "; each repeat (a line between the cores right after): %s" % (
            ", ".join("%.2fx (%.0f ns)" % (x, l) for x, l in zip(pairs, lines)))
    return out


# The driver's output timings (bench/dem_bench.c): one energy row and one
# snapshot, written after the timed loop.
OUTPUT_OPS = ("output_energy_row", "output_snapshot")


def details(results, threads):
    print()
    print("=== per operator, 1 thread, best repeat: seconds (share of loop); "
          "then the most threads' best repeat (speedup per operator) ===")
    for r in results:
        runs = r["dem"][threads[0]]
        x = max(runs, key=lambda q: q["sphere_steps_per_second"])
        ops = ", ".join("%s %.3f (%.0f%%)" % (k, v, 100 * v / x["loop_seconds"])
                        for k, v in x["ops"].items() if k not in OUTPUT_OPS)
        print("%d spheres: loop %.3f s; %s" % (r["spheres"], x["loop_seconds"], ops))
        # Each step's own time: its 10th percentile, in the repeats of each
        # thread count, is what a step costs when the host lets it run
        # (the loop's total carries every interruption). It leaves out the
        # steps that rebuild the lists: a measure to compare builds with,
        # not a rate to set beside LAMMPS's.
        for t in threads:
            p10 = [q["step_p10_seconds"] for q in r["dem"].get(t, [])
                   if "step_p10_seconds" in q]
            if p10:
                print("   %d thread(s): steps' 10th percentile %.1f us at best "
                      "(%.3g M sphere-steps/s in a step without a rebuild), "
                      "%.1f us at worst over the repeats"
                      % (t, 1e6 * min(p10), r["spheres"] / min(p10) / 1e6,
                         1e6 * max(p10)))
        # Written once after the loop whatever the steps: outside the loop
        # and its rate, so shown per sphere, not as a share of a loop whose
        # steps shrink with size (--max-sphere-steps).
        print("   output, once after the loop (not in the rate): %s" % ", ".join(
            "%s %.3f s (%.0f ns per sphere)"
            % (k, x["ops"][k], 1e9 * x["ops"][k] / r["spheres"])
            for k in OUTPUT_OPS if k in x["ops"]))
        if len(threads) > 1 and r["dem"].get(threads[-1]):
            tn = threads[-1]
            y = max(r["dem"][tn], key=lambda q: q["sphere_steps_per_second"])
            print("   %d threads, best repeat: loop %.3f s; %s" % (
                tn, y["loop_seconds"], ", ".join(
                    "%s %.3f (%.2fx)" % (k, v, x["ops"][k] / v if v else 0)
                    for k, v in y["ops"].items())))
        print("   neighbour builds %d in %d steps, pairs %d, active spheres %d, "
              "list bytes/sphere %.0f, peak RSS/sphere %.0f B"
              % (x["builds"], r["steps"], x["pairs"], x["active"],
                 x["neighbor_bytes"] / r["spheres"],
                 x["peak_rss_bytes"] / r["spheres"]))
    print()
    print("=== spread of the repeats (best/worst rate) and energy ===")
    for r in results:
        parts = []
        for t, runs in sorted(r["dem"].items()):
            parts.append("dem %dT %.2f" % (t, best(runs, "sphere_steps_per_second")[1]))
        for t, runs in sorted(r["lmp"].items()):
            parts.append("LAMMPS %d %.2f" % (t, best(runs, "rate")[1]))
        x = r["dem"][threads[0]][0]
        e = "dem relative energy change %.3g" % (
            (x["energy_end"] - x["energy_start"]) / x["energy_start"])
        if r["lmp"].get(1):
            y = r["lmp"][1][0]
            e += ", LAMMPS %.3g" % ((y["energy_end"] - y["energy_start"])
                                    / y["energy_start"])
        if r["run"].get(threads[0]):
            e += "; dem energy: " + r["run"][threads[0]][0]["energy"].splitlines()[-1]
        print("%d spheres (load average %.1f at the end): %s; %s"
              % (r["spheres"], r["load"], ", ".join(parts), e))
        for t in threads:
            if r.get("baseline", {}).get(t):
                print("   this build / baseline, %dT, adjacent runs: %s"
                      % (t, speedups(r["baseline"][t], r["dem"][t],
                                     "sphere_steps_per_second")))
        if len(r["dem"]) > 1:
            t1, tn = threads[0], threads[-1]
            for name, key in (("sorted", "dem"), ("unsorted", "unsorted")):
                if key not in r:
                    continue
                print("   %s bodies: %dT/%dT speedup of adjacent runs: %s"
                      % (name if "unsorted" in r else "dem", tn, t1,
                         speedups(r[key][t1], r[key][tn],
                                  "sphere_steps_per_second",
                                  r.get("probe"))))
            if r["lmp"].get(t1) and r["lmp"].get(tn):
                print("   LAMMPS: %d/%d ranks speedup of adjacent runs: %s"
                      % (tn, t1, speedups(r["lmp"][t1], r["lmp"][tn], "rate",
                                          r.get("probe"))))
            if r.get("probe"):
                pr = r["probe"]
                print("   machine probe (arithmetic only, before each repeat): "
                      "2T/1T %s" % " ".join("%.2f" % x for x in pr))
                sync = r.get("sync", [])
                print("   two threads meeting (the same probe): an empty "
                      "region %s us, a barrier %s us; a line from one's "
                      "core to the other's %s ns" % (
                          " ".join("%.2f" % x for x, _, _ in sync),
                          " ".join("%.2f" % y for _, y, _ in sync),
                          " ".join("%.0f" % z for _, _, z in sync)))
            same = all(abs(a_["energy_end"] - b_["energy_end"]) == 0
                       for a_ in r["dem"][threads[0]] for b_ in r["dem"][threads[-1]])
            print("   final energy bitwise the same for %s threads: %s"
                  % (threads, "yes" if same else "NO"))


if __name__ == "__main__":
    main()
