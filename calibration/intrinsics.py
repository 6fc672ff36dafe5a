"""Camera intrinsics: the camera file, undistortion, and calibration from chessboard or ChArUco photos.

A camera file is JSON written by `CameraModel.save` (format "tablesight-camera", version 1). Board
sizes are in inches like everything else in tablesight; the intrinsics do not depend on that unit.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence, Union

import cv2
import numpy as np

from calibration.textfile import read_text

CAMERA_FORMAT = "tablesight-camera"
CAMERA_VERSION = 1

# A view is left out when its own reprojection RMS is above both OUTLIER_FACTOR x the median view's
# and OUTLIER_FLOOR_PX: a blurred or mis-ordered board, not ordinary noise.
OUTLIER_FACTOR = 3.0
OUTLIER_FLOOR_PX = 0.5
MIN_VIEWS = 3
MIN_CHARUCO_CORNERS = 6
# Chessboard search runs on a copy no wider than this (phone photos are slow to search at full size);
# the corners are then refined on the full-size picture.
DETECT_MAX_WIDTH_PX = 1280
# An undistorted picture may grow by at most this factor per side to keep its rim (see output_geometry).
MAX_GROWTH = 1.5

ImageInput = Union[str, Path, tuple[str, np.ndarray]]


class CameraFileError(ValueError):
    """A camera file that cannot be used; the message names the file and what is wrong."""


class CalibrationError(ValueError):
    """Calibration cannot be done with these photos; the message says why."""


@dataclass(frozen=True, eq=False)
class CameraModel:
    camera_matrix: np.ndarray          # 3x3, pixels, for image_size
    dist: np.ndarray                   # OpenCV distortion coefficients (k1, k2, p1, p2, k3, ...)
    image_size: tuple[int, int]        # (width, height) in pixels of the calibration photos
    rms_px: float = float("nan")       # reprojection RMS of the calibration
    _maps: dict = field(default_factory=dict, repr=False, compare=False)   # (w, h) -> remap tables

    @property
    def fx(self) -> float:
        return float(self.camera_matrix[0, 0])

    @property
    def fy(self) -> float:
        return float(self.camera_matrix[1, 1])

    def matrix_for(self, width: int, height: int) -> np.ndarray:
        """The camera matrix for frames of width x height: scaled when the aspect ratio matches."""
        w0, h0 = self.image_size
        if (width, height) == (w0, h0):
            return self.camera_matrix
        sx, sy = width / w0, height / h0
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise CameraFileError(f"frames are {width}x{height} but the camera file was made from "
                                  f"{w0}x{h0} photos (a different shape): calibrate at this resolution")
        k = self.camera_matrix.copy()
        k[0, :] *= sx
        k[1, :] *= sy
        return k

    def output_geometry(self, width: int, height: int) -> tuple[np.ndarray, tuple[int, int]]:
        """The camera matrix and size (w, h) of the undistorted picture of a width x height frame.

        Undistorting with the same matrix would push the picture's rim out of the frame (a fifth of
        it for a typical webcam), and the anchors sit near that rim. So the output keeps the
        centre's scale and grows (or shrinks) to hold every source pixel; growth is capped at
        MAX_GROWTH per side for extreme lenses, where the scale gives way instead.
        """
        k = self.matrix_for(width, height)
        n = 64
        t = np.linspace(0.0, 1.0, n)
        rim = np.vstack([np.column_stack([t * (width - 1), np.zeros(n)]),
                         np.column_stack([t * (width - 1), np.full(n, height - 1.0)]),
                         np.column_stack([np.zeros(n), t * (height - 1)]),
                         np.column_stack([np.full(n, width - 1.0), t * (height - 1)])])
        out = cv2.undistortPoints(rim.reshape(-1, 1, 2), k, self.dist, P=k).reshape(-1, 2)
        lo, hi = out.min(axis=0), out.max(axis=0)
        span = np.maximum(hi - lo, 1.0)
        scale = min(1.0, MAX_GROWTH * width / span[0], MAX_GROWTH * height / span[1])
        new_k = k.copy()
        new_k[0, 0] *= scale
        new_k[1, 1] *= scale
        new_k[0, 1] *= scale
        new_k[0, 2] = (k[0, 2] - lo[0]) * scale
        new_k[1, 2] = (k[1, 2] - lo[1]) * scale
        size = (int(math.ceil(span[0] * scale)) + 1, int(math.ceil(span[1] * scale)) + 1)
        return new_k, size

    def undistort(self, frame: np.ndarray) -> np.ndarray:
        """The frame with lens distortion removed, every source pixel kept (see `output_geometry`)."""
        h, w = frame.shape[:2]
        maps = self._maps.get((w, h))
        if maps is None:
            new_k, size = self.output_geometry(w, h)
            maps = cv2.initUndistortRectifyMap(self.matrix_for(w, h), self.dist, None, new_k, size,
                                               cv2.CV_16SC2)
            self._maps[(w, h)] = maps   # a camera runs at one size: compute the tables once
        return cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def undistort_points(self, points_px, image_size: tuple[int, int] | None = None) -> np.ndarray:
        """(N, 2) pixel points of a distorted frame of `image_size` (default: the calibration's) ->
        where `undistort` puts them, (N, 2) float64."""
        pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        if len(pts) == 0:
            return pts.copy()
        w, h = image_size or self.image_size
        new_k, _size = self.output_geometry(w, h)
        out = cv2.undistortPoints(pts.reshape(-1, 1, 2), self.matrix_for(w, h), self.dist, P=new_k)
        return out.reshape(-1, 2)

    def to_dict(self) -> dict:
        return {"format": CAMERA_FORMAT, "version": CAMERA_VERSION,
                "image_size": [int(self.image_size[0]), int(self.image_size[1])],
                "camera_matrix": self.camera_matrix.tolist(), "dist": self.dist.ravel().tolist(),
                "rms_px": None if math.isnan(self.rms_px) else float(self.rms_px)}

    def save(self, path: str | Path, extra: dict | None = None) -> None:
        """Write the camera file; `extra` keys (views used, board) are kept for the reader's sake."""
        data = self.to_dict()
        data.update(extra or {})
        Path(path).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data, where: str = "camera file") -> "CameraModel":
        if not isinstance(data, dict):
            raise CameraFileError(f"{where}: expected a JSON object")
        if data.get("format", CAMERA_FORMAT) != CAMERA_FORMAT:
            raise CameraFileError(f"{where}: format {data.get('format')!r} is not a tablesight camera file")
        for key in ("camera_matrix", "dist", "image_size"):
            if key not in data:
                raise CameraFileError(f"{where}: {key} is missing")
        try:
            k = np.array(data["camera_matrix"], dtype=np.float64)
            dist = np.array(data["dist"], dtype=np.float64).ravel()
            size = tuple(int(v) for v in data["image_size"])
        except (TypeError, ValueError):
            raise CameraFileError(f"{where}: camera_matrix, dist and image_size must be numbers") from None
        if k.shape != (3, 3) or not np.all(np.isfinite(k)) or k[0, 0] <= 0 or k[1, 1] <= 0 or k[2, 2] != 1:
            raise CameraFileError(f"{where}: camera_matrix must be a 3x3 matrix [[fx,0,cx],[0,fy,cy],[0,0,1]] "
                                  "with fx, fy > 0")
        if dist.size not in (4, 5, 8, 12, 14) or not np.all(np.isfinite(dist)):
            raise CameraFileError(f"{where}: dist must hold 4, 5, 8, 12 or 14 finite numbers")
        if len(size) != 2 or min(size) <= 0:
            raise CameraFileError(f"{where}: image_size must be [width, height] in pixels")
        rms = data.get("rms_px")
        rms = float("nan") if rms is None else float(rms)
        return cls(camera_matrix=k, dist=dist, image_size=(size[0], size[1]), rms_px=rms)

    @classmethod
    def load(cls, path: str | Path) -> "CameraModel":
        """Read a camera file; any problem raises CameraFileError naming the file."""
        path = Path(path)
        text = read_text(path, "camera file", CameraFileError)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CameraFileError(f"{path}: not a camera file (bad JSON at line {exc.lineno})") from None
        return cls.from_dict(data, str(path))


