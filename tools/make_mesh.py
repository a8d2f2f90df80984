#!/usr/bin/python3
"""Write the STL meshes of dem's wall examples: a drum, a silo, a funnel, a box.

usage: make_mesh.py drum   OUT.stl [--radius R] [--length L] [--segments N]
       make_mesh.py silo   OUT.stl [--width W] [--depth D] [--height H]
                                   [--orifice A] [--round] [--segments N]
       make_mesh.py funnel OUT.stl [--top-radius R] [--bottom-radius r]
                                   [--height H] [--segments N]
       make_mesh.py box    OUT.stl [--min X Y Z] [--max X Y Z]
       (any of them) [--binary]

Every mesh is centred as its docs say, in metres, with triangles of any
orientation (dem's mesh walls are two-sided).

- drum: a closed cylinder about the y axis through the origin (both end
  caps), N flat side panels; rotate it with a mesh `motion`.
- silo: a flat-bottomed box from (-W/2, -D/2, 0) to (W/2, D/2, H), open at
  the top, with a centred square orifice of side A in its bottom; with
  --round, a circular orifice of diameter A instead (a regular polygon of N
  sides, N a multiple of 4, with the area of the circle of diameter A).
- funnel: a cone frustum about the z axis, open at both ends, from radius
  r at z = 0 to radius R at z = H.
- box: the six faces of a box, two triangles each (for tests that compare
  a mesh box with the analytic one).
"""
import argparse
import math
import struct
import sys


def quad(a, b, c, d):
    """Two triangles of the planar quadrilateral a b c d (in order)."""
    return [(a, b, c), (a, c, d)]


def drum(radius, length, segments):
    tris = []
    y0, y1 = -length / 2, length / 2
    ring = [(radius * math.cos(2 * math.pi * k / segments), 0.0,
             radius * math.sin(2 * math.pi * k / segments))
            for k in range(segments)]
    for k in range(segments):
        (xa, _, za), (xb, _, zb) = ring[k], ring[(k + 1) % segments]
        tris += quad((xa, y0, za), (xb, y0, zb), (xb, y1, zb), (xa, y1, za))
        # the end caps: fans from the axis
        tris.append(((0.0, y0, 0.0), (xb, y0, zb), (xa, y0, za)))
        tris.append(((0.0, y1, 0.0), (xa, y1, za), (xb, y1, zb)))
    return tris


def round_bottom(w, d, diameter, segments):
    """The bottom (z = 0) of the rectangle [-w, w] x [-d, d] around a
    centred polygonal hole of `segments` sides whose area is that of the
    circle of the given diameter: one quadrilateral per side of the hole,
    from the hole's edge out to the rectangle along the same two rays (the
    rectangle's corners lie on rays, so every quadrilateral is convex)."""
    if segments % 4:
        sys.exit("make_mesh.py silo --round: --segments must be a multiple "
                 "of 4")
    # the polygon's circumradius for the circle's area: N/2 R^2 sin(2pi/N)
    # = pi (D/2)^2
    rc = diameter / 2 * math.sqrt(2 * math.pi /
                                  (segments * math.sin(2 * math.pi / segments)))
    if rc >= min(w, d):
        sys.exit("make_mesh.py silo: the orifice must be narrower than the "
                 "silo")
    corner = math.atan2(d, w)
    # rays: the hole's vertices, starting on a corner of the rectangle
    rays = [corner + 2 * math.pi * k / segments for k in range(segments)]

    def edge(t):
        c, s = math.cos(t), math.sin(t)
        f = min(w / abs(c) if abs(c) > 1e-15 else math.inf,
                d / abs(s) if abs(s) > 1e-15 else math.inf)
        return (f * c, f * s, 0.0)
    # rays through the rectangle's other corners, so that no quadrilateral
    # turns a corner
    corners = [corner, math.pi - corner, math.pi + corner, 2 * math.pi - corner]
    tris = []
    for k in range(segments):
        t0, t1 = rays[k], rays[k] + 2 * math.pi / segments
        h0 = (rc * math.cos(t0), rc * math.sin(t0), 0.0)
        h1 = (rc * math.cos(t1), rc * math.sin(t1), 0.0)
        inner = [c for c in corners + [c + 2 * math.pi for c in corners]
                 if t0 + 1e-12 < c < t1 - 1e-12]
        outer = [edge(t0)] + [edge(c) for c in inner] + [edge(t1)]
        # the region between the hole's side h0 h1 and the border: a fan
        # from h0 (convex: the border between two rays turns at most at
        # the corners listed, away from the hole)
        for p, q in zip(outer[:-1], outer[1:]):
            tris.append((h0, p, q))
        tris.append((h0, outer[-1], h1))
    return tris


