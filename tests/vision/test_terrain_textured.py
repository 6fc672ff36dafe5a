"""Terrain felt on textured mats, under colour casts, with ragged soft edges and clutter around.

The scenes are top views (tests/vision/felt_scenes.py) with exact truth: each piece is where its
felt covers more than half a pixel. Kinds are paired with mats they can be told from (rocks on a
gravel mat or hills on a wood-grain mat of nearly the same colour are not asked for).
"""
from __future__ import annotations

import numpy as np
import pytest
from shapely.geometry import Point

from measure.scene import Scene, Table, scene_to_json
from vision.terrain import find_terrain
from vision.hands import find_hands
from vision.topview import TopView
from vision.whitebalance import estimate_white_balance

from tests.vision.felt_scenes import PPI, felt_scene

RED = (200, 40, 40)
ALL = ("woods", "rocks", "hill", "water")
SCENES = [  # (mat, cast, kinds, seed)
    ("plain", "tungsten", ALL, 1),
    ("grass", "neutral", ALL, 2),
    ("grass", "daylight", ALL, 3),
    ("gravel", "daylight", ("woods", "hill", "water"), 4),
    ("wood", "neutral", ("woods", "rocks", "water"), 5),
]


def _find(scene, footprints=True):
    wb = estimate_white_balance(scene.view_bgr, PPI, scene.anchors)
    view = TopView(scene.view_bgr, PPI, (0.0, 0.0))
    image = wb.felt(view.image, view.ppi, view.origin_in)
    hands = find_hands(scene.view_bgr, PPI, wb=wb, other_rgbs=list(scene.kinds.values()))
    reference = [(a.x_in, a.y_in) for a in scene.anchors if a.id in wb.anchors_used]
    anchors = [(a.x_in - a.size_in * 0.7, a.y_in - a.size_in * 0.7, a.x_in + a.size_in * 0.7,
                a.y_in + a.size_in * 0.7) for a in scene.anchors]
    feet = [(x, y, 0.5) for x, y in scene.figures] if footprints else []
    return find_terrain(image, PPI, list(scene.kinds.items()), [RED], feet, exclude_in=anchors,
                        reference_in=reference, exclude_mask=hands.mask_in(view))


@pytest.fixture(scope="module")
def found():
    out = []
    for mat, cast, kinds, seed in SCENES:
        scene = felt_scene(seed, mat=mat, cast=cast, kinds=kinds)
        out.append((scene, _find(scene)))
    return out


def _iou(a, b) -> float:
    return a.intersection(b).area / a.union(b).area


def test_each_kind_is_found_as_one_polygon_with_iou_over_0_9(found):
    per_kind: dict[str, list[float]] = {}
    for scene, pieces in found:
        for kind, truth in scene.truth:
            mine = [p for p in pieces if p.kind == kind and p.polygon.intersects(truth)]
            assert len(mine) == 1, (kind, truth.bounds, [(p.kind, p.polygon.bounds) for p in pieces])
            per_kind.setdefault(kind, []).append(_iou(mine[0].polygon, truth))
    for kind, ious in per_kind.items():
        assert np.mean(ious) >= 0.9, (kind, ious)
        assert min(ious) >= 0.85, (kind, ious)


def test_clutter_and_mat_texture_never_become_terrain(found):
    for scene, pieces in found:
        assert len(pieces) == len(scene.truth), [(p.kind, p.polygon.bounds) for p in pieces]
        for p in pieces:
            for thing in scene.clutter:
                assert p.polygon.intersection(thing).area < 0.1 * p.polygon.area


def test_a_figure_standing_on_felt_cuts_no_hole(found):
    for scene, pieces in found:
        for x, y in scene.figures:
            under = [p for p in pieces if p.polygon.contains(Point(x, y))]
            assert len(under) == 1 and under[0].polygon.contains(Point(x, y).buffer(0.5))
            assert len(under[0].polygon.interiors) == 0


def test_the_table_showing_past_the_mat_is_not_terrain():
    # Brown table wood along two edges, the colour of a hill.
    scene = felt_scene(6, mat="grass", kinds=("woods", "hill"), table_edge_rgb=(140, 112, 70), clutter=False)
    pieces = _find(scene)
    assert sorted(p.kind for p in pieces) == ["hill", "woods"]
    assert all(p.polygon.bounds[0] > 1.5 and p.polygon.bounds[3] < scene.depth_in - 1.5 for p in pieces)


def test_each_piece_reports_its_confidence_in_the_scene_json(found):
    scene, pieces = found[0]
    data = scene_to_json(Scene(table=Table(scene.width_in, scene.depth_in), terrain=pieces))
    for item in data["terrain"]:
        assert 0.5 <= item["confidence"] <= 1.0


def test_a_felt_of_the_mats_own_colour_is_not_looked_for():
    # Rocks on a grey gravel mat: too near the mat's colour to tell; reported as nothing, not as the mat.
    scene = felt_scene(7, mat="gravel", kinds=("rocks",), clutter=False)
    assert all(p.polygon.area < 60 for p in _find(scene))
