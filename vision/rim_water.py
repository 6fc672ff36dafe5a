"""Bases standing in felt of their own side's hue: a blue figure in blue water.

There the ring test of vision.rims cannot see the rim: the paint and the felt are nearly one
colour, so the "ring with little colour outside" is colour all round. What such a figure shows
instead is what the felt is not: its body and footing (skin, metal, brown, green) in the middle,
then a thin ring, at the base's radius, of pixels nearer the rim's colour than the felt's (the
strict labels judge them against the felt: vision.rims.label_view), then felt again all round.

So, only inside the pieces of felt of a hue near a side's (rim_vetting.similar_felts): base-sized
blobs that are not felt are candidates; the rim's outer edge along rays from each (moved back by
the base's side wall where it shows, as in vision.rims) is fitted by a circle of the base's
radius; a candidate is a base when enough of that circle shows the rim, in one arc, with felt just
beyond it, its middle neither felt nor the rim's colour throughout (a die of that colour is
filled), and no other side's colour on the ring (a red figure in water is found by its red rim).
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.rim_rays import (EDGE_TRIM, STEP_PX, best_per_cell, fit_trimmed, longest_arc, outer_edges, ray_units,
                             sample_rays)
from vision.rim_vetting import similar_felts

MIN_BODY = 0.45                # candidate: share of a square of 1.2 radii in the middle that is not felt
MIN_FELT_AROUND = 0.35         # and of the square of 3 radii round it, felt (it stands in the felt)
MIN_COVERAGE = 0.35            # share of the circle whose rays end the rim's colour on it, in felt
MIN_ARC = 0.2                  # the longest unbroken stretch of it, as a share of the circle
MAX_RESIDUAL = 0.12            # RMS distance of the kept edge points from the circle, in radii
MAX_MIDDLE_FELT = 0.35         # the middle (within 0.45 radii) is the body, not felt
MAX_MIDDLE_RIM = 0.6           # nor the rim's colour throughout (a die of it)
MAX_OUTSIDE_RIM = 0.2          # the band 1.35-1.8 radii out: the felt's mottling, not more rim colour
MIN_OUTSIDE_FELT = 0.75        # and mostly felt (a base in water stands in it)
MAX_OTHER = 0.35               # share of the rays meeting another side's colour on the ring
OVERLAP = 1.8                  # radii: no base where a ring is already found
SAME_FIGURE = 3.5              # radii: a ring found this near with no felt between is the same figure
MAX_FELT_BETWEEN = 0.1         # share of the line between them on felt, at most, for that
MAX_MIDDLE_OTHER = 0.25        # the middle is no other side's colour (a red die in the water)
SEED_OFFSET = 0.7              # radii: the fit also starts this far from a candidate, 8 ways


def water_rims(strict: np.ndarray, n_sides: int, side_rgbs, other_rgbs, r_px: float, found_xy: np.ndarray,
               *, wall_shift_px=None) -> list[tuple[np.ndarray, int, float, float, float]]:
    """Bases in felt of their side's hue that no ring already found stands on: [(centre of the base's
    top (2,) view pixels, side, confidence, coverage, residual_px)].

    `strict`: vision.rims' strict labels (side k, felt n_sides + t, -1 none; pixels excluded already
    -1). `found_xy` (M, 2): the rings already found (any side)."""
    return [c[:5] for c in water_candidates(strict, n_sides, side_rgbs, other_rgbs, r_px, found_xy,
                                            wall_shift_px=wall_shift_px) if c[5] == "ring"]


def water_candidates(strict: np.ndarray, n_sides: int, side_rgbs, other_rgbs, r_px: float, found_xy: np.ndarray,
                     *, wall_shift_px=None, with_rejected: bool = False) -> list[tuple]:
    """water_rims' candidates, [(centre (2,), side, confidence, coverage, residual_px, reason)]:
    "ring" for a base, else the first test it failed (with `with_rejected`; only the bases
    without)."""
    felts = similar_felts(side_rgbs, other_rgbs, n_sides)
    out = []
    if r_px < 3 or not any(felts):
        return out
    for k, labels in enumerate(felts):
        if not labels:
            continue
        felt = strict == labels[0]
        for t in labels[1:]:
            felt |= strict == t
        for x0, y0, x1, y1 in _pieces(felt, r_px):
            lab = strict[y0:y1, x0:x1]
            f = felt[y0:y1, x0:x1]
            origin = np.array([x0, y0], float)
            found = _in_window(lab, f, k, n_sides, r_px, wall_shift_px, origin, with_rejected)
            for xy, conf, cov, res, why in found:
                if why == "ring" and len(found_xy) and np.hypot(*(np.asarray(found_xy) - xy).T).min() < OVERLAP * r_px:
                    why = "a ring found there"
                elif why == "ring" and _same_figure(felt, xy, found_xy, r_px):
                    why = "same figure"
                if why == "ring" or with_rejected:
                    out.append((xy, k, conf, cov, res, why))
    return out


def _pieces(felt: np.ndarray, r_px: float) -> list[tuple[int, int, int, int]]:
    """Windows (x0, y0, x1, y1) round each piece of felt bigger than a base (stray pixels of the
    felt's label elsewhere are none), found at a quarter of the resolution, with a base's margin."""
    h, w = felt.shape
    q = 4
    if h < 2 * q or w < 2 * q:
        return []
    small = cv2.resize(felt.astype(np.float32), (w // q, h // q), interpolation=cv2.INTER_AREA) >= 0.5
    n, _, stats, _ = cv2.connectedComponentsWithStats(small.astype(np.uint8), connectivity=8)
    pad = int(2 * r_px) + q
    out = []
    for x, y, bw, bh, area in stats[1:]:
        if area * q * q < 4 * r_px * r_px:
            continue
        out.append((max(0, x * q - pad), max(0, y * q - pad), min(w, (x + bw) * q + pad), min(h, (y + bh) * q + pad)))
    return out


def _same_figure(felt: np.ndarray, xy: np.ndarray, found_xy: np.ndarray, r_px: float) -> bool:
    """Whether a ring found already stands near `xy` with no felt between them: the body (and a
    cloak of the side's colour hanging from it, leaning out) of that figure, not another base.
    Two bases standing apart have felt between them."""
    found_xy = np.asarray(found_xy, np.float64).reshape(-1, 2)
    near = found_xy[np.hypot(*(found_xy - xy).T) < SAME_FIGURE * r_px]
    if not len(near):
        return False
    t = np.linspace(0.0, 1.0, 24)
    h, w = felt.shape
    for q in near:
        pts = xy[None] + t[:, None] * (q - xy)[None]
        ix = np.clip(np.rint(pts[:, 0]).astype(int), 0, w - 1)
        iy = np.clip(np.rint(pts[:, 1]).astype(int), 0, h - 1)
        if felt[iy, ix].mean() <= MAX_FELT_BETWEEN:
            return True
    return False


def _in_window(lab, felt, k, n_sides, r_px, wall_shift_px, origin, with_rejected=False):
    felt_f = felt.astype(np.float32)
    rim_f = (lab == k).astype(np.float32)
    other_f = ((lab >= 0) & (lab < n_sides) & (lab != k)).astype(np.float32)
    body_f = 1.0 - np.maximum(np.maximum(felt_f, rim_f), other_f)
    c = _candidates(body_f, felt_f, r_px)
    if not len(c):
        return []
    units = ray_units()
    radii = np.arange(0.0, 2.0 * r_px + 4, STEP_PX)

    def wall_at(centres, units):
        if wall_shift_px is None:
            return np.zeros((len(centres), len(units)))
        shift = np.asarray(wall_shift_px(centres + origin), np.float64).reshape(-1, 2)
        return np.maximum(0.0, shift @ units.T)

    def edges_from(centres, units, radii):
        wall = wall_at(centres, units)
        rim = sample_rays(rim_f, centres, radii, units)
        fs = sample_rays(felt_f, centres, radii, units)
        edges = outer_edges(rim, radii, 0.5 * r_px, 1.3 * r_px + wall)
        # beyond a rim's edge, the felt (not the body, not more rim)
        rr = radii[None, None, :]
        e = np.nan_to_num(edges, nan=-1e9)[..., None]
        beyond = (rr >= e + 1.0) & (rr <= e + max(2.0, 0.3 * r_px))
        in_felt = (fs * beyond).sum(2) >= 0.6 * np.maximum(beyond.sum(2), 1)
        valid = np.isfinite(edges) & in_felt
        top = np.nan_to_num(edges - wall)
        points = centres[:, None, :] + top[..., None] * units[None]
        return points, valid, wall, rim, fs

    # The body leans and stands tall: its blob may sit most of a radius off the base's centre, so
    # the fit starts from the blob and from points round it.
    seeds = np.vstack([np.zeros((1, 2)), SEED_OFFSET * r_px * units[::6]])
    c = (c[:, None, :] + seeds[None]).reshape(-1, 2)
    # a first look on half the rays, only as far out as an edge and the felt beyond it
    reach = 1.65 * r_px + float(wall_at(c, units).max(initial=0.0)) + 3.0
    _, valid, *_ = edges_from(c, units[::2], radii[:int(np.searchsorted(radii, reach)) + 1])
    first_look = valid.mean(1) >= 0.5 * MIN_COVERAGE
    dropped = [(p + origin, 0.0, 0.0, 0.0, "first look") for p in c[~first_look]] if with_rejected else []
    c = c[first_look]
    if not len(c):
        return dropped
    points, valid, *_ = edges_from(c, units, radii)
    centre, radius, _ = fit_trimmed(points, valid, c.copy(), r_px)
    # measured again from the fitted centre
    points, valid, wall, rim, fs = edges_from(centre, units, radii)
    off = np.hypot(points[..., 0] - centre[:, None, 0], points[..., 1] - centre[:, None, 1]) - radius[:, None]
    kept = valid & (np.abs(off) <= EDGE_TRIM * r_px)
    coverage = kept.mean(1)
    arc = longest_arc(kept)
    residual = np.sqrt((np.where(kept, off, 0.0) ** 2).sum(1) / np.maximum(kept.sum(1), 1))
    rr = radii[None, None, :]
    middle = np.broadcast_to(rr <= 0.45 * r_px, rim.shape)
    n_mid = np.maximum(middle.sum((1, 2)), 1)
    mid_felt = (fs * middle).sum((1, 2)) / n_mid
    mid_rim = (rim * middle).sum((1, 2)) / n_mid
    other_s = sample_rays(other_f, centre, radii, units)
    mid_other = (other_s * middle).sum((1, 2)) / n_mid
    outside = (rr >= 1.35 * r_px + wall[..., None]) & (rr <= 1.8 * r_px + wall[..., None])
    n_out = np.maximum(outside.sum((1, 2)), 1)
    out_rim = (rim * outside).sum((1, 2)) / n_out
    out_felt = (fs * outside).sum((1, 2)) / n_out
    ring = (rr >= 0.6 * r_px) & (rr <= 1.3 * r_px + wall[..., None])
    other = ((other_s >= 0.5) & ring).any(2).mean(1)
    max_res = max(1.2, MAX_RESIDUAL * r_px)
    moved = np.hypot(*(centre - c).T)
    tests = [("fit", ~np.isfinite(centre).all(1) | (moved > 1.1 * r_px)), ("coverage", coverage < MIN_COVERAGE),
             ("arc", arc < MIN_ARC), ("residual", residual > max_res), ("middle felt", mid_felt > MAX_MIDDLE_FELT),
             ("middle rim", mid_rim > MAX_MIDDLE_RIM), ("middle other", mid_other > MAX_MIDDLE_OTHER),
             ("outside rim", out_rim > MAX_OUTSIDE_RIM), ("outside felt", out_felt < MIN_OUTSIDE_FELT),
             ("other side", other > MAX_OTHER)]
    reason = np.full(len(centre), "ring", object)
    for name, failed in reversed(tests):           # the first test failed names the candidate
        reason[failed] = name
    conf = (np.minimum(1.0, coverage / 0.6) * np.maximum(0.0, 1 - residual / (2 * max_res))
            * np.maximum(0.0, 1 - out_rim / (2 * MAX_OUTSIDE_RIM)))
    res = []
    order = np.argsort(-conf)
    taken: list[np.ndarray] = []
    for i in order:
        why = reason[i]
        if why == "ring" and any(np.hypot(*(centre[i] - t)) < OVERLAP * r_px for t in taken):
            why = "overlap"
        if why == "ring":
            taken.append(centre[i])
        if why == "ring" or with_rejected:
            res.append((centre[i] + origin, float(conf[i]), float(coverage[i]), float(residual[i]), why))
    return dropped + res


def _candidates(body_f: np.ndarray, felt_f: np.ndarray, r_px: float) -> np.ndarray:
    """(N, 2) peaks of a base-sized square of not-felt with felt round it (window pixels)."""
    s_in = int(round(1.2 * r_px)) | 1
    s_out = int(round(3.0 * r_px)) | 1
    a_body = cv2.boxFilter(body_f, -1, (s_in, s_in), borderType=cv2.BORDER_CONSTANT)
    a_felt = cv2.boxFilter(felt_f, -1, (s_out, s_out), borderType=cv2.BORDER_CONSTANT)
    score = np.where(a_felt >= MIN_FELT_AROUND, a_body, 0.0).astype(np.float32)
    size = int(round(r_px)) | 1
    peak = (score >= cv2.dilate(score, cv2.getStructuringElement(cv2.MORPH_RECT, (size, size)))) & (score >= MIN_BODY)
    ys, xs = np.nonzero(peak)
    if not len(xs):
        return np.empty((0, 2))
    return best_per_cell(np.column_stack([xs, ys]).astype(np.float64), score[ys, xs], r_px)[:200]
