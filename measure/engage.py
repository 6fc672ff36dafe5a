"""Engagement and groups.

Two figures are *in contact* when their bases touch within a gap tolerance (`gap_in`,
the open-table house default 0.1"), or, when the scene has a grid, when their spaces
are the same or adjacent, corners included. A figure's space is its `cell` when given,
else the cell holding its centre.

- engaged pairs: figures in contact whose sides are both known and differ;
- groups: connected sets of figures in contact, friend or foe ("bases touching, or very
  close to each other");
- an engaged group is a group holding at least one engaged pair. KIMMIRIA: you cannot
  shoot into one, so every figure in it is an illegal target.
"""
from __future__ import annotations

import numpy as np
import shapely

from measure.distance import EPS_IN, edge_distance, figure_arrays
from measure.grid import cell_of
from measure.scene import Scene

DENSE_CONTACTS = 200
_SQUARE_NEXT = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1)]
_HEX_NEXT = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]


def figure_cells(scene: Scene) -> np.ndarray:
    """(N, 2) each figure's space: its `cell` when given, else the cell holding its centre."""
    xy, _ = figure_arrays(scene)
    cells = cell_of(scene.grid, xy).reshape(-1, 2)
    given = [i for i, f in enumerate(scene.figures) if f.cell is not None]
    if given:
        cells[given] = [scene.figures[i].cell for i in given]
    return cells


