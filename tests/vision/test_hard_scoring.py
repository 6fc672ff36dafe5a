"""How the hard set scores colour figures (tests/vision/hard_scoring): what counts as found, missed and
a phantom, and what each phantom is said to be, on scenes written by hand."""
from __future__ import annotations

import numpy as np
import pytest

from measure.scene import Figure, Scene, Table
from tests.vision.hard_scoring import PhotoScore, frame_ppi, phantom_kind, ppi_band, score_colour

TABLE = Table(48.0, 36.0)


def _colour(fid: str, x: float, y: float, side: str, hidden: bool = False) -> Figure:
    return Figure(fid, x, y, side=side, detected_by="colour", hidden=hidden)


def _score(truth: list[Figure], found: list[Figure], suspect=None) -> PhotoScore:
    s = PhotoScore(index=0, groups={})
    score_colour(Scene(TABLE, tuple(found)), Scene(TABLE, tuple(truth)), s, suspect=suspect)
    return s


def test_a_figure_found_with_the_other_side_is_a_miss_and_a_phantom_with_its_side_misread():
    s = _score([_colour("c1", 10, 10, "red"), _colour("c2", 20, 20, "blue")],
               [_colour("f1", 10.2, 10.1, "blue"), _colour("f2", 20.1, 20, "blue")])
    assert (s.colour_total, s.colour_found, s.colour_phantoms) == (2, 1, ["f1"])
    assert s.colour_phantom_kinds == ["a figure of the other side, its side misread"]
    assert any(m.endswith("figure c1 (red) read as blue") for m in s.misses)


def test_a_figure_found_just_past_the_gate_is_a_miss_and_a_phantom_found_too_far_off():
    s = _score([_colour("c1", 10, 10, "red")], [_colour("f1", 10.7, 10, "red")])
    assert (s.colour_found, s.colour_phantoms) == (0, ["f1"])
    assert s.colour_phantom_kinds == ["a figure of its side, found too far off"]
    assert any(m.endswith("figure c1 found 0.70 in off") for m in s.misses)


def test_a_figure_found_far_from_any_is_named_by_what_lies_under_it():
    s = _score([_colour("c1", 10, 10, "red")], [_colour("f1", 10, 10, "red"), _colour("f2", 30, 30, "blue")],
               suspect=lambda x, y: "a blue die")
    assert (s.colour_found, s.colour_phantoms, s.colour_phantom_kinds) == (1, ["f2"], ["a die"])


def test_a_figure_under_the_hand_found_is_neither_found_nor_a_phantom():
    s = _score([_colour("c1", 10, 10, "red", hidden=True)], [_colour("f1", 10.1, 10, "blue")])
    assert (s.colour_total, s.colour_found, s.colour_phantoms) == (0, 0, [])


@pytest.mark.parametrize("what, side, kind", [
    ("figure c4's body (blue, red cloak)", "red", "cloth of its side on a figure's body"),
    ("figure c4's body (blue, red cloak)", "blue", "a figure's body"),
    ("figure c2's body (blue)", "blue", "a figure's body"),
    ("a red die", "blue", "a die"),
    ("water felt t4", "blue", "felt"),
    ("the mat", "red", "the mat"),
    ("the mug", "red", "clutter"),
    ("the page", "blue", "clutter"),
    ("the hand", "blue", "the hand"),
    ("", "red", "nothing named"),
])
def test_a_phantom_is_classed_by_what_lies_under_it(what, side, kind):
    assert phantom_kind(what, side) == kind


