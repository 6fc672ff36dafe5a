"""A die of a side's colour taken for a ring: told by the white pips on its top.

A die beside a figure is a block of the side's colour; its top and the walls the camera sees fit a
1" base's ring to within a few percent, and no measure of the ring parts it from a base (the fitted
radius, the fill of its middle, the coverage, the residual, the outline's corners: docs/vision.md).
Its top shows what a base's does not: small bright spots, each with the side's paint all round it.
A figure standing on a base shows bright bits too (a face, a blade, metal), but against the body's
own colours or at the rim, not ringed by paint; a die's one shows a single pip, as a small bright
body on a base painted all over may, so two are asked.

Only pale pips: a die with dark ones is not told so, since a figure's two feet on a base painted all
over its top are dark spots in the paint too.

The spots are a white top-hat of the brightness (what stands above the opening by a disc a little
wider than a pip): at 1080p a pip is a frame pixel or two, and its colour is smeared by the JPEG, but
its brightness is kept at full resolution.
"""
from __future__ import annotations

from typing import Callable, Sequence

import cv2
import numpy as np

from vision.colour import chromaticity, rgb_chroma

PIP_KERNEL_IN = 0.25        # the top-hat's disc: a pip (0.1" across on a 16 mm die) with its blur fits in it
PIP_LEVELS = 25.0           # grey levels a pip stands above the opening
PIP_RING_IN = 0.125         # the paint round a pip is looked at this far from its centre, 8 ways
PIP_PAINT_CHROMA = 0.25     # a direction shows the side's paint within this chromaticity distance of its colour
PIP_ENCLOSED = 0.75         # the share of the 8 directions that must show it
PIP_WITHIN = 0.6            # radii of the ring: where its pips lie (a die's top is smaller than a base)
PIP_APART_IN = 0.1          # bright peaks nearer than this are one pip (a pip's flat top is several pixels)
MIN_PIPS = 2                # a one's single pip is no surer than a small bright body on a painted top

_ANGLES = np.arange(8) * (np.pi / 4)
_DIRECTIONS = np.column_stack([np.cos(_ANGLES), np.sin(_ANGLES)])


def pip_counts(view_bgr: np.ndarray, centres: np.ndarray, sides: Sequence[int], side_rgbs, r_px: float, ppi: float,
               *, balance: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """(N,) int: the pips each ring's middle shows (bright spots within PIP_WITHIN radii of its
    centre, `centres` (N, 2) view pixels, each ringed by side `sides[i]`'s paint, `side_rgbs`).

    `balance(window_bgr, centre)`: the window of the view white-balanced (float32 BGR, the anchors'
    grey at its levels, the light at `centre` divided out); without it the view's colours as they are."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    out = np.zeros(len(centres), int)
    if not len(centres):
        return out
    k = max(3, int(round(PIP_KERNEL_IN * ppi)) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    ring = np.rint(_DIRECTIONS * PIP_RING_IN * ppi).astype(int)          # (8, 2) pixel offsets
    half = int(np.ceil(PIP_WITHIN * r_px + PIP_RING_IN * ppi + k)) + 1
    h, w = view_bgr.shape[:2]
    paints = [rgb_chroma(rgb) for rgb in side_rgbs]
    apart = PIP_APART_IN * ppi
    for i, (cx, cy) in enumerate(centres):
        if not np.isfinite(cx) or not np.isfinite(cy):
            continue
        x0, y0 = max(0, int(round(cx)) - half), max(0, int(round(cy)) - half)
        x1, y1 = min(w, int(round(cx)) + half + 1), min(h, int(round(cy)) + half + 1)
        if x1 - x0 < k or y1 - y0 < k:
            continue
        window = view_bgr[y0:y1, x0:x1]
        bgr = window if balance is None else balance(window, centres[i])
        bgr = np.clip(bgr, 0, 255).astype(np.uint8)
        luma = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
        top = luma - cv2.morphologyEx(luma, cv2.MORPH_OPEN, disc)
        ys, xs = np.nonzero((top >= cv2.dilate(top, np.ones((3, 3), np.uint8))) & (top >= PIP_LEVELS))
        near = np.hypot(xs + x0 - cx, ys + y0 - cy) <= PIP_WITHIN * r_px
        xs, ys = xs[near], ys[near]
        if len(xs) < MIN_PIPS:
            continue
        px = np.clip(xs[:, None] + ring[None, :, 0], 0, x1 - x0 - 1)
        py = np.clip(ys[:, None] + ring[None, :, 1], 0, y1 - y0 - 1)
        chroma, _ = chromaticity(bgr[py, px])                               # (P, 8, 3)
        paint = np.linalg.norm(chroma - paints[int(sides[i])], axis=2) <= PIP_PAINT_CHROMA
        pips = np.column_stack([xs, ys])[paint.mean(1) >= PIP_ENCLOSED].astype(np.float64)
        # (one pip's flat top is several peaks: those nearer than a pip's spacing are one)
        kept: list[np.ndarray] = []
        for p in pips:
            if all(np.hypot(*(p - q)) >= apart for q in kept):
                kept.append(p)
        out[i] = len(kept)
    return out
