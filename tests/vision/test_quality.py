"""A photo too dark or too blurred to measure says which, in plain words, on one line (exit 2); one
too coarse for colour bases is measured, and the Scene and the command line say so."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.cli import main
from dataclasses import replace

from calibration.profile import ColourSpec
from calibration.registration import Registration, RegistrationError
from vision.pipeline import FramePipeline
from vision.quality import (MESSAGES, PhotoQualityError, colour_like_felt_words, colour_like_table_words,
                            colour_resolution, colour_resolution_words, light_tint, light_tint_words, photo_quality)
from vision.settings import VISION_DEFAULTS
from vision.synthetic import camera_over_table, profile_for, random_photo, random_table, render_photo
from vision.synthetic.export import profile_toml


@pytest.fixture(scope="module")
def photo_and_profile():
    rng = np.random.default_rng(17)
    table = random_table(rng, width_in=36.0, depth_in=24.0, n_markers=6)
    photo = render_photo(table, random_photo(rng, image_size=(1280, 720), tilt_deg=15.0), rng)
    return photo, profile_for(table)


def _dark(image, gain):
    return np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def _blurred(image, sigma_px):
    return cv2.GaussianBlur(image, (0, 0), sigma_px)


def _shaken(image, length_px):
    kernel = np.zeros((length_px, length_px), np.float32)
    kernel[length_px // 2, :] = 1.0 / length_px
    return cv2.filter2D(image, -1, kernel)


@pytest.mark.parametrize("spoil, problem", [
    (lambda im: _dark(im, 0.06), "dark"),
    (lambda im: _dark(im, 0.1), "dark"),
    (lambda im: _blurred(im, 4.0), "blurred"),
    (lambda im: _blurred(im, 8.0), "blurred"),
    (lambda im: _shaken(im, 15), "blurred"),
])
def test_a_photo_too_dark_or_too_blurred_says_which(photo_and_profile, spoil, problem):
    photo, profile = photo_and_profile
    with pytest.raises(PhotoQualityError) as caught:
        FramePipeline(profile).process(spoil(photo.image))
    assert caught.value.problem == problem
    assert str(caught.value) == MESSAGES[problem] and "\n" not in str(caught.value)
    assert caught.value.as_json() == {"problem": problem, "message": MESSAGES[problem]}
    assert isinstance(caught.value, RegistrationError)      # the web and live layers' bad-photo path


@pytest.mark.parametrize("spoil", [
    lambda im: im,
    lambda im: _dark(im, 0.35),           # dim, but the markers still have contrast
    lambda im: _blurred(im, 1.0),         # a little soft
    lambda im: _shaken(im, 3),            # light motion blur
])
def test_a_dim_or_slightly_soft_photo_is_still_measured(photo_and_profile, spoil):
    photo, profile = photo_and_profile
    image = spoil(photo.image)
    assert photo_quality(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)).problem is None
    assert FramePipeline(profile).process(image).scene.figures


@pytest.mark.parametrize("spoil, words", [
    (lambda im: _dark(im, 0.06), "too dark"),
    (lambda im: _blurred(im, 6.0), "too blurred"),
])
def test_the_command_line_says_it_on_one_line_and_exits_2(tmp_path, capsys, photo_and_profile, spoil, words):
    photo, profile = photo_and_profile
    table = tmp_path / "table.toml"
    table.write_text(profile_toml(profile))
    path = tmp_path / "photo.png"
    cv2.imwrite(str(path), spoil(photo.image))
    assert main(["analyze", str(path), "--table", str(table)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("seed", range(4))
def test_the_histogram_percentiles_are_numpys(seed):
    from vision.quality import _histogram_percentiles
    rng = np.random.default_rng(seed)
    values = np.clip(rng.normal(rng.uniform(20, 230), rng.uniform(1, 60), size=(37, 53)), 0, 255).astype(np.uint8)
    assert _histogram_percentiles(values, (1, 50, 99)) == pytest.approx(tuple(np.percentile(values, (1, 50, 99))))


@pytest.mark.parametrize("seed", range(3))
def test_a_frame_at_twice_the_working_size_is_halved_to_the_area_averages_pixels(seed):
    from vision.quality import _working_size
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(2, 200, 2))
    gray = rng.integers(0, 256, (2 * h, 2 * w), dtype=np.uint8)      # every rounding of a block's mean
    halved = _working_size(gray, (w, h))
    assert halved.shape == (h, w)
    assert np.array_equal(halved, cv2.resize(gray, (w, h), interpolation=cv2.INTER_AREA))
    block_sum = gray.reshape(h, 2, w, 2).astype(np.int32).sum(axis=(1, 3))
    assert np.all(np.abs(halved.astype(np.int32) * 4 - block_sum) <= 2)


def test_whole_number_and_float_frames_measure_the_same(photo_and_profile):
    photo, _ = photo_and_profile
    gray = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    a, b = photo_quality(gray), photo_quality(gray.astype(np.float32))
    assert (a.median, a.bright, a.contrast) == (b.median, b.bright, b.contrast)
    assert a.edge_px == pytest.approx(b.edge_px, rel=0.01)


@pytest.mark.parametrize("seed", range(6))
def test_the_steepest_slopes_are_the_order_statistics_a_full_sort_gives(seed):
    from vision.quality import _lerp, _top_percentile
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2000, 40000))
    if seed % 2:            # sharp edges in few places: rarer in the sample than in the whole
        slopes = np.zeros(n, np.int16)
        slopes[rng.integers(0, n, int(rng.integers(5, 120)))] = rng.integers(100, 2040, 1)
    else:
        slopes = np.abs(rng.normal(0, rng.uniform(5, 200), n)).astype(np.int16)
    ordered = np.sort(slopes)
    virtual = (n - 1) * 0.9995
    lo = int(np.floor(virtual))
    assert _top_percentile(slopes, 99.95) == float(_lerp(ordered[lo], ordered[min(lo + 1, n - 1)], virtual - lo))


# Too coarse for colour bases: measured, and told so.

def _registration(in_to_px: np.ndarray, size=(1920, 1080)) -> Registration:
    return Registration(np.linalg.inv(in_to_px), "anchors-ransac", (0, 1, 2, 3), (), 0.1, size)


@pytest.mark.parametrize("ppi, coarse", [(30.0, False), (24.0, False), (23.9, True), (15.0, True)])
def test_a_table_shown_evenly_is_too_coarse_for_colour_bases_below_the_house_default(ppi, coarse):
    info = colour_resolution(_registration(np.diag([ppi, ppi, 1.0])), (48.0, 36.0))
    assert (info is not None) == coarse
    if coarse:
        assert info == {"px_per_in_least": round(ppi, 1), "px_per_in_most": round(ppi, 1), "share_below": 1.0,
                        "least_px_per_in": VISION_DEFAULTS["colour_least_px_per_in"]}
        words = colour_resolution_words(info)
        assert f"at {ppi:.0f} pixels an inch:" in words and "below about 24" in words
        assert "closer" in words and "full picture size" in words
        assert "a band at least 3 mm (1/8 in) wide" in words      # a thin line's colour is lost first


def test_a_tilted_camera_is_too_coarse_on_the_far_part_of_the_table_only():
    camera = camera_over_table(48, 36, (1920, 1080), tilt_deg=35.0, azimuth_deg=90.0)
    registration = _registration(camera.plane_homography(0.0))
    info = colour_resolution(registration, (48.0, 36.0))
    # the shorter of an inch's steps along x and y, read point by point over the same grid
    u = (np.arange(9) + 0.5) / 9
    px = camera.project(np.array([[x + dx, y + dy, 0.0] for x in u * 48 for y in u * 36
                                  for dx, dy in ((0, 0), (1, 0), (0, 1))])).reshape(-1, 3, 2)
    scales = np.minimum(np.linalg.norm(px[:, 1] - px[:, 0], axis=1), np.linalg.norm(px[:, 2] - px[:, 0], axis=1))
    assert info["px_per_in_least"] == round(float(scales.min()), 1)
    assert info["px_per_in_most"] == round(float(scales.max()), 1)
    assert info["share_below"] == round(float((scales < 24).mean()), 2)
    assert 0 < info["share_below"] < 1 and info["px_per_in_least"] < 24 < info["px_per_in_most"]
    words = colour_resolution_words(info)
    assert f"at {info['px_per_in_least']:.0f} pixels an inch on part of it:" in words
    assert colour_resolution_words(None) is None


@pytest.mark.parametrize("table_in, long_along_short, gain", [
    # a 58 x 40 in table at 18 px/in, its long side along a 1920 x 1080 picture's 1080 pixels: turned,
    # it would fill min(1920/1044, 1080/720) / min(1920/720, 1080/1044) = 1.5 / 1.0345 of it
    ((58.0, 40.0), True, 1.45),
    ((58.0, 40.0), False, None),       # already along the long side: turning shows it smaller
    ((40.0, 40.0), True, None),        # a square table gains nothing from a quarter turn
])
def test_a_coarse_photo_is_told_to_turn_the_camera_where_the_table_would_fill_more_of_it(table_in, long_along_short,
                                                                                        gain):
    """Colour bases want about 24 px/in; a 5' table's long side along a 1080p picture's short side
    shows it at under 20. Turned a quarter turn, the table's long side along the picture's long
    side, it can fill more of the picture: the reply says so, and how fine it would show."""
    ppi = 18.0
    in_to_px = np.array([[0.0, ppi, 10.0], [ppi, 0.0, 5.0], [0.0, 0.0, 1.0]]) if long_along_short else np.diag([ppi, ppi, 1.0])
    registration = _registration(in_to_px)
    info = colour_resolution(registration, table_in)
    assert info["px_per_in_least"] == ppi
    words = colour_resolution_words(info)
    if gain is None:
        assert "turn_gain" not in info and "quarter turn" not in words
    else:
        assert info["turn_gain"] == pytest.approx(gain, abs=0.005)
        assert info["turn_gain"] >= VISION_DEFAULTS["colour_turn_gain"]
        assert "a quarter turn, so that the table's long side runs along the picture's long side" in words
        assert f"about {ppi * gain:.0f} pixels an inch" in words


def test_the_quarter_turn_gain_is_the_picture_over_the_tables_extent_with_its_axes_swapped():
    """A tilted camera's picture of the table is a trapezoid: its extent along the picture's two axes,
    swapped, against the picture's sides."""
    from vision.quality import quarter_turn_gain
    for azimuth, tilt in ((0.0, 0.0), (90.0, 25.0), (30.0, 35.0)):
        camera = camera_over_table(58, 40, (1920, 1080), tilt_deg=tilt, azimuth_deg=azimuth)
        registration = _registration(camera.plane_homography(0.0))
        corners = camera.project(np.array([[0, 0, 0], [58, 0, 0], [58, 40, 0], [0, 40, 0]], float))
        across, down = np.ptp(corners, axis=0)
        expected = min(1920 / down, 1080 / across) / min(1920 / across, 1080 / down)
        assert quarter_turn_gain(registration, (58.0, 40.0)) == pytest.approx(expected, rel=1e-6)


