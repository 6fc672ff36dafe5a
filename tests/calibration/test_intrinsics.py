"""Camera intrinsics on real OpenCV photos, the camera file, and undistortion on exact synthetic truth."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.intrinsics import (CalibrationError, CameraFileError, CameraModel, calibrate_charuco,
                                    calibrate_chessboard, chessboard_points_in, find_chessboard)

REAL = Path(__file__).parent.parent / "data" / "real"
LEFT = sorted(REAL.glob("left*.jpg"))
CHARUCO = sorted(REAL.glob("charuco_calib_img_*.jpg"))
PUBLISHED = json.loads((REAL / "published_intrinsics.json").read_text())
MM = 1 / 25.4


@pytest.fixture(scope="module")
def left_result():
    return calibrate_chessboard(LEFT, (9, 6), 25 * MM)


def test_real_chessboard_photos_reach_the_published_calibration(left_result):
    assert len(LEFT) == 13
    cam = left_result.camera
    published_fx = PUBLISHED["left"]["camera_matrix"][0][0]
    print(f"left*.jpg: RMS {cam.rms_px:.4f} px, fx {cam.fx:.2f} fy {cam.fy:.2f}, "
          f"rejected {[(v.name, v.reason) for v in left_result.views_rejected]}")
    assert cam.rms_px <= 0.42
    assert abs(cam.fx - published_fx) / published_fx <= 0.005
    assert cam.image_size == (640, 480)
    # The principal point lands near the published one too (a few pixels on a 640x480 sensor).
    assert np.allclose(cam.camera_matrix[:2, 2], np.array(PUBLISHED["left"]["camera_matrix"])[:2, 2], atol=5)
    assert len(left_result.views_used) + len(left_result.views_rejected) == 13
    assert len(left_result.view_rms_px) == len(left_result.views_used)


def test_real_charuco_photos_reach_the_published_focal_length():
    result = calibrate_charuco(CHARUCO, (5, 7), 40 * MM, 20 * MM, "DICT_6X6_250")
    published_fx = PUBLISHED["charuco"]["camera_matrix"][0][0]
    print(f"charuco: RMS {result.camera.rms_px:.4f} px, fx {result.camera.fx:.2f}, "
          f"rejected {result.views_rejected}")
    assert len(result.views_used) == 4
    assert abs(result.camera.fx - published_fx) / published_fx <= 0.02
    assert result.camera.rms_px < 0.5


def test_photos_without_the_board_are_named_and_left_out(tmp_path):
    junk = tmp_path / "notes.jpg"
    junk.write_text("not a picture")
    result = calibrate_chessboard(LEFT[:5] + CHARUCO[:1] + [junk], (9, 6), 25 * MM)
    rejected = {v.name: v.reason for v in result.views_rejected}
    assert rejected == {"charuco_calib_img_00.jpg": "no 9x6 chessboard found",
                        "notes.jpg": "cannot be read as an image"}
    assert result.views_used == tuple(p.name for p in LEFT[:5])


def test_a_view_that_fits_badly_is_named_and_left_out():
    # A smooth non-projective warp keeps the board findable but breaks the pinhole model for that view.
    img = cv2.imread(str(LEFT[0]), cv2.IMREAD_GRAYSCALE)
    h, w = img.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    warped = cv2.remap(img, xs + 6 * np.sin(ys / 40), ys + 6 * np.sin(xs / 45), cv2.INTER_LINEAR)
    views = [(p.name, cv2.imread(str(p))) for p in LEFT[1:]] + [("wavy.jpg", warped)]
    result = calibrate_chessboard(views, (9, 6), 25 * MM)
    assert [v.name for v in result.views_rejected] == ["wavy.jpg"]
    assert result.views_rejected[0].reason.startswith("fits badly")
    assert "wavy.jpg" not in result.views_used


def test_photos_of_another_size_are_left_out():
    small = cv2.resize(cv2.imread(str(LEFT[3])), (320, 240))
    views = [(p.name, cv2.imread(str(p))) for p in LEFT[:4]] + [("small.jpg", small)]
    result = calibrate_chessboard(views, (9, 6), 25 * MM)
    assert result.views_rejected[0].name == "small.jpg"
    assert "320x240" in result.views_rejected[0].reason


def test_too_few_boards_is_a_clear_error():
    with pytest.raises(CalibrationError, match=r"only 1 usable photo.*left01.jpg.*no 9x6 chessboard found"):
        calibrate_chessboard(LEFT[:1] + CHARUCO[:2], (9, 6), 25 * MM)
    with pytest.raises(CalibrationError, match="ChArUco board not found"):
        calibrate_charuco(LEFT[:3], (5, 7), 40 * MM, 20 * MM)
    with pytest.raises(CalibrationError, match="unknown marker dictionary"):
        calibrate_charuco(CHARUCO, (5, 7), 40 * MM, 20 * MM, "DICT_NOPE")


def _board_residual_mm(corners_px: np.ndarray) -> np.ndarray:
    """Fit one homography board(mm) -> image and return each corner's miss, measured on the board."""
    board_mm = chessboard_points_in((9, 6), 25.0)[:, :2].astype(np.float64)
    H, _ = cv2.findHomography(board_mm, corners_px.astype(np.float64), 0)
    back = cv2.perspectiveTransform(corners_px.reshape(-1, 1, 2).astype(np.float64), np.linalg.inv(H))
    return np.linalg.norm(back.reshape(-1, 2) - board_mm, axis=1)


