"""The light a photo was taken in, read off the anchors' white quiet zone, and a view corrected for it.

Every anchor card has a white border one marker cell wide round its black square: a grey card in
every photo. Its colour in the table-plane top view gives the white balance and exposure (per
channel gains that bring it to `white_card_level`); where the anchors stand is where that light
holds (vision.terrain brings the rest of the table to it through the mat's own colour).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.profile import Anchor
from vision.settings import VISION_DEFAULTS
from vision.topview import TopView


@dataclass(frozen=True)
class WhiteReference:
    white_bgr: np.ndarray                  # (3,) the anchors' white as seen
    at_in: tuple[tuple[float, float], ...]  # where it was seen (anchor centres, table inches)

    @property
    def gains(self) -> np.ndarray:
        level = float(VISION_DEFAULTS["white_card_level"])
        return level / np.maximum(self.white_bgr, 1.0)

    def apply(self, image_bgr: np.ndarray) -> np.ndarray:
        out = image_bgr.astype(np.float32) * self.gains.astype(np.float32)
        return np.clip(out, 0, 255).astype(np.uint8)


def anchor_white(view: TopView, anchors: tuple[Anchor, ...], cells: int) -> WhiteReference | None:
    """The anchors' white border in a colour top view, or None when no anchor shows one (dark,
    covered). Per anchor, the brighter half of its border (a hand or a shadow may cover part)."""
    whites, at = [], []
    h, w = view.image.shape[:2]
    for a in anchors:
        cell = a.size_in / cells
        outer, inner = a.size_in / 2 + 0.8 * cell, a.size_in / 2 + 0.2 * cell
        (u0, v0), (u1, v1) = view.to_view(np.array([[a.x_in - outer, a.y_in - outer], [a.x_in + outer, a.y_in + outer]]))
        iu0, iv0, iu1, iv1 = max(0, int(u0)), max(0, int(v0)), min(w, int(np.ceil(u1))), min(h, int(np.ceil(v1)))
        if iu1 - iu0 < 3 or iv1 - iv0 < 3:
            continue
        patch = view.image[iv0:iv1, iu0:iu1].reshape(-1, 3).astype(np.float32)
        uu, vv = np.meshgrid(np.arange(iu0, iu1), np.arange(iv0, iv1))
        xy = view.to_table(np.column_stack([uu.ravel(), vv.ravel()]))
        ring = np.max(np.abs(xy - (a.x_in, a.y_in)), axis=1) >= inner
        pixels = patch[ring]
        if len(pixels) < 8:
            continue
        bright = pixels.sum(axis=1)
        top = pixels[bright >= np.median(bright)]
        if top.sum(axis=1).mean() < 60:           # too dark to be a white card
            continue
        whites.append(np.median(top, axis=0))
        at.append((a.x_in, a.y_in))
    if not whites:
        return None
    return WhiteReference(np.median(np.array(whites), axis=0), tuple(at))