def test_a_hard_photo_of_a_long_table_along_the_pictures_short_side_is_told_to_turn_the_camera():
    """Hard photo 38 of seed 0: a 1080p picture whose 1080 pixels hold the table's long side (11-17
    px/in). Its Scene says how much more of the picture the table would fill turned a quarter turn,
    as the truth's camera gives it; the words say to turn it."""
    from vision.quality import quarter_turn_gain
    from vision.synthetic.hard import hard_photo

    photo = hard_photo(0, 38)
    assert photo.conditions.long_side_on_short_axis and photo.conditions.resolution == "1080p"
    table_in = (photo.profile.width_in, photo.profile.depth_in)
    truth = quarter_turn_gain(_registration(photo.camera.plane_homography(0.0)), table_in)
    info = FramePipeline(photo.profile).process(photo.image).scene.extra["colour_resolution"]
    assert info["turn_gain"] == pytest.approx(truth, abs=0.02) and truth > 1.3
    assert "quarter turn" in colour_resolution_words(info)


@given(st.floats(24.0, 72.0), st.floats(18.0, 60.0), st.floats(4.0, 40.0), st.sampled_from([(1920, 1080), (1080, 1920),
                                                                                       (1280, 720), (4032, 3024)]))
def test_turning_the_camera_back_undoes_the_gain(width_in, depth_in, ppi, image_size):
    """A camera straight down, the table either way round in the picture: what one way gains turned,
    the other way loses (the two gains multiply to 1), and a table as long as it is wide gains nothing."""
    from vision.quality import quarter_turn_gain
    along = _registration(np.diag([ppi, ppi, 1.0]), image_size)
    across = _registration(np.array([[0.0, ppi, 0.0], [ppi, 0.0, 0.0], [0.0, 0.0, 1.0]]), image_size)
    gain = quarter_turn_gain(along, (width_in, depth_in))
    assert gain * quarter_turn_gain(across, (width_in, depth_in)) == pytest.approx(1.0)
    assert quarter_turn_gain(along, (width_in, width_in)) == pytest.approx(1.0)
    # a table wider than deep, along the picture's longer side, gains nothing by turning
    if width_in > 1.05 * depth_in:
        assert (gain <= 1.0) == (image_size[0] >= image_size[1])


