"""The centre of a partly hidden rim, from the base's known radius.

A leaning figure hides part of its rim, and what it leans over may be of the rim's own colour (a
cloak hanging over the rim and past it). The outer edge of the colour then follows the rim along
one arc and the cloak along another; a least-squares circle through both, with the radius free,
settles between them and the centre drifts towards the cloak or the visible arc. The radius is
known (the base's size, plus the blur's small outward bias): the centre that the most edge points
lie a radius from is the rim's, for the rim's arc is one circle of that radius and a cloak's edge
is not. The centre is then fitted to those points alone. Run on the few kept rings only.
"""
from __future__ import annotations

import numpy as np

INLIER = 0.12                  # radii: an edge point this near the circle agrees with it
MAX_MOVE = 0.5                 # radii: a refinement never moves a centre farther than this
GRID = 0.1                     # radii: the spacing of the centres tried (the fit after finds the centre)


def consensus_centres(points: np.ndarray, valid: np.ndarray, centres: np.ndarray,
                      radius_px: float) -> tuple[np.ndarray, np.ndarray]:
    """For each ring's edge points (N, K, 2), where `valid` (N, K): the centre (N, 2), among those
    within MAX_MOVE radii of its current one (N, 2), of the circle of radius `radius_px` that the
    most of them lie on, and which do (N, K). Each edge point votes for the centres a radius from
    it (a Hough vote with the radius known, on a grid GRID radii apart); the current centre stands
    unless another holds more points."""
    r = radius_px
    steps = int(round(MAX_MOVE / GRID))
    g = np.arange(-steps, steps + 1) * GRID * r
    gx, gy = np.meshgrid(g, g)
    inside = gx * gx + gy * gy <= (MAX_MOVE * r) ** 2
    offsets = np.column_stack([gx[inside], gy[inside]])                  # (G, 2), (0, 0) among them
    here = int(np.flatnonzero((offsets == 0).all(1))[0])
    cand = centres[:, None, :] + offsets[None]                           # (N, G, 2)
    dx = points[:, None, :, 0] - cand[..., 0, None]
    dy = points[:, None, :, 1] - cand[..., 1, None]
    on = (np.abs(np.sqrt(dx * dx + dy * dy) - r) <= INLIER * r) & valid[:, None, :]   # (N, G, K)
    votes = on.sum(2)
    best = np.argmax(votes, axis=1)
    rows = np.arange(len(centres))
    best = np.where(votes[rows, best] > votes[:, here], best, here)
    return cand[rows, best], on[rows, best]
