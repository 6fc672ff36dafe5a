"""The ruler corridor: a ruler laid from one centre to another, as a shapely polygon.

The corridor is a rectangle `width_in` wide whose flat ends sit exactly at the two
centres (a ruler's edge "from the centre of the shooting figure to the centre of the
target figure"); it does not stick out past either centre.
"""
from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon

from measure.distance import EPS_IN


def corridor_corners(a_xy, b_xy, width_in) -> np.ndarray:
    """(N, 4, 2) rectangle corners for N rulers; arguments broadcast."""
    a = np.atleast_2d(np.asarray(a_xy, dtype=float))
    b = np.atleast_2d(np.asarray(b_xy, dtype=float))
    a, b = np.broadcast_arrays(a, b)
    half = np.broadcast_to(np.asarray(width_in, dtype=float), a.shape[:1]) / 2.0
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    safe = np.where(length > EPS_IN, length, 1.0)
    normal = np.stack([-d[:, 1] / safe, d[:, 0] / safe], axis=1) * half[:, None]
    return np.stack([a + normal, b + normal, b - normal, a - normal], axis=1)


def corridors(a_xy, b_xy, width_in) -> np.ndarray:
    """Array of N corridor polygons (a point where the two centres coincide)."""
    a = np.atleast_2d(np.asarray(a_xy, dtype=float))
    b = np.atleast_2d(np.asarray(b_xy, dtype=float))
    a, b = np.broadcast_arrays(a, b)
    out = shapely.polygons(corridor_corners(a, b, width_in))
    degenerate = np.hypot(*(b - a).T) <= EPS_IN
    if degenerate.any():
        out[degenerate] = shapely.points(a[degenerate])
    return out


def corridor(a_xy, b_xy, width_in: float) -> Polygon:
    """One ruler corridor from centre `a_xy` to centre `b_xy`, `width_in` wide."""
    if not np.isfinite(width_in) or width_in <= 0:
        raise ValueError(f"corridor width must be a positive number of inches, got {width_in!r}")
    return corridors(a_xy, b_xy, width_in)[0]
