"""What the room's light and the phone do to a photo: a white-balance cast, a lamp's hot spot and
a little motion blur. Each is an effect for render_photo: (lit float32 BGR image, rng) -> image.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


def blackbody_rgb(kelvin: float) -> np.ndarray:
    """The sRGB colour (0-255) of a black body at `kelvin` (Tanner Helland's fit, 1000-40000 K)."""
    t = min(max(kelvin, 1000.0), 40000.0) / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = (99.4708025861 * math.log(t) - 161.1195681661) if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    if t >= 66:
        b = 255.0
    elif t <= 19:
        b = 0.0
    else:
        b = 138.5177312231 * math.log(t - 10) - 305.0447927307
    return np.clip(np.array([r, g, b]), 0, 255)


def cast_gains_bgr(kelvin: float, reference_k: float = 6500.0) -> np.ndarray:
    """Per-channel gains (B, G, R) a camera balanced for daylight puts on a scene lit at `kelvin`,
    scaled so that a grey keeps its brightness (luma 1)."""
    rgb = blackbody_rgb(kelvin) / blackbody_rgb(reference_k)
    rgb = rgb / (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2])
    return rgb[::-1].astype(np.float32)


@dataclass(frozen=True)
class Cast:
    kelvin: float

    def __call__(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return image * cast_gains_bgr(self.kelvin)


@dataclass(frozen=True)
class HotSpot:
    """A lamp close above the table: brighter round a point (fractions of the frame), so that
    whites there clip."""
    centre: tuple[float, float]
    radius: float                  # of the frame's width
    gain: float                    # extra brightness at the centre, e.g. 0.5

    def __call__(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        h, w = image.shape[:2]
        sw, sh = max(2, w // 8), max(2, h // 8)
        yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
        d2 = ((xx / sw - self.centre[0]) * w) ** 2 + ((yy / sh - self.centre[1]) * h) ** 2
        spot = 1 + self.gain * np.exp(-d2 / (2 * (self.radius * w) ** 2))
        return image * cv2.resize(spot.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)[..., None]


@dataclass(frozen=True)
class MotionBlur:
    """The phone moved while the shutter was open: a line kernel `length_px` long."""
    length_px: float
    angle_deg: float

    def __call__(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self.length_px < 1:
            return image
        size = int(math.ceil(self.length_px)) | 1
        kernel = np.zeros((size, size), np.float32)
        c = size // 2
        a = math.radians(self.angle_deg)
        dx, dy = math.cos(a) * self.length_px / 2, math.sin(a) * self.length_px / 2
        cv2.line(kernel, (round((c - dx) * 16), round((c - dy) * 16)), (round((c + dx) * 16), round((c + dy) * 16)),
                 1.0, 1, cv2.LINE_AA, 4)
        kernel /= kernel.sum()
        return cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_REFLECT)
