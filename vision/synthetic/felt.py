"""Mats and terrain felt with photographed texture, and felt pieces with ragged, soft edges.

A felt piece is cut from a nominal outline; its edge wanders (fibres, a scissor cut) and is soft
over a few hundredths of an inch. The truth polygon of a piece is where its cover is at least
half, traced on the same raster the picture is made from, so it is exactly what is drawn.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

from vision.synthetic import textures
from vision.synthetic.paint import RGB, paste
from vision.synthetic.render import SurfaceImage

FELT_PPI = 16.0


@dataclass(frozen=True)
class FeltCut:
    terrain_id: str
    kind: str
    outline: tuple[tuple[float, float], ...]   # nominal, inches
    rgb: RGB                                    # the felt's colour in daylight (what a player would name)
    texture: str                                # a textures.TEXTURES name
    contrast: float = 0.18
    ragged_in: float = 0.12                     # how far the edge wanders either way
    soft_in: float = 0.05                       # width of the soft edge


def mat_surface(width_in: float, depth_in: float, rgb: RGB, texture: str | None, rng: np.random.Generator,
                ppi: float = 20.0, contrast: float = 0.18) -> SurfaceImage:
    """The whole mat as a picture in table inches: a photographed texture tinted to `rgb`
    (None: the plain colour with a faint mottle, like render.py's default mat)."""
    w, h = int(width_in * ppi) + 2, int(depth_in * ppi) + 2
    if texture is None:
        field = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 3 * ppi / 4)
        field /= field.std() + 1e-6
        contrast = 0.05
    else:
        texel = {"grass": 0.02, "gravel": 0.025, "brick": 0.04, "wood": 0.04}[texture] * ppi
        field = textures.tiled(texture, (w, h), texel, rng, angle_deg=0.0 if texture == "wood" else None)
    image = np.clip(textures.tinted(field, rgb, contrast), 0, 255).astype(np.uint8)
    return SurfaceImage(image=image, ppi=ppi)


class FeltLayer:
    """The felt pieces of one table, ready to lay on the canvas (an `under` layer of render_photo)."""

    def __init__(self, width_in: float, depth_in: float, cuts: list[FeltCut], rng: np.random.Generator,
                 ppi: float = FELT_PPI):
        self.ppi = ppi
        self.pieces: list[tuple[FeltCut, np.ndarray, np.ndarray, tuple[int, int]]] = []
        self.truth: list[tuple[FeltCut, Polygon]] = []
        for cut in cuts:
            colour, alpha, origin = self._cut(cut, rng)
            self.pieces.append((cut, colour, alpha, origin))
            self.truth.append((cut, self._trace(alpha, origin)))

    def _cut(self, cut: FeltCut, rng: np.random.Generator):
        ppi = self.ppi
        outline = np.asarray(cut.outline)
        pad = cut.ragged_in * 3 + cut.soft_in * 3 + 0.3
        x0, y0 = np.floor((outline.min(axis=0) - pad) * ppi).astype(int)
        x1, y1 = np.ceil((outline.max(axis=0) + pad) * ppi).astype(int)
        w, h = x1 - x0, y1 - y0
        inside = np.zeros((h, w), np.uint8)
        pts = np.round((outline * ppi - (x0, y0)) * 16).astype(np.int32)
        cv2.fillPoly(inside, [pts], 255, cv2.LINE_8, 4)
        # Signed distance to the nominal edge, in inches (positive inside).
        d_in = cv2.distanceTransform(inside, cv2.DIST_L2, 5) - cv2.distanceTransform(255 - inside, cv2.DIST_L2, 5)
        d_in = d_in.astype(np.float32) / ppi
        wander = np.zeros((h, w), np.float32)
        for sigma_in, share in ((0.35, 0.7), (0.08, 0.3)):      # a wavy cut plus frayed fibres
            n = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), sigma_in * ppi)
            wander += share * n / (n.std() + 1e-6)
        edge = d_in + cut.ragged_in * wander
        alpha = np.clip(0.5 + edge / max(cut.soft_in, 1e-3), 0, 1).astype(np.float32)
        texel = {"grass": 0.025, "gravel": 0.03, "brick": 0.04, "wood": 0.04}[cut.texture] * ppi
        field = textures.tiled(cut.texture, (w, h), texel, rng)
        colour = np.clip(textures.tinted(field, cut.rgb, cut.contrast), 0, 255).astype(np.float32)
        return colour, alpha, (int(x0), int(y0))

    def _trace(self, alpha: np.ndarray, origin: tuple[int, int]) -> Polygon:
        mask = (alpha >= 0.5).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        rings = [Polygon((c.reshape(-1, 2) + origin) / self.ppi) for c in contours if len(c) >= 3]
        shape = shapely.union_all([shapely.make_valid(r) for r in rings])
        if shape.geom_type != "Polygon":          # keep the piece, drop frayed-off crumbs
            shape = max(getattr(shape, "geoms", [shape]), key=lambda g: g.area)
        # Contours run through the centres of the edge pixels: half a pixel inside the cut.
        return shape.buffer(0.5 / self.ppi).simplify(0.5 / self.ppi)

    def __call__(self, canvas) -> None:
        for _cut, colour, alpha, (x0, y0) in self.pieces:
            px_to_in = np.array([[1 / self.ppi, 0, x0 / self.ppi], [0, 1 / self.ppi, y0 / self.ppi], [0, 0, 1]])
            paste(canvas, colour, alpha, px_to_in)
