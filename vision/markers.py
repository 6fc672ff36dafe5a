"""Fiducial markers: one search of the frame for anchors and figure markers alike.

`scan` runs detectMarkers once over the frame, with one threshold window fitted to small markers
(anchors, being bigger, are found by it too), and keeps three things: the anchors, the figure
markers read, and the square outlines it could not read. Once the anchors register the table
(`figures_in_frame`), every figure marker read is checked against its known size in inches and
against its own id's pattern (ArUco corrects a few bits: a dark painted base outlined as a square
can be "corrected" into an id; a printed marker's cells show it), which keeps false ids out, and
only the unread outlines of a figure marker's size are read again, each in a small top view window
(`CELL_PX` pixels a cell) sharpened against the camera's blur, with a detector tuned for exactly
that size: small figure markers at 2.5-3.5 pixels a cell under motion blur are most of those.

Each anchor is found again in a small crop around it with a wider threshold window, for its
corners: the registration rests on them. A frame too big to search whole cheaply (4K) is searched
at half size, its anchors found again at full size the same way, and the figure markers, too small
at half size, are looked for in the table's top view (`find_figures`), as tracked frames do in
windows. There, roster markers no threshold outlines (motion blur of well over a cell) are found
as dark squares of a marker's size and read by pattern, among the missing ones only; a tracked
frame reads so only the marker last seen in each window.

Given the frame in colour and the anchors' grey card (`FrameColour`), every read is also checked
for its ink: a printed marker's black is grey after the white balance, a die or a base of a side's
colour read as a marker is not (vision.marker_reading.MAX_INK_CHROMA).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.profile import TableProfile, aruco_dictionary
from calibration.registration import Registration
from vision.detections import Detections
from vision.marker_reading import MAX_INK_CHROMA, pattern_reader
from vision.topview import TopView, warp_top_view

CELL_PX = 6.0            # marker cell size in the rectified view
SHARPEN = 3.0            # unsharp-mask gain in the rectified view
SHARPEN_SIGMA_CELLS = 0.5
HALF_SIZE_FROM_PX = 2500  # frames this large (longer side) are searched at half size
SIZE_TOLERANCE = 0.2     # a figure marker's side must be within 20% of the profile's size
FRAME_THRESH_WINDOW = 9  # px: three cells of the smallest figure markers worth reading (~3 px a cell)
REREAD_SIDES = 0.8       # half side of the window an unread outline is read again in, in marker sides
DARK_SQUARE_COARSE_PX = 9    # a marker's side in the coarse copy dark squares are looked for in
DARK_SQUARE_CONTRAST = 0.2   # a dark square's middle this much darker than the ring round it
DARK_SQUARE_SCORE = 0.4      # or less dark (down to DARK_SQUARE_LEAST) where that and its card's
DARK_SQUARE_LEAST = 0.1      # contrast with the table round it (a share of the card's brightness) add up to this
DARK_SQUARES_PER_MISSING = 8  # the most contrasted places read, per roster marker missing
DARK_SQUARE_TOLERANCE = 0.25  # a dark blob's sides within this share of a marker's side
DARK_SQUARE_WINDOW_SIDES = 1.5  # half side of the window a dark square is read in, in marker sides
DARK_PIECES_REACH = 0.9      # a marker's pieces of ink lie within this many sides of its middle
FLUSH_MIN_SHORT = 0.05       # a dark blob this share of a side short of a marker's: a strip lost


def _dark_square(window: np.ndarray, side_px: float, cells: int) -> np.ndarray | None:
    """The outline ((4, 2), clockwise in the image, as ArUco's) of the dark square of side about
    `side_px` in the middle of a gray window: its pixels darker than halfway between the window's
    ink and card, the blob at the middle (opened, if it runs into the mat, until it is a square's
    size), and the smallest rectangle round it. None when there is no such square."""
    if window.size == 0:
        return None
    values = window.ravel()
    n = len(values)
    lo, hi = (float(v) for v in np.partition(values, (n // 20, n - 1 - n // 20))[[n // 20, n - 1 - n // 20]])
    if hi - lo < 30:
        return None
    dark = (window < (lo + hi) / 2).astype(np.uint8)
    cy, cx = window.shape[0] // 2, window.shape[1] // 2
    r = max(1, int(0.3 * side_px))
    for k in (1, 3, 5, 7):
        blob = cv2.morphologyEx(dark, cv2.MORPH_OPEN, np.ones((k, k), np.uint8)) if k > 1 else dark
        n, labels = cv2.connectedComponents(blob, connectivity=4)
        # The blob that covers most of the window's middle (the square's border and dark bits).
        counts = np.bincount(labels[cy - r:cy + r, cx - r:cx + r].ravel(), minlength=n)
        counts[0] = 0
        i = int(np.argmax(counts))
        if counts[i] == 0:
            return None
        (_x, _y), (rw, rh), _a = _blob_rect(labels == i)
        if max(rw, rh) > (1 + DARK_SQUARE_TOLERANCE) * side_px:
            continue                                # run into the mat: open it further
        if min(rw, rh) < (1 - DARK_SQUARE_TOLERANCE) * side_px:
            # A blur of a cell or more greys the thin border where white bits lie next to it: the
            # ink falls apart into pieces round the white bits. All the pieces of a cell's area or
            # more that lie wholly within the marker's reach of the middle.
            ys, xs = np.indices(window.shape[:2])
            beyond = np.unique(labels[np.hypot(xs - cx, ys - cy) > DARK_PIECES_REACH * side_px])
            sizes = np.bincount(labels.ravel(), minlength=n)
            pieces = np.setdiff1d(np.flatnonzero(sizes >= (side_px / cells) ** 2), beyond)
            pieces = np.union1d(pieces, [i])
            pieces = pieces[pieces > 0]
            (_x, _y), (rw, rh), _a = _blob_rect(np.isin(labels, pieces))
            if not (1 - DARK_SQUARE_TOLERANCE) * side_px <= min(rw, rh) <= max(rw, rh) \
                    <= (1 + DARK_SQUARE_TOLERANCE) * side_px:
                return None
        quad = cv2.boxPoints(((_x, _y), (rw, rh), _a)).astype(np.float64)
        # Clockwise in the image (y down): positive shoelace area.
        area = np.sum(quad[:, 0] * np.roll(quad[:, 1], -1) - np.roll(quad[:, 0], -1) * quad[:, 1])
        return quad if area > 0 else quad[::-1].copy()
    return None


def _flush_squares(quad: np.ndarray, side_px: float) -> list[np.ndarray]:
    """Squares of side `side_px` round a rectangle `quad` ((4, 2), corners in turn) a few pixels short
    of it, each flush with the rectangle on one side of each short direction (a marker whose white
    bits line one edge loses that edge's ink to the blur: its dark blob is the square less a strip
    on that edge), in the rectangle's corner order; none when it is a square's size already."""
    centre = quad.mean(axis=0)
    axes = [quad[1] - quad[0], quad[2] - quad[1]]
    lengths = [float(np.linalg.norm(a)) for a in axes]
    units = [a / max(n, 1e-6) for a, n in zip(axes, lengths)]
    signs = np.sign((quad - centre) @ np.array(units).T)                 # (4, 2): each corner's side
    shifts = [(0.0,) if side_px - n < FLUSH_MIN_SHORT * side_px else (-(side_px - n) / 2, (side_px - n) / 2)
              for n in lengths]
    out = []
    for a in shifts[0]:
        for b in shifts[1]:
            if a == b == 0.0:
                continue
            middle = centre + a * units[0] + b * units[1]
            out.append(middle + (signs[:, :1] * units[0] + signs[:, 1:] * units[1]) * side_px / 2)
    return out


def _blob_rect(mask: np.ndarray):
    """The smallest rectangle ((centre), (width, height), angle) round a mask's pixels, to their edges."""
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    (x, y), (w, h), a = cv2.minAreaRect(np.concatenate(contours))
    return (x, y), (w + 1, h + 1), a                # pixel centres to pixel edges


@dataclass(frozen=True)
class FrameColour:
    """A frame in colour (BGR, the gray frame's pixels) and the anchors' grey card in it: the black
    level and per-channel gain of the white balance (vision.whitebalance.WhiteBalance)."""
    bgr: np.ndarray
    black_bgr: np.ndarray
    gain_bgr: np.ndarray


@dataclass(frozen=True)
class FrameMarkers:
    """What one search of a frame found, in full-frame pixels (corners TL, TR, BR, BL)."""
    anchors: dict[int, np.ndarray]                     # anchor id -> (4, 2)
    figures: tuple[tuple[int, np.ndarray], ...]        # (marker id, (4, 2)) of every other marker read
    unread: tuple[np.ndarray, ...]                     # (4, 2) square outlines no id was read from
    scale: float                                       # 1.0, or 0.5 when searched at half size

    @property
    def figures_searched(self) -> bool:
        """Whether figure markers were looked for (not in a half-size search: too small there)."""
        return self.scale == 1.0


def _window_view(gray: np.ndarray, registration: Registration, ppi: float,
                 rect_in: tuple[float, float, float, float]) -> TopView:
    """A small table window seen from above, warped from only the part of the frame under it."""
    x0, y0, x1, y1 = rect_in
    px = registration.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    h, w = gray.shape[:2]
    u0, v0 = (int(max(0, np.floor(v) - 2)) for v in px.min(axis=0))
    u1, v1 = int(min(w, np.ceil(px[:, 0].max()) + 3)), int(min(h, np.ceil(px[:, 1].max()) + 3))
    shift = np.array([[1, 0, -u0], [0, 1, -v0], [0, 0, 1.0]])
    crop = gray[v0:max(v1, v0 + 1), u0:max(u1, u0 + 1)]
    return warp_top_view(crop, shift @ registration.H_in_to_px, ppi, rect_in)


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


# Reading a marker a few pixels a cell across: a tolerant outline fit, the cell's centre only, and
# a few bits corrected (each read is checked against its size in inches afterwards).
SMALL_MARKER_READING = dict(polygonalApproxAccuracyRate=0.05, perspectiveRemovePixelPerCell=8,
                            perspectiveRemoveIgnoredMarginPerCell=0.35, errorCorrectionRate=0.3,
                            minCornerDistanceRate=0.05, minDistanceToBorder=1)


class MarkerFinder:
    """Finds anchors and figure markers of one table profile. Build once, use for every frame."""

    def __init__(self, profile: TableProfile):
        self.profile = profile
        self.dictionary = aruco_dictionary(profile.dictionary)
        self.cells = self.dictionary.markerSize + 2
        # The one search of a frame: a single threshold window sized for small figure markers and
        # a low perimeter floor; anchors, bigger, are found by it too.
        self._frame_detector = cv2.aruco.ArucoDetector(self.dictionary, _parameters(
            adaptiveThreshWinSizeMin=FRAME_THRESH_WINDOW, adaptiveThreshWinSizeMax=FRAME_THRESH_WINDOW,
            adaptiveThreshWinSizeStep=10, minMarkerPerimeterRate=0.02, **SMALL_MARKER_READING,
            cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX, cornerRefinementWinSize=4,
            relativeCornerRefinmentWinSize=0.6))
        # A half-size copy of a big frame: anchors only (big), as quickly as possible; each is then
        # found again at full size in a crop around it.
        self._half_detector = cv2.aruco.ArucoDetector(self.dictionary, _parameters(
            adaptiveThreshWinSizeMin=19, adaptiveThreshWinSizeMax=19, adaptiveThreshWinSizeStep=10,
            minMarkerPerimeterRate=0.04))
        self._crop_detector = cv2.aruco.ArucoDetector(self.dictionary, _parameters(
            adaptiveThreshWinSizeMin=19, adaptiveThreshWinSizeMax=19, adaptiveThreshWinSizeStep=10,
            minMarkerPerimeterRate=0.04,
            cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX, cornerRefinementWinSize=4))
        window = int(round(3 * CELL_PX)) | 1
        self._view_params = _parameters(
            adaptiveThreshWinSizeMin=window, adaptiveThreshWinSizeMax=window, adaptiveThreshWinSizeStep=10,
            **SMALL_MARKER_READING,
            cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX, cornerRefinementWinSize=3)
        self._view_detector = cv2.aruco.ArucoDetector(self.dictionary, self._view_params)
        # When the search finds fewer than two anchors (small, far, steeply seen ones): three
        # threshold windows and no perimeter floor, as OpenCV comes, on such frames only.
        self._thorough_detector = cv2.aruco.ArucoDetector(self.dictionary, _parameters(
            cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX, cornerRefinementWinSize=4))
        self._pattern_reader = pattern_reader(profile.dictionary)
        roster = {int(f[1:]) for f in profile.roster_by_figure() if f[:1] == "m" and f[1:].isdigit()}
        self._roster_ids = frozenset(roster) if roster else None     # what a pattern read may be
        self._view_max_side_px = -1
        self.view_px_per_in = self.cells * CELL_PX / profile.figure_marker_size_in

    def scan(self, gray: np.ndarray) -> FrameMarkers:
        """The frame's one search (see the module's docstring)."""
        if max(gray.shape[:2]) >= HALF_SIZE_FROM_PX:
            small = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
            corners, ids, _ = self._half_detector.detectMarkers(small)
            anchors = self._split(corners, ids)[0]
            # Pixel centres: full-size x = 2 * half-size x + 0.5.
            anchors = {i: self._refine(gray, i, 2 * c + 0.5) for i, c in anchors.items()}
            return FrameMarkers(anchors, (), (), 0.5)
        corners, ids, rejected = self._frame_detector.detectMarkers(gray)
        anchors, figures = self._split(corners, ids)
        # The threshold window fitted to small markers leaves a big anchor's corners a pixel or two
        # off at a steep tilt; each anchor is found again in a crop with a wider window.
        anchors = {i: self._refine(gray, i, c) for i, c in anchors.items()}
        unread = tuple(r.reshape(4, 2).astype(np.float64) for r in rejected)
        return FrameMarkers(anchors, figures, unread, 1.0)

    def find_anchors(self, gray: np.ndarray) -> dict[int, np.ndarray]:
        """Anchor id -> (4, 2) sub-pixel corners in the frame (TL, TR, BR, BL)."""
        return self.scan(gray).anchors

    def read_anchors(self, found: FrameMarkers, gray: np.ndarray, registration: Registration,
                     ids) -> dict[int, np.ndarray]:
        """Anchors `ids` the search outlined but could not read (a lamp's hot spot, blur), read by
        their patterns among the unread outlines of an anchor's size near where `registration`
        puts them (within twice its stated error, and at least 3 in)."""
        out: dict[int, np.ndarray] = {}
        reach_in = max(3.0, 2 * registration.table_error_in)
        for anchor_id in sorted(ids):
            anchor = self.profile.anchor(anchor_id)
            if anchor is None:
                continue
            for quad in found.unread:
                quad_in = registration.to_table(quad)
                if np.hypot(*(quad_in.mean(axis=0) - (anchor.x_in, anchor.y_in))) > reach_in:
                    continue
                sides_in = np.linalg.norm(quad_in - np.roll(quad_in, 1, axis=0), axis=1)
                if np.max(np.abs(sides_in / anchor.size_in - 1)) > 2 * SIZE_TOLERANCE:
                    continue
                read = self._read_outline(gray, quad, frozenset({anchor_id}))
                if read is not None:
                    out[anchor_id] = read.corners
                    break
        return out

    def find_anchors_thoroughly(self, gray: np.ndarray) -> dict[int, np.ndarray]:
        """Anchors found by OpenCV's own detector settings over the whole frame (slower)."""
        corners, ids, _ = self._thorough_detector.detectMarkers(gray)
        return self._split(corners, ids)[0]

    def _split(self, corners, ids) -> tuple[dict[int, np.ndarray], tuple[tuple[int, np.ndarray], ...]]:
        if ids is None:
            return {}, ()
        anchors, figures = {}, []
        for marker_id, quad in zip(ids.ravel().tolist(), corners):
            quad = quad.reshape(4, 2).astype(np.float64)
            if marker_id in self.profile.anchor_ids:
                anchors[marker_id] = quad
            else:
                figures.append((marker_id, quad))
        return anchors, tuple(figures)

    def _refine(self, gray: np.ndarray, marker_id: int, corners: np.ndarray) -> np.ndarray:
        """An anchor found at half size, found again at full size in a crop around it (sub-pixel
        corners from the whole marker's outline: sturdier under motion blur than cornerSubPix
        started from the half-size corners, which a blurred card's edge can pull a few pixels)."""
        side = float(np.max(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))
        pad = int(np.ceil(0.6 * side)) + 4
        h, w = gray.shape[:2]
        x0, y0 = (int(max(0, np.floor(v) - pad)) for v in corners.min(axis=0))
        x1, y1 = int(min(w, np.ceil(corners[:, 0].max()) + pad)), int(min(h, np.ceil(corners[:, 1].max()) + pad))
        found, ids, _ = self._crop_detector.detectMarkers(np.ascontiguousarray(gray[y0:y1, x0:x1]))
        for i, quad in zip([] if ids is None else ids.ravel().tolist(), found):
            if i == marker_id:
                return quad.reshape(4, 2).astype(np.float64) + (x0, y0)
        return corners

    def figures_in_frame(self, found: FrameMarkers, gray: np.ndarray, registration: Registration,
                         colour: FrameColour | None = None, table_view=None) -> Detections:
        """Figure markers of a frame's search (`found`, on `gray`), positioned in table inches by
        `registration`: those read, if their size in inches is right, and the unread outlines of a
        figure marker's size read again in small sharpened top view windows; with `colour`, those
        whose ink is grey. With `table_view` (a function giving the table's gray top view, at any
        resolution), roster markers still missing are looked for as dark squares there, each read
        in a window of the frame at the markers' resolution (as `find_figures` does)."""
        best: dict[int, tuple[float, np.ndarray]] = {}
        for marker_id, quad in self._showing(gray, found.figures):
            self._keep(best, marker_id, registration.to_table(quad))
        # A read left out (its cells not its id's pattern, or a side not a figure marker's size) has
        # its id from corners a pixel or two off (a blurred small marker): read again like an outline.
        misplaced = tuple(quad for marker_id, quad in found.figures if marker_id not in best)
        size_in = self.profile.figure_marker_size_in
        taken = [q.mean(axis=0) for _e, q in best.values()]
        taken += [(a.x_in, a.y_in) for a in self.profile.anchors]
        outlines, rects = [], []
        for quad in self._worth_reading(found.unread + misplaced, gray, registration, np.array(taken)):
            cx, cy = registration.to_table(quad).mean(axis=0)
            if any(np.hypot(cx - x, cy - y) < size_in for x, y in taken):
                continue              # the same marker outlined twice
            taken.append((cx, cy))
            half = REREAD_SIDES * size_in
            rects.append((cx - half, cy - half, cx + half, cy + half))
            outlines.append(quad)
        for quad, rect in zip(outlines, rects):
            window = _window_view(gray, registration, self.view_px_per_in, rect)
            before = set(best)
            self._collect(TopView(_sharpen(window.image), window.ppi, window.origin_in), best)
            if set(best) == before:
                self._read_softly(gray, quad, registration, best)
        self._drop_coloured(best, registration, colour)
        missing = self._roster_ids - set(best) if self._roster_ids is not None else frozenset()
        if table_view is not None and missing:
            checked = set(best)
            self._read_dark_squares(table_view(), best, missing, (gray, registration))
            self._drop_coloured(best, registration, colour, set(best) - checked)
        return self._detections(best, registration)

    def _worth_reading(self, unread: tuple[np.ndarray, ...], gray: np.ndarray, registration: Registration,
                       taken_in: np.ndarray) -> list[np.ndarray]:
        """The unread outlines worth reading again: a figure marker's size in inches (or its white
        card's), not at a marker read already or an anchor, and showing a marker's frame as they
        are or just inside (not a grid square, not texture). All outlines are tested at once."""
        if not unread:
            return []
        quads = np.stack(unread)
        size_in = self.profile.figure_marker_size_in
        quads_in = registration.to_table(quads.reshape(-1, 2)).reshape(-1, 4, 2)
        sides_in = np.linalg.norm(quads_in - np.roll(quads_in, 1, axis=1), axis=2)
        card = (self.cells + 2) / self.cells          # the outline of the marker's white card
        error = np.minimum(*(np.abs(sides_in / (size_in * k) - 1).max(axis=1) for k in (1.0, card)))
        keep = error <= 2 * SIZE_TOLERANCE
        if len(taken_in):
            centres = quads_in.mean(axis=1)
            gap = np.linalg.norm(centres[:, None, :] - taken_in[None, :, :], axis=2).min(axis=1)
            keep &= gap >= size_in
        quads = quads[keep]
        reader = self._pattern_reader
        inside = np.stack([reader.outlines(q)[1] for q in quads]) if len(quads) else quads
        framed = reader.framed_many(gray, quads) | reader.framed_many(gray, inside)
        return list(quads[framed])

    def _read_softly(self, gray: np.ndarray, quad: np.ndarray, registration: Registration,
                     best: dict[int, tuple[float, np.ndarray]]) -> None:
        """An outline neither read nor read again: its cells compared with the dictionary's
        patterns (vision.marker_reading), among the roster's markers not found yet when the
        profile has a roster."""
        found = self._soft_read(gray, quad, printed=(registration.to_table, registration.to_image))
        if found is not None and found.marker_id not in best:
            self._keep_read(best, found, registration.to_table)

    def _soft_read(self, gray: np.ndarray, quad: np.ndarray, allowed: frozenset[int] | None = None,
                   printed=None, align: bool = True):
        """A figure marker's id read from an outline's cells (vision.marker_reading), or None: the
        outline itself, or the marker inside it when it is the outline of the marker's card, or
        with `printed` (the maps from `gray`'s pixels to table inches and back) the outline brought
        to the printed marker's size; with `align`, when none of these reads and the last shows a
        marker's frame, that one moved to where its cells fit a pattern best (`PatternReader.aligned`).
        The id is one of `allowed`, or of the roster when the profile has one."""
        reader = self._pattern_reader
        allowed = self._roster_ids if allowed is None else allowed
        candidates = list(reader.outlines(quad))
        if printed is not None:
            candidates.append(self._at_printed_size(quad, *printed))
        for k, candidate in enumerate(candidates):
            found = self._read_outline(gray, candidate, allowed, refine=k < 2)
            if found is not None and found.marker_id not in self.profile.anchor_ids:
                return found
        # None reads where it lies: the last (the printed size when known) moved to where it reads best.
        if align and reader.framed(reader.sample(gray, candidates[-1])):
            found = reader.aligned(gray, candidates[-1], allowed)
            if found is not None and found.marker_id not in self.profile.anchor_ids:
                return found
        return None

    def _at_printed_size(self, quad: np.ndarray, to_table, to_image) -> np.ndarray:
        """An outline scaled about its centre, on the table, to the printed marker's side: under a
        blur of a cell or more the threshold outlines a square between the black border's edge and
        the white card's, centred on the marker but of neither's size."""
        quad_in = to_table(np.asarray(quad, np.float64))
        centre = quad_in.mean(axis=0)
        side_in = float(np.linalg.norm(quad_in - np.roll(quad_in, 1, axis=0), axis=1).mean())
        return to_image(centre + (quad_in - centre) * (self.profile.figure_marker_size_in / max(side_in, 1e-6)))

    def _read_outline(self, gray: np.ndarray, quad: np.ndarray, allowed, refine: bool = True):
        """The id one of `allowed` whose pattern a framed outline's cells show (its corners refined
        first), or None."""
        reader = self._pattern_reader
        if not reader.framed(reader.sample(gray, quad)):
            return None
        outline = quad.astype(np.float32).reshape(-1, 1, 2)
        h, w = gray.shape[:2]
        inside = bool(np.all((outline >= 0) & (outline <= (w - 1, h - 1))))
        if refine and inside:             # (cornerSubPix refuses a corner off the image)
            cv2.cornerSubPix(gray, outline, (2, 2), (-1, -1),
                             (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 20, 0.01))
        read = reader.read(gray, outline.reshape(4, 2), allowed)
        if read is None:
            return None
        return replace(read, outline=np.roll(np.asarray(quad, np.float64), -read.turn, axis=0))

    def find_figures(self, view: TopView, registration: Registration,
                     rects_in: list[tuple[float, float, float, float]] | None = None,
                     expected: list[frozenset[int]] | None = None,
                     colour: FrameColour | None = None) -> Detections:
        """Figure markers (every marker that is not an anchor), positioned in table inches, in the
        frame's gray top view at `view_px_per_in` (the whole of it, or only the table windows
        `rects_in`: around last known positions, a search tile). `expected`: for each window, the
        markers last seen in it; those the threshold does not read there are read by pattern (as
        the whole view's missing roster markers are), other ids are not. `colour`: as in
        `figures_in_frame`."""
        best: dict[int, tuple[float, np.ndarray]] = {}
        if rects_in is None:
            self._collect(TopView(_sharpen(view.image), view.ppi, view.origin_in), best, view)
            self._drop_coloured(best, registration, colour)
            if self._roster_ids is not None and (missing := self._roster_ids - set(best)):
                checked = set(best)
                self._read_dark_squares(view, best, missing)
                self._drop_coloured(best, registration, colour, set(best) - checked)
            return self._detections(best, registration)
        for k, rect in enumerate(rects_in):
            window = view.window(rect)
            if min(window.image.shape[:2]) < 8:
                continue
            # A tracked frame's windows leave what they miss to the next frames, save the markers
            # last seen there: a shaken camera's frame must not hide them.
            allowed = expected[k] if expected is not None else frozenset()
            # (and an outline is not moved about to read it: `aligned` costs a frame's budget)
            self._collect(TopView(_sharpen(window.image), window.ppi, window.origin_in), best,
                          window if allowed else None, allowed, align=False)
            if allowed - set(best):
                self._read_dark_squares(window, best, allowed - set(best), align=False)
        self._drop_coloured(best, registration, colour)
        return self._detections(best, registration)

    def _read_dark_squares(self, view: TopView, best: dict[int, tuple[float, np.ndarray]],
                           missing: frozenset[int], frame: tuple[np.ndarray, Registration] | None = None,
                           align: bool = True) -> None:
        """Roster markers the search did not outline. Motion blur of a cell or more can merge a
        marker's thin white margin with a textured mat, or its bits with the margin, so that no
        threshold outlines it; it still shows as a dark square of a marker's size on a lighter card.
        Such squares are found on a coarse copy of the view (a dark middle inside a lighter ring),
        each outline is fitted to its dark blob (the smallest rectangle round it, at a threshold
        halfway between ink and card) and read by pattern, among the missing ids only. With `frame`
        (the gray frame and its registration), the view may be coarser than the markers' and each
        square is read in a small top view window of the frame at the markers' resolution."""
        image = view.image
        side_px = view.ppi * self.profile.figure_marker_size_in       # a marker's side in the view
        f = int(max(1, side_px // DARK_SQUARE_COARSE_PX))
        h, w = image.shape[:2]
        if h < 2 * side_px or w < 2 * side_px:
            return
        coarse = cv2.resize(image[:h // f * f, :w // f * f], (w // f, h // f), interpolation=cv2.INTER_AREA)
        coarse = coarse.astype(np.float32)
        s = side_px / f
        # The square's mean (black ink, whatever its bits) against the ring round it (its card).
        ring_in_k, ring_out_k, around_k = (int(round(k * s)) | 1 for k in (1.0, 1.45, 2.0))
        box_in = cv2.boxFilter(coarse, -1, (ring_in_k, ring_in_k), normalize=False)
        box_out = cv2.boxFilter(coarse, -1, (ring_out_k, ring_out_k), normalize=False)
        ring = (box_out - box_in) / (ring_out_k ** 2 - ring_in_k ** 2)
        contrast = (ring - box_in / ring_in_k ** 2) / np.maximum(ring, 1.0)
        # A marker's card is lighter than the table round it, where a figure's dark body or a shadow
        # on the mat is not: the places are read in the order of both contrasts.
        around = (cv2.boxFilter(coarse, -1, (around_k, around_k), normalize=False) - box_out) / (
            around_k ** 2 - ring_out_k ** 2)
        card = (ring - around) / np.maximum(ring, 1.0)
        peaks = (contrast >= cv2.dilate(contrast, np.ones((3, 3), np.uint8))) & (contrast > DARK_SQUARE_CONTRAST)
        # A marker whose white bits are many and blurred into its ink is less dark than that, but its
        # card still stands out of the table: places where both contrasts together are clear.
        score = contrast + card
        peaks |= ((score >= cv2.dilate(score, np.ones((3, 3), np.uint8))) & (score > DARK_SQUARE_SCORE)
                  & (contrast > DARK_SQUARE_LEAST))
        rows, cols = np.nonzero(peaks)
        # Not on a marker read already, nor on an anchor's card.
        uv = np.column_stack([cols, rows]) * float(f) + f / 2
        xy = view.to_table(uv) if len(uv) else np.zeros((0, 2))
        size_in = self.profile.figure_marker_size_in
        free = np.ones(len(xy), bool)
        for _e, q in best.values():
            free &= np.hypot(*(xy - q.mean(axis=0)).T) >= size_in
        for a in self.profile.anchors:
            free &= np.abs(xy - (a.x_in, a.y_in)).max(axis=1) >= 0.75 * a.size_in + size_in / 2
        if frame is not None and len(xy):   # the view repeats the frame's edge pixels past it: nothing to read there
            fh, fw = frame[0].shape[:2]
            at_px = frame[1].to_image(xy)
            free &= (at_px[:, 0] >= 0) & (at_px[:, 0] < fw) & (at_px[:, 1] >= 0) & (at_px[:, 1] < fh)
        rows, cols, xy = rows[free], cols[free], xy[free]
        order = np.argsort(-score[rows, cols])[:DARK_SQUARES_PER_MISSING * len(missing)]
        half_in = DARK_SQUARE_WINDOW_SIDES * size_in
        taken: list[np.ndarray] = []
        for x, y in xy[order]:
            if any(np.hypot(x - t[0], y - t[1]) < size_in for t in taken):
                continue              # the same square again
            taken.append((x, y))
            rect = (x - half_in, y - half_in, x + half_in, y + half_in)
            window = view.window(rect) if frame is None else \
                _window_view(frame[0], frame[1], self.view_px_per_in, rect)
            read = self._read_dark_square(window, (x, y), missing, align)
            if read is None:           # (it reads only ids still missing: none in `best`)
                continue
            self._keep_read(best, read, window.to_table)
            if read.marker_id in best:
                missing = missing - {read.marker_id}
                if not missing:
                    return

    def _read_dark_square(self, window: TopView, centre_in, missing: frozenset[int], align: bool = True):
        """The dark square in the middle of a top view `window` (at `centre_in`) read by pattern as
        one of `missing`: its blob's outline, as it is, inside a card or at the printed size, or a
        square of the printed size flush with the blob on one side (`_flush_squares`)."""
        side_px = window.ppi * self.profile.figure_marker_size_in
        u, v = window.to_view(np.array([centre_in], np.float64))[0]
        h, w = window.image.shape[:2]
        half = side_px * (self.cells + 2) / self.cells * 0.75
        u0, v0 = int(max(0, round(u - half))), int(max(0, round(v - half)))
        quad = _dark_square(window.image[v0:int(min(h, round(v + half))), u0:int(min(w, round(u + half)))],
                            side_px, self.cells)
        if quad is None:
            return None
        quad = quad + (u0, v0)
        read = self._soft_read(window.image, quad, missing, printed=(window.to_table, window.to_view), align=align)
        for square in _flush_squares(quad, side_px) if read is None else ():
            read = self._read_outline(window.image, square, missing, refine=False)
            if read is not None:
                break
        return read

    def _collect(self, view: TopView, best: dict[int, tuple[float, np.ndarray]], plain: TopView | None = None,
                 allowed: frozenset[int] | None = None, align: bool = True) -> None:
        """Figure markers read in a (sharpened) view; with `plain`, the same view unsharpened, the
        outlines left unread are read by their patterns there (as one of `allowed`, or of the
        roster)."""
        corners, ids, rejected = self._detect_in_view(view.image)
        read = [(marker_id, quad.reshape(4, 2))
                for marker_id, quad in zip([] if ids is None else ids.ravel().tolist(), corners)
                if marker_id not in self.profile.anchor_ids]
        for marker_id, quad in self._showing(view.image, read):
            self._keep(best, marker_id, view.to_table(quad))
        # (a read left out is read again like an outline, as in `figures_in_frame`)
        rejected = [q.reshape(4, 2) for q in rejected] + [q for i, q in read if i not in best]
        if plain is None or not rejected:
            return
        size_in = self.profile.figure_marker_size_in
        taken = [q.mean(axis=0) for _e, q in best.values()]
        for quad in rejected:
            quad_in = view.to_table(quad.reshape(4, 2))
            centre = quad_in.mean(axis=0)
            if any(np.hypot(*(centre - c)) < size_in for c in taken):
                continue
            read = self._soft_read(plain.image, quad.reshape(4, 2), allowed,
                                   printed=(view.to_table, view.to_view), align=align)
            if read is not None and read.marker_id not in best:
                self._keep_read(best, read, view.to_table)
                taken.append(centre)

    def _drop_coloured(self, best: dict[int, tuple[float, np.ndarray]], registration: Registration,
                       colour: FrameColour | None, only: set[int] | None = None) -> None:
        """Reads whose ink is coloured after the white balance (a die of a side's colour, its pips
        taken for white bits) taken out of `best` (of the ids `only`, when given: the others were
        checked already); nothing without `colour`."""
        ids = list(best) if only is None else [i for i in best if i in only]
        if colour is None or not ids:
            return
        quads_px = registration.to_image(np.concatenate([best[i][1] for i in ids])).reshape(-1, 4, 2)
        chroma = self._pattern_reader.ink_chroma(colour.bgr, quads_px, ids, colour.black_bgr, colour.gain_bgr)
        for marker_id in np.asarray(ids)[chroma > MAX_INK_CHROMA].tolist():
            del best[marker_id]

    def _showing(self, gray: np.ndarray, read) -> list[tuple[int, np.ndarray]]:
        """The markers the detector read ((id, (4, 2) corners) in `gray`) whose cells show their
        id's pattern: ArUco corrects a few bits, and a dark painted base outlined as a square can be
        corrected into an id (vision.marker_reading.MIN_OWN_CORRELATION)."""
        if not read:
            return []
        shows = self._pattern_reader.shows(gray, np.stack([q for _i, q in read]), [i for i, _q in read])
        return [r for r, ok in zip(read, shows) if ok]

    def _keep_read(self, best: dict[int, tuple[float, np.ndarray]], read, to_table) -> None:
        """A marker read by its pattern, kept at its refined corners, or where those are not a
        figure marker's size in inches, at its outline as first found: under motion blur the corner
        refinement of a marker a few pixels a cell across can pull one corner half a cell off."""
        self._keep(best, read.marker_id, to_table(read.corners))
        if read.marker_id not in best and read.outline is not None:
            self._keep(best, read.marker_id, to_table(read.outline))

    def _keep(self, best: dict[int, tuple[float, np.ndarray]], marker_id: int, quad_in: np.ndarray) -> None:
        """A marker read, kept if its size in inches is a figure marker's (and it is the
        best-shaped one of its id so far)."""
        sides_in = np.linalg.norm(quad_in - np.roll(quad_in, 1, axis=0), axis=1)
        error = float(np.max(np.abs(sides_in / self.profile.figure_marker_size_in - 1)))
        if error > SIZE_TOLERANCE:
            return                        # wrong size for a figure marker: not one of ours
        if marker_id not in best or error < best[marker_id][0]:
            best[marker_id] = (error, quad_in)

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
