#!/usr/bin/python3
"""Reading dem's HDF5 output: a run, its snapshots and its energy series.

A small module for post-processing, so that scripts do not start from raw
HDF5 paths (the layout is in docs/output.md). Put tools/ on the path
(``PYTHONPATH=tools`` or ``sys.path.insert``) and::

    import demfile

    with demfile.open_run("box_rods.h5") as run:
        print(run.dem_version, run.scheme, run.time_step)
        print(len(run), "snapshots at", [s.time for s in run.snapshots()])
        last = run.snapshot(-1)              # or "last", or by name: "000003"
        bodies = last.bodies()               # {"position": (N, 3), "mass": (N,), ...}
        spheres = last.spheres()             # {"position": (M, 3), "radius": (M,), "body": (M,)}
        energy = run.energy()                # {"time": ..., "total": ..., ...}, rows written
        walls = run.walls()                  # {"box_zmin": {"time", "force", "torque", ...}, ...}
        print(run.config_text())             # the YAML as run (after --set)

Every group is read by name and returned whole, as a dict of numpy arrays:
datasets this module does not know (new ones appear as dem grows) come
along and are never an error. ``attrs`` (of a run, a snapshot, or each
dataset through ``Snapshot.field_attrs``) are dicts with strings decoded.
Files still being written can be read: HDF5 file locking is off (set
before h5py loads), and energy rows not yet flushed are dropped.

Run as a script, ``demfile.py OUT.h5`` prints a summary of the file.
"""
import os
import sys

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

import h5py  # noqa: E402
import numpy as np  # noqa: E402

__all__ = ["open_run", "open_dem_file", "Run", "Snapshot"]

# Fill values of the /energy columns (src/io/h5_util.h): rows of a run
# killed in the middle of a flush read as these.
STEP_FILL = np.iinfo(np.int64).min
DOUBLE_FILL_BITS = np.uint64(0x7FF80DE0DE0DE0DE)


def _text(value):
    """A str from what h5py returns for a string (bytes, str or a 0-d array)."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def _attrs(obj):
    """The HDF5 attributes of obj as a dict, strings decoded, scalars as Python numbers."""
    out = {}
    for k, v in obj.attrs.items():
        v = _text(v)
        if isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


def _read_rows(ds, n=None):
    """The first n rows of a dataset (all without n). A kill in the middle
    of a flush can leave the last chunk of an extendible series past the
    end of the file that HDF5 records ("addr overflow"): its rows were not
    completely written, and are dropped here (whole chunks, as dem's own
    reader does), so the result may be shorter than asked. Chunks that a
    kill's torn write hid from HDF5 are read as dem's reader does
    (_read_lost_chunks)."""
    n = ds.shape[0] if n is None or not ds.shape else min(n, ds.shape[0])
    while True:
        try:
            rows = ds[()] if not ds.shape else ds[:n]
            return _read_lost_chunks(ds, rows)
        except OSError as e:
            if "addr overflow" not in str(e) or not ds.chunks or n == 0:
                raise
            chunk = ds.chunks[0]
            n = (n - 1) // chunk * chunk


def _allocated_end(file):
    """The end of the file's allocated space that its superblock records
    (8-byte addresses, as dem writes; versions 0 to 3)."""
    with open(file.filename, "rb") as f:
        f.seek(file.userblock_size)
        sb = f.read(64)
    at = {0: 40, 1: 44}.get(sb[8], 28)
    return int.from_bytes(sb[at:at + 8], "little")


def _read_lost_chunks(ds, rows):
    """rows (the first rows of chunked series ds) with each chunk whose
    first row reads as the fill value, but which the chunk index lists
    inside the allocated space, read from the address it lists: a kill can
    tear the write of the index node where it crosses a page of the file,
    and HDF5's lookups then miss chunks that are in the file (dem's reader
    does the same: src/io/h5_lost_chunks.c)."""
    if not ds.chunks or not len(rows) or ds.fillvalue is None:
        return rows
    fill = np.asarray(ds.fillvalue, dtype=ds.dtype).tobytes()
    step = ds.chunks[0]
    if not any(rows[r:r + 1].tobytes()[:len(fill)] == fill
               for r in range(0, len(rows), step)):
        return rows
    rows = np.array(rows)
    end = _allocated_end(ds.file)
    size = int(np.prod(ds.chunks)) * ds.dtype.itemsize
    with open(ds.file.filename, "rb") as f:
        for r0 in range(0, len(rows), step):
            if rows[r0:r0 + 1].tobytes()[:len(fill)] != fill:
                continue
            # HDF5 finds it by walking the index, not by its keys
            info = ds.id.get_chunk_info_by_coord((r0,) + (0,) * (ds.ndim - 1))
            if (info.byte_offset is None or info.filter_mask or info.size != size
                    or info.byte_offset + size > end):
                continue
            f.seek(ds.file.userblock_size + info.byte_offset)
            chunk = np.frombuffer(f.read(size), dtype=ds.dtype).reshape(ds.chunks)
            m = min(step, len(rows) - r0)
            rows[r0:r0 + m] = chunk[:m]
    return rows


def _padded(rows, n):
    """rows with NaN rows appended up to n (those a kill cut from the file)."""
    if len(rows) >= n:
        return rows
    pad = np.full((n - len(rows),) + rows.shape[1:], np.nan)
    return np.concatenate([rows, pad])


def _read_group(group):
    """Every dataset of an HDF5 group as {name: numpy array}; subgroups are skipped."""
    return {name: _read_rows(item) for name, item in group.items()
            if isinstance(item, h5py.Dataset)}


def open_dem_file(path):
    """The file opened read-only with h5py; ValueError with a message naming it
    if it is missing, not HDF5, or not written by dem."""
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


def energy_exchanged(e):
    """W of the energy balance, from an energy() dict: the work the contacts
    dissipated, less the work moving walls did and the energy inserted
    bodies brought in (a column an older file lacks counts as zero), so
    that total + W stays constant but for the time step's error."""
    w = np.zeros_like(e["total"])
    for name, sign in (("dissipated", 1), ("wall_work", -1), ("inserted", -1)):
        if name in e:
            w = w + sign * e[name]
    return w


