"""Photo upload: a real photo's figures appear; anything else gets a clear 4xx, never a 500."""
from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np
import pytest

from assistant.demo import DEMO_PHOTO
from assistant.web import create_app
from assistant.web.images import MAX_PIXELS, UploadError, decode_upload, header_size, image_kind


def _png(width: int, height: int, body: bytes | None = None) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))  # noqa: E731
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + (body if body is not None else chunk(b"IEND", b""))


def _upload(client, data: bytes, headers, name="table.jpg", field="photo"):
    # The multipart body is built here (the test client would spool a big one to an unclosed temp file).
    boundary = "tablesight-test-boundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return client.post("/api/photo", data=body, headers=headers,
                       content_type=f"multipart/form-data; boundary={boundary}")


@pytest.fixture
def plain_table_app(tmp_path):
    """The demo table's profile with no photo yet (as at a real table before the first picture)."""
    from assistant.demo import DEMO_TABLE
    return create_app({"TABLE": str(DEMO_TABLE), "INSTANCE_PATH": str(tmp_path), "TABLE_PIN": "2468",
                       "SECRET_KEY": "s"})


def test_uploaded_photo_makes_its_figures_appear(plain_table_app, pin):
    c = plain_table_app.test_client()
    assert c.get("/api/scene").get_json()["scene"] is None
    assert c.get("/api/targets").status_code == 409                  # nothing to measure yet
    assert c.get("/api/frame.jpg").status_code == 404
    res = _upload(c, DEMO_PHOTO.read_bytes(), pin)
    assert res.status_code == 200
    out = res.get_json()
    assert out["figures"] == 12 and out["problem"] is None
    scene = c.get("/api/scene").get_json()
    assert scene["source"] == "photo"
    assert {f["name"] for f in scene["scene"]["figures"]} >= {"Robin", "Merlin", "Grak", "Snag"}
    assert c.get("/api/status").get_json()["calibration"]["anchors_seen"] == [0, 1, 2, 3]


def test_a_png_photo_works_too(plain_table_app, pin):
    ok, png = cv2.imencode(".png", cv2.imread(str(DEMO_PHOTO)))
    res = _upload(plain_table_app.test_client(), png.tobytes(), pin, "table.png")
    assert res.status_code == 200 and res.get_json()["figures"] == 12


def test_photo_without_the_table_is_422_and_the_last_good_picture_stays(client, pin):
    before = client.get("/api/frame.jpg").data
    ok, jpg = cv2.imencode(".jpg", np.full((120, 160, 3), 128, np.uint8))
    res = _upload(client, jpg.tobytes(), pin)
    assert res.status_code == 422
    assert "corner markers" in res.get_json()["problem"]
    st = client.get("/api/status").get_json()
    assert st["source"] == "photo" and "corner markers" in st["calibration"]["problem"]
    # The last good picture and scene stay, so the referee can still measure on it.
    assert client.get("/api/frame.jpg").data == before
    assert client.get("/api/scene").get_json()["picture"]["H_in_to_px"] is not None
    assert client.get("/api/los?a=m10&b=m11").status_code == 200


@pytest.mark.parametrize("data, status, words", [
    (b"", 400, "empty"),
    (b"hello, this is text", 415, "not a photo"),
    (b"%PDF-1.4 not a picture", 415, "not a photo"),
    (_png(100_000, 100_000), 413, "too big"),
    (_png(64, 48, b"garbage after the header"), 400, "damaged"),
    (b"\xff\xd8\xff\xe0" + b"\x00" * 40, 400, "damaged"),
])
def test_bad_uploads_are_4xx(client, pin, data, status, words):
    res = _upload(client, data, pin)
    assert res.status_code == status
    assert words in res.get_json()["error"]


def test_missing_field_is_400(client, pin):
    res = _upload(client, b"x", pin, field="picture")
    assert res.status_code == 400 and "'photo'" in res.get_json()["error"]


