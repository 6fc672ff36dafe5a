"""White balance from the anchors: a known cast (per-channel gain and a lift) applied to a clean
render is undone; a plane of light across the table is measured; a hidden anchor is left out."""
from __future__ import annotations

import numpy as np
import pytest

from calibration.profile import standard_anchors
from vision.synthetic import FeltPiece, PhotoSpec, TableSpec, render_photo
from vision.topview import warp_top_view
from vision.whitebalance import BLACK, WHITE, WhiteBalance, estimate_white_balance

PPI = 12.0
WIDTH, DEPTH = 30.0, 20.0
PATCHES = {"red": ((8, 8), (200, 40, 40)), "blue": ((15, 8), (40, 80, 200)), "green": ((22, 8), (35, 90, 40)),
           "skin": ((12, 14), (210, 160, 130))}
# Tungsten (about 2600 K) and cold daylight (6500 K+) as per-channel gains on B, G, R, and a lift
# (exposed so the white card does not clip: a clipped channel has lost its level).
CASTS = {"tungsten": ((0.45, 0.75, 1.0), (6, 4, 2)), "daylight": ((1.05, 0.95, 0.72), (3, 3, 8)),
         "dim-green": ((0.6, 0.75, 0.55), (10, 12, 9))}


def _patch(cx, cy, r=1.2):
    return ((cx - r, cy - r), (cx + r, cy - r), (cx + r, cy + r), (cx - r, cy + r))


@pytest.fixture(scope="module")
def clean():
    anchors = standard_anchors(WIDTH, DEPTH)
    felt = tuple(FeltPiece(name, name, _patch(*xy), rgb) for name, (xy, rgb) in PATCHES.items())
    table = TableSpec(WIDTH, DEPTH, anchors, terrain=felt)
    photo = render_photo(table, PhotoSpec(image_size=(960, 640), tilt_deg=10, light_low=1.0, light_high=1.0,
                                          vignette=0.0, noise_sigma=0.5, blur_sigma_px=0.5, jpeg_quality=0), rng=1)
    H = photo.camera.plane_homography(0.0)
    return photo.image, H, anchors


def _view(image, H):
    return warp_top_view(image, H, PPI, (0.0, 0.0, WIDTH, DEPTH)).image


def _patch_bgr(view, xy):
    x, y = int(xy[0] * PPI), int(xy[1] * PPI)
    return view[y - 5:y + 5, x - 5:x + 5].reshape(-1, 3).mean(axis=0)


def _chroma(bgr):
    bgr = np.asarray(bgr, np.float64)
    return bgr / bgr.sum()


def test_clean_render_is_nearly_unchanged(clean):
    image, H, anchors = clean
    view = _view(image, H)
    wb = estimate_white_balance(view, PPI, anchors)
    assert wb.anchors_used == (0, 1, 2, 3)
    # The renderer prints white (235, 235, 228) and black (22, 22, 24): near neutral already.
    assert np.all(np.abs(wb.white_bgr - 232) < 8) and np.all(np.abs(wb.black_bgr - 23) < 8)


@pytest.mark.parametrize("cast", sorted(CASTS))
def test_a_known_cast_is_undone(clean, cast):
    """Each patch's normalised colour under the cast is within 6 levels (of 255) of its normalised
    colour in the clean photo, and its chromaticity within 0.01."""
    image, H, anchors = clean
    gain, lift = CASTS[cast]
    cast_image = np.clip(image.astype(np.float32) * np.array(gain, np.float32) + np.array(lift, np.float32),
                         0, 255).astype(np.uint8)
    ref_view, cast_view = _view(image, H), _view(cast_image, H)
    ref = estimate_white_balance(ref_view, PPI, anchors, spatial=False).apply(ref_view)
    out = estimate_white_balance(cast_view, PPI, anchors, spatial=False).apply(cast_view)
    for name, (xy, _rgb) in PATCHES.items():
        a, b = _patch_bgr(ref, xy), _patch_bgr(out, xy)
        assert np.max(np.abs(a - b)) <= 6.0, (name, a, b)
        assert np.max(np.abs(_chroma(a) - _chroma(b))) <= 0.01, name
    # Without the correction the cast moves colours far more than that.
    raw = _patch_bgr(cast_view.astype(np.float32), PATCHES["skin"][0])
    assert np.max(np.abs(_chroma(raw) - _chroma(_patch_bgr(ref, PATCHES["skin"][0])))) > 0.03