def energy_balance(e):
    """total + W (energy_exchanged): constant but for the time step's
    error."""
    return e["total"] + energy_exchanged(e)


def pyplot():
    """matplotlib.pyplot drawing off screen (the Agg backend), for the
    tools' pictures: imported when one is asked for (reading a file needs
    no matplotlib)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, path, tool, dpi):
    """fig laid out and written to path, and the line of `tool` that says
    so."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    print("%s: wrote %s" % (tool, path))


def open_run(path):
    """The dem output file at path as a Run (use it in a with statement);
    ValueError if it is missing, not HDF5, or not written by dem."""
    return Run(path)


class Snapshot:
    """One /snapshots/NNNNNN group: its index, time (s), step and data."""

    def __init__(self, run, name):
        self.run = run
        self.name = name
        self.index = int(name)
        self.group = run.file["snapshots"][name]
        self.attrs = _attrs(self.group)
        self.time = float(self.attrs.get("time", np.nan))
        self.step = int(self.attrs.get("step", -1))

    def __repr__(self):
        return f"<Snapshot {self.name} of {self.run.path}: t = {self.time:g} s, step {self.step}>"

    def groups(self):
        """The names of the snapshot's groups (bodies, spheres, state, ...)."""
        return sorted(k for k, v in self.group.items() if isinstance(v, h5py.Group))

    def fields(self, group):
        """Every dataset of the snapshot's group (e.g. "bodies") as {name: array};
        KeyError naming the file and snapshot if there is no such group."""
        if group not in self.group:
            raise KeyError(f"{self.run.path}: snapshot {self.name} has no group '{group}' "
                           f"(it has: {', '.join(self.groups())})")
        return _read_group(self.group[group])

    def bodies(self):
        """Per body (rows in input order): position (N, 3), velocity (N, 3),
        orientation (N, 4) w, x, y, z, angular_velocity (N, 3) in the body
        frame, mass (N,), inertia (N, 3), shape (N,), and any newer field."""
        return self.fields("bodies")

    def spheres(self):
        """Per sphere: position (M, 3), radius (M,), body (M,) (a row of
        bodies()), and any newer field."""
        return self.fields("spheres")

    def field_attrs(self, group):
        """{dataset name: its attributes (e.g. unit, description)} of a group."""
        g = self.group[group]
        return {name: _attrs(item) for name, item in g.items() if isinstance(item, h5py.Dataset)}


