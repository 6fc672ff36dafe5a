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

from measure.distance import EPS_IN, distance_matrices
from measure.grid import adjacent, cell_of
from measure.scene import Scene


def contact_matrix(scene: Scene, gap_in: float = 0.1, *, edge: np.ndarray | None = None) -> np.ndarray:
    """(N, N) bool: figure i is in contact with figure j (never with itself).

    `edge`: the scene's edge-distance matrix when the caller already has it.
    """
    if edge is None:
        _, edge = distance_matrices(scene)
    contact = edge <= gap_in + EPS_IN
    if scene.grid is not None and scene.figures:
        xy = np.array([f.xy for f in scene.figures], dtype=float)
        cells = cell_of(scene.grid, xy)
        given = [i for i, f in enumerate(scene.figures) if f.cell is not None]
        if given:
            cells[given] = [scene.figures[i].cell for i in given]
        contact |= adjacent(scene.grid, cells[:, None, :], cells[None, :, :])
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


def engaged_group_mask(scene: Scene, gap_in: float = 0.1, *, edge: np.ndarray | None = None,
                       enemy: np.ndarray | None = None) -> np.ndarray:
    """(N,) bool: the figure belongs to a group that holds an engaged pair."""
    contact = contact_matrix(scene, gap_in, edge=edge)
    labels = group_labels(contact)
    engaged = (contact & (enemy_matrix(scene) if enemy is None else enemy)).any(axis=1)
    group_engaged = np.zeros(len(labels), bool)
    group_engaged[labels[engaged]] = True
    return group_engaged[labels]


def engaged_ids(scene: Scene, gap_in: float = 0.1) -> frozenset[str]:
    """Figures that touch an enemy themselves."""
    engaged = (contact_matrix(scene, gap_in) & enemy_matrix(scene)).any(axis=1)
    return frozenset(f.id for f, e in zip(scene.figures, engaged.tolist()) if e)