def contact_pairs(scene: Scene, gap_in: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Figures in contact as index pairs (i < j), each once: memory grows with the contacts, not N**2.

    Bases within `gap_in` come from an STRtree query; on a grid, same or neighbouring spaces
    come from a join on the cells' keys.
    """
    xy, base = figure_arrays(scene)
    n = len(xy)
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    if n <= DENSE_CONTACTS:             # a small table: all pairs at once is cheaper than a tree
        i, j = np.nonzero(np.triu(np.ones((n, n), bool), k=1))
    else:
        reach = float(base.max()) + gap_in + 2 * EPS_IN
        i, j = shapely.STRtree(shapely.points(xy)).query(shapely.points(xy), predicate="dwithin", distance=reach)
        keep = i < j
        i, j = i[keep], j[keep]
    near = edge_distance(xy[i], base[i], xy[j], base[j]) <= gap_in + EPS_IN
    pairs = [(i[near], j[near])]
    if scene.grid is not None:
        cells = figure_cells(scene)
        lo = cells.min(axis=0) - 1
        span = int((cells.max(axis=0) - lo).max()) + 3
        key = (cells[:, 0] - lo[0]) * span + (cells[:, 1] - lo[1])
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        for dc, dr in (_HEX_NEXT if scene.grid.kind == "hex" else _SQUARE_NEXT):
            want = key + dc * span + dr
            start = np.searchsorted(sorted_key, want, "left")
            count = np.searchsorted(sorted_key, want, "right") - start
            a = np.repeat(np.arange(n), count)
            b = order[np.repeat(start - np.cumsum(count) + count, count) + np.arange(count.sum())]
            keep = a < b
            pairs.append((a[keep], b[keep]))
    i = np.concatenate([p[0] for p in pairs])
    j = np.concatenate([p[1] for p in pairs])
    unique = np.unique(i * n + j)
    return unique // n, unique % n


def contact_matrix(scene: Scene, gap_in: float = 0.1, *, edge: np.ndarray | None = None) -> np.ndarray:
    """(N, N) bool: figure i is in contact with figure j (never with itself).

    `edge`: the scene's edge-distance matrix when the caller already has it.
    """
    n = len(scene.figures)
    contact = np.zeros((n, n), bool)
    if edge is not None:
        contact |= edge <= gap_in + EPS_IN
    i, j = contact_pairs(scene, gap_in)
    contact[i, j] = contact[j, i] = True
    np.fill_diagonal(contact, False)
    return contact


def enemy_matrix(scene: Scene) -> np.ndarray:
    """(N, N) bool: both sides are known and differ."""
    sides = np.array([f.side if f.side is not None else "" for f in scene.figures], dtype=object)
    known = sides != ""
    return (sides[:, None] != sides[None, :]) & known[:, None] & known[None, :]


def engaged_pairs(scene: Scene, gap_in: float = 0.1) -> tuple[tuple[str, str], ...]:
    """Enemy figures in contact, each pair once, in scene order."""
    i, j = np.nonzero(np.triu(contact_matrix(scene, gap_in) & enemy_matrix(scene), k=1))
    ids = [f.id for f in scene.figures]
    return tuple((ids[a], ids[b]) for a, b in zip(i.tolist(), j.tolist()))


def group_labels(contact: np.ndarray) -> np.ndarray:
    """Connected components of a contact matrix: each figure's label is its group's lowest index."""
    n = len(contact)
    labels = np.arange(n)
    while n:
        # Every figure takes the smallest label among itself and its contacts until nothing moves.
        spread = np.where(contact, labels[None, :], n).min(axis=1, initial=n)
        new = np.minimum(labels, spread)
        new = new[new]                      # pointer jumping: halves the remaining chain length
        if np.array_equal(new, labels):
            break
        labels = new
    return labels


def groups(scene: Scene, gap_in: float = 0.1) -> tuple[tuple[str, ...], ...]:
    """Groups of figures in contact (singletons included), in scene order."""
    labels = group_labels(contact_matrix(scene, gap_in))
    ids = [f.id for f in scene.figures]
    out: dict[int, list[str]] = {}
    for figure_id, label in zip(ids, labels.tolist()):
        out.setdefault(label, []).append(figure_id)
    return tuple(tuple(g) for g in out.values())


def side_codes(scene: Scene) -> np.ndarray:
    """(N,) a number per side in order of appearance, -1 where the side is unknown."""
    codes: dict[str, int] = {}
    return np.array([-1 if f.side is None else codes.setdefault(f.side, len(codes)) for f in scene.figures],
                    dtype=np.int64)


def sparse_group_labels(n: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Connected components of n figures joined by the pairs (i, j): each label is the group's lowest index."""
    labels = np.arange(n)
    while len(i):
        new = labels.copy()
        np.minimum.at(new, i, labels[j])
        np.minimum.at(new, j, labels[i])
        new = new[new]
        if np.array_equal(new, labels):
            break
        labels = new
    return labels


def engaged_group_mask(scene: Scene, gap_in: float = 0.1, *, edge: np.ndarray | None = None,
                       enemy: np.ndarray | None = None) -> np.ndarray:
    """(N,) bool: the figure belongs to a group that holds an engaged pair.

    Built from the contact pairs alone (no N x N matrix); `edge` and `enemy` are accepted for
    older callers and ignored.
    """
    i, j = contact_pairs(scene, gap_in)
    labels = sparse_group_labels(len(scene.figures), i, j)
    side = side_codes(scene)
    foes = (side[i] != side[j]) & (side[i] >= 0) & (side[j] >= 0)
    group_engaged = np.zeros(len(labels), bool)
    group_engaged[labels[i[foes]]] = True
    return group_engaged[labels]


def touching_enemy(scene: Scene, gap_in: float = 0.1) -> np.ndarray:
    """(N,) bool: the figure touches an enemy itself."""
    i, j = contact_pairs(scene, gap_in)
    side = side_codes(scene)
    foes = (side[i] != side[j]) & (side[i] >= 0) & (side[j] >= 0)
    out = np.zeros(len(scene.figures), bool)
    out[i[foes]] = out[j[foes]] = True
    return out


def engaged_ids(scene: Scene, gap_in: float = 0.1) -> frozenset[str]:
    """Figures that touch an enemy themselves."""
    engaged = (contact_matrix(scene, gap_in) & enemy_matrix(scene)).any(axis=1)
    return frozenset(f.id for f, e in zip(scene.figures, engaged.tolist()) if e)
