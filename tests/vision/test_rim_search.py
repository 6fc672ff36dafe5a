"""The soft colour likelihood (vision.rim_search) and the rims it finds that hard labels lose: thin,
pale rims partly hidden by the body, blue rims standing in blue water felt, and a rim seen at a
35 degree tilt, its wall showing on the camera's side."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.vision.rim_scenes import BLUE, MAT, PPI, RED, WATER, TopScene
from vision.colour import rgb_chroma
from vision.rim_search import side_likelihoods
from vision.rims import find_rims

SIDES = [RED, BLUE]
PAINT = 0.8                 # a 1080p rim: the paint blended with the mat


def _mix(a, b, t):
    return tuple(t * np.asarray(a, float) + (1 - t) * np.asarray(b, float))


def _view(colours):
    """A 1 x n float BGR view of RGB colours."""
    return np.array([[c[::-1] for c in colours]], np.float32)


def test_the_likelihood_is_the_share_of_the_way_from_the_mat_to_the_side():
    mat = rgb_chroma(MAT)
    colours = [RED, BLUE, MAT, _mix(RED, MAT, 0.4), _mix(BLUE, MAT, 0.6), (8, 8, 10)]
    like = side_likelihoods(_view(colours), PPI, SIDES, mat)
    red, blue = like[0, 0], like[1, 0]
    assert red[0] == pytest.approx(1.0, abs=0.02) and blue[1] == pytest.approx(1.0, abs=0.02)
    assert red[1] < 0.05 and blue[0] < 0.05          # the other side's colour
    assert red[2] < 0.02 and blue[2] < 0.02          # the mat
    # a blend lies part of the way (chromaticity weighs by brightness, so near, not at, its share)
    assert 0.2 < red[3] < 0.6 and 0.4 < blue[4] < 0.8
    assert red[5] == 0 and blue[5] == 0              # ink: too dark to have a colour


def test_water_felt_is_no_blue_but_a_bluer_rim_standing_in_it_is():
    """Inside known water felt a pixel is blue only as far as it lies beyond the water; outside it a
    blend of blue with the mat still counts."""
    img = np.empty((60, 200, 3), np.float32)
    img[:] = MAT[::-1]
    img[:, 100:] = WATER[::-1]
    img[30, 150] = BLUE[::-1]                        # a rim pixel in the water
    img[30, 30] = _mix(BLUE, MAT, 0.5)[::-1]         # a blended rim pixel on the mat
    like = side_likelihoods(img, PPI, SIDES, rgb_chroma(MAT), [WATER])[1]
    assert like[10:50, 130:190].max() == like[30, 150]
    assert np.percentile(like[:, 130:], 99) < 0.05     # the water itself
    assert like[30, 150] > 0.8
    assert like[30, 30] > 0.3


def _thin_rim(scene: TopScene, x, y, rim_rgb, *, visible, lean_deg, band_in=0.12, body_rgb=(110, 80, 50)):
    """A base 1" across whose top is painted only in its outer `band_in`, a body hiding all but
    `visible` of that band (the hidden arc centred on `lean_deg`)."""
    r = 0.5
    scene.disc(x, y, r, rim_rgb)
    scene.disc(x, y, r - band_in, (95, 80, 55))
    scene.disc(x, y, 0.25, body_rgb)
    half = math.radians((1 - visible) * 180)
    a = math.radians(lean_deg)
    t = np.linspace(a - half, a + half, 24)
    scene.poly(np.vstack([[x, y], np.column_stack([x + 1.08 * r * np.cos(t), y + 1.08 * r * np.sin(t)])]), body_rgb)
    scene.truth.append((x, y))


def _near(hits, x, y, side):
    return [h for h in hits if h.side_index == side and _error_in(h, x, y) <= 0.5]


def _error_in(hit, x, y):
    """Inches from the truth (x, y); view pixel i spans table [i, i + 1) / PPI, so x is at x * PPI - 0.5."""
    return math.hypot(*((hit.xy_view + 0.5) / PPI - (x, y)))


@pytest.mark.parametrize("visible, lean", [(0.4, 30.0), (0.6, 200.0), (0.7, 290.0)])
def test_a_thin_pale_partly_hidden_rim_is_found_where_it_stands(visible, lean):
    """Paint blended with the mat (a rim a pixel or two wide), a third to most of it hidden."""
    scene = TopScene(width_in=8, depth_in=4)
    _thin_rim(scene, 2.1, 2.0, _mix(RED, MAT, PAINT), visible=visible, lean_deg=lean)
    _thin_rim(scene, 5.9, 1.9, _mix(BLUE, MAT, PAINT), visible=visible, lean_deg=lean + 90)
    hits = find_rims(scene.finish(seed=11), PPI, SIDES, 1.0)
    for (x, y), side in zip(scene.truth, (0, 1)):
        near = _near(hits, x, y, side)
        assert near, f"missed the {('red', 'blue')[side]} base at ({x}, {y})"
        assert _error_in(near[0], x, y) <= 0.1          # a third of a ring fixes its centre less well
    assert len(hits) == 2


def test_a_blue_rim_standing_in_water_felt_is_found_and_the_felt_is_not():
    scene = TopScene(width_in=9, depth_in=6)
    scene.poly([(0.8, 0.8), (8.2, 1.0), (8.0, 5.2), (1.0, 5.0)], WATER)
    _thin_rim(scene, 3.0, 3.0, BLUE, visible=0.6, lean_deg=70)
    _thin_rim(scene, 6.0, 3.2, _mix(BLUE, WATER, 0.7), visible=0.6, lean_deg=250)
    hits = find_rims(scene.finish(seed=12), PPI, SIDES, 1.0, other_rgbs=[WATER], mat=rgb_chroma(MAT))
    for x, y in scene.truth:
        near = _near(hits, x, y, 1)
        assert near, f"missed the blue base in the water at ({x}, {y})"
        assert _error_in(near[0], x, y) <= 0.08
    assert len(hits) == 2


def test_a_rim_seen_at_a_35_degree_tilt_is_put_where_its_top_is():
    """The base's wall (1/8 in, darker) shows on the camera's side beyond the top's edge: the wall
    is taken away, and the centre is the top's."""
    tilt = math.radians(35)
    toward = np.array([math.cos(math.radians(40)), math.sin(math.radians(40))])   # the camera's side
    shift_in = 0.125 * math.tan(tilt) * toward
    scene = TopScene(width_in=6, depth_in=4)
    x, y = 3.0, 2.0
    paint = _mix(RED, MAT, 0.7)
    for t in np.linspace(0, 1, 9):          # the wall: the top's circle swept down to the table
        scene.disc(x + t * shift_in[0], y + t * shift_in[1], 0.5, tuple(0.6 * np.asarray(paint)))
    _thin_rim(scene, x, y, paint, visible=0.5, lean_deg=180)
    shift_px = shift_in * PPI
    hits = find_rims(scene.finish(seed=13), PPI, SIDES, 1.0,
                     wall_shift_px=lambda c: np.tile(shift_px, (len(c), 1)))
    near = _near(hits, x, y, 0)
    assert near and len(hits) == 1
    assert _error_in(near[0], x, y) <= 0.06


