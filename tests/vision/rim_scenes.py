"""Small adversarial top views (a view of the bases' top plane) with exact truth, for the rim tests.

Drawn four times over and area-averaged, then blurred, with noise and JPEG at quality 60.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

PPI = 20.0
SS = 4                                  # supersampling
RED, BLUE = (200, 40, 40), (40, 80, 200)
WATER = (60, 120, 170)
MAT = (176, 160, 128)
BASE_TOP_IN = 0.125                     # the height of a base's top, where the view is made
TOWARDS = np.array([0.0, 1.0])          # the camera is down the view (+y)
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],   # a die's faces
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


@dataclass
class TopScene:
    width_in: float = 12.0
    depth_in: float = 8.0
    mat_rgb: tuple = MAT
    texture: float = 0.0                # std of a fine mottling of the mat (grass, gravel)
    truth: list = field(default_factory=list)      # (x_in, y_in, side)

    def __post_init__(self):
        w, h = int(self.width_in * PPI * SS), int(self.depth_in * PPI * SS)
        self.canvas = np.empty((h, w, 3), np.uint8)
        self.canvas[:] = self.mat_rgb[::-1]

    def _pt(self, x, y):
        return int(round(x * PPI * SS)), int(round(y * PPI * SS))

    def disc(self, x, y, r_in, rgb):
        cv2.circle(self.canvas, self._pt(x, y), int(round(r_in * PPI * SS)), rgb[::-1], -1, cv2.LINE_AA)

    def poly(self, pts_in, rgb):
        pts = np.round(np.asarray(pts_in) * PPI * SS).astype(np.int32)
        cv2.fillPoly(self.canvas, [pts], rgb[::-1], cv2.LINE_AA)

    def figure(self, x, y, side, rim_rgb, *, visible=1.0, lean_deg=0.0, body_rgb=(150, 150, 160),
               base_in=1.0, cloth_rgb=None, truth=True, top_r=0.6):
        """A base rimmed in `rim_rgb` with a body standing on it, leaning so that only `visible` of
        the ring shows (the hidden arc is centred on `lean_deg`); its dark top reaches `top_r` of
        the radius (0.9: a rim a twentieth of an inch wide on a 1" base)."""
        r = base_in / 2
        self.disc(x, y, r, rim_rgb)
        self.disc(x, y, r * top_r, (70, 66, 60))
        self.disc(x, y, r * 0.45, body_rgb)
        if visible < 1.0:
            half = math.radians((1 - visible) * 180)
            a = math.radians(lean_deg)
            t = np.linspace(a - half, a + half, 24)
            arc = np.column_stack([x + 1.08 * r * np.cos(t), y + 1.08 * r * np.sin(t)])
            self.poly(np.vstack([[x, y], arc]), body_rgb)
        if cloth_rgb is not None:
            self.poly([(x - 0.2, y - 0.25), (x + 0.15, y - 0.3), (x + 0.25, y + 0.1), (x - 0.1, y + 0.2)], cloth_rgb)
        if truth:
            self.truth.append((x, y, side))

    def die(self, x, y, rgb, side_in=0.63, yaw_deg=20.0, pips=5):
        c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
        h = side_in / 2
        local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
        self.poly(local @ np.array([[c, s], [-s, c]]) + (x, y), rgb)
        spots = [(0, 0), (-0.3, -0.3), (0.3, 0.3), (-0.3, 0.3), (0.3, -0.3), (0, -0.3)][:pips]
        for px, py in spots:
            q = np.array([px, py]) * side_in @ np.array([[c, s], [-s, c]]) + (x, y)
            self.disc(q[0], q[1], side_in * 0.09, (240, 240, 235))

    def mug(self, x, y, rgb, r_in=1.6):
        self.disc(x + 0.5, y + 0.4, r_in * 1.05, tuple(int(c * 0.6) for c in self.mat_rgb))   # its shadow
        self.disc(x, y, r_in, rgb)
        self.disc(x, y, r_in - 0.15, (45, 30, 22))                                          # coffee

    def finish(self, *, blur_px=0.8, noise=3.0, jpeg=60, cast=(1.0, 1.0, 1.0), seed=0):
        rng = np.random.default_rng(seed)
        img = cv2.resize(self.canvas, (self.canvas.shape[1] // SS, self.canvas.shape[0] // SS),
                         interpolation=cv2.INTER_AREA).astype(np.float32)
        if self.texture:
            mottle = cv2.GaussianBlur(rng.normal(0, 1, img.shape[:2]).astype(np.float32), (0, 0), 0.8)
            img *= (1 + self.texture * mottle / (mottle.std() + 1e-6))[..., None]
        img *= np.array(cast[::-1], np.float32)
        if blur_px:
            img = cv2.GaussianBlur(img, (0, 0), blur_px)
        img += rng.normal(0, noise, img.shape).astype(np.float32)
        img = np.clip(img, 0, 255).astype(np.uint8)
        if jpeg:
            img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, jpeg])[1], cv2.IMREAD_COLOR)
        return img


def solid_die(scene: TopScene, x, y, rgb, per_in: float, yaw_deg=20.0, side_in=0.63, pips=5):
    """A die as the top view at a base's top height shows it, from a camera down the view that shows
    a thing one inch up `per_in` inches farther: its bottom nearer the camera, its top face (with
    `pips` white pips) `side_in` up, farther; the near walls, shaded, between."""
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    h = side_in / 2
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ np.array([[c, s], [-s, c]]) + (x, y)
    bottom = local + TOWARDS * per_in * BASE_TOP_IN
    top = local - TOWARDS * per_in * (side_in - BASE_TOP_IN)
    hull = np.vstack([bottom, top])
    order = np.argsort(np.arctan2(*(hull - hull.mean(0)).T[::-1]))
    scene.poly(hull[order], tuple(int(0.7 * v) for v in rgb))
    scene.poly(top, rgb)
    for px, py in PIPS[pips]:
        q = np.array([px, py]) * side_in * 0.27 @ np.array([[c, s], [-s, c]]) + top.mean(0)
        scene.disc(q[0], q[1], side_in * 0.08, (240, 240, 235))