def test_each_missed_figure_explains_one_phantom_the_nearest():
    """Two phantoms of another side on one missed figure: the nearer is it, misread; the other is a
    phantom named by what lies under it. A phantom beside two missed figures is the nearer one's."""
    s = _score([_colour("c1", 10, 10, "red"), _colour("c2", 10.44, 10, "red")],
               [_colour("f1", 10.43, 10, "blue"), _colour("f2", 10.2, 10, "green")], suspect=lambda x, y: "the mat")
    assert sorted(s.colour_phantom_kinds) == ["a figure of the other side, its side misread"] * 2
    assert any(m.endswith("figure c2 (red) read as blue") for m in s.misses)
    assert any(m.endswith("figure c1 (red) read as green") for m in s.misses)
    s = _score([_colour("c1", 10, 10, "red")],
               [_colour("f1", 10.3, 10, "blue"), _colour("f2", 10.1, 10, "blue")], suspect=lambda x, y: "the mat")
    assert sorted(s.colour_phantom_kinds) == ["a figure of the other side, its side misread", "the mat"]
    assert any(m == "phantom blue colour figure at (10.1, 10.0) on the mat: figure c1 (red) read as blue" for m in s.misses)


@pytest.mark.parametrize("ppi, band", [(8.0, "under 20 px/in"), (19.99, "under 20 px/in"), (20.0, "20-24 px/in"),
                                       (23.9, "20-24 px/in"), (24.0, "24 px/in and more"), (60.0, "24 px/in and more")])
def test_a_place_is_banded_by_how_finely_the_photo_shows_it_against_the_house_default(ppi, band):
    assert ppi_band(ppi) == band


def test_figures_and_phantoms_are_counted_by_the_band_at_their_place():
    # the far half of the table (y > 18) shown at 15 px/in, the near half at 30
    s = PhotoScore(index=0, groups={})
    truth = [_colour("c1", 10, 10, "red"), _colour("c2", 20, 30, "blue"), _colour("c3", 30, 30, "red")]
    found = [_colour("f1", 10.1, 10, "red"), _colour("f2", 20, 30.2, "blue"), _colour("f3", 40, 32, "blue")]
    score_colour(Scene(TABLE, tuple(found)), Scene(TABLE, tuple(truth)), s,
                 ppi_at=lambda x, y: 15.0 if y > 18 else 30.0)
    far, near = "under 20 px/in", "24 px/in and more"
    assert dict(s.band_total) == {near: 1, far: 2} and dict(s.band_found) == {near: 1, far: 1}
    assert dict(s.band_phantoms) == {far: 1}
    assert s.band_errors_in[near] == pytest.approx([0.1]) and s.band_errors_in[far] == pytest.approx([0.2])


def test_the_bands_measure_what_the_player_is_told_of():
    """The benchmark's bands (the truth camera) and vision.quality's check (the registration) read the
    same scale: the least over the check's grid is the same number."""
    from calibration.registration import Registration
    from vision.quality import COARSE_GRID, colour_resolution
    from vision.synthetic import camera_over_table
    camera = camera_over_table(48, 36, (1920, 1080), tilt_deg=35.0, azimuth_deg=90.0)
    registration = Registration(np.linalg.inv(camera.plane_homography(0.0)), "anchors-ransac", (0, 1, 2, 3), (),
                                0.1, (1920, 1080))
    u = (np.arange(COARSE_GRID) + 0.5) / COARSE_GRID
    ppi = [frame_ppi(camera, x, y) for x in u * 48 for y in u * 36]
    info = colour_resolution(registration, (48.0, 36.0))
    assert info["px_per_in_least"] == round(min(ppi), 1) and info["px_per_in_most"] == round(max(ppi), 1)
    below = [ppi_band(p) != "24 px/in and more" for p in ppi]
    assert 0 < info["share_below"] == round(sum(below) / len(below), 2) < 1


def _hands(*polygons) -> Scene:
    return Scene(TABLE, (), extra={"hands": [{"polygon": [list(c) for c in p.exterior.coords[:-1]]} for p in polygons]})


def test_a_drawn_hand_the_found_one_covers_is_found_and_one_off_it_is_missed():
    from shapely.geometry import box
    from tests.vision.hard_scoring import score_hands
    drawn = box(0, 10, 12, 13)                          # 36 sq in, in from the left edge
    s = PhotoScore(index=0, groups={})
    score_hands(_hands(box(0, 10.2, 5, 13.2)), drawn, s)  # covers 14 of 36 sq in: found
    assert (s.hand_drawn, s.hand_found, s.hands_where_none, s.misses) == (True, True, 0, [])
    s = PhotoScore(index=0, groups={})
    score_hands(_hands(box(0, 10, 3, 13)), drawn, s)      # 9 of 36: less than HAND_FOUND_SHARE
    assert (s.hand_found, s.hands_where_none) == (False, 0)
    assert s.misses == ["the hand at (6.0, 11.5) not found"]