def test_the_scene_says_so_only_for_a_table_with_colour_sides(photo_and_profile):
    photo, profile = photo_and_profile            # 1280 x 720 of a 36 x 24 in table: 14-17 px/in
    sides = replace(profile, sides=(ColourSpec("red", (200, 40, 40)), ColourSpec("blue", (40, 80, 200))))
    fine = cv2.resize(photo.image, (2560, 1440), interpolation=cv2.INTER_CUBIC)     # twice that
    for image in (photo.image, fine):
        assert "colour_resolution" not in FramePipeline(profile).process(image).scene.extra
    assert "colour_resolution" not in FramePipeline(sides).process(fine).scene.extra
    info = FramePipeline(sides).process(photo.image).scene.extra["colour_resolution"]
    assert 12 < info["px_per_in_least"] < info["px_per_in_most"] < 24 and info["share_below"] == 1.0


def test_the_command_line_measures_a_coarse_photo_and_notes_it(tmp_path, capsys, photo_and_profile):
    photo, profile = photo_and_profile
    sides = replace(profile, sides=(ColourSpec("red", (200, 40, 40)), ColourSpec("blue", (40, 80, 200))))
    table = tmp_path / "table.toml"
    table.write_text(profile_toml(sides))
    path = tmp_path / "photo.png"
    cv2.imwrite(str(path), photo.image)
    assert main(["analyze", str(path), "--table", str(table)]) == 0
    out = capsys.readouterr().out
    assert "  note: The photo shows the table at 1" in out and "colour bases are missed more often" in out
    assert main(["analyze", str(path), "--table", str(table), "--json"]) == 0
    scene = json.loads(capsys.readouterr().out)
    assert scene["colour_resolution"]["share_below"] == 1.0 and scene["figures"]


