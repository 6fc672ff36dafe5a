"""POST /api/setup/teach-colour: a player taps one figure of a side on the last picture; its rim
colour is learned, saved beside the table profile and used at once. A write like any other: the
PIN (or a joined session and its CSRF token); bad input is a 4xx with one message."""
from __future__ import annotations

import io

import cv2
import pytest

from assistant.web import create_app
from calibration.profile import learned_colours_path, load_profile

from tests.assistant.teach_scene import BLUE_AT, RED_AT, profile_toml, teach_photo
from tests.assistant.web.conftest import PIN, csrf_of

URL = "/api/setup/teach-colour"
JSON = {"Accept": "application/json"}


@pytest.fixture(scope="module")
def photo_png():
    ok, buf = cv2.imencode(".png", teach_photo())
    return buf.tobytes()


@pytest.fixture
def table_app(tmp_path):
    table = tmp_path / "kitchen.toml"
    table.write_text(profile_toml())
    app = create_app({"TABLE": str(table), "INSTANCE_PATH": str(tmp_path / "instance"), "TABLE_PIN": PIN,
                      "SECRET_KEY": "test-secret"})
    return app, table


def _upload(client, png):
    res = client.post("/api/photo", data={"photo": (io.BytesIO(png), "table.png")}, headers={"X-Table-PIN": PIN},
                      content_type="multipart/form-data")
    assert res.status_code == 200, res.get_json()
    return res.get_json()


def _reds(client):
    scene = client.get("/api/scene").get_json()["scene"]
    return [f for f in scene["figures"] if f["side"] == "red" and f["detected_by"] == "colour"]


def test_tapping_a_red_figure_teaches_red(table_app, photo_png):
    app, table = table_app
    client = app.test_client()
    _upload(client, photo_png)
    assert len(_reds(client)) < len(RED_AT)
    res = client.post(URL, json={"side": "red", "x": 22.1, "y": 7.1}, headers={"X-Table-PIN": PIN, **JSON})
    assert res.status_code == 200, res.get_json()
    body = res.get_json()
    assert body["profile_colour"] == "#c82828" and body["colour"] != "#c82828"
    assert body["figures_of_side"] == len(RED_AT) and body["used"] is True and body["words"] is None
    assert len(_reds(client)) == len(RED_AT)
    # Saved with the table: the next start of the server reads it with the profile.
    assert learned_colours_path(table).exists()
    assert load_profile(table).sides[0].learned_rgb is not None
    colours = client.get("/api/setup/colours").get_json()["sides"]
    assert colours[0] == {"name": "red", "colour": "#c82828", "learned": body["colour"]}



def test_tapping_a_figure_the_camera_already_finds_keeps_its_colour(table_app, photo_png):
    # painted the profile's blue: read back from one figure it would find them no surer
    app, table = table_app
    client = app.test_client()
    _upload(client, photo_png)
    x, y = BLUE_AT[1]
    res = client.post(URL, json={"side": "blue", "x": x, "y": y + 0.1}, headers={"X-Table-PIN": PIN, **JSON})
    assert res.status_code == 200, res.get_json()
    body = res.get_json()
    assert body["used"] is False and "already finds that blue figure" in body["words"]
    assert body["figures_of_side"] == len(BLUE_AT)
    assert not learned_colours_path(table).exists()
    colours = client.get("/api/setup/colours").get_json()["sides"]
    assert colours[1] == {"name": "blue", "colour": "#2850c8", "learned": None}

def test_teaching_needs_the_pin_and_the_page_token(table_app, photo_png):
    app, table = table_app
    client = app.test_client()
    _upload(client, photo_png)
    assert client.post(URL, json={"side": "red", "x": 22, "y": 7}, headers=JSON).status_code == 401
    token = csrf_of(client.get("/join").data)
    assert client.post("/join", data={"pin": PIN, "csrf_token": token, "next": "/setup/"}).status_code == 302
    assert client.post(URL, json={"side": "red", "x": 22, "y": 7}, headers=JSON).status_code == 403
    assert not learned_colours_path(table).exists()
    token = csrf_of(client.get("/setup/").data)
    res = client.post(URL, json={"side": "red", "x": 22, "y": 7}, headers={"X-CSRF-Token": token, **JSON})
    assert res.status_code == 200, res.get_json()


@pytest.mark.parametrize("body, status, words", [
    ({"side": "green", "x": 10, "y": 5}, 400, "no side 'green'"),
    ({"side": "red", "x": 45, "y": 5}, 400, "outside the 30 x 20 in table"),
    ({"side": "red", "x": 4, "y": 17}, 422, "no red"),
    ({"side": "red", "x": "ten", "y": 5}, 400, "x: expected a number"),
    ({"side": "red", "x": True, "y": 5}, 400, "x: expected a number"),
    ({"x": 10, "y": 5}, 400, "side: expected"),
    ([1, 2], 400, "send JSON"),
])
def test_bad_taps_are_one_message_and_nothing_is_saved(table_app, photo_png, body, status, words):
    app, table = table_app
    client = app.test_client()
    _upload(client, photo_png)
    res = client.post(URL, json=body, headers={"X-Table-PIN": PIN, **JSON})
    assert res.status_code == status and words in res.get_json()["error"]
    assert not learned_colours_path(table).exists()


def test_no_picture_yet_is_409(table_app):
    app, _ = table_app
    res = app.test_client().post(URL, json={"side": "red", "x": 22, "y": 7}, headers={"X-Table-PIN": PIN, **JSON})
    assert res.status_code == 409 and "take a photo" in res.get_json()["error"]


def test_setup_page_offers_the_teaching(table_app):
    app, _ = table_app
    client = app.test_client()
    page = client.get("/setup/").data.decode()
    assert 'id="teach-colour"' in page and "teach.js" in page
    res = client.get("/static/teach.js")
    script = res.data.decode()
    res.close()
    assert "/api/setup/teach-colour" in script and "/api/setup/colours" in script
