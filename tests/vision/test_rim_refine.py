"""A ring's centre from the circle of its kind's radius: the edge the labels show lies outside the
top's by the photo's blur, measured on the rings showing a long arc and held for a short one."""
from __future__ import annotations

import numpy as np

from tests.vision.rim_scenes import PPI, RED, SS, TopScene
from vision.rim_refine import held_radius_centres
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


def test_a_partly_hidden_rim_in_a_blurred_view_is_centred_to_a_fraction_of_a_pixel():
    # Three rims of one side in a view blurred by 1.5 px (the labels' edge lies well outside the
    # top's); the body of the third hides 70% of it. Held to the radius the other two show, its
    # centre comes within half a view pixel, nearer than the first fit's (radius free near a guess).
    held, first = [], []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        scene = TopScene(width_in=9, depth_in=3)
        step = 1 / (PPI * SS)              # centres on whole pixels of the canvas the scene draws on
        xs = [x0 + step * rng.integers(-8, 9) for x0 in (1.6, 4.5, 7.4)]
        y = 1.5 + step * rng.integers(-8, 9)
        for x, visible in zip(xs, (0.9, 0.9, 0.3)):
            scene.figure(x, y, "red", RED, visible=visible, lean_deg=float(rng.uniform(0, 360)),
                         body_rgb=(110, 80, 50))
        img = scene.finish(blur_px=1.5, seed=seed)
        truth = np.array([xs[2], y]) * PPI - (SS - 1) / (2 * SS)    # a view pixel: SS x SS canvas pixels
        for errors, scale in ((held, lambda c: np.ones(len(c))), (first, None)):
            hits = find_rims(img, PPI, [RED], 1.0, frame_scale=scale)
            assert len(hits) == 3
            errors.append(min(np.hypot(*(h.xy_view - truth)) for h in hits))
    assert np.median(held) < 0.5 and np.median(held) < 0.75 * np.median(first), (np.round(held, 2), np.round(first, 2))


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
