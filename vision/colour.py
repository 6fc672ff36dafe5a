"""Colour classes in a top view: chromaticity, and which profile colour a pixel shows.

Colours are compared as chromaticity (each channel over their sum), which a lighting gradient or a
soft shadow leaves alone (they scale all three channels). A pixel shows a colour of the profile
when it lies near the segment from the mat's chromaticity (the view's median) to that colour's, at
least `min_alpha` of the way: a blurred rim or a felt edge is part colour, part mat. Of several
colours, the one whose segment passes nearest wins. Dark pixels (noisy chromaticity) show nothing.

Colour bases (vision.rims), terrain felt (vision.terrain) and hands (vision.hands) build on these,
after the anchors' white balance (vision.whitebalance).
"""
from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np

CHROMA_TOL = 0.06         # chromaticity distance (channels sum to 1) from the mat-to-colour segment
MIN_BRIGHTNESS = 60.0     # B + G + R below this: chromaticity too noisy to trust
COLOUR_PPI = 20.0         # the top view colour bases are looked for in


def chromaticity(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(H, W, 3) chromaticity (B, G, R over their sum) and (H, W) brightness B + G + R."""
    f = bgr.astype(np.float32)
    # B + G + R summed in that order, as numpy's sum over the last axis does, by one SIMD transform
    s = cv2.transform(f, np.ones((1, 3), np.float32)) if f.ndim == 3 and f.shape[2] == 3 and f.size else f.sum(axis=2)
    return f / np.maximum(s, 1.0)[..., None], s


def rgb_chroma(rgb: Sequence[int]) -> np.ndarray:
    bgr = np.array(rgb[::-1], np.float32)
    return bgr / max(float(bgr.sum()), 1.0)


def classify(chroma: np.ndarray, brightness: np.ndarray, targets: Sequence[np.ndarray], mat: np.ndarray,
             min_alpha: float = 0.4, min_brightness: float = MIN_BRIGHTNESS) -> np.ndarray:
    """(H, W) int: which target colour each pixel shows, else -1.

    A pixel that mixes a target colour with the mat (a blurred rim, a felt edge) lies on the segment
    from the mat's chromaticity to the target's, at `alpha` = the target's share. A pixel shows the
    target whose segment it lies nearest (within CHROMA_TOL), with a share of at least `min_alpha`.
    Choosing by distance to the segment, not by share, keeps a half-blue rim from being taken for
    a bluish felt whose segment points almost the same way."""
    shape = chroma.shape[:2]
    label = np.full(shape[0] * shape[1], -1, np.int32)
    mat = np.asarray(mat, np.float32)
    diff = (chroma - mat).reshape(-1, 3)
    d2 = np.einsum("ij,ij->i", diff, diff)
    axes = [np.asarray(t, np.float32) - mat for t in targets]
    shortest = min((float(a @ a) for a in axes if float(a @ a) >= 1e-6), default=None)
    if shortest is None:
        return label.reshape(shape)
    # Only pixels far enough from the mat to be any target need the per-target test.
    reach = max(0.0, min_alpha * np.sqrt(shortest) - CHROMA_TOL)
    idx = np.flatnonzero((d2 >= reach * reach) & (brightness.reshape(-1) >= min_brightness))
    sub, sub_d2 = diff[idx], d2[idx]
    best = np.full(idx.size, CHROMA_TOL ** 2, np.float32)
    sub_label = np.full(idx.size, -1, np.int32)
    for k, axis in enumerate(axes):
        norm2 = float(axis @ axis)
        if norm2 < 1e-6:
            continue              # a colour the same as the mat cannot be told apart
        alpha = (sub @ axis) / norm2
        off2 = sub_d2 - alpha * alpha * norm2      # squared distance from the line through the segment
        take = (alpha >= min_alpha) & (alpha <= 1.6) & (off2 < best)
        sub_label[take] = k
        best[take] = off2[take]
    label[idx] = sub_label
    label = label.reshape(shape)
    return label


def mat_chroma(chroma: np.ndarray) -> np.ndarray:
    """The mat's colour: the median chromaticity of the view (the mat covers most of a table)."""
    step = max(1, int(math.sqrt(chroma.shape[0] * chroma.shape[1] / 20000)))
    return median_rows(np.ascontiguousarray(chroma[::step, ::step].reshape(-1, 3).T))


def median_rows(rows: np.ndarray) -> np.ndarray:
    """The median of each row of a (C, N) array: np.median(rows, axis=1)'s numbers, in the rows'
    dtype, for less. (numpy partitions for one middle fast but for two, an even count, slowly: the
    lower middle is the largest below the upper one.)"""
    rows = np.asarray(rows)
    n = rows.shape[1]
    if n == 0:
        return np.median(rows, axis=1)
    k = n // 2
    part = np.partition(rows, k, axis=1)
    return part[:, k] if n % 2 else (part[:, :k].max(axis=1) + part[:, k]) / rows.dtype.type(2)
