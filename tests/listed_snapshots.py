"""The snapshots of killed files, for tests/lib.sh (start_snapshot_lister).

For each file path on standard input, one line: how many snapshots the
file's /snapshots lists, 000000.. without a gap, its last three read whole
(plain h5py); "none" when there is no such file; "-1 WHY" when the listing
has a gap or a read fails. Started once for a test that checks hundreds of
files: a start of python and h5py for each took 43 s of cli_h5_tear.
"""
import os
import sys

import h5py

for line in sys.stdin:
    path = line.rstrip("\n")
    if not os.path.exists(path):
        print("none")
        continue
    try:
        with h5py.File(path, "r") as f:
            names = list(f["snapshots"])
            if names != ["%06d" % i for i in range(len(names))]:
                raise ValueError("/snapshots lists ... %s" % names[-3:])
            for s in names[-3:]:
                f["snapshots"][s]["bodies/position"][()]
        print(len(names))
    except Exception as e:  # one line, whatever the message holds
        print(("-1 %s: %s" % (type(e).__name__, e)).replace("\n", " "))
