"""Playwright drives Debian's chromium against the real server (waitress) on a tablet-sized screen.

A kid plays a KIMMIRIA missile-fire step on the demo table; a referee checks a line of sight and
sees what blocks it; a photo upload makes its figures appear. Screenshots go to tmp_path, or to
$TABLESIGHT_SCREENSHOTS when set (to look at them).
"""
from __future__ import annotations

import os
import re
import shutil
import threading
from pathlib import Path

import pytest

from assistant.demo import DEMO_PHOTO, DEMO_TABLE
from assistant.web import create_app

CHROMIUM = Path("/usr/bin/chromium")
PIN = "2468"
FLAGS = ["--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run"]
VIEWPORTS = {"landscape": {"width": 1024, "height": 768}, "portrait": {"width": 768, "height": 1024}}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium "
                                                     "(apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    args = FLAGS + (["--no-sandbox"] if os.geteuid() == 0 else [])
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=args)
        yield b
        b.close()


def _serve(app):
    from waitress.server import create_server
    server = create_server(app, host="127.0.0.1", port=0, threads=8, channel_request_lookahead=1)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    return server, thread


def _stop(server, thread):
    """Close every connection (open event streams too) inside the server's own loop, so it ends."""
    def close_all():
        for channel in list(server._map.values()):
            channel.close()
    server.trigger.pull_trigger(close_all)
    thread.join(10)
    server.task_dispatcher.shutdown()
    assert not thread.is_alive()


@pytest.fixture
def server_for(tmp_path):
    started = []

    def start(**config):
        app = create_app({"INSTANCE_PATH": str(tmp_path / f"instance{len(started)}"), "TABLE_PIN": PIN,
                          "SECRET_KEY": "browser-test", **config})
        server, thread = _serve(app)
        started.append((server, thread))
        return f"http://127.0.0.1:{server.effective_port}"

    yield start
    for server, thread in started:
        _stop(server, thread)


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("TABLESIGHT_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _page(browser, viewport):
    context = browser.new_context(viewport=viewport, has_touch=True, device_scale_factor=1)
    # Speech synthesis is recorded, not spoken: headless chromium has no voice.
    context.add_init_script("""
        window.__said = [];
        if (window.speechSynthesis) {
            window.speechSynthesis.speak = (u) => window.__said.push(u.text);
            window.speechSynthesis.cancel = () => {};
        }""")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("request", lambda req: errors.append(f"left the table: {req.url}")
            if not req.url.startswith(("http://127.0.0.1", "data:", "blob:")) else None)
    return context, page, errors


def _join(page, base, next_path):
    page.goto(f"{base}/join?next={next_path}")
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}{next_path}")


def _tap_figure(page, board, figure_id):
    """Tap where the figure is drawn (the board may redraw at any moment when a live update comes in)."""
    base = page.locator(f'{board} .figure[data-id="{figure_id}"] .base')
    for _ in range(20):
        base.wait_for(state="attached")
        box = base.bounding_box()
        if box is not None:
            page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"{figure_id} is not drawn on {board}")


def _min_touch(page, selector):
    sizes = page.eval_on_selector_all(selector, "els => els.filter(e => e.offsetParent).map(e => "
                                                "[e.getBoundingClientRect().width, e.getBoundingClientRect().height])")
    return min(min(w, h) for w, h in sizes)


