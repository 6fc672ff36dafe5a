"""`tablesight analyze`: the demo photo becomes the contract's Scene JSON; bad input is one line, exit 2."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import cv2
import numpy as np
import pytest

from assistant.cli import main
from assistant.demo import DEMO_PHOTO, DEMO_TABLE, DEMO_TRUTH


def test_demo_json_matches_the_truth(capsys):
    assert main(["analyze", "--demo", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["units"] == "in" and out["table"] == {"width": 48.0, "depth": 36.0}
    assert set(out) >= {"grid", "figures", "terrain", "registration"}
    assert out["registration"]["anchors_seen"] == [0, 1, 2, 3] and out["registration"]["rms_px"] < 1.0
    truth = {f["id"]: f for f in json.loads(DEMO_TRUTH.read_text())["figures"]}
    figures = {f["id"]: f for f in out["figures"]}
    assert set(figures) == set(truth)
    for fid, fig in figures.items():
        assert fig["marker"] == int(fid[1:]) and fig["detected_by"] == "marker"
        assert math.hypot(fig["x"] - truth[fid]["x"], fig["y"] - truth[fid]["y"]) < 0.05
    # Roster fields come from the table profile.
    assert figures["m10"]["name"] == "Robin" and figures["m10"]["type"] == "archer" and figures["m10"]["side"] == "red"


def test_distances_read_true_to_a_tenth(capsys):
    main(["analyze", "--demo", "--json"])
    figures = json.loads(capsys.readouterr().out)["figures"]
    truth = {f["id"]: f for f in json.loads(DEMO_TRUTH.read_text())["figures"]}
    for a in figures:
        for b in figures:
            measured = math.hypot(a["x"] - b["x"], a["y"] - b["y"])
            true = math.hypot(truth[a["id"]]["x"] - truth[b["id"]]["x"], truth[a["id"]]["y"] - truth[b["id"]]["y"])
            assert abs(measured - true) <= 0.1


def test_readable_report_and_repeat(capsys):
    assert main(["analyze", str(DEMO_PHOTO), "--table", str(DEMO_TABLE), "--repeat", "2"]) == 0
    text = capsys.readouterr().out
    assert "anchors seen 0, 1, 2, 3" in text and "Robin" in text and "Centre-to-centre distances" in text
    assert "2 runs, median" in text
    main(["analyze", "--demo", "--json", "--repeat", "3"])
    timing = json.loads(capsys.readouterr().out)["timing"]
    assert timing["frames"] == 3 and timing["median_ms"] > 0


def _write(path, data: bytes):
    path.write_bytes(data)
    return path


def _blank_photo(path):
    cv2.imwrite(str(path), np.full((480, 640, 3), 180, np.uint8))
    return path


@pytest.mark.parametrize("make, expected", [
    (lambda d: d / "missing.jpg", "no such file"),
    (lambda d: _write(d / "empty.jpg", b""), "empty"),
    (lambda d: _write(d / "notes.jpg", b"not a photo"), "not an image"),
    (lambda d: d, "is a folder"),
    (lambda d: _blank_photo(d / "plain.png"), "no anchor in view"),
])
def test_bad_photo_is_one_line_exit_2(tmp_path, capsys, make, expected):
    photo = make(tmp_path)
    assert main(["analyze", str(photo), "--table", str(DEMO_TABLE)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert expected in captured.err and captured.err.count("\n") == 1 and "Traceback" not in captured.err


def test_bad_profile_is_one_line_exit_2(tmp_path, capsys):
    table = tmp_path / "table.toml"
    table.write_text('width = 48\ndepth = 36\n[markers]\ndictionary = "DICT_BOGUS"\n[[anchors]]\nid = 0\nx = 1.25\ny = 1.25\nsize = 2.0\n')
    assert main(["analyze", str(DEMO_PHOTO), "--table", str(table)]) == 2
    err = capsys.readouterr().err
    assert "markers.dictionary" in err and "unknown dictionary" in err and err.count("\n") == 1


def test_missing_table_option(capsys):
    assert main(["analyze", str(DEMO_PHOTO)]) == 2
    assert "--table" in capsys.readouterr().err


def test_console_script_runs_without_traceback(tmp_path):
    """The installed entry point (python -m assistant) behaves the same as main()."""
    done = subprocess.run([sys.executable, "-m", "assistant", "analyze", str(tmp_path / "nope.jpg"),
                           "--table", str(DEMO_TABLE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "no such file" in done.stderr


def test_a_table_of_a_sides_colour_is_a_note_in_the_report(tmp_path, capsys):
    """Red rims on a cherry-wood kitchen table: measured, and the report names the side and what helps."""
    from vision.synthetic.export import write_hard_photo
    from vision.synthetic.hard import hard_photo

    picture = write_hard_photo(hard_photo(13, 34, mat="kitchen"), tmp_path, "cherry")
    assert main(["analyze", str(picture), "--table", str(picture.with_suffix(".toml"))]) == 0
    report = capsys.readouterr().out
    assert "note: The table itself looks much like the red bases' colour" in report
    # (its table has blue water felt too, and blue rims: said as well)
    assert "note: Blue figures standing in or beside the water may be missed" in report
    assert main(["analyze", str(picture), "--table", str(picture.with_suffix(".toml")), "--json"]) == 0
    scene = json.loads(capsys.readouterr().out)
    assert scene["colour_like_table"] == ["red"] and scene["colour_like_felt"] == {"blue": ["water"]}


def test_analyze_says_when_a_warm_bulb_starves_a_sides_colour(tmp_path, capsys):
    """Blue rims under a household bulb (2949 K): measured, and the report names the side and what helps."""
    from vision.synthetic.export import write_hard_photo
    from vision.synthetic.hard import hard_photo

    picture = write_hard_photo(hard_photo(0, 2), tmp_path, "bulb")
    assert main(["analyze", str(picture), "--table", str(picture.with_suffix(".toml"))]) == 0
    assert "note: The light is very warm (orange), so the blue bases' colour shows faintly" in capsys.readouterr().out
    assert main(["analyze", str(picture), "--table", str(picture.with_suffix(".toml")), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["light_tint"]["faint_sides"] == ["blue"]