def test_a_plane_of_light_is_measured_and_divided_out(clean):
    """Light falling from 1.05 on the left to 0.6 on the right (a lamp off to one side)."""
    image, H, anchors = clean
    view = _view(image, H).astype(np.float32)
    x = (np.arange(view.shape[1]) + 0.5) / PPI
    light = 1.05 - 0.45 * x / WIDTH
    lit = np.clip(view * light[None, :, None], 0, 255).astype(np.uint8)
    wb = estimate_white_balance(lit, PPI, anchors)
    assert wb.exposure_plane is not None
    rel = wb.exposure_at(np.array([[2.0, 10.0], [28.0, 10.0]]))
    assert rel[0] / rel[1] == pytest.approx((1.05 - 0.45 * 2 / 30) / (1.05 - 0.45 * 28 / 30), rel=0.06)
    ref = estimate_white_balance(view, PPI, anchors).apply(view, PPI)
    out = wb.apply(lit, PPI)
    for name, (xy, _rgb) in PATCHES.items():
        assert np.max(np.abs(_patch_bgr(ref, xy) - _patch_bgr(out, xy))) <= 10.0, name


def test_an_anchor_under_a_coloured_shadow_is_left_out(clean):
    image, H, anchors = clean
    view = _view(image, H).copy()
    a = anchors[2]
    x0, y0 = int((a.x_in - 1.3) * PPI), int((a.y_in - 1.3) * PPI)
    x1, y1 = int((a.x_in + 1.3) * PPI), int((a.y_in + 1.3) * PPI)
    view[y0:y1, x0:x1] = np.clip(view[y0:y1, x0:x1] * np.array([0.5, 0.8, 1.0]), 0, 255).astype(np.uint8)
    wb = estimate_white_balance(view, PPI, anchors)
    assert wb.anchors_used == (0, 1, 3)


def test_no_anchor_in_view_is_the_identity():
    wb = estimate_white_balance(np.full((50, 50, 3), 128, np.uint8), PPI, standard_anchors(WIDTH, DEPTH))
    assert wb.anchors_used == ()
    out = wb.apply(np.full((2, 2, 3), 100, np.uint8))
    assert np.allclose(out, 100.0)
    assert WhiteBalance.identity().apply_rgb((200, 40, 40)) == pytest.approx((200, 40, 40))
    assert BLACK < WHITE


def test_the_felt_view_is_the_balanced_view_without_its_black_offset():
    """felt: the exposure plane divided out and each channel scaled so the white card is WHITE;
    the same numbers as undoing `apply`'s black offset and gain."""
    wb = WhiteBalance(np.array([20.0, 31.0, 26.0]), np.array([201.0, 219.0, 176.0]),
                      np.array([1.02, 0.004, -0.006]), (0, 1, 2))
    view = (np.random.default_rng(4).random((40, 60, 3)) * 255).astype(np.uint8)
    applied = wb.apply(view, PPI, (3.0, 2.0))
    undone = (applied - BLACK) / wb.gain + wb.black_bgr
    expected = np.maximum(undone * (WHITE / wb.white_bgr), 0)
    assert np.allclose(wb.felt(view, PPI, (3.0, 2.0)), expected, atol=1e-3)
    # Without a ppi the plane is not applied, as for `apply`.
    assert np.allclose(wb.felt(view), view * (WHITE / wb.white_bgr), atol=1e-3)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_applying_the_balance_divides_out_the_light_then_maps_each_channel_from_black_to_white(dtype):
    wb = WhiteBalance(np.array([20.0, 24.0, 30.0]), np.array([200.0, 215.0, 190.0]), np.array([1.2, -0.01, 0.006]))
    view = (np.random.default_rng(4).random((30, 40, 3)) * 255).astype(dtype)
    before = view.copy()
    ppi, origin = 4.0, (1.5, -0.5)
    out = wb.apply(view, ppi, origin)
    x = origin[0] + (np.arange(40) + 0.5) / ppi
    y = origin[1] + (np.arange(30) + 0.5) / ppi
    light = np.clip(1.2 - 0.01 * x[None, :] + 0.006 * y[:, None], 0.3, 3.0)[..., None]
    expected = (view / light - wb.black_bgr) * (WHITE - BLACK) / (wb.white_bgr - wb.black_bgr) + BLACK
    assert out.dtype == np.float32 and np.allclose(out, expected, atol=1e-3)
    assert np.array_equal(view, before)                       # the caller's view is left as it was
    assert np.allclose(wb.apply(view), (view - wb.black_bgr) * wb.gain + BLACK, atol=1e-3)
    colours = view[0].astype(np.float32)[None]                # (1, n, 3) and (n, 3) colours too
    assert np.allclose(wb.apply(colours[0]), wb.apply(colours)[0], atol=1e-4)


@pytest.mark.parametrize("seed", range(4))
def test_a_cards_levels_split_at_numpys_quantiles(seed):
    from vision.whitebalance import _quantiles
    rng = np.random.default_rng(seed)
    lum = rng.integers(0, 765, int(rng.integers(16, 2000))).astype(np.float32)
    qs = np.array([0.15, 0.85])
    assert np.array_equal(_quantiles(lum, qs), np.quantile(lum, qs))


def _gain_ratios(wb):
    """The balance's colour: red and blue gain over green (its brightness is the plane's business)."""
    g = wb.gain
    return np.array([g[0] / g[1], g[2] / g[1]])