@dataclass(frozen=True)
class RejectedView:
    name: str
    reason: str


@dataclass(frozen=True)
class CalibrationResult:
    camera: CameraModel
    views_used: tuple[str, ...]
    views_rejected: tuple[RejectedView, ...]
    view_rms_px: tuple[float, ...]     # one per used view, same order

    def summary(self) -> dict:
        """The `--json` form."""
        return {"rms_px": round(self.camera.rms_px, 6),
                "camera_matrix": self.camera.camera_matrix.tolist(),
                "dist": self.camera.dist.ravel().tolist(),
                "image_size": list(self.camera.image_size),
                "views_used": list(self.views_used),
                "views_rejected": [{"view": v.name, "reason": v.reason} for v in self.views_rejected]}


def _read_views(images: Sequence[ImageInput]) -> tuple[list[tuple[str, np.ndarray]], list[RejectedView]]:
    """Load photos as grey images; unreadable ones and ones of another size are rejected by name."""
    views, rejected = [], []
    size = None
    for item in images:
        if isinstance(item, tuple):
            name, img = item
        else:
            name = str(item)
            img = cv2.imread(name, cv2.IMREAD_GRAYSCALE) if Path(name).is_file() else None
            if img is None:
                rejected.append(RejectedView(Path(name).name, "cannot be read as an image"
                                             if Path(name).exists() else "no such file"))
                continue
        name = Path(name).name
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
        this = (grey.shape[1], grey.shape[0])
        if size is None:
            size = this
        elif this != size:
            rejected.append(RejectedView(name, f"is {this[0]}x{this[1]}, the first photo is {size[0]}x{size[1]}"))
            continue
        views.append((name, grey))
    return views, rejected


