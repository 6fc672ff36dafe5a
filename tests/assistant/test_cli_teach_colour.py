"""`tablesight analyze PHOTO --table T --teach-colour SIDE=X,Y`: the rim colour of the figure there is
learned (after white balance), saved beside the profile and used; where the colour looked for now
already finds that figure about as surely, it is kept and nothing is saved; bad input is one line,
exit 2, and what was learned before is kept."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from assistant.cli import main
from calibration.profile import learned_colours_path, load_profile

from tests.assistant.teach_scene import BLUE_AT, RED_AT, profile_toml, teach_photo


@pytest.fixture(scope="module")
def table_files():
    return teach_photo()


def _write(tmp_path, image):
    photo, table = tmp_path / "photo.png", tmp_path / "kitchen.toml"
    cv2.imwrite(str(photo), image)
    table.write_text(profile_toml())
    return str(photo), str(table)


def _reds(out):
    return [f for f in out["figures"] if f["detected_by"] == "colour" and f["side"] == "red"]


def test_teaching_red_finds_the_orange_rimmed_figures(tmp_path, table_files, capsys):
    photo, table = _write(tmp_path, table_files)
    assert main(["analyze", photo, "--table", table, "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    assert len(_reds(before)) < len(RED_AT)           # the profile's red is not what was painted

    assert main(["analyze", photo, "--table", table, "--json", "--teach-colour", "red=15.1,11.9"]) == 0
    out = json.loads(capsys.readouterr().out)
    learned = out["learned_colours"]["red"]
    assert learned["profile_colour"] == "#c82828"
    r, g, b = (int(learned["colour"][i:i + 2], 16) for i in (1, 3, 5))
    assert r > g > b and r - b > 80                    # an orange, not the profile's red
    assert np.hypot(learned["from"][0] - 15.0, learned["from"][1] - 12.0) < 0.1
    reds = _reds(out)
    assert len(reds) == len(RED_AT)
    for x, y in RED_AT:
        assert min(np.hypot(f["x"] - x, f["y"] - y) for f in reds) < 0.08
    # Saved beside the profile, which is left as the players wrote it, and read back with it.
    assert learned_colours_path(table).exists()
    with open(table, encoding="utf-8") as fh:
        assert "# our own note: kept as written" in fh.read()
    profile = load_profile(table)
    assert profile.sides[0].rgb == (200, 40, 40) and profile.sides[0].learned_rgb == tuple(
        int(learned["colour"][i:i + 2], 16) for i in (1, 3, 5))
    # The next photo analysed with the same table uses it without being told again.
    assert main(["analyze", photo, "--table", table, "--json"]) == 0
    assert len(_reds(json.loads(capsys.readouterr().out))) == len(RED_AT)
    assert out["learned_colours"]["red"]["used"] is True


def test_teaching_a_colour_already_found_keeps_it(tmp_path, table_files, capsys):
    # The blue figures are painted the profile's blue: the profile's colour finds them as surely as
    # one of them read back would, so it is kept and nothing is saved.
    photo, table = _write(tmp_path, table_files)
    x, y = BLUE_AT[0]
    assert main(["analyze", photo, "--table", table, "--json", "--teach-colour", f"blue={x + 0.1},{y}"]) == 0
    out = json.loads(capsys.readouterr().out)
    learned = out["learned_colours"]["blue"]
    assert learned["used"] is False and learned["current_confidence"] is not None
    assert learned["confidence"] < learned["current_confidence"] + 0.1
    assert not learned_colours_path(table).exists()
    assert load_profile(table).sides[1].learned_rgb is None
    blues = [f for f in out["figures"] if f["detected_by"] == "colour" and f["side"] == "blue"]
    assert len(blues) == len(BLUE_AT)
    # said in words, not saved
    assert main(["analyze", photo, "--table", table, "--teach-colour", f"blue={x + 0.1},{y}"]) == 0
    text = capsys.readouterr().out
    assert "already finds that blue figure" in text and "Nothing saved for blue." in text
    assert "Learned the blue" not in text


@pytest.mark.parametrize("teach, message", [
    ("green=10,5", "the table has no side 'green' (its sides: red, blue)"),
    ("red=45,5", "(45, 5) is outside the 30 x 20 in table"),
    ("red=4,17", "no red"),                          # bare mat: nothing there
    ("red=9,14", "no red"),                          # a blue figure is no red one
    ("red", "expected SIDE=X,Y (table inches)"),
    ("red=x,5", "expected SIDE=X,Y (table inches)"),
])
def test_bad_teaching_is_one_line_exit_2_and_keeps_what_was_learned(tmp_path, table_files, capsys, teach, message):
    photo, table = _write(tmp_path, table_files)
    sidecar = learned_colours_path(table)
    sidecar.write_text('[[sides]]\nname = "blue"\nlearned_colour = "#3050c0"\n')
    kept = sidecar.read_text()
    assert main(["analyze", photo, "--table", table, "--teach-colour", "blue=9,14", "--teach-colour", teach]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("tablesight: error: --teach-colour: ") and message in err
    assert sidecar.read_text() == kept
