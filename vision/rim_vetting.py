"""Is this ring a base? The tests that tell a base's rim from a look-alike of its colour.

vision.rims finds candidate rings and measures them (how much of a ring of the base's size shows,
how round and clean it is); the candidates that pass are judged here against what else shows a
side's colour on a table:

- a mug's rim or a felt's curve: a circle of another size (`free_radius`);
- a die, or cloth on a body: colour filling the middle, not a ring round a body (`middle`, `hollow`);
- felt or a book cover of a similar hue: the colour goes on outside the ring (`outer`);
- cloth of one side's colour on a figure of the other: a ring inside a rim of another colour (`other`);
- a phone's case: a hollow frame of the colour, wider than bases side by side.

One entry, `vet_hits`: each candidate comes back with reason "ring" when it is a base, else with
why it is not.
"""
from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Callable, Sequence

import cv2
import numpy as np

if TYPE_CHECKING:
    from vision.rims import RimHit

MIN_FREE_R, MAX_FREE_R = 0.55, 1.6  # the visible arc's own radius, in the base's radii
MIN_RADIUS = 0.93             # the fitted circle's radius, in the base's: a rim's edge shows at the
                               # base's radius or a little out (blur); a die's corners at 0.89 of it
MAX_INNER = 0.45               # share of the middle (within 0.45 radii) that may show the colour
MIN_HOLLOW = 0.6               # along the rays showing the rim, the share of 0.1-0.4 radii without it
MAX_OUTER = 0.22               # share of the band 1.35-1.8 radii out that may show it
STRONG_COVERAGE = 0.45         # a rim this complete, clean and round may have colour in its middle
STRONG_CLEAN = 0.85
STRONG_RESIDUAL = 0.6          # of the largest residual a ring may have
MAX_OTHER = 0.28               # share of the rays meeting another side's colour just outside the ring,
CLOTH_SURE = 0.6               # above which a ring less confident than this is cloth on a body
MAX_FRAME_SPAN = 2.6 * 2       # in radii: a hollow piece of the colour wider and deeper than this is
                               # a frame (a phone's case), not bases side by side
FRAME_FILL = 0.25              # "hollow": colour on at most this share of its bounding box


def is_strong(coverage, clean, residual_px, max_residual_px: float):
    """A clean, round rim round most of the ring (scalars or arrays alike): it may have cloth of the
    side's colour on its body."""
    return ((np.asarray(coverage) >= STRONG_COVERAGE) & (np.asarray(clean) >= STRONG_CLEAN)
            & (np.asarray(residual_px) <= STRONG_RESIDUAL * max_residual_px))


def vet_hits(hits: Sequence[RimHit], *, strict: np.ndarray, loose: np.ndarray, r_px: float,
             max_residual_px: float, n_sides: int | None = None,
             wall_shift_px: Callable[[np.ndarray], np.ndarray] | None = None,
             view_bgr: np.ndarray | None = None) -> list[RimHit]:
    """Each candidate ring judged against the look-alikes, in order: those that passed vision.rims's
    shape tests (reason "ring") keep it only if no test here finds a look-alike; the others come
    back as they are.

    `strict`, `loose`: the (H, W) int side labels the candidates were found on (a hit with `by_hue`
    on the loose ones), -1 for none (strict labels from `n_sides` up are terrain), the same view
    pixels as the hits' `xy_view`. `r_px`: a base's radius in view pixels; `max_residual_px`: the
    largest RMS residual a ring may have. `wall_shift_px(centres (N, 2))`: where a base's bottom
    shows relative to its top, towards the camera (None: looking straight down). `view_bgr`: the
    view itself (uint8), for what lies in a ring's middle."""
    out = []
    for hit in hits:
        if hit.reason == "ring":
            reason = _look_alike(hit, strict, loose, r_px, max_residual_px)
            if not reason and view_bgr is not None:
                area, dark = flat_middle(view_bgr, hit.xy_view, r_px)
                if area > MAX_FLAT_MIDDLE and dark < MAX_DARK:
                    reason = (f"the edge of something large and dark ({area:.1f} bases of one flat colour in its middle): "
                              f"a phone's screen, a mug's inside")
            if not reason:
                reason = _up_on_a_body(hit, strict, loose, r_px, n_sides, wall_shift_px)
            if reason:
                hit = dataclasses.replace(hit, reason=reason)
        out.append(hit)
    return out


