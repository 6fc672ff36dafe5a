"""Reading a marker whose outline was found but whose bits the detector could not read.

A small figure marker under motion blur (2.5-3.5 pixels a cell, blurred by 1-2 of them) keeps its
outline but smears its bits past what a threshold can read. Knowing the outline, the marker's
cells are sampled (the middle half of each, and the white margin around the black border) and
compared with every code of the dictionary in each of the four turns, blurred as the photo may be:
the code whose blurred pattern correlates best is the marker's, when it correlates strongly and
clearly better than any other id. The cells are few (8 x 8 for a 4x4 dictionary), so this costs
microseconds an outline.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.profile import aruco_dictionary

PX_PER_CELL = 8                 # sampling resolution of an outline's inside
BLUR_CELLS = (0.0, 0.35, 0.6)   # blurs (Gaussian sigma, in cells) the patterns are compared under
# and motion blurs (length in cells, over a Gaussian of MOTION_SIGMA_CELLS) in MOTION_ANGLES_DEG:
# a camera's shake smears a small marker along one direction by a cell or more.
MOTION_CELLS = (1.0, 1.5)
MOTION_ANGLES_DEG = (0.0, 45.0, 90.0, 135.0)
MOTION_SIGMA_CELLS = 0.25
MIN_CORRELATION = 0.9           # a read must correlate this well with its pattern...
MIN_MARGIN = 0.02               # ...and this much better than the best pattern of any other id
FRAME_CONTRAST = 1.0            # margin minus border, in standard deviations of all the cells
# A threshold read (ArUco's own, which corrects a few bits) must show its own id's cells this well:
# mostly its printed frame (a white margin all round a black border) and then its bits. A dark
# painted base outlined as a square and "corrected" into an id has no white margin: 0.57 where real
# reads of the hard set (1,600 on four seeds) are 0.88 and up. (Other ids' patterns share the frame:
# this tells a marker from no marker, not one id from another.)
MIN_OWN_CORRELATION = 0.8
# A read by pattern must show its bits, not only its frame: the inner cells its pattern has white
# lighter than those it has black by this share of the frame's contrast (margin minus border). A
# plain black square on a white card correlates 0.9 with the darkest ids (five white bits of 16)
# through its frame alone and shows no bits (about 0); real reads of the hard set show 0.55 and up.
MIN_BITS_CONTRAST = 0.25
# An outline that reads as nothing is moved to where its cells best match a pattern before it is
# read (`PatternReader.aligned`), in rounds, each centred on the best of the round before: a blurred
# card's threshold outline can be a cell off and turned 15 degrees. Each round: a shift step (cells) taken
# up to twice each way in both directions, scale steps (share of the side), turn steps (degrees).
ALIGN_ROUNDS = ((0.4, (-0.1, 0.0, 0.1), (-12.0, -6.0, 0.0, 6.0, 12.0)),
                (0.15, (-0.04, 0.0, 0.04), (-3.0, 0.0, 3.0)),
                (0.06, (-0.015, 0.0, 0.015), (-1.0, 0.0, 1.0)))
# A printed marker's ink is neutral black: after the anchors' white balance (vision.whitebalance) its
# black cells are grey under any lamp, where a die or a base of a side's colour read as a marker is
# blue or red. The ink's chroma (the distance of its mean colour from grey, over the three channels)
# over the marker's contrast (its margin's brightness minus its ink's) must stay under this: the
# 2,814 real reads of seven hard sets (seeds 0, 7, 3, 11, 5, 13 and 0 with absent kinds) are 0.23 and
# under; a blue die with five pips read as an id under a tungsten lamp is 1.9.
MAX_INK_CHROMA = 0.5


@dataclass(frozen=True)
class SoftRead:
    marker_id: int
    corners: np.ndarray         # (4, 2), the outline turned so that corner 0 is the marker's top left
    correlation: float
    turn: int = 0               # the outline's corner `turn` is the marker's top left
    outline: np.ndarray | None = None   # the outline as first found (before any refinement), turned so


@functools.lru_cache(maxsize=4)
def pattern_reader(dictionary_name: str) -> "PatternReader":
    """One reader per dictionary for the whole process: its blurred patterns are the same for every
    table, and making them costs more than reading a photo's markers."""
    return PatternReader(aruco_dictionary(dictionary_name))