@pytest.mark.parametrize("shape", VIEWPORTS)
def test_kid_completes_a_missile_fire_step(browser, server_for, shots, shape):
    from playwright.sync_api import expect
    base = server_for(DEMO=True)
    context, page, errors = _page(browser, VIEWPORTS[shape])
    _join(page, base, "/play/")
    # The house ranges as they come: the demo's first volley has targets, no grown-up needed.
    expect(page.locator("#prompt-title")).to_have_text("Ready to play?")
    page.click("#new-game")
    expect(page.locator("#prompt-title")).to_have_text("Robin shoots at Grak!")
    expect(page.locator("#prompt-text")).to_have_text("Red player: roll a die for Robin.")
    expect(page.locator('#board .figure.target[data-id="m23"]')).to_have_count(1)
    expect(page.locator('#board .figure.shooter[data-id="m10"]')).to_have_count(1)
    assert _min_touch(page, ".prompt .button") >= 48
    page.screenshot(path=shots / f"play-aim-{shape}.png")
    page.click("#speak")
    assert page.evaluate("window.__said") == ["Robin shoots at Grak! Red player: roll a die for Robin."]

    page.click('button[aria-label="I rolled 2"]')
    expect(page.locator("#prompt-title")).to_have_text("Grak tries to dodge!")
    page.click('button[aria-label="I rolled 5"]')
    expect(page.locator("#prompt-title")).to_have_text("Marian shoots at Goblin 1!")
    expect(page.locator('#board .figure.target[data-id="m20"]')).to_have_count(1)
    expect(page.locator('#board .figure.shooter[data-id="m11"]')).to_have_count(1)
    page.click('button[aria-label="I rolled 6"]')
    expect(page.locator("#prompt-title")).to_have_text("Goblin 1 tries to dodge!")
    page.click('button[aria-label="I rolled 2"]')
    expect(page.locator("#prompt-title")).to_have_text("Goblin 3 shoots at Ann!")
    page.click('button[aria-label="I rolled 3"]')
    expect(page.locator("#prompt-title")).to_have_text("Ann tries to dodge!")
    page.screenshot(path=shots / f"play-dodge-{shape}.png")
    page.click('button[aria-label="I rolled 5"]')
    expect(page.locator("#prompt-title")).to_have_text("Merlin shoots at Goblin 3!")
    expect(page.locator('#board .figure.shooter[data-id="m12"]')).to_have_count(1)
    page.click('button[aria-label="I rolled 5"]')
    expect(page.locator("#prompt-title")).to_have_text("Goblin 3 tries to dodge!")
    page.click('button[aria-label="I rolled 1"]')
    expect(page.locator("#prompt-title")).to_have_text("Take Goblin 1 and Goblin 3 off the table after all the arrows and magic.")
    expect(page.locator("#prompt-lines")).to_contain_text("Marian rolled 6, Goblin 1 rolled 2 +1 armour = 3")
    expect(page.locator("#prompt-lines")).to_contain_text("Grak is safe")
    expect(page.locator("#prompt-lines")).to_contain_text("Ann is safe")
    expect(page.locator("#dice")).to_be_hidden()
    expect(page.locator('#board .ghost[data-id="m20"]')).to_have_count(1)         # a red cross on Goblin 1
    expect(page.locator('#board .ghost[data-id="m22"]')).to_have_count(1)         # and on Goblin 3
    page.screenshot(path=shots / f"play-outcome-{shape}.png")
    page.click("#next")
    expect(page.locator("#prompt-title")).to_have_text("Who goes first?")
    page.click("#roll-me")
    expect(page.locator("#rolled-value")).to_have_text(re.compile(r"^[1-6]$"))     # the virtual die's face
    expect(page.locator("#rolled-who")).to_have_text("Red rolled")
    expect(page.locator("#prompt-text")).to_contain_text("Blue player")
    expect(page.locator('#board .figure[data-id="m20"]')).to_have_count(0)      # Goblin 1 is off the table
    page.screenshot(path=shots / f"play-initiative-{shape}.png")
    assert errors == []
    context.close()


@pytest.mark.parametrize("shape", VIEWPORTS)
def test_grown_up_changes_a_house_number_on_setup(browser, server_for, shots, shape):
    from playwright.sync_api import expect
    base = server_for(DEMO=True)
    context, page, errors = _page(browser, VIEWPORTS[shape])
    _join(page, base, "/setup/")
    # Shorter bows (a house number): saved, and the referee measures with it.
    page.click("#house-box summary")
    field = page.locator('input[data-key="figure_types.archer.range"]')
    field.fill("10")
    field.dispatch_event("change")
    expect(page.locator("#toast")).to_contain_text("Saved")
    page.screenshot(path=shots / f"setup-{shape}.png", full_page=True)
    page.goto(f"{base}/referee/")
    _tap_figure(page, "#board", "m10")
    expect(page.locator("#ranking h2")).to_have_text('Targets for Robin (range 10")')
    assert errors == []
    context.close()


