"""Opening dem's HDF5 output from the Python tools, with one clear error."""
import os

import h5py


def open_dem_file(path):
    """The file opened read-only; ValueError with a message naming it if it
    is missing, not HDF5, or not written by dem."""
    if not os.path.exists(path):
        raise ValueError(f"{path}: No such file or directory")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise ValueError(f"{path}: cannot open as HDF5 ({e})") from None
    if "dem_version" not in f.attrs:
        f.close()
        raise ValueError(f"{path}: not a dem output file (no dem_version attribute)")
    return f
