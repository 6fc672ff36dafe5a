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
from typing import TYPE_CHECKING, Sequence

import cv2
import numpy as np

if TYPE_CHECKING:
    from vision.rims import RimHit

MIN_FREE_R, MAX_FREE_R = 0.55, 1.6  # the visible arc's own radius, in the base's radii
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
             max_residual_px: float) -> list[RimHit]:
    """Each candidate ring judged against the look-alikes, in order: those that passed vision.rims's
    shape tests (reason "ring") keep it only if no test here finds a look-alike; the others come
    back as they are.

    `strict`, `loose`: the (H, W) int side labels the candidates were found on (a hit with `by_hue`
    on the loose ones), -1 for none, the same view pixels as the hits' `xy_view`. `r_px`: a base's
    radius in view pixels; `max_residual_px`: the largest RMS residual a ring may have."""
    out = []
    for hit in hits:
        if hit.reason == "ring":
            reason = _look_alike(hit, strict, loose, r_px, max_residual_px)
            if reason:
                hit = dataclasses.replace(hit, reason=reason)
        out.append(hit)
    return out


def _look_alike(hit: RimHit, strict: np.ndarray, loose: np.ndarray, r_px: float, max_residual_px: float) -> str:
    """Why the ring is not a base, or "" when it is."""
    if not MIN_FREE_R <= hit.free_radius <= MAX_FREE_R:
        return f"a curve of another size (radius {hit.free_radius:.2f} of the base's)"
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
