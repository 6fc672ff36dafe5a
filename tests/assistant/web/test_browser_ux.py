"""Playwright in Debian's chromium at 1024x768 and 768x1024: a bad photo is a hint, words a child reads,
tap targets of 44 px and picture text of 16 px on every page, and a new table made in the Setup wizard.

One server per module (the demo table); the wizard gets its own, since it switches the table.
Screenshots go to $TABLESIGHT_SCREENSHOTS when set (to look at them), else to a temporary folder.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.demo import DEMO_PHOTO, DEMO_TABLE
from assistant.web import create_app
from calibration.profile import load_profile
from tests.assistant.web.test_browser import (CHROMIUM, PIN, VIEWPORTS, _join, _page, _serve, _stop,
                                              _tap_figure, browser)  # noqa: F401  (browser is a fixture)
from assistant.web.words import FORBIDDEN_IN_PROMPTS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium"),
]

NEVER_SHOWN = re.compile(r"UNPROCESSABLE|DICT_|\b422\b|anchor marker", re.I)
PAGES = ["/", "/play/", "/referee/", "/table/", "/setup/", "/join"]


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = Path(os.environ.get("TABLESIGHT_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """One demo server for the module: (base url, app)."""
    app = create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path_factory.mktemp("instance")), "TABLE_PIN": PIN,
                      "SECRET_KEY": "browser-ux"})
    server, thread = _serve(app)
    yield f"http://127.0.0.1:{server.effective_port}", app
    _stop(server, thread)


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    """The demo photo, one with the top-left corner marker covered, one with no table at all."""
    folder = tmp_path_factory.mktemp("photos")
    frame = cv2.imread(str(DEMO_PHOTO))
    from vision.pipeline import analyze_image
    reg = analyze_image(frame, load_profile(DEMO_TABLE)).registration
    x, y = reg.to_image(np.array([[1.25, 1.25]]))[0]
    covered = frame.copy()
    cv2.circle(covered, (int(x), int(y)), 45, (90, 120, 90), -1)
    out = {"good": folder / "good.jpg", "covered": folder / "covered.jpg", "blank": folder / "blank.jpg"}
    cv2.imwrite(str(out["good"]), frame)
    cv2.imwrite(str(out["covered"]), covered)
    cv2.imwrite(str(out["blank"]), np.full((540, 960, 3), 128, np.uint8))
    return out


def _real_errors(errors):
    # A refused photo is a 4xx on purpose; the browser logs it as a failed resource.
    return [e for e in errors if "status of 4" not in e]


def small_targets(page) -> list[str]:
    """Every visible tap target smaller than 44 x 44 CSS px, described."""
    return page.evaluate("""() => {
        const sel = 'a, button, select, summary, input:not([type=hidden]):not([type=file]):not([type=checkbox]), ' +
                    'label:has(> input[type=checkbox]), .ranking tbody tr';
        const bad = [];
        for (const e of document.querySelectorAll(sel)) {
            if (!e.offsetParent && e.tagName !== 'TR') continue;
            const r = e.getBoundingClientRect();
            if (r.width === 0 || r.height === 0) continue;
            const style = getComputedStyle(e);
            if (style.visibility === 'hidden') continue;
            if (r.width < 44 || r.height < 44)
                bad.push(`${e.tagName.toLowerCase()}#${e.id}.${e.className} "${(e.textContent || '').trim().slice(0, 30)}" ` +
                         `${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
        }
        return bad;
    }""")


def picture_text_px(page) -> list[float]:
    """The on-screen size (CSS px) of every text drawn over a board."""
    return page.evaluate("""() => [...document.querySelectorAll('.board svg text')].map((t) => {
        const m = t.getScreenCTM();
        return parseFloat(t.getAttribute('font-size')) * Math.min(Math.abs(m.a), Math.abs(m.d));
    })""")


def _check_sizes(page, where):
    assert small_targets(page) == [], where
    sizes = picture_text_px(page)
    assert not sizes or min(sizes) >= 16 - 0.01, (where, min(sizes))


# ---------------------------------------------------------------- a bad picture is a hint

@pytest.mark.parametrize("shape", VIEWPORTS)
def test_a_photo_that_fails_is_a_hint_and_the_last_good_picture_stays(browser, demo, photos, shots, shape):
    from playwright.sync_api import expect
    base, _ = demo
    context, page, errors = _page(browser, VIEWPORTS[shape])
    _join(page, base, "/table/")
    expect(page.locator("#board-picture .figure")).to_have_count(12)
    page.set_input_files("#photo-input", str(photos["blank"]))
    hint = page.locator("#board-picture .photo-hint.failed")
    expect(hint).to_be_visible()
    expect(hint.locator(".hint-title")).to_have_text(re.compile(r"^I can't see any of the corner markers\."))
    expect(hint).to_contain_text("Your game and the last good picture are kept.")
    expect(hint.locator("svg.hint-drawing .hint-anchor")).to_have_count(4)
    expect(page.locator("#photo-status")).to_contain_text("I can't see any of the corner markers.")
    # The last good picture and its figures stay, on every page.
    expect(page.locator("#board-picture img")).to_be_visible()
    expect(page.locator("#board-picture .figure")).to_have_count(12)
    assert not NEVER_SHOWN.search(page.inner_text("body"))
    page.screenshot(path=shots / f"hint-failed-table-{shape}.png")
    for path, board in (("/play/", "#board"), ("/referee/", "#board")):
        page.goto(base + path)
        expect(page.locator(f"{board} .photo-hint.failed")).to_be_visible()
        expect(page.locator(f"{board} img")).to_be_visible()
        expect(page.locator(f"{board} .figure")).to_have_count(12)
        assert not NEVER_SHOWN.search(page.inner_text("body"))
    page.screenshot(path=shots / f"hint-failed-referee-{shape}.png")

    # A corner marker covered: measured anyway, and the drawing rings the top-left corner.
    page.goto(base + "/table/")
    page.set_input_files("#photo-input", str(photos["covered"]))
    hint = page.locator("#board-picture .photo-hint")
    expect(hint.locator(".hint-title")).to_have_text("I can't see the top-left corner marker: is something on it?")
    expect(hint.locator('.hint-anchor.hidden[data-place="top-left"] .hint-ring')).to_have_count(1)
    expect(hint.locator(".hint-anchor.seen")).to_have_count(3)
    page.screenshot(path=shots / f"hint-covered-table-{shape}.png")

    # A good photo: the hint goes.
    page.set_input_files("#photo-input", str(photos["good"]))
    expect(page.locator("#photo-status")).to_have_text("Got it: 12 figures on the table.")
    expect(page.locator(".photo-hint")).to_have_count(0)
    expect(page.locator("#source")).to_contain_text("12 figures")
    assert _real_errors(errors) == []
    context.close()


# ---------------------------------------------------------------- sizes on every page

@pytest.mark.parametrize("shape", VIEWPORTS)
def test_every_tap_target_is_44_px_and_picture_text_16_px_on_every_page(browser, demo, shots, shape):
    base, _ = demo
    context, page, errors = _page(browser, VIEWPORTS[shape])
    _join(page, base, "/")
    for path in PAGES:
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        if path == "/setup/":
            page.click("#house-box summary")
            page.wait_for_selector("#house-defaults input")
        if path == "/referee/":
            _tap_figure(page, "#board", "m10")
            page.wait_for_selector("#ranking tbody tr")
        _check_sizes(page, f"{path} {shape}")
    page.goto(base + "/setup/")
    page.click("#house-box summary")
    label = page.locator('label[for="house-figure-types-giant-fv"]')
    assert label.inner_text() == "Giant's fighting value"
    assert "fv" not in page.locator("#house-defaults").inner_text().split()
    page.screenshot(path=shots / f"setup-house-{shape}.png")
    page.goto(base + "/referee/")
    _tap_figure(page, "#board", "m10")
    page.wait_for_selector("#ranking tbody tr")
    page.screenshot(path=shots / f"referee-targets-{shape}.png")
    assert _real_errors(errors) == []
    context.close()


# ---------------------------------------------------------------- a KIMMIRIA turn in a child's words

def _die_for(title: str, counter: list[int]) -> int:
    """Dice that keep the demo's melee: every arrow misses; Red goes first; 3 groups; 6 then 1 in the fight."""
    if "shoots at" in title or "just as close" in title:
        return 1
    if "dodge" in title:
        return 6
    if "goes first" in title.lower() or "roll again" in title.lower():
        counter[0] += 1
        return 5 if counter[0] % 2 else 2
    if "moves this turn" in title:
        return 3
    counter[1] += 1
    return 6 if counter[1] % 2 else 1


@pytest.mark.parametrize("shape", VIEWPORTS)
def test_a_kimmiria_turn_never_says_the_forbidden_words(browser, demo, shots, shape):
    from playwright.sync_api import expect
    base, _ = demo
    context, page, errors = _page(browser, VIEWPORTS[shape])
    _join(page, base, "/play/")
    answer = ["accept"]
    page.on("dialog", lambda d: d.accept() if answer[0] == "accept" else d.dismiss())
    expect(page.locator("#new-game")).to_be_visible()
    expect(page.locator("#prompt-title")).not_to_have_text("Loading...")
    page.click("#new-game")                     # a game may be left from before: it asks first
    settled = "() => !document.querySelector('#new-game').disabled"
    seen_melee = seen_groups = seen_verdict = seen_badge_undo = False
    counter = [0, 0]
    texts = []
    for step in range(80):
        page.wait_for_function(settled)          # the tap has been answered and shown
        title = page.inner_text("#prompt-title")
        prompt_text = page.inner_text("#prompt")
        texts.append(prompt_text)
        assert not FORBIDDEN_IN_PROMPTS.search(prompt_text), prompt_text
        expect(page.locator("#new-game")).to_be_visible()             # always reachable
        turn = page.inner_text("#turn")
        if "fights" in title:
            fighters = {page.get_attribute("#board .figure.shooter", "data-name"),
                        *[page.locator("#board .figure.target").nth(i).get_attribute("data-name")
                          for i in range(page.locator("#board .figure.target").count())]}
            assert fighters == {"Sir Bors", "Goblin 4"}                # both named in the title, both ringed
            assert title in ("Sir Bors fights Goblin 4!", "Goblin 4 fights Sir Bors!")
            if not seen_melee:
                page.screenshot(path=shots / f"play-melee-{shape}.png")
            seen_melee = True
        if page.locator("#board .group-label").count():
            seen_groups = True
            _check_sizes(page, f"play with groups {shape}")
            page.screenshot(path=shots / f"play-groups-{shape}.png")
        if title.startswith("No winner yet"):
            assert turn.startswith("Turn 1"), turn                    # turn 1's verdict is headed turn 1
            seen_verdict = True
            page.screenshot(path=shots / f"play-verdict-{shape}.png")
        if turn.startswith("Turn 2"):
            break
        if page.locator("#dice").is_visible():
            if "fights" in title and not seen_badge_undo:
                # Undo my last die: the badge goes with it.
                page.click("#roll-me")
                page.wait_for_function(settled)
                expect(page.locator("#rolled")).to_be_visible()
                expect(page.locator("#board .die-badge")).to_have_count(1)         # the die by its figure
                page.click("#undo")
                page.wait_for_function(settled)
                expect(page.locator("#rolled")).to_be_hidden()
                expect(page.locator("#board .die-badge")).to_have_count(0)
                seen_badge_undo = True
                continue
            value = _die_for(title, counter)
            page.click(f'#pips button[aria-label="I rolled {value}"]')
            page.wait_for_function(settled)
            if "fights" in title and counter[1] == 1:
                expect(page.locator("#board .die-badge")).to_have_count(1)   # the die by its figure
                page.screenshot(path=shots / f"play-melee-die-{shape}.png")
        else:
            page.click("#next")
    assert (seen_melee, seen_groups, seen_verdict, seen_badge_undo) == (True,) * 4, texts[-6:]
    # New game asks before it ends the game in progress.
    answer[0] = "dismiss"
    before = page.inner_text("#prompt-title")
    page.click("#new-game")
    page.wait_for_timeout(300)
    assert page.inner_text("#prompt-title") == before
    assert _real_errors(errors) == []
    context.close()


# ---------------------------------------------------------------- a new table in the Setup wizard

@pytest.mark.parametrize("shape", VIEWPORTS)
def test_setup_wizard_saves_a_table_and_switches_to_it(browser, shots, tmp_path, shape):
    from playwright.sync_api import expect
    app = create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path / "instance"), "TABLE_PIN": PIN,
                      "SECRET_KEY": "browser-wizard"})
    server, thread = _serve(app)
    base = f"http://127.0.0.1:{server.effective_port}"
    try:
        context, page, errors = _page(browser, VIEWPORTS[shape])
        _join(page, base, "/setup/")
        page.click("#wizard-start")
        expect(page.locator('.wizard-step[data-step="print"]')).to_be_visible()
        page.click('[data-paper="letter"]')
        page.click('[data-msize="0.75"]')               # the demo figures carry 3/4 inch markers
        assert "size=0.75" in page.get_attribute("#sheet-sides a >> nth=0", "href")
        href = page.get_attribute("#sheet-anchors", "href")
        assert href == "/api/sheets/anchors.pdf?paper=letter"
        assert page.request.get(base + href).body().startswith(b"%PDF")
        expect(page.locator("#sheet-sides a")).to_have_count(2)
        _check_sizes(page, f"wizard print {shape}")
        page.screenshot(path=shots / f"wizard-print-{shape}.png")
        page.click("#wiz-next")
        page.fill("#wiz-width", "48")
        page.fill("#wiz-depth", "36")
        page.click("#wiz-next")
        page.click('[data-grid="square"]')
        page.fill("#wiz-pitch", "1")
        page.click("#wiz-next")
        page.locator("#wiz-sides input:not([type=color])").nth(1).fill("Goblins")
        page.locator("#wiz-sides select").nth(1).select_option("0.984")      # 25 mm; Red's left to the photo
        _check_sizes(page, f"wizard sides {shape}")
        page.screenshot(path=shots / f"wizard-sides-{shape}.png")
        page.click("#wiz-next")
        page.check('#wiz-terrain input[value="water"]')
        page.click("#wiz-next")
        page.fill("#wiz-name", "Kitchen table")
        expect(page.locator("#wiz-summary")).to_contain_text("48 x 36 inches, squares of 1 inch")
        page.click("#wiz-save")
        expect(page.locator('.wizard-step[data-step="test"]')).to_be_visible()
        # how to point the camera before the photo: the table's long side along the picture's
        expect(page.locator('.wizard-step[data-step="test"]')).to_contain_text(
            "the table's long side runs along the picture's long side")
        page.set_input_files("#wiz-photo", str(DEMO_PHOTO))
        expect(page.locator(".verdict-good")).to_have_text(
            "All four corner markers found, and 12 figures: your table is ready!")
        # Its two colour sides: the demo photo shows the far part of the table under 24 px/in.
        expect(page.locator("#wiz-colour-note")).to_contain_text("pixels an inch on part of it")
        page.screenshot(path=shots / f"wizard-test-photo-{shape}.png", full_page=True)

        saved = Path(app.config["TABLES_DIR"]) / "kitchen-table.toml"
        profile = load_profile(saved)                   # the CLI's reader
        assert (profile.name, profile.width_in, profile.depth_in) == ("Kitchen table", 48.0, 36.0)
        assert profile.grid.kind == "square" and [s.name for s in profile.sides] == ["Red", "Goblins"]
        assert [s.base_in for s in profile.sides] == [None, 0.984]
        assert profile.figure_marker_size_in == 0.75
        assert [t.name for t in profile.terrain] == ["woods", "hill", "water"]

        # A second saved table; switch to it from the list, then back.
        res = page.request.post(base + "/api/tables", headers={"X-Table-PIN": PIN},
                                data={"name": "Club table", "width": 72, "depth": 48, "use": False})
        assert res.status == 201
        page.click("#wiz-next")                         # Finish
        expect(page.locator("#wizard")).to_be_hidden()
        row = page.locator('#saved-tables li[data-file="club-table.toml"]')
        expect(row.locator(".use-table")).to_be_visible()
        _check_sizes(page, f"setup tables {shape}")
        page.once("dialog", lambda d: d.accept())
        row.locator(".use-table").click()
        expect(page.locator("#table-name")).to_have_text("Club table")
        expect(page.locator('#saved-tables li[data-file="club-table.toml"] .in-use')).to_be_visible()
        assert page.request.get(base + "/api/status").json()["table"]["width"] == 72.0
        page.screenshot(path=shots / f"setup-tables-{shape}.png")
        page.once("dialog", lambda d: d.accept())
        page.click('#saved-tables li[data-file="kitchen-table.toml"] .use-table')
        expect(page.locator("#table-name")).to_have_text("Kitchen table")
        # And back to the table the server started with (the demo, its photo measured again).
        page.once("dialog", lambda d: d.accept())
        page.click('#saved-tables li[data-file=""] .use-table')
        expect(page.locator('#saved-tables li[data-file=""] .in-use')).to_be_visible()
        assert page.request.get(base + "/api/status").json()["source"] == "demo"
        assert _real_errors(errors) == []
        context.close()
    finally:
        _stop(server, thread)
