"""Checks a dem run's XDMF sidecar against its HDF5 file, without ParaView.

Usage: /usr/bin/python3 tests/xdmf_check.py RUN.xmf
Parses the XML; resolves every HDF DataItem ("FILE.h5:/path", FILE
relative to the .xmf) with h5py and checks the dataset exists with the
Dimensions, NumberType and Precision the item says; checks each HyperSlab
(start, stride, count) lies inside its source; checks every grid's
topology, geometry and attributes have as many points as the grid says;
and that the collections "spheres" and "bodies" list every snapshot, the
spheres with a velocity and the bodies with a velocity and an angular
velocity; and that each mesh wall's collection "mesh_NAME" lists every
snapshot as triangles over vertices they index. Prints one line per
failure and exits 1 if any.
"""
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


xmf = sys.argv[1]
root = ET.parse(xmf).getroot()
base = os.path.dirname(os.path.abspath(xmf))
files = {}
resolved = 0


def dataset(ref):
    name, path = ref.strip().split(":", 1)
    check("/" not in name, "%s: the HDF5 file is not named by its basename" % ref)
    full = os.path.join(base, name)
    if full not in files:
        files[full] = h5py.File(full, "r")
    f = files[full]
    return f[path] if path in f else None


def item_array(item):
    """The values of a DataItem (HDF, XML or a HyperSlab of them), checked."""
    global resolved
    dims = tuple(int(d) for d in item.get("Dimensions").split())
    kind = item.get("ItemType", "Uniform")
    if kind == "HyperSlab":
        sel, src = list(item)
        s = item_array(sel).reshape(3, -1)
        data = item_array(src)
        start, stride, count = s[0], s[1], s[2]
        last = start + stride * (count - 1)
        check(np.all(start >= 0) and np.all(last < np.array(data.shape)),
              "hyperslab %s outside its source of shape %s" % (s.tolist(), data.shape))
        out = data[tuple(slice(a, b + 1, c) for a, b, c in zip(start, last, stride))]
        check(out.shape == dims, "hyperslab gives %s, Dimensions %s" % (out.shape, dims))
        return out
    fmt = item.get("Format", "XML")
    if fmt == "XML":
        return np.array(item.text.split(), dtype=int).reshape(dims)
    check(fmt == "HDF", "DataItem format %s" % fmt)
    ds = dataset(item.text)
    if ds is None:
        failures.append("%s: no such dataset" % item.text.strip())
        return np.zeros(dims)
    resolved += 1
    check(ds.shape == dims, "%s: shape %s, Dimensions %s" % (item.text.strip(), ds.shape, dims))
    want = {"Float": "f", "Int": "i"}[item.get("NumberType")]
    check(ds.dtype.kind == want and ds.dtype.itemsize == int(item.get("Precision")),
          "%s: %s, item says %s %s" % (item.text.strip(), ds.dtype, item.get("NumberType"),
                                       item.get("Precision")))
    return ds[()]


def check_grid(g, where):
    topo, geo = g.find("Topology"), g.find("Geometry")
    n = int(topo.get("NumberOfElements"))
    check(topo.get("TopologyType") == "Polyvertex", "%s: topology %s" % (where, topo.get("TopologyType")))
    conn = topo.find("DataItem")
    if n:
        check(conn is not None, "%s: points without connectivity (no cells)" % where)
        if conn is not None:
            c = item_array(conn)
            check(np.array_equal(c, np.arange(n)), "%s: connectivity is not 0..N-1" % where)
    xyz = item_array(geo.find("DataItem"))
    check(xyz.shape == (n, 3), "%s: geometry %s for %d points" % (where, xyz.shape, n))
    names = {}
    for a in g.findall("Attribute"):
        v = item_array(a.find("DataItem"))
        vector = a.get("AttributeType") == "Vector"
        check(v.shape == ((n, 3) if vector else (n,)),
              "%s: attribute %s has shape %s" % (where, a.get("Name"), v.shape))
        names[a.get("Name")] = v
    return n, names, float(g.find("Time").get("Value"))


domain = root.find("Domain")
collections = {c.get("Name"): c for c in domain.findall("Grid")}
particles = {k for k in collections if not k.startswith("mesh_")}
check(particles == {"spheres", "bodies"}, "collections %s" % sorted(collections))
# each mesh wall: a temporal collection of triangle grids, every
# connectivity a vertex of the grid's geometry, at every snapshot's time
mesh_times = {}
for cname in sorted(set(collections) - particles):
    c = collections[cname]
    check(c.get("CollectionType") == "Temporal", "%s is not temporal" % cname)
    mesh_times[cname] = []
    for g in c.findall("Grid"):
        where = "%s/%s" % (cname, g.get("Name"))
        topo, geo = g.find("Topology"), g.find("Geometry")
        check(topo.get("TopologyType") == "Triangle", "%s: topology %s" % (where, topo.get("TopologyType")))
        tri = item_array(topo.find("DataItem"))
        xyz = item_array(geo.find("DataItem"))
        n = int(topo.get("NumberOfElements"))
        check(tri.shape == (n, 3), "%s: %s triangles for %d" % (where, tri.shape, n))
        check(xyz.ndim == 2 and xyz.shape[1] == 3, "%s: geometry %s" % (where, xyz.shape))
        check(tri.size == 0 or (tri.min() >= 0 and tri.max() < len(xyz)),
              "%s: a triangle's vertex outside the %d vertices" % (where, len(xyz)))
        mesh_times[cname].append(float(g.find("Time").get("Value")))
times = {}
for cname, need in (("spheres", {"radius", "body", "velocity", "angular_velocity_lab"}),
                    ("bodies", {"velocity", "angular_velocity_lab", "mass", "shape"})):
    c = collections.get(cname)
    if c is None:
        continue
    check(c.get("CollectionType") == "Temporal", "%s is not temporal" % cname)
    times[cname] = []
    for g in c.findall("Grid"):
        n, names, t = check_grid(g, "%s/%s" % (cname, g.get("Name")))
        check(need <= set(names), "%s/%s lacks %s" % (cname, g.get("Name"), need - set(names)))
        times[cname].append(t)
# every snapshot, in both collections, at its own time
f = next(iter(files.values())) if files else None
if f is not None:
    snap_t = [f["snapshots"][k].attrs["time"] for k in sorted(f["snapshots"])]
    # a snapshot without bodies (before the first insertion) has no grid
    # in the bodies collection
    body_t = [f["snapshots"][k].attrs["time"] for k in sorted(f["snapshots"])
              if f["snapshots"][k]["bodies/mass"].shape[0] > 0]
    for cname, ts in list(times.items()) + list(mesh_times.items()):
        want = body_t if cname == "bodies" else snap_t
        check(ts == want, "%s lists times %s, the file %s" % (cname, ts[:5], want[:5]))

for line in failures:
    print("FAIL:", line)
print("xdmf_check: %d data items resolved in %d file(s), %d frames, %d failures"
      % (resolved, len(files), len(times.get("spheres", [])), len(failures)))
sys.exit(1 if failures else 0)
