"""Anchors looked for where a registration says they are: small top-view windows, one per anchor.

Used twice: to find anchors the whole-frame search missed (far, small, at a steep angle) once a
first registration exists, and on every tracked frame to check, cheaply, that the camera has not
been bumped (the anchors are still where the registration puts them).
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import TableProfile, aruco_dictionary

ANCHOR_CELL_PX = 8.0       # marker cell size in an anchor's window
WINDOW_SIDES = 1.8         # window side, in anchor sides: the card plus room for a misplaced guess
SHARPEN = 1.5             # unsharp-mask gain in an anchor's window
# For an anchor the first registration did not use (its guess is rougher, its view may be poor):
# wider windows, other sharpening and scales, tried in turn.
SEARCH_TRIES = ((WINDOW_SIDES, SHARPEN, ANCHOR_CELL_PX), (3.5, SHARPEN, ANCHOR_CELL_PX), (1.8, 3.0, 8.0),
                (3.5, 3.0, 12.0), (1.8, 0.0, 8.0), (3.5, 1.5, 12.0))


class AnchorWindows:
    def __init__(self, profile: TableProfile):
        self.profile = profile
        dictionary = aruco_dictionary(profile.dictionary)
        self.cells = dictionary.markerSize + 2
        self._dictionary = dictionary
        self._detectors: dict[float, cv2.aruco.ArucoDetector] = {}

    def _detector(self, cell_px: float) -> cv2.aruco.ArucoDetector:
        if cell_px not in self._detectors:
            params = cv2.aruco.DetectorParameters()
            window = int(round(3 * cell_px)) | 1
            for name, value in dict(adaptiveThreshWinSizeMin=window, adaptiveThreshWinSizeMax=window,
                                    adaptiveThreshWinSizeStep=10, minMarkerPerimeterRate=0.1,
                                    cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX,
                                    cornerRefinementWinSize=3).items():
                setattr(params, name, value)
            self._detectors[cell_px] = cv2.aruco.ArucoDetector(self._dictionary, params)
        return self._detectors[cell_px]

    def find(self, gray: np.ndarray, H_px_to_in: np.ndarray, ids=None,
             tries: tuple[tuple[float, float, float], ...] = ((WINDOW_SIDES, SHARPEN, ANCHOR_CELL_PX),)
             ) -> dict[int, np.ndarray]:
        """Anchor id -> (4, 2) corners in the frame (TL, TR, BR, BL), for the anchors (all, or `ids`)
        found in a window around where `H_px_to_in` puts them. `tries`: (window side in anchor sides,
        sharpening gain, cell pixels) to try in turn until the anchor is found."""
        H_in_to_px = np.linalg.inv(H_px_to_in)
        found: dict[int, np.ndarray] = {}
        h_img, w_img = gray.shape[:2]
        for anchor in self.profile.anchors:
            if ids is not None and anchor.id not in ids:
                continue
            centre_px = cv2.perspectiveTransform(np.array([[[anchor.x_in, anchor.y_in]]], np.float64), H_in_to_px)[0, 0]
            if not (0 <= centre_px[0] < w_img and 0 <= centre_px[1] < h_img):
                continue
            for sides, gain, cell_px in tries:
                corners = self._find_one(gray, H_px_to_in, H_in_to_px, anchor, sides, gain, cell_px)
                if corners is not None:
                    found[anchor.id] = corners
                    break
        return found

    def _find_one(self, gray, H_px_to_in, H_in_to_px, anchor, sides: float, gain: float, cell_px: float):
        half = anchor.size_in * sides / 2
        x0, y0 = anchor.x_in - half, anchor.y_in - half
        ppi = cell_px * self.cells / anchor.size_in
        size = int(np.ceil(2 * half * ppi))
        to_view = np.array([[ppi, 0, -x0 * ppi], [0, ppi, -y0 * ppi], [0, 0, 1.0]]) @ H_px_to_in
        view = cv2.warpPerspective(gray, to_view, (size, size), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
        if gain > 0:
            # Sharpened against the camera's blur: a small far anchor's thin white border otherwise
            # melts into a dark floor beside the table and the square is lost.
            blurred = cv2.GaussianBlur(view, (0, 0), cell_px * 0.5)
            view = cv2.addWeighted(view, 1 + gain, blurred, -gain, 0)
        corners, marker_ids, _ = self._detector(cell_px).detectMarkers(view)
        if marker_ids is None:
            return None
        for marker_id, quad in zip(marker_ids.ravel().tolist(), corners):
            if marker_id != anchor.id:
                continue
            quad_in = quad.reshape(4, 2).astype(np.float64) / ppi + (x0, y0)
            side_in = np.linalg.norm(quad_in - np.roll(quad_in, 1, axis=0), axis=1)
            if np.max(np.abs(side_in / anchor.size_in - 1)) > 0.25:
                continue
            return cv2.perspectiveTransform(quad_in.reshape(-1, 1, 2), H_in_to_px).reshape(4, 2)
        return None

    def displacement_px(self, found: dict[int, np.ndarray], H_px_to_in: np.ndarray) -> dict[int, float]:
        """How far (pixels, worst corner) each found anchor is from where the registration puts it."""
        H_in_to_px = np.linalg.inv(H_px_to_in)
        out = {}
        for anchor_id, corners in found.items():
            expected = cv2.perspectiveTransform(np.array(self.profile.anchor(anchor_id).corners_in(),
                                                         np.float64).reshape(-1, 1, 2), H_in_to_px).reshape(4, 2)
            out[anchor_id] = float(np.max(np.linalg.norm(corners - expected, axis=1)))
        return out