def test_the_likelihood_less_its_noise_is_the_whole_likelihood_less_the_noise_in_felt_too():
    """Only the pixels above the noise are blended with a felt's likelihood: the rest are 0 either way."""
    from vision.rim_search import quantised_likelihoods
    from vision.rims import quantise_view
    scene = TopScene(width_in=9, depth_in=6)
    scene.poly([(0.8, 0.8), (8.2, 1.0), (8.0, 5.2), (1.0, 5.0)], WATER)
    _thin_rim(scene, 3.0, 3.0, BLUE, visible=0.6, lean_deg=70)
    _thin_rim(scene, 6.0, 3.2, _mix(BLUE, WATER, 0.7), visible=0.6, lean_deg=250)
    _thin_rim(scene, 7.4, 5.4, _mix(RED, MAT, PAINT), visible=0.7, lean_deg=0)
    quantised = quantise_view(scene.finish(seed=12))
    whole = quantised_likelihoods(quantised, PPI, SIDES, rgb_chroma(MAT), [WATER])
    noise = 0.1
    less = quantised_likelihoods(quantised, PPI, SIDES, rgb_chroma(MAT), [WATER], noise=noise)
    assert (less > 0).any(axis=(1, 2)).all()                     # both sides show above the noise
    np.testing.assert_array_equal(less, np.maximum(whole - np.float32(noise), 0.0))


