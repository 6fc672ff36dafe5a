"""Felt told from a grained mat by its texture: a hill felt cut to a wood-grain mat's own colour.

A wood mat's grain runs one way nearly everywhere: the brightness's gradients over about half an
inch line up (the structure tensor's coherence is near 1). A felt's fibres and a gravel print
run every way (near 0). Where the colour cannot tell a felt from the mat (a hill felt and a
light wood of the same brown and brightness), this can: a region far less coherent than the mat,
in the mat's own spread of coherence, and of a kind's colour, is that kind's felt. On mats
without a grain (grass, gravel, plain) the coherence is as low everywhere as in a felt, the
mat's spread reaches down to nought, and nothing stands out.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.colour import median_rows

GRAIN_IN = 0.5               # coherence is read over about this (Gaussian sigma of the structure tensor)
GRAIN_SIGMA = 4.0            # a felt's core lies this many of the mat's spreads below the mat's coherence
GRAIN_FLOOR = 0.05           # least spread of the mat's coherence


def coherence(gray_log: np.ndarray, ppi: float) -> np.ndarray:
    """(H, W) float32 in [0, 1]: how much the brightness's gradients line up over about GRAIN_IN
    (1: a grain running one way; 0: no way more than another). `gray_log`: log brightness."""
    gx = cv2.Sobel(gray_log, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray_log, cv2.CV_32F, 0, 1, ksize=3)
    tensor = cv2.GaussianBlur(cv2.merge([gx * gx, gy * gy, gx * gy]), (0, 0), GRAIN_IN * ppi)
    jxx, jyy, jxy = cv2.split(tensor)
    trace = jxx + jyy
    spread = cv2.magnitude(jxx - jyy, 2 * jxy)
    return spread / np.maximum(trace, np.float32(1e-6))


def grain_level(coh: np.ndarray, mat_like: np.ndarray) -> tuple[float, float]:
    """The mat's coherence (median over the mat-like pixels) and its robust spread."""
    values = coh[mat_like]
    if values.size < 50:
        return 0.0, 1.0
    centre = float(median_rows(values[None])[0])
    spread = max(GRAIN_FLOOR, 1.4826 * float(median_rows(np.abs(values - centre)[None])[0]))
    return centre, spread


def grainless(coh: np.ndarray, centre: float, spread: float) -> np.ndarray:
    """(H, W) bool: where the coherence lies GRAIN_SIGMA of the mat's spreads under the mat's (a
    felt's core)."""
    return coh < centre - GRAIN_SIGMA * spread


def grain_separation(coh_inside: np.ndarray, centre: float, spread: float) -> float:
    """How far a region's coherence (some pixels) lies under the mat's, in the mat's spreads."""
    return max(0.0, (centre - float(np.median(coh_inside))) / spread)
