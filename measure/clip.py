"""Ruler rectangles against polygons, many pairs at once, in numpy.

For each (ruler, polygon) pair this answers: do they meet (touching counts), and which
stretch [t_min, t_max] of the ruler's axis does their overlap cover? The overlap's extreme
points along the axis are among: polygon edges clipped to the rectangle (Liang-Barsky),
and rectangle corners inside the polygon. Doing this with numpy over every (pair, edge)
row is exact and avoids one GEOS predicate call per candidate pair, which dominated the
profile (see benchmarks/bench_targets.py).

Arrays are kept one coordinate per 1-D array: numpy gathers 1-D arrays an order of
magnitude faster than (N, 2) rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely


@dataclass(frozen=True)
class Rulers:
    """K ruler rectangles: origin (x, y), unit axis (ux, uy), length and half width, in inches.

    The normal is (-uy, ux); the rectangle is 0 <= t <= length, |s| <= half_in.
    """
    x: np.ndarray
    y: np.ndarray
    ux: np.ndarray
    uy: np.ndarray
    length: np.ndarray
    half_in: np.ndarray

    @classmethod
    def between(cls, ax, ay, bx, by, half_in, eps: float) -> "Rulers":
        dx, dy = bx - ax, by - ay
        length = np.hypot(dx, dy)
        ok = length > eps
        safe = np.where(ok, length, 1.0)
        return cls(ax, ay, np.where(ok, dx / safe, 1.0), np.where(ok, dy / safe, 0.0), length,
                   np.broadcast_to(np.asarray(half_in, dtype=float), ax.shape))

    def take(self, rows: np.ndarray) -> "Rulers":
        return Rulers(*(getattr(self, f).take(rows) for f in ("x", "y", "ux", "uy", "length", "half_in")))


@dataclass(frozen=True, eq=False)
class PolygonEdges:
    """Every ring edge of an array of polygons (holes included), grouped by polygon."""
    x0: np.ndarray
    y0: np.ndarray
    x1: np.ndarray
    y1: np.ndarray
    offset: np.ndarray         # (P + 1,) edges of polygon p are rows offset[p]:offset[p + 1]
    polygons: np.ndarray       # (P,) the polygons (None allowed: no edges), prepared

    @classmethod
    def of(cls, polygons: np.ndarray) -> "PolygonEdges":
        present = ~shapely.is_missing(polygons)
        rings, owner = shapely.get_rings(polygons, return_index=True)
        coords, ring = shapely.get_coordinates(rings, return_index=True)
        same = ring[1:] == ring[:-1]               # consecutive points of one closed ring
        edge_owner = owner[ring[:-1][same]] if len(coords) else np.empty(0, np.int64)
        counts = np.bincount(edge_owner, minlength=len(polygons)) if len(polygons) else np.empty(0, np.int64)
        counts = np.where(present, counts, 0)
        start, end = coords[:-1][same].reshape(-1, 2), coords[1:][same].reshape(-1, 2)
        return cls(x0=start[:, 0].copy(), y0=start[:, 1].copy(), x1=end[:, 0].copy(), y1=end[:, 1].copy(),
                   offset=np.r_[0, np.cumsum(counts)].astype(np.int64), polygons=polygons)


def ruler_overlap(edges: PolygonEdges, poly_idx, rulers: Rulers, eps: float = 0.0,
                  stretch: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(meets, t_min, t_max) of K rulers (grown by `eps` on every side) against polygons[poly_idx].

    t_min/t_max (clipped to [0, length]) are exact where `stretch` is True (default: all);
    elsewhere only `meets` is exact. Where they do not meet: +inf/-inf.
    """
    poly_idx = np.asarray(poly_idx, dtype=np.int64)
    k = len(poly_idx)
    t_min = np.full(k, np.inf)
    t_max = np.full(k, -np.inf)
    if k == 0:
        return np.zeros(0, bool), t_min, t_max

    # One row per (pair, edge of that pair's polygon).
    first = edges.offset.take(poly_idx)
    counts = edges.offset.take(poly_idx + 1) - first
    row = np.repeat(np.arange(k), counts)
    edge = np.arange(len(row)) + np.repeat(first - (np.cumsum(counts) - counts), counts)
    ox, oy = rulers.x.take(row), rulers.y.take(row)
    ux, uy = rulers.ux.take(row), rulers.uy.take(row)
    px, py = edges.x0.take(edge) - ox, edges.y0.take(edge) - oy
    qx, qy = edges.x1.take(edge) - ox, edges.y1.take(edge) - oy
    t0, s0 = px * ux + py * uy, py * ux - px * uy
    t1, s1 = qx * ux + qy * uy, qy * ux - qx * uy
    L = rulers.length.take(row) + eps
    h = rulers.half_in.take(row) + eps
    # Most edges lie wholly to one side of the ruler: drop them before clipping the rest.
    near = np.flatnonzero(~(((s0 > h) & (s1 > h)) | ((s0 < -h) & (s1 < -h))
                            | ((t0 > L) & (t1 > L)) | ((t0 < -eps) & (t1 < -eps))))
    t0, s0, t1, s1, L, h, row = (v.take(near) for v in (t0, s0, t1, s1, L, h, row))

    # Liang-Barsky, one slab at a time: the segment's parameter range inside -eps <= t <= L and
    # inside -h <= s <= h. A segment parallel to a slab gets +-inf (inside) or an empty range
    # (outside) from the division by zero; fmin/fmax skip the NaN of an endpoint exactly on it.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv_t, inv_s = 1.0 / (t1 - t0), 1.0 / (s1 - s0)
        l1, l2 = (-eps - t0) * inv_t, (L - t0) * inv_t
        m1, m2 = (-h - s0) * inv_s, (h - s0) * inv_s
        enter = np.fmax(np.fmax(np.fmin(l1, l2), np.fmin(m1, m2)), 0.0)
        leave = np.fmin(np.fmin(np.fmax(l1, l2), np.fmax(m1, m2)), 1.0)
        ok = enter <= leave
        dt = t1 - t0
        ta, tb = t0 + dt * enter, t0 + dt * leave      # NaN only where not ok, masked below
    if len(row):
        # Rows are still grouped by pair: reduce each pair's run of clipped edges.
        starts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
        pairs = row[starts]
        t_min[pairs] = np.minimum.reduceat(np.where(ok, np.minimum(ta, tb), np.inf), starts)
        t_max[pairs] = np.maximum.reduceat(np.where(ok, np.maximum(ta, tb), -np.inf), starts)

    # Rectangle corners inside the polygon: needed for the stretch, and to see a ruler lying
    # wholly inside a polygon (no edge crosses it).
    need = np.ones(k, bool) if stretch is None else (stretch | (t_min > t_max))
    rows = np.flatnonzero(need)
    if len(rows):
        r = rulers.take(rows)
        polys = edges.polygons.take(poly_idx.take(rows))
        nx, ny = -r.uy * (r.half_in + eps), r.ux * (r.half_in + eps)
        ex, ey = r.x + r.ux * r.length, r.y + r.uy * r.length
        at_start = shapely.contains_xy(polys, r.x + nx, r.y + ny) | shapely.contains_xy(polys, r.x - nx, r.y - ny)
        at_end = shapely.contains_xy(polys, ex + nx, ey + ny) | shapely.contains_xy(polys, ex - nx, ey - ny)
        lo, hi = t_min[rows], t_max[rows]
        lo = np.where(at_start, np.minimum(lo, 0.0), lo)
        hi = np.where(at_start, np.maximum(hi, 0.0), hi)
        lo = np.where(at_end, np.minimum(lo, r.length), lo)
        hi = np.where(at_end, np.maximum(hi, r.length), hi)
        t_min[rows], t_max[rows] = lo, hi
    meets = t_min <= t_max
    return (meets, np.where(meets, np.clip(t_min, 0.0, rulers.length), np.inf),
            np.where(meets, np.clip(t_max, 0.0, rulers.length), -np.inf))