class PatternReader:
    """Reads outlined markers of one dictionary by correlation with its blurred patterns."""

    def __init__(self, dictionary: cv2.aruco.Dictionary):
        self.cells = dictionary.markerSize + 2
        self._side = self.cells + 2                      # with one cell of white margin all round
        ids, turns, patterns = [], [], []
        for marker_id in range(dictionary.bytesList.shape[0]):
            marker = cv2.aruco.generateImageMarker(dictionary, marker_id, self.cells, borderBits=1)
            framed = np.ones((self._side, self._side), np.float32)
            framed[1:-1, 1:-1] = marker / 255.0
            for turn in range(4):
                ids.append(marker_id)
                turns.append(turn)
                patterns.append(np.rot90(framed, -turn))
        self._ids, self._turns = np.array(ids), np.array(turns)
        self._white = np.array([p.ravel() > 0.5 for p in patterns])                  # (ids x turns, cells)
        inner = np.zeros((self._side, self._side), bool)
        inner[2:-2, 2:-2] = True
        self._inner = inner.ravel()
        border = np.zeros((self._side, self._side), bool)
        border[1:-1, 1:-1] = True
        self._border = border.ravel() & ~self._inner
        # Each id's ink (its black cells, turn 0) and the margin round the marker, cell by cell.
        self._ink = ~self._white[::4]
        margin = np.ones((self._side, self._side), bool)
        margin[1:-1, 1:-1] = False
        self._margin = margin.ravel()
        side_px = self._side * PX_PER_CELL
        blurred = []
        for blur in _blurs():
            rows = []
            for pattern in patterns:
                up = cv2.resize(pattern, (side_px, side_px), interpolation=cv2.INTER_NEAREST)
                rows.append(self._cell_means(blur(up)))
            blurred.append(_standardised(np.array(rows)))
        self._patterns = np.stack(blurred)               # (blurs, ids x turns, cells)

    def _cell_means(self, image: np.ndarray) -> np.ndarray:
        """Mean of the middle half of each cell: what a quarter-cell misplaced outline still gets right."""
        n, p = self._side, PX_PER_CELL
        return image.reshape(n, p, n, p)[:, p // 4: 3 * p // 4, :, p // 4: 3 * p // 4].mean(axis=(1, 3)).ravel()

    def sample(self, gray: np.ndarray, outline: np.ndarray) -> np.ndarray:
        """The cells' means inside `outline` ((4, 2) pixels of `gray`, corners in turn) and one
        cell of margin round it, row by row ((side * side,))."""
        p = PX_PER_CELL
        outline = np.asarray(outline, np.float64)
        # Only the part of the frame round the outline is warped.
        reach = np.ptp(outline, axis=0).max() / 3 + 2
        h, w = gray.shape[:2]
        x0, y0 = (int(max(0, np.floor(v - reach))) for v in outline.min(axis=0))
        x1, y1 = (int(np.ceil(v + reach)) + 1 for v in outline.max(axis=0))
        crop = gray[y0:min(h, max(y1, y0 + 1)), x0:min(w, max(x1, x0 + 1))]
        inner = np.array([[p, p], [(self._side - 1) * p, p], [(self._side - 1) * p, (self._side - 1) * p],
                          [p, (self._side - 1) * p]], np.float32) - 0.5
        m = cv2.getPerspectiveTransform((outline - (x0, y0)).astype(np.float32), inner)
        side_px = self._side * p
        patch = cv2.warpPerspective(crop, m, (side_px, side_px), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        return self._cell_means(patch)

    def framed(self, cells: np.ndarray) -> bool:
        """Whether sampled cells show a marker's frame: a dark border ring inside a light margin,
        well apart for their spread (a grid square's thin lines or a textured patch do not)."""
        grid = cells.reshape(self._side, self._side)
        margin = np.concatenate([grid[0], grid[-1], grid[1:-1, 0], grid[1:-1, -1]])
        ring = grid[1:-1, 1:-1]
        border = np.concatenate([ring[0], ring[-1], ring[1:-1, 0], ring[1:-1, -1]])
        return float(margin.mean() - border.mean()) > FRAME_CONTRAST * max(float(cells.std()), 1e-6)

    def _samples(self, gray: np.ndarray, outlines: np.ndarray, offsets) -> np.ndarray:
        """(N, (n * len(offsets)) ** 2) float32 samples of `gray` inside each outline ((N, 4, 2)
        pixels), at `offsets` across each cell in both directions, row by row (and a last axis of
        three channels for a colour frame)."""
        n = self._side
        corners = np.array([[1, 1], [n - 1, 1], [n - 1, n - 1], [1, n - 1]], np.float32)
        hs = np.stack([cv2.getPerspectiveTransform(corners, q.astype(np.float32)) for q in outlines])
        return self._samples_by(gray, hs, offsets)

    def _samples_by(self, gray: np.ndarray, hs: np.ndarray, offsets) -> np.ndarray:
        """`_samples` for outlines given as the homographies ((N, 3, 3)) from a marker's cell
        coordinates (its black border's corners at 1 and side - 1) to `gray`'s pixels."""
        n = self._side
        steps = (np.arange(n)[:, None] + np.asarray(offsets, np.float64)[None, :]).ravel()
        u, v = np.meshgrid(steps, steps)
        grid = np.stack([u.ravel(), v.ravel(), np.ones(u.size)])                  # (3, samples)
        pts = np.einsum("mij,jk->mik", hs, grid)
        xs, ys = (pts[:, :2] / pts[:, 2:]).transpose(1, 0, 2)
        # Sampled from the part of the frame the outlines cover, not the whole frame.
        h, w = gray.shape[:2]
        x0, y0 = int(np.clip(np.floor(xs.min()) - 1, 0, w - 1)), int(np.clip(np.floor(ys.min()) - 1, 0, h - 1))
        x1, y1 = int(np.clip(np.ceil(xs.max()) + 2, x0 + 1, w)), int(np.clip(np.ceil(ys.max()) + 2, y0 + 1, h))
        return cv2.remap(gray[y0:y1, x0:x1], (xs - x0).astype(np.float32), (ys - y0).astype(np.float32),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)

    def framed_many(self, gray: np.ndarray, outlines: np.ndarray) -> np.ndarray:
        """`framed` for many outlines ((N, 4, 2) pixels) at once, on one sample at each cell's
        centre (a quick test before any outline is read again)."""
        outlines = np.asarray(outlines, np.float64).reshape(-1, 4, 2)
        if not len(outlines):
            return np.zeros(0, bool)
        cells = self._samples(gray, outlines, (0.5,))
        contrast = cells[:, self._margin].mean(axis=1) - cells[:, self._border].mean(axis=1)
        return contrast > FRAME_CONTRAST * np.maximum(cells.std(axis=1), 1e-6)

    def own_correlations(self, gray: np.ndarray, outlines: np.ndarray, marker_ids) -> np.ndarray:
        """How well the cells inside each outline ((N, 4, 2) pixels of `gray`, corner 0 the marker's
        top left, as ArUco gives it) correlate with its id's pattern (`marker_ids`, N of them), the
        best over the blurs. All outlines at once: each cell is the mean of four samples in its
        middle half (what `sample` averages)."""
        outlines = np.asarray(outlines, np.float64).reshape(-1, 4, 2)
        if not len(outlines):
            return np.zeros(0)
        n = self._side
        samples = self._samples(gray, outlines, (0.375, 0.625))
        cells = samples.reshape(-1, n, 2, n, 2).mean(axis=(2, 4)).reshape(-1, n * n)
        seen = _standardised(cells)
        # Patterns are kept id by id, four turns each: turn 0 of id k is row 4 k.
        patterns = self._patterns[:, 4 * np.asarray(marker_ids, int)]                 # (blurs, N, cells)
        return np.einsum("bmc,mc->bm", patterns, seen).max(axis=0) / seen.shape[1]

    def ink_chroma(self, bgr: np.ndarray, outlines: np.ndarray, marker_ids, black_bgr: np.ndarray,
                   gain_bgr: np.ndarray) -> np.ndarray:
        """For each outline read as an id (as `own_correlations`, in the colour frame `bgr`), the
        chroma of its ink after the white balance (`black_bgr`, `gain_bgr`: the anchors' grey card)
        over the marker's contrast (MAX_INK_CHROMA)."""
        outlines = np.asarray(outlines, np.float64).reshape(-1, 4, 2)
        if not len(outlines):
            return np.zeros(0)
        n = self._side
        samples = self._samples(bgr, outlines, (0.375, 0.625))                    # (N, samples, 3)
        cells = samples.reshape(-1, n, 2, n, 2, 3).mean(axis=(2, 4)).reshape(-1, n * n, 3)
        balanced = (cells - np.asarray(black_bgr, np.float32)) * np.asarray(gain_bgr, np.float32)
        ink_cells = self._ink[np.asarray(marker_ids, int)]                           # (N, cells)
        ink = (balanced * ink_cells[..., None]).sum(axis=1) / np.maximum(ink_cells.sum(axis=1), 1)[:, None]
        margin = balanced[:, self._margin].mean(axis=1)
        contrast = np.maximum(margin.mean(axis=1) - ink.mean(axis=1), 1.0)
        return np.linalg.norm(ink - ink.mean(axis=1, keepdims=True), axis=1) / contrast

    def shows(self, gray: np.ndarray, outlines: np.ndarray, marker_ids) -> np.ndarray:
        """For each outline read as an id (see `own_correlations`), whether its cells show that id's
        pattern (MIN_OWN_CORRELATION)."""
        return self.own_correlations(gray, outlines, marker_ids) >= MIN_OWN_CORRELATION

    def aligned(self, gray: np.ndarray, outline: np.ndarray, allowed: frozenset[int] | None = None) -> SoftRead | None:
        """`read` on the outline near `outline` whose cells best match a pattern of `allowed`: a
        blurred small marker's threshold outline (or its dark blob's) can lie a third of a cell or
        more off, enough to smear every cell into its neighbours. Shifts, scales and turns of the
        outline in its own cells (ALIGN_ROUNDS, coarse to fine) are
        sampled at once; the best is read with `read`'s own tests, so the search only places the
        outline and never lowers what a read must show."""
        outline = np.asarray(outline, np.float64)
        ids = np.arange(len(self._ids) // 4) if allowed is None else np.array(sorted(allowed), int)
        ids = ids[ids < len(self._ids) // 4]
        if not len(ids):
            return None
        rows = (4 * ids[:, None] + np.arange(4)[None, :]).ravel()
        n = self._side
        patterns = self._patterns[:, rows].reshape(-1, n * n).T                    # (cells, blurs x ids x turns)
        square = np.array([[1, 1], [n - 1, 1], [n - 1, n - 1], [1, n - 1]], np.float32)
        to_px = cv2.getPerspectiveTransform(square, outline.astype(np.float32)).astype(np.float64)
        centre = square.mean(axis=0).astype(np.float64)
        shift, scale, turn = np.zeros(2), 1.0, 0.0
        for step_cells, scale_steps, turn_steps in ALIGN_ROUNDS:
            reach = step_cells * np.arange(-2, 3)
            dx, dy, ds, dt = (g.ravel() for g in np.meshgrid(reach, reach, scale_steps, turn_steps, indexing="ij"))
            # Each try a similarity about the marker's middle in its own cells, then the outline's map.
            t = np.radians(turn + dt)
            k_cos, k_sin = (scale + ds) * np.cos(t), (scale + ds) * np.sin(t)
            move = np.zeros((len(t), 3, 3))
            move[:, 0, 0], move[:, 0, 1], move[:, 1, 0], move[:, 1, 1] = k_cos, -k_sin, k_sin, k_cos
            move[:, :2, 2] = centre + shift + np.column_stack([dx, dy]) - np.einsum("mij,j->mi", move[:, :2, :2], centre)
            move[:, 2, 2] = 1.0
            samples = self._samples_by(gray, to_px @ move, (0.375, 0.625))
            quarters = samples.reshape(-1, n, 2, n, 2)
            cells = quarters[:, :, 0, :, 0] + quarters[:, :, 0, :, 1] + quarters[:, :, 1, :, 0] + quarters[:, :, 1, :, 1]
            cells = _standardised(cells.reshape(-1, n * n))
            k = int(np.argmax((cells @ patterns).max(axis=1)))
            shift, scale, turn = shift + (dx[k], dy[k]), scale + ds[k], turn + dt[k]
            best = move[k]
        quad = cv2.perspectiveTransform(square.reshape(-1, 1, 2).astype(np.float64), to_px @ best).reshape(4, 2)
        return self.read(gray, quad, allowed)

    def outlines(self, outline: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The outline as found, and the marker inside it if it is the outline of the marker's white
        card (one cell of margin all round: on a dark mat the card's edge is the outline found)."""
        outline = np.asarray(outline, np.float64)
        centre = outline.mean(axis=0)
        return outline, centre + (outline - centre) * (self.cells / (self.cells + 2))

    def read(self, gray: np.ndarray, outline: np.ndarray, allowed: frozenset[int] | None = None) -> SoftRead | None:
        """The marker inside `outline` ((4, 2) pixels of `gray`, corners in turn), if it reads
        clearly as one of `allowed` ids (all when None); None otherwise."""
        cells = self.sample(gray, outline)
        if not self.framed(cells):
            return None
        seen = _standardised(cells[None, :])[0]
        scores = (self._patterns @ seen).max(axis=0) / seen.size
        best = int(np.argmax(scores))
        marker_id = int(self._ids[best])
        others = scores[self._ids != marker_id]
        if scores[best] < MIN_CORRELATION or scores[best] - others.max() < MIN_MARGIN:
            return None
        if allowed is not None and marker_id not in allowed:
            return None
        white, inner = self._white[best], self._inner
        frame = float(cells[self._margin].mean() - cells[self._border].mean())
        bits = float(cells[inner & white].mean() - cells[inner & ~white].mean())
        if bits < MIN_BITS_CONTRAST * max(frame, 1.0):
            return None                  # its frame only: a dark square with no code
        # The pattern turned clockwise `turn` times: the marker's top-left corner is outline corner `turn`.
        corners = np.roll(np.asarray(outline, np.float64), -int(self._turns[best]), axis=0)
        return SoftRead(marker_id, corners, float(scores[best]), int(self._turns[best]))


def _blurs():
    """The blurs a pattern (upsampled to PX_PER_CELL) is compared under: Gaussian, then motion."""
    p = PX_PER_CELL
    out = [(lambda im, s=sigma: cv2.GaussianBlur(im, (0, 0), s * p) if s > 0 else im) for sigma in BLUR_CELLS]
    for length in MOTION_CELLS:
        k = int(np.ceil(length * p)) | 1
        for angle in MOTION_ANGLES_DEG:
            kernel = np.zeros((k, k), np.float32)
            c, (dx, dy) = k // 2, (np.cos(np.radians(angle)) * length * p / 2, np.sin(np.radians(angle)) * length * p / 2)
            cv2.line(kernel, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0)
            kernel /= kernel.sum()
            out.append(lambda im, kern=kernel: cv2.filter2D(cv2.GaussianBlur(im, (0, 0), MOTION_SIGMA_CELLS * p), -1,
                                                            kern, borderType=cv2.BORDER_REPLICATE))
    return out


def _standardised(rows: np.ndarray) -> np.ndarray:
    rows = rows - rows.mean(axis=1, keepdims=True)
    return rows / np.maximum(rows.std(axis=1, keepdims=True), 1e-6)
