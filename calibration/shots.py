"""Picking calibration shots from a running camera: keep a frame when the board is found, still, and
seen from a new enough place, so a person only has to move the board around in front of the camera."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.intrinsics import charuco_board, find_chessboard


@dataclass(frozen=True)
class BoardSpec:
    kind: str                               # "chessboard" or "charuco"
    pattern: tuple[int, int]                # inner corners (chessboard) or squares (charuco)
    square_in: float
    marker_in: float = 0.0
    dictionary: str = "DICT_6X6_250"


class BoardFinder:
    """Board corners (N, 2) in a frame, or None."""

    def __init__(self, spec: BoardSpec):
        self.spec = spec
        if spec.kind == "charuco":
            self._detector = cv2.aruco.CharucoDetector(
                charuco_board(spec.pattern, spec.square_in, spec.marker_in, spec.dictionary))

    def corners(self, frame: np.ndarray) -> np.ndarray | None:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        if self.spec.kind == "chessboard":
            return find_chessboard(grey, self.spec.pattern)
        corners, ids, _, _ = self._detector.detectBoard(grey)
        return None if ids is None or len(ids) < 6 else corners.reshape(-1, 2)


def view_signature(corners: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """Where the board sits and how it is turned: centre, size and the spread of its corners, in
    fractions of the image, so views can be compared whatever the resolution."""
    w, h = image_size
    pts = corners / np.array([w, h])
    centre = pts.mean(axis=0)
    cov = np.cov((pts - centre).T)
    return np.concatenate([centre, np.sqrt(np.abs(cov.ravel()[[0, 1, 3]]))])


class ShotPicker:
    """Offer frames one by one; `offer` says whether this one was kept as a shot."""

    def __init__(self, spec: BoardSpec, *, min_change: float = 0.06, still_px: float | None = 2.0):
        self.finder = BoardFinder(spec)
        self.min_change = min_change        # how different a view must be (signature distance)
        self.still_px = still_px            # board must move less than this between two frames (None: skip)
        self.signatures: list[np.ndarray] = []
        self._last: np.ndarray | None = None

    def offer(self, frame: np.ndarray) -> bool:
        corners = self.finder.corners(frame)
        last, self._last = self._last, corners
        if corners is None:
            return False
        if self.still_px is not None:
            # A moving board blurs: wait until two frames in a row agree.
            if last is None or last.shape != corners.shape or \
                    np.abs(last - corners).mean() > self.still_px:
                return False
        sig = view_signature(corners, (frame.shape[1], frame.shape[0]))
        if any(np.linalg.norm(sig - s) < self.min_change for s in self.signatures):
            return False
        self.signatures.append(sig)
        return True
