"""A ring's centre from the circle of its kind's radius: the edge the labels show lies outside the
top's by the photo's blur, measured on the rings showing a long arc and held for a short one."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.rim_scenes import PPI, RED, SS, TopScene
from vision.rim_rays import N_RAYS, ray_units
from vision.rim_refine import brightness_centres, held_radius_centres, off_cloaks, outer_steps
from vision.rims import find_rims

R_PX = 10.0


def _arc(centre, radius, start_deg, share, n_rays=48):
    """Edge points (n_rays, 2) of a circle where `share` of its rays from start_deg show it."""
    angles = np.linspace(0, 2 * np.pi, n_rays, endpoint=False)
    units = np.column_stack([np.cos(angles), np.sin(angles)])
    valid = ((angles - np.radians(start_deg)) % (2 * np.pi)) < share * 2 * np.pi
    return np.asarray(centre) + radius * units, valid


def _rings(bias_px, shares, starts, offsets):
    truth = np.array([[30.0 + 40 * i, 30.0] for i in range(len(shares))])
    pts, valid = zip(*[_arc(c, R_PX + bias_px, a, s) for c, a, s in zip(truth, starts, shares)])
    start = truth + np.asarray(offsets, float)
    return truth, np.array(pts), np.array(valid), start


def test_a_short_arc_takes_the_radius_its_kinds_long_arcs_show():
    # The edges lie 1.3 px outside the top (a blurred photo): the two rings showing most of their
    # circle tell it; the third shows a quarter, from a start 1.5 px off, and lands on its centre.
    truth, pts, valid, start = _rings(1.3, [0.75, 0.7, 0.25], [0, 90, 200], [(0.5, 0), (0, -0.5), (1.5, 0)])
    centres, agree, held = held_radius_centres(pts, valid, valid, start, R_PX, np.zeros(3, int), np.ones(3, bool))
    assert held.all()
    assert np.hypot(*(centres - truth).T).max() < 0.05
    assert (agree == valid).all()


def test_the_radius_is_held_only_for_a_kind_that_measured_it_where_the_frame_is_fine():
    truth, pts, valid, start = _rings(1.3, [0.75, 0.7, 0.25, 0.25], [0, 90, 200, 30],
                                      [(0.5, 0), (0, -0.5), (1.5, 0), (1.0, 0)])
    # the fourth ring is of another kind (the other side, or found on other labels): one ring
    # of it, a short arc, measures nothing
    kinds = np.array([0, 0, 0, 1])
    _, _, held = held_radius_centres(pts, valid, valid, start, R_PX, kinds, np.ones(4, bool))
    assert held.tolist() == [True, True, True, False]
    # where the frame is coarser than the view, nothing is held (its blur differs ring to ring)
    centres, _, held = held_radius_centres(pts, valid, valid, start, R_PX, np.zeros(4, int), np.zeros(4, bool))
    assert not held.any() and np.allclose(centres, start)


def _three_red_rims(seed: int, visible):
    """Three red rims in a row with brown leaning bodies, rim i showing `visible(rng, i)` of itself:
    (the scene, the centres' x and their y, inches)."""
    rng = np.random.default_rng(seed)
    scene = TopScene(width_in=9, depth_in=3)
    step = 1 / (PPI * SS)              # centres on whole pixels of the canvas the scene draws on
    xs = [x0 + step * rng.integers(-8, 9) for x0 in (1.6, 4.5, 7.4)]
    y = 1.5 + step * rng.integers(-8, 9)
    for i, x in enumerate(xs):
        scene.figure(x, y, "red", RED, visible=visible(rng, i), lean_deg=float(rng.uniform(0, 360)),
                     body_rgb=(110, 80, 50))
    return scene, xs, y


def test_a_partly_hidden_rim_in_a_blurred_view_is_centred_to_a_fraction_of_a_pixel():
    # Three rims of one side in a view blurred by 1.5 px (the labels' edge lies well outside the
    # top's); the body of the third hides 70% of it. Held to the radius the other two show, its
    # centre comes within half a view pixel; so it does from the first fit's (radius free near a
    # guess, a pixel off or more on three of the eight), for the brightness's step at the rim's edge
    # moves it (rim_refine.brightness_centres).
    held, first = [], []
    for seed in range(8):
        scene, xs, y = _three_red_rims(seed, lambda _rng, i: (0.9, 0.9, 0.3)[i])
        img = scene.finish(blur_px=1.5, seed=seed)
        truth = np.array([xs[2], y]) * PPI - (SS - 1) / (2 * SS)    # a view pixel: SS x SS canvas pixels
        for errors, scale in ((held, lambda c: np.ones(len(c))), (first, None)):
            hits = find_rims(img, PPI, [RED], 1.0, frame_scale=scale)
            assert len(hits) == 3
            errors.append(min(np.hypot(*(h.xy_view - truth)) for h in hits))
    assert np.median(held) < 0.45 and np.median(first) < 0.4 and max(first) < 1.2, (np.round(held, 2), np.round(first, 2))


def _walled_rims(shade: float, seed: int, wall_px: float = 2.0):
    """Three red rims, each base's side wall showing 2 px towards the camera (+x) in the rim's
    colour at `shade` of its brightness, the bodies leaning away from the camera: (the centres
    found along x less the truth's, view px)."""
    rng = np.random.default_rng(seed)
    scene = TopScene(width_in=9, depth_in=3)
    step = 1 / (PPI * SS)
    xs = [x0 + step * rng.integers(-8, 9) for x0 in (1.6, 4.5, 7.4)]
    y = 1.5 + step * rng.integers(-8, 9)
    for x in xs:
        for t in np.linspace(0, 1, 9):             # the wall: the top's circle swept to the bottom's
            scene.disc(x + t * wall_px / PPI, y, 0.5, tuple(int(c * shade) for c in RED))
        scene.figure(x, y, "red", RED, visible=0.7, lean_deg=float(rng.uniform(140, 220)), body_rgb=(110, 80, 50))
    img = scene.finish(blur_px=1.0, seed=seed)
    truth = np.array([[x, y] for x in xs]) * PPI - (SS - 1) / (2 * SS)
    hits = find_rims(img, PPI, [RED], 1.0, wall_shift_px=lambda c: np.tile([wall_px, 0.0], (len(c), 1)),
                     wall_height_in=0.125)
    assert len(hits) == 3
    return np.array([min(hits, key=lambda h: np.hypot(*(h.xy_view - t))).xy_view - t for t in truth])


def test_a_rims_centre_is_not_pushed_from_the_camera_by_a_wall_its_labels_do_not_take():
    # A wall in deep shade is no colour to the labels: taking its whole width off the camera's
    # side of the ring put the centre about half a pixel from the camera (0.45 px on these
    # scenes). A wall in the colour itself they take whole. Either way the centre now stays
    # within about half a pixel (0.025 in), and the shaded wall no longer pushes it off.
    dark = np.vstack([_walled_rims(0.2, seed) for seed in range(4)])
    lit = np.vstack([_walled_rims(1.0, seed) for seed in range(4)])
    assert abs(dark[:, 0].mean()) < 0.25, dark[:, 0].round(2)
    assert np.hypot(*dark.T).max() < 0.7 and np.hypot(*lit.T).max() < 0.8, (dark.round(2), lit.round(2))


def test_round_a_ring_in_felt_the_rims_colour_is_one_the_felts_none_and_a_body_none():
    # Water felt round a blue rim (0.7-1.0 radii) with a skin-coloured body in its middle: judged
    # against the felt just round the ring, towards the side's colour, the rim is 1, the felt 0,
    # the body (no nearer the blue than the felt is) 0, and nothing is marked beyond the ring's
    # reach.
    from tests.vision.rim_scenes import BLUE, WATER
    from vision.rim_refine import FELT_BAND, rim_over_felt
    img = np.zeros((80, 120, 3), np.uint8)
    img[:] = WATER[::-1]
    yy, xx = np.mgrid[0:80, 0:120]
    d = np.hypot(xx - 40.0, yy - 40.0)
    img[(d >= 7) & (d <= 10)] = BLUE[::-1]
    img[d <= 4] = (150, 180, 230)
    share = rim_over_felt(img, np.array([[40.0, 40.0]]), R_PX, [BLUE])
    assert share[40, 48:50].min() == 1.0 and share[48:50, 40].min() == 1.0
    assert share[40, 55:57].max() == 0.0
    assert share[38:43, 38:43].max() == 0.0
    assert share[:, int(40 + FELT_BAND[1] * R_PX) + 5:].max() == 0.0


def _view(truths, *, rim_bgr, mat_bgr, shift=(0.0, 0.0), wall_bgr=None, cloak=None, ss=8, blur=0.6,
          top_bgr=None, band_px=3.0):
    """A uint8 view 40 px deep with a base's top (radius R_PX) at each of `truths` in `rim_bgr` on
    the mat, its side wall's foot `shift` from it (in `wall_bgr`), and a cloak disc ((x, y, r), in
    the rim's colour) hanging over the first; drawn `ss` times finer, averaged, blurred a little.
    `top_bgr`: the top inside a band `band_px` wide at its edge is that colour (None: all rim)."""
    w, h = 40 * len(truths), 40
    big = np.empty((h * ss, w * ss, 3), np.float32)
    big[:] = mat_bgr
    yy, xx = (np.mgrid[0:h * ss, 0:w * ss] + 0.5) / ss - 0.5

    def disc(cx, cy, r, bgr):
        big[(xx - cx) ** 2 + (yy - cy) ** 2 <= r * r] = bgr

    for truth in truths:
        if wall_bgr is not None:
            # the wall: the hull of the top and the foot, drawn as discs along the way between them
            for t in np.linspace(0, 1, 9):
                disc(truth[0] + t * shift[0], truth[1] + t * shift[1], R_PX, wall_bgr)
        disc(truth[0], truth[1], R_PX, rim_bgr)
        if top_bgr is not None:
            disc(truth[0], truth[1], R_PX - band_px, top_bgr)
    if cloak is not None:
        disc(*cloak, rim_bgr)
    small = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    return np.clip(cv2.GaussianBlur(small, (0, 0), blur), 0, 255).round().astype(np.uint8)


def _visible(start_deg, share):
    angles = np.linspace(0, 2 * np.pi, N_RAYS, endpoint=False)
    return ((angles - np.radians(start_deg)) % (2 * np.pi)) < share * 2 * np.pi


DARK_RED, PALE_MAT = (40, 40, 150), (150, 170, 160)
# two rings beside the one looked at, each showing most of its rim, measure how far out the step lies
OTHERS = [(60.3, 19.8), (100.0, 20.4)]
OTHERS_START = np.array([[60.8, 19.5], [99.6, 20.9]])
OTHERS_AGREE = np.array([_visible(30, 0.8), _visible(200, 0.75)])


def _placed(view, truth, start, agree, shift=np.zeros(2)):
    starts = np.vstack([[start], OTHERS_START])
    moved = brightness_centres(view, starts, np.tile(shift, (3, 1)), ray_units(), np.vstack([[agree], OTHERS_AGREE]),
                               R_PX)
    return np.hypot(*(moved[0] - truth)), np.hypot(*(moved[1:] - OTHERS).T)


@pytest.mark.parametrize("truth, start_deg", [((20.3, 19.6), 0), ((19.8, 20.45), 120), ((20.0, 20.2), 250)])
def test_a_centre_the_colour_put_off_is_moved_onto_the_rims_brightness_step(truth, start_deg):
    # A dark red rim on a pale mat, half of it showing; the colour's circle strays 1.5 px. Along
    # the rays showing it, the brightness steps where the rim ends: the centre comes to within a
    # fraction of a pixel of the top's (and the rings showing more of their rims nearer still).
    view = _view([truth] + OTHERS, rim_bgr=DARK_RED, mat_bgr=PALE_MAT)
    start = np.array([truth[0] + 1.2, truth[1] - 0.9])
    error, others = _placed(view, truth, start, _visible(start_deg, 0.5))
    assert error < 0.3 and others.max() < 0.3


def test_the_foot_of_the_side_wall_is_the_step_on_the_cameras_side():
    # The wall (the rim's colour in shade) shows between the top and its foot, 1.2 px towards the
    # camera: there the step is at the foot, and the wall is taken off it.
    truth, shift = (20.2, 19.7), np.array([-0.9, 0.8])
    view = _view([truth] + OTHERS, rim_bgr=DARK_RED, mat_bgr=PALE_MAT, shift=shift, wall_bgr=(25, 25, 90))
    error, _ = _placed(view, truth, np.array([truth[0] - 1.0, truth[1] + 1.0]), _visible(60, 0.5), shift)
    assert error < 0.3


def test_a_cloak_of_the_rims_colour_on_rays_the_colour_left_out_does_not_pull():
    # A cloak of the rim's colour hangs past the rim on one side; its rays are not among those
    # whose colour edge agreed with the circle (consensus_centres left them out), nor are they used.
    truth = (20.0, 20.0)
    view = _view([truth] + OTHERS, rim_bgr=DARK_RED, mat_bgr=PALE_MAT, cloak=(26.0, 20.0, 7.0))
    angles = np.linspace(0, 2 * np.pi, N_RAYS, endpoint=False)
    off_cloak = np.abs(((angles + np.pi) % (2 * np.pi)) - np.pi) > np.radians(70)
    error, _ = _placed(view, truth, np.array([21.0, 20.8]), off_cloak & _visible(90, 0.6))
    assert error < 0.3


@pytest.mark.parametrize("truth, start_deg", [((20.3, 19.6), 0), ((19.8, 20.45), 120), ((20.0, 20.2), 250)])
def test_a_pale_top_inside_a_dark_band_does_not_turn_the_step_round(truth, start_deg):
    # A dark blue band 2 px wide (a tenth of an inch) round a cream top on a mid-grey mat, half of
    # it showing, the colour's circle half a pixel off (as it strays at 1080p): a few pixels either
    # side of the edge the top is brighter than the mat, yet the rim's own step, right at its edge,
    # goes up from the band to the mat. Read a few pixels either side, the steepest step was the
    # top's edge inside the band, and the centre went 2.6 px off. (From a pixel and a quarter off, the
    # edge's two sides are the band's two: that is still so.)
    view = _view([truth], rim_bgr=(110, 50, 30), mat_bgr=(120, 120, 120), top_bgr=(175, 210, 225), band_px=2.0)
    start = np.array([truth[0] + 0.4, truth[1] - 0.3])
    moved = brightness_centres(view, start[None], np.zeros((1, 2)), ray_units(), _visible(start_deg, 0.5)[None], R_PX)
    assert np.hypot(*(moved[0] - truth)) < 0.3


def test_a_rim_as_bright_as_the_mat_keeps_the_colours_centre():
    # Red on grey of the same brightness: no step to go by, the colour's centre stands; so does a
    # centre the fit lost (NaN).
    view = _view([(20.0, 20.0)], rim_bgr=(60, 100, 215), mat_bgr=(129, 129, 129))
    start = np.array([[21.0, 20.5], [np.nan, np.nan]])
    moved = brightness_centres(view, start, np.zeros((2, 2)), ray_units(), np.ones((2, N_RAYS), bool), R_PX)
    assert moved[0].tolist() == start[0].tolist() and np.isnan(moved[1]).all()


def test_partly_hidden_rims_in_a_jpeg_view_are_centred_to_a_third_of_a_pixel():
    # Twelve views of three red rims, 35-60% of each showing, through JPEG at quality 60 (the colour
    # at half the view's resolution, as a 1080p photo's is): the colour's edge strays, the
    # brightness's does not, and nine rims in ten come within a third of a view pixel of the top's
    # centre. (The colour's circles alone: 0.43 px.)
    errors = []
    for seed in range(12):
        scene, xs, y = _three_red_rims(seed, lambda rng, _i: float(rng.uniform(0.35, 0.6)))
        hits = find_rims(scene.finish(blur_px=0.8, seed=seed), PPI, [RED], 1.0)
        assert len(hits) == 3
        for x in xs:
            truth = np.array([x, y]) * PPI - (SS - 1) / (2 * SS)
            errors.append(min(np.hypot(*(h.xy_view - truth)) for h in hits))
    assert np.percentile(errors, 90) < 0.35, np.round(errors, 2)


def test_rays_whose_levels_go_against_the_rings_way_are_not_its_steps():
    # A dark rim on a pale mat, and just beyond it on a third of its arc a darker thing (a die, a
    # shadow) a pixel and a half off: on those rays the levels end darker than they start, and the
    # steepest fall is the thing's edge, not the rim's. The ring's steps rise, so those rays are left
    # out and the centre stays on the rim's.
    truth = (20.0, 20.0)
    view = _view([truth] + OTHERS, rim_bgr=DARK_RED, mat_bgr=PALE_MAT)
    yy, xx = np.mgrid[0:view.shape[0], 0:view.shape[1]]
    dark = np.hypot(xx - (truth[0] + R_PX + 1.5 + 5.0), yy - truth[1]) <= 5.0
    view[dark] = (5, 5, 5)
    view = cv2.GaussianBlur(view, (0, 0), 0.6)
    error, _ = _placed(view, truth, np.array([20.8, 20.6]), _visible(-60, 0.35))
    assert error < 0.3


def _cloaked(other_side: int = 0):
    """A dark red base on a pale mat with a cloak of its colour hanging past its rim away from the
    camera (the camera towards -x: the wall's foot shows 1 px that way); the ring the colour fits
    through rim and cloak sits 2.5 px off towards the cloak. (view, truth, kept, rings, sides, shift)"""
    truth, shift = np.array([20.0, 20.0]), np.array([[-1.0, 0.0]])
    view = _view([tuple(truth)], rim_bgr=DARK_RED, mat_bgr=PALE_MAT, shift=shift[0], wall_bgr=(25, 25, 90),
                 cloak=(27.0, 20.5, 6.5))
    kept = truth + np.array([2.5, 0.3])
    rings = np.vstack([kept, truth + np.array([0.2, -0.1]), truth + np.array([-0.1, 0.2])])
    return view, truth, kept, rings, np.array([0, other_side, other_side]), shift


def test_a_cloak_of_the_rims_colour_kept_over_the_rim_gives_way_to_the_rim():
    # The base's outer edge steps in brightness all round the circle of its radius; the circle
    # through rim and cloak does not, and it lies away from the camera: the rim's rings are the base.
    view, truth, kept, rings, sides, shift = _cloaked()
    steps = outer_steps(view, rings, np.repeat(shift, 3, 0), ray_units(), R_PX)
    assert steps[1:].min() > 1.5 * steps[0]
    moved = off_cloaks(view, kept[None], np.array([0]), shift, rings, sides, np.repeat(shift, 3, 0),
                       np.array([0.5, 0.3, 0.3]), ray_units(), R_PX, 2.0)
    assert np.hypot(*(moved[0] - truth)) < 0.3


@pytest.mark.parametrize("case", ["camera beyond the cloak", "rings of the other side", "no camera"])
def test_a_kept_ring_stays_unless_the_surer_step_lies_towards_the_camera_on_its_own_side(case):
    # The same rings, but the kept one lies towards the camera from the rim's (a cloth up on the body
    # shows away from it: this is no cloak), or the rim's rings are the other side's, or the
    # camera's direction is not known: the kept centre stands.
    view, truth, kept, rings, sides, shift = _cloaked(other_side=1 if case == "rings of the other side" else 0)
    shift = {"camera beyond the cloak": -shift, "no camera": 0 * shift}.get(case, shift)
    moved = off_cloaks(view, kept[None], np.array([0]), shift, rings, sides, np.repeat(shift, 3, 0),
                       np.array([0.5, 0.3, 0.3]), ray_units(), R_PX, 2.0)
    assert moved[0].tolist() == kept.tolist()
