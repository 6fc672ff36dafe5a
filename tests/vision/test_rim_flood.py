"""A mat of a side's own hue (a red side on a cherry table, a blue one on a blue cloth): the hue test
finds the side's colour all over the mat, so there a colour is the side's only past the mat's own
reach towards it (vision.rims.mat_flood), and on other mats nothing changes."""
from __future__ import annotations

import numpy as np
import pytest

from tests.vision.hard_scoring import score_photo
from tests.vision.rim_scenes import BLUE, PPI, RED, WATER, TopScene
from vision import rims
from vision.rims import label_view, mat_flood_in_view, quantise_view

CHERRY = (130, 62, 40)
BLUE_CLOTH = (60, 80, 130)
SIDES = [RED, BLUE]


def _table(mat_rgb, seed=0) -> tuple[TopScene, np.ndarray]:
    """A mottled 12 x 8 in table of `mat_rgb` with three red and three blue figures."""
    scene = TopScene(width_in=12, depth_in=8, mat_rgb=mat_rgb, texture=0.12)
    for k, (x, y) in enumerate([(2, 2), (6, 2), (10, 2), (2, 6), (6, 6), (10, 6)]):
        side, rgb = ("red", RED) if k % 2 == 0 else ("blue", BLUE)
        scene.figure(x, y, side, rgb, visible=0.6, lean_deg=40.0 * k, body_rgb=(150, 150, 160))
    return scene, scene.finish(seed=seed)


@pytest.mark.parametrize("mat_rgb, flooded", [(CHERRY, 0), (BLUE_CLOTH, 1), ((92, 124, 60), None),
                                              ((176, 160, 128), None), ((225, 222, 215), None)])
def test_only_the_side_whose_hue_the_mat_has_is_flooded(mat_rgb, flooded):
    _, img = _table(mat_rgb)
    flood = mat_flood_in_view(img, SIDES, [WATER])
    for k in range(2):
        if k == flooded:
            axis = np.linalg.norm(rims.rgb_chroma(SIDES[k]) - rims.rgb_chroma(mat_rgb))
            # at least FLOOD_LEAST of the way from the mat to the side
            assert flood.loose_reach[k] >= rims.FLOOD_LEAST * axis * 0.9
            assert 0 < flood.noise_floor[k] < 0.5        # the mat's own reach, as a share of the way
        else:
            assert flood.loose_reach[k] == 0.0 and flood.noise_floor[k] == 0.0, k


@pytest.mark.parametrize("mat_rgb, k", [(CHERRY, 0), (BLUE_CLOTH, 1)])
def test_the_mat_of_a_sides_hue_is_not_that_side_on_the_loose_labels_and_its_rims_still_are(mat_rgb, k):
    scene, img = _table(mat_rgb)
    q = quantise_view(img)
    _, plain = label_view(img, SIDES, [WATER], quantised=q)
    _, judged = label_view(img, SIDES, [WATER], quantised=q,
                           loose_reach=mat_flood_in_view(img, SIDES, [WATER]).loose_reach)
    yy, xx = np.mgrid[: img.shape[0], : img.shape[1]] / PPI
    near_base = np.zeros(img.shape[:2], bool)
    for x, y, _side in scene.truth:
        near_base |= np.hypot(xx - x, yy - y) <= 0.75
    assert (plain[~near_base] == k).mean() > 0.3          # the hue test alone: the mat is the side
    assert (judged[~near_base] == k).mean() < 0.02
    rims_of_k = [(x, y) for x, y, side in scene.truth if side == ("red", "blue")[k]]
    for x, y in rims_of_k:                                  # each rim keeps most of its labels
        ring = (np.abs(np.hypot(xx - x, yy - y) - 0.47) <= 0.05)
        assert (judged[ring] == k).sum() >= 0.5 * (plain[ring] == k).sum(), (x, y)


def _on_a_blue_cloth():
    """A 1080p hard photo (warm light) of a table laid on a blue cloth."""
    from vision.synthetic.hard import hard_photo
    photo = hard_photo(5, 1, resolutions=("1080p",), mat="kitchen")
    assert photo.conditions.mat == "blue cloth"
    return photo


def test_red_figures_on_a_blue_cloth_are_found(monkeypatch):
    """A blue cloth is the blue side's hue: looked at as before (no flood judged: FLOOD_SHARE past
    everything), the blue hue's candidates crowd out the red figures'."""
    from vision.pipeline import FramePipeline

    photo = _on_a_blue_cloth()
    now = score_photo(photo, FramePipeline(photo.profile).process(photo.image).scene)
    monkeypatch.setattr(rims, "FLOOD_SHARE", 1.01)
    before = score_photo(photo, FramePipeline(photo.profile).process(photo.image).scene)
    assert now.side_total == {"red": 6, "blue": 5}
    assert now.side_found == now.side_total and now.colour_phantoms == []
    assert before.side_found["red"] <= 1


def test_a_tracked_stream_judges_the_mat_once_a_registration_and_keeps_its_figures():
    from vision.pipeline import FramePipeline

    photo = _on_a_blue_cloth()
    still = FramePipeline(photo.profile).process(photo.image).scene
    stream = FramePipeline(photo.profile, track=True)
    first = stream.process(photo.image).scene
    flood = stream._held.flood
    assert flood is not None and flood.loose_reach[1] > 0 and flood.loose_reach[0] == 0
    second = stream.process(photo.image).scene              # tracked: windows round each figure
    assert stream._held.flood is flood
    colour = lambda scene: sorted((f.side, round(f.x), round(f.y)) for f in scene.figures if f.detected_by == "colour")
    assert colour(first) == colour(still)
    assert colour(second) == colour(first)


def test_on_a_cherry_table_the_blue_figures_are_found_and_the_mat_is_no_figure(monkeypatch):
    """A cherry table is nearly the red side's hue (its grain reaches towards red by itself): red
    rims there stay hard to see (4 of 6 here), but the mat's red must not crowd out the blue figures
    nor stand as red figures, as it did when the mat was not judged first."""
    from vision.pipeline import FramePipeline
    from vision.synthetic.hard import hard_photo

    photo = hard_photo(5, 17, resolutions=("1080p",), mat="kitchen")
    assert photo.conditions.mat == "cherry wood"
    now = score_photo(photo, FramePipeline(photo.profile).process(photo.image).scene)
    monkeypatch.setattr(rims, "FLOOD_SHARE", 1.01)
    before = score_photo(photo, FramePipeline(photo.profile).process(photo.image).scene)
    assert now.side_found["blue"] == now.side_total["blue"] == 5 and now.colour_phantoms == []
    assert now.side_found["red"] >= 4
    assert before.side_found["blue"] <= 3 and len(before.colour_phantoms) >= 3