def find_chessboard(grey: np.ndarray, pattern: tuple[int, int]) -> np.ndarray | None:
    """Inner corners (N, 2) float32 of a cols x rows chessboard, refined to sub-pixel, or None."""
    scale = min(1.0, DETECT_MAX_WIDTH_PX / grey.shape[1])
    small = grey if scale == 1.0 else cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
    found, corners = cv2.findChessboardCorners(small, pattern, flags=flags)
    if not found:
        return None
    corners = corners.reshape(-1, 2).astype(np.float32) / scale
    # Keep the refinement window inside one square: half the closest corner spacing at most.
    spacing = np.linalg.norm(np.diff(corners.reshape(pattern[1], pattern[0], 2), axis=1), axis=2).min()
    half = int(max(2, min(11, spacing * 0.45)))
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.001)
    refined = cv2.cornerSubPix(grey, corners.reshape(-1, 1, 2), (half, half), (-1, -1), criteria)
    return refined.reshape(-1, 2)


def chessboard_points_in(pattern: tuple[int, int], square_in: float) -> np.ndarray:
    """Board-plane coordinates (N, 3) of the inner corners, row by row, in inches."""
    cols, rows = pattern
    grid = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_in
    return np.hstack([grid, np.zeros((len(grid), 1))]).astype(np.float32)