def _up_on_a_body(hit: RimHit, strict: np.ndarray, loose: np.ndarray, r_px: float, n_sides: int | None,
                  wall_shift_px: Callable[[np.ndarray], np.ndarray] | None) -> str:
    """Why the ring is cloth up on a figure's body rather than a base, or "" (see rim_beneath)."""
    if n_sides is None or wall_shift_px is None:
        return ""
    shift = np.asarray(wall_shift_px(hit.xy_view[None]), np.float64).reshape(2)
    per_in = np.hypot(*shift) / BASE_TOP_IN / r_px         # radii a thing shows farther out per inch up
    h, w = strict.shape
    cx, cy = hit.xy_view
    half = 3.4 * r_px
    x0, x1 = max(0, int(cx - half)), min(w, int(cx + half) + 1)
    y0, y1 = max(0, int(cy - half)), min(h, int(cy + half) + 1)
    if x1 <= x0 or y1 <= y0:
        return ""
    k = hit.side_index
    st, lo = strict[y0:y1, x0:x1], loose[y0:y1, x0:x1]
    other = ((st >= 0) & (st < n_sides) & (st != k)) | ((lo >= 0) & (lo < n_sides) & (lo != k))
    if not other.any():
        return ""
    share, offset = rim_beneath(other, hit.xy_view - (x0, y0), r_px, shift)
    # Cloth hangs from about a third to two thirds of a body's height: the ring it makes shows
    # that much farther from the camera than the rim of the figure's own base.
    if share >= MIN_RIM_BENEATH and max(MIN_CLOTH_OFFSET, CLOTH_LOW_IN * per_in) <= offset <= CLOTH_HIGH_IN * per_in + MIN_CLOTH_OFFSET:
        return (f"cloth up on a body: a rim of another colour ({share:.2f} of a ring) shows {offset:.2f} radii "
                f"nearer the camera")
    return ""


def _look_alike(hit: RimHit, strict: np.ndarray, loose: np.ndarray, r_px: float, max_residual_px: float) -> str:
    """Why the ring is not a base, or "" when it is."""
    if not MIN_FREE_R <= hit.free_radius <= MAX_FREE_R:
        return f"a curve of another size (radius {hit.free_radius:.2f} of the base's)"
    if hit.radius < MIN_RADIUS:
        return f"smaller than a base (a circle of {hit.radius:.2f} of its radius): a die or a blob"
    if (hit.middle > MAX_INNER or hit.hollow < MIN_HOLLOW) and not is_strong(hit.coverage, hit.clean, hit.residual_px,
                                                                            max_residual_px):
        return f"filled, not a ring ({hit.inner:.2f} of the middle)"
    if hit.outer > MAX_OUTER:
        return f"the colour goes on outside ({hit.outer:.2f} of the band around)"
    if hit.other >= MAX_OTHER and hit.confidence < CLOTH_SURE:
        return f"cloth inside a rim of another colour ({hit.other:.2f} of the rays meet it)"
    label = loose if hit.by_hue else strict
    span = frame_span(label, hit.side_index, hit.xy_view, r_px)
    if span > MAX_FRAME_SPAN * r_px:
        return f"a corner of a frame of the colour {span / (2 * r_px):.1f} bases across (a phone's case)"
    return ""


