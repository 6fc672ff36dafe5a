"""Felt told from a grained mat by its texture: a hill felt cut to a wood-grain mat's own colour.

A wood mat's grain runs one way nearly everywhere: the brightness's gradients over about half an
inch line up (the structure tensor's coherence is near 1). A felt's fibres and a gravel print
run every way (near 0). Where the colour cannot tell a felt from the mat (a hill felt and a
light wood of the same brown and brightness), this can: a region far less coherent than the mat,
in the mat's own spread of coherence, and of a kind's colour, is that kind's felt. On mats
without a grain (grass, gravel, plain) the coherence is as low everywhere as in a felt, the
mat's spread reaches down to nought, and nothing stands out.

A lack of grain is no felt by itself: a plain thing of the mat's colour (a book, a card, an MDF
building, a dice tray) has none either. A felt is rough at the pixel scale, its fibres and print
a fuzz of brightness about as strong as the mat's own texture; a painted or printed plain surface
shows only the camera's noise there, a tenth of it or less. What a piece has of that fuzz, as a
share of the mat's, is how sure it is a felt.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.colour import median_rows

GRAIN_IN = 0.5               # coherence is read over about this (Gaussian sigma of the structure tensor)
GRAIN_SIGMA = 4.0            # a felt's core lies this many of the mat's spreads below the mat's coherence
GRAIN_FLOOR = 0.05           # least spread of the mat's coherence
FUZZ_IN = 0.2                # the fuzz: brightness finer than this (a work pixel), over what is coarser
FUZZ_PLAIN = 0.2             # up to this share of the mat's fuzz, a surface is plain (the camera's noise) ...
FUZZ_FELT = 0.6              # ... from this share on, surely a felt's (sure in between as it nears it)


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
    centre, spread = _median_spread(values)
    return centre, max(GRAIN_FLOOR, spread)


def grainless(coh: np.ndarray, centre: float, spread: float) -> np.ndarray:
    """(H, W) bool: where the coherence lies GRAIN_SIGMA of the mat's spreads under the mat's (a
    felt's core)."""
    return coh < centre - GRAIN_SIGMA * spread


def grain_separation(coh_inside: np.ndarray, centre: float, spread: float) -> float:
    """How far a region's coherence (some pixels) lies under the mat's, in the mat's spreads."""
    return max(0.0, (centre - float(np.median(coh_inside))) / spread)


def fuzz(gray_log: np.ndarray, ppi: float) -> np.ndarray:
    """(H, W) float32: the log brightness less its blur over FUZZ_IN (the texture at the pixel scale)."""
    return gray_log - cv2.GaussianBlur(gray_log, (0, 0), FUZZ_IN * ppi)


def fuzz_level(values: np.ndarray) -> float:
    """The robust spread (1.4826 MAD) of some pixels' fuzz."""
    return _median_spread(values)[1]


def fuzz_sureness(piece_fuzz: float, mat_fuzz: float) -> float:
    """How sure a grainless piece is a felt, not a plain thing, from its fuzz as a share of the mat's."""
    share = piece_fuzz / max(mat_fuzz, 1e-6)
    return min(1.0, max(0.0, (share - FUZZ_PLAIN) / (FUZZ_FELT - FUZZ_PLAIN)))


def _median_spread(values: np.ndarray) -> tuple[float, float]:
    """The median of some values and their robust spread (1.4826 MAD)."""
    centre = float(median_rows(values[None])[0])
    return centre, 1.4826 * float(median_rows(np.abs(values - centre)[None])[0])