def test_a_hand_found_clear_of_the_drawn_one_or_on_a_table_without_one_is_a_hand_where_there_is_none():
    from shapely.geometry import box
    from tests.vision.hard_scoring import score_hands
    s = PhotoScore(index=0, groups={})
    score_hands(_hands(box(40, 0, 46, 5)), None, s, suspect=lambda x, y: "the page")
    assert (s.hand_drawn, s.hands_where_none) == (False, 1)
    assert s.misses == ["a hand where there is none, at (43.0, 2.5), 30.0 sq in on the page"]
    s = PhotoScore(index=0, groups={})
    # the drawn hand's own outline a little wide (within 1.5") and a 1 sq in scrap are no false hand
    score_hands(_hands(box(0, 9, 13, 14), box(30, 30, 31, 31)), box(0, 10, 12, 13), s)
    assert (s.hand_found, s.hands_where_none, s.misses) == (True, 0, [])


def test_figures_standing_in_water_are_counted_apart_and_named():
    # (the issue: "A blue figure standing in water is still found": the report gives them their own line)
    from shapely.geometry import box

    from measure.scene import Terrain
    pond = Terrain("t1", "water", box(15, 25, 25, 35))
    truth = [_colour("c1", 10, 10, "red"), _colour("c2", 20, 30, "blue"), _colour("c3", 22, 28, "blue"),
             _colour("c4", 40, 30, "blue")]
    found = [_colour("f1", 10.1, 10, "red"), _colour("f2", 20, 30.2, "blue")]
    s = PhotoScore(index=0, groups={})
    score_colour(Scene(TABLE, tuple(found), terrain=(pond,)), Scene(TABLE, tuple(truth), terrain=(pond,)), s)
    assert (s.water_total, s.water_found) == (2, 1)
    assert s.colour_in_water == [False, True] and s.colour_errors_in == pytest.approx([0.1, 0.2])
    assert [m for m in s.misses if "standing in water" in m] == [
        "colour c3 (blue, standing in water) at (22.0, 28.0) missed"]
    assert "colour c4 (blue) at (40.0, 30.0) missed" in s.misses


def test_a_figure_under_the_hand_is_reported_hidden_removed_or_never_found_before():
    """A figure under the hand counts when it is reported hidden at its place; one missing is named
    'removed', one reported elsewhere 'not reported hidden at its place', and one the picture before
    never found 'not found in the picture before' (nothing could be carried: rim recall, not the hand)."""
    from tests.vision.hard_scoring import hidden_reported
    truth = Scene(TABLE, (_colour("c1", 10, 10, "red", hidden=True), _colour("c2", 20, 20, "blue", hidden=True),
                          _colour("c3", 30, 30, "red", hidden=True),
                          Figure("m7", 5, 5, marker=7, side="red", hidden=True)))
    before = Scene(TABLE, (_colour("f1", 10.1, 10, "red"), _colour("f2", 20, 20.1, "blue"),
                           Figure("m7", 5, 5, marker=7, side="red")))
    found = Scene(TABLE, (_colour("f1", 10.1, 10, "red", hidden=True), _colour("f2", 20, 20.1, "blue"),
                          Figure("m7", 5.2, 5, marker=7, side="red", hidden=True)))
    n, ok, bad = hidden_reported(found, truth, before=before)
    assert (n, ok) == (4, 2)
    assert bad == ["c2 under the hand not reported hidden at its place",
                   "c3 under the hand, not found in the picture before"]
    n, ok, bad = hidden_reported(Scene(TABLE, ()), truth)
    assert (n, ok) == (4, 0)
    assert bad == ["c1 under the hand removed", "c2 under the hand removed", "c3 under the hand removed",
                   "m7 under the hand removed"]
