"""Small textured top views of a table for the terrain tests, with exact truth.

A mat with texture (grass, gravel, wood grain, plain mottle), felt pieces with their own fibre
texture and ragged, soft edges, anchor cards in the corners, figures standing on felt, clutter
(a mug and its shadow, a printed page, a phone, a pencil, a book) and an arm reaching in from
the table's edge, under a colour cast, a lamp's hot spot and vignetting. The truth of a piece is
where its felt covers more than half a pixel, traced at eight times the view's resolution.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from shapely.geometry import Polygon

from calibration.profile import standard_anchors

PPI = 10.0
SS = 4                     # supersampling of the drawing
MATS = {"grass": (70, 112, 52), "gravel": (128, 122, 112), "wood": (150, 112, 74), "plain": (176, 160, 128)}
KINDS = {"woods": (38, 74, 34), "rocks": (120, 120, 125), "hill": (150, 125, 80), "water": (60, 120, 170)}
CASTS = {"neutral": (1.0, 1.0, 1.0), "tungsten": (0.62, 0.82, 1.0), "daylight": (1.0, 0.96, 0.88)}   # B, G, R


@dataclass
class FeltScene:
    view_bgr: np.ndarray                     # top view at PPI, table point (0, 0) at pixel (0, 0)
    width_in: float
    depth_in: float
    kinds: dict[str, tuple[int, int, int]]   # the profile's terrain colours
    truth: list[tuple[str, Polygon]]         # visible felt
    figures: list[tuple[float, float]]       # figures standing on felt
    clutter: list[Polygon]                   # where clutter lies (never terrain)
    anchors: tuple


def _noise(rng, shape, scale_px: float) -> np.ndarray:
    """Smooth noise with features about `scale_px` across, zero mean, unit std."""
    # White noise blurred at a fine scale, then enlarged: smooth, and with no lattice of its own
    # (a plain enlargement leaves one at the coarse pixels' pitch, which reads as a printed grid).
    small = (max(2, int(4 * shape[1] / scale_px)), max(2, int(4 * shape[0] / scale_px)))
    n = cv2.GaussianBlur(rng.normal(0, 1, (small[1], small[0])).astype(np.float32), (0, 0), 2.0)
    n = cv2.resize(n, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)
    return (n - n.mean()) / (n.std() + 1e-6)


def _mat(rng, kind: str, shape) -> np.ndarray:
    base = np.array(MATS[kind][::-1], np.float32)
    ppi = PPI * SS
    if kind == "grass":
        t = 1 + 0.12 * _noise(rng, shape, 0.08 * ppi) + 0.08 * _noise(rng, shape, 0.5 * ppi)
        hue = 0.06 * _noise(rng, shape, 0.3 * ppi)
        img = base * t[..., None]
        img[..., 2] *= 1 + hue
        img[..., 1] *= 1 - hue / 2
    elif kind == "gravel":
        t = 1 + 0.22 * _noise(rng, shape, 0.06 * ppi) + 0.08 * _noise(rng, shape, 0.4 * ppi)
        img = base * t[..., None]
    elif kind == "wood":
        y = np.arange(shape[0], dtype=np.float32)[:, None] + 6 * _noise(rng, shape, 2 * ppi) * ppi / 10
        t = 1 + 0.15 * np.sin(2 * np.pi * y / (0.35 * ppi)) + 0.05 * _noise(rng, shape, 0.1 * ppi)
        img = base * t[..., None]
    else:
        img = base * (1 + 0.05 * _noise(rng, shape, 0.5 * ppi))[..., None]
    return img


def _ragged(rng, cx, cy, radius_in, shape) -> np.ndarray:
    """Felt coverage (0..1) of a blob with a hand-cut, frayed edge, at the supersampled scale."""
    ppi = PPI * SS
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    ang = np.arctan2(yy - cy * ppi, xx - cx * ppi)
    r = np.hypot(xx - cx * ppi, yy - cy * ppi) / ppi
    wobble = sum(rng.uniform(0.05, 0.18) * radius_in * np.cos(k * ang + rng.uniform(0, 2 * np.pi)) for k in (2, 3, 5))
    edge = radius_in + wobble + 0.12 * _noise(rng, shape, 0.15 * ppi)      # frayed: fine ragged edge
    return np.clip((edge - r) * ppi / 2.0 + 0.5, 0, 1)                     # soft over ~0.05"


def felt_scene(seed: int, *, mat: str = "plain", cast: str = "neutral", kinds=("woods", "rocks", "hill", "water"),
               width_in: float = 36.0, depth_in: float = 24.0, clutter: bool = True, figures: bool = True,
               hot_spot: float = 0.25, vignette: float = 0.25, blur_px: float = 0.6, jpeg: int = 60,
               table_edge_rgb: tuple[int, int, int] | None = None) -> FeltScene:
    """`table_edge_rgb`: the mat stops short of the table, whose wood shows along two edges."""
    rng = np.random.default_rng(seed)
    shape = (int(depth_in * PPI * SS), int(width_in * PPI * SS))
    ppi = PPI * SS
    img = _mat(rng, mat, shape)
    truth, figs, things = [], [], []
    spots = [(0.22, 0.3), (0.55, 0.28), (0.32, 0.72), (0.72, 0.68)]
    for kind, (fx, fy) in zip(kinds, spots):
        cx, cy = fx * width_in + rng.uniform(-0.5, 0.5), fy * depth_in + rng.uniform(-0.5, 0.5)
        radius = rng.uniform(2.5, 3.0)
        cover = _ragged(rng, cx, cy, radius, shape)
        felt = np.array(KINDS[kind][::-1], np.float32) * (1 + 0.07 * _noise(rng, shape, 0.05 * ppi))[..., None]
        img = img * (1 - cover[..., None]) + felt * cover[..., None]
        mask = (cv2.resize(cover, (shape[1] * 2 // SS, shape[0] * 2 // SS), interpolation=cv2.INTER_AREA) > 0.5)
        contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        ring = max(contours, key=cv2.contourArea).reshape(-1, 2) / (2 * PPI)
        truth.append((kind, Polygon(ring).buffer(0.5 / (2 * PPI), join_style="mitre").simplify(0.02)))
        if figures:
            figs.append((cx + rng.uniform(-0.5, 0.5), cy + rng.uniform(-0.5, 0.5)))
    for x, y in figs:                     # a figure on a rimmed base: the felt shows round it, not under it
        cv2.circle(img, (int(x * ppi), int(y * ppi)), int(0.5 * ppi), (40, 40, 200), -1)
        cv2.circle(img, (int(x * ppi), int(y * ppi)), int(0.36 * ppi), (120, 150, 170), -1)
        cv2.ellipse(img, (int((x + 0.1) * ppi), int((y - 0.2) * ppi)), (int(0.28 * ppi), int(0.4 * ppi)), 20, 0, 360,
                    (70, 110, 60), -1)
    if clutter:
        things = _clutter(img, rng, width_in, depth_in, ppi)
    if table_edge_rgb is not None:
        wood = np.array(table_edge_rgb[::-1], np.float32) * (1 + 0.06 * _noise(rng, shape, 0.1 * ppi))[..., None]
        band = np.zeros(shape, bool)
        band[:, : int(1.1 * ppi)] = True
        band[-int(0.9 * ppi):, :] = True
        img[band] = wood[band]
        things.append(Polygon([(0, 0), (1.1, 0), (1.1, depth_in), (0, depth_in)]))
    anchors = standard_anchors(width_in, depth_in)
    for a in anchors:
        card, black = a.size_in * 8 / 6 / 2, a.size_in / 2
        cv2.rectangle(img, (int((a.x_in - card) * ppi), int((a.y_in - card) * ppi)),
                      (int((a.x_in + card) * ppi), int((a.y_in + card) * ppi)), (228, 235, 235), -1)
        cv2.rectangle(img, (int((a.x_in - black) * ppi), int((a.y_in - black) * ppi)),
                      (int((a.x_in + black) * ppi), int((a.y_in + black) * ppi)), (24, 22, 22), -1)
    # Light: a cast, a lamp's hot spot, vignetting.
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    hx, hy = rng.uniform(0.2, 0.8) * shape[1], rng.uniform(0.2, 0.8) * shape[0]
    gain = 0.85 + hot_spot * np.exp(-((xx - hx) ** 2 + (yy - hy) ** 2) / (2 * (0.25 * shape[1]) ** 2))
    rr = np.hypot((xx - shape[1] / 2) / shape[1], (yy - shape[0] / 2) / shape[0]) * 2
    gain *= 1 - vignette * rr ** 2 / 2
    img = img * gain[..., None] * np.array(CASTS[cast], np.float32)
    view = cv2.resize(np.clip(img, 0, 255), (shape[1] // SS, shape[0] // SS), interpolation=cv2.INTER_AREA)
    if blur_px:
        view = cv2.GaussianBlur(view, (0, 0), blur_px)
    view = np.clip(view + rng.normal(0, 3, view.shape), 0, 255).astype(np.uint8)
    if jpeg:
        view = cv2.imdecode(cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, jpeg])[1], cv2.IMREAD_COLOR)
    return FeltScene(view, width_in, depth_in, {k: KINDS[k] for k in kinds}, truth, figs, things, anchors)


def _clutter(img, rng, width_in, depth_in, ppi) -> list[Polygon]:
    """A mug with its shadow, a printed page, a phone, a pencil, a green book, an arm from the edge."""
    def px(pts):
        return (np.asarray(pts, np.float64) * ppi).astype(np.int32)
    def rect(cx, cy, w, h, deg):
        a = math.radians(deg)
        c, s = math.cos(a), math.sin(a)
        return [(cx + c * dx - s * dy, cy + s * dx + c * dy) for dx, dy in
                ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))]
    out = []
    sx, sy = width_in / 36, depth_in / 24          # laid out for a 36 x 24" table, clear of the felt
    mx, my = 18 * sx, 12.5 * sy
    shadow = np.zeros(img.shape[:2], np.float32)
    cv2.ellipse(shadow, (int((mx + 1.4) * ppi), int((my + 0.8) * ppi)), (int(2.4 * ppi), int(1.5 * ppi)), 30, 0, 360, 1, -1)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 0.4 * ppi)
    img *= (1 - 0.5 * shadow)[..., None]
    cv2.circle(img, (int(mx * ppi), int(my * ppi)), int(1.6 * ppi), (215, 220, 225), -1)
    cv2.circle(img, (int(mx * ppi), int(my * ppi)), int(1.3 * ppi), (60, 80, 110), -1)     # coffee
    out.append(Polygon(rect(mx + 0.9, my + 0.5, 5.5, 4.0, 30)))
    page = rect(30.5 * sx, 6 * sy, 5.0, 7.0, rng.uniform(-12, 12))
    cv2.fillPoly(img, [px(page)], (238, 240, 240))
    for k in range(14):
        a, b = np.array(page[0]), np.array(page[1])
        d = (np.array(page[3]) - a) / 16
        cv2.line(img, tuple(px(a + d * (k + 1.5) + (b - a) * 0.1)), tuple(px(a + d * (k + 1.5) + (b - a) * 0.9)),
                 (40, 40, 40), max(1, int(0.05 * ppi)))
    out.append(Polygon(page))
    phone = rect(2.6 * sx, 14.5 * sy, 2.6, 5.2, rng.uniform(-10, 10))
    cv2.fillPoly(img, [px(phone)], (25, 25, 30))
    out.append(Polygon(phone))
    pencil = rect(13.5 * sx, 1.4 * sy, 7.0, 0.3, rng.uniform(-5, 5))
    cv2.fillPoly(img, [px(pencil)], (40, 180, 225))
    out.append(Polygon(pencil))
    book = rect(4.6 * sx, 21.8 * sy, 4.2, 5.0, rng.uniform(-10, 10))
    cv2.fillPoly(img, [px(book)], (KINDS["woods"][2] + 8, KINDS["woods"][1] + 6, KINDS["woods"][0]))   # a green cover
    out.append(Polygon(book))
    ax = 18.8 * sx
    arm = [(ax - 1.2, depth_in + 0.5), (ax + 1.2, depth_in + 0.5), (ax + 1.5, depth_in - 6), (ax - 0.9, depth_in - 6)]
    cv2.fillPoly(img, [px(arm)], (120, 150, 200))
    cv2.ellipse(img, (int((ax + 0.3) * ppi), int((depth_in - 7) * ppi)), (int(1.4 * ppi), int(1.9 * ppi)), 10, 0, 360,
                (125, 155, 205), -1)
    out.append(Polygon(arm).union(Polygon(rect(ax + 0.3, depth_in - 7, 2.8, 3.8, 10))))
    return out
