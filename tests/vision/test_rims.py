"""Rims, not blobs: a base is a ring of its size, partly hidden by the body; dice, cloth, felt of a
similar hue, a mug and a book cover are not bases; a blue figure standing in water felt is found."""
from __future__ import annotations

import numpy as np
import pytest

from tests.vision.rim_scenes import BLUE, PPI, RED, WATER, TopScene
from vision.rim_rays import STEP_PX, ray_units
from vision.rims import (MAX_FRONT, MIN_CLEAN, MIN_COVERED, RimHit, _body_cover, _on_edges, _one_per_base, _ring_stats,
                         find_rims)

SIDES = [RED, BLUE]
NAMES = ["red", "blue"]


def _found(scene: TopScene, img, others=(WATER,)):
    hits = find_rims(img, PPI, SIDES, 1.0, other_rgbs=list(others))
    return [(h.xy_view[0] / PPI, h.xy_view[1] / PPI, NAMES[h.side_index], h) for h in hits]


def _check(scene: TopScene, found, tol_in=0.08):
    """Every truth base found once, within tol_in, of its side; nothing else."""
    left = list(found)
    for x, y, side in scene.truth:
        near = [f for f in left if f[2] == side and np.hypot(f[0] - x, f[1] - y) <= 0.5]
        assert near, f"missed the {side} base at ({x}, {y}); found {[(round(f[0], 2), round(f[1], 2)) for f in found]}"
        best = min(near, key=lambda f: np.hypot(f[0] - x, f[1] - y))
        assert np.hypot(best[0] - x, best[1] - y) <= tol_in
        left.remove(best)
    assert left == [], f"phantom bases at {[(round(f[0], 2), round(f[1], 2), f[2], f[3].reason) for f in left]}"


