"""Felt terrain: pieces of the profile's terrain colours become simplified polygons in table inches.

The table-plane top view is classified by colour (`vision.colour.classify`: chromaticity, so the
lighting gradient does not matter), at a coarse resolution since felt pieces are inches across.
Each kind's mask is opened (grid lines, rims and other thin things go), closed (the felt's own
blemishes), and its holes filled: a marker or a figure standing on the felt is part of the piece,
not a hole in it. Figures standing on the edge of a piece bite a notch out of its outline; their
footprints are added back to the piece they stand on. Small patches are not terrain.
"""
from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

from measure.scene import Terrain
from vision.colour import chromaticity, classify, mat_chroma, rgb_chroma

TERRAIN_PPI = 10.0
MIN_AREA_SQIN = 2.5          # smaller patches of a terrain colour are not a piece
MIN_ALPHA = 0.5              # a terrain pixel is at least half the felt's colour (its edge)
MIN_BRIGHTNESS = 25.0        # B + G + R of the blurred view
SIMPLIFY_IN = 0.06           # outline simplification tolerance


def _kernel(radius_in: float, ppi: float) -> np.ndarray:
    n = max(1, int(round(radius_in * ppi))) * 2 + 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (n, n))


def find_terrain(view_bgr: np.ndarray, ppi: float, kinds: Sequence[tuple[str, Sequence[int]]],
                 side_rgbs: Sequence[Sequence[int]] = (), footprints_in: Sequence[tuple[float, float, float]] = (),
                 origin_in: tuple[float, float] = (0.0, 0.0),
                 exclude_in: Sequence[tuple[float, float, float, float]] = ()) -> tuple[Terrain, ...]:
    """Terrain pieces in a table-plane top view. `kinds`: (kind, rgb) from the profile; `side_rgbs`
    compete for pixels (a red rim is not a red felt); `footprints_in`: (x, y, radius) of the figures
    and markers seen, filled into the piece they stand on; `exclude_in`: (x0, y0, x1, y1) rectangles
    that are never terrain (the anchor cards: white and black read as grey felt)."""
    if not kinds:
        return ()
    chroma, brightness = chromaticity(cv2.blur(view_bgr, (3, 3)))
    mat = mat_chroma(chroma)
    targets = [rgb_chroma(rgb) for _, rgb in kinds] + [rgb_chroma(c) for c in side_rgbs]
    # Blurred first, so dark felt (woods in a shadow) has chromaticity steady enough to trust.
    label = classify(chroma, brightness, targets, mat, min_alpha=MIN_ALPHA, min_brightness=MIN_BRIGHTNESS)
    ox, oy = origin_in
    for x0, y0, x1, y1 in exclude_in:
        label[max(0, int((y0 - oy) * ppi)):max(0, int(math.ceil((y1 - oy) * ppi))),
              max(0, int((x0 - ox) * ppi)):max(0, int(math.ceil((x1 - ox) * ppi)))] = -1
    pieces: list[Terrain] = []
    for k, (kind, _) in enumerate(kinds):
        mask = (label == k).astype(np.uint8)
        if not mask.any():
            continue
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _kernel(0.2, ppi))
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _kernel(0.3, ppi))
        mask = _fill_holes(mask)
        if footprints_in:
            mask = _add_footprints(mask, ppi, footprints_in, origin_in)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for contour in contours:
            if cv2.contourArea(contour) < MIN_AREA_SQIN * ppi * ppi:
                continue
            ring = contour.reshape(-1, 2).astype(np.float64) / ppi + (ox, oy)
            # Contour points are the centres of the edge pixels: the felt's edge is half a pixel out.
            polygon = shapely.make_valid(Polygon(ring)).buffer(0.5 / ppi, join_style="mitre")
            if polygon.geom_type != "Polygon":
                polygon = max(getattr(polygon, "geoms", [polygon]), key=lambda g: g.area)
            polygon = polygon.simplify(SIMPLIFY_IN, preserve_topology=True)
            if polygon.is_empty or polygon.geom_type != "Polygon":
                continue
            pieces.append((kind, Polygon(polygon.exterior)))
    pieces.sort(key=lambda kp: (kp[1].centroid.y, kp[1].centroid.x))
    return tuple(Terrain(f"t{i + 1}", kind, poly) for i, (kind, poly) in enumerate(pieces))


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    return filled


def _add_footprints(mask: np.ndarray, ppi: float, footprints_in, origin_in) -> np.ndarray:
    """Discs of figures whose centre stands on (or within their radius of) a piece, added to it."""
    out = mask.copy()
    h, w = mask.shape
    near = cv2.dilate(mask, _kernel(0.15, ppi))
    for x, y, radius in footprints_in:
        u, v = (x - origin_in[0]) * ppi, (y - origin_in[1]) * ppi
        iu, iv = int(round(u)), int(round(v))
        if not (0 <= iu < w and 0 <= iv < h):
            continue
        # The figure stands on the piece when its centre is on it, or when the felt shows all round a
        # good part of it (just outside its footprint, where the figure does not hide the felt).
        r = radius * ppi
        angles = np.linspace(0, 2 * math.pi, 16, endpoint=False)
        ring = np.column_stack([u + 1.3 * r * np.cos(angles), v + 1.3 * r * np.sin(angles)]).round().astype(int)
        inside = [(0 <= a < w and 0 <= b < h and mask[b, a]) for a, b in ring]
        if near[iv, iu] or sum(inside) >= 6:
            cv2.circle(out, (iu, iv), int(math.ceil(r + 0.1 * ppi)), 1, thickness=cv2.FILLED)
    return out