def test_a_side_judged_alone_or_again_from_what_a_first_call_shared_is_the_same_map():
    """find_rims' second pass judges only the sides whose colour it learned, and takes the
    neighbourhoods' median and the felts' zones (which no side's colour changes) from the first."""
    from vision.rim_search import quantised_likelihoods
    from vision.rims import quantise_view
    scene = TopScene(width_in=9, depth_in=6)
    scene.poly([(0.8, 0.8), (8.2, 1.0), (8.0, 5.2), (1.0, 5.0)], WATER)
    _thin_rim(scene, 3.0, 3.0, BLUE, visible=0.6, lean_deg=70)
    _thin_rim(scene, 7.4, 5.4, _mix(RED, MAT, PAINT), visible=0.7, lean_deg=0)
    quantised = quantise_view(scene.finish(seed=12))
    mat = rgb_chroma(MAT)
    whole = quantised_likelihoods(quantised, PPI, SIDES, mat, [WATER], noise=0.1)
    shared: dict = {}
    first = quantised_likelihoods(quantised, PPI, SIDES, mat, [WATER], noise=0.1, shared=shared)
    assert "local" in shared and shared["zones"]          # the blue side is judged against the water
    bluer = [RED, _mix(BLUE, (0, 0, 255), 0.8)]
    again = quantised_likelihoods(quantised, PPI, bluer, mat, [WATER], noise=0.1, sides={1}, shared=shared)
    fresh = quantised_likelihoods(quantised, PPI, bluer, mat, [WATER], noise=0.1)
    np.testing.assert_array_equal(first, whole)
    np.testing.assert_array_equal(again[1], fresh[1])
    assert not again[0].any() and fresh[0].any()            # the side not asked for is left at 0


def _likelihoods_faded(view_rgb_rows):
    """The sides' likelihoods of an RGB view (uint8 BGR built from it) before and after
    fade_past_blends, and the mat's brightness it was judged with."""
    from vision.rim_search import fade_past_blends, mat_brightness, quantised_likelihoods
    from vision.rims import quantise_view
    view = np.ascontiguousarray(np.asarray(view_rgb_rows, np.uint8)[..., ::-1])
    quantised = quantise_view(view)
    mat = quantised[4][0][np.argmax(quantised[2][quantised[1]])]     # the commonest colour's chromaticity
    before = quantised_likelihoods(quantised, PPI, SIDES, mat)
    after = before.copy()
    bright = mat_brightness(quantised)
    fade_past_blends(after, quantised, PPI, SIDES, bright)
    return before, after, bright


def _patch(img, x_in, y_in, w_in, h_in, rgb):
    img[int(y_in * PPI):int((y_in + h_in) * PPI), int(x_in * PPI):int((x_in + w_in) * PPI)] = rgb


