"""Loads a dem run's XDMF sidecar with ParaView's readers and checks what
they give: blocks "spheres" and "bodies" with their velocity fields, equal
to the HDF5 file's, at the first and the last snapshot.

Usage: xvfb-run -a pvbatch tests/paraview_load.py ./RUN.xmf
The two readers must agree, and the values equal the file's as h5py reads
them (when pvbatch's python has h5py). Exits 1 on a failure.
"""
import sys

from paraview import servermanager as sm
from paraview.simple import XDMFReader, Xdmf3ReaderT
from vtk.util.numpy_support import vtk_to_numpy

xmf = sys.argv[1]
failures = []

NEED = {
    "spheres": {"radius": 1, "body": 1, "velocity": 3, "angular_velocity_lab": 3},
    "bodies": {"velocity": 3, "angular_velocity_lab": 3, "mass": 1, "shape": 1},
}


def blocks(data):
    """The leaves of the reader's multiblock, in order, with their names."""
    out = []
    for k in range(data.GetNumberOfBlocks()):
        md = data.GetMetaData(k)
        name = md.Get(data.NAME()) if md.Has(data.NAME()) else None
        out.append((name, data.GetBlock(k)))
    return out


results = {}
for label, make in (("XDMF Reader", lambda: XDMFReader(FileNames=[xmf])),
                    ("Xdmf3ReaderT", lambda: Xdmf3ReaderT(FileName=[xmf]))):
    reader = make()
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues)
    if len(times) < 2:
        failures.append("%s: %d time steps" % (label, len(times)))
        continue
    for t in (times[0], times[-1]):
        reader.UpdatePipeline(t)
        got = blocks(sm.Fetch(reader))
        if len(got) != 2:
            failures.append("%s, t = %g: %d blocks, expected spheres and bodies"
                            % (label, t, len(got)))
            continue
        for (name, grid), want in zip(got, ("spheres", "bodies")):
            # XDMF Reader names the blocks; Xdmf3ReaderT keeps their order
            if label == "XDMF Reader" and name != want:
                failures.append("%s: block %r, expected %r" % (label, name, want))
            pd = grid.GetPointData()
            for array, width in NEED[want].items():
                a = pd.GetArray(array)
                if a is None or a.GetNumberOfComponents() != width:
                    failures.append("%s, t = %g: %s lacks %s (%d components)"
                                    % (label, t, want, array, width))
                    continue
                if a.GetNumberOfTuples() != grid.GetNumberOfPoints() or grid.GetNumberOfCells() != grid.GetNumberOfPoints():
                    failures.append("%s, t = %g: %s: %d values, %d points, %d cells"
                                    % (label, t, want, a.GetNumberOfTuples(),
                                       grid.GetNumberOfPoints(), grid.GetNumberOfCells()))
                results.setdefault((want, array, t), []).append(vtk_to_numpy(a).copy())
    print("%s: %d time steps, blocks %s" % (label, len(times), [n for n, _ in got]))

# Both readers read the same numbers.
for key, values in results.items():
    if len(values) == 2 and not (values[0] == values[1]).all():
        failures.append("the readers disagree on %s/%s at t = %g" % key)
try:
    import os

    import h5py
    h5 = os.path.join(os.path.dirname(os.path.abspath(xmf)),
                      os.path.basename(xmf)[:-4] + ".h5")
    with h5py.File(h5, "r") as f:
        names = sorted(f["snapshots"])
        for (block, array, t), values in results.items():
            snap = [n for n in names if f["snapshots"][n].attrs["time"] == t]
            ref = f["snapshots"][snap[-1]][block][array][()] if snap else None
            if ref is None or not (values[0] == ref).all():
                failures.append("%s/%s at t = %g differs from the file" % (block, array, t))
    print("compared with %s: %d arrays" % (h5, len(results)))
except ImportError:
    print("no h5py in pvbatch's python: values not compared with the file")
speeds = [v[0] for (block, array, t), v in results.items()
          if block == "spheres" and array == "velocity"]
if not speeds or max(abs(s).max() for s in speeds) == 0:
    failures.append("the spheres' velocities are all zero")

for line in failures:
    print("FAIL:", line)
print("paraview_load: %d failures" % len(failures))
sys.exit(1 if failures else 0)
