"""Distances between figures in table inches: centre to centre, and base edge to base edge.

Bases are round (diameter `base_in`), so both are closed forms over numpy arrays:
all pairs at once, no geometry objects needed.
"""
from __future__ import annotations

import numpy as np

from measure.scene import Scene

# Below a millionth of an inch two bases touch: float noise must not turn a touch into a gap.
EPS_IN = 1e-6


def centre_distance(a_xy, b_xy) -> np.ndarray:
    """Centre-to-centre distance; `a_xy`, `b_xy` are (..., 2) arrays that broadcast."""
    a = np.asarray(a_xy, dtype=float)
    b = np.asarray(b_xy, dtype=float)
    return np.hypot(a[..., 0] - b[..., 0], a[..., 1] - b[..., 1])


def edge_distance(a_xy, a_base_in, b_xy, b_base_in) -> np.ndarray:
    """Gap between two round bases (diameters `*_base_in`); touching or overlapping reads 0."""
    gap = centre_distance(a_xy, b_xy) - (np.asarray(a_base_in, float) + np.asarray(b_base_in, float)) / 2
    return np.where(gap <= EPS_IN, 0.0, gap)


def figure_arrays(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """(N, 2) centres and (N,) base diameters of the scene's figures, in scene order."""
    xy = np.array([(f.x, f.y) for f in scene.figures], dtype=float).reshape(-1, 2)
    base = np.array([f.base_in for f in scene.figures], dtype=float)
    return xy, base


def distance_matrices(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """(centre, edge) N x N matrices over the scene's figures, in scene order."""
    xy, base = figure_arrays(scene)
    centre = centre_distance(xy[:, None, :], xy[None, :, :])
    edge = edge_distance(xy[:, None, :], base[:, None], xy[None, :, :], base[None, :])
    return centre, edge


def figure_distance(scene: Scene, a_id: str, b_id: str) -> tuple[float, float]:
    """(centre, edge) distance in inches between two figures named by id."""
    a, b = scene.figure(a_id), scene.figure(b_id)
    centre = float(centre_distance(a.xy, b.xy))
    edge = float(edge_distance(a.xy, a.base_in, b.xy, b.base_in))
    return centre, edge