@pytest.mark.parametrize("name", ["left12.jpg", "left01.jpg"])
def test_undistortion_makes_the_real_board_a_plane_again(name):
    """A flat board maps by one homography only once lens distortion is removed (SOURCES.md section 3)."""
    camera = CameraModel.from_dict(PUBLISHED["left"])
    grey = cv2.imread(str(REAL / name), cv2.IMREAD_GRAYSCALE)
    corners = find_chessboard(grey, (9, 6))
    raw = _board_residual_mm(corners)
    fixed = _board_residual_mm(camera.undistort_points(corners))
    # Same again through the undistorted frame, as the live loop and analyze will see it.
    via_frame = _board_residual_mm(find_chessboard(camera.undistort(grey), (9, 6)))
    print(f"{name}: raw {raw.mean():.3f}/{raw.max():.3f} mm, undistorted points {fixed.mean():.3f}/"
          f"{fixed.max():.3f} mm, undistorted frame {via_frame.mean():.3f}/{via_frame.max():.3f} mm")
    assert raw.mean() > 0.3            # the lens bends this board by far more than the corner noise
    assert fixed.mean() < raw.mean() / 3
    assert fixed.max() < 0.6
    assert via_frame.mean() < raw.mean() / 2


K = np.array([[800.0, 0, 330.0], [0, 790.0, 245.0], [0, 0, 1]])
DIST = np.array([-0.3, 0.12, 0.001, -0.002, 0.0])


def _synthetic_camera() -> CameraModel:
    return CameraModel(K, DIST, (640, 480), 0.2)


def test_undistort_points_inverts_the_lens_model():
    rng = np.random.default_rng(5)
    world = np.column_stack([rng.uniform(-0.3, 0.3, 60), rng.uniform(-0.22, 0.22, 60), np.ones(60)])
    new_k, _size = _synthetic_camera().output_geometry(640, 480)
    ideal = world[:, :2] * [new_k[0, 0], new_k[1, 1]] + new_k[:2, 2]
    distorted, _ = cv2.projectPoints(world, np.zeros(3), np.zeros(3), K, DIST)
    got = _synthetic_camera().undistort_points(distorted.reshape(-1, 2))
    assert np.abs(got - ideal).max() < 0.01
    assert _synthetic_camera().undistort_points(np.zeros((0, 2))).shape == (0, 2)


@pytest.mark.parametrize("scale", [1, 2])
def test_undistort_moves_a_dot_to_its_ideal_place(scale):
    camera = _synthetic_camera()
    world = np.array([[0.25, 0.18, 1.0]])
    distorted, _ = cv2.projectPoints(world, np.zeros(3), np.zeros(3), K, DIST)
    new_k, size = camera.output_geometry(640, 480)
    ideal = world[0, :2] * [new_k[0, 0], new_k[1, 1]] + new_k[:2, 2]
    frame = np.zeros((480 * scale, 640 * scale), np.uint8)
    cv2.circle(frame, tuple(int(round(v * scale * 16)) for v in distorted.ravel()), 4 * scale * 16, 255, -1,
               cv2.LINE_AA, 4)
    out = camera.undistort(frame)
    assert abs(out.shape[1] - size[0] * scale) <= scale and abs(out.shape[0] - size[1] * scale) <= scale
    m = cv2.moments(out, binaryImage=False)
    centre = np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]]) / scale
    assert np.abs(centre - ideal).max() < 0.5
    assert (640 * scale, 480 * scale) in camera._maps      # the remap tables are kept for the next frame


