"""A soft colour likelihood per side, for finding rims too thin or too pale for hard labels.

In a 1080p photo of a 5' table a rim is one or two pixels wide, and JPEG halves its colour's
resolution again: few of its pixels show the side's paint, most a blend of it with the mat, the
body or the felt. A hard label (this pixel is blue) loses them; a likelihood keeps how far each
pixel lies from its background towards the side's colour.

`side_likelihoods`: per pixel and side, the share `alpha` of the way from the background's
chromaticity to the side's (0..1), weighted down by how far off that line the pixel lies. The
background is judged twice, and the smaller likelihood kept: against the mat's colour (so a brown
body in a pond is not "red": it is mat-like), and against the local background, the median colour
of the neighbourhood (so blue water felt is not blue rim everywhere: only what is bluer than the
water around it).
"""
from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from vision.colour import rgb_chroma

BACKGROUND_PPI = 5.0          # the local background is a median at this resolution...
BACKGROUND_IN = 1.8           # ...over a window this wide: twice a base, so a figure is not its own background
OFF_LINE = 0.05               # chromaticity: how far off the background-to-side line a blend may lie
USE_LOCAL = False
DARK = 45.0                   # B + G + R below this: no colour to judge


def chroma_layers(bal_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(H, W, 3) chromaticity and (H, W) brightness of a white-balanced float view."""
    f = np.maximum(np.asarray(bal_bgr, np.float32), 0)
    s = f.sum(axis=2)
    return f / np.maximum(s, 1.0)[..., None], s


def local_background(chroma: np.ndarray, ppi: float) -> np.ndarray:
    """(H, W, 3) median chromaticity of each pixel's neighbourhood (BACKGROUND_IN across)."""
    h, w = chroma.shape[:2]
    f = min(1.0, BACKGROUND_PPI / ppi)
    small = cv2.resize(chroma, (max(1, int(round(w * f))), max(1, int(round(h * f)))), interpolation=cv2.INTER_AREA)
    k = max(3, int(round(BACKGROUND_IN * ppi * f)) | 1)
    u8 = np.clip(small * 255.0, 0, 255).astype(np.uint8)
    med = cv2.medianBlur(u8, k).astype(np.float32) / 255.0
    return cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR)


def _along(chroma: np.ndarray, background: np.ndarray, target: np.ndarray) -> np.ndarray:
    axis = target - background
    n2 = np.maximum(np.einsum("...c,...c->...", axis, axis), 1e-4)
    d = chroma - background
    alpha = np.einsum("...c,...c->...", d, axis) / n2
    off2 = np.maximum(np.einsum("...c,...c->...", d, d) - alpha * alpha * n2, 0.0)
    return np.clip(alpha, 0.0, 1.0) * np.exp(-off2 / (2 * OFF_LINE * OFF_LINE))


def side_likelihoods(bal_bgr: np.ndarray, ppi: float, side_rgbs: Sequence[Sequence[float]],
                     mat: np.ndarray, felt_rgbs: Sequence[Sequence[float]] = ()) -> np.ndarray:
    """(K, H, W) float32 in 0..1: how much each pixel of a white-balanced view shows side k's colour.

    Each known felt colour nearer the side's than the mat is (blue water for a blue side) is one
    more background: a pixel shows the side only as far as it lies beyond that felt too, so the
    felt's edge is not a rim, and a rim standing in it still is."""
    chroma, brightness = chroma_layers(bal_bgr)
    local = local_background(chroma, ppi) if USE_LOCAL else None
    mat = np.asarray(mat, np.float32)
    lit = brightness >= DARK
    out = np.empty((len(side_rgbs),) + chroma.shape[:2], np.float32)
    for k, rgb in enumerate(side_rgbs):
        t = rgb_chroma(rgb).astype(np.float32)
        like = _along(chroma, mat, t) if local is None else np.minimum(_along(chroma, local, t), _along(chroma, mat, t))
        for felt in felt_rgbs:
            f = rgb_chroma(felt).astype(np.float32)
            if np.linalg.norm(f - t) < np.linalg.norm(mat - t):
                like = np.minimum(like, _along(chroma, f, t))
        out[k] = like * lit
    return out
