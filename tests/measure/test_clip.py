"""The numpy ruler/polygon kernel against shapely's own geometry on random shapes."""
from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import given, settings, strategies as st
from shapely.geometry import Polygon, box

from measure.clip import PolygonEdges, Rulers, ruler_overlap
from measure.corridor import corridor

# (no subnormal floats: on a coordinate like 2e-313 shapely's own intersection, the oracle here, cuts the
# corridor wrongly; no table is measured in such inches)
coord = st.floats(0.0, 12.0, allow_nan=False, allow_subnormal=False)


@st.composite
def star_polygons(draw):
    """Star-shaped (often non-convex) polygons, sometimes with a square hole."""
    cx, cy = draw(coord), draw(coord)
    n = draw(st.integers(3, 9))
    radii = draw(st.lists(st.floats(0.3, 4.0), min_size=n, max_size=n))
    angles = np.linspace(0, 2 * math.pi, n, endpoint=False)
    shell = [(cx + r * math.cos(a), cy + r * math.sin(a)) for r, a in zip(radii, angles)]
    hole = None
    if draw(st.booleans()) and min(radii) > 0.6:
        d = min(radii) * 0.3
        hole = [(cx - d, cy - d), (cx + d, cy - d), (cx + d, cy + d), (cx - d, cy + d)]
    return Polygon(shell, [hole] if hole else None)


def one_ruler(a, b, half):
    a, b = np.array([a], float), np.array([b], float)
    return Rulers.between(a[:, 0], a[:, 1], b[:, 0], b[:, 1], np.array([half]), 1e-9)


@settings(max_examples=150, deadline=None)
@given(star_polygons(), coord, coord, coord, coord, st.floats(0.01, 1.5))
def test_kernel_matches_shapely(poly, ax, ay, bx, by, half):
    if math.hypot(bx - ax, by - ay) < 1e-3:
        return
    edges = PolygonEdges.of(np.array([poly], dtype=object))
    meets, t_min, t_max = ruler_overlap(edges, np.array([0]), one_ruler((ax, ay), (bx, by), half))
    rect = corridor((ax, ay), (bx, by), 2 * half)
    overlap = shapely.intersection(rect, poly)
    if shapely.distance(rect, poly) < 1e-7 and overlap.area < 1e-9:
        return                                     # a graze at float precision: either answer is fair
    assert bool(meets[0]) == (not overlap.is_empty)
    if not overlap.is_empty:
        u = np.array([bx - ax, by - ay]) / math.hypot(bx - ax, by - ay)
        t = (shapely.get_coordinates(overlap) - (ax, ay)) @ u
        assert abs(t_min[0] - t.min()) < 1e-7
        assert abs(t_max[0] - t.max()) < 1e-7


def test_many_pairs_at_once_match_one_by_one():
    polys = np.array([box(2, 2, 4, 4), Polygon([(5, 0), (9, 0), (7, 3)]), None], dtype=object)
    edges = PolygonEdges.of(polys)
    a = np.array([[0, 3], [0, 1], [6, -1], [0, 3]], float)
    b = np.array([[10, 3], [10, 1], [7, 5], [10, 3]], float)
    idx = np.array([0, 1, 1, 2])
    r = Rulers.between(a[:, 0], a[:, 1], b[:, 0], b[:, 1], np.full(4, 0.0625), 1e-9)
    meets, t_min, t_max = ruler_overlap(edges, idx, r)
    assert meets.tolist() == [True, True, True, False]          # no crest (None) never meets
    assert np.allclose([t_min[0], t_max[0]], [2, 4])
    for k in (1, 2):                                            # same as asking one at a time
        one = ruler_overlap(edges, idx[k:k + 1], r.take(np.array([k])))
        assert (one[0][0], one[1][0], one[2][0]) == (meets[k], t_min[k], t_max[k])
    assert np.isinf(t_min[3]) and np.isinf(t_max[3])


def test_a_ruler_wholly_inside_a_polygon():
    edges = PolygonEdges.of(np.array([box(0, 0, 10, 10)], dtype=object))
    meets, t_min, t_max = ruler_overlap(edges, np.array([0]), one_ruler((2, 5), (6, 5), 0.5))
    assert meets[0] and (t_min[0], t_max[0]) == (0.0, 4.0)


def test_a_ruler_inside_a_hole_does_not_meet():
    donut = Polygon([(0, 0), (10, 0), (10, 10), (0, 10)], [[(2, 2), (8, 2), (8, 8), (2, 8)]])
    edges = PolygonEdges.of(np.array([donut], dtype=object))
    meets, _, _ = ruler_overlap(edges, np.array([0]), one_ruler((3, 5), (7, 5), 0.5))
    assert not meets[0]
