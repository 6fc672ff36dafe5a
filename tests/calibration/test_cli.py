"""`tablesight calibrate` and `tablesight print` end to end through the real main(): output, files, exit codes."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

import assistant.cli as cli
from calibration.intrinsics import CameraModel

REAL = Path(__file__).parent.parent / "data" / "real"


@pytest.fixture(autouse=True)
def only_these_commands(monkeypatch):
    # Other engineers' commands are built in parallel; these tests need only ours.
    monkeypatch.setattr(cli, "COMMANDS", ("calibrate", "print_sheets"))


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_calibrate_chessboard_json_and_camera_file(capsys, tmp_path):
    out_file = tmp_path / "camera.json"
    code, out, err = run(capsys, "calibrate", "--chessboard", "9x6", "--square", "25mm",
                         *sorted(REAL.glob("left*.jpg")), "--out", out_file, "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert set(summary) == {"rms_px", "camera_matrix", "dist", "image_size", "views_used", "views_rejected"}
    assert summary["rms_px"] <= 0.42
    assert abs(summary["camera_matrix"][0][0] - 535.92) / 535.92 <= 0.005
    assert np.array(summary["camera_matrix"]).shape == (3, 3) and len(summary["dist"]) == 5
    assert summary["image_size"] == [640, 480] and len(summary["views_used"]) == 13
    camera = CameraModel.load(out_file)
    assert camera.camera_matrix.tolist() == summary["camera_matrix"]
    assert json.loads(out_file.read_text())["board"]["kind"] == "chessboard"
    assert not (tmp_path / "camera.json.tmp").exists()


def test_calibrate_charuco_from_a_folder_in_inches(capsys, tmp_path):
    folder = tmp_path / "shots"
    folder.mkdir()
    for f in sorted(REAL.glob("charuco_calib_img_*.jpg")):
        shutil.copy(f, folder / f.name)
    shutil.copy(REAL / "left01.jpg", folder / "zz_no_board.jpg")
    # 40 mm and 20 mm squares written in inches: the focal length does not care about the unit.
    code, out, err = run(capsys, "calibrate", "--charuco", "5x7", "--square", f"{40 / 25.4}in",
                         "--marker", f"{20 / 25.4}in", "--dict", "DICT_6X6_250", folder)
    assert code == 0, err
    assert "calibrated from 4 of 5 photos" in out
    assert "left out zz_no_board.jpg: ChArUco board not found" in out
    assert "no --out given: nothing written" in out
    fx = float(out.split("fx ")[1].split(" px")[0])
    assert abs(fx - 452.51) / 452.51 <= 0.02


@pytest.mark.parametrize("args, message", [
    (["--chessboard", "9x6", "--square", "25", "{left}"], "--square: cannot read '25' as a length"),
    (["--chessboard", "9", "--square", "25mm", "{left}"], "--chessboard: expected two whole numbers"),
    (["--chessboard", "9x6", "--square", "25mm", "nowhere.jpg"], "nowhere.jpg: no such photo or folder"),
    (["--chessboard", "9x6", "--square", "25mm", "{charuco}"], "only 0 usable photo"),
    (["--charuco", "5x7", "--square", "40mm", "{charuco}"], "--charuco needs --marker"),
    (["--charuco", "5x7", "--square", "40mm", "--marker", "50mm", "{charuco}"], "must be smaller than the square"),
    (["--chessboard", "9x6", "--square", "25mm", "--marker", "2mm", "{left}"], "--marker is for --charuco"),
    (["--charuco", "5x7", "--square", "40mm", "--marker", "20mm", "--dict", "DICT_9", "{charuco}"],
     "unknown marker dictionary 'DICT_9'"),
])
def test_calibrate_bad_input_is_one_line_and_status_2(capsys, tmp_path, args, message):
    out_file = tmp_path / "camera.json"
    args = [a.format(left=REAL / "left01.jpg", charuco=REAL / "charuco_calib_img_00.jpg") for a in args]
    code, out, err = run(capsys, "calibrate", *args, "--out", out_file)
    assert code == 2
    assert err.startswith("tablesight: error: ") and message in err and err.count("\n") == 1
    assert not out_file.exists()


def test_a_failed_calibration_keeps_the_old_camera_file(capsys, tmp_path):
    out_file = tmp_path / "camera.json"
    out_file.write_text("the old one")
    code, _, _ = run(capsys, "calibrate", "--chessboard", "9x6", "--square", "25mm", REAL / "charuco_calib_img_00.jpg",
                     "--out", out_file)
    assert code == 2 and out_file.read_text() == "the old one"


@pytest.mark.parametrize("argv, fmt", [
    (["anchors"], "pdf"),
    (["markers", "--ids", "10-13,20", "--size", "0.75in", "--rim", "red"], "png"),
    (["markers", "--ids", "3", "--size", "25mm", "--rim", "#2850c8", "--paper", "letter"], "svg"),
    (["charuco", "--squares", "4x6", "--square", "30mm"], "pdf"),
    (["grid", "--kind", "hex", "--pitch", "1in", "--orientation", "pointy"], "svg"),
])
def test_print_writes_each_sheet(capsys, tmp_path, argv, fmt):
    out_file = tmp_path / f"sheet.{fmt}"
    code, out, err = run(capsys, "print", *argv, "--out", out_file, "--dpi", "100")
    assert code == 0, err
    data = out_file.read_bytes()
    assert data[:4] == {"pdf": b"%PDF", "png": b"\x89PNG", "svg": b"<?xm"}[fmt]
    assert "Print at 100% / actual size" in out


def test_print_png_decodes_to_the_ids_asked_for(capsys, tmp_path):
    out_file = tmp_path / "m.png"
    code, out, _ = run(capsys, "print", "markers", "--ids", "10-12,40", "--out", out_file, "--dpi", "120")
    assert code == 0 and "markers 10, 11, 12, 40" in out
    img = cv2.imread(str(out_file))
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    _, ids, _ = detector.detectMarkers(img)
    assert sorted(ids.ravel().tolist()) == [10, 11, 12, 40]


def test_print_anchors_from_a_table_profile(capsys, tmp_path):
    profile = tmp_path / "table.toml"
    profile.write_text('width = 30\ndepth = 20\n[markers]\ndictionary = "DICT_5X5_50"\n'
                       '[[anchors]]\nid = 7\nx = 2\ny = 2\nsize = 1.5\n[[anchors]]\nid = 9\nx = 28\ny = 18\nsize = 1.5\n')
    out_file = tmp_path / "a.png"
    code, out, err = run(capsys, "print", "anchors", "--table", profile, "--out", out_file, "--dpi", "100")
    assert code == 0, err
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_50))
    corners, ids, _ = detector.detectMarkers(cv2.imread(str(out_file)))
    assert sorted(ids.ravel().tolist()) == [7, 9]
    side_in = np.linalg.norm(corners[0].reshape(4, 2)[1] - corners[0].reshape(4, 2)[0]) / 100
    assert side_in == pytest.approx(1.5, rel=0.01)


@pytest.mark.parametrize("argv, message", [
    (["markers", "--out", "{d}/m.pdf"], "say which ids"),
    (["markers", "--ids", "10-x", "--out", "{d}/m.pdf"], "--ids: cannot read '10-x'"),
    (["markers", "--ids", "12-10", "--out", "{d}/m.pdf"], "runs backwards"),
    (["markers", "--ids", "10", "--rim", "mauve", "--out", "{d}/m.pdf"], "--rim"),
    (["markers", "--ids", "10", "--out", "{d}/m.doc"], "cannot tell the format"),
    (["markers", "--ids", "0-60", "--out", "{d}/m.pdf"], "do not fit on one a4 sheet"),
    (["grid", "--ids", "1", "--out", "{d}/g.pdf"], "--ids does not apply to the grid sheet"),
    (["anchors", "--size", "2", "--out", "{d}/a.pdf"], "--size: cannot read '2'"),
    (["anchors", "--table", "{d}/none.toml", "--out", "{d}/a.pdf"], "no such table profile"),
    (["anchors", "--out", "{d}/no/such/dir/a.pdf"], "a.pdf"),
    (["markers", "--ids", "3", "--dpi", "5", "--out", "{d}/m.png"], "dpi 5"),
])
def test_print_bad_input_is_one_line_and_status_2(capsys, tmp_path, argv, message):
    code, _, err = run(capsys, "print", *[a.format(d=tmp_path) for a in argv])
    assert code == 2 and err.startswith("tablesight: error: ") and message in err and err.count("\n") == 1


def test_the_print_commands_in_the_setup_guide_work(capsys, tmp_path):
    guide = Path(__file__).parents[2] / "docs" / "setup.md"
    lines = [line.split("#")[0].split() for line in guide.read_text().splitlines()
             if line.startswith("tablesight print")]
    assert len(lines) >= 5
    for words in lines:
        words = [str(tmp_path / Path(w).name) if i > 0 and words[i - 1] == "--out" else w
                 for i, w in enumerate(words)]
        if "--table" in words:
            continue
        code, _, err = run(capsys, *words[1:])
        assert code == 0, (words, err)
