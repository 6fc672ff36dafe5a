"""Things on and around a kitchen table that are not figures: dice of the sides' colours beside
figures, a mug with its shadow, a printed rule-book page, a phone, a pencil and a book.

Each is a small value with `draw(canvas)` (an `over` layer of render_photo) and
`footprint(camera)`: the table it hides from that camera, in inches, so the scene generator can
keep anchors, markers and figures clear of it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from vision.synthetic import textures
from vision.synthetic.paint import (RGB, SHADOW_SLANT, circle, paste, rect, shade, shaded, solid, solid_footprint,
                                   to_canvas)


def _shadow(canvas, ring_in: np.ndarray, height_in: float, darken: float = 0.4) -> None:
    moved = ring_in + np.array(SHADOW_SLANT) * height_in
    shade(canvas, np.asarray(shapely.convex_hull(shapely.multipoints(np.vstack([ring_in, moved]))).exterior.coords),
          darken, soft_in=0.15 + 0.08 * height_in)


@dataclass(frozen=True)
class Die:
    x_in: float
    y_in: float
    yaw_deg: float
    rgb: RGB
    pips: int
    side_in: float = 0.63           # a 16 mm die
    kind: str = "die"

    def ring(self) -> np.ndarray:
        return rect(self.x_in, self.y_in, self.side_in, self.side_in, self.yaw_deg)

    def draw(self, canvas) -> None:
        s = self.side_in
        _shadow(canvas, self.ring(), s, 0.3)
        solid(canvas, self.ring(), 0.0, s, self.rgb, wall=0.7)
        pips = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
                4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
                6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[self.pips]
        c, sn = math.cos(math.radians(self.yaw_deg)), math.sin(math.radians(self.yaw_deg))
        for px, py in pips:
            lx, ly = px * s * 0.27, py * s * 0.27
            canvas.fill([circle(self.x_in + lx * c - ly * sn, self.y_in + lx * sn + ly * c, s * 0.08, 12)],
                        (240, 240, 235), s)

    def footprint(self, camera) -> Polygon:
        return solid_footprint(camera, self.ring(), 0.0, self.side_in)


@dataclass(frozen=True)
class Mug:
    x_in: float
    y_in: float
    rgb: RGB
    handle_deg: float
    radius_in: float = 1.6
    height_in: float = 3.8
    kind: str = "mug"

    def draw(self, canvas) -> None:
        ring = circle(self.x_in, self.y_in, self.radius_in, 40)
        _shadow(canvas, ring, self.height_in, 0.45)
        a = math.radians(self.handle_deg)
        hx, hy = self.x_in + (self.radius_in + 0.45) * math.cos(a), self.y_in + (self.radius_in + 0.45) * math.sin(a)
        handle = np.vstack([to_canvas(canvas, circle(hx, hy, 0.45, 16), z) for z in (1.0, 3.0)])
        canvas.fill_hull(handle, shaded(self.rgb, 0.8))
        solid(canvas, ring, 0.0, self.height_in, shaded(self.rgb, 0.95), wall=0.75)
        canvas.fill([circle(self.x_in, self.y_in, self.radius_in - 0.15, 40)], (60, 38, 25), self.height_in - 0.1)

    def footprint(self, camera) -> Polygon:
        ring = circle(self.x_in, self.y_in, self.radius_in + 0.9, 24)
        return solid_footprint(camera, ring, 0.0, self.height_in)


@dataclass(frozen=True)
class Slab:
    """A flat box: a phone, a book, a pencil; `page` puts the printed page on its top."""
    kind: str
    x_in: float
    y_in: float
    w_in: float
    h_in: float
    yaw_deg: float
    thick_in: float
    rgb: RGB
    page: bool = False

    def ring(self) -> np.ndarray:
        return rect(self.x_in, self.y_in, self.w_in, self.h_in, self.yaw_deg)

    def draw(self, canvas) -> None:
        if self.thick_in > 0.05:
            _shadow(canvas, self.ring(), self.thick_in, 0.35)
        solid(canvas, self.ring(), 0.0, self.thick_in, self.rgb, wall=0.8)
        if self.page:
            ppi = 40
            w, h = int(self.w_in * ppi), int(self.h_in * ppi)
            sheet = textures.printed_page((w - 2 * int(0.8 * ppi), h - 2 * int(0.9 * ppi)))
            a = math.radians(self.yaw_deg)
            c, s = math.cos(a), math.sin(a)
            # sheet pixel -> page-local inches (margins) -> table inches
            local = np.array([[1 / ppi, 0, -self.w_in / 2 + 0.8], [0, 1 / ppi, -self.h_in / 2 + 0.9], [0, 0, 1]])
            place = np.array([[c, -s, self.x_in], [s, c, self.y_in], [0, 0, 1]])
            paste(canvas, sheet, None, place @ local, self.thick_in)
        if self.kind == "phone":
            inner = rect(self.x_in, self.y_in, self.w_in - 0.25, self.h_in - 0.35, self.yaw_deg)
            canvas.fill([inner], (28, 30, 36), self.thick_in)
            glare = rect(self.x_in - self.w_in * 0.15, self.y_in, self.w_in * 0.25, self.h_in * 0.7, self.yaw_deg)
            shade(canvas, glare, -0.6, 0.2, self.thick_in)      # a window's reflection on the glass

    def footprint(self, camera) -> Polygon:
        return solid_footprint(camera, self.ring(), 0.0, self.thick_in)


def mug(rng: np.random.Generator, x: float, y: float) -> Mug:
    colours = ((235, 235, 230), (190, 40, 45), (45, 75, 180), (30, 30, 32), (230, 190, 60))
    return Mug(x, y, colours[int(rng.integers(len(colours)))], float(rng.uniform(0, 360)))


def page(rng: np.random.Generator, x: float, y: float) -> Slab:
    return Slab("page", x, y, 8.5, 11.0, float(rng.uniform(0, 360)), 0.01, (240, 238, 230), page=True)


def phone(rng: np.random.Generator, x: float, y: float) -> Slab:
    case = ((20, 20, 22), (180, 40, 45), (40, 70, 170), (200, 200, 205))
    return Slab("phone", x, y, 2.9, 6.0, float(rng.uniform(0, 360)), 0.35, case[int(rng.integers(len(case)))])


def pencil(rng: np.random.Generator, x: float, y: float) -> Slab:
    return Slab("pencil", x, y, 0.28, 7.0, float(rng.uniform(0, 360)), 0.28, (235, 190, 40))


def book(rng: np.random.Generator, x: float, y: float) -> Slab:
    covers = ((170, 35, 40), (35, 60, 160), (40, 90, 50), (60, 45, 40), (210, 200, 180))
    return Slab("book", x, y, 6.5, 9.5, float(rng.uniform(0, 360)), 1.0, covers[int(rng.integers(len(covers)))])


MAKERS = {"mug": mug, "page": page, "phone": phone, "pencil": pencil, "book": book}
