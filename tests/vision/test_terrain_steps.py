"""Terrain's inner steps against the plain computation each stands in for: a piece's likelihoods
as one matrix product (a long one made in pieces), its outline grown by mitred corners, the pool's
cheap blur, the clipped mask as one range test, the features made plane by plane in place, the
figures standing on a piece read at their centres, its holes looked for in its bounding box."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
import shapely
from hypothesis import example, given, settings, strategies as st

from vision.pipeline import CLIPPED, _clipped
from vision.terrain import (FLATTEN_LOG, FOOT_MARGIN_IN, MITRE_LIMIT, OFFSET, PRODUCT_LIMIT, SMOOTH_IN, _add_footprints,
                            _features, _fill_holes, _gauss_table, _kernel, _mat_may_explain, _mitred, _product, _smooth,
                            _sure)


def test_likelihoods_as_one_product_are_the_gaussians_posterior():
    rng = np.random.default_rng(3)
    mus = rng.normal(0, 0.3, (6, 3))
    sds = rng.uniform(0.02, 0.3, (6, 3))
    priors = np.array([0.0, 0.0, -2.0, 0.0, -2.0, -2.0])
    xs = rng.normal(0, 0.3, (3, 40, 50)).astype(np.float32)
    for classes in (4, 6):
        x = xs.reshape(3, -1).T.astype(np.float64)
        ll = np.stack([-0.5 * (((x - m) / s) ** 2).sum(axis=1) - np.log(s).sum() + p
                       for m, s, p in zip(mus[:classes], sds[:classes], priors[:classes])])
        posterior = np.exp(ll[0] - ll.max(axis=0)) / np.exp(ll - ll.max(axis=0)).sum(axis=0)
        got = _sure(xs, _gauss_table(mus, sds, priors), classes)
        assert got.shape == (40, 50)
        assert np.abs(got.ravel() - posterior).max() < 1e-3


@pytest.mark.parametrize("m, k, n", [(7, 7, 30420), (12, 7, 2 * PRODUCT_LIMIT // 84 + 5), (9, 7, 300),
                                     (16000, 3, 9), (2 * PRODUCT_LIMIT // 27 + 1, 3, 9)])
def test_a_long_product_made_in_pieces_is_the_same_to_the_bit(m, k, n):
    rng = np.random.default_rng(m + n)
    a = rng.normal(0, 1, (m, k)).astype(np.float32)
    b = rng.normal(0, 1, (k, n)).astype(np.float32)
    assert np.array_equal(_product(a, b), a @ b)
    # (as the seeds' distances read them: the pixels' features a transposed view)
    at = np.ascontiguousarray(a.T).T
    assert np.array_equal(_product(at, b), at @ b)


def _corner_ratios(ring: np.ndarray) -> np.ndarray:
    """How far each corner of a mitre buffer reaches, in buffer distances."""
    ahead = np.roll(ring, -1, axis=0) - ring
    behind = ring - np.roll(ring, 1, axis=0)
    cos_turn = (ahead * behind).sum(axis=1) / (np.linalg.norm(ahead, axis=1) * np.linalg.norm(behind, axis=1))
    return 1.0 / np.sqrt(np.maximum((1.0 + cos_turn) / 2.0, 1e-12))


# outlines are traced on pixels: corners on a quarter-pixel lattice (no denormal or near-repeated
# corner, whose turn is undefined)
_coord = st.integers(0, 80).map(lambda v: v / 4)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_coord, _coord), min_size=3, max_size=25),
       st.floats(0.005, 0.2), st.booleans())
@example([(0, 0), (7.5, 19.25), (10.25, 15.25), (19, 2.5)], 0.125, False)     # a corner turning 0.1 degree
def test_a_ring_grown_by_mitred_corners_is_shapelys_mitre_buffer(points, distance, reverse):
    hull = shapely.convex_hull(shapely.multipoints(points))
    if hull.geom_type != "Polygon" or hull.area < 1.0:
        return
    ring = np.asarray(hull.exterior.coords)[:-1]
    ring = ring[::-1] if reverse else ring               # either way round
    if _corner_ratios(ring).max() > MITRE_LIMIT:        # shapely bevels those corners
        return
    grown = shapely.polygons(_mitred(ring, distance))
    expected = shapely.buffer(hull, distance, join_style="mitre")
    assert shapely.is_valid(grown)
    # (by distance, not by the area of their difference: GEOS's overlay of two triangles equal to
    # the last bit can return both whole; and GEOS finds a nearly straight corner's mitre point by
    # crossing two nearly parallel lines, which puts it up to about 1e-4 along the outline and 1e-7
    # off it: far below a pixel, far above a rounding error)
    assert shapely.hausdorff_distance(grown, expected) < 1e-6 * (1 + distance)


def test_a_ring_with_a_repeated_point_is_left_to_shapely():
    ring = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 0.0], [0.0, 3.0]])
    assert _mitred(ring, 0.1) is None


def _spread(image: np.ndarray) -> float:
    ys, xs = np.mgrid[: image.shape[0], : image.shape[1]]
    mean = (image * xs).sum() / image.sum()
    return float(np.sqrt((image * (xs - mean) ** 2).sum() / image.sum()))


def test_the_pools_blur_is_as_wide_as_asked_and_never_under_sqrt_2_pixels():
    for sigma in (1.0, 1.25, 2.0, 2.5, 3.5):
        impulse = np.zeros((81, 81), np.float32)
        impulse[40, 41] = 1.0
        out = _smooth(impulse, sigma)
        assert abs(float(out.sum()) - 1.0) < 1e-4
        assert abs(_spread(out) - max(sigma, math.sqrt(2))) < 0.02 * max(sigma, math.sqrt(2))


def test_the_clipped_mask_is_where_any_channel_reads_clipped():
    rng = np.random.default_rng(5)
    image = rng.integers(CLIPPED - 6, 256, (60, 80, 3), dtype=np.uint8)
    expected = image.max(axis=2) >= CLIPPED
    assert expected.any() and not expected.all()
    assert np.array_equal(_clipped(image), expected)


def test_the_features_made_in_place_are_the_plain_formulas():
    rng = np.random.default_rng(11)
    small = rng.uniform(0, 255, (37, 53, 3)).astype(np.float32)
    ppi = 5.0
    smooth = cv2.GaussianBlur(small, (0, 0), SMOOTH_IN * ppi)
    lg = cv2.log(smooth + np.float32(OFFSET))
    raw = cv2.log(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) + np.float32(OFFSET))
    m1 = cv2.blur(raw, (3, 3))
    var = cv2.blur(raw * raw, (3, 3)) - m1 * m1
    expected = np.stack([lg[..., 2] - lg[..., 1], lg[..., 0] - lg[..., 1],
                         cv2.log(cv2.cvtColor(smooth, cv2.COLOR_BGR2GRAY) + np.float32(OFFSET)),
                         0.5 * cv2.log(np.maximum(var, np.float32(1e-4))), *smooth.transpose(2, 0, 1)])
    assert np.array_equal(_features(small, ppi), expected)


def _footprints_plainly(mask: np.ndarray, ppi: float, feet_px: np.ndarray) -> np.ndarray:
    """Figures added to a piece as first written: the piece dilated over the whole window."""
    out = mask.copy()
    h, w = mask.shape
    u, v = feet_px[:, 0], feet_px[:, 1]
    inside = (u >= 0) & (u < w - 0.5) & (v >= 0) & (v < h - 0.5)
    near = cv2.dilate(mask, _kernel(0.15, ppi))
    x, y, radius = u[inside], v[inside], feet_px[inside, 2]
    iu, iv = np.round(x).astype(int), np.round(y).astype(int)
    reach = np.maximum(1.3 * radius, np.ceil(radius + FOOT_MARGIN_IN * ppi) + 1)[:, None]
    angles = np.linspace(0, 2 * math.pi, 16, endpoint=False)
    a = np.round(x[:, None] + reach * np.cos(angles)).astype(int)
    b = np.round(y[:, None] + reach * np.sin(angles)).astype(int)
    ok = (a >= 0) & (a < w) & (b >= 0) & (b < h)
    felt = np.where(ok, mask[np.clip(b, 0, h - 1), np.clip(a, 0, w - 1)], 0).sum(axis=1)
    on = (near[iv, iu] > 0) | (felt >= 6)
    for cu, cv, r in zip(iu[on], iv[on], radius[on]):
        cv2.circle(out, (int(cu), int(cv)), int(math.ceil(r + FOOT_MARGIN_IN * ppi)), 1, thickness=cv2.FILLED)
    return out


def test_figures_standing_on_a_piece_are_read_at_their_centres_as_the_dilated_piece_says():
    rng = np.random.default_rng(7)
    for ppi in (5.0, 4.6, 7.3, 12.0):
        for _ in range(6):
            mask = np.zeros((40, 50), np.uint8)
            cv2.ellipse(mask, (int(rng.integers(10, 40)), int(rng.integers(10, 30))),
                        (int(rng.integers(4, 15)), int(rng.integers(4, 12))), float(rng.uniform(0, 180)), 0, 360, 1, -1)
            # figures on, at the edge of, just off and far off the piece, some outside the window
            feet = np.column_stack([rng.uniform(-3, 53, 25), rng.uniform(-3, 43, 25), rng.uniform(0.5, 3.0, 25)])
            assert np.array_equal(_add_footprints(mask, ppi, feet), _footprints_plainly(mask, ppi, feet))


def _holes_filled_plainly(mask: np.ndarray, max_px: float) -> np.ndarray:
    """The whole mask's 4-connected holes up to max_px that touch none of its edges, filled."""
    count, comp, stats, _ = cv2.connectedComponentsWithStats((1 - mask).astype(np.uint8), connectivity=4)
    h, w = mask.shape
    out = mask.copy()
    for c in range(1, count):
        x, y, bw, bh, area = stats[c]
        if area <= max_px and x > 0 and y > 0 and x + bw < w and y + bh < h:
            out[comp == c] = 1
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 31), st.integers(1, 9), st.floats(1.0, 80.0))
@example(0, 0, 10.0)            # no felt at all
def test_holes_looked_for_in_the_masks_box_are_the_whole_masks_holes(seed, blobs, max_px):
    rng = np.random.default_rng(seed)
    mask = np.zeros((30, 40), np.uint8)
    for _ in range(blobs):      # rings, discs and bars: holes of every size, some at the window's edge
        centre = (int(rng.integers(-3, 43)), int(rng.integers(-3, 33)))
        axes = (int(rng.integers(1, 12)), int(rng.integers(1, 12)))
        cv2.ellipse(mask, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1, int(rng.choice([-1, 1, 2])))
    mask[rng.random(mask.shape) < 0.03] = 0                  # pinholes
    assert np.array_equal(_fill_holes(mask, max_px), _holes_filled_plainly(mask, max_px))