@pytest.mark.parametrize("sides, said", [(None, None), ([], None),
                                         (["red"], "much like the red bases' colour, so some red figures"),
                                         (["red", "blue"], "much like the red and blue bases' colour")])
def test_a_sides_colour_the_table_shows_is_said_in_plain_words(sides, said):
    words = colour_like_table_words(sides)
    assert (words is None) == (said is None)
    if said:
        assert said in words and "cloth or mat of another colour" in words


@pytest.mark.parametrize("like, said", [
    (None, None), ({}, None),
    ({"blue": ["water"]}, "Blue figures standing in or beside the water may be missed: their rims look much like "
                          "its colour."),
    ({"red": ["lava", "hill"]}, "Red figures standing in or beside the lava or the hill may be missed: their rims "
                                "look much like that colour."),
])
def test_felt_of_a_sides_colour_is_said_in_plain_words(like, said):
    words = colour_like_felt_words(like)
    assert (words is None) == (said is None)
    if said:
        assert words.startswith(said) and "A marker on those figures" in words


RED_BLUE = (ColourSpec("red", (200, 40, 40)), ColourSpec("blue", (40, 80, 200)))
LEAST_SHARE = VISION_DEFAULTS["tinted_light_channel_share"]


def _white(share_of_strongest: float, strongest: str = "red") -> tuple[float, float, float]:
    """A white card (BGR) over a black of 10 whose weakest channel is `share_of_strongest` of its
    strongest: blue weakest under a warm bulb (red strongest), red weakest under a cool light."""
    top, low = 255.0, 10.0 + share_of_strongest * 245.0
    return (low, 200.0, top) if strongest == "red" else (top, 200.0, low)


@pytest.mark.parametrize("white, sides, expected", [
    # a household bulb: the card's blue 0.45 of its red; the blue side is painted in that channel
    (_white(0.45), RED_BLUE, {"weakest": "blue", "faint_sides": ["blue"]}),
    # daylight: every channel of the card within a tenth of the others
    ((230.0, 240.0, 250.0), RED_BLUE, None),
    # at the house default exactly: not tinted enough to say
    (_white(LEAST_SHARE), RED_BLUE, None),
    (_white(LEAST_SHARE - 0.02), RED_BLUE, {"weakest": "blue", "faint_sides": ["blue"]}),
    # warm light over sides painted in no blue: nothing to say
    (_white(0.45), (ColourSpec("red", (200, 40, 40)), ColourSpec("green", (40, 180, 60))), None),
    # a cool light starves red instead
    (_white(0.4, strongest="blue"), RED_BLUE, {"weakest": "red", "faint_sides": ["red"]}),
    # no sides, or a card that reads no brighter than its black: nothing to judge
    (_white(0.45), (), None),
    ((10.0, 10.0, 10.0), RED_BLUE, None),
])
def test_a_light_that_starves_a_sides_colour_is_found_on_the_white_card(white, sides, expected):
    tint = light_tint(white, (10.0, 10.0, 10.0), sides)
    if expected is None:
        assert tint is None
    else:
        assert {k: tint[k] for k in expected} == expected
        assert tint["channel_share"] < tint["least_channel_share"] == LEAST_SHARE


@pytest.mark.parametrize("info, said", [
    (None, None),
    ({"weakest": "blue", "channel_share": 0.45, "least_channel_share": 0.55, "faint_sides": ["blue"]},
     "The light is very warm (orange), so the blue bases' colour shows faintly and some may be missed"),
    ({"weakest": "red", "channel_share": 0.4, "least_channel_share": 0.55, "faint_sides": ["red", "crimson"]},
     "The light is very cool (blue), so the red and crimson bases' colour shows faintly"),
])
def test_a_tinted_light_is_said_in_plain_words_with_what_helps(info, said):
    words = light_tint_words(info)
    assert (words is None) == (said is None)
    if said:
        assert words.startswith(said) and "will help" in words
