"""Colour classes in a top view, and figures on bases rimmed in a side's colour.

Colours are compared as chromaticity (each channel over their sum), which a lighting gradient or a
soft shadow leaves alone (they scale all three channels). A pixel shows a colour of the profile
when it lies near the segment from the mat's chromaticity (the view's median) to that colour's, at
least `min_alpha` of the way: a blurred rim or a felt edge is part colour, part mat. Of several
colours, the one whose segment passes nearest wins. Dark pixels (noisy chromaticity) show nothing.

A colour base is found in a top view of the plane of the bases' top faces (`colour_base_height_in`
above the table), where the rim is a circle of the base's true size at the figure's true position.
The figure standing on the base hides the middle and, tilted away, a strip of the rim; so a base is
a peak of "how much of a base-sized square is rim", between a floor (`MIN_DISC_FILL`) and a ceiling
(a big patch of the colour, such as felt of a similar hue, fills it), with little of the colour just
outside, the colour all round at 0.8 of the radius and little of it in the middle. The centre is a
circle fitted to the rim's outer edge; on the camera's side that edge is the bottom of the base's
side wall, which the camera pose says how far to move back.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import cv2
import numpy as np

CHROMA_TOL = 0.06         # chromaticity distance (channels sum to 1) from the mat-to-colour segment
MIN_BRIGHTNESS = 60.0     # B + G + R below this: chromaticity too noisy to trust
MIN_DISC_FILL, MAX_DISC_FILL = 0.28, 0.98
MAX_OUTER_FILL = 0.3      # fraction of the ring just outside the base that may have the colour
COLOUR_PPI = 20.0
MIN_RING_SHARE = 0.55     # of a circle at 0.8 of the base's radius that must show the rim colour
MAX_MIDDLE_SHARE = 0.5    # of a circle at 0.25 of the radius that may (the figure stands there)


def chromaticity(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(H, W, 3) chromaticity (B, G, R over their sum) and (H, W) brightness B + G + R."""
    f = bgr.astype(np.float32)
    s = f.sum(axis=2)
    return f / np.maximum(s, 1.0)[..., None], s


def rgb_chroma(rgb: Sequence[int]) -> np.ndarray:
    bgr = np.array(rgb[::-1], np.float32)
    return bgr / max(float(bgr.sum()), 1.0)


def classify(chroma: np.ndarray, brightness: np.ndarray, targets: Sequence[np.ndarray], mat: np.ndarray,
             min_alpha: float = 0.4, min_brightness: float = MIN_BRIGHTNESS) -> np.ndarray:
    """(H, W) int: which target colour each pixel shows, else -1.

    A pixel that mixes a target colour with the mat (a blurred rim, a felt edge) lies on the segment
    from the mat's chromaticity to the target's, at `alpha` = the target's share. A pixel shows the
    target whose segment it lies nearest (within CHROMA_TOL), with a share of at least `min_alpha`.
    Choosing by distance to the segment, not by share, keeps a half-blue rim from being taken for
    a bluish felt whose segment points almost the same way."""
    shape = chroma.shape[:2]
    label = np.full(shape[0] * shape[1], -1, np.int32)
    mat = np.asarray(mat, np.float32)
    diff = (chroma - mat).reshape(-1, 3)
    d2 = np.einsum("ij,ij->i", diff, diff)
    axes = [np.asarray(t, np.float32) - mat for t in targets]
    shortest = min((float(a @ a) for a in axes if float(a @ a) >= 1e-6), default=None)
    if shortest is None:
        return label.reshape(shape)
    # Only pixels far enough from the mat to be any target need the per-target test.
    reach = max(0.0, min_alpha * np.sqrt(shortest) - CHROMA_TOL)
    idx = np.flatnonzero((d2 >= reach * reach) & (brightness.reshape(-1) >= min_brightness))
    sub, sub_d2 = diff[idx], d2[idx]
    best = np.full(idx.size, CHROMA_TOL ** 2, np.float32)
    sub_label = np.full(idx.size, -1, np.int32)
    for k, axis in enumerate(axes):
        norm2 = float(axis @ axis)
        if norm2 < 1e-6:
            continue              # a colour the same as the mat cannot be told apart
        alpha = (sub @ axis) / norm2
        off2 = sub_d2 - alpha * alpha * norm2      # squared distance from the line through the segment
        take = (alpha >= min_alpha) & (alpha <= 1.6) & (off2 < best)
        sub_label[take] = k
        best[take] = off2[take]
    label[idx] = sub_label
    label = label.reshape(shape)
    return label