@pytest.mark.parametrize("shape", VIEWPORTS)
def test_referee_checks_line_of_sight_and_sees_the_blocker(browser, server_for, shots, shape):
    from playwright.sync_api import expect
    base = server_for(DEMO=True)
    context, page, errors = _page(browser, VIEWPORTS[shape])
    page.goto(f"{base}/referee/")                  # looking needs no PIN
    expect(page.locator("#board .figure")).to_have_count(12)
    _tap_figure(page, "#board", "m10")
    expect(page.locator("#ref-help")).to_have_text("Robin picked. Now tap the target.")
    expect(page.locator("#ranking h2")).to_have_text('Targets for Robin (range 12")')
    _tap_figure(page, "#board", "m21")
    result = page.locator("#los-result")
    expect(result.locator(".verdict")).to_have_text("Blocked")
    expect(result).to_contain_text("Robin cannot see Goblin 2: blocked by the woods.")
    expect(result).to_contain_text("Centre to centre")
    expect(page.locator("#board polygon.corridor.blocked")).to_have_count(1)
    expect(page.locator("#board .terrain polygon.blocker.terrain-woods")).to_have_count(1)
    page.screenshot(path=shots / f"referee-blocked-{shape}.png")
    # The full ruler on the map from above.
    page.click('button[data-width="ruler"]')
    page.click('button[data-view="map"]')
    expect(page.locator("#los-result")).to_contain_text('1.25" wide')
    expect(page.locator("#board rect.felt")).to_have_count(1)
    expect(page.locator("#board polygon.corridor")).to_have_count(1)
    page.screenshot(path=shots / f"referee-map-{shape}.png")
    # A clear line: Marian to Goblin 1.
    page.click("#clear-pick")
    _tap_figure(page, "#board", "m11")
    _tap_figure(page, "#board", "m20")
    expect(page.locator("#los-result .verdict")).to_have_text("Clear")
    expect(page.locator("#board polygon.corridor.clear")).to_have_count(1)
    assert errors == []
    context.close()


def test_photo_upload_makes_its_figures_appear(browser, server_for, shots, tmp_path):
    from playwright.sync_api import expect
    base = server_for(TABLE=str(DEMO_TABLE))          # a real table before its first picture
    context, page, errors = _page(browser, VIEWPORTS["landscape"])
    _join(page, base, "/table/")
    expect(page.locator("#board-picture .empty")).to_be_visible()
    photo = tmp_path / "table-photo.jpg"
    shutil.copy(DEMO_PHOTO, photo)
    page.set_input_files("#photo-input", str(photo))
    expect(page.locator("#photo-status")).to_have_text("Got it: 12 figures on the table.")
    expect(page.locator("#board-picture .figure")).to_have_count(12)
    expect(page.locator("#board-map .figure")).to_have_count(12)
    expect(page.locator('#board-map .figure[data-name="Grak"]')).to_have_count(1)
    expect(page.locator("#source")).to_contain_text("from a photo")
    page.screenshot(path=shots / "table-after-photo.png", full_page=True)
    # Not a photo: a clear message, nothing lost.
    bad = tmp_path / "notes.txt"
    bad.write_text("not a picture")
    page.set_input_files("#photo-input", str(bad))
    expect(page.locator("#photo-status")).to_contain_text("not a photo")
    expect(page.locator("#board-picture .figure")).to_have_count(12)
    context.close()
    assert [e for e in errors if "415" not in e] == []


def test_a_photo_of_32mm_bases_says_the_size_it_read(browser, server_for, shots, tmp_path):
    """The profile gives no base size; the photo's colour bases are 32 mm: the Table page says so
    after the photo, and the Scene's colour figures carry that size."""
    from playwright.sync_api import expect
    from vision.synthetic.export import write_hard_photo
    from vision.synthetic.hard import hard_photo

    picture = write_hard_photo(hard_photo(2026, 0, resolutions=("1080p",), base_in=1.26), tmp_path, "b32")
    base = server_for(TABLE=str(picture.with_suffix(".toml")))
    context, page, errors = _page(browser, VIEWPORTS["landscape"])
    _join(page, base, "/table/")
    page.set_input_files("#photo-input", str(picture))
    expect(page.locator("#photo-status")).to_contain_text("look 32 mm (1.26 in) across")
    scene = page.request.get(base + "/api/scene").json()
    assert {f["base"] for f in scene["scene"]["figures"] if f["detected_by"] == "colour"} == {1.26}
    page.screenshot(path=shots / "table-after-32mm-photo.png", full_page=True)
    context.close()
    assert errors == []