def test_upload_over_the_cap_is_413(tmp_path, pin):
    app = create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path), "TABLE_PIN": "2468",
                      "MAX_CONTENT_LENGTH": 50_000})
    res = _upload(app.test_client(), DEMO_PHOTO.read_bytes(), pin)          # 90 kB > 50 kB
    assert res.status_code == 413 and "too big" in res.get_json()["error"]


def test_default_cap_is_25_mb(app):
    assert app.config["MAX_CONTENT_LENGTH"] == 25 * 1024 * 1024


def test_header_sizes_are_read_without_decoding():
    jpg = DEMO_PHOTO.read_bytes()
    assert image_kind(jpg) == "jpeg" and header_size(jpg, "jpeg") == (1920, 1080)
    assert header_size(_png(640, 480), "png") == (640, 480)
    ok, webp = cv2.imencode(".webp", np.zeros((30, 50, 3), np.uint8))
    assert image_kind(webp.tobytes()) == "webp" and header_size(webp.tobytes(), "webp") == (50, 30)


def test_pixel_cap_is_checked_before_decoding():
    side = int(MAX_PIXELS ** 0.5) + 1
    with pytest.raises(UploadError) as err:
        decode_upload(_png(side, side))
    assert err.value.status == 413


def _tiny_jpeg() -> bytes:
    ok, buf = cv2.imencode(".jpg", np.full((24, 32, 3), 90, np.uint8))
    return buf.tobytes()


@pytest.mark.parametrize("padding, words", [
    (b"\xff\xfe\x00\x02" * 6_000_000, "parts before its picture"),      # 24 MB of empty comments
    (b"\xff\xe1\x00\x02" * 1_000, "parts before its picture"),          # a thousand empty APP1s
    (b"\xff" * 1_000_000 + b"\xfe\x00\x02", "fill bytes"),
])
def test_a_jpeg_built_to_make_the_scan_slow_is_refused_at_once(padding, words):
    """A 24 MB JPEG of 6 million empty comment segments took 9.6 s to scan before it was accepted."""
    real = _tiny_jpeg()
    with pytest.raises(UploadError, match=words) as caught:
        decode_upload(real[:2] + padding + real[2:])
    assert caught.value.status == 400


def test_a_jpeg_with_a_few_comments_and_a_big_exif_is_still_read():
    real = _tiny_jpeg()
    exif = b"\xff\xe1" + struct.pack(">H", 60_002) + b"Exif\x00\x00" + bytes(59_994)
    comments = b"\xff\xfe\x00\x05abc" * 20
    assert header_size(real[:2] + exif + comments + real[2:], "jpeg") == (32, 24)
    assert decode_upload(real[:2] + exif + comments + real[2:]).shape == (24, 32, 3)


def test_demo_terrain_is_laid_over_the_demo_photo_only(app):
    """Demo mode laid the demo's known terrain over any uploaded photo where vision found none."""
    from dataclasses import replace
    table = app.extensions["tablesight"]["table"]
    demo = cv2.imread(str(DEMO_PHOTO))
    result = table.pipeline.process(demo)
    bare = replace(result, scene=replace(result.scene, terrain=()))        # vision found no felt
    other = demo.copy()
    other[:40, :40] = (0, 0, 255)                               # another picture of the same table
    table.publish(other, bare, source="photo")
    assert table.snapshot()[1].terrain == ()
    ok, jpeg = cv2.imencode(".jpg", demo)
    table.publish(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), bare, source="photo")
    assert table.snapshot()[1].terrain == ()                    # close to the demo photo is not the demo photo
    table.publish(cv2.imdecode(np.frombuffer(DEMO_PHOTO.read_bytes(), np.uint8), cv2.IMREAD_COLOR), bare,
                  source="photo")
    assert table.snapshot()[1].terrain == table.fallback_terrain != ()      # the demo photo's own file