def mat_chroma(chroma: np.ndarray) -> np.ndarray:
    """The mat's colour: the median chromaticity of the view (the mat covers most of a table)."""
    step = max(1, int(math.sqrt(chroma.shape[0] * chroma.shape[1] / 20000)))
    sample = chroma[::step, ::step].reshape(-1, 3)
    return np.median(sample, axis=0)


@dataclass(frozen=True)
class BaseHit:
    xy_view: np.ndarray      # (2,) sub-pixel centre in the view
    side_index: int
    fill: float              # fraction of the disc that is rim


def _fit_circle(points: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Algebraic (Kasa) circle fit: centre (2,), radius."""
    if len(points) < 8:
        return None
    x, y = points[:, 0], points[:, 1]
    a = np.column_stack([x, y, np.ones_like(x)])
    b = x * x + y * y
    sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    cx, cy = sol[0] / 2, sol[1] / 2
    r2 = sol[2] + cx * cx + cy * cy
    if r2 <= 0:
        return None
    return np.array([cx, cy]), math.sqrt(r2)


def find_bases(view_bgr: np.ndarray, ppi: float, side_rgbs: Sequence[Sequence[int]], base_in: float,
               other_rgbs: Sequence[Sequence[int]] = (), mat: np.ndarray | None = None,
               wall_shift_px: Callable[[np.ndarray], np.ndarray] | None = None) -> list[BaseHit]:
    """Colour bases in a top view of the bases' top plane. `other_rgbs`: terrain colours, so that a
    pixel nearer a terrain colour is not taken for a rim. `wall_shift_px(centre)`: where the bottom
    of a base centred there shows in the view, relative to its top (towards the camera)."""
    if not side_rgbs:
        return []
    chroma, brightness = chromaticity(view_bgr)
    if mat is None:
        mat = mat_chroma(chroma)
    targets = [rgb_chroma(c) for c in side_rgbs] + [rgb_chroma(c) for c in other_rgbs]
    label = classify(chroma, brightness, targets, mat)
    r_px = base_in / 2 * ppi
    # Box filters (constant time a pixel) stand in for the disc and the ring around it.
    inner = int(round(1.6 * r_px)) | 1          # a square of about the disc's area
    ring_in, ring_out = int(round(2.5 * r_px)) | 1, int(round(3.1 * r_px)) | 1
    size = int(2 * r_px) | 1
    hits: list[BaseHit] = []
    for k in range(len(side_rgbs)):
        colour = (label == k)
        if colour.sum() < r_px * r_px:
            continue
        top = colour.astype(np.float32)
        fill = cv2.boxFilter(top, -1, (inner, inner), borderType=cv2.BORDER_CONSTANT)
        a_in = cv2.boxFilter(top, -1, (ring_in, ring_in), normalize=False, borderType=cv2.BORDER_CONSTANT)
        a_out = cv2.boxFilter(top, -1, (ring_out, ring_out), normalize=False, borderType=cv2.BORDER_CONSTANT)
        outer = (a_out - a_in) / float(ring_out * ring_out - ring_in * ring_in)
        peak = (fill == cv2.dilate(fill, cv2.getStructuringElement(cv2.MORPH_RECT, (size, size))))
        good = peak & (fill >= MIN_DISC_FILL) & (fill <= MAX_DISC_FILL) & (outer <= MAX_OUTER_FILL)
        ys, xs = np.nonzero(good)
        order = np.argsort(-fill[ys, xs])
        taken: list[np.ndarray] = []
        edges = top.astype(np.uint8) - cv2.erode(top.astype(np.uint8), np.ones((3, 3), np.uint8))
        for idx in order:
            c0 = np.array([xs[idx], ys[idx]], np.float64)
            if any(np.hypot(*(c0 - t)) < 1.2 * r_px for t in taken):
                continue          # a plateau of equal maxima, or a second peak of the same base
            shift = np.zeros(2) if wall_shift_px is None else np.asarray(wall_shift_px(c0), np.float64)
            centre = _refine_centre(edges, c0, r_px, shift)
            if centre is None or not _ring_shaped(colour, centre, r_px):
                continue
            taken.append(c0)
            hits.append(BaseHit(centre, k, float(fill[ys[idx], xs[idx]])))
    return hits


def _ring_shaped(colour: np.ndarray, centre: np.ndarray, r_px: float) -> bool:
    """A base shows its colour as a ring: all round at 0.8 of its radius (less a strip the figure may
    hide), and hardly at its middle, where the figure stands. A red toy or a red patch is not."""
    h, w = colour.shape
    def share(radius: float) -> float:
        t = np.linspace(0, 2 * math.pi, 32, endpoint=False)
        x = np.clip(np.round(centre[0] + radius * np.cos(t)).astype(int), 0, w - 1)
        y = np.clip(np.round(centre[1] + radius * np.sin(t)).astype(int), 0, h - 1)
        return float(colour[y, x].mean())
    return share(0.8 * r_px) >= MIN_RING_SHARE and share(0.25 * r_px) <= MAX_MIDDLE_SHARE


def _refine_centre(edges: np.ndarray, c0: np.ndarray, r_px: float, wall_px: np.ndarray) -> np.ndarray | None:
    """Fit a circle to the rim's outer edge pixels around a first guess; None if they do not make one.

    On the camera's side the outline is the bottom edge of the side wall, `wall_px` away from the
    top's edge: those points are moved back by it before fitting."""
    reach = int(math.ceil(1.4 * r_px + np.hypot(*wall_px)))
    xa, ya = max(0, int(c0[0]) - reach), max(0, int(c0[1]) - reach)
    patch = edges[ya:int(c0[1]) + reach + 1, xa:int(c0[0]) + reach + 1]
    ys, xs = np.nonzero(patch)
    raw = np.column_stack([xs + xa, ys + ya]).astype(np.float64)
    wall_len = float(np.hypot(*wall_px))
    centre = c0
    for lo, hi in ((0.7, 1.35), (0.85, 1.2), (0.85, 1.2)):
        points = raw
        if wall_len > 0.2:
            near = (raw - centre) @ (wall_px / wall_len) > 0.2 * r_px
            points = raw - np.where(near[:, None], wall_px, 0.0)
        d = np.hypot(*(points - centre).T)
        fit = _fit_circle(points[(d >= lo * r_px) & (d <= hi * r_px)])
        if fit is None or not 0.75 * r_px <= fit[1] <= 1.25 * r_px:
            return None
        if np.hypot(*(fit[0] - c0)) > 0.5 * r_px:
            return None
        centre = fit[0]
    return centre


def wall_shift(pose, view, height_in: float) -> Callable[[np.ndarray], np.ndarray]:
    """For a view of the plane `height_in` up (a `TopView`): the offset, in view pixels, from a
    base's top centre to where its bottom centre shows (the ray to the table crosses that plane)."""
    def shift(c_view: np.ndarray) -> np.ndarray:
        xy = view.to_table(np.asarray(c_view, np.float64)[None])
        return view.to_view(pose.lift(xy, height_in))[0] - np.asarray(c_view, np.float64)
    return shift
