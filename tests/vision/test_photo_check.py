"""The photo checks behind a bad-picture hint: too dark and too blurred as the pipeline judges them, and
where a missing anchor should be."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.profile import load_profile
from vision import quality
from vision.photo_check import anchor_places, photo_quality
from vision.pipeline import FramePipeline, analyze_image
from vision.quality import PhotoQualityError

from assistant.demo import DEMO_PHOTO, DEMO_TABLE


@pytest.fixture(scope="module")
def demo():
    frame = cv2.imread(str(DEMO_PHOTO))
    profile = load_profile(DEMO_TABLE)
    return frame, profile, analyze_image(frame, profile).registration


def _shaken(image, length_px):
    kernel = np.zeros((length_px, length_px), np.float32)
    kernel[length_px // 2, :] = 1.0 / length_px
    return cv2.filter2D(image, -1, kernel)


def _pipeline_verdict(frame, profile) -> str | None:
    try:
        FramePipeline(profile).process(frame)
    except PhotoQualityError as refused:
        return refused.problem
    except ValueError:
        return None                 # refused for another reason (no anchors): not a quality verdict
    return None


@pytest.mark.parametrize("spoil, problem", [
    (lambda f: f, None),
    (lambda f: (f * 0.1).astype(np.uint8), "dark"),
    (lambda f: (f * 0.25).astype(np.uint8), None),         # dim, but the markers keep their contrast
    (lambda f: cv2.GaussianBlur(f, (0, 0), 4), "blurred"),
    (lambda f: _shaken(f, 9), "blurred"),                   # sharp across the shake, smeared along it
])
def test_the_hint_check_is_the_pipelines_own_verdict(demo, spoil, problem):
    """One source of truth: what the hints call too dark or too blurred is what the pipeline refuses."""
    frame = spoil(cv2.resize(demo[0], (960, 540), interpolation=cv2.INTER_AREA))
    q = photo_quality(frame)
    assert q.problem == problem == _pipeline_verdict(frame, demo[1])
    assert (q.too_dark, q.too_blurred) == (problem == "dark", problem == "blurred")
    assert q.problem == quality.photo_quality(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)).problem


def test_a_refusal_is_taken_as_the_pipeline_gave_it(demo):
    sharp = cv2.resize(demo[0], (960, 540), interpolation=cv2.INTER_AREA)
    assert photo_quality(sharp, PhotoQualityError("blurred")).too_blurred
    assert photo_quality(sharp, ValueError("no anchors")).problem is None


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
