"""A photo too dark or too blurred to measure says which, in plain words, on one line (exit 2)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from assistant.cli import main
from calibration.registration import RegistrationError
from vision.pipeline import FramePipeline
from vision.quality import MESSAGES, PhotoQualityError, photo_quality
from vision.synthetic import profile_for, random_photo, random_table, render_photo
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