def _card_white(view, anchor):
    """The median BGR of the brightest 15% of an anchor's window, as the balance reads its white."""
    half = anchor.size_in / 2 * 1.2
    x0, y0 = int(round((anchor.x_in - half) * PPI)), int(round((anchor.y_in - half) * PPI))
    px = view[y0:y0 + int(round(2 * half * PPI)), x0:x0 + int(round(2 * half * PPI))].reshape(-1, 3).astype(float)
    lum = px.sum(axis=1)
    return np.median(px[lum >= np.quantile(lum, 0.85)], axis=0)


def _lamp(view, exposure, centre_in, sigma_in, peak):
    """A warm light (B, G, R gains) with a lamp's round hot spot, photographed into uint8 (clipped)."""
    y, x = np.mgrid[0:view.shape[0], 0:view.shape[1]]
    d2 = ((x + 0.5) / PPI - centre_in[0]) ** 2 + ((y + 0.5) / PPI - centre_in[1]) ** 2
    light = 1 + peak * np.exp(-d2 / (2 * sigma_in ** 2))
    cast = np.array([0.5, 0.85, 1.0], np.float32) * exposure
    return np.clip(view.astype(np.float32) * light[..., None] * cast, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("sigma_in, peak, exposure, red_clips", [(8.0, 0.6, 1.0, 2), (6.0, 0.45, 1.12, 4)])
def test_a_clipped_white_card_is_estimated_from_its_unclipped_channels(clean, sigma_in, peak, exposure, red_clips):
    """A lamp's hot spot near the right-hand anchors clips their white card's red and green at 255
    (at the higher exposure every card's red, so that only the cards' own unclipped pixels show
    red's share of the light): the gains keep the colour of the light measured from the same
    scene exposed so that nothing clips, within 3%. Read as they were, the clipped levels make the
    white card look blue and the balance boosts red by about 10%."""
    image, H, anchors = clean
    view = _view(image, H)
    clipped = _lamp(view, exposure, (30.0, 10.0), sigma_in, peak)
    unclipped = _lamp(view, 0.7, (30.0, 10.0), sigma_in, peak)
    whites = np.array([_card_white(clipped, a) for a in anchors])
    assert (whites[:, 2] == 255).sum() == red_clips and (whites[[1, 2], 1] == 255).all()
    assert np.max(unclipped) < 250
    want = _gain_ratios(estimate_white_balance(unclipped, PPI, anchors))
    wb = estimate_white_balance(clipped, PPI, anchors)
    assert wb.anchors_used == (0, 1, 2, 3)
    assert _gain_ratios(wb) == pytest.approx(want, rel=0.03)
    # The light's fall-off from the lamp is measured too, not flattened by the clipped levels.
    ref = estimate_white_balance(unclipped, PPI, anchors).exposure_at(np.array([[28.75, 10.0], [1.25, 10.0]]))
    rel = wb.exposure_at(np.array([[28.75, 10.0], [1.25, 10.0]]))
    assert rel[0] / rel[1] == pytest.approx(ref[0] / ref[1], rel=0.05)


def test_a_card_clipped_in_every_channel_is_left_out(clean):
    """Under the lamp's centre the card is 255 in all three channels: it says nothing of the light's
    colour and only a lower bound of its brightness."""
    image, H, anchors = clean
    view = _view(image, H)
    glare = _lamp(view, 1.0, (28.75, 1.25), 2.0, 2.0)
    wb = estimate_white_balance(glare, PPI, anchors)
    assert wb.anchors_used == (0, 2, 3)
    want = _gain_ratios(estimate_white_balance(_lamp(view, 0.7, (28.75, 1.25), 2.0, 0.0), PPI, anchors))
    assert _gain_ratios(wb) == pytest.approx(want, rel=0.03)


def test_a_view_cut_a_little_inside_the_table_still_reads_its_corner_anchors(clean):
    """A top view that starts a fifth of an inch in from the table's edge cuts each corner anchor's
    quiet zone: the cards themselves are all in it, so all four are read, and the tungsten cast is
    undone as from the whole table (not left as photographed)."""
    image, H, anchors = clean
    gain, lift = CASTS["tungsten"]
    cast_image = np.clip(image.astype(np.float32) * np.array(gain, np.float32) + np.array(lift, np.float32),
                         0, 255).astype(np.uint8)
    whole = estimate_white_balance(_view(cast_image, H), PPI, anchors, spatial=False)
    inset = 0.2
    cut = warp_top_view(cast_image, H, PPI, (inset, inset, WIDTH - inset, DEPTH - inset)).image
    wb = estimate_white_balance(cut, PPI, anchors, (inset, inset), spatial=False)
    assert wb.anchors_used == (0, 1, 2, 3)
    assert np.all(np.abs(wb.gain - whole.gain) < 0.03 * whole.gain)
