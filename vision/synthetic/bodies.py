"""Painted figures standing on rimmed bases: the base's wall and the outer part of its top are in
the side's colour (some players paint a thin band at the edge, some the whole top); the body
stands on the base and leans, so that from the camera only part of the rim shows. The rim is the
outer RIM_IN of the top: `rim_visible` is the share of it that no part of the body hides. Bodies are painted in several colours (skin, metal, brown,
green) and some carry a cloak or banner of red or blue cloth, of either side.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from vision.synthetic.paint import RGB, SHADOW_SLANT, circle, shade, shaded, to_canvas, tube

SKIN = ((224, 180, 150), (198, 150, 110), (150, 100, 70), (100, 70, 50))
METAL = ((165, 168, 175), (120, 122, 128), (190, 160, 80))
BROWN = ((110, 75, 45), (85, 60, 40), (140, 100, 60))
GREEN = ((70, 95, 50), (50, 80, 45), (95, 110, 60))
BASE_TOPS = ((95, 80, 55), (70, 90, 50), (120, 115, 105), (60, 60, 62))
CLOTH = {"red": (185, 35, 40), "blue": (40, 70, 190)}
RIM_IN = 0.12            # the rim: this outer band of a base's top (of a 1" base)
PAINTED_TOP_GAP_IN = 0.01  # a base_top disc smaller than this across (radius) is not drawn: the whole top is the rim's


@dataclass(frozen=True)
class Body:
    lean_deg: float
    lean_dir_deg: float
    stance_in: tuple[float, float]      # feet off the base's centre
    legs: RGB
    torso: RGB
    arms: RGB
    head: RGB
    weapon: RGB
    base_top: RGB
    rim_band_in: float                  # how far in from the edge the top is painted in the side's colour
    cloth: str | None = None            # a side whose colour the cloak is, or None
    scale: float = 1.0                  # body size relative to a 1" base
    shadow: float = 0.0                 # how much the body's shadow darkens the table and its own base's
                                        # top (paint.SHADOW_SLANT: where it falls); 0: none drawn

    def painted_top(self, fig) -> bool:
        """Whether the whole top of `fig`'s base is painted in the side's colour (no base_top shows
        inside the band: what `draw` leaves of it is too small to draw)."""
        return fig.base_in / 2 - self.rim_band_in <= PAINTED_TOP_GAP_IN

    def axis(self, fig, z_in: np.ndarray) -> np.ndarray:
        """Points of the body's leaning axis at heights above the base top (inches, table frame)."""
        t = math.tan(math.radians(self.lean_deg))
        a = math.radians(self.lean_dir_deg)
        x = fig.x_in + self.stance_in[0] + t * z_in * math.cos(a)
        y = fig.y_in + self.stance_in[1] + t * z_in * math.sin(a)
        return np.column_stack([x, y])

    def parts(self, fig) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, RGB]]:
        """(centres, heights, radii, colour) of each round part, back to front in drawing order."""
        s = self.scale * fig.base_in
        top = fig.base_height_in
        a = math.radians(self.lean_dir_deg + 90)
        side = np.array([math.cos(a), math.sin(a)])
        out = []

        def part(z0, z1, r0, r1, rgb, offset=(0.0, 0.0)):
            zs = np.array([z0, z1]) * s
            out.append((self.axis(fig, zs) + offset, top + zs, np.array([r0, r1]) * s, rgb))

        if self.cloth:
            part(0.2, 1.0, 0.42, 0.34, CLOTH[self.cloth], tuple(-0.12 * s * side))
        part(0.0, 0.45, 0.16, 0.17, self.legs, tuple(0.13 * s * side))
        part(0.0, 0.45, 0.16, 0.17, self.legs, tuple(-0.13 * s * side))
        part(0.4, 0.95, 0.34, 0.38, self.torso)
        part(0.55, 0.9, 0.09, 0.1, self.arms, tuple(0.42 * s * side))
        part(0.55, 0.9, 0.09, 0.1, self.arms, tuple(-0.42 * s * side))
        part(0.3, 1.45, 0.04, 0.04, self.weapon, tuple(0.5 * s * side))
        part(1.0, 1.25, 0.16, 0.15, self.head)
        return out

    def draw(self, canvas, fig) -> None:
        r = fig.base_in / 2
        top = fig.base_height_in
        rim = fig.rim_rgb
        if self.shadow:
            self._cast_shadow(canvas, fig, 0.0)
        wall = np.vstack([to_canvas(canvas, circle(fig.x_in, fig.y_in, r, 48), z) for z in (0.0, top)])
        canvas.fill_hull(wall, shaded(rim, 0.6))
        canvas.fill([circle(fig.x_in, fig.y_in, r, 48)], rim, top)
        if not self.painted_top(fig):
            canvas.fill([circle(fig.x_in, fig.y_in, r - self.rim_band_in, 48)], self.base_top, top)
        if self.shadow:
            self._cast_shadow(canvas, fig, top)
        for centres, heights, radii, rgb in self.parts(fig):
            tube(canvas, centres, heights, radii, rgb)

    def shadow_shape(self, fig, on_in: float) -> Polygon:
        """Where the body's shadow (and, on the table, its base's) falls on the plane `on_in` above the
        table, in inches (the room's light slanting as paint.SHADOW_SLANT says); on the base's top
        (`on_in` its height), only within the top."""
        slant = np.array(SHADOW_SLANT)
        hulls = []
        for centres, heights, radii, _rgb in self.parts(fig):
            pts = np.vstack([circle(x, y, rad, 16) + slant * (z - on_in)
                             for (x, y), z, rad in zip(centres, heights, radii)])
            hulls.append(shapely.convex_hull(shapely.multipoints(pts)))
        base = circle(fig.x_in, fig.y_in, fig.base_in / 2, 32)
        if on_in == 0.0:
            hulls.append(shapely.convex_hull(shapely.multipoints(np.vstack([base, base + slant * fig.base_height_in]))))
            return shapely.union_all(hulls)
        return shapely.union_all(hulls).intersection(Polygon(base))

    def _cast_shadow(self, canvas, fig, on_in: float) -> None:
        # (before the base, on the table; after the base's top, on it, before the body that casts it)
        shape = self.shadow_shape(fig, on_in)
        for part in getattr(shape, "geoms", [shape]):
            if isinstance(part, Polygon) and not part.is_empty and part.area > 1e-4:
                shade(canvas, np.asarray(part.exterior.coords)[:-1], self.shadow, soft_in=0.06, height_in=on_in)

    def rim_visible(self, camera, fig) -> float:
        """The share of the rim (the outer RIM_IN of the top) that no part of the body hides from this camera."""
        rim = _image_polygon(camera, circle(fig.x_in, fig.y_in, fig.base_in / 2, 48), fig.base_height_in)
        inner = _image_polygon(camera, circle(fig.x_in, fig.y_in, fig.base_in / 2 - RIM_IN * fig.base_in, 48),
                               fig.base_height_in)
        band = rim.difference(inner)
        return float(band.difference(self.image_shape(camera, fig)).area / band.area) if band.area else 0.0

    def image_shape(self, camera, fig) -> Polygon:
        """Where the body shows in the photo, in pixels."""
        hulls = []
        for centres, heights, radii, _rgb in self.parts(fig):
            pts = np.vstack([camera.project(np.c_[circle(x, y, rad, 20), np.full(20, -z)])
                             for (x, y), z, rad in zip(centres, heights, radii)])
            hulls.append(shapely.convex_hull(shapely.multipoints(pts)))
        return shapely.union_all(hulls)