def silo(width, depth, height, orifice, round_=False, segments=48):
    if not 0 < orifice < min(width, depth):
        sys.exit("make_mesh.py silo: the orifice must be narrower than the "
                 "silo")
    w, d, a = width / 2, depth / 2, orifice / 2
    tris = []
    # side walls
    tris += quad((-w, -d, 0), (w, -d, 0), (w, -d, height), (-w, -d, height))
    tris += quad((-w, d, 0), (-w, d, height), (w, d, height), (w, d, 0))
    tris += quad((-w, -d, 0), (-w, -d, height), (-w, d, height), (-w, d, 0))
    tris += quad((w, -d, 0), (w, d, 0), (w, d, height), (w, -d, height))
    if round_:
        return tris + round_bottom(w, d, orifice, segments)
    # the bottom around the orifice: four trapezoids
    tris += quad((-w, -d, 0), (-a, -a, 0), (a, -a, 0), (w, -d, 0))
    tris += quad((w, -d, 0), (a, -a, 0), (a, a, 0), (w, d, 0))
    tris += quad((w, d, 0), (a, a, 0), (-a, a, 0), (-w, d, 0))
    tris += quad((-w, d, 0), (-a, a, 0), (-a, -a, 0), (-w, -d, 0))
    return tris


def funnel(top_radius, bottom_radius, height, segments):
    tris = []
    for k in range(segments):
        t0 = 2 * math.pi * k / segments
        t1 = 2 * math.pi * ((k + 1) % segments) / segments  # the seam welds
        lo = [(bottom_radius * math.cos(t), bottom_radius * math.sin(t), 0.0)
              for t in (t0, t1)]
        hi = [(top_radius * math.cos(t), top_radius * math.sin(t), height)
              for t in (t0, t1)]
        tris += quad(lo[0], lo[1], hi[1], hi[0])
    return tris


def box(lo, hi):
    def p(i, j, k):
        return (hi[0] if i else lo[0], hi[1] if j else lo[1],
                hi[2] if k else lo[2])
    tris = []
    tris += quad(p(0, 0, 0), p(0, 1, 0), p(1, 1, 0), p(1, 0, 0))  # z min
    tris += quad(p(0, 0, 1), p(1, 0, 1), p(1, 1, 1), p(0, 1, 1))  # z max
    tris += quad(p(0, 0, 0), p(1, 0, 0), p(1, 0, 1), p(0, 0, 1))  # y min
    tris += quad(p(0, 1, 0), p(0, 1, 1), p(1, 1, 1), p(1, 1, 0))  # y max
    tris += quad(p(0, 0, 0), p(0, 0, 1), p(0, 1, 1), p(0, 1, 0))  # x min
    tris += quad(p(1, 0, 0), p(1, 1, 0), p(1, 1, 1), p(1, 0, 1))  # x max
    return tris


def normal(t):
    a, b, c = t
    u = [b[i] - a[i] for i in range(3)]
    v = [c[i] - a[i] for i in range(3)]
    n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
         u[0] * v[1] - u[1] * v[0]]
    s = math.sqrt(sum(x * x for x in n)) or 1.0
    return [x / s for x in n]


def write(path, name, tris, binary):
    if binary:
        with open(path, "wb") as f:
            f.write(("dem %s" % name).encode().ljust(80, b" "))
            f.write(struct.pack("<I", len(tris)))
            for t in tris:
                f.write(struct.pack("<3f", *normal(t)))
                for v in t:
                    f.write(struct.pack("<3f", *v))
                f.write(b"\0\0")
        return
    with open(path, "w") as f:
        f.write("solid %s\n" % name)
        for t in tris:
            f.write("  facet normal %.17g %.17g %.17g\n    outer loop\n"
                    % tuple(normal(t)))
            for v in t:
                f.write("      vertex %.17g %.17g %.17g\n" % v)
            f.write("    endloop\n  endfacet\n")
        f.write("endsolid %s\n" % name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["drum", "silo", "funnel", "box"])
    ap.add_argument("out")
    ap.add_argument("--binary", action="store_true")
    ap.add_argument("--radius", type=float, default=0.1)
    ap.add_argument("--length", type=float, default=0.05)
    ap.add_argument("--segments", type=int, default=48)
    ap.add_argument("--width", type=float, default=0.2)
    ap.add_argument("--depth", type=float, default=0.2)
    ap.add_argument("--height", type=float, default=0.3)
    ap.add_argument("--orifice", type=float, default=0.04)
    ap.add_argument("--round", action="store_true",
                    help="silo: a circular orifice (a polygon of --segments "
                    "sides) of diameter --orifice")
    ap.add_argument("--top-radius", type=float, default=0.15)
    ap.add_argument("--bottom-radius", type=float, default=0.02)
    ap.add_argument("--min", type=float, nargs=3, default=[0, 0, 0])
    ap.add_argument("--max", type=float, nargs=3, default=[1, 1, 1])
    a = ap.parse_args()
    if a.segments < 3:
        sys.exit("make_mesh.py: --segments must be at least 3")
    if a.kind == "drum":
        tris = drum(a.radius, a.length, a.segments)
    elif a.kind == "silo":
        tris = silo(a.width, a.depth, a.height, a.orifice, a.round, a.segments)
    elif a.kind == "funnel":
        tris = funnel(a.top_radius, a.bottom_radius, a.height, a.segments)
    else:
        tris = box(a.min, a.max)
    write(a.out, a.kind, tris, a.binary)
    print("make_mesh.py: %s: %d triangles" % (a.out, len(tris)))


if __name__ == "__main__":
    main()