def _solve(names, object_pts, image_pts, size, rejected, flags) -> CalibrationResult:
    """calibrateCamera, then leave out outlier views and solve again until none is left."""
    names, object_pts, image_pts = list(names), list(object_pts), list(image_pts)
    rejected = list(rejected)
    while True:
        if len(names) < MIN_VIEWS:
            found = ", ".join(names) or "none"
            why = "; ".join(f"{r.name}: {r.reason}" for r in rejected) or "no photos"
            raise CalibrationError(f"only {len(names)} usable photo(s) ({found}); at least {MIN_VIEWS} are "
                                   f"needed. Left out: {why}")
        rms, k, dist, _r, _t, _si, _se, per_view = cv2.calibrateCameraExtended(
            object_pts, image_pts, size, None, None, flags=flags)
        per_view = per_view.ravel()
        limit = max(OUTLIER_FACTOR * float(np.median(per_view)), OUTLIER_FLOOR_PX)
        bad = [i for i, e in enumerate(per_view) if e > limit]
        if not bad or len(names) - len(bad) < MIN_VIEWS:
            camera = CameraModel(camera_matrix=k, dist=dist.ravel(), image_size=size, rms_px=float(rms))
            return CalibrationResult(camera, tuple(names), tuple(rejected), tuple(float(e) for e in per_view))
        for i in reversed(bad):
            rejected.append(RejectedView(names[i], f"fits badly: {per_view[i]:.2f} px against "
                                                   f"{np.median(per_view):.2f} px for a typical photo"))
            del names[i], object_pts[i], image_pts[i]


def calibrate_chessboard(images: Sequence[ImageInput], pattern: tuple[int, int] = (9, 6),
                         square_in: float = 25 / 25.4, flags: int = 0) -> CalibrationResult:
    """Intrinsics from photos of a chessboard with `pattern` = (inner corners across, down)."""
    views, rejected = _read_views(images)
    names, obj, img = [], [], []
    board = chessboard_points_in(pattern, square_in)
    for name, grey in views:
        corners = find_chessboard(grey, pattern)
        if corners is None:
            rejected.append(RejectedView(name, f"no {pattern[0]}x{pattern[1]} chessboard found"))
            continue
        names.append(name)
        obj.append(board)
        img.append(corners)
    size = (views[0][1].shape[1], views[0][1].shape[0]) if views else (0, 0)
    return _solve(names, obj, img, size, rejected, flags)


def charuco_board(squares: tuple[int, int], square_in: float, marker_in: float, dictionary: str):
    """The cv2.aruco.CharucoBoard with `squares` = (across, down); lengths in inches."""
    from calibration.profile import ProfileError, aruco_dictionary
    if not 0 < marker_in < square_in:
        raise CalibrationError(f"ChArUco marker size {marker_in:g} in must be smaller than the square "
                               f"{square_in:g} in")
    try:
        dic = aruco_dictionary(dictionary)
    except ProfileError:
        raise CalibrationError(f"unknown marker dictionary {dictionary!r} (use a cv2.aruco name such as "
                               "DICT_6X6_250)") from None
    return cv2.aruco.CharucoBoard(squares, square_in, marker_in, dic)


def calibrate_charuco(images: Sequence[ImageInput], squares: tuple[int, int] = (5, 7),
                      square_in: float = 0.04 / 0.0254, marker_in: float = 0.02 / 0.0254,
                      dictionary: str = "DICT_6X6_250", flags: int = 0) -> CalibrationResult:
    """Intrinsics from photos of a ChArUco board; views with too few corners are left out."""
    board = charuco_board(squares, square_in, marker_in, dictionary)
    detector = cv2.aruco.CharucoDetector(board)
    views, rejected = _read_views(images)
    names, obj, img = [], [], []
    for name, grey in views:
        corners, ids, _mc, _mi = detector.detectBoard(grey)
        n = 0 if ids is None else len(ids)
        if n < MIN_CHARUCO_CORNERS:
            rejected.append(RejectedView(name, f"ChArUco board not found ({n} corners, need "
                                               f"{MIN_CHARUCO_CORNERS})"))
            continue
        op, ip = board.matchImagePoints(corners, ids)
        op = op.reshape(-1, 3).astype(np.float32)
        # Corners all on one line give no plane: such a view cannot constrain the camera.
        if np.linalg.matrix_rank(op[:, :2] - op[:, :2].mean(axis=0), tol=1e-6) < 2:
            rejected.append(RejectedView(name, "ChArUco corners seen lie on one line"))
            continue
        names.append(name)
        obj.append(op)
        img.append(ip.reshape(-1, 2).astype(np.float32))
    size = (views[0][1].shape[1], views[0][1].shape[0]) if views else (0, 0)
    return _solve(names, obj, img, size, rejected, flags)