@pytest.mark.parametrize("which", ["left", "charuco"])
def test_undistortion_keeps_every_source_pixel_at_the_centre_scale(which):
    camera = CameraModel.from_dict(PUBLISHED[which])
    new_k, (w, h) = camera.output_geometry(640, 480)
    assert new_k[0, 0] == camera.fx and new_k[1, 1] == camera.fy      # same scale: no detail lost
    xs, ys = np.meshgrid(np.linspace(0, 639, 33), np.linspace(0, 479, 25))
    out = camera.undistort_points(np.column_stack([xs.ravel(), ys.ravel()]))
    assert out.min() >= -0.5 and (out[:, 0] <= w - 0.5).all() and (out[:, 1] <= h - 0.5).all()
    # The canvas is no bigger than it needs to be: the rim touches it on every side.
    assert out[:, 0].min() < 1 and out[:, 1].min() < 1 and out[:, 0].max() > w - 3 and out[:, 1].max() > h - 3
    # A white frame stays white to its rim once undistorted: nothing of it fell off the edge.
    white = camera.undistort(np.full((480, 640), 255, np.uint8))
    assert white.shape == (h, w)
    rim = cv2.undistortPoints(np.array([[[0.0, 0.0]], [[639.0, 479.0]], [[320.0, 0.0]]]),
                              camera.camera_matrix, camera.dist, P=new_k).reshape(-1, 2)
    for x, y in rim:
        assert white[min(int(round(y)) + 2, h - 1), min(int(round(x)) + 2, w - 1)] > 0 or \
            white[max(int(round(y)) - 2, 0), max(int(round(x)) - 2, 0)] > 0


def test_an_extreme_lens_gives_up_scale_rather_than_grow_without_end():
    wide = np.array([[300.0, 0, 320], [0, 300, 240], [0, 0, 1]])
    fisheye = CameraModel(wide, np.array([-0.4, 0.12, 0, 0, -0.01]), (640, 480))
    new_k, (w, h) = fisheye.output_geometry(640, 480)
    assert w <= 640 * 1.5 + 2 and h <= 480 * 1.5 + 2
    assert new_k[0, 0] < 300 and new_k[0, 0] == new_k[1, 1]


def test_frames_of_another_shape_are_refused():
    with pytest.raises(CameraFileError, match="1280x720"):
        _synthetic_camera().undistort(np.zeros((720, 1280), np.uint8))


def test_camera_file_round_trip(tmp_path):
    camera = _synthetic_camera()
    path = tmp_path / "camera.json"
    camera.save(path, {"views_used": ["a.jpg"]})
    back = CameraModel.load(path)
    assert np.array_equal(back.camera_matrix, K) and np.array_equal(back.dist, DIST)
    assert back.image_size == (640, 480) and back.rms_px == 0.2
    assert json.loads(path.read_text())["views_used"] == ["a.jpg"]


GOOD = {"camera_matrix": K.tolist(), "dist": DIST.tolist(), "image_size": [640, 480]}


@pytest.mark.parametrize("text, message", [
    ("{not json", "bad JSON"),
    ("[1, 2]", "expected a JSON object"),
    (json.dumps({**GOOD, "format": "something-else"}), "not a tablesight camera file"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "dist"}), "dist is missing"),
    (json.dumps({**GOOD, "camera_matrix": [[1, 0], [0, 1]]}), "3x3"),
    (json.dumps({**GOOD, "camera_matrix": [[-5, 0, 1], [0, 5, 1], [0, 0, 1]]}), "fx, fy > 0"),
    (json.dumps({**GOOD, "camera_matrix": "big"}), "must be numbers"),
    (json.dumps({**GOOD, "dist": [0.1, 0.2, 0.3]}), "dist must hold"),
    (json.dumps({**GOOD, "image_size": [640, 0]}), "image_size"),
])
def test_corrupt_camera_files_are_named(tmp_path, text, message):
    path = tmp_path / "camera.json"
    path.write_text(text)
    with pytest.raises(CameraFileError, match=message) as info:
        CameraModel.load(path)
    assert str(path) in str(info.value)


def test_missing_camera_file(tmp_path):
    with pytest.raises(CameraFileError, match="no such camera file"):
        CameraModel.load(tmp_path / "nope.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(CameraFileError, match="cannot read"):
        CameraModel.load(tmp_path / "bin.json")
