"""A photo with a hand over figures: the tablet reports them hidden where the last photo had them,
never removed, and says so in plain words."""
from __future__ import annotations

import io

import cv2
import pytest

from assistant.web.table import TableState
from vision.synthetic.hard import hard_photo

from tests.assistant.web.conftest import PIN


@pytest.fixture(scope="module")
def hand_photo():
    photo = hard_photo(0, 9, force={"hand": "yes"})      # a hand over two marker figures on a grass mat
    assert photo.hidden_ids
    return photo


def _upload(client, image):
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert len(buf) < 400_000          # kept in memory by the form parser (a bigger upload spools to a file)
    res = client.post("/api/photo", data={"photo": (io.BytesIO(buf.tobytes()), "t.jpg")},
                      headers={"X-Table-PIN": PIN}, content_type="multipart/form-data")
    assert res.status_code == 200, res.get_json()
    return res.get_json()


def test_figures_under_a_hand_stay_hidden_and_the_tablet_says_so(app, hand_photo):
    app.extensions["tablesight"]["table"] = TableState(hand_photo.profile)
    client = app.test_client()
    before = _upload(client, hand_photo.before())
    assert before["hidden_under_hand"] == []          # nothing before it to hide
    ids_before = {f["id"] for f in before["scene"]["figures"]}
    truth = {f.id: f for f in hand_photo.truth.figures}
    # The figures the hand will cover, as the first photo found them (the same base nearby).
    covered = {}
    for fid in hand_photo.hidden_ids:
        t = truth[fid]
        near = [f for f in before["scene"]["figures"] if (t.x - f["x"]) ** 2 + (t.y - f["y"]) ** 2 < 0.25]
        if near:
            covered[near[0]["id"]] = near[0]
    assert covered, "the first photo shows a figure the hand will cover"
    out = _upload(client, hand_photo.image)
    for fid, was in covered.items():
        assert fid in out["hidden_under_hand"]
        fig = next(f for f in out["scene"]["figures"] if f["id"] == fid)
        assert fig["hidden"] is True and (fig["x"], fig["y"]) == (was["x"], was["y"])
    assert "A hand is covering" in out["hand_words"] and "not taken off the table" in out["hand_words"]
    assert out["scene"]["hands"] and len(out["scene"]["hands"][0]["polygon"]) >= 3
    # No marker figure the first photo found is missing from the second: hidden, not removed.
    markers_before = {i for i in ids_before if i.startswith("m")}
    assert markers_before <= {f["id"] for f in out["scene"]["figures"]}
