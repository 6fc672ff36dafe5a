"""Terrain felt: mean IoU >= 0.9 against the truth; figures standing on felt are part of it; anchors,
markers and bases are not terrain."""
from __future__ import annotations

import numpy as np
from shapely.geometry import Point, Polygon

from calibration.profile import ColourSpec, TableProfile, standard_anchors
from vision.pipeline import FramePipeline
from vision.synthetic import ColourFigure, FeltPiece, MarkerFigure, PhotoSpec, TableSpec, render_photo

from tests.vision.scoring import terrain_ious

WOODS, WATER = (35, 70, 30), (60, 120, 170)


def test_mean_iou_and_no_extra_pieces(table_set):
    ious = []
    for photo, profile, result in table_set:
        ious += terrain_ious(result.scene, photo.truth)
        assert len(result.scene.terrain) == len(photo.truth.terrain)
        assert all(t.polygon.is_valid and t.polygon.geom_type == "Polygon" for t in result.scene.terrain)
    assert np.mean(ious) >= 0.9
    assert min(ious) >= 0.75


def test_figures_standing_on_felt_are_filled_in():
    width, depth = 36.0, 24.0
    woods = ((10, 6), (20, 5.5), (21, 14), (11, 15))
    table = TableSpec(width, depth, standard_anchors(width, depth),
                      marker_figures=(MarkerFigure(12, 15.5, 10.0, 1.0, 20.0),          # in the middle
                                      MarkerFigure(13, 20.2, 9.0, 1.0, 0.0)),          # on the edge
                      colour_figures=(ColourFigure("c1", "red", (200, 40, 40), 13.0, 8.0),
                                      ColourFigure("c2", "red", (200, 40, 40), 10.9, 12.0)),   # on the edge
                      terrain=(FeltPiece("t1", "woods", woods, WOODS),))
    photo = render_photo(table, PhotoSpec(image_size=(1280, 720), tilt_deg=20, azimuth_deg=120), rng=5)
    profile = TableProfile("t", width, depth, anchors=standard_anchors(width, depth),
                           sides=(ColourSpec("red", (200, 40, 40)),), terrain=(ColourSpec("woods", WOODS),))
    scene = FramePipeline(profile).process(photo.image).scene
    assert len(scene.terrain) == 1
    piece = scene.terrain[0].polygon
    truth = Polygon(woods)
    assert piece.intersection(truth).area / piece.union(truth).area >= 0.93
    assert len(piece.interiors) == 0
    for x, y in ((15.5, 10.0), (13.0, 8.0)):
        assert piece.contains(Point(x, y).buffer(0.5))          # no hole where a figure stands
    for x, y in ((20.2, 9.0), (10.9, 12.0)):
        assert piece.contains(Point(x, y).buffer(0.3))          # no notch where one stands on the edge


def test_no_terrain_on_a_table_without_felt(table_set):
    photo, profile, result = table_set[0]
    width, depth = profile.width_in, profile.depth_in
    table = TableSpec(width, depth, standard_anchors(width, depth),
                      marker_figures=tuple(MarkerFigure(10 + k, 5.0 + 4 * k, 8.0 + (k % 3) * 6, 1.0, 15.0 * k)
                                           for k in range(8)),
                      colour_figures=tuple(ColourFigure(f"c{k}", "blue", (40, 80, 200), 6.0 + 4 * k, 26.0)
                                           for k in range(6)))
    photo = render_photo(table, PhotoSpec(image_size=(1280, 720), tilt_deg=30, azimuth_deg=200, shadow=0.4), rng=9)
    scene = FramePipeline(profile).process(photo.image).scene
    assert scene.terrain == ()
