"""Grid spaces: the cell of a table position, and distances counted in spaces.

Square cells are (col, row) with cell (0, 0) having its corner at `grid.origin`.
Hex cells are axial (q, r) with cell (0, 0) centred on `grid.origin`; `pitch_in` is
the flat-to-flat distance; "flat" topped hexes have a flat top and bottom edge,
"pointy" topped ones a corner up. `angle_deg` turns the grid's x axis from the
table's x axis (table y points down, as in a top-down picture).
"""
from __future__ import annotations

import math

import numpy as np

from measure.scene import Grid, SceneError

SQUARE_METRICS = ("chessboard", "equidistant", "alternating", "manhattan", "euclidean")
_SQRT3 = math.sqrt(3.0)


class GridError(SceneError):
    """A grid metric or cell request that does not fit the grid."""


def _to_local(grid: Grid, xy) -> np.ndarray:
    """Table inches -> grid-aligned inches relative to the origin, shape (..., 2)."""
    p = np.asarray(xy, dtype=float) - np.asarray(grid.origin, dtype=float)
    theta = math.radians(grid.angle_deg)
    c, s = math.cos(theta), math.sin(theta)
    return np.stack([c * p[..., 0] + s * p[..., 1], -s * p[..., 0] + c * p[..., 1]], axis=-1)


def _from_local(grid: Grid, uv) -> np.ndarray:
    uv = np.asarray(uv, dtype=float)
    theta = math.radians(grid.angle_deg)
    c, s = math.cos(theta), math.sin(theta)
    xy = np.stack([c * uv[..., 0] - s * uv[..., 1], s * uv[..., 0] + c * uv[..., 1]], axis=-1)
    return xy + np.asarray(grid.origin, dtype=float)


def _hex_size(grid: Grid) -> float:
    return grid.pitch_in / _SQRT3          # centre to corner


def _cube_round(q: np.ndarray, r: np.ndarray) -> np.ndarray:
    s = -q - r
    rq, rr, rs = np.round(q), np.round(r), np.round(s)
    dq, dr, ds = np.abs(rq - q), np.abs(rr - r), np.abs(rs - s)
    fix_q = (dq > dr) & (dq > ds)
    fix_r = ~fix_q & (dr > ds)
    rq = np.where(fix_q, -rr - rs, rq)
    rr = np.where(fix_r, -rq - rs, rr)
    return np.stack([rq, rr], axis=-1).astype(np.int64)


def cell_of(grid: Grid, xy) -> np.ndarray:
    """The cell holding each position: (..., 2) int array of (col, row) or axial (q, r)."""
    uv = _to_local(grid, xy)
    if grid.kind == "square":
        return np.floor(uv / grid.pitch_in).astype(np.int64)
    if grid.kind == "hex":
        size = _hex_size(grid)
        x, y = uv[..., 0], uv[..., 1]
        if (grid.orientation or "flat") == "flat":
            q = (2.0 / 3.0 * x) / size
            r = (-x / 3.0 + _SQRT3 / 3.0 * y) / size
        else:
            q = (_SQRT3 / 3.0 * x - y / 3.0) / size
            r = (2.0 / 3.0 * y) / size
        return _cube_round(q, r)
    raise GridError(f"grid.kind: expected 'square' or 'hex', got {grid.kind!r}")


def cell_centre(grid: Grid, cell) -> np.ndarray:
    """Table position of each cell's centre, (..., 2) float."""
    c = np.asarray(cell, dtype=float)
    if grid.kind == "square":
        return _from_local(grid, (c + 0.5) * grid.pitch_in)
    size = _hex_size(grid)
    q, r = c[..., 0], c[..., 1]
    if (grid.orientation or "flat") == "flat":
        uv = np.stack([1.5 * size * q, size * (_SQRT3 / 2 * q + _SQRT3 * r)], axis=-1)
    else:
        uv = np.stack([size * (_SQRT3 * q + _SQRT3 / 2 * r), 1.5 * size * r], axis=-1)
    return _from_local(grid, uv)


def square_distance(a_cell, b_cell, metric: str = "chessboard") -> np.ndarray:
    """Spaces between square cells under a diagonal rule.

    chessboard / equidistant: a diagonal step costs 1; alternating: diagonals cost 1, 2, 1, ...;
    manhattan: no diagonal steps; euclidean: straight-line distance in spaces (float).
    """
    d = np.abs(np.asarray(a_cell, dtype=np.int64) - np.asarray(b_cell, dtype=np.int64))
    dx, dy = d[..., 0], d[..., 1]
    if metric in ("chessboard", "equidistant"):
        return np.maximum(dx, dy)
    if metric == "alternating":
        return np.maximum(dx, dy) + np.minimum(dx, dy) // 2
    if metric == "manhattan":
        return dx + dy
    if metric == "euclidean":
        return np.hypot(dx, dy)
    raise GridError(f"grid metric: expected one of {', '.join(SQUARE_METRICS)}, got {metric!r}")


def hex_distance(a_cell, b_cell) -> np.ndarray:
    """Spaces between axial hex cells."""
    d = np.asarray(a_cell, dtype=np.int64) - np.asarray(b_cell, dtype=np.int64)
    dq, dr = d[..., 0], d[..., 1]
    return (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2


def cell_distance(grid: Grid, a_cell, b_cell, metric: str = "chessboard") -> np.ndarray:
    """Spaces between cells of this grid; `metric` applies to square grids only."""
    if grid.kind == "hex":
        return hex_distance(a_cell, b_cell)
    return square_distance(a_cell, b_cell, metric)


def grid_distance(grid: Grid, a_xy, b_xy, metric: str = "chessboard") -> np.ndarray:
    """Spaces between the cells holding two (arrays of) table positions."""
    return cell_distance(grid, cell_of(grid, a_xy), cell_of(grid, b_xy), metric)


def adjacent(grid: Grid, a_cell, b_cell) -> np.ndarray:
    """Same or neighbouring space, corners included (KIMMIRIA's "next to")."""
    if grid.kind == "hex":
        return hex_distance(a_cell, b_cell) <= 1
    return square_distance(a_cell, b_cell, "chessboard") <= 1
