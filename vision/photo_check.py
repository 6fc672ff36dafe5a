"""Why a photo cannot be measured, in facts a page can draw: too dark, too blurred, a corner cut off.

Too dark and too blurred are the pipeline's own verdict, never a second opinion: the measures and
limits of `vision.quality` (the check `FramePipeline.process` refuses a frame with), or the refusal
itself when the pipeline gave one. `anchor_places` says, for each anchor of the profile, whether it
was seen, lies inside the photo but was not seen (covered?), or lies outside it (the table is cut off).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision import quality
from vision.pipeline import to_gray


@dataclass(frozen=True)
class PhotoQuality:
    """What the pipeline measures of a photo (vision.quality) and its verdict on it."""
    median: float               # of the grey levels, 0-255
    edge_px: float              # width of the sharpest edges (vision.quality.WORK_PX)
    problem: str | None         # "dark", "blurred" or None: the pipeline's verdict

    @property
    def too_dark(self) -> bool:
        return self.problem == "dark"

    @property
    def too_blurred(self) -> bool:
        return self.problem == "blurred"


def photo_quality(frame: np.ndarray, refused: BaseException | None = None) -> PhotoQuality:
    """The pipeline's measures of a BGR (or grey) photo and its verdict; `refused`, the error the pipeline
    refused this photo with, when it did: a `PhotoQualityError` is the verdict as it was given."""
    measured = quality.photo_quality(to_gray(frame))
    problem = refused.problem if isinstance(refused, quality.PhotoQualityError) else measured.problem
    return PhotoQuality(measured.median, measured.edge_px, problem)


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