def test_a_photo_too_coarse_for_colour_bases_is_measured_and_the_reply_says_so(plain_table_app, pin, tmp_path):
    from dataclasses import replace

    from assistant.demo import DEMO_TABLE
    from calibration.profile import ColourSpec, load_profile
    from vision.synthetic.export import profile_toml

    out = _upload(plain_table_app.test_client(), DEMO_PHOTO.read_bytes(), pin).get_json()
    assert out["colour_words"] is None                 # no colour sides: nothing to say
    # The same photo of the same table with colour sides: its far part shows at 22-24 px/in.
    table = tmp_path / "sides.toml"
    table.write_text(profile_toml(replace(load_profile(DEMO_TABLE), sides=(
        ColourSpec("red", (200, 40, 40)), ColourSpec("blue", (40, 80, 200))))))
    app = create_app({"TABLE": str(table), "INSTANCE_PATH": str(tmp_path / "i"), "TABLE_PIN": "2468", "SECRET_KEY": "s"})
    res = _upload(app.test_client(), DEMO_PHOTO.read_bytes(), pin)
    out = res.get_json()
    assert res.status_code == 200 and out["figures"] == 12 and out["problem"] is None
    assert "pixels an inch on part of it" in out["colour_words"] and "closer" in out["colour_words"]
    assert out["scene"]["colour_resolution"]["share_below"] < 1


def _hard_photo_reply(pin, tmp_path, photo, name: str) -> dict:
    """The reply to uploading a hard-set photo (vision.synthetic.hard) to a table made from its own
    profile, as a player who wrote that table would."""
    from vision.synthetic.export import write_hard_photo

    picture = write_hard_photo(photo, tmp_path, name)
    app = create_app({"TABLE": str(picture.with_suffix(".toml")), "INSTANCE_PATH": str(tmp_path / "i"),
                      "TABLE_PIN": "2468", "SECRET_KEY": "s"})
    return _upload(app.test_client(), picture.read_bytes(), pin, name=f"{name}.png").get_json()


def test_a_photo_whose_colour_bases_are_not_the_default_size_says_the_size_it_read(pin, tmp_path):
    """32 mm bases, the profile giving no size: looked for at the size the photo shows, and said."""
    from vision.synthetic.hard import hard_photo

    out = _hard_photo_reply(pin, tmp_path, hard_photo(2026, 0, resolutions=("1080p",), base_in=1.26), "b32")
    assert out["problem"] is None and "32 mm (1.26 in)" in out["bases_words"] and "base = " in out["bases_words"]
    assert out["scene"]["colour_bases"]["red"] == {"base": 1.26, "from": "photo"}
    assert {f["base"] for f in out["scene"]["figures"] if f["detected_by"] == "colour"} == {1.26}


def test_a_photo_on_a_table_of_a_sides_colour_is_measured_and_the_reply_says_so(pin, tmp_path):
    """Red-rimmed figures on a cherry-wood kitchen table: the table shows the red side's hue over
    much of itself, so red bases are missed more often; the reply says which side and what helps."""
    from vision.synthetic.hard import hard_photo

    photo = hard_photo(13, 34, mat="kitchen")
    assert photo.conditions.mat == "cherry wood"
    out = _hard_photo_reply(pin, tmp_path, photo, "cherry")
    assert out["problem"] is None and out["figures"] > 0
    assert out["scene"]["colour_like_table"] == ["red"]
    assert "looks much like the red bases' colour" in out["colour_words"]
    assert "cloth or mat of another colour" in out["colour_words"]
    # (blue water felt lies on that table too, under blue rims)
    assert out["scene"]["colour_like_felt"] == {"blue": ["water"]}
    assert "Blue figures standing in or beside the water may be missed" in out["colour_words"]


def test_a_photo_under_a_warm_bulb_is_measured_and_the_reply_says_so(pin, tmp_path):
    """Blue-rimmed figures under a household bulb (2949 K): the anchors' white card shows its blue at
    under half its red, so blue bases show faintly; the reply names the side and what helps."""
    from vision.synthetic.hard import hard_photo

    photo = hard_photo(0, 2)
    assert photo.conditions.cast == "tungsten"
    out = _hard_photo_reply(pin, tmp_path, photo, "bulb")
    assert out["problem"] is None and out["figures"] > 0
    assert out["scene"]["light_tint"]["faint_sides"] == ["blue"]
    assert "The light is very warm (orange), so the blue bases' colour shows faintly" in out["colour_words"]
