"""Top views: a rectangle of the table (or of a plane above it) warped from the frame.

View pixel (u, v) is table point (x0 + u / ppi, y0 + v / ppi): the same convention as the marker
view (`vision.markers.RectifiedView`), with an offset so that a small window can be cut out.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class TopView:
    image: np.ndarray            # gray or BGR
    ppi: float                   # view pixels per inch
    origin_in: tuple[float, float]   # table point of view pixel (0, 0)

    def to_table(self, points_view: np.ndarray) -> np.ndarray:
        return np.asarray(points_view, np.float64) / self.ppi + np.asarray(self.origin_in)

    def to_view(self, points_in: np.ndarray) -> np.ndarray:
        return (np.asarray(points_in, np.float64) - np.asarray(self.origin_in)) * self.ppi


def warp_top_view(frame: np.ndarray, H_in_to_px: np.ndarray, ppi: float, rect_in: tuple[float, float, float, float],
                  interpolation: int = cv2.INTER_LINEAR) -> TopView:
    """The table rectangle (x0, y0, x1, y1) inches seen from above, through H (inches -> pixels)."""
    x0, y0, x1, y1 = rect_in
    size = (max(1, int(np.ceil((x1 - x0) * ppi))), max(1, int(np.ceil((y1 - y0) * ppi))))
    view_to_in = np.array([[1 / ppi, 0, x0], [0, 1 / ppi, y0], [0, 0, 1.0]])
    m = np.asarray(H_in_to_px, np.float64) @ view_to_in
    image = cv2.warpPerspective(frame, m, size, flags=interpolation | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    return TopView(image, ppi, (x0, y0))
