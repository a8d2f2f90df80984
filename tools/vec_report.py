#!/usr/bin/python3
"""Whether the SIMD block kernels of the rotation schemes are vectorised.

usage: vec_report.py [--cc gcc|clang] [--native] [FILE.c ...]

Compiles the files that define block kernels (default: src/integrators/*.c
and src/operators/rot_bodies.c) with the build's flags (-O3 -fopenmp
-std=c11 -ffp-contract=off -fno-math-errno; --native adds -march=native)
and prints, for each kernel variant (a function NAME_base, NAME_avx2 or
NAME_avx512):

* with gcc, the loops its vectoriser reports (-fdump-tree-vect-optimized,
  the per-function form of -fopt-info-vec-optimized) and their vector
  width: 16 bytes (SSE2, 2 doubles), 32 (AVX2, 4) or 64 (AVX-512, 8);
* from its machine code (objdump), the double arithmetic (add, sub, mul,
  div, sqrt) as packed instructions (..pd, whole vectors) and as scalar
  ones (..sd): a vectorised lane loop leaves a few scalar ones outside it
  (dt / 2 and such); an unvectorised one is all scalar.

It fails (exit 1) if a variant has no vectorised loop or more scalar than
packed arithmetic. Run from the repository's root.
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

VARIANT = re.compile(r"^(.*)_(base|avx2|avx512)$")
ARITH = re.compile(r"^v?(add|sub|mul|div|sqrt)(pd|sd)$")


def compile_one(cc, src, flags, tmp):
    obj = os.path.join(tmp, os.path.basename(src) + ".o")
    dump = os.path.join(tmp, os.path.basename(src) + ".vect")
    cmd = [cc, "-O3", "-fopenmp", "-std=c11", "-ffp-contract=off",
           "-fno-math-errno", "-D_POSIX_C_SOURCE=200809L", "-Isrc",
           "-Iinclude"] + flags + ["-c", src, "-o", obj]
    if cc.endswith("gcc") or cc == "cc":
        cmd.append("-fdump-tree-vect-optimized=" + dump)
    subprocess.run(cmd, check=True)
    loops = collections.defaultdict(list)
    if os.path.exists(dump):
        fn = None
        for line in open(dump):
            m = re.match(r";; Function (\S+)", line)
            if m:
                fn = m.group(1)
            m = re.search(r"loop vectorized using (\d+) byte vectors", line)
            if m and fn:
                loops[fn].append(int(m.group(1)))
    arith = collections.defaultdict(lambda: [0, 0])
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj],
                         capture_output=True, text=True, check=True).stdout
    fn = None
    for line in out.splitlines():
        m = re.match(r"[0-9a-f]+ <(\S+)>:", line)
        if m:
            fn = m.group(1)
            continue
        parts = line.split("\t")
        if fn and len(parts) >= 2:
            m = ARITH.match(parts[1].split()[0] if parts[1].split() else "")
            if m:
                arith[fn][m.group(2) == "sd"] += 1
    return loops, arith


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--native", action="store_true")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or sorted(glob.glob("src/integrators/*.c")) + [
        "src/operators/rot_bodies.c"]
    flags = ["-march=native"] if a.native else []
    bad = 0
    print("%-40s %-7s %-28s %s" % ("file:kernel", "variant",
                                   "vectorised loops (bytes)",
                                   "packed / scalar arithmetic"))
    with tempfile.TemporaryDirectory() as tmp:
        for src in files:
            loops, arith = compile_one(a.cc, src, flags, tmp)
            names = sorted({f for f in list(loops) + list(arith)
                            if VARIANT.match(f)})
            for f in names:
                kernel, variant = VARIANT.match(f).groups()
                packed, scalar = arith[f]
                widths = loops.get(f, [])
                ok = packed > scalar and (widths or not loops)
                bad += not ok
                print("%-40s %-7s %-28s %d / %d%s" % (
                    os.path.basename(src)[:-2] + ":" + kernel, variant,
                    ", ".join(str(w) for w in sorted(widths)) or "-",
                    packed, scalar, "" if ok else "   NOT VECTORISED"))
    if bad:
        print("%d kernel variants not vectorised" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