def test_a_coarse_photo_of_a_long_table_along_the_pictures_short_side_says_to_turn_the_camera(
        browser, server_for, shots, tmp_path):
    """A 1080p photo whose 1080 pixels hold the table's long side (hard photo 38 of seed 0, 15-17
    px/in): after the photo the Table page says colour bases are missed more often, and to turn the
    camera a quarter turn, the table's long side along the picture's."""
    from playwright.sync_api import expect
    from vision.synthetic.export import write_hard_photo
    from vision.synthetic.hard import hard_photo

    picture = write_hard_photo(hard_photo(0, 38), tmp_path, "long")
    base = server_for(TABLE=str(picture.with_suffix(".toml")))
    context, page, errors = _page(browser, VIEWPORTS["landscape"])
    _join(page, base, "/table/")
    page.set_input_files("#photo-input", str(picture))
    status = page.locator("#photo-status")
    expect(status).to_contain_text("colour bases are missed more often")
    expect(status).to_contain_text("Turning the camera a quarter turn, so that the table's long side runs along "
                                   "the picture's long side")
    page.screenshot(path=shots / "table-after-long-side-photo.png", full_page=True)
    context.close()
    assert errors == []


def test_a_photo_on_a_table_of_a_sides_colour_says_so(browser, server_for, shots, tmp_path):
    """Red rims on a cherry-wood kitchen table, with blue water felt on it under blue rims: after the
    photo the Table page says the table looks like the red bases' colour, that blue figures in or
    beside the water may be missed, and what helps."""
    from playwright.sync_api import expect
    from vision.synthetic.export import write_hard_photo
    from vision.synthetic.hard import hard_photo

    picture = write_hard_photo(hard_photo(13, 34, mat="kitchen"), tmp_path, "cherry")
    base = server_for(TABLE=str(picture.with_suffix(".toml")))
    context, page, errors = _page(browser, VIEWPORTS["landscape"])
    _join(page, base, "/table/")
    page.set_input_files("#photo-input", str(picture))
    expect(page.locator("#photo-status")).to_contain_text("looks much like the red bases' colour")
    expect(page.locator("#photo-status")).to_contain_text("cloth or mat of another colour")
    expect(page.locator("#photo-status")).to_contain_text("Blue figures standing in or beside the water")
    page.screenshot(path=shots / "table-after-cherry-photo.png", full_page=True)
    context.close()
    assert errors == []


def test_a_photo_under_a_warm_bulb_says_so(browser, server_for, shots, tmp_path):
    """Blue rims under a household bulb (2949 K): after the photo the Table page says the light is
    very warm, that the blue bases show faintly, and that daylight or a white lamp helps."""
    from playwright.sync_api import expect
    from vision.synthetic.export import write_hard_photo
    from vision.synthetic.hard import hard_photo

    picture = write_hard_photo(hard_photo(0, 2), tmp_path, "bulb")
    base = server_for(TABLE=str(picture.with_suffix(".toml")))
    context, page, errors = _page(browser, VIEWPORTS["portrait"])
    _join(page, base, "/table/")
    page.set_input_files("#photo-input", str(picture))
    expect(page.locator("#photo-status")).to_contain_text("The light is very warm (orange), so the blue bases' "
                                                          "colour shows faintly")
    expect(page.locator("#photo-status")).to_contain_text("Daylight, or a white lamp instead of a warm one")
    page.screenshot(path=shots / "table-after-bulb-photo.png", full_page=True)
    context.close()
    assert errors == []


def test_every_tablet_sees_the_same_game(browser, server_for):
    """Server-Sent Events: a die entered on one tablet shows on another at once."""
    from playwright.sync_api import expect
    base = server_for(DEMO=True)
    c1, kid, _ = _page(browser, VIEWPORTS["landscape"])
    c2, watcher, _ = _page(browser, VIEWPORTS["portrait"])
    _join(kid, base, "/play/")
    watcher.goto(f"{base}/play/")
    kid.click("#new-game")
    expect(kid.locator("#prompt-title")).to_have_text("Robin shoots at Grak!")
    expect(watcher.locator("#prompt-title")).to_have_text("Robin shoots at Grak!")
    kid.click('button[aria-label="I rolled 4"]')
    expect(watcher.locator("#prompt-title")).to_have_text("Grak tries to dodge!")
    c1.close()
    c2.close()


