"""A blue figure standing in blue water felt is found (issue 10): its rim's paint and the felt are
nearly one colour, so it shows as its body in the middle, a thin ring of the rim's colour at the
base's radius, then felt; a die of a side's colour in the water is no base."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.rim_scenes import BLUE, PPI, RED, WATER, TopScene
from vision.rim_rays import longest_arc, ray_units
from vision.rim_water import _masked_mean, _rim_within, step_circles, water_candidates, water_rims
from vision.colour import rgb_chroma
from vision.rims import find_rims, label_view, seen_felts_in_view

SIDES = [RED, BLUE]
BODIES = [(110, 75, 45), (165, 168, 175), (70, 95, 50)]      # brown, metal, green


def _water_table(paint, visible, seed, dice=(), lean_out_in=0.0):
    """Three blue figures standing in water felt; with `lean_out_in`, each body also stands over the
    felt that far past its rim, on the side it leans to (as a leaning figure shows from the camera)."""
    rng = np.random.default_rng(seed)
    scene = TopScene(width_in=8, depth_in=6, texture=0.07)
    scene.poly([(0.8, 0.8), (7.2, 1.0), (7.0, 5.2), (1.0, 5.0)], WATER)
    for (x, y), body in zip([(2.3, 2.2), (5.4, 2.4), (3.8, 4.0)], BODIES):
        lean = float(rng.uniform(0, 360))
        scene.figure(x, y, "blue", paint, visible=visible, lean_deg=lean, body_rgb=body)
        if lean_out_in:
            half = np.radians((1 - visible) * 180) * 0.9
            t = np.linspace(np.radians(lean) - half, np.radians(lean) + half, 24)
            scene.poly(np.vstack([[x, y], np.column_stack([x + lean_out_in * np.cos(t),
                                                           y + lean_out_in * np.sin(t)])]), body)
    for x, y, rgb in dice:
        scene.die(x, y, rgb, pips=0)
    return scene


def test_blue_figures_mostly_hidden_in_water_felt_are_all_found():
    # the paint a little off the profile's blue (the player named it by eye), a third of each rim in view
    scene = _water_table((55, 85, 190), 0.35, 0)
    hits = find_rims(scene.finish(seed=3), PPI, SIDES, 1.0, other_rgbs=[WATER])
    found = [(h.xy_view / PPI, h.side_index) for h in hits]
    for x, y, _side in scene.truth:
        near = [np.hypot(*(p - (x, y))) for p, k in found if k == 1]
        assert near and min(near) <= 0.15, f"missed the blue base at ({x}, {y}); found {found}"
    assert len(found) == len(scene.truth)


def test_in_water_a_red_die_and_a_blue_die_are_no_bases():
    scene = _water_table((40, 80, 200), 0.5, 1, dice=[(6.2, 4.3, RED), (1.8, 4.3, BLUE)])
    img = scene.finish(seed=4)
    strict, _ = label_view(img, SIDES, [WATER])
    extra = water_rims(strict, 2, SIDES, [WATER], 0.5 * PPI, np.array([[x, y] for x, y, _ in scene.truth]) * PPI)
    assert extra == []


def test_no_felt_of_a_sides_hue_looks_nowhere():
    strict = np.full((120, 160), -1, np.int32)
    assert water_rims(strict, 2, SIDES, [(35, 70, 30)], 10.0, np.empty((0, 2))) == []


def test_every_candidate_in_water_comes_with_why_it_was_left_out():
    # the bases found by the rings already, and two dice: what the water search saw there is named
    scene = _water_table((40, 80, 200), 0.5, 1, dice=[(6.2, 4.3, RED), (1.8, 4.3, BLUE)])
    strict, _ = label_view(scene.finish(seed=4), SIDES, [WATER])
    found = np.array([[x, y] for x, y, _ in scene.truth]) * PPI
    seen = water_candidates(strict, 2, SIDES, [WATER], 0.5 * PPI, found, with_rejected=True)
    assert not [c for c in seen if c[5] == "ring"]
    assert {c[5] for c in seen} <= {"first look", "fit", "coverage", "arc", "residual", "middle felt", "middle rim",
                                    "middle other", "outside rim", "outside felt", "other side", "felt's edge", "overlap",
                                    "a ring found there", "found by the labels too", "same figure"}
    for x, y, _side in scene.truth:       # each base is seen, and left to the ring already found there
        near = [c[5] for c in seen if np.hypot(*(c[0] / PPI - (x, y))) <= 0.2]
        assert "a ring found there" in near, f"({x}, {y}): {near}"
    # with no ring found yet, the same search keeps them (and only them)
    kept = water_candidates(strict, 2, SIDES, [WATER], 0.5 * PPI, np.empty((0, 2)))
    assert all(c[5] == "ring" for c in kept)
    assert sorted(np.round(c[0] / PPI, 0).tolist() for c in kept) == sorted(
        np.round([x, y], 0).tolist() for x, y, _ in scene.truth)


def test_blue_paint_the_labels_call_water_is_found_by_the_paint_of_the_dry_rims():
    # paint nearer the water's colour than the profile's blue: in the felt every label calls it
    # water; the two figures standing on the mat show what the paint looks like in this photo
    paint, found, by_labels = (45, 92, 160), 0, 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        scene = TopScene(width_in=10, depth_in=6, texture=0.07)
        scene.poly([(0.8, 0.8), (6.2, 1.0), (6.0, 5.2), (1.0, 5.0)], WATER)
        for (x, y), body in zip([(2.3, 2.2), (4.6, 2.4), (3.4, 4.0)], BODIES):
            scene.figure(x, y, "blue", paint, visible=0.45, lean_deg=float(rng.uniform(0, 360)), body_rgb=body)
        for (x, y), body in zip([(8.2, 1.6), (8.4, 4.2)], BODIES):
            scene.figure(x, y, "blue", paint, visible=0.6, lean_deg=float(rng.uniform(0, 360)), body_rgb=body)
        img = scene.finish(seed=seed + 3)
        strict, _ = label_view(img, SIDES, [WATER])
        dry = np.array([[8.2, 1.6], [8.4, 4.2]]) * PPI
        by_labels += len(water_rims(strict, 2, SIDES, [WATER], 0.5 * PPI, dry))
        hits = find_rims(img, PPI, SIDES, 1.0, other_rgbs=[WATER])
        for h in hits:
            near = min(np.hypot(*(h.xy_view / PPI - (x, y))) for x, y, _ in scene.truth)
            assert h.side_index == 1 and near <= 0.2, f"seed {seed}: a base at {h.xy_view / PPI} that is none"
        found += sum(h.xy_view[0] < 7 * PPI for h in hits)
    assert by_labels == 0
    assert found >= 4, f"{found} of the 9 in the water"


def test_a_base_in_a_pond_inside_a_rivers_bend_is_found_once():
    # the river's window (its box, with a base's margin) holds the whole pond: the blue figure
    # standing in the pond is seen in both windows, and is one base
    for seed in range(2):
        rng = np.random.default_rng(seed)
        scene = TopScene(width_in=8, depth_in=6, texture=0.07)
        scene.poly([(0.8, 0.8), (3.8, 0.8), (3.8, 3.8), (0.8, 3.8)], WATER)
        scene.poly([(4.3, 0.8), (7.2, 0.8), (7.2, 5.2), (0.8, 5.2), (0.8, 4.3), (4.3, 4.3)], WATER)
        scene.figure(2.3, 2.3, "blue", (40, 80, 200), visible=0.5, lean_deg=float(rng.uniform(0, 360)),
                     body_rgb=BODIES[seed])
        strict, _ = label_view(scene.finish(seed=seed), SIDES, [WATER])
        seen = water_candidates(strict, 2, SIDES, [WATER], 0.5 * PPI, np.empty((0, 2)), with_rejected=True)
        near = [c for c in seen if np.hypot(*(c[0] / PPI - (2.3, 2.3))) <= 0.2]
        assert [c[5] for c in near].count("ring") == 1, f"seed {seed}: {[c[5] for c in near]}"
        assert "overlap" in [c[5] for c in near]          # it was seen twice
        bases = water_rims(strict, 2, SIDES, [WATER], 0.5 * PPI, np.empty((0, 2)))
        assert len(bases) == 1 and np.hypot(*(bases[0][0] / PPI - (2.3, 2.3))) <= 0.15, bases


def test_a_seed_is_looked_at_only_with_some_rim_colour_within_reach():
    # the integral image's box against every pixel, seeds off the view's edges too: a seed with a
    # pixel of the colour within the reach is looked at, one with none within a pixel more is not
    rng = np.random.default_rng(5)
    rim = rng.random((40, 60)) < 0.004
    ys, xs = np.nonzero(rim)
    centres = rng.uniform(-8, 68, (300, 2))
    reach = 6.5
    got = _rim_within(rim, centres, reach)

    def any_within(cx, cy, d):
        return bool(((np.abs(xs - cx) <= d) & (np.abs(ys - cy) <= d)).any())

    for (cx, cy), g in zip(centres, got):
        if any_within(cx, cy, reach):
            assert g, (cx, cy)
        if not any_within(cx, cy, reach + 1):
            assert not g, (cx, cy)
    assert 0 < got.sum() < len(got)


def test_water_the_cast_moved_onto_the_blue_sides_colour_is_felt_and_a_blue_rim_beside_it_is_not():
    # the felt as this photo shows it lies nearer the segment from the mat to the blue side's
    # colour than to the water's own (the two point almost the same way): pixel by pixel it is
    # "the blue side". A patch of it many bases wide is no base: felt, with the bases in it.
    seen_water = (70, 110, 180)
    for seed in range(2):
        rng = np.random.default_rng(seed)
        scene = TopScene(width_in=10, depth_in=6, texture=0.07)
        scene.poly([(0.8, 0.8), (6.2, 1.0), (6.0, 5.2), (1.0, 5.0)], seen_water)
        for (x, y), body in zip([(2.3, 2.2), (4.6, 2.4), (3.4, 4.0)], BODIES):
            scene.figure(x, y, "blue", (40, 80, 200), visible=0.5, lean_deg=float(rng.uniform(0, 360)), body_rgb=body)
        scene.figure(6.75, 3.0, "blue", (40, 80, 200), visible=0.7, lean_deg=float(rng.uniform(0, 360)))  # beside it
        scene.figure(8.4, 3.0, "red", RED, visible=0.7)
        img = scene.finish(seed=seed)
        inner = np.zeros(img.shape[:2], bool)
        inner[int(1.4 * PPI):int(4.6 * PPI), int(1.5 * PPI):int(5.5 * PPI)] = True
        for x, y, _ in scene.truth:          # the felt's own pixels, away from the figures
            yy, xx = np.ogrid[:img.shape[0], :img.shape[1]]
            inner &= np.hypot(xx - x * PPI, yy - y * PPI) > 0.9 * PPI
        plain, _ = label_view(img, SIDES, [WATER])
        assert (plain[inner] == 1).mean() > 0.5, "the scene does not show the cast's mix-up"
        strict, _ = label_view(img, SIDES, [WATER], felt_width_px=1.5 * PPI)
        assert (strict[inner] == 2).mean() > 0.8
        dry = np.zeros(img.shape[:2], bool)
        yy, xx = np.ogrid[:img.shape[0], :img.shape[1]]
        d = np.hypot(xx - 6.75 * PPI, yy - 3.0 * PPI) / (0.5 * PPI)
        dry[(d > 0.8) & (d < 1.1)] = True
        assert (strict[dry] == 1).sum() >= 0.9 * (plain[dry] == 1).sum()
        hits = find_rims(img, PPI, SIDES, 1.0, other_rgbs=[WATER])
        for h in hits:
            near = [np.hypot(*(h.xy_view / PPI - (x, y))) for x, y, side in scene.truth
                    if side == ("red", "blue")[h.side_index]]
            assert near and min(near) <= 0.2, f"seed {seed}: a base at {h.xy_view / PPI} that is none"
        for x, y, side in scene.truth:
            if x > 6.5:                      # the two on the mat
                assert any(np.hypot(*(h.xy_view / PPI - (x, y))) <= 0.15 for h in hits), f"seed {seed}: ({x}, {y})"
        assert sum(h.xy_view[0] < 6.4 * PPI for h in hits) >= 2, f"seed {seed}: of the 3 in the water"


def test_a_base_half_hidden_by_its_body_in_water_is_placed_by_its_circle_measured_from_the_fit():
    # each base's side wall (the paint's shade) shows past its top towards a camera off to one side
    paint = (55, 85, 190)
    errors = []
    for seed in range(4):
        rng = np.random.default_rng(seed)
        shift_in = rng.uniform(-0.08, 0.08, 2)
        scene = TopScene(width_in=8, depth_in=6, texture=0.07)
        scene.poly([(0.8, 0.8), (7.2, 1.0), (7.0, 5.2), (1.0, 5.0)], WATER)
        for (x, y), body in zip([(2.3, 2.2), (5.4, 2.4), (3.8, 4.0)], BODIES):
            scene.disc(x + shift_in[0], y + shift_in[1], 0.5, tuple(int(0.6 * c) for c in paint))
            scene.figure(x, y, "blue", paint, body_rgb=body, visible=0.5, lean_deg=float(rng.uniform(0, 360)))
        img = scene.finish(seed=seed)
        strict, _ = label_view(img, SIDES, [WATER])
        found = water_rims(strict, 2, SIDES, [WATER], 0.5 * PPI, np.empty((0, 2)),
                           wall_shift_px=lambda c, s=shift_in * PPI: np.tile(s, (len(c), 1)))
        truth = np.array([(x, y) for x, y, _ in scene.truth])
        assert len(found) == len(truth)
        for xy, *_ in found:
            errors.append(np.hypot(*(truth - xy / PPI).T).min())
    # (the search's own first fit, as reported before: mean 0.070 in, worst 0.116 in)
    assert max(errors) <= 0.11 and np.mean(errors) <= 0.066, np.round(errors, 3)


def test_the_step_circle_of_the_base_radius_lies_on_the_rims_outer_edge_along_its_visible_arc():
    # a rim darker than the water, half of it under a light body: the circle is found from starts
    # up to a fifth of an inch off, and the step shows along the visible half only
    errors, arcs = [], []
    for seed in range(3):
        scene = TopScene(width_in=4, depth_in=4, texture=0.07)
        scene.poly([(0, 0), (4, 0), (4, 4), (0, 4)], WATER)
        scene.figure(2.0, 2.0, "blue", (40, 82, 150), visible=0.5, lean_deg=30.0, body_rgb=BODIES[1])
        img = scene.finish(seed=seed)
        for off in [(0, 0), (3, -2), (-2, 3)]:
            start = np.array([[2.0 * PPI + off[0], 2.0 * PPI + off[1]]])
            centre, on, _ = step_circles(img, start, 0.5 * PPI, np.zeros((1, 2)), ray_units(64), 1.0)
            errors.append(np.hypot(*(centre[0] / PPI - (2.0, 2.0))))
            arcs.append(longest_arc(on)[0])
    assert max(errors) <= 0.1 and np.mean(errors) <= 0.05, np.round(errors, 3)
    assert 0.35 <= min(arcs) and max(arcs) <= 0.65, arcs


def test_a_faint_step_the_frames_blur_spreads_over_a_few_view_pixels_steps_along_the_circle():
    # in a 1080p photo the view is finer than the frame, and its blur and JPEG spread the step of a
    # paint a tenth darker than the water over 4-5 view pixels: too little of it lies between the
    # two levels next to the circle for a step there, but the level rises to the felt's all round
    arcs = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        felt = np.array(WATER[::-1], np.float32)
        img = np.tile(felt, (80, 80, 1))
        yy, xx = np.mgrid[:80, :80]
        img[np.hypot(xx - 40, yy - 40) <= 10] = 0.9 * felt
        img = cv2.GaussianBlur(img, (0, 0), 1.6) + rng.normal(0, 1.0, img.shape).astype(np.float32)
        img = np.clip(img, 0, 255).astype(np.uint8)
        _, on, soft = step_circles(img, np.array([[41.0, 39.0]]), 10.0, np.zeros((1, 2)), ray_units(64), 1.0)
        arcs.append(longest_arc(soft)[0])
        assert not (on & ~soft).any()
    assert min(arcs) >= 0.5, arcs


def test_blue_bases_the_labels_call_half_water_are_found_by_their_brightness_step():
    # paint darker than the water and near its hue: too little of the ring reads as the side's
    # colour for the colour's ring alone; the step at the rim's outer edge shows the base
    found = {True: [], False: []}
    for visible in (0.4, 0.45):
        for seed in range(3):
            scene = _water_table((40, 82, 150), visible, seed)
            img = scene.finish(seed=seed)
            strict, _ = label_view(img, SIDES, [WATER])
            truth = np.array([(x, y) for x, y, _ in scene.truth])
            for with_view in (True, False):
                hits = water_rims(strict, 2, SIDES, [WATER], 0.5 * PPI, np.empty((0, 2)),
                                  view_bgr=img if with_view else None)
                found[with_view] += [np.hypot(*(truth - xy / PPI).T).min() for xy, *_ in hits]
    assert max(found[True]) <= 0.15, np.round(found[True], 3)
    assert len(found[True]) >= len(found[False]) + 2, (len(found[True]), len(found[False]))


def test_in_water_a_body_without_a_rim_a_red_base_and_a_dark_die_are_no_blue_bases_by_brightness():
    # each is darker or lighter than the water round a base-sized blob; none is the side's paint
    # stepping to the felt at the base's radius
    for seed in range(3):
        rng = np.random.default_rng(seed)
        scene = TopScene(width_in=8, depth_in=6, texture=0.07)
        scene.poly([(0.8, 0.8), (7.2, 1.0), (7.0, 5.2), (1.0, 5.0)], WATER)
        scene.figure(2.3, 2.2, "blue", WATER, visible=0.5, lean_deg=float(rng.uniform(0, 360)), body_rgb=BODIES[0])
        scene.figure(5.4, 2.4, "red", RED, visible=0.5, lean_deg=float(rng.uniform(0, 360)), body_rgb=BODIES[1])
        scene.disc(3.8, 4.0, 0.45, BODIES[1])
        scene.die(6.2, 4.3, (30, 60, 110), pips=0)
        img = scene.finish(seed=seed)
        strict, _ = label_view(img, SIDES, [WATER])
        assert water_rims(strict, 2, SIDES, [WATER], 0.5 * PPI, np.empty((0, 2)), view_bgr=img) == []


def test_a_body_leaning_out_over_the_felt_past_its_rim_does_not_drown_the_rims_step():
    # the body hides the rim's far side and stands over the felt beyond it there (as a leaning figure
    # does, seen from the camera): the step's noise is the felt's own mottling, not the body's level
    errors = []
    for visible in (0.4, 0.45):
        for seed in range(3):
            scene = _water_table((40, 82, 150), visible, seed, lean_out_in=0.8)
            img = scene.finish(seed=seed)
            strict, _ = label_view(img, SIDES, [WATER])
            truth = np.array([(x, y) for x, y, _ in scene.truth])
            hits = water_rims(strict, 2, SIDES, [WATER], 0.5 * PPI, np.empty((0, 2)), view_bgr=img)
            errors += [np.hypot(*(truth - xy / PPI).T).min() for xy, *_ in hits]
    assert len(errors) >= 12 and max(errors) <= 0.1, np.round(errors, 3)


# A ring the ring test found up on the body of a blue figure standing in blue water, and the base
# the water search sees in front of it (rims._contested). Camera towards +y: a thing one inch up
# shows 8 px farther from it, a 1/8" base top 1 px.
CONTEST_R_PX = 10.0
CONTEST_TOP_IN = 0.125


def _towards_plus_y(c):
    return np.tile([0.0, 8.0 * CONTEST_TOP_IN], (len(np.asarray(c).reshape(-1, 2)), 1))


def _contest(ring_xy, water_xy, ring_conf, water_conf, colour_on_near_arcs=False, with_rejected=False):
    from vision.rims import RimHit, _contested
    strict = np.full((160, 160), 2, np.int32)               # all water felt (side 1's felt label)
    if colour_on_near_arcs:
        # felt of the side's hue shows it round every ring, the near arcs too
        yy, xx = np.mgrid[:160, :160]
        for cx, cy in (ring_xy, water_xy):
            d = np.hypot(xx - cx, yy - cy)
            strict[(d >= 0.7 * CONTEST_R_PX) & (d <= CONTEST_R_PX) & (yy > cy)] = 1
    ring = RimHit(np.array(ring_xy, float), 1, ring_conf, 0.4, 0.8, 0.1, 0.1, "ring")
    water = RimHit(np.array(water_xy, float), 1, water_conf, 0.5, 0.9, 0.0, 0.0, "ring")
    other = RimHit(np.array([20.0, 20.0]), 0, 0.9, 0.8, 0.5, 0.0, 0.0, "ring")     # a red base far off
    hits = [other, ring]
    return _contested(hits, [other, ring], [], [water], CONTEST_R_PX, strict, _towards_plus_y, CONTEST_TOP_IN,
                      with_rejected)


@pytest.mark.parametrize("colour_on_near_arcs", [False, True])
def test_a_ring_up_on_the_body_of_a_surer_water_base_in_front_of_it_gives_way_to_that_base(colour_on_near_arcs):
    # the ring 1.5 radii behind the base (away from the camera, -y), less sure: it is the body
    hits, rings, extra = _contest((80, 65), (80, 80), 0.37, 0.46, colour_on_near_arcs)
    assert [h.side_index for h in hits] == [0] and [h.side_index for h in rings] == [0]
    assert [tuple(h.xy_view) for h in extra] == [(80.0, 80.0)]
    # with every candidate asked for, the ring is named for why it went
    hits, _, _ = _contest((80, 65), (80, 80), 0.37, 0.46, colour_on_near_arcs, with_rejected=True)
    assert hits[1].reason.startswith("up on a figure's body")


@pytest.mark.parametrize("ring_xy, ring_conf, water_conf", [
    ((80, 95), 0.37, 0.46),      # the ring in front of the water base: the water base is on its body
    ((80, 65), 0.50, 0.46),      # the ring behind but surer than the water base
    ((95, 80), 0.37, 0.46),      # beside it, not behind
])
def test_a_ring_the_water_base_does_not_put_on_its_body_stays_and_the_water_base_does_not(ring_xy, ring_conf,
                                                                                            water_conf):
    hits, rings, extra = _contest(ring_xy, (80, 80), ring_conf, water_conf)
    assert [h.side_index for h in hits] == [0, 1] and len(rings) == 2 and extra == []


@pytest.mark.parametrize("size", [(1, 1), (37, 53), (120, 90), (400, 300)])
def test_the_paint_maps_felt_centre_is_the_float32_mean_of_the_pixels_picked_out(size):
    # the sum counted through the mask is the float32 sum to the bit while it stays whole numbers
    # float32 holds; a window whose sum passes that (the largest here) takes numpy's own mean
    rng = np.random.default_rng(size[0])
    view = rng.integers(0, 256, size + (3,), dtype=np.uint8)
    view[..., 2] = 255                                   # a channel at its largest: the most the sums reach
    for share in (0.05, 0.5, 1.0):
        mask = rng.random(size) < share
        if not mask.any():
            continue
        window = view[:, 1:] if size[1] > 2 else view    # a window cut from a view, not its own array
        got = _masked_mean(window, np.ascontiguousarray(mask[:, :window.shape[1]]))
        want = window[mask[:, :window.shape[1]]].astype(np.float32).mean(0)
        assert got.dtype == np.float32 and np.array_equal(got, want)


def _ring_in_water(body_down_in_front: bool, mat_from_y: int = 160) -> list[tuple]:
    """Side 1's rim colour round a body, all in its water felt (strict labels: 2 the felt, 1 the
    side's colour, -1 neither); the camera towards +y (_towards_plus_y). With
    `body_down_in_front`, the figure's body runs on from the ring towards the camera down to its
    base 2.5 radii in front: the ring is its shoulders, seen up on the body. The felt ends at
    `mat_from_y` (the mat past it, neither label)."""
    r = CONTEST_R_PX
    strict = np.full((160, 160), 2, np.int32)
    yy, xx = np.mgrid[:160, :160]
    d = np.hypot(xx - 80, yy - 60)
    strict[(d >= 0.75 * r) & (d <= r)] = 1
    strict[d < 0.75 * r] = -1
    if body_down_in_front:
        strict[(np.abs(xx - 80) <= 0.7 * r) & (yy >= 60) & (yy <= 60 + 2.5 * r)] = -1
    strict[yy >= mat_from_y] = -1
    return water_candidates(strict, 2, SIDES, [WATER], r, np.empty((0, 2)), wall_shift_px=_towards_plus_y,
                            with_rejected=True)


def test_a_ring_in_water_with_its_figures_body_running_on_in_front_of_it_is_no_base():
    # a base stands in the felt, its body showing away from the camera: felt just in front of its rim
    near = [c for c in _ring_in_water(False) if np.hypot(*(c[0] - (80, 60))) <= 3]
    assert near and near[0][5] == "ring", [(np.round(c[0], 1), c[5]) for c in near]
    # a ring with the body running on towards the camera is up on that body
    near = [c for c in _ring_in_water(True) if np.hypot(*(c[0] - (80, 60))) <= 3]
    assert near and all(c[5] != "ring" for c in near), [(np.round(c[0], 1), c[5]) for c in near]
    assert any(c[5] == "body in front" for c in near)


def test_a_base_at_the_felts_edge_with_the_mat_in_front_of_it_is_a_base():
    # the mat past the felt's edge is no body standing in front of the ring
    near = [c for c in _ring_in_water(False, mat_from_y=72) if np.hypot(*(c[0] - (80, 60))) <= 3]
    assert near and near[0][5] == "ring", [(np.round(c[0], 1), c[5]) for c in near]


@pytest.mark.parametrize("seed, index, figure", [(11, 55, "c4"), (13, 44, "c2")])
def test_a_blue_base_in_water_under_a_red_body_is_found_where_it_stands(seed, index, figure):
    # Hard photos under tungsten, 1080p: a blue base in water, a red body leaning over most of it. Its
    # faint ring has felt beyond its arc and the body beyond the rest, with red round it: no bay of
    # the felt's edge (vision.rims' felt's-edge test, which needs the mat there and nothing of
    # another side's colour round it).
    hard = pytest.importorskip("vision.synthetic.hard")      # scikit-image ships the textures
    from vision.pipeline import FramePipeline
    photo = hard.hard_photo(seed, index)
    truth = next(f for f in photo.truth.figures if f.id == figure)
    scene = FramePipeline(photo.profile).process(photo.image).scene
    near = [np.hypot(f.x - truth.x, f.y - truth.y) for f in scene.figures
            if f.detected_by == "colour" and f.side == truth.side]
    assert near and min(near) <= 0.15, np.round(near, 2)


TEAL = (38, 115, 135)          # a craft shop's teal felt, where the profile names WATER (0.07 off in chromaticity)


def _teal_pond(patch_in=(0.8, 0.8, 7.2, 5.2), felt_rgb=TEAL):
    """A pond of felt (TEAL) on a table that is mostly the mat."""
    x0, y0, x1, y1 = patch_in
    scene = TopScene(width_in=14, depth_in=10, texture=0.07)
    scene.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], felt_rgb)
    return scene


def test_a_felt_of_a_sides_hue_is_learnt_as_the_photo_shows_it():
    img = _teal_pond().finish(seed=2)
    seen = seen_felts_in_view(img, PPI, SIDES, [(48, 82, 40), WATER])
    assert seen[0] == (48, 82, 40)                      # woods: no side's hue, the profile's kept
    learnt, teal = rgb_chroma(seen[1]), rgb_chroma(TEAL)
    assert np.linalg.norm(learnt - teal) < 0.02 < np.linalg.norm(rgb_chroma(WATER) - teal) / 2
    assert sum(seen[1]) == pytest.approx(sum(WATER))   # its brightness stays the profile's


@pytest.mark.parametrize("patch_in, felt_rgb", [((3.0, 2.0, 5.2, 4.4), TEAL), (None, TEAL),
                                                ((0.8, 0.8, 7.2, 5.2), (62, 112, 175))],
                         ids=["under 6 sq in", "no felt", "the profile's felt a little off (a cast)"])
def test_no_patch_big_enough_or_far_enough_off_learns_nothing(patch_in, felt_rgb):
    scene = _teal_pond(patch_in, felt_rgb) if patch_in else TopScene(width_in=14, depth_in=10, texture=0.07)
    assert seen_felts_in_view(scene.finish(seed=2), PPI, SIDES, [WATER]) == (tuple(map(float, WATER)),)


def test_blue_figures_in_a_familys_own_teal_felt_are_found_by_its_colour_as_seen():
    # the paint a little off the profile's blue, towards the felt; under half of each rim in view
    scene = _teal_pond()
    for (x, y), body in zip([(2.3, 2.2), (5.4, 2.4), (3.8, 4.0)], BODIES):
        scene.figure(x, y, "blue", (50, 100, 190), visible=0.45, lean_deg=40.0, body_rgb=body)
    img = scene.finish(seed=7)
    seen = seen_felts_in_view(img, PPI, SIDES, [WATER])

    def found(water_felts):
        hits = find_rims(img, PPI, SIDES, 1.0, other_rgbs=[WATER], water_felts=water_felts)
        return sum(any(h.side_index == 1 and np.hypot(*(h.xy_view / PPI - (x, y))) <= 0.25 for h in hits)
                   for x, y, _ in scene.truth)

    assert found(seen) == 3
    assert found(None) <= 2           # by the profile's water the search barely looks there
