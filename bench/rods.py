"""The rods box of issue 4 as numbers: sizes, box edge, and a LAMMPS start.

A box of three-sphere rods (r = 0.035 m, centres 0.07 m apart) at 15 % solid
fraction: 20,000 rods (60,000 spheres) fill a cube of edge 4.157 m, and other
sizes scale the edge with the cube root of the count. Only numpy is used.
"""
import numpy as np

RADIUS = 0.035
SPACING = 0.07            # centre to centre along the rod
DENSITY = 2500.0
YOUNG = 1.0e9
POISSON = 0.1
DT = 38.0e-6
SPEED = 1.0               # m/s, random direction per rod
ANGULAR_SPEED = np.pi     # rad/s, random axis per rod
SKIN = 0.005
EDGE_60K = 4.157          # m, for 20,000 rods


def box_edge(n_rods):
    return EDGE_60K * (n_rods / 20000.0) ** (1.0 / 3.0)


def _unit_vectors(rng, n):
    v = rng.normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=1)[:, None]


def lattice_rods(n_rods, seed=1):
    """Rod centres on a cubic lattice (a random subset of its sites, jittered)
    with random axes; axes are redrawn until no two rods overlap and no rod
    crosses a wall. Returns (centres, axes, velocities, angular velocities)."""
    rng = np.random.default_rng(seed)
    edge = box_edge(n_rods)
    half = SPACING + RADIUS  # bounding radius of a rod
    m = int(np.ceil(n_rods ** (1.0 / 3.0)))
    a = edge / m
    if a < 2 * RADIUS * 1.05:
        raise ValueError("box too small for the lattice")
    ijk = np.stack(np.meshgrid(np.arange(m), np.arange(m), np.arange(m),
                               indexing="ij"), axis=-1).reshape(-1, 3)
    sites = rng.choice(len(ijk), size=n_rods, replace=False)
    sites.sort()
    ijk = ijk[sites]
    centres = (ijk + 0.5) * a
    occupied = -np.ones((m, m, m), dtype=np.int64)
    occupied[ijk[:, 0], ijk[:, 1], ijk[:, 2]] = np.arange(n_rods)
    axes = _unit_vectors(rng, n_rods)
    # Rods near a wall must keep every sphere inside: limit the axis there.
    lo_room = centres - RADIUS
    hi_room = edge - centres - RADIUS
    room = np.minimum(lo_room, hi_room)
    # Pairs of lattice neighbours whose bounding spheres can touch.
    offsets = [(dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
               for dz in (-1, 0, 1) if (dx, dy, dz) > (0, 0, 0)
               and a * np.sqrt(dx * dx + dy * dy + dz * dz) < 2 * half]
    pairs = []
    for off in offsets:
        nb = ijk + np.array(off)
        ok = np.all((nb >= 0) & (nb < m), axis=1)
        j = np.full(n_rods, -1)
        j[ok] = occupied[nb[ok, 0], nb[ok, 1], nb[ok, 2]]
        i = np.nonzero(j >= 0)[0]
        pairs.append(np.stack([i, j[i]], axis=1))
    pairs = np.concatenate(pairs) if pairs else np.zeros((0, 2), int)
    k = np.array([-1.0, 0.0, 1.0]) * SPACING
    for _ in range(1000):
        bad = np.any(np.abs(axes) * SPACING > room, axis=1)
        if len(pairs):
            si = centres[pairs[:, 0], None, :] + k[None, :, None] * axes[pairs[:, 0], None, :]
            sj = centres[pairs[:, 1], None, :] + k[None, :, None] * axes[pairs[:, 1], None, :]
            d = si[:, :, None, :] - sj[:, None, :, :]
            hit = np.any(np.einsum("pabk,pabk->pab", d, d) < (2 * RADIUS) ** 2,
                         axis=(1, 2))
            redo = pairs[hit, 1]
            bad[redo] = True
        if not bad.any():
            break
        axes[bad] = _unit_vectors(rng, int(bad.sum()))
    else:
        raise RuntimeError("could not orient the rods without overlap")
    v = SPEED * _unit_vectors(rng, n_rods)
    w = ANGULAR_SPEED * _unit_vectors(rng, n_rods)
    return edge, centres, axes, v, w


def write_lammps_data(path, edge, centres, axes, v, w):
    """A LAMMPS data file (atom_style sphere, molecule ids through
    fix property/atom mol): sphere velocities v + w x r and spins w."""
    n = len(centres)
    k = np.array([-1.0, 0.0, 1.0]) * SPACING
    pos = (centres[:, None, :] + k[None, :, None] * axes[:, None, :]).reshape(-1, 3)
    arm = (k[None, :, None] * axes[:, None, :])
    vel = (v[:, None, :] + np.cross(w[:, None, :], arm)).reshape(-1, 3)
    spin = np.repeat(w, 3, axis=0)
    ids = np.arange(1, 3 * n + 1)
    mol = np.repeat(np.arange(1, n + 1), 3)
    with open(path, "w") as f:
        f.write("rods box (dem bench)\n\n%d atoms\n1 atom types\n\n" % (3 * n))
        for ax in "xyz":
            f.write("0 %.17g %slo %shi\n" % (edge, ax, ax))
        f.write("\nAtoms # sphere\n\n")
        np.savetxt(f, np.column_stack([ids, np.ones(3 * n), np.full(3 * n, 2 * RADIUS),
                                       np.full(3 * n, DENSITY), pos]),
                   fmt="%d %d %.17g %.17g %.17g %.17g %.17g")
        f.write("\nVelocities\n\n")
        np.savetxt(f, np.column_stack([ids, vel, spin]),
                   fmt="%d %.17g %.17g %.17g %.17g %.17g %.17g")
        f.write("\nMolecules\n\n")
        np.savetxt(f, np.column_stack([ids, mol]), fmt="%d %d")