def _image_polygon(camera, ring_in: np.ndarray, height_in: float) -> Polygon:
    return Polygon(camera.project(np.c_[ring_in, np.full(len(ring_in), -height_in)]))


def random_body(rng: np.random.Generator, camera, fig, target_visible: float) -> tuple[Body, float]:
    """A randomly painted body whose lean leaves about `target_visible` of the rim in view, and
    the share that does show."""
    pick = lambda seq: seq[int(rng.integers(len(seq)))]      # noqa: E731
    cloth = pick(("red", "blue")) if rng.random() < 0.3 else None
    base = dict(lean_dir_deg=float(rng.uniform(0, 360)),
                stance_in=tuple(rng.uniform(-0.06, 0.06, 2).tolist()),
                legs=pick(BROWN + GREEN), torso=pick(GREEN + BROWN + METAL), arms=pick(SKIN + METAL),
                head=pick(SKIN), weapon=pick(METAL + BROWN), base_top=pick(BASE_TOPS),
                rim_band_in=float(rng.uniform(0.12, 0.2) if rng.random() < 0.5 else 0.5) * fig.base_in, cloth=cloth,
                scale=float(rng.uniform(0.95, 1.2)))
    best, best_gap, best_vis = None, math.inf, 1.0
    for scale in (base["scale"], base["scale"] * 1.25):
        for lean in range(0, 44, 6):
            body = Body(lean_deg=float(lean), **{**base, "scale": scale})
            vis = body.rim_visible(camera, fig)
            if abs(vis - target_visible) < best_gap:
                best, best_gap, best_vis = body, abs(vis - target_visible), vis
        if best_gap < 0.05:
            break
    return best, best_vis
