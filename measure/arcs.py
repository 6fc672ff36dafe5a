"""Arcs of fire: does a round base reach into the area a shooter may shoot at?

The area lies ahead of the shooter's front edge, between its two flank lines each turned
`arc_deg` outward (KremlinMiniatures: "Arc of fire - 45 degrees measured from the unit's flank
line"). It is convex, so a base reaches into it when its centre is inside or within its radius
of one of the three edges: the front, and the two flank rays. Closed forms over numpy arrays.
Table y points down: a facing turns from +x toward +y, and a unit's right is the facing turned
by +90 degrees.
"""
from __future__ import annotations

import numpy as np

from measure.distance import EPS_IN


def _unit(deg) -> tuple[np.ndarray, np.ndarray]:
    rad = np.radians(np.asarray(deg, dtype=float))
    return np.cos(rad), np.sin(rad)


def front_corners(xy, base_in, facing_deg) -> tuple[np.ndarray, np.ndarray]:
    """(left, right) front corners, (N, 2) each, of single round bases facing `facing_deg`."""
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    r = np.asarray(base_in, dtype=float) / 2.0
    fx, fy = _unit(facing_deg)
    front = xy + np.stack([fx * r, fy * r], axis=-1)
    lat = np.stack([-fy * r, fx * r], axis=-1)            # the base's right, on a y-down table
    return front - lat, front + lat


def _point_ray(px, py, ox, oy, dx, dy):
    s = np.maximum((px - ox) * dx + (py - oy) * dy, 0.0)
    return np.hypot(px - ox - s * dx, py - oy - s * dy)


def _point_segment(px, py, ax, ay, bx, by):
    vx, vy = bx - ax, by - ay
    length2 = vx * vx + vy * vy
    s = np.clip(((px - ax) * vx + (py - ay) * vy) / np.where(length2 > 0, length2, 1.0), 0.0, 1.0)
    return np.hypot(px - ax - s * vx, py - ay - s * vy)


def discs_in_arc(front_left, front_right, facing_deg, arc_deg: float, centres, radius_in) -> np.ndarray:
    """Bool per row: the base (centre, radius) reaches into the arc (touching counts).

    Arguments broadcast row by row: one shooter's front and facing against many bases, or one
    row per (shooter, base) pair.
    """
    left = np.asarray(front_left, dtype=float)
    right = np.asarray(front_right, dtype=float)
    c = np.asarray(centres, dtype=float)
    px, py, r = c[..., 0], c[..., 1], np.asarray(radius_in, dtype=float)
    lx, ly, rx, ry = left[..., 0], left[..., 1], right[..., 0], right[..., 1]
    fx, fy = _unit(facing_deg)
    lfx, lfy = _unit(np.asarray(facing_deg, dtype=float) - arc_deg)     # the left flank, turned outward
    rfx, rfy = _unit(np.asarray(facing_deg, dtype=float) + arc_deg)
    ahead = (px - lx) * fx + (py - ly) * fy >= 0
    # inside the left flank line: on the same side of it as the right corner (and vice versa)
    in_left = ((px - lx) * lfy - (py - ly) * lfx) * ((rx - lx) * lfy - (ry - ly) * lfx) >= 0
    in_right = ((px - rx) * rfy - (py - ry) * rfx) * ((lx - rx) * rfy - (ly - ry) * rfx) >= 0
    inside = ahead & in_left & in_right
    gap = np.minimum(np.minimum(_point_segment(px, py, lx, ly, rx, ry), _point_ray(px, py, lx, ly, lfx, lfy)),
                     _point_ray(px, py, rx, ry, rfx, rfy))
    return inside | (gap <= r + EPS_IN)
