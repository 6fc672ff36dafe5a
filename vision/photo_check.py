"""Why a photo cannot be measured, in facts a page can draw: too dark, too blurred, a corner cut off.

`photo_quality` is the one brightness / sharpness check (kept as one function so a fuller check in
the pipeline can replace it). `anchor_places` says, for each anchor of the profile, whether it was
seen, lies inside the photo but was not seen (covered?), or lies outside it (the table is cut off).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

QUALITY_SIDE_PX = 640           # measured on a copy this long, so the numbers do not depend on resolution
DARK_MEAN = 40.0                # house default: mean grey (0-255) below this is too dark to read markers
BLURRED_LAPLACIAN_VAR = 25.0    # house default: Laplacian variance at 640 px below this is too blurred
FLAT_STD = 10.0                 # a photo this flat (a wall, a lens cap) is neither blurred nor sharp


@dataclass(frozen=True)
class PhotoQuality:
    brightness: float           # mean grey, 0-255
    contrast: float             # grey standard deviation
    sharpness: float            # variance of the Laplacian at QUALITY_SIDE_PX
    too_dark: bool
    too_blurred: bool


def photo_quality(frame: np.ndarray) -> PhotoQuality:
    """Brightness and sharpness of a BGR (or grey) photo, with the too-dark / too-blurred verdicts."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = QUALITY_SIDE_PX / max(gray.shape[:2])
    if scale < 1.0:
        gray = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    brightness = float(gray.mean())
    contrast = float(gray.std())
    sharpness = float(cv2.Laplacian(gray, cv2.CV_64F).var())
    too_dark = brightness < DARK_MEAN
    too_blurred = not too_dark and contrast >= FLAT_STD and sharpness < BLURRED_LAPLACIAN_VAR
    return PhotoQuality(brightness, contrast, sharpness, too_dark, too_blurred)


def anchor_places(profile, registration, image_size: tuple[int, int], seen=()) -> dict[int, str]:
    """Anchor id -> "seen", "moved" (seen, but not where the others say), "outside" (where it should be is
    off the photo) or "hidden" (in the photo, unseen).

    Without a registration nothing says where a missing anchor would be: it is "unknown".
    """
    seen = set(int(i) for i in seen)
    moved: set[int] = set()
    if registration is not None:
        seen |= set(int(i) for i in registration.anchors_seen)
        moved = set(int(i) for i in registration.anchors_rejected) - seen
    out: dict[int, str] = {}
    w, h = image_size
    for anchor in profile.anchors:
        if anchor.id in seen:
            out[anchor.id] = "seen"
        elif anchor.id in moved:
            out[anchor.id] = "moved"
        elif registration is None:
            out[anchor.id] = "unknown"
        else:
            corners = registration.to_image(np.array(anchor.corners_in(), np.float64))
            inside = (np.all(np.isfinite(corners)) and np.all(corners[:, 0] >= 0) and np.all(corners[:, 1] >= 0)
                      and np.all(corners[:, 0] < w) and np.all(corners[:, 1] < h))
            out[anchor.id] = "hidden" if inside else "outside"
    return out