MAT_SIGMA = np.array([0.012, 0.045, 0.056, 0.35])       # a grass mat's spread (log R/G, log B/G, log L, texture)
WOODS_MU = np.array([-0.25, 0.06, -0.5])                # a dark green woods felt, relative to that mat
WOODS_SD = np.array([0.16, 0.19, 0.25])                 # (a dark colour's chromaticity is uncertain)


@pytest.mark.parametrize("mean, tells", [
    ((0.007, 0.011, -0.28), False),     # the mat's own chromaticity, darker: the mat in shade or a felt, no cast
    ((0.0, 0.0, 0.25), False),          # the mat's own chromaticity, lighter: a lamp's hot spot
    ((-0.2, 0.02, -0.45), True),        # off the mat's chromaticity, near the kind's: a felt telling the cast
    ((0.4, 0.6, -0.45), False),         # far off the kind's chromaticity: no felt of it
])
def test_a_seed_patch_of_the_mats_own_chromaticity_tells_no_cast(mean, tells):
    from vision.terrain import _tells_cast
    assert _tells_cast(np.asarray(mean), WOODS_MU, WOODS_SD, MAT_SIGMA) is tells


# (B, G, R washed; the log R/G and log B/G read over the mat's) -> as they are judged: a flattened
# channel reads up to FLATTEN_LOG (0.25) less than it is, so where the mat lies within that on the
# side the flattening allows, the pixel reads as the mat; further off, as it was read.
@pytest.mark.parametrize("washed, rel_uv, kept", [
    ((0, 0, 0), (-0.2, 0.1), (-0.2, 0.1)),      # nothing flattened: read as it is
    ((0, 0, 1), (-0.2, 0.1), (0.0, 0.1)),       # red flattened, a little less red than the mat: may be the mat
    ((0, 0, 1), (-0.6, 0.1), (-0.6, 0.1)),      # ... far less red: no flattening makes it the mat
    ((0, 0, 1), (0.3, 0.1), (0.3, 0.1)),        # ... redder than the mat: redder still
    ((1, 0, 0), (0.1, -0.2), (0.1, 0.0)),       # blue flattened, the same for log B/G
    ((0, 1, 0), (0.2, -0.1), (0.0, -0.1)),      # green flattened: a ratio reading high may be the mat's
    ((0, 1, 1), (-0.2, 0.2), (0.0, 0.0)),       # red and green flattened: log R/G either way
    ((0, 1, 1), (0.4, 0.2), (0.4, 0.0)),        # ... but not beyond the reach
    ((1, 1, 1), (0.1, -0.2), (0.0, 0.0)),       # all flattened, near the mat
])
def test_a_ratio_over_a_channel_the_camera_flattened_reads_as_the_mat_within_its_reach(washed, rel_uv, kept):
    assert FLATTEN_LOG == 0.25
    rel = np.array(rel_uv, np.float32).reshape(2, 1, 1)
    _mat_may_explain(rel, np.array(washed, bool).reshape(1, 1, 3))
    assert rel.reshape(2).tolist() == pytest.approx(list(kept))
