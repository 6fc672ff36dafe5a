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
SEARCH_SIDES = 3.5         # for an anchor the first registration did not use: its guess is rougher


class AnchorWindows:
    def __init__(self, profile: TableProfile):
        self.profile = profile
        dictionary = aruco_dictionary(profile.dictionary)
        self.cells = dictionary.markerSize + 2
        params = cv2.aruco.DetectorParameters()
        window = int(round(3 * ANCHOR_CELL_PX)) | 1
        for name, value in dict(adaptiveThreshWinSizeMin=window, adaptiveThreshWinSizeMax=window,
                                adaptiveThreshWinSizeStep=10, minMarkerPerimeterRate=0.2,
                                cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX,
                                cornerRefinementWinSize=3).items():
            setattr(params, name, value)
        self._detector = cv2.aruco.ArucoDetector(dictionary, params)

    def find(self, gray: np.ndarray, H_px_to_in: np.ndarray, ids=None, window_sides: float = WINDOW_SIDES
             ) -> dict[int, np.ndarray]:
        """Anchor id -> (4, 2) corners in the frame (TL, TR, BR, BL), for the anchors (all, or `ids`)
        found in a window around where `H_px_to_in` puts them."""
        H_in_to_px = np.linalg.inv(H_px_to_in)
        found: dict[int, np.ndarray] = {}
        h_img, w_img = gray.shape[:2]
        for anchor in self.profile.anchors:
            if ids is not None and anchor.id not in ids:
                continue
            half = anchor.size_in * window_sides / 2
            x0, y0 = anchor.x_in - half, anchor.y_in - half
            centre_px = cv2.perspectiveTransform(np.array([[[anchor.x_in, anchor.y_in]]], np.float64), H_in_to_px)[0, 0]
            if not (0 <= centre_px[0] < w_img and 0 <= centre_px[1] < h_img):
                continue
            ppi = ANCHOR_CELL_PX * self.cells / anchor.size_in
            size = int(np.ceil(2 * half * ppi))
            to_view = np.array([[ppi, 0, -x0 * ppi], [0, ppi, -y0 * ppi], [0, 0, 1.0]]) @ H_px_to_in
            view = cv2.warpPerspective(gray, to_view, (size, size), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE)
            # Sharpened against the camera's blur: a small far anchor's thin white border otherwise
            # melts into a dark floor beside the table and the square is lost.
            blurred = cv2.GaussianBlur(view, (0, 0), ANCHOR_CELL_PX * 0.5)
            view = cv2.addWeighted(view, 1 + SHARPEN, blurred, -SHARPEN, 0)
            corners, marker_ids, _ = self._detector.detectMarkers(view)
            if marker_ids is None:
                continue
            for marker_id, quad in zip(marker_ids.ravel().tolist(), corners):
                if marker_id != anchor.id:
                    continue
                quad_in = quad.reshape(4, 2).astype(np.float64) / ppi + (x0, y0)
                side_in = np.linalg.norm(quad_in - np.roll(quad_in, 1, axis=0), axis=1)
                if np.max(np.abs(side_in / anchor.size_in - 1)) > 0.25:
                    continue
                found[anchor.id] = cv2.perspectiveTransform(quad_in.reshape(-1, 1, 2), H_in_to_px).reshape(4, 2)
        return found

    def displacement_px(self, found: dict[int, np.ndarray], H_px_to_in: np.ndarray) -> dict[int, float]:
        """How far (pixels, worst corner) each found anchor is from where the registration puts it."""
        H_in_to_px = np.linalg.inv(H_px_to_in)
        out = {}
        for anchor_id, corners in found.items():
            expected = cv2.perspectiveTransform(np.array(self.profile.anchor(anchor_id).corners_in(),
                                                         np.float64).reshape(-1, 1, 2), H_in_to_px).reshape(4, 2)
            out[anchor_id] = float(np.max(np.linalg.norm(corners - expected, axis=1)))
        return out
