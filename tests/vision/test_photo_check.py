"""The photo checks behind a bad-picture hint: too dark, too blurred, and where a missing anchor should be."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.profile import load_profile
from vision.photo_check import BLURRED_LAPLACIAN_VAR, DARK_MEAN, anchor_places, photo_quality
from vision.pipeline import analyze_image

from assistant.demo import DEMO_PHOTO, DEMO_TABLE


@pytest.fixture(scope="module")
def demo():
    frame = cv2.imread(str(DEMO_PHOTO))
    profile = load_profile(DEMO_TABLE)
    return frame, profile, analyze_image(frame, profile).registration


def _checker(shape=(480, 640), cell=16, low=40, high=200):
    ys, xs = np.indices(shape)
    return np.where(((xs // cell) + (ys // cell)) % 2 == 0, low, high).astype(np.uint8)


def test_a_sharp_bright_photo_passes(demo):
    q = photo_quality(demo[0])
    assert not q.too_dark and not q.too_blurred
    assert q.brightness > DARK_MEAN and q.sharpness > BLURRED_LAPLACIAN_VAR


@pytest.mark.parametrize("gain, dark", [(1.0, False), (0.5, False), (0.25, True)])
def test_too_dark_is_the_mean_grey(gain, dark):
    gray = (_checker() * gain).astype(np.uint8)
    assert photo_quality(gray).too_dark is dark


@pytest.mark.parametrize("sigma, blurred", [(0, False), (1.0, False), (8.0, True)])
def test_too_blurred_is_a_weak_laplacian(sigma, blurred):
    gray = _checker(cell=64)          # big squares: blurring leaves the contrast, takes the edges
    if sigma:
        gray = cv2.GaussianBlur(gray, (0, 0), sigma)
    assert photo_quality(cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)).too_blurred is blurred


def test_a_flat_photo_is_neither_blurred_nor_dark():
    q = photo_quality(np.full((120, 160, 3), 128, np.uint8))
    assert not q.too_blurred and not q.too_dark


def test_the_size_of_the_photo_does_not_change_the_verdict(demo):
    small = cv2.resize(demo[0], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    a, b = photo_quality(demo[0]), photo_quality(small)
    assert abs(a.sharpness - b.sharpness) / a.sharpness < 0.35 and abs(a.brightness - b.brightness) < 1


def test_anchor_places_seen_hidden_outside(demo):
    frame, profile, reg = demo
    h, w = frame.shape[:2]
    assert anchor_places(profile, reg, (w, h)) == {0: "seen", 1: "seen", 2: "seen", 3: "seen"}
    from dataclasses import replace
    partial = replace(reg, anchors_seen=(1, 2, 3))
    assert anchor_places(profile, partial, (w, h))[0] == "hidden"
    # The same registration on a photo cut to its left half: the right-hand anchors are off it.
    right_x = reg.to_image(np.array([[profile.width_in - 1.25, 1.25]]))[0, 0]
    cut_w = int(right_x) - 60
    places = anchor_places(profile, replace(reg, anchors_seen=(0, 3)), (cut_w, h))
    assert places == {0: "seen", 1: "outside", 2: "outside", 3: "seen"}
    assert anchor_places(profile, replace(reg, anchors_seen=(0, 1, 3), anchors_rejected=(2,)), (w, h))[2] == "moved"
    assert anchor_places(profile, None, (w, h), seen=[2]) == {0: "unknown", 1: "unknown", 2: "seen", 3: "unknown"}