def _tap_map(page, x_in, y_in):
    """Tap the top-down map at a point given in table inches."""
    x, y = page.evaluate("""([x, y]) => {
        const svg = document.querySelector('#board-map svg');
        const p = svg.createSVGPoint(); p.x = x; p.y = y;
        const q = p.matrixTransform(svg.getScreenCTM());
        return [q.x, q.y]; }""", [x_in, y_in])
    page.touchscreen.tap(x, y)


# A wall across the clear line from Marian (m11, about 13.0, 13.5) to Goblin 1 (m20, about 22.5, 11.5).
WALL = [(17.4, 10.4), (18.4, 10.4), (18.4, 14.6), (17.4, 14.6)]


@pytest.mark.parametrize("shape", VIEWPORTS)
def test_grown_up_draws_a_wall_and_the_referee_sees_it_block(browser, server_for, shots, shape):
    from playwright.sync_api import expect
    base = server_for(DEMO=True)
    context, page, errors = _page(browser, VIEWPORTS[shape])
    _join(page, base, "/table/")
    expect(page.locator("#board-map .figure")).to_have_count(12)
    page.click("#draw-start")
    expect(page.locator("#draw-tools")).to_be_visible()
    page.click('#kind-pick [data-kind="wall"]')
    expect(page.locator("#draw-help")).to_contain_text("Wall: tap the first corner")
    for x, y in WALL[:3]:
        _tap_map(page, x, y)
    _tap_map(page, 30.0, 30.0)                      # a slip of the finger, taken back
    expect(page.locator("#board-map .draft-corner")).to_have_count(4)
    page.click("#draw-undo")
    _tap_map(page, *WALL[3])
    expect(page.locator("#draw-help")).to_have_text("Wall: 4 corners. Tap more corners, or Finish.")
    assert _min_touch(page, "#draw-tools .button") >= 48
    page.screenshot(path=shots / f"table-drawing-{shape}.png")
    page.click("#draw-finish")
    wall = page.locator('#board-map .terrain polygon.drawn.terrain-wall')
    expect(wall).to_have_count(1)
    expect(page.locator("#board-map .terrain-label.drawn")).to_have_text("wall (drawn)")
    expect(page.locator("#drawn-list li")).to_have_count(1)
    expect(page.locator("#draw-tools")).to_be_hidden()
    assert _min_touch(page, "#drawn-list .button") >= 48
    page.screenshot(path=shots / f"table-drawn-{shape}.png", full_page=True)
    piece_id = wall.get_attribute("data-id")
    corners = page.evaluate("fetch('/api/terrain').then(r => r.json())")["terrain"]
    mine = next(t for t in corners if t["id"] == piece_id)
    assert mine["source"] == "drawn" and mine["kind"] == "wall"
    for (x, y), (gx, gy) in zip(WALL, mine["polygon"]):
        assert abs(x - gx) < 0.2 and abs(y - gy) < 0.2          # where the grown-up tapped, in inches

    page.goto(f"{base}/referee/")
    _tap_figure(page, "#board", "m11")
    _tap_figure(page, "#board", "m20")
    result = page.locator("#los-result")
    expect(result.locator(".verdict")).to_have_text("Blocked")
    expect(result).to_contain_text("Marian cannot see Goblin 1: blocked by the wall.")
    expect(page.locator(f'#board .terrain polygon.blocker.drawn[data-id="{piece_id}"]')).to_have_count(1)
    page.click('button[data-view="map"]')
    expect(page.locator(f'#board .terrain polygon.blocker.drawn[data-id="{piece_id}"]')).to_have_count(1)
    page.screenshot(path=shots / f"referee-drawn-wall-{shape}.png")

    # Deleted on the Table page: the line is clear again.
    page.goto(f"{base}/table/")
    page.click(f'#drawn-list li[data-id="{piece_id}"] .delete')
    expect(page.locator("#board-map .terrain polygon.drawn")).to_have_count(0)
    expect(page.locator("#drawn-box")).to_be_hidden()
    assert page.evaluate("fetch('/api/los?a=m11&b=m20').then(r => r.json())")["clear"] is True
    assert errors == []
    context.close()


