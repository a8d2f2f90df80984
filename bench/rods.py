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


def random_rods(n_rods, seed=1):
    """Random sequential placement, as dem's random_fill does it: uniform
    centres a bounding radius inside the walls, uniform random axes, a
    candidate kept when it overlaps no rod kept before it. Candidates are
    drawn in batches and checked through a grid of rods (numpy only).
    Returns (edge, centres, axes, velocities, angular velocities)."""
    rng = np.random.default_rng(seed)
    edge = box_edge(n_rods)
    half = SPACING + RADIUS  # bounding radius of a rod
    m = max(1, int(edge / (2 * half)))
    h = edge / m
    slots = 16
    grid = -np.ones((m + 2, m + 2, m + 2, slots), dtype=np.int64)
    fill = np.zeros((m + 2, m + 2, m + 2), dtype=np.int64)
    centres = np.zeros((n_rods, 3))
    axes = np.zeros((n_rods, 3))
    k = np.array([-1.0, 0.0, 1.0]) * SPACING
    offsets = np.array([(dx, dy, dz) for dx in (-1, 0, 1)
                        for dy in (-1, 0, 1) for dz in (-1, 0, 1)])
    placed = 0

    def spheres(c, a):
        return c[:, None, :] + k[None, :, None] * a[:, None, :]

    def overlaps(ci, ai, cj, aj):
        near = np.einsum("pk,pk->p", ci - cj, ci - cj) < (2 * half) ** 2
        out = np.zeros(len(ci), dtype=bool)
        if near.any():
            out[near] = _overlaps(ci[near], ai[near], cj[near], aj[near])
        return out

    def _overlaps(ci, ai, cj, aj):
        d = spheres(ci, ai)[:, :, None, :] - spheres(cj, aj)[:, None, :, :]
        return np.any(np.einsum("pabk,pabk->pab", d, d) < (2 * RADIUS) ** 2,
                      axis=(1, 2))

    while placed < n_rods:
        b = min(max(1000, (n_rods - placed) // 4), n_rods - placed)
        c = half + (edge - 2 * half) * rng.random((b, 3))
        a = _unit_vectors(rng, b)
        cell = (c / h).astype(np.int64) + 1
        ok = np.ones(b, dtype=bool)
        # against rods placed before this batch
        nb_cells = cell[:, None, :] + offsets[None, :, :]
        cand = grid[nb_cells[..., 0], nb_cells[..., 1], nb_cells[..., 2]]
        cand = cand.reshape(b, -1)
        ii, jj = np.nonzero(cand >= 0)
        jj = cand[ii, jj]
        if len(ii):
            hit = overlaps(c[ii], a[ii], centres[jj], axes[jj])
            ok[ii[hit]] = False
        # within the batch: a candidate loses to an earlier one it touches
        idx = np.nonzero(ok)[0]
        cc = cell[idx]
        key = (cc[:, 0] * (m + 2) + cc[:, 1]) * (m + 2) + cc[:, 2]
        order = np.argsort(key, kind="stable")
        skey = key[order]
        for off in offsets:
            okey = ((cc[:, 0] + off[0]) * (m + 2) + cc[:, 1] + off[1]) * (m + 2) + cc[:, 2] + off[2]
            lo = np.searchsorted(skey, okey, side="left")
            hi = np.searchsorted(skey, okey, side="right")
            width = hi - lo
            for r in range(int(width.max()) if len(width) else 0):
                sel = np.nonzero(width > r)[0]
                other = order[lo[sel] + r]
                earlier = idx[other] < idx[sel]
                sel, other = sel[earlier], other[earlier]
                if len(sel):
                    hit = overlaps(c[idx[sel]], a[idx[sel]], c[idx[other]], a[idx[other]])
                    ok[idx[sel[hit]]] = False
        keep = np.nonzero(ok)[0]
        # grid insertion
        kc = cell[keep]
        flat = (kc[:, 0] * (m + 2) + kc[:, 1]) * (m + 2) + kc[:, 2]
        o = np.argsort(flat, kind="stable")
        first = np.searchsorted(flat[o], flat[o], side="left")
        rank = np.empty(len(keep), dtype=np.int64)
        rank[o] = np.arange(len(keep)) - first
        slot = fill.reshape(-1)[flat] + rank
        if len(slot) and slot.max() >= slots:
            raise RuntimeError("grid cell overflow placing rods")
        ids = placed + np.arange(len(keep))
        grid.reshape(-1, slots)[flat, slot] = ids
        np.add.at(fill.reshape(-1), flat, 1)
        centres[ids] = c[keep]
        axes[ids] = a[keep]
        placed += len(keep)
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
