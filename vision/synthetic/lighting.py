"""What the room's light and the phone do to a photo: a white-balance cast, a lamp's hot spot and
a little motion blur, each an effect for render_photo ((lit float32 BGR image, rng) -> image); and
a phone camera's own processing of what its sensor saw (`PhoneProcessing`, render_photo's `finish`).
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


@dataclass(frozen=True)
class PhoneProcessing:
    """What a phone's camera does between its sensor and the JPEG, on the noisy uint8 BGR image:
    the sensor sees one colour a pixel (a Bayer mosaic, RGGB) and the others are interpolated
    (`cv2.demosaicing`); its own white balance takes the channels times `white_gains_bgr` (the
    room's cast, or part of it, taken out; all ones: a camera left at daylight); the colour is
    smoothed against noise (a Gaussian of `chroma_blur_px` on Cr and Cb, brightness kept) and made
    more vivid (Cr and Cb times `saturation`: what is left of the cast too); and edges are sharpened
    (an unsharp mask of `sharpen` at 1.2 px). The colour's share of the picture's resolution drops
    below the JPEG's half before the JPEG halves it."""
    saturation: float
    chroma_blur_px: float
    sharpen: float
    white_gains_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)

    def __call__(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        mosaic = np.empty((h, w), np.uint8)
        mosaic[0::2, 0::2] = image[0::2, 0::2, 2]
        mosaic[0::2, 1::2] = image[0::2, 1::2, 1]
        mosaic[1::2, 0::2] = image[1::2, 0::2, 1]
        mosaic[1::2, 1::2] = image[1::2, 1::2, 0]
        out = cv2.demosaicing(mosaic, cv2.COLOR_BayerRGGB2BGR)
        if self.white_gains_bgr != (1.0, 1.0, 1.0):
            out = np.clip(out * np.float32(self.white_gains_bgr), 0, 255).astype(np.uint8)
        ycc = cv2.cvtColor(out, cv2.COLOR_BGR2YCrCb).astype(np.float32)
        for c in (1, 2):
            ycc[..., c] = 128.0 + self.saturation * (cv2.GaussianBlur(ycc[..., c], (0, 0), self.chroma_blur_px) - 128.0)
        out = cv2.cvtColor(np.clip(ycc, 0, 255).astype(np.uint8), cv2.COLOR_YCrCb2BGR).astype(np.float32)
        out += self.sharpen * (out - cv2.GaussianBlur(out, (0, 0), 1.2))
        return np.clip(out, 0, 255).astype(np.uint8)