@pytest.mark.parametrize("visible", [0.3, 0.4, 0.5, 0.7, 1.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_rim_partly_hidden_by_the_body_is_found(visible, seed):
    rng = np.random.default_rng(seed)
    scene = TopScene(width_in=8, depth_in=4)
    scene.figure(2.0 + rng.uniform(-0.2, 0.2), 2.0 + rng.uniform(-0.2, 0.2), "red", RED, visible=visible,
                 lean_deg=float(rng.uniform(0, 360)), body_rgb=(110, 80, 50))
    scene.figure(5.5 + rng.uniform(-0.2, 0.2), 2.0 + rng.uniform(-0.2, 0.2), "blue", BLUE, visible=visible,
                 lean_deg=float(rng.uniform(0, 360)), body_rgb=(150, 150, 160))
    found = _found(scene, scene.finish(seed=seed))
    _check(scene, found)
    assert all(0 < f[3].confidence <= 1 and f[3].reason == "ring" for f in found)


@pytest.mark.parametrize("die_rgb, side", [(RED, "red"), (BLUE, "blue")])
def test_a_die_of_the_sides_colour_beside_a_figure_is_no_base(die_rgb, side):
    scene = TopScene(width_in=8, depth_in=4)
    scene.figure(2.5, 2.0, side, die_rgb, visible=0.6, lean_deg=200)
    scene.die(3.4, 2.2, die_rgb)                   # touching the base
    scene.die(6.0, 2.0, die_rgb, yaw_deg=0)         # alone on the mat
    _check(scene, _found(scene, scene.finish(seed=3)))


@pytest.mark.parametrize("cloth, figure_side, rim", [(RED, "blue", BLUE), (BLUE, "red", RED), (RED, "red", RED)])
def test_a_cloth_patch_on_a_body_is_no_base(cloth, figure_side, rim):
    scene = TopScene(width_in=6, depth_in=4)
    scene.figure(3.0, 2.0, figure_side, rim, visible=0.6, lean_deg=30, cloth_rgb=cloth)
    _check(scene, _found(scene, scene.finish(seed=4)))


def test_a_blue_figure_standing_in_water_felt_is_found():
    scene = TopScene(width_in=8, depth_in=6)
    scene.poly([(1.0, 1.0), (6.5, 1.2), (6.8, 5.0), (1.2, 5.2)], WATER)
    scene.figure(2.5, 3.0, "blue", BLUE, visible=0.6, lean_deg=120)
    scene.figure(5.0, 3.2, "blue", BLUE, visible=0.4, lean_deg=300)
    scene.figure(7.4, 3.0, "red", RED, visible=0.5, lean_deg=10)
    _check(scene, _found(scene, scene.finish(seed=5)))


def test_felt_of_a_similar_hue_is_no_base():
    """Red-brown felt and a bluish pond the profile does not know (so no terrain colour to compare)."""
    scene = TopScene(width_in=12, depth_in=6)
    scene.poly([(0.8, 0.8), (4.5, 1.0), (4.2, 4.8), (1.0, 5.0)], (175, 55, 45))
    scene.poly([(6.5, 1.0), (11.0, 1.2), (10.8, 5.0), (6.8, 4.6)], (55, 95, 185))
    scene.poly([(5.0, 2.0), (5.8, 2.0), (5.8, 2.9), (5.0, 2.9)], (195, 45, 45))     # a scrap
    scene.figure(5.4, 4.6, "red", RED, visible=0.5, lean_deg=90)
    _check(scene, _found(scene, scene.finish(seed=6), others=()))


@pytest.mark.parametrize("rgb", [RED, BLUE])
def test_a_mug_and_a_book_cover_of_a_sides_colour_are_no_bases(rgb):
    scene = TopScene(width_in=14, depth_in=9)
    scene.mug(3.0, 3.0, rgb)
    scene.poly([(7.0, 1.0), (13.0, 1.2), (12.8, 8.0), (7.2, 7.8)], rgb)            # a book cover
    scene.poly([(8.0, 3.0), (12.0, 3.0), (12.0, 3.4), (8.0, 3.4)], (240, 240, 235))  # its title band
    scene.figure(3.0, 7.5, "red", RED, visible=0.5, lean_deg=0)
    _check(scene, _found(scene, scene.finish(seed=7)))


def test_a_textured_mat_and_heavy_jpeg_make_no_bases():
    scene = TopScene(width_in=10, depth_in=6, mat_rgb=(80, 110, 60), texture=0.12)   # grass
    scene.figure(3.0, 3.0, "red", RED, visible=0.5, lean_deg=45)
    scene.figure(7.0, 3.0, "blue", BLUE, visible=0.5, lean_deg=225)
    _check(scene, _found(scene, scene.finish(seed=8, jpeg=50, blur_px=1.2)))


def test_excluded_pixels_hide_a_base():
    scene = TopScene(width_in=6, depth_in=4)
    scene.figure(3.0, 2.0, "red", RED)
    img = scene.finish()
    hand = np.zeros(img.shape[:2], bool)
    hand[:, 40:] = True
    assert find_rims(img, PPI, SIDES, 1.0, exclude=hand) == []


def _ring_view(paint_rgb, mat_rgb=(120, 140, 110), ppi=20, size=(80, 80)):
    import cv2
    img = np.zeros((*size, 3), np.uint8)
    img[:] = mat_rgb[::-1]
    cv2.circle(img, (40, 40), 9, tuple(int(c) for c in paint_rgb[::-1]), 3)
    return img


def test_a_side_learns_the_paint_its_confident_rims_show():
    """The paint is near the profile's colour, not at it: the confident rims teach the second pass."""
    from vision.colour import chromaticity, rgb_chroma
    from vision.rims import RimHit, learn_side_colours, label_view
    paint = (25, 100, 195)
    img = _ring_view(paint)
    mat = chromaticity(np.array([[[110, 140, 120]]], np.float32))[0][0, 0]
    strict, loose = label_view(img, SIDES, mat=mat)
    hit = RimHit(np.array([40.0, 40.0]), 1, 0.9, 0.9, 0.3, 0.0, 0.0, "ring")
    learned = learn_side_colours(img, 20, 1.0, SIDES, [hit], strict, loose, mat=mat)
    assert learned is not None
    assert tuple(learned[0]) == tuple(RED)                       # no red rim: the profile's stays
    assert np.linalg.norm(rgb_chroma(learned[1]) - rgb_chroma(paint)) < 0.02
    assert np.linalg.norm(rgb_chroma(BLUE) - rgb_chroma(paint)) > 0.04


def test_a_side_does_not_learn_a_colour_far_from_its_own():
    """A confident 'rim' whose colour strays far from the side's (felt, the mat) teaches nothing."""
    from vision.colour import chromaticity
    from vision.rims import RimHit, learn_side_colours, label_view
    img = _ring_view((60, 150, 160))                               # teal: a side's hue only loosely
    mat = chromaticity(np.array([[[110, 140, 120]]], np.float32))[0][0, 0]
    strict, loose = label_view(img, SIDES, mat=mat)
    strict[:] = 1
    hit = RimHit(np.array([40.0, 40.0]), 1, 0.9, 0.9, 0.3, 0.0, 0.0, "ring")
    assert learn_side_colours(img, 20, 1.0, SIDES, [hit], strict, loose, mat=mat) is None


def test_a_cloak_of_the_rims_colour_hanging_past_the_rim_does_not_pull_its_centre():
    # The body leans over half the rim and its cloak, of the rim's own colour, hangs past the rim
    # there: the colour's outer edge follows the cloak on that arc. The centre is the rim's.
    errors = []
    for seed in range(4):
        rng = np.random.default_rng(seed)
        for side, rgb in (("red", RED), ("blue", BLUE)):
            scene = TopScene(width_in=4, depth_in=4)
            x, y = 2 + rng.uniform(-0.2, 0.2), 2 + rng.uniform(-0.2, 0.2)
            lean = float(rng.uniform(0, 360))
            scene.figure(x, y, side, rgb, visible=0.55, lean_deg=lean, body_rgb=(110, 80, 50))
            t = np.radians(lean) + np.linspace(-0.5, 0.5, 12)
            cloak = np.vstack([np.column_stack([x + 0.72 * np.cos(t), y + 0.72 * np.sin(t)]),
                               np.column_stack([x + 0.25 * np.cos(t[::-1]), y + 0.25 * np.sin(t[::-1])])])
            scene.poly(cloak, rgb)
            found = [f for f in _found(scene, scene.finish(seed=seed)) if f[2] == side]
            assert found, f"missed the {side} base with a cloak (seed {seed})"
            errors.append(min(np.hypot(f[0] - x, f[1] - y) for f in found))
    assert np.median(errors) <= 0.05 and max(errors) <= 0.09, np.round(errors, 3)


def test_of_two_overlapping_rings_the_more_confident_stands_whatever_labels_found_it():
    # A faint rim found on the likelihood and, 1.2 radii off, a strict ring of the other colour
    # (cloth up on its body): bases do not overlap, and the better ring is the base.
    r_px = 10.0
    faint = RimHit(np.array([50.0, 50.0]), 1, 0.6, 0.45, 0.5, 0.0, 0.0, "ring", by_likelihood=True)
    cloth = RimHit(np.array([62.0, 50.0]), 0, 0.35, 0.3, 0.8, 0.0, 0.0, "ring")
    for hits in ([faint, cloth], [cloth, faint]):
        kept = _one_per_base(hits, r_px)
        assert [h.side_index for h in kept] == [1]


def test_the_felt_round_a_ring_is_measured_in_felt_of_a_hue_near_its_sides():
    # Strict labels: 0 red, 1 blue, 2 water (a hue near blue). A ring standing in water has the
    # felt all round; one on the mat has none; a red ring in water is in no felt near its own hue.
    from vision.rim_rays import N_RAYS
    from vision.rims import _felt_round
    strict = np.full((100, 200), -1, np.int32)
    strict[:, 100:] = 2
    angles = np.linspace(0, 2 * np.pi, N_RAYS, endpoint=False)
    units = np.column_stack([np.cos(angles), np.sin(angles)])
    centres = np.array([[150.0, 50.0], [40.0, 50.0], [150.0, 50.0]])
    share, any_felt, rays = _felt_round(strict, centres, np.array([1, 1, 0]), [[], [2]], 2, 10.0, units)
    assert share[0] == 1.0 and share[1] == 0.0 and share[2] == 0.0
    assert any_felt.tolist() == [1.0, 0.0, 1.0]
    assert rays.shape == (3, N_RAYS) and rays[0].min() == 1.0 and rays[1:].max() == 0.0


def test_the_felt_round_a_ring_at_a_felts_edge_lies_on_the_felts_side_of_it():
    # Water (label 2, a hue near blue) from x = 100 on; a ring centred 5 px short of it, a base's
    # radius 10: its rays towards +x meet the felt 13-18 px out, those towards -x the mat.
    from vision.rim_rays import N_RAYS
    from vision.rims import _felt_round
    strict = np.full((100, 200), -1, np.int32)
    strict[:, 100:] = 2
    units = ray_units(N_RAYS)
    share, _, rays = _felt_round(strict, np.array([[95.0, 50.0]]), np.array([1]), [[], [2]], 2, 10.0, units)
    towards = units[:, 0] > 0.5
    away = units[:, 0] < 0
    assert rays[0, towards].min() >= 0.5 and rays[0, away].max() == 0.0
    assert 0.2 < share[0] < 0.5


def test_a_centre_the_fit_lost_has_no_felt_round_it():
    # A candidate whose circle the fit lost (NaN centre, kept only to report why it was left out)
    # has no band to sample: none of it is felt, and the finite centres beside it are measured as
    # they would be alone.
    from vision.rim_rays import N_RAYS
    from vision.rims import _felt_round
    strict = np.full((100, 200), 2, np.int32)
    units = ray_units(N_RAYS)
    centres = np.array([[np.nan, np.nan], [150.0, 50.0], [np.inf, 20.0]])
    share, any_felt, rays = _felt_round(strict, centres, np.array([1, 1, 1]), [[], [2]], 2, 10.0, units)
    alone, alone_any, _ = _felt_round(strict, centres[1:2], np.array([1]), [[], [2]], 2, 10.0, units)
    assert rays[0].max() == 0.0 and rays[2].max() == 0.0
    assert share.tolist() == [0.0, alone[0], 0.0] and any_felt.tolist() == [0.0, alone_any[0], 0.0]
    assert alone[0] == 1.0


@pytest.mark.parametrize("true_xy", [(40.3, 40.6), (39.7, 40.2), (40.5, 39.5)])
def test_a_ring_in_felt_of_its_hue_is_moved_towards_its_circle_not_the_felts_mottling(true_xy):
    # Labels of a blue rim (0.7-1.0 radii) standing in water, two blobs of the felt's mottling
    # labelled blue touching it outside: from a fit that sits 1.5 px off, the centre moves most of
    # the way back to the rim's, the blobs pulling it no way in particular.
    from vision.rims import PASS_SOFT, PASS_STRICT, _in_felt_centres
    r_px = 10.0
    yy, xx = np.mgrid[0:80, 0:80]
    d = np.hypot(xx - true_xy[0], yy - true_xy[1]) / r_px
    mask = ((d >= 0.7) & (d <= 1.0)).astype(np.float32)
    for bx, by in ((true_xy[0] + 11.0, true_xy[1] + 2.0), (true_xy[0] - 3.0, true_xy[1] - 11.5)):
        mask[np.hypot(xx - bx, yy - by) <= 2.0] = 1.0
    start = np.array([[true_xy[0] + 1.2, true_xy[1] - 0.9]])
    units = ray_units()
    radii = np.arange(0.0, 2.0 * r_px + 6, STEP_PX)
    kinds = np.array([1 * (PASS_SOFT + 1) + PASS_STRICT])
    got, _ = _in_felt_centres(mask, np.ones(1), mask, start, np.zeros((1, 2)), r_px, units, radii, kinds, np.zeros(1, bool))
    before = np.hypot(*(start[0] - true_xy))
    after = np.hypot(*(got[0] - true_xy))
    assert after <= 0.5 * before, (before, after)



@pytest.mark.parametrize("true_xy", [(40.3, 40.6), (39.6, 40.2)])
def test_a_ring_in_felt_of_its_hue_takes_its_side_wall_off_whole(true_xy):
    # A blue rim in water, its far side hidden by the body, its side wall (the paint in shade,
    # darker than the top and the water alike) labelled blue whole on the camera's side, 3 px wide:
    # the centre lands on the top's, not pulled towards the camera by the wall.
    from vision.rims import PASS_SOFT, PASS_STRICT, _in_felt_centres
    r_px = 10.0
    shift = np.array([[0.0, 3.0]])                 # towards the camera: where the base's foot shows
    yy, xx = np.mgrid[0:80, 0:80]
    dx, dy = xx - true_xy[0], yy - true_xy[1]
    d = np.hypot(dx, dy) / r_px
    mask = ((d >= 0.7) & (d <= 1.0) & (dy >= -0.3 * r_px)).astype(np.float32)
    swept = np.zeros_like(d, bool)
    for t in np.linspace(0.0, 1.0, 31):
        swept |= np.hypot(dx - t * shift[0, 0], dy - t * shift[0, 1]) <= r_px
    mask[swept & (d > 1.0)] = 1.0                 # the wall
    start = np.array(true_xy, float)[None] + (0.6, 0.0)      # the first fit, the wall whole off
    units = ray_units()
    radii = np.arange(0.0, 2.0 * r_px + 6, STEP_PX)
    kinds = np.array([1 * (PASS_SOFT + 1) + PASS_STRICT])
    got, _ = _in_felt_centres(mask, np.ones(1), mask, start, shift, r_px, units, radii, kinds, np.zeros(1, bool))
    towards_camera = float((got[0] - true_xy) @ shift[0]) / float(np.hypot(*shift[0]))
    assert abs(towards_camera) <= 0.3, towards_camera
    assert np.hypot(*(got[0] - true_xy)) <= 0.5


def _arc_cut_by_a_body(r_px=10.0, size=64):
    """A 0/1 label map: a rim's band (0.7-1.0 radii) over half the ring (24 of the 48 rays); on
    the two rays just past each end of that arc the body leaning over the rim covers the band's
    outer part (the colour ends at 0.75 radii); and on 7 rays of the far side, where the body hides the
    rim, a fringe of a cloak of the colour lies just outside the ring (1.15-1.25 radii)."""
    c = size / 2
    yy, xx = np.mgrid[0:size, 0:size]
    d = np.hypot(xx - c, yy - c) / r_px
    a = np.degrees(np.arctan2(yy - c, xx - c)) % 360          # rays every 7.5 degrees from 0
    arc = (a >= 356.25) | (a < 176.25)
    ends = ((a >= 176.25) & (a < 191.25)) | ((a >= 341.25) & (a < 356.25))
    spill = (a >= 243.75) & (a < 296.25)
    mask = ((d >= 0.7) & (((d <= 1.0) & arc) | ((d <= 0.75) & ends))) | ((d >= 1.15) & (d <= 1.25) & spill)
    return mask.astype(np.float32), np.array([[c, c]]), r_px


def test_rays_whose_colour_the_body_cuts_short_past_the_arcs_ends_are_hidden_not_clutter():
    """On labels, the colour ending well inside the circle just past the visible arc is the body
    leaning over the rim, its edge crossing the band at a slant (hidden, as the rest under it is),
    not clutter; on a likelihood, whose
    colour fades with no clear end, it still counts against the ring."""
    mask, centre, r_px = _arc_cut_by_a_body()
    units = ray_units()
    radii = np.arange(0.0, 2.0 * r_px + 6, STEP_PX)
    clean = {}
    for labelled in (True, False):
        kept, _c, _res, cl, _fr, _r = _ring_stats(mask, centre, r_px, np.zeros((1, 2)), units, radii, 0.55, 1.25,
                                                  labelled=np.array([labelled]))
        assert kept.sum() == 24                      # the visible arc, every ray of it
        clean[labelled] = cl[0]
    assert clean[True] == pytest.approx(24 / (24 + 7))           # only the cloak's fringe is clutter
    assert clean[False] == pytest.approx(24 / (24 + 4 + 7))
    assert clean[False] < MIN_CLEAN <= clean[True]


def _arc_kept(visible: float, hidden_at_deg: float) -> np.ndarray:
    """(1, K) the rays outside the hidden arc (1 - visible of the ring, centred on hidden_at_deg)."""
    a = np.degrees(np.arctan2(ray_units()[:, 1], ray_units()[:, 0]))
    off = np.abs((a - hidden_at_deg + 180) % 360 - 180)
    return (off > (1 - visible) * 180)[None]


@pytest.mark.parametrize("texture", [0.0, 0.08])
def test_a_short_arcs_missing_part_is_covered_where_a_body_stands_over_it_not_where_the_ground_shows(texture):
    """The rays of a short arc not showing the rim: under the body leaning over it, its top shows
    something unlike the ground round the base; an arc of the colour lying alone on the ground
    (a grain of the mat, a felt's curve) has the ground there."""
    scene = TopScene(width_in=8, depth_in=4, texture=texture)
    scene.figure(2.0, 2.0, "red", RED, visible=0.3, lean_deg=90, body_rgb=(110, 80, 50))
    scene.figure(6.0, 2.0, "red", RED, visible=0.3, lean_deg=90, body_rgb=scene.mat_rgb, truth=False)
    img = scene.finish(seed=5)
    kept = np.repeat(_arc_kept(0.25, 90), 2, axis=0)
    covered, _front = _body_cover(img, np.array([[2.0, 2.0], [6.0, 2.0]]) * PPI, kept, PPI / 2)
    assert covered[0] >= MIN_COVERED > 0.3 > covered[1]
    # a ring showing whole has nothing hidden to cover
    assert _body_cover(img, np.array([[2.0, 2.0]]) * PPI, np.ones((1, kept.shape[1]), bool), PPI / 2)[0][0] == 0.0


def test_the_ground_in_front_of_a_base_is_clear_and_in_front_of_cloth_up_on_a_body_is_its_base():
    """Seen from a tilted camera a body stands up from its base and shows away from the camera:
    the ground just in front of a base (towards the camera, past its side wall) is clear. Cloth up
    on a body shows behind the base the body stands on, whose top and rim lie in front of it."""
    scene = TopScene(width_in=8, depth_in=4)
    scene.figure(2.0, 2.0, "red", RED, visible=0.3, lean_deg=270, body_rgb=(110, 80, 50))
    scene.figure(6.0, 2.3, "blue", BLUE, visible=0.5, lean_deg=270, body_rgb=(110, 80, 50))
    scene.figure(6.0, 1.8, "red", RED, visible=0.3, lean_deg=270, body_rgb=(110, 80, 50), truth=False)  # the cloth
    img = scene.finish(seed=6)
    centres = np.array([[2.0, 2.0], [6.0, 1.8]]) * PPI
    kept = np.repeat(_arc_kept(0.3, 270), 2, axis=0)
    towards_camera = np.array([[0.0, 1.0], [0.0, 1.0]])          # +y: the camera's foot lies that way
    _covered, front = _body_cover(img, centres, kept, PPI / 2, towards_camera)
    assert front[0] <= MAX_FRONT < front[1]
    # without the camera's direction nothing is known in front
    assert (_body_cover(img, centres, kept, PPI / 2)[1] == 1.0).all()


@pytest.mark.parametrize("r_px", [5.0, 10.0])
def test_candidates_of_labels_as_bytes_are_those_of_labels_as_floats(r_px):
    import cv2
    from vision.rims import _candidates
    rng = np.random.default_rng(int(r_px))
    labels = np.where(rng.random((120, 161)) < 0.7, -1, rng.integers(0, 3, (120, 161))).astype(np.int8)
    cv2.circle(labels, (60, 50), int(r_px), 1, 2)            # a ring of side 1 among the noise
    as_bytes = cv2.compare(labels, 1, cv2.CMP_EQ)
    np.testing.assert_array_equal(_candidates(as_bytes, r_px), _candidates((labels == 1).astype(np.float32), r_px))


@pytest.mark.parametrize("behind_r, aside_r, kept", [
    (2.0, 0.0, False),      # behind a surer ring, within its figure's reach, no rim on its near side: its body
    (0.0, 2.2, True),       # beside it: another base
    (-2.2, 0.0, True),      # in front of it: another base
])
def test_a_water_find_up_on_a_surer_rings_body_is_left_out(monkeypatch, behind_r, aside_r, kept):
    """The water search finds a base by what is not felt in felt of its side's hue: a surer figure's
    body standing in the felt behind its base is that too. Such a find is judged as a ring is
    (rim_vetting.on_a_surer_body); a find beside or in front of the ring is another base."""
    import vision.rims as rims
    r_px, per_in = 10.0, 8.0
    shift = lambda c: np.tile([0.0, per_in * 0.125], (len(np.asarray(c).reshape(-1, 2)), 1))   # noqa: E731
    base = np.array([80.0, 80.0])
    find = base + np.array([aside_r, -behind_r]) * r_px          # the camera towards +y
    strict = np.full((160, 160), -1, np.int32)
    yy, xx = np.mgrid[:160, :160]
    on_rim = np.abs(np.hypot(xx - base[0], yy - base[1]) - r_px) <= 1.5
    strict[on_rim & (yy >= base[1] - 2)] = 1                      # the surer ring's near arc
    monkeypatch.setattr(rims, "water_candidates", lambda *a, **k: [(find, 1, 0.4, 0.4, 0.8, "ring")])
    ring = RimHit(base, 1, 0.7, 0.5, 0.5, 0.0, 0.0, "ring")
    out = rims._with_water_rims([ring], strict, SIDES, r_px, shift, None, np.full_like(strict, -1), 0.125,
                                water=rims.WaterLabels(strict, [WATER], [[], [2]]))
    assert out[0] is ring
    assert (len(out) == 2) == kept, [(h.xy_view, h.reason) for h in out]


def test_labels_kept_between_views_are_those_each_view_gives_alone():
    """ColourTables: each view classifies only the colours no earlier view judged alike showed; the
    labels (and the bases found) are those of judging every colour afresh."""
    from vision.rims import ColourTables, label_view
    from vision.whitebalance import WhiteBalance
    scene = TopScene(width_in=6, depth_in=4)
    scene.poly([(0.5, 0.5), (3.0, 0.6), (3.2, 3.5), (0.6, 3.4)], WATER)
    scene.figure(1.8, 2.0, "blue", BLUE, visible=0.6, lean_deg=120)
    scene.figure(4.5, 2.0, "red", RED, visible=0.5, lean_deg=10)
    views = [scene.finish(seed=1), scene.finish(seed=2, cast=(1.1, 1.0, 0.9)), scene.finish(seed=1)[10:60, 20:90]]
    wb = WhiteBalance(np.array([12.0, 14.0, 18.0]), np.array([230.0, 240.0, 235.0]))
    tables = ColourTables()
    for mat in (np.array([0.3, 0.33, 0.37]), np.array([0.28, 0.34, 0.38])):
        for img in views:
            alone = label_view(img, SIDES, [WATER], wb=wb, mat=mat, felt_width_px=1.5 * PPI)
            kept = label_view(img, SIDES, [WATER], wb=wb, mat=mat, felt_width_px=1.5 * PPI, tables=tables)
            for a, k in zip(alone, kept):
                assert a.dtype == k.dtype
                np.testing.assert_array_equal(a, k)
    # two mats, one white balance: two sets of colours kept, the second not read from the first
    assert len(tables._by_key) == 2
    img = views[1]
    mat = np.array([0.3, 0.33, 0.37])
    alone = find_rims(img, PPI, SIDES, 1.0, other_rgbs=[WATER], wb=wb, mat=mat, with_rejected=True)
    kept = find_rims(img, PPI, SIDES, 1.0, other_rgbs=[WATER], wb=wb, mat=mat, with_rejected=True, tables=tables)
    assert alone and [(h.xy_view.tolist(), h.side_index, h.reason, h.confidence) for h in alone] == \
        [(h.xy_view.tolist(), h.side_index, h.reason, h.confidence) for h in kept]


def test_a_rim_whose_blurred_colour_reads_cluttered_is_found_by_its_outline(monkeypatch):
    """A hard photo at 2160p (exact truth): a red base, its whole top painted, 43% of its rim in
    view, whose colour meets the rays beside its arc off the circle, so the clean test alone leaves
    it out; the brightness outline on the base's circle along its arc keeps it, where it stands,
    and nothing else is kept for it. (The edge pass, its colour on the brightness's steps, finds it
    too: it is left out while the outline rule is looked at alone.)"""
    import vision.rims as rims
    from tests.vision.hard_scoring import colour_pairs
    from vision.pipeline import FramePipeline
    from vision.synthetic.hard import hard_photo

    photo = hard_photo(7, 1)
    assert photo.conditions.resolution == "2160p"
    arc, edge_noise = rims.OUTLINED_ARC, rims.EDGE_NOISE

    def seen(arc: float, edges: bool):
        monkeypatch.setattr(rims, "OUTLINED_ARC", arc)
        monkeypatch.setattr(rims, "EDGE_NOISE", edge_noise if edges else 1.0)   # 1.0: no likelihood left to it
        found, truth, matched = colour_pairs(FramePipeline(photo.profile).process(photo.image).scene, photo.truth)
        i = next(j for j, t in enumerate(truth) if t.id == "c11")
        return matched.get(i), len(found) - len(matched)

    without, phantoms_without = seen(1.01, edges=False)          # (no share of the rays reaches it)
    assert without is None
    with_outline, phantoms = seen(arc, edges=False)
    assert with_outline is not None and with_outline[1] <= 0.08
    assert phantoms == phantoms_without == 0
    shipped, phantoms = seen(arc, edges=True)
    assert shipped is not None and shipped[1] <= 0.08 and phantoms == 0


def test_a_head_ringed_by_its_torso_behind_a_less_sure_base_is_no_figure():
    """A hard photo (seed 11 photo 35, tungsten 3120 K, tilted 30 degrees, 1080p): blue figure c10's
    head, skin ringed by its brown torso, reads as a red ring 1.3" behind its base and surer than
    the base's own blue ring; its near arc shows no red (the body runs down to the base there). It
    is that figure's body, not a red figure; the blue base is found where it stands."""
    from tests.vision.hard_scoring import colour_pairs
    from vision.pipeline import FramePipeline
    from vision.synthetic.hard import hard_photo

    photo = hard_photo(11, 35)
    found, truth, matched = colour_pairs(FramePipeline(photo.profile).process(photo.image).scene, photo.truth)
    base = next(t for t in truth if t.id == "c10")
    assert matched.get(truth.index(base)) is not None and matched[truth.index(base)][1] <= 0.2
    on_head = [f for f in found if np.hypot(f.x - base.x, f.y - base.y) <= 2.0 and f.side != base.side]
    assert on_head == [], on_head


# The edge pass: a side's likelihood where the brightness steps (vision.rims._on_edges).

def _step_view(texture: float = 0.0, seed: int = 0) -> np.ndarray:
    """A 120 x 120 view: a grey mat (with grain of `texture` grey levels, two columns of four), a darker
    disc of 20 px radius in its middle (a base's top, its rim's edge a step of 60 grey levels)."""
    img = np.full((120, 120, 3), 150.0, np.float32)
    if texture:
        img[:, (np.arange(120) // 2) % 2 == 0] += texture
        img += np.random.default_rng(seed).normal(0, 1.0, img.shape)
    yy, xx = np.mgrid[0:120, 0:120]
    img[np.hypot(xx - 60, yy - 60) <= 20] -= 60
    return np.clip(img, 0, 255).astype(np.uint8)


def test_the_edge_pass_keeps_a_colour_on_the_brightness_step_only():
    like = _on_edges(_step_view(), np.ones((1, 120, 120), np.float32), 10.0)[0]
    yy, xx = np.mgrid[0:120, 0:120]
    d = np.hypot(xx - 60, yy - 60)
    assert like[(d > 19) & (d < 21)].min() > 0.9            # the disc's edge: the full likelihood
    assert like[d < 15].max() == 0 and like[d > 25].max() == 0   # flat inside and out: none
    # a likelihood it is handed is only lowered, side by side
    two = np.stack([np.full((120, 120), 0.4, np.float32), np.zeros((120, 120), np.float32)])
    out = _on_edges(_step_view(), two, 10.0)
    assert out[0].max() == pytest.approx(0.4) and out[1].max() == 0


def test_on_a_grained_mat_the_grain_counts_in_part_and_a_base_s_step_nearly_in_full():
    yy, xx = np.mgrid[0:120, 0:120]
    d = np.hypot(xx - 60, yy - 60)
    grained = _on_edges(_step_view(texture=30.0), np.ones((1, 120, 120), np.float32), 10.0)[0]
    # the grain's steps are 15 grey levels a pixel, nearly EDGE_STEP: by their slope alone they would
    # count nearly in full; against the mean slope round them, about a third
    assert np.median(grained[d > 40]) < 0.5
    assert np.median(grained[(d > 19) & (d < 21)]) > 0.8


@pytest.mark.parametrize("seed, paint, blur_px", [(1, 0.7, 1.8), (2, 0.7, 1.8), (1, 0.5, 1.2), (4, 0.5, 1.2)])
def test_a_thin_blurred_rim_half_hidden_is_found_on_its_faint_annulus(seed, paint, blur_px):
    # A rim a twentieth of an inch wide, its paint blended with the mat (a 1080p frame's chroma),
    # half of it under the body: its likelihood's annulus holds less than a soft candidate's
    # (SOFT_RING_PX2) but peaks as a rim's colour does, so it is a faint candidate and a base.
    rng = np.random.default_rng(seed)
    scene = TopScene(width_in=8, depth_in=4)
    rgb = tuple(int(v) for v in paint * np.array(RED) + (1 - paint) * np.array(scene.mat_rgb))
    x, y = 2.0 + rng.uniform(-0.2, 0.2), 2.0 + rng.uniform(-0.2, 0.2)
    scene.figure(x, y, "red", rgb, visible=0.5, lean_deg=float(np.degrees(rng.uniform(0, 2 * np.pi))),
                 body_rgb=(110, 80, 50), top_r=0.9)
    found = _found(scene, scene.finish(seed=seed, blur_px=blur_px))
    _check(scene, found, tol_in=0.15)
    assert found[0][3].faint
