"""Hypothesis properties of distances, corridors and line of sight on random small tables."""
from __future__ import annotations

import numpy as np
import shapely
import shapely.ops
from hypothesis import assume, given, settings, strategies as st
from shapely.geometry import LineString, Point, box

from measure import (Figure, Scene, ShooterSpec, SightPolicy, Table, Terrain, closest_targets, corridor,
                     distance_matrices, line_of_sight)

coord = st.floats(0.0, 20.0, allow_nan=False, allow_infinity=False, allow_subnormal=False)   # (as test_clip's)
base = st.sampled_from([0.5, 0.75, 1.0, 1.25, 2.0])
KINDS = ["woods", "rocks", "hill", "wall", "building", "water", "lava"]
FAST = settings(max_examples=60, deadline=None)


@st.composite
def terrain_pieces(draw, n_max=4):
    pieces = []
    for i in range(draw(st.integers(0, n_max))):
        x0, y0 = draw(coord), draw(coord)
        w, h = draw(st.floats(0.2, 6.0)), draw(st.floats(0.2, 6.0))
        kind = draw(st.sampled_from(KINDS))
        crest = None
        if kind == "hill" and draw(st.booleans()):
            crest = box(x0 + w * 0.4, y0, x0 + w * 0.6, y0 + h)
        pieces.append(Terrain(f"t{i}", kind, box(x0, y0, x0 + w, y0 + h), crest=crest))
    return pieces


@st.composite
def scenes(draw, n_min=2, n_max=7, with_terrain=True):
    n = draw(st.integers(n_min, n_max))
    figures = [Figure(f"f{i}", draw(coord), draw(coord), base_in=draw(base), side=draw(st.sampled_from("rb")))
               for i in range(n)]
    terrain = draw(terrain_pieces()) if with_terrain else []
    return Scene(table=Table(24, 24), figures=tuple(figures), terrain=tuple(terrain))


def far_apart(s: Scene, a: int = 0, b: int = 1) -> bool:
    fa, fb = s.figures[a], s.figures[b]
    return np.hypot(fa.x - fb.x, fa.y - fb.y) > 1e-3


@FAST
@given(scenes(), st.floats(0.05, 3.0), st.floats(0.0, 3.0))
def test_a_clear_wide_ruler_means_a_clear_narrow_one(s, narrow, extra):
    assume(far_apart(s))
    wide = line_of_sight(s, "f0", "f1", narrow + extra)
    thin = line_of_sight(s, "f0", "f1", narrow)
    assert set(thin.blocked_by) <= set(wide.blocked_by)
    if wide.clear:
        assert thin.clear


@FAST
@given(scenes(), st.sampled_from(["edge", "ruler", 0.6]))
def test_line_of_sight_is_symmetric(s, width):
    assume(far_apart(s))
    there, back = line_of_sight(s, "f0", "f1", width), line_of_sight(s, "f1", "f0", width)
    assert there.blocked_by == back.blocked_by
    assert there.distance_in == back.distance_in and there.edge_distance_in == back.edge_distance_in


@FAST
@given(scenes(n_min=1, n_max=9, with_terrain=False))
def test_distances_are_symmetric_and_edges_never_exceed_centres(s):
    centre, edge = distance_matrices(s)
    assert np.array_equal(centre, centre.T) and np.array_equal(edge, edge.T)
    assert np.all(edge >= 0) and np.all(edge <= centre)


@FAST
@given(scenes(n_min=3), st.sampled_from(["edge", "ruler"]), st.floats(0.001, 10.0), st.booleans())
def test_moving_a_blocking_figure_away_never_blocks(s, width, step, left):
    assume(far_apart(s))
    before = line_of_sight(s, "f0", "f1", width)
    mover = s.figures[2]
    ruler = corridor(s.figures[0].xy, s.figures[1].xy, before.width_in)
    near = shapely.ops.nearest_points(ruler, Point(mover.xy))[0]
    away = np.subtract(mover.xy, (near.x, near.y))
    if np.hypot(*away) < 1e-9:                       # centre inside the ruler: move across the axis
        d = np.subtract(s.figures[1].xy, s.figures[0].xy)
        away = np.array([-d[1], d[0]]) * (1 if left else -1)
    away = away / np.hypot(*away) * step
    moved = Figure(mover.id, mover.x + away[0], mover.y + away[1], base_in=mover.base_in, side=mover.side)
    after = line_of_sight(s.with_figures([*s.figures[:2], moved, *s.figures[3:]]), "f0", "f1", width)
    assert set(after.blocked_by) <= set(before.blocked_by)
    if before.clear:
        assert after.clear


