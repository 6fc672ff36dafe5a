"""A photo that cannot be measured is a hint: plain words, the corner markers to draw, the picture kept."""
from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from assistant.demo import DEMO_PHOTO, DEMO_TABLE
from tests.assistant.web.test_photo import _upload

NEVER = re.compile(r"DICT_|UNPROCESSABLE|\b4\d\d\b|aruco|anchor", re.I)


def _jpg(frame) -> bytes:
    return cv2.imencode(".jpg", frame)[1].tobytes()


@pytest.fixture(scope="module")
def demo_frame():
    return cv2.imread(str(DEMO_PHOTO))


def _anchor_px(client, anchor_xy):
    """Where a table point lies in the full demo photo (the registration of the last good picture)."""
    frame, registration, _ = client.application.extensions["tablesight"]["table"].registered_frame()
    return registration.to_image(np.array([anchor_xy], np.float64))[0]


def _words(hint) -> str:
    return " ".join([hint["title"], *hint["lines"]])


def test_a_covered_corner_marker_is_named_by_its_corner(client, pin, demo_frame):
    x, y = _anchor_px(client, (1.25, 1.25))                 # anchor 0: the top-left corner
    covered = demo_frame.copy()
    cv2.circle(covered, (int(x), int(y)), 45, (90, 120, 90), -1)     # a hand, a mug: something on it
    res = _upload(client, _jpg(covered), pin)
    assert res.status_code == 200                            # three markers are enough to measure
    hint = res.get_json()["hint"]
    assert hint["failed"] is False
    assert hint["title"] == "I can't see the top-left corner marker: is something on it?"
    assert {a["id"]: a["state"] for a in hint["anchors"]} == {0: "hidden", 1: "seen", 2: "seen", 3: "seen"}
    assert hint["anchors"][0]["place"] == "top-left"
    assert not NEVER.search(_words(hint))
    # A good photo clears it.
    assert _upload(client, _jpg(demo_frame), pin).get_json()["hint"] is None
    assert client.get("/api/scene").get_json()["hint"] is None


def test_a_photo_that_cuts_the_table_off_says_so(client, pin, demo_frame):
    x, _ = _anchor_px(client, (46.75 - 8, 1.25))            # cut the photo 8 in short of the right side
    res = _upload(client, _jpg(np.ascontiguousarray(demo_frame[:, :int(x)])), pin)
    hint = res.get_json()["hint"]
    assert res.status_code == 200 and hint["reasons"][0]["kind"] == "cut_off"
    assert hint["title"].startswith("The table is cut off: the top-right and bottom-right corners are outside "
                                    "the photo.")
    assert {a["id"]: a["state"] for a in hint["anchors"]} == {0: "seen", 1: "outside", 2: "outside", 3: "seen"}


@pytest.mark.parametrize("spoil, kind, title", [
    (lambda f: (f * 0.08).astype(np.uint8), "dark", "The photo is too dark"),
    (lambda f: cv2.GaussianBlur(f, (0, 0), 9), "blurred", "The photo is too blurry"),
    # A shake smears one direction only: the pipeline refuses it as blurred, and the hint says so too
    # (never "I can't see the corner markers" for a photo refused as blurred).
    (lambda f: cv2.filter2D(f, -1, np.full((1, 9), 1 / 9, np.float32)), "blurred", "The photo is too blurry"),
    (lambda f: np.full_like(f, 128), "not_seen", "I can't see any of the corner markers"),
])
def test_a_photo_that_cannot_be_measured_keeps_the_last_good_one(client, pin, demo_frame, spoil, kind, title):
    small = cv2.resize(demo_frame, (960, 540), interpolation=cv2.INTER_AREA)
    before = client.get("/api/scene").get_json()
    res = _upload(client, _jpg(spoil(small)), pin)
    assert res.status_code == 422
    out = res.get_json()
    hint = out["hint"]
    assert hint["failed"] is True and hint["reasons"][0]["kind"] == kind and hint["title"].startswith(title)
    assert out["error"] == hint["title"] and not NEVER.search(_words(hint))
    assert "last good picture are kept" in hint["lines"][-1]
    assert [a["id"] for a in hint["anchors"]] == [0, 1, 2, 3]
    after = client.get("/api/scene").get_json()
    assert after["hint"] == hint and after["scene"]["figures"] == before["scene"]["figures"]
    assert after["picture"]["H_in_to_px"] == before["picture"]["H_in_to_px"]


def test_a_dim_photo_the_pipeline_measures_gets_no_dark_hint(client, pin, demo_frame):
    dim = (cv2.resize(demo_frame, (960, 540), interpolation=cv2.INTER_AREA) * 0.25).astype(np.uint8)
    res = _upload(client, _jpg(dim), pin)
    assert res.status_code == 200 and res.get_json()["hint"] is None


def test_a_moved_marker_is_asked_back_into_place():
    from calibration.profile import load_profile
    from vision.photo_check import PhotoQuality
    from assistant.web.hints import photo_hint
    profile = load_profile(DEMO_TABLE)
    fine = PhotoQuality(median=100.0, edge_px=2.0, problem=None)
    hint = photo_hint(profile, fine, {0: "seen", 1: "moved", 2: "seen", 3: "seen"}, failed=False)
    assert hint["title"] == "The top-right corner marker has moved: put it back in its place."
    assert hint["anchors"][1]["state"] == "moved"


def test_a_live_frame_that_cannot_be_registered_keeps_the_picture_with_a_hint(client, demo_frame):
    t = client.application.extensions["tablesight"]["table"]
    before = client.get("/api/frame.jpg").data
    dark = (cv2.resize(demo_frame, (960, 540)) * 0.08).astype(np.uint8)
    t.publish(dark, None, source="live", problem="camera bumped", hint=t.failed_hint(dark))
    scene = client.get("/api/scene").get_json()
    assert scene["hint"]["reasons"][0]["kind"] == "dark" and scene["picture"]["H_in_to_px"] is not None
    assert client.get("/api/frame.jpg").data == before
