"""balance_check.py RUN.h5 [--work F] [--dissipated F]: a run's energy
balance (tools/demfile.py's energy_balance: total + dissipated - wall_work
- inserted) constant within 1e-3 of its starting value E0, and the check
worth something: the walls' work and the work dissipated by the contacts,
at the end, more than F |E0| each where asked. For cli_drum and cli_silo.
"""
import argparse
import sys

import h5py
import numpy as np
from demfile import energy_balance

ap = argparse.ArgumentParser()
ap.add_argument("run")
ap.add_argument("--work", type=float)
ap.add_argument("--dissipated", type=float)
a = ap.parse_args()
e = {k: v[()] for k, v in h5py.File(a.run, "r")["energy"].items()}
D, W = e["dissipated"], e["wall_work"]
b = energy_balance(e)
dev = np.max(np.abs(b - b[0])) / abs(b[0])
print("largest |E + D - W - E0| / E0 = %.3g; wall work %.4g J, dissipated "
      "%.4g J, E0 %.4g J" % (dev, W[-1], D[-1], b[0]))
ok = dev < 1e-3
if a.work is not None:
    ok = ok and W[-1] > a.work * abs(b[0])
if a.dissipated is not None:
    ok = ok and D[-1] > a.dissipated * abs(b[0])
sys.exit(0 if ok else 1)
