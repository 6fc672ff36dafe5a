"""The rims' compute shortcuts change nothing: a candidate's rays sampled from its own map whatever
the order of the candidates, and the rings kept the same whether or not every rejected candidate is
measured in full."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.vision.rim_scenes import BLUE, PPI, RED, WATER, TopScene
from vision.rim_rays import Slots, reach, sample_rays
from vision.rims import find_rims


def test_rays_sampled_through_slots_are_each_maps_own_in_any_order():
    rng = np.random.default_rng(1)
    maps = [rng.random((40, 50), dtype=np.float32) for _ in range(3)]
    centres = rng.uniform(5, 35, (9, 2))
    angles = np.linspace(0, 2 * np.pi, 8, endpoint=False)
    units = np.column_stack([np.cos(angles), np.sin(angles)])
    radii = np.arange(0.0, 6.0, 0.5)
    for slot_of in (np.array([0, 0, 0, 1, 1, 2, 2, 2, 2]), np.array([2, 0, 1, 2, 0, 1, 1, 0, 2])):
        got = sample_rays(Slots(maps, slot_of), centres, radii, units)
        for i, m in enumerate(slot_of):
            want = sample_rays(maps[m], centres[i:i + 1], radii, units)[0]
            np.testing.assert_array_equal(got[i], want)


def test_a_ray_sample_is_the_bilinear_value_of_its_map():
    img = np.zeros((20, 20), np.float32)
    img[10, 10] = 1.0
    got = sample_rays(img, np.array([[10.0, 10.0]]), np.array([0.0, 0.5, 1.0]), np.array([[1.0, 0.0]]))
    np.testing.assert_allclose(got[0, 0], [1.0, 0.5, 0.0], atol=1e-6)


@pytest.mark.parametrize("reach_px", [0.0, 3.2, 7.5, 100.0])
def test_radii_reach_past_the_farthest_sample_wanted(reach_px):
    radii = np.arange(0.0, 20.0, 0.5)
    got = reach(radii, reach_px)
    np.testing.assert_array_equal(got, radii[:len(got)])
    assert got[-1] > reach_px or len(got) == len(radii)


def test_the_rings_kept_are_the_same_when_every_candidate_is_measured():
    """find_rims measures in full only the candidates that pass the shape tests; with_rejected
    measures every one: the rings (and all their measures) must not differ."""
    scene = TopScene(width_in=10, depth_in=6, mat_rgb=(80, 110, 60), texture=0.08)
    scene.poly([(6.0, 0.8), (9.5, 1.0), (9.2, 5.0), (6.3, 4.8)], WATER)
    scene.figure(2.0, 2.0, "red", RED, visible=0.5, lean_deg=45, cloth_rgb=BLUE)
    scene.figure(4.2, 4.0, "blue", BLUE, visible=0.35, lean_deg=200)
    scene.figure(7.5, 3.0, "blue", BLUE, visible=0.6, lean_deg=120)
    scene.die(3.6, 1.6, RED)
    img = scene.finish(seed=11, jpeg=55, blur_px=1.0)
    sides = [RED, BLUE]
    kept = find_rims(img, PPI, sides, 1.0, other_rgbs=[WATER])
    every = find_rims(img, PPI, sides, 1.0, other_rgbs=[WATER], with_rejected=True)
    rings = [h for h in every if h.reason == "ring"]
    assert len(kept) >= 2 and len(every) > len(kept)

    def fields(h):
        return tuple((k, tuple(v) if isinstance(v, np.ndarray) else v) for k, v in dataclasses.asdict(h).items())
    assert sorted(map(fields, kept)) == sorted(map(fields, rings))


@pytest.mark.parametrize("j", [5, 60, 300])
def test_samples_counted_in_bands_along_a_ray_are_those_a_mask_of_the_band_counts(j):
    from vision.rim_rays import Bands
    rng = np.random.default_rng(j)
    samples = rng.random((4, 6, j)).astype(np.float32)
    radii = np.arange(j) * 0.5
    lo = rng.uniform(-5, 0.5 * j + 5, (4, 6))
    lo[0, 0] = -1e9                                      # a ray without an edge: an empty band
    hi = lo + rng.uniform(-2, 0.3 * j, (4, 6))
    n, on = Bands(samples, radii).count(lo, hi)
    band = (radii >= lo[..., None]) & (radii <= hi[..., None])
    np.testing.assert_array_equal(n, band.sum(2))
    np.testing.assert_array_equal(on, ((samples >= 0.5) & band).sum(2))


def test_samples_at_or_above_the_gained_threshold_are_those_gained_to_half_or_more():
    from vision.rim_rays import gained, gained_threshold
    rng = np.random.default_rng(3)
    gain = np.concatenate([[1.0, 1.0], rng.uniform(1.0, 7.0, 40), [1 / 0.15, 2.0, 4.0]])
    threshold = gained_threshold(gain)
    # random samples, and the threshold itself with its neighbours a few ulps either side
    near = threshold[:, None] + np.arange(-3, 4)[None] * np.spacing(threshold)[:, None]
    samples = np.concatenate([rng.random((len(gain), 200)), near], 1).astype(np.float32)[:, None, :]
    np.testing.assert_array_equal(samples >= threshold[:, None, None], gained(samples, gain) >= 0.5)


def test_an_outer_edge_is_the_last_sample_of_the_colour_before_each_rays_limit():
    from vision.rim_rays import outer_edges
    rng = np.random.default_rng(5)
    samples = (rng.random((7, 9, 40)) ** 3).astype(np.float32)   # mostly below 0.5: some rays have none
    radii = np.arange(40) * 0.5
    hi = rng.uniform(2.0, 22.0, (7, 9))
    edges = outer_edges(samples, radii, 3.0, hi)
    for n in range(7):
        for k in range(9):
            on = [j for j in range(40) if 3.0 <= radii[j] <= hi[n, k] and samples[n, k, j] >= 0.5]
            if not on:
                assert np.isnan(edges[n, k])
                continue
            j, s = on[-1], samples[n, k]
            nxt = min(j + 1, 39)
            frac = (s[j] - 0.5) / max(s[j] - s[nxt], 1e-6) if s[j] - s[nxt] > 1e-6 else 0.0
            assert edges[n, k] == radii[j] + min(max(frac, 0.0), 1.0) * (radii[nxt] - radii[j])


def test_the_longest_arc_is_the_longest_run_of_kept_rays_round_the_circle():
    from vision.rim_rays import longest_arc
    rng = np.random.default_rng(6)
    kept = rng.random((60, 24)) < rng.uniform(0.1, 0.95, (60, 1))
    kept[0] = True
    kept[1] = False
    for n, share in enumerate(longest_arc(kept, gap=0)):
        runs = [0]
        for j in range(48):                                  # round the circle twice
            runs.append(runs[-1] + 1 if kept[n, j % 24] else 0)
        assert share == min(max(runs), 24) / 24


def test_a_circle_fit_takes_the_gauss_newton_steps_written_entry_by_entry():
    """fit_circle's steps, made in arrays reused across its iterations, are those of the normal
    equations written out plainly (each sum, the radius prior and solve_sym3's solution), to rounding
    (fit_circle takes each distance as the root of the squares' sum and each sum over the rays as a
    product with ones: the last bits differ from np.hypot's and numpy's sums')."""
    from vision.rim_rays import EDGE_BIAS_PX, RADIUS_PRIOR, fit_circle, ray_units, solve_sym3
    rng = np.random.default_rng(11)
    n, r_px = 40, 9.0
    start = rng.uniform(20, 200, (n, 2))
    radius = r_px + rng.normal(0, 1.0, (n, ray_units().shape[0], 1))
    points = start[:, None] + rng.normal(0, 2, (n, 1, 2)) + radius * ray_units()[None]
    weights = (rng.random(points.shape[:2]) > rng.random((n, 1))).astype(np.float64)
    weights[0] = 0.0                                         # no point: the prior alone
    c, r = start.copy(), np.full(n, r_px + EDGE_BIAS_PX)
    for _ in range(4):
        dx, dy = points[..., 0] - c[:, None, 0], points[..., 1] - c[:, None, 1]
        dist = np.hypot(dx, dy)
        ux, uy = dx / np.maximum(dist, 1e-6), dy / np.maximum(dist, 1e-6)
        e = dist - r[:, None]
        w = weights
        sx, sy, se = (w * ux).sum(1), (w * uy).sum(1), (w * e).sum(1)
        step = solve_sym3((w * ux * ux).sum(1), (w * ux * uy).sum(1), sx, (w * uy * uy).sum(1), sy,
                          w.sum(1) + RADIUS_PRIOR, -(w * e * ux).sum(1), -(w * e * uy).sum(1),
                          -se + RADIUS_PRIOR * (r - (r_px + EDGE_BIAS_PX)))
        c = c + np.clip(-np.stack(step[:2], 1), -0.5 * r_px, 0.5 * r_px)
        r = np.clip(r - step[2], 0.85 * r_px, 1.25 * r_px)
    got_c, got_r = fit_circle(points, weights, start, r_px, iterations=4)
    np.testing.assert_allclose(got_c, c, rtol=0, atol=1e-9)
    np.testing.assert_allclose(got_r, r, rtol=0, atol=1e-9)