def test_a_colour_brighter_than_any_blend_of_the_paint_and_the_mat_is_no_rim():
    """A blend of a rim's paint with the mat is no brighter than the brighter of the two: a lit skin
    leaning towards red, well above both, is faded out; the paint blended with the mat keeps all
    its likelihood."""
    img = np.empty((int(6 * PPI), int(12 * PPI), 3), np.uint8)
    img[:] = MAT                                               # B + G + R 464
    skin = (255, 200, 160)                                     # 615: past 1.25 x 464
    _patch(img, 2, 2.5, 1, 1, skin)
    _patch(img, 6, 2.5, 1, 0.2, _mix(RED, MAT, 0.6))
    before, after, bright = _likelihoods_faded(img)
    assert bright == pytest.approx(sum(MAT), abs=8)
    at_skin = (slice(int(2.7 * PPI), int(3.3 * PPI)), slice(int(2.2 * PPI), int(2.8 * PPI)))
    at_rim = (slice(int(2.55 * PPI), int(2.65 * PPI)), slice(int(6.1 * PPI), int(6.9 * PPI)))
    assert before[0][at_skin].min() > 0.05 and not after[0][at_skin].any()
    assert before[0][at_rim].min() > 0.3
    np.testing.assert_array_equal(after[0][at_rim], before[0][at_rim])


def test_paint_under_a_lamp_is_lit_as_the_ground_round_it():
    """On a dark cloth the paint is brighter than the cloth. Under a lamp's hot spot (the cloth 1.6
    times as bright round it) the rim is lit as much: it keeps its likelihood there, and the same
    lit red in the lamp's shade, brighter than any blend of the paint and the cloth, does not."""
    cloth = (40, 50, 90)
    img = np.empty((int(6 * PPI), int(14 * PPI), 3), np.uint8)
    img[:] = cloth
    _patch(img, 8.5, 1, 4.5, 4, tuple(int(1.6 * c) for c in cloth))   # the lamp's spot (a fifth of the table)
    rim = _mix(RED, cloth, 0.9)                                       # the paint a little blended: B + G + R 270
    lit_red = tuple(int(1.37 * c) for c in rim)                       # (252, 56, 61)
    _patch(img, 2, 2.5, 1, 0.2, rim)
    _patch(img, 4.5, 2.5, 1, 0.2, lit_red)
    _patch(img, 10.2, 2.9, 1, 0.2, lit_red)
    before, after, _bright = _likelihoods_faded(img)

    def at(x_in, y_in=2.5):
        return (slice(int((y_in + 0.05) * PPI), int((y_in + 0.15) * PPI)),
                slice(int((x_in + 0.1) * PPI), int((x_in + 0.9) * PPI)))

    for where in (at(2), at(4.5), at(10.2, 2.9)):
        assert before[0][where].min() > 0.3
    np.testing.assert_array_equal(after[0][at(2)], before[0][at(2)])                    # the paint in the shade
    np.testing.assert_array_equal(after[0][at(10.2, 2.9)], before[0][at(10.2, 2.9)])    # lit paint under the lamp
    assert not after[0][at(4.5)].any()                                                 # lit red where no lamp is


def test_the_mats_brightness_is_the_tables_not_a_page_lying_on_it():
    """The mat covers most of a table: its brightness (the 0.75 quantile of the table's) is the
    mat's, whatever a fifth of the view shows. find_rims keeps it from the whole table (MatFlood),
    for a window round one base may be mostly that base."""
    from vision.rim_search import mat_brightness
    from vision.rims import mat_flood, quantise_view
    img = np.empty((int(6 * PPI), int(10 * PPI), 3), np.uint8)
    img[:] = MAT[::-1]
    _patch(img, 0, 0, 2, 6, (240, 240, 240))                     # a white page: B + G + R 720
    quantised = quantise_view(img)
    assert mat_brightness(quantised) == pytest.approx(sum(MAT), abs=8)
    flood = mat_flood(quantised, SIDES, [], rgb_chroma(MAT))
    assert flood.brightness == mat_brightness(quantised)
    page = quantise_view(np.ascontiguousarray(img[:, : int(2.5 * PPI)]))   # a window mostly the page
    assert mat_brightness(page) == pytest.approx(720, abs=8)
