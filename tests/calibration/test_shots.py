"""Picking calibration shots from a stream of frames."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import assistant.cli as cli
from calibration.shots import BoardSpec, ShotPicker, view_signature

REAL = Path(__file__).parent.parent / "data" / "real"
CHESS = BoardSpec("chessboard", (9, 6), 25 / 25.4)


def _grey(name):
    return cv2.imread(str(REAL / name))


def test_a_still_board_is_taken_once_and_a_new_view_again():
    a, b = _grey("left01.jpg"), _grey("left12.jpg")
    picker = ShotPicker(CHESS)
    # One frame is not enough (it may be blurred by motion); the second still one is taken; then no more.
    assert [picker.offer(f) for f in (a, a, a, a)] == [False, True, False, False]
    assert [picker.offer(f) for f in (b, b)] == [False, True]
    assert len(picker.signatures) == 2


def test_frames_without_the_board_are_passed_over():
    picker = ShotPicker(CHESS, still_px=None)
    assert picker.offer(_grey("charuco_calib_img_00.jpg")) is False
    assert picker.offer(_grey("left03.jpg")) is True


def test_charuco_boards_are_found_too():
    spec = BoardSpec("charuco", (5, 7), 0.04 / 0.0254, 0.02 / 0.0254, "DICT_6X6_250")
    picker = ShotPicker(spec, still_px=None)
    taken = [picker.offer(_grey(f"charuco_calib_img_0{i}.jpg")) for i in range(4)]
    assert taken[0] and sum(taken) >= 2


def test_view_signature_does_not_depend_on_resolution():
    corners = np.array([[100, 100], [300, 120], [310, 300], [90, 280]], float)
    assert np.allclose(view_signature(corners, (640, 480)), view_signature(corners * 2, (1280, 960)))


def test_calibrate_from_a_video_source(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "COMMANDS", ("calibrate",))
    # A video of the board photos, each held for three frames, as a camera would see it.
    video = tmp_path / "board.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (640, 480))
    for f in sorted(REAL.glob("left*.jpg")):
        for _ in range(3):
            writer.write(cv2.imread(str(f)))
    writer.release()
    shots = tmp_path / "shots"
    code = cli.main(["calibrate", "--chessboard", "9x6", "--square", "25mm", "--source", str(video),
                     "--shots", "6", "--save-dir", str(shots), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    summary = json.loads(out)
    assert summary["views_used"] == [f"shot_{i:02d}.png" for i in range(1, 7)]
    assert sorted(p.name for p in shots.iterdir()) == summary["views_used"]
    assert "shot 6 of 6" in err
    assert abs(summary["camera_matrix"][0][0] - 535.9) / 535.9 < 0.02


@pytest.mark.parametrize("argv, message", [
    (["--source", "0", "{left}"], "either photos of the board or --source"),
    ([], "either photos of the board or --source"),
    (["--source", "nowhere/at/all"], "nowhere/at/all: no such camera"),
    (["--source", "{left}", "--shots", "2"], "--shots: at least 3"),
])
def test_source_mode_bad_input(capsys, monkeypatch, argv, message):
    monkeypatch.setattr(cli, "COMMANDS", ("calibrate",))
    argv = [a.format(left=REAL / "left01.jpg") for a in argv]
    code = cli.main(["calibrate", "--chessboard", "9x6", "--square", "25mm", *argv])
    _, err = capsys.readouterr()
    assert code == 2 and message in err
