"""A hand and arm reaching in over the table, held a few inches above one or two figures.

The hand is a flat shape (palm, four fingers, a thumb) at `height_in`; the arm rises behind it
towards the table's edge and runs out of the frame, in a sleeve. `footprint(camera)` is the
table it hides from the camera, in inches: a figure whose base is at least half inside is hidden.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import Polygon, box

from vision.synthetic.bodies import SKIN
from vision.synthetic.paint import RGB, SHADOW_SLANT, shade

HIDDEN_SHARE = 0.5       # a base at least this much under the hand is hidden


def _capsule(u0, v0, u1, v1, width):
    return shapely.buffer(shapely.linestrings([[u0, v0], [u1, v1]]), width / 2)


@dataclass(frozen=True)
class Hand:
    palm_xy_in: tuple[float, float]    # the palm's centre, at its height (table frame x, y)
    reach_deg: float                   # direction from wrist to fingertips
    height_in: float
    skin: RGB
    sleeve: RGB
    size: float = 1.0                  # 1 = an adult's hand; a child's is about 0.75
    left: bool = False

    def _parts(self) -> tuple[Polygon, Polygon]:
        """(hand and bare forearm, sleeve) in the hand's frame: u to the fingertips, v across, inches."""
        k = self.size
        t = -1 if self.left else 1
        palm = shapely.Point(0, 0).buffer(1.0)
        palm = shapely.affinity.scale(palm, 2.0 * k, 1.6 * k)
        fingers = [_capsule(1.5 * k, v * k, (1.5 + length) * k, (v + spread) * k, 0.72 * k)
                   for v, length, spread in ((-1.05, 2.3, -0.35), (-0.35, 2.8, -0.1), (0.35, 2.9, 0.1), (1.05, 2.5, 0.3))]
        thumb = _capsule(-0.4 * k, 1.3 * t * k, 1.2 * k, 2.6 * t * k, 0.8 * k)
        forearm = Polygon([(-1.5 * k, -1.2 * k), (-1.5 * k, 1.2 * k), (-9 * k, 1.6 * k), (-9 * k, -1.6 * k)])
        sleeve = Polygon([(-8 * k, -1.9 * k), (-8 * k, 1.9 * k), (-24, 2.6 * k), (-24, -2.6 * k)])
        return shapely.union_all([palm, thumb, forearm, *fingers]), sleeve

    def _to_3d(self, poly: Polygon) -> np.ndarray:
        uv = np.asarray(poly.exterior.coords)
        a = math.radians(self.reach_deg)
        c, s = math.cos(a), math.sin(a)
        x = self.palm_xy_in[0] + uv[:, 0] * c - uv[:, 1] * s
        y = self.palm_xy_in[1] + uv[:, 0] * s + uv[:, 1] * c
        z = self.height_in + np.clip(-uv[:, 0] - 2.0, 0, None) * 0.35     # the arm rises to the shoulder
        return np.column_stack([x, y, -z])

    def draw(self, canvas) -> None:
        hand, sleeve = self._parts()
        cam = canvas.camera
        for poly, rgb in ((sleeve, self.sleeve), (hand, self.skin)):
            pts3 = self._to_3d(poly)
            flat = pts3[:, :2] + np.array(SHADOW_SLANT) * (-pts3[:, 2:3]) * 0.5
            shade(canvas, flat, 0.3, soft_in=1.2)
        for poly, rgb in ((sleeve, self.sleeve), (hand, self.skin)):
            pts3 = self._to_3d(poly)
            if np.any(pts3[:, 2] >= 0) or np.any(_depth(cam, pts3) <= 0):
                continue
            px = cam.project(pts3)
            s = canvas.scale
            px_canvas = (px + 0.5) * s - 0.5
            colour = (int(rgb[2]), int(rgb[1]), int(rgb[0]))
            cv2.fillPoly(canvas.image, [np.round(px_canvas * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)

    def footprint(self, camera) -> Polygon:
        """The table hidden by hand and arm: each outline point carried down its camera ray."""
        hand, sleeve = self._parts()
        shapes = []
        for poly in (hand, sleeve):
            pts3 = self._to_3d(poly)
            c = camera.centre_in
            t = c[2] / (c[2] - pts3[:, 2])                     # where the ray from c through p meets z = 0
            ground = c[:2] + (pts3[:, :2] - c[:2]) * t[:, None]
            shapes.append(shapely.make_valid(Polygon(ground)))
        return shapely.union_all(shapes)


def _depth(camera, pts3: np.ndarray) -> np.ndarray:
    return (camera.rotation @ (pts3.T - camera.centre_in[:, None]))[2]


def hand_over(rng: np.random.Generator, camera, target_xy: tuple[float, float], width_in: float,
              depth_in: float) -> Hand:
    """A hand whose palm hides `target_xy` from this camera, reaching in from the nearest edge."""
    height = float(rng.uniform(2.0, 4.0))
    c = camera.centre_in
    t = 1 - height / (-c[2])                                  # along the ray from the camera to the target
    palm = c[:2] + (np.asarray(target_xy) - c[:2]) * t
    x, y = target_xy
    edges = {0.0: x, 180.0: width_in - x, 90.0: y, 270.0: depth_in - y}   # reach direction: distance to edge behind
    reach = min(edges, key=edges.get) + float(rng.uniform(-35, 35))
    return Hand(palm_xy_in=(float(palm[0]), float(palm[1])), reach_deg=reach, height_in=height,
                skin=SKIN[int(rng.integers(len(SKIN)))],
                sleeve=((40, 40, 45), (180, 40, 45), (45, 70, 160), (150, 150, 140), (90, 120, 70))[int(rng.integers(5))],
                size=float(rng.uniform(0.75, 1.0)), left=bool(rng.random() < 0.5))


def covered_share(footprint: Polygon, disc: Polygon) -> float:
    return float(footprint.intersection(disc).area / disc.area) if disc.area else 0.0


def table_box(width_in: float, depth_in: float) -> Polygon:
    return box(0, 0, width_in, depth_in)