class Run:
    """A dem output file, read-only: root attributes, config, snapshots, energy."""

    def __init__(self, path):
        self.path = path
        self.file = open_dem_file(path)
        self.attrs = _attrs(self.file)
        self.dem_version = self.attrs.get("dem_version")
        self.scheme = self.attrs.get("scheme")
        self.time_step = self.attrs.get("time_step")
        snaps = self.file["snapshots"] if "snapshots" in self.file else {}
        self._names = sorted((k for k in snaps.keys() if k.isdigit()), key=int)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.file.close()

    def __repr__(self):
        return f"<Run {self.path}: scheme {self.scheme}, {len(self)} snapshots>"

    def __len__(self):
        return len(self._names)

    def snapshot_names(self):
        """The snapshot group names ("000000", ...), in time order."""
        return list(self._names)

    def snapshot(self, which=-1):
        """A Snapshot by its position in time order (an int; negative counts
        from the end), by its group name ("000012"), or "last"; IndexError
        naming the snapshots there are."""
        if not self._names:
            raise IndexError(f"{self.path}: no snapshots")
        if which == "last":
            which = -1
        if isinstance(which, str) and which in self._names:
            return Snapshot(self, which)
        if isinstance(which, (int, np.integer)) and -len(self._names) <= which < len(self._names):
            return Snapshot(self, self._names[which])
        raise IndexError(f"{self.path}: no snapshot {which!r} (there are "
                         f"{len(self._names)}: {self._names[0]}..{self._names[-1]})")

    def snapshots(self):
        """Every Snapshot, in time order (each reads its data only when asked)."""
        return [Snapshot(self, n) for n in self._names]

    def config_text(self):
        """The YAML of the run as a str (after --set overrides)."""
        if "config" not in self.file:
            return ""
        return _text(self.file["config"][()])

    def config(self):
        """The config parsed with PyYAML (python3-yaml) as nested dicts."""
        import yaml
        return yaml.safe_load(self.config_text())

    def energy(self):
        """The /energy series as {name: 1-D array} (step, time in s, and the
        energies in J: kinetic_translational, kinetic_rotational, elastic,
        gravity, total, and any newer column), cut to the rows completely
        written: a run still going or killed mid-flush has a tail of fill
        values, dropped here. Empty arrays if there are no rows."""
        if "energy" not in self.file:
            raise ValueError(f"{self.path}: not a dem output file (no /energy)")
        cols = _read_group(self.file["energy"])
        cols = {k: v for k, v in cols.items() if v.ndim == 1}
        n = min((len(v) for v in cols.values()), default=0)
        cols = {k: v[:n] for k, v in cols.items()}
        fill = np.zeros(n, dtype=bool)
        for k, v in cols.items():
            if v.dtype == np.float64:
                fill |= v.view(np.uint64) == DOUBLE_FILL_BITS
            elif v.dtype == np.int64:
                fill |= v == STEP_FILL
        written = np.nonzero(~fill)[0]
        n = int(written[-1]) + 1 if len(written) else 0
        return {k: v[:n] for k, v in cols.items()}

    def walls(self):
        """The loads on the walls (/walls) as {name: {"time": (n,), "force":
        (n, 3) in N, "torque": (n, 3) in N m, "torque_point": (3,) in m}},
        name "box_xmin" ... "box_zmax" for the box's walls and the mesh's
        name for a mesh: the force the spheres exert on the wall and its
        torque about torque_point (docs/walls.md), one row per energy row
        (the same rows as energy(), time its "time"). Rows before a restart
        of a file from a dem without /walls are NaN. {} when the file has
        no /walls."""
        if "walls" not in self.file:
            return {}
        time = self.energy().get("time", np.zeros(0))
        n = len(time)
        out = {}
        for name, g in self.file["walls"].items():
            out[name] = {"time": time,
                         "force": _padded(_read_rows(g["force"], n), n),
                         "torque": _padded(_read_rows(g["torque"], n), n),
                         "torque_point": np.asarray(g.attrs["torque_point"])}
        return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print("usage: demfile.py OUT.h5   (a summary of a dem output file)",
              file=sys.stderr if len(argv) != 1 else sys.stdout)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    try:
        run = open_run(argv[0])
    except ValueError as err:
        print(f"demfile.py: {err}", file=sys.stderr)
        return 1
    with run:
        print(f"{run.path}: dem {run.dem_version}, scheme {run.scheme}, "
              f"time step {run.time_step} s")
        e = run.energy()
        if len(e.get("time", [])):
            print(f"energy: {len(e['time'])} rows, t = {e['time'][0]:g} .. {e['time'][-1]:g} s, "
                  f"total {e['total'][0]:.6g} .. {e['total'][-1]:.6g} J")
        else:
            print("energy: no rows")
        w = run.walls()
        if w:
            print(f"walls: {', '.join(w)} (force and torque per energy row)")
        print(f"snapshots: {len(run)}")
        if len(run):
            last = run.snapshot(-1)
            b, s = last.bodies(), last.spheres()
            print(f"last: {last.name}, t = {last.time:g} s, step {last.step}, "
                  f"{len(b['position'])} bodies, {len(s['radius'])} spheres; groups: "
                  f"{', '.join(last.groups())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
