"""A whole turn of each of the four systems in Debian's chromium, by tapping only what the page shows.

One server for the module. Each viewport plays SMART, KremlinMiniatures, AnyMinis! and KIMMIRIA in
turn: the system is chosen on the Setup page (the page asks before it ends the game in progress), a
photo of a figure moved too far is taken on the Play page during the first move (the tablet says so
and rings it, the players accept it anyway), and every prompt is read for words a child should not
meet. Screenshots of every step go to $TABLESIGHT_SCREENSHOTS or a temporary folder.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from assistant.web.words import FORBIDDEN_IN_PROMPTS
from tests.assistant.web.moved_photos import demo_photo_with
from tests.assistant.web.test_browser import (CHROMIUM, PIN, VIEWPORTS, _join, _min_touch, _page, _serve,
                                              _stop, browser)  # noqa: F401  (browser is a fixture)

# The words a child should not meet (assistant/web/words.py). "group" is allowed: the groups that may
# move are circled and numbered on the picture.
FORBIDDEN = FORBIDDEN_IN_PROMPTS
TITLES = {"smart": "SMART", "kremlin": "KremlinMiniatures", "anyminis": "AnyMinis!", "kimmiria": "KIMMIRIA"}

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not at /usr/bin/chromium")]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    from assistant.web import create_app
    app = create_app({"INSTANCE_PATH": str(tmp_path_factory.mktemp("instance")), "TABLE_PIN": PIN,
                      "SECRET_KEY": "browser-turns", "DEMO": True})
    server, thread = _serve(app)
    yield f"http://127.0.0.1:{server.effective_port}"
    _stop(server, thread)


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    folder = tmp_path_factory.mktemp("photos")
    # Robin (red) carried right across the table: too far in every system (29.1 inches).
    too_far = folder / "robin-too-far.jpg"
    too_far.write_bytes(demo_photo_with(((10, 42.0, 31.0),)))
    still = folder / "table.jpg"
    still.write_bytes(demo_photo_with(()))
    return {"too_far": too_far, "still": still}


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = Path(os.environ.get("TABLESIGHT_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _state(page) -> tuple:
    return page.evaluate("""() => [document.getElementById('prompt').dataset.kind,
        document.getElementById('prompt-title').textContent, document.getElementById('prompt-text').textContent,
        document.getElementById('prompt-lines').textContent, document.getElementById('turn').textContent]""")


def _tap(page, selector):
    """Tap a button and wait for the prompt to change."""
    before = _state(page)
    page.locator(selector).first.tap()
    page.wait_for_function("""(before) => {
        const now = [document.getElementById('prompt').dataset.kind, document.getElementById('prompt-title').textContent,
          document.getElementById('prompt-text').textContent, document.getElementById('prompt-lines').textContent,
          document.getElementById('turn').textContent];
        return JSON.stringify(now) !== JSON.stringify(before) &&
               ![...document.querySelectorAll('.prompt button')].some(b => b.disabled && !b.hidden);
    }""", arg=list(before), timeout=10000)


def _choose_system(page, base, name):
    page.goto(f"{base}/setup/")
    button = page.locator("#systems button", has_text=TITLES[name])
    button.wait_for()
    if button.get_attribute("aria-pressed") != "true":
        button.tap()
        page.wait_for_selector(f'#systems button[aria-pressed="true"]:has-text("{TITLES[name]}")')


def _play_a_turn(page, name, shape, photos, shots) -> list[tuple]:
    """Tap what each prompt offers until turn 2 begins; returns every prompt seen."""
    seen = []
    photo_done = False
    for step in range(120):
        kind, title, text, lines, turn = _state(page)
        seen.append((kind, title, text, lines))
        if turn.startswith("Turn 2"):
            page.screenshot(path=shots / f"{name}-{shape}-{step:02d}-turn2.png")
            return seen
        page.screenshot(path=shots / f"{name}-{shape}-{step:02d}-{kind}.png")
        if kind == "roll":
            sides = page.locator("#pips button").count()
            # Blue rolls low and Red high for who goes first (Red moves first); every other die is a six.
            low = "who goes first" in text and text.startswith("Blue") or "Who goes first" in title and "Blue" in text
            _tap(page, f'#pips button[data-value="{1 if low else sides}"]')
        elif kind == "do" and not photo_done and page.locator("#play-photo").is_visible():
            page.set_input_files("#play-photo-input", str(photos["too_far"]))
            page.wait_for_function("document.getElementById('photo-status').textContent.startsWith('Got it')")
            _tap(page, "#next")
            photo_done = True
            kind, title, *_ = _state(page)
            page.screenshot(path=shots / f"{name}-{shape}-{step:02d}-photo-checked.png")
            seen.append(_state(page)[:4])
            if name != "kimmiria":
                assert kind == "check" and title.startswith("Robin moved 29.1 inches, but may move only")
            else:
                # The picture still shows the figures the volley felled: said first, accepted.
                assert kind == "check" and "should be off the table, but I can still see it." in title
                _tap(page, "#accept")
                kind, title, *_ = _state(page)
                page.screenshot(path=shots / f"{name}-{shape}-{step:02d}-photo-checked-2.png")
                # KIMMIRIA's own move check: "a group may move up to 3 spaces".
                assert kind == "outcome" and title.startswith("That move is not allowed")
                assert "Robin cannot move there" in _state(page)[3]
            assert page.locator('#board .figure.shooter[data-id="m10"]').count() == 1          # Robin is ringed
            _tap(page, "#accept")
        elif kind == "check":
            _tap(page, "#accept")
        elif kind in ("outcome", "do"):
            _tap(page, "#next")
        elif kind == "start":
            _tap(page, "#new-game")
        else:
            raise AssertionError(f"{name}: stuck on {kind}: {title} {text}")
    raise AssertionError(f"{name}: turn 1 did not end in 120 taps")


@pytest.mark.parametrize("shape", VIEWPORTS)
def test_a_whole_turn_of_each_system(browser, base, photos, shots, shape):  # noqa: F811
    context, page, errors = _page(browser, VIEWPORTS[shape])
    _join(page, base, "/play/")
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.accept()))   # "switching ends the game": yes
    for name in ("smart", "kremlin", "anyminis", "kimmiria"):
        _choose_system(page, base, name)
        # A photo of the table as it stands before the game (the Table page's "Take a photo").
        page.goto(f"{base}/table/")
        page.set_input_files("#photo-input", str(photos["still"]))
        page.wait_for_function("document.getElementById('photo-status').textContent.startsWith('Got it')")
        page.goto(f"{base}/play/")
        page.wait_for_function("document.getElementById('prompt-title').textContent !== 'Loading...'")
        if _state(page)[0] != "start":          # a finished game of this system: its New game button
            page.locator("#new-game").tap()
        page.wait_for_selector("#new-game:visible")
        _tap(page, "#new-game")
        seen = _play_a_turn(page, name, shape, photos, shots)
        said = [" ".join(s[1:]) for s in seen]
        assert not [s for s in said if FORBIDDEN.search(s)], name
        assert len(seen) > 5
        assert _min_touch(page, ".prompt .button:not([hidden])") >= 44
    # Each switch after the first ended a game in progress, and the page asked first.
    assert len(dialogs) >= 3 and all("switching to" in m and "ends it" in m for m in dialogs)
    assert errors == []
    context.close()