def test_every_tablet_sees_a_drawn_piece_at_once(browser, server_for):
    """Server-Sent Events: a piece drawn (here by a script with the PIN) shows on a watching tablet's map."""
    import json
    import urllib.request
    from playwright.sync_api import expect
    base = server_for(DEMO=True)
    context, watcher, errors = _page(browser, VIEWPORTS["portrait"])
    watcher.goto(f"{base}/referee/")
    watcher.click('button[data-view="map"]')
    expect(watcher.locator("#board .figure")).to_have_count(12)
    expect(watcher.locator("#board .terrain polygon.drawn")).to_have_count(0)
    body = json.dumps({"kind": "building", "polygon": [[2, 2], [6, 2], [6, 5], [2, 5]]}).encode()
    req = urllib.request.Request(f"{base}/api/terrain", data=body, method="POST",
                                 headers={"Content-Type": "application/json", "X-Table-PIN": PIN})
    with urllib.request.urlopen(req) as res:
        assert res.status == 201
    expect(watcher.locator("#board .terrain polygon.drawn.terrain-building")).to_have_count(1)
    expect(watcher.locator("#board .terrain-label.drawn")).to_have_text("building (drawn)")
    assert errors == []
    context.close()


def test_teaching_colours_on_setup_learns_amber_and_keeps_blue(browser, server_for, shots, tmp_path):
    """Setup's "Teach the camera your colours": the red side was painted amber, so tapping one red
    figure teaches it and all three are found; the blue figures are painted the profile's blue, so
    tapping one keeps that colour and says so, nothing saved."""
    import cv2
    from playwright.sync_api import expect

    from tests.assistant.teach_scene import BLUE_AT, RED_AT, profile_toml, teach_photo
    table = tmp_path / "kitchen.toml"
    table.write_text(profile_toml())
    photo = tmp_path / "kitchen.png"
    cv2.imwrite(str(photo), teach_photo())
    base = server_for(TABLE=str(table))
    context, page, errors = _page(browser, VIEWPORTS["landscape"])
    _join(page, base, "/table/")
    page.set_input_files("#photo-input", str(photo))
    expect(page.locator("#photo-status")).to_contain_text("Got it")
    page.goto(f"{base}/setup/")
    picture = page.evaluate("async () => (await (await fetch('/api/scene')).json()).picture")

    def tap(x_in, y_in):
        H = picture["H_in_to_px"]
        w = H[2][0] * x_in + H[2][1] * y_in + H[2][2]
        u, v = ((H[i][0] * x_in + H[i][1] * y_in + H[i][2]) / w for i in (0, 1))
        img = page.locator("#teach-picture")
        expect(img).to_be_visible()
        page.wait_for_function("() => document.getElementById('teach-picture').naturalWidth > 0")
        box = img.bounding_box()
        with page.expect_response("**/api/setup/teach-colour", timeout=60_000) as reply:
            img.click(position={"x": u * box["width"] / picture["width"], "y": v * box["height"] / picture["height"]})
        assert reply.value.status == 200, reply.value.text()

    page.get_by_role("button", name="Tap a blue figure").click()
    tap(*BLUE_AT[1])
    expect(page.locator("#teach-say")).to_have_text(
        f"The camera already knows the blue colour: it finds {len(BLUE_AT)} blue figures. Nothing changed.")
    page.screenshot(path=shots / "setup-teach-kept.png", full_page=True)
    rows = page.locator("#roster .roster-row")
    expect(rows).to_have_count(len(BLUE_AT) + len(RED_AT) - 1)     # one amber figure not found yet
    page.get_by_role("button", name="Tap a red figure").click()
    tap(*RED_AT[2])
    expect(page.locator("#teach-say")).to_have_text(f"Learned! The camera now finds {len(RED_AT)} red figures.")
    expect(page.get_by_role("button", name="Tap a red figure (learned)")).to_be_visible()
    expect(page.get_by_role("button", name="Tap a blue figure", exact=True)).to_be_visible()
    expect(rows).to_have_count(len(BLUE_AT) + len(RED_AT))         # the Figures list shows the third
    page.screenshot(path=shots / "setup-teach-learned.png", full_page=True)
    context.close()
    assert errors == []