@FAST
@given(scenes(n_min=2, n_max=8, with_terrain=False), st.sampled_from([0.125, 1.25]))
def test_vectorised_blockers_match_a_naive_pair_loop(s, width):
    specs = {f.id: ShooterSpec(width) for f in s.figures[: len(s.figures) // 2 + 1]}
    results = closest_targets(s, specs)
    for r in results:
        a = s.figure(r.shooter)
        for e in r.enemies:
            b = s.figure(e.id)
            if np.hypot(a.x - b.x, a.y - b.y) < 1e-3:          # stacked figures: no ruler to lay
                continue
            ruler = LineString([a.xy, b.xy]).buffer(width / 2, cap_style="flat")
            naive = tuple(f.id for f in s.figures if f.id not in (a.id, b.id)
                          and ruler.distance(Point(f.xy)) <= f.base_in / 2 + 1e-6)
            assert e.blocked_by == naive


@FAST
@given(scenes(), st.sampled_from(["edge", "ruler"]))
def test_water_never_blocks_and_walls_always_do(s, width):
    assume(far_apart(s))
    a, b = s.figures[0], s.figures[1]
    mid = ((a.x + b.x) / 2, (a.y + b.y) / 2)
    piece = Point(mid).buffer(0.3)
    for kind, blocks in (("water", False), ("wall", True)):
        scene = Scene(table=s.table, figures=s.figures, terrain=(*s.terrain, Terrain("x", kind, piece)))
        assert ("x" in line_of_sight(scene, "f0", "f1", width, SightPolicy()).blocked_by) is blocks


def reference_blockers(s: Scene, a_id: str, b_id: str, width: float, eps: float) -> tuple[str, ...]:
    """The rules of measure.los written plainly with scalar shapely calls, one pair at a time."""
    a, b = s.figure(a_id), s.figure(b_id)
    policy = SightPolicy()
    length = float(np.hypot(b.x - a.x, b.y - a.y))
    unit = (np.subtract(b.xy, a.xy)) / length
    ruler = corridor(a.xy - unit * eps, b.xy + unit * eps, width + 2 * eps)   # "touching" within eps
    out = [f.id for f in s.figures if f.id not in (a_id, b_id)
           and corridor(a.xy, b.xy, width).distance(Point(f.xy)) <= f.base_in / 2 + eps]
    for t in s.terrain:
        if t.kind in policy.clear_kinds or not ruler.intersects(t.polygon):
            continue
        if t.kind in policy.soft_kinds:
            along = (shapely.get_coordinates(ruler.intersection(t.polygon)) - a.xy) @ unit
            reach = policy.soft_depth_in + eps
            if along.max() > reach and along.min() < length - reach:
                out.append(t.id)
        elif t.kind in policy.hill_kinds:
            on_hill = t.polygon.distance(Point(a.xy)) <= eps or t.polygon.distance(Point(b.xy)) <= eps
            on_top = t.crest is not None and (t.crest.distance(Point(a.xy)) <= eps
                                              or t.crest.distance(Point(b.xy)) <= eps)
            if not on_hill or (t.crest is not None and ruler.intersects(t.crest) and not on_top):
                out.append(t.id)
        else:
            out.append(t.id)
    return tuple(out)


@settings(max_examples=80, deadline=None)
@given(scenes(n_min=2, n_max=6), st.sampled_from([0.125, 1.25, 0.4]))
def test_vectorised_line_of_sight_matches_a_plain_reference(s, width):
    assume(far_apart(s))
    tight = reference_blockers(s, "f0", "f1", width, 1e-7)
    loose = reference_blockers(s, "f0", "f1", width, 1e-5)
    assume(tight == loose)                      # skip verdicts that hang on a float-precision touch
    assert line_of_sight(s, "f0", "f1", width).blocked_by == tight


@settings(max_examples=120, deadline=None)
@given(scenes(n_min=2, n_max=3, with_terrain=False), st.floats(-1.5, 1.5), st.floats(-1.5, 1.5),
       st.floats(0.3, 3.0), st.sampled_from(["woods", "hill"]), st.sampled_from([0.125, 1.25]),
       st.booleans())
def test_terrain_near_the_target_matches_the_reference(s, dx, dy, size, kind, width, with_crest):
    assume(far_apart(s))
    b = s.figures[1]
    piece = box(b.x + dx, b.y + dy, b.x + dx + size, b.y + dy + size)
    crest = box(b.x + dx + size * 0.4, b.y + dy, b.x + dx + size * 0.6, b.y + dy + size) if with_crest else None
    scene = Scene(table=s.table, figures=s.figures, terrain=(Terrain("p", kind, piece, crest=crest),))
    tight = reference_blockers(scene, "f0", "f1", width, 1e-7)
    assume(tight == reference_blockers(scene, "f0", "f1", width, 1e-5))
    assert line_of_sight(scene, "f0", "f1", width).blocked_by == tight
