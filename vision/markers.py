"""Fiducial markers: anchors in the frame, then figure markers in the frame's top view.

Small figure markers are the hard part: at 2.5-3.5 pixels a cell a detector tuned for the whole
frame misses many. Once the anchors register the table, the frame's shared top view (vision.topview,
made at `view_px_per_in`) shows every figure marker as an upright-ish square of a known size
(`CELL_PX` pixels a cell); it is sharpened against the camera's blur and searched with a detector
tuned for exactly that size. The known size also throws out candidates that cannot be a figure
marker, which keeps false ids out.
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import TableProfile, aruco_dictionary
from calibration.registration import Registration
from vision.detections import Detections
from vision.topview import TopView

CELL_PX = 6.0            # marker cell size in the rectified view
SHARPEN = 3.0            # unsharp-mask gain in the rectified view
SHARPEN_SIGMA_CELLS = 0.5
HALF_SIZE_FROM_PX = 2500  # frames this large (longer side) look for anchors at half size first
SIZE_TOLERANCE = 0.2     # a figure marker's side must be within 20% of the profile's size


def _sharpen(view: np.ndarray) -> np.ndarray:
    """Unsharp mask against the camera's blur; two box passes stand in for a Gaussian, cheaply."""
    k = int(round(CELL_PX * SHARPEN_SIGMA_CELLS * 2)) | 1
    blurred = cv2.blur(cv2.blur(view, (k, k)), (k, k))
    return cv2.addWeighted(view, 1 + SHARPEN, blurred, -SHARPEN, 0)


def _parameters(**values) -> cv2.aruco.DetectorParameters:
    params = cv2.aruco.DetectorParameters()
    for name, value in values.items():
        setattr(params, name, value)
    return params


