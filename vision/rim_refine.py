"""The centre of a partly hidden rim, from the base's known radius.

A leaning figure hides part of its rim, and what it leans over may be of the rim's own colour (a
cloak hanging over the rim and past it). The outer edge of the colour then follows the rim along
one arc and the cloak along another; a least-squares circle through both, with the radius free,
settles between them and the centre drifts towards the cloak or the visible arc. The radius is
known (the base's size, plus the blur's small outward bias), so two edge points fix a centre (two,
mirror images); the centre that the most edge points agree with is the rim's: the rim's arc is one
circle of that radius, a cloak's edge is not. The centre is then fitted to those points alone.

Run on the few kept rings only (the pairs of points: K (K - 1) / 2 a ring).
"""
from __future__ import annotations

import numpy as np

INLIER = 0.12                  # radii: an edge point this near the circle agrees with it
MAX_MOVE = 0.5                 # radii: a refinement never moves a centre farther than this


def consensus_centres(points: np.ndarray, valid: np.ndarray, centres: np.ndarray,
                      radius_px: float) -> tuple[np.ndarray, np.ndarray]:
    """For each ring's edge points (N, K, 2), where `valid` (N, K): the centre (N, 2) of the circle
    of radius `radius_px` that the most of them lie on, and which do (N, K). A ring whose best
    circle is held by no more points than the one round its current centre (N, 2), or lies too far
    from it, keeps its centre and that circle's points."""
    n, k = valid.shape
    tol = INLIER * radius_px
    out = centres.astype(np.float64).copy()
    agree = np.zeros((n, k), bool)
    for i in range(n):
        idx = np.flatnonzero(valid[i])
        p = points[i][idx]
        if len(p) < 3:
            agree[i, idx] = True
            continue
        a, b = np.triu_indices(len(p), 1)
        mid = (p[a] + p[b]) / 2
        half = (p[b] - p[a]) / 2
        d2 = (half * half).sum(1)
        ok = (d2 > 1e-6) & (d2 < radius_px * radius_px)
        mid, half, d2 = mid[ok], half[ok], d2[ok]
        h = np.sqrt(radius_px * radius_px - d2) / np.sqrt(d2)
        normal = np.column_stack([-half[:, 1], half[:, 0]]) * h[:, None]
        cand = np.concatenate([mid + normal, mid - normal])
        cand = np.concatenate([cand[np.hypot(*(cand - centres[i]).T) <= MAX_MOVE * radius_px], centres[i][None]])
        dist = np.hypot(p[None, :, 0] - cand[:, None, 0], p[None, :, 1] - cand[:, None, 1])
        on = np.abs(dist - radius_px) <= tol
        votes = on.sum(1)
        best = int(np.argmax(votes))                      # ties: the first; the current centre is last
        if votes[best] <= votes[-1]:
            best = len(cand) - 1
        out[i] = cand[best]
        agree[i, idx[on[best]]] = True
    return out, agree