def frame_span(label: np.ndarray, side: int, centre: np.ndarray, r_px: float) -> float:
    """The smaller side, in pixels, of the bounding box of the hollow piece of colour `side` the ring
    at `centre` is part of (0 when that piece is solid or none): a phone's case is a thin frame some
    three by six inches round; bases, even side by side, are not. Looked at in a window a little
    wider than such a frame's short side."""
    h, w = label.shape
    cx, cy = centre
    half = (MAX_FRAME_SPAN + 1.0) * r_px
    wx0, wx1 = max(0, int(cx - half)), min(w, int(cx + half) + 1)
    wy0, wy1 = max(0, int(cy - half)), min(h, int(cy + half) + 1)
    if wx1 <= wx0 or wy1 <= wy0:
        return 0.0
    mask = (label[wy0:wy1, wx0:wx1] == side).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    lx, ly = cx - wx0, cy - wy0
    x0, x1 = max(0, int(lx - 1.2 * r_px)), min(wx1 - wx0, int(lx + 1.2 * r_px) + 1)
    y0, y1 = max(0, int(ly - 1.2 * r_px)), min(wy1 - wy0, int(ly + 1.2 * r_px) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    ids = lab[y0:y1, x0:x1].ravel()
    ids = ids[ids > 0]
    best = 0.0
    for c in np.unique(ids):
        bw, bh, area = stats[c, cv2.CC_STAT_WIDTH], stats[c, cv2.CC_STAT_HEIGHT], stats[c, cv2.CC_STAT_AREA]
        if area <= FRAME_FILL * bw * bh:
            best = max(best, float(min(bw, bh)))
    return best


N_LOOK = 32                    # rays round a ring for the look-alike measures
_ANGLES = np.linspace(0, 2 * np.pi, N_LOOK, endpoint=False)
_UNITS = np.column_stack([np.cos(_ANGLES), np.sin(_ANGLES)])
BASE_TOP_IN = 0.125            # the height the wall shift is given for (vision_defaults: a 1/8" base)
MIN_RIM_BENEATH = 0.3          # share of a ring of another colour under a ring that makes it cloth
CLOTH_LOW_IN, CLOTH_HIGH_IN = 0.3, 1.5   # cloth hangs on a body between these heights above the base
MIN_CLOTH_OFFSET = 0.3         # in radii: a ring of another colour nearer than this is no help telling


def rim_beneath(other: np.ndarray, centre: np.ndarray, r_px: float, shift_px: np.ndarray | None) -> tuple[float, float]:
    """(share of a ring, offset in radii) of the ring of another side's colour, of the base's size,
    that shows best round a centre from `centre` towards the camera (within two radii, a little to
    either side): the rim of the figure whose body this ring may be up on (cloth).

    `other`: (H, W) bool, another side's colour; `shift_px`: a base top's wall shift at `centre`
    (towards the camera), None looking straight down (then only rings round `centre` itself)."""
    h, w = other.shape
    if shift_px is None or np.hypot(*shift_px) <= 1e-6:
        return 0.0, 0.0
    towards = shift_px / np.hypot(*shift_px)
    steps = np.arange(0.0, 2.2 * r_px + 1e-9, max(1.0, 0.2 * r_px))
    side = np.array([-towards[1], towards[0]])
    lateral = np.array([-0.4, -0.2, 0.0, 0.2, 0.4]) * r_px
    qs = (centre[None, None, :] + steps[:, None, None] * towards + lateral[None, :, None] * side).reshape(-1, 2)
    # A ring round Q: the colour on its rays at the base's radius, and not well inside it (a ring
    # seen from a centre moved towards it shows on as many rays, but inside too).
    radii = np.array([0.45, 0.6, 0.8, 0.95, 1.1]) * r_px
    pts = qs[:, None, None, :] + radii[None, None, :, None] * _UNITS[None, :, None, :]     # (Q, K, J, 2)
    xi, yi = np.round(pts[..., 0]).astype(int), np.round(pts[..., 1]).astype(int)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    hit = other[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)] & inside
    share = hit[..., 2:].any(2).mean(1) - hit[..., :2].any(2).mean(1)                     # (Q,)
    best = int(np.argmax(share))
    return float(share[best]), float(np.hypot(*(qs[best] - centre)) / r_px)


FLAT_TOL = 18.0                # colours this near (BGR, each channel) are one flat surface
MAX_FLAT_MIDDLE = 2.0          # in bases: a base's middle (its top, the body's foot) is at most one
MAX_DARK = 0.5                 # a middle darker than this share of the brightest tenth round it is dark


def flat_middle(view_bgr: np.ndarray, centre: np.ndarray, r_px: float) -> tuple[float, float]:
    """(area in bases, brightness against the brightest tenth round it) of the flat patch of colour the middle of the ring at `centre`
    is part of, looked at within three radii: a base's middle holds its top and a body, a base
    across at most; the middle of a ring drawn on a phone's case or a mug's rim is the screen or
    the coffee, a flat dark patch running far past the ring."""
    h, w = view_bgr.shape[:2]
    cx, cy = centre
    half = 3.0 * r_px
    x0, x1 = max(0, int(cx - half)), min(w, int(cx + half) + 1)
    y0, y1 = max(0, int(cy - half)), min(h, int(cy + half) + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0, 255.0
    win = view_bgr[y0:y1, x0:x1].astype(np.int16)
    yy, xx = np.ogrid[y0:y1, x0:x1]
    middle = np.hypot(xx - cx, yy - cy) <= 0.4 * r_px
    if not middle.any():
        return 0.0, 255.0
    ref = np.median(win[middle], axis=0)
    flat = (np.abs(win - ref) <= FLAT_TOL).all(axis=2).astype(np.uint8)
    n, lab = cv2.connectedComponents(flat, connectivity=4)
    ids, counts = np.unique(lab[middle & (flat > 0)], return_counts=True)
    if not len(ids):
        return 0.0, 255.0
    c = ids[np.argmax(counts)]
    region = lab == c
    gray = win.mean(axis=2)
    return float(region.sum() / (math.pi * r_px * r_px)), float(gray[region].mean() / max(np.percentile(gray, 90), 1.0))