class MarkerFinder:
    """Finds anchors and figure markers of one table profile. Build once, use for every frame."""

    def __init__(self, profile: TableProfile):
        self.profile = profile
        self.dictionary = aruco_dictionary(profile.dictionary)
        self.cells = self.dictionary.markerSize + 2
        # Anchors are large: one threshold window and a perimeter floor skip most of the work.
        self._frame_detector = cv2.aruco.ArucoDetector(self.dictionary, _parameters(
            adaptiveThreshWinSizeMin=19, adaptiveThreshWinSizeMax=19, adaptiveThreshWinSizeStep=10,
            minMarkerPerimeterRate=0.04,
            cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX, cornerRefinementWinSize=4))
        window = int(round(3 * CELL_PX)) | 1
        self._view_params = _parameters(
            adaptiveThreshWinSizeMin=window, adaptiveThreshWinSizeMax=window, adaptiveThreshWinSizeStep=10,
            polygonalApproxAccuracyRate=0.05,
            perspectiveRemovePixelPerCell=8, perspectiveRemoveIgnoredMarginPerCell=0.35,
            errorCorrectionRate=0.3, minCornerDistanceRate=0.05, minDistanceToBorder=1,
            cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX, cornerRefinementWinSize=3)
        self._view_detector = cv2.aruco.ArucoDetector(self.dictionary, self._view_params)
        # When the quick search finds fewer than two anchors (small, far, steeply seen ones): three
        # threshold windows and no perimeter floor, as OpenCV comes, on such frames only.
        self._thorough_detector = cv2.aruco.ArucoDetector(self.dictionary, _parameters(
            cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX, cornerRefinementWinSize=4))
        self._view_max_side_px = -1
        self.view_px_per_in = self.cells * CELL_PX / profile.figure_marker_size_in

    def find_anchors(self, gray: np.ndarray) -> dict[int, np.ndarray]:
        """Anchor id -> (4, 2) sub-pixel corners in the frame (TL, TR, BR, BL).

        A large frame is searched at half size first (anchors are big: a 2" anchor on a 60" table
        is still 5 pixels a cell at 2160p halved) and each found again at full size in a crop around it; only when
        that finds fewer than two anchors is the full frame searched."""
        if max(gray.shape[:2]) >= HALF_SIZE_FROM_PX:
            small = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
            found = self._anchors_in(small)
            if len(found) >= 2:
                return {i: self._refine(gray, i, 2 * c + 0.5) for i, c in found.items()}
        return self._anchors_in(gray)

    def find_anchors_thoroughly(self, gray: np.ndarray) -> dict[int, np.ndarray]:
        """Anchors found by OpenCV's own detector settings over the whole frame (slower)."""
        return self._anchors_in(gray, self._thorough_detector)

    def _anchors_in(self, gray: np.ndarray, detector=None) -> dict[int, np.ndarray]:
        corners, ids, _ = (detector or self._frame_detector).detectMarkers(gray)
        if ids is None:
            return {}
        anchors = self.profile.anchor_ids
        return {int(i): c.reshape(4, 2).astype(np.float64) for i, c in zip(ids.ravel(), corners)
                if int(i) in anchors}

    def _refine(self, gray: np.ndarray, marker_id: int, corners: np.ndarray) -> np.ndarray:
        """An anchor found at half size, found again at full size in a crop around it (the same
        detector and sub-pixel corners as a full-frame search, on a small part of the frame)."""
        side = float(np.max(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))
        pad = int(np.ceil(0.6 * side)) + 4
        h, w = gray.shape[:2]
        x0, y0 = (int(max(0, np.floor(v) - pad)) for v in corners.min(axis=0))
        x1, y1 = int(min(w, np.ceil(corners[:, 0].max()) + pad)), int(min(h, np.ceil(corners[:, 1].max()) + pad))
        found = self._anchors_in(np.ascontiguousarray(gray[y0:y1, x0:x1]))
        if marker_id not in found:
            return corners
        return found[marker_id] + (x0, y0)

    def find_figures(self, view: TopView, registration: Registration,
                     rects_in: list[tuple[float, float, float, float]] | None = None) -> Detections:
        """Figure markers (every marker that is not an anchor), positioned in table inches, in the
        frame's gray top view at `view_px_per_in` (the whole of it, or only the table windows
        `rects_in`: around last known positions, a search tile)."""
        best: dict[int, tuple[float, np.ndarray]] = {}
        windows = [view] if rects_in is None else [view.window(r) for r in rects_in]
        for window in windows:
            if min(window.image.shape[:2]) >= 8:
                self._collect(TopView(_sharpen(window.image), window.ppi, window.origin_in), best)
        return self._detections(best, registration)

    def _collect(self, view: TopView, best: dict[int, tuple[float, np.ndarray]]) -> None:
        corners, ids, _ = self._detect_in_view(view.image)
        if ids is None:
            return
        size_in = self.profile.figure_marker_size_in
        for marker_id, quad in zip(ids.ravel().tolist(), corners):
            if marker_id in self.profile.anchor_ids:
                continue
            quad_in = view.to_table(quad.reshape(4, 2))
            sides_in = np.linalg.norm(quad_in - np.roll(quad_in, 1, axis=0), axis=1)
            error = float(np.max(np.abs(sides_in / size_in - 1)))
            if error > SIZE_TOLERANCE:
                continue                  # wrong size for a figure marker: not one of ours
            if marker_id not in best or error < best[marker_id][0]:
                best[marker_id] = (error, quad_in)   # a duplicate id keeps the best-shaped one

    def _detect_in_view(self, image: np.ndarray):
        """detectMarkers on a top view, taking only outlines near a figure marker's known size.

        OpenCV gives the perimeter bounds as fractions of the image's longer side, so they follow
        the view's size. Without them, tiny outlines (a marker's own bits, grid crossings) crowd
        out the marker they sit in and it goes unread.
        """
        max_side_px = max(image.shape[:2])
        if max_side_px != self._view_max_side_px:
            perimeter_px = 4 * self.cells * CELL_PX
            self._view_params.minMarkerPerimeterRate = (1 - 2 * SIZE_TOLERANCE) * perimeter_px / max_side_px
            self._view_params.maxMarkerPerimeterRate = (1 + 2 * SIZE_TOLERANCE) * perimeter_px / max_side_px
            self._view_detector.setDetectorParameters(self._view_params)
            self._view_max_side_px = max_side_px
        return self._view_detector.detectMarkers(image)

    @staticmethod
    def _detections(best: dict[int, tuple[float, np.ndarray]], registration: Registration) -> Detections:
        if not best:
            return Detections.empty()
        marker_ids = sorted(best)
        quads_in = np.stack([best[i][1] for i in marker_ids])
        # The centre of a square seen straight on is the mean of its corners.
        xy_in = quads_in.mean(axis=1)
        corners_px = registration.to_image(quads_in.reshape(-1, 2)).reshape(-1, 4, 2)
        confidence = [round(1.0 - best[i][0], 3) for i in marker_ids]
        return Detections.from_markers(marker_ids, xy_in, corners_px, confidence)
