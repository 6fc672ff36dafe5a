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
filled), no other side's colour on the ring (a red figure in water is found by its red rim), and
most of the ground round it within the felt's outline (the mat past the felt's edge, rounded off by
it, is no body standing in the felt).

The labels judge a pixel by the profile's colours; a rim painted nearer the felt's colour than
the profile's is water to them. So the search is made again with the rim's pixels told by the
paint as this photo shows it (the side's rims found outside the felt) against the felt's colours
round them (a Gaussian each: paint_model, paint_map).

Neither look sees a rim whose paint the labels call water all round: but the paint is darker (or
lighter) than the felt, and the brightness keeps that step at full resolution where JPEG smears the
colour. With the view, each candidate the colour found, or found short of a ring, is looked at
again by the circle of the base's radius that the brightness steps along (step_circles): where
that step runs along enough of the circle, with the side's paint or the felt's colour inside it, the
circle places the base, and a candidate that only fell short of the colour's ring is one.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import cv2
import numpy as np

from vision.colour import MIN_BRIGHTNESS, median_rows, rgb_chroma
from vision.rim_rays import (EDGE_TRIM, STEP_PX, Slots, adjugate_sym3, best_per_cell, fit_trimmed, grid_offsets,
                             longest_arc, max_wall, outer_edges, ray_pixels, ray_units, sample_rays)
from vision.rim_rays import reach as radii_out_to
from vision.rim_refine import BRIGHT_BIAS_PX, LUMA_BGR, circle_centres, luma_rays, steepest_points
from vision.rim_vetting import label_in, similar_felts

MIN_BODY = 0.45                # candidate: share of a square of 1.2 radii in the middle that is not felt
MIN_FELT_AROUND = 0.35         # and of the square of 3 radii round it, felt (it stands in the felt)
MIN_COVERAGE = 0.35            # share of the circle whose rays end the rim's colour on it, in felt
MIN_ARC = 0.2                  # the longest unbroken stretch of it, as a share of the circle
MAX_RESIDUAL = 0.12            # RMS distance of the kept edge points from the circle, in radii
MAX_MIDDLE_FELT = 0.35         # the middle (within 0.45 radii) is the body, not felt
MAX_MIDDLE_RIM = 0.6           # nor the rim's colour throughout (a die of it)
MAX_OUTSIDE_RIM = 0.2          # the band 1.35-1.8 radii out: the felt's mottling, not more rim colour
MIN_OUTSIDE_FELT = 0.75        # and mostly felt (a base in water stands in it)
MIN_GROUND_IN_FELT = 0.45      # of the ground round it (1-1.6 radii), the share within the felt's outline: a
                               # base in the felt stands in it; at the felt's edge the mat past it, rounded off
                               # by the edge, is no body. Beside "outside felt", which the brightness's step may
                               # overrule (the felt's labels miss some of it round a rim), this one it may not:
                               # the outline takes in what the labels miss. (On 60 hard photos each of 8 seeds
                               # and of 2 kitchen seeds, the water bases found had 0.58 or more of their
                               # annulus's pixels there; four finds at a felt's edge on kitchen tables, each
                               # short of "outside felt" and kept by a step, 0.31-0.37; only those four go)
MAX_OTHER = 0.35               # share of the rays meeting another side's colour on the ring
OVERLAP = 1.8                  # radii: no base where a ring is already found
SAME_FIGURE = 3.5              # radii: a ring found this near with no felt between is the same figure
MAX_FELT_BETWEEN = 0.1         # share of the line between them on felt, at most, for that
MAX_MIDDLE_OTHER = 0.25        # the middle is no other side's colour (a red die in the water)
FRONT_DEG = 45.0               # rays this near the camera's direction look in front of a base
FRONT_BAND = (0.2, 0.6)        # radii past the rim and its side wall: the felt a base stands in, in front of it
MAX_BODY_IN_FRONT = 0.5        # of those rays, the share meeting more body than felt there, at most
CONTESTED = "a ring found there"   # a base but for a ring found already this near it
SEED_OFFSET = 0.7              # radii: the fit also starts this far from a candidate, 8 ways
MIN_PAINT_SAMPLES = 40         # pixels of a side's rims found outside the felt, to learn its paint from
FELT_BOX = 6.0                 # radii: the side of the box the local felt's colours are learnt in
COLOUR_NOISE = 3.0             # added to each channel's spread (of 255): JPEG's noise on a flat colour


def water_rims(strict: np.ndarray, n_sides: int, side_rgbs, other_rgbs, r_px: float, found_xy: np.ndarray,
               *, wall_shift_px=None, view_bgr: np.ndarray | None = None,
               found_sides: np.ndarray | None = None) -> list[tuple[np.ndarray, int, float, float, float]]:
    """Bases in felt of their side's hue that no ring already found stands on: [(centre of the base's
    top (2,) view pixels, side, confidence, coverage, residual_px)].

    `strict`: vision.rims' strict labels (side k, felt n_sides + t, -1 none; pixels excluded already
    -1). `found_xy` (M, 2): the rings already found (`found_sides` (M,): whose). With the view
    (`view_bgr`, uint8 BGR), the paint of a side's rims found outside the felt is learnt and the
    rims in the felt looked for by it too (paint_map)."""
    return [c[:5] for c in water_candidates(strict, n_sides, side_rgbs, other_rgbs, r_px, found_xy,
                                            wall_shift_px=wall_shift_px, view_bgr=view_bgr,
                                            found_sides=found_sides) if c[5] == "ring"]


def water_candidates(strict: np.ndarray, n_sides: int, side_rgbs, other_rgbs, r_px: float, found_xy: np.ndarray,
                     *, wall_shift_px=None, view_bgr: np.ndarray | None = None,
                     found_sides: np.ndarray | None = None, with_rejected: bool = False,
                     felts: list[list[int]] | None = None) -> list[tuple]:
    """water_rims' candidates, [(centre (2,), side, confidence, coverage, residual_px, reason)]:
    "ring" for a base, CONTESTED for a base but for a ring found already near it (which of the two
    is the base and which stands on the other's body is for the caller), else the first test it
    failed (with `with_rejected`; without, only the first two). `felts`: per side, the labels of the
    felts it looks in (default: similar_felts of `other_rgbs`; the caller gives the profile's where
    `other_rgbs` are the felts as seen, whose hue may lie further from the side's)."""
    if felts is None:
        felts = similar_felts(side_rgbs, other_rgbs, n_sides)
    out = []
    if r_px < 3 or not any(felts):
        return out
    for k, labels in enumerate(felts):
        if not labels:
            continue
        felt = label_in(strict, labels)
        step_sign = _step_sign(side_rgbs[k], [other_rgbs[t - n_sides] for t in labels])
        paint = None
        if view_bgr is not None and found_sides is not None and len(found_xy):
            paint = paint_model(view_bgr, strict, np.asarray(found_xy)[np.asarray(found_sides) == k], k, felt, r_px)
        for x0, y0, x1, y1 in _pieces(felt, r_px):
            lab = strict[y0:y1, x0:x1]
            f = felt[y0:y1, x0:x1]
            origin = np.array([x0, y0], float)
            bgr = view_bgr[y0:y1, x0:x1] if view_bgr is not None else None
            maps = _WindowMaps.of(lab, f, k, n_sides)
            looks = [_Look.of(maps)]
            if paint is not None:
                # the rim by its paint as this photo shows it, against the felt round it (under tungsten
                # it can take a body's brown shade for the paint and fit the body; without this look, on
                # 60 hard photos of seeds 0/7/3/11: 13 rims fewer, p95 0.093 -> 0.084 in on seed 7)
                looks.append(_Look.of(maps, paint_map(bgr, maps.painted, paint, r_px)))
            found, *by_paint = _in_windows(maps, looks, r_px, wall_shift_px, origin, with_rejected, bgr=bgr,
                                           step_sign=step_sign, found_xy=found_xy)
            if by_paint:
                rings = [c[0] for c in found if c[4] == "ring"]
                for c in by_paint[0]:
                    if c[4] == "ring" and any(np.hypot(*(c[0] - q)) < OVERLAP * r_px for q in rings):
                        c = c[:4] + ("found by the labels too",)
                    found.append(c)
            for xy, conf, cov, res, why in found:
                if why == "ring" and len(found_xy) and np.hypot(*(np.asarray(found_xy) - xy).T).min() < OVERLAP * r_px:
                    why = CONTESTED
                elif why == "ring" and _same_figure(felt, xy, found_xy, r_px):
                    why = "same figure"
                if why in ("ring", CONTESTED) or with_rejected:
                    out.append((xy, k, conf, cov, res, why))
    return _one_per_base(out, r_px, with_rejected)


def _one_per_base(found: list[tuple], r_px: float, with_rejected: bool) -> list[tuple]:
    """The windows of nearby pieces of felt overlap (each has a base's margin, and one piece's box
    may hold another: a river round a pond): a base seen in two of them, or by both looks, is one
    base, its most confident reading; the others are "overlap"."""
    taken: list[np.ndarray] = []
    out = list(found)
    for i in sorted((i for i, c in enumerate(out) if c[5] == "ring"), key=lambda i: -out[i][2]):
        if any(np.hypot(*(out[i][0] - q)) < OVERLAP * r_px for q in taken):
            out[i] = out[i][:5] + ("overlap",)
        else:
            taken.append(out[i][0])
    return out if with_rejected else [c for c in out if c[5] in ("ring", CONTESTED)]


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


class _WindowMaps(NamedTuple):
    """The maps of one piece's window that both of its looks (by the labels, by the paint) read."""
    rim_lab: np.ndarray          # bool: labelled the side's colour
    felt_f: np.ndarray           # float32 0/1: the felt
    painted: np.ndarray          # bool: the felt or the side's colour
    painted_f: np.ndarray        # float32 0/1: the same
    other_px: np.ndarray         # bool: another side's colour
    other_f: np.ndarray          # float32 0/1: the same
    other_any: bool
    enclosed_f: np.ndarray       # float32 0/1: within the felt's outer outline (the felt and what stands in it)

    @staticmethod
    def of(lab, felt, k, n_sides) -> "_WindowMaps":
        rim_lab = lab == k
        painted = felt | rim_lab
        other_px = (lab >= 0) & (lab < n_sides) & ~rim_lab
        return _WindowMaps(rim_lab, felt.astype(np.float32), painted, painted.astype(np.float32), other_px,
                           other_px.astype(np.float32), bool(other_px.any()), _enclosed(painted))


class _Look(NamedTuple):
    """One look at a piece's window: the rim's colour by the labels or by the paint (rim_f, float32
    0/1, and rim_px, bool), the felt (felt_f) and the body (body_f), float32 0/1."""
    rim_f: np.ndarray
    rim_px: np.ndarray
    felt_f: np.ndarray
    body_f: np.ndarray

    @staticmethod
    def of(maps: _WindowMaps, rim: np.ndarray | None = None) -> "_Look":
        """The look by the labels (`rim` None) or by `rim` (a 0/1 map)."""
        # (the body is where none of the felt, the rim's colour and the other sides' is)
        if rim is None:
            return _Look(maps.rim_lab.astype(np.float32), maps.rim_lab, maps.felt_f,
                         (~(maps.painted | maps.other_px)).astype(np.float32))
        # the felt's mottling the labels call the rim's colour is felt, unless it is the paint
        rim_px = rim >= 0.5
        return _Look(rim, rim_px, (maps.painted & ~rim_px).astype(np.float32),
                     (~(maps.painted | rim_px | maps.other_px)).astype(np.float32))


def _in_windows(maps: _WindowMaps, looks: list[_Look], r_px, wall_shift_px, origin, with_rejected=False, bgr=None,
                step_sign=0.0, found_xy=None) -> list[list[tuple]]:
    """Bases in one piece's window, for each of `looks` (_Look: the rim's colour by its labels or by
    the paint) its own list; with the window's view `bgr` (uint8 BGR), looked at again by the
    brightness's step (step_circles, its way `step_sign`), not where a ring is found already
    (`found_xy`, view pixels). `maps`: the window's _WindowMaps, made once for every look. Each
    candidate is measured by itself alone, on its own look's maps: the looks' candidates are measured
    together, in one set of calls (most of their cost is the calls', a few dozen candidates each)."""
    other_f, other_any = maps.other_f, maps.other_any
    units = _UNITS
    radii = np.arange(0.0, 2.0 * r_px + 4, STEP_PX)
    out: list[list[tuple]] = [[] for _ in looks]

    def shift_at(centres):
        if wall_shift_px is None:
            return np.zeros((len(centres), 2))
        return np.asarray(wall_shift_px(centres + origin), np.float64).reshape(-1, 2)

    # The body leans and stands tall: its blob may sit most of a radius off the base's centre, so
    # the fit starts from the blob and from points round it.
    seeds = np.vstack([np.zeros((1, 2)), SEED_OFFSET * r_px * units[::6]])
    mid_radii = radii[radii <= 0.45 * r_px]
    cs, shifts, firsts, blob_others = [], [], [], []
    for m, lk in enumerate(looks):
        c = _candidates(lk.body_f, lk.felt_f, r_px)
        # a blob whose own middle is another side's colour is that side's (a red die in the water),
        # whichever of its seeds a fit drifts off it from (a blue base under a red-clad body leaning
        # a little off it is lost with it: on 60 hard photos of 14 seeds, 5 red dice for 1 such base)
        blob_other = (sample_rays(other_f, c, mid_radii, units).mean((1, 2)) > MAX_MIDDLE_OTHER
                      if other_any and len(c) else np.zeros(len(c), bool))
        blob_others.append(np.repeat(blob_other, len(seeds)))
        c = (c[:, None, :] + seeds[None]).reshape(-1, 2)
        shift = shift_at(c) if len(c) else np.zeros((0, 2))
        # a seed with no pixel of the rim's colour within an edge's reach of it has no edge to look for
        first_look = _rim_within(lk.rim_px, c, 1.3 * r_px + max_wall(shift, units) + 2.0) if len(c) else np.zeros(0, bool)
        cs.append(c)
        shifts.append(shift)
        firsts.append(first_look)
    slot = np.concatenate([np.full(len(c), m) for m, c in enumerate(cs)]).astype(int)
    c, shift, first_look = np.concatenate(cs).reshape(-1, 2), np.concatenate(shifts).reshape(-1, 2), np.concatenate(firsts)
    blob_other = np.concatenate(blob_others)
    if not len(c):
        return out
    rim_f = Slots([lk.rim_f for lk in looks], slot)
    felt_f = Slots([lk.felt_f for lk in looks], slot)

    def felt_beyond(edges, fs, radii):
        # beyond a rim's edge, the felt (not the body, not more rim); read only on the rays with
        # an edge (a ray without one has none beyond it)
        out = np.isfinite(edges)
        if out.any():
            rr = radii[None, :]
            e = edges[out][:, None]
            beyond = (rr >= e + 1.0) & (rr <= e + max(2.0, 0.3 * r_px))
            out[out] = (fs[out] * beyond).sum(1) >= 0.6 * np.maximum(beyond.sum(1), 1)
        return out

    def first_valid(rim_f, felt_f, centres, shift, units, radii, need):
        # the first look's (edges, wall, valid rays): the rim's map sampled no farther than an
        # edge's samples; a centre with fewer edges than `need` fails whatever lies beyond them, so
        # its felt is read only where enough edges are
        wall = np.maximum(0.0, shift @ units.T)
        hi = 1.3 * r_px + wall
        near = radii_out_to(radii, float(hi.max(initial=0.0)))      # an edge's samples: the rim's map no farther
        edges = outer_edges(sample_rays(rim_f, centres, near, units), near, 0.5 * r_px, hi)
        valid = np.isfinite(edges)
        some = valid.mean(1) >= need
        valid[~some] = False
        if some.any():
            valid[some] &= felt_beyond(edges[some], sample_rays(felt_f[some], centres[some], radii, units), radii)
        return edges, wall, valid

    def edges_from(rim_f, felt_f, centres, shift, units, radii):
        wall = np.maximum(0.0, shift @ units.T)
        rim = sample_rays(rim_f, centres, radii, units)
        fs = sample_rays(felt_f, centres, radii, units)
        edges = outer_edges(rim, radii, 0.5 * r_px, 1.3 * r_px + wall)
        valid = np.isfinite(edges) & felt_beyond(edges, fs, radii)
        top = np.nan_to_num(edges - wall)
        points = centres[:, None, :] + top[..., None] * units[None]
        return points, valid, wall, rim, fs

    # a first look on half the rays; it and the fit sample the rays only where an edge is looked
    # for (from half a radius out) and as far as the felt beyond it (the farthest any look's seed
    # reaches: a ray's edge and the felt beyond it are read alike however far its samples go)
    wall_max = max_wall(shift, units)
    reach = 1.65 * r_px + wall_max + 3.0
    look = radii[int(np.searchsorted(radii, 0.5 * r_px)):int(np.searchsorted(radii, reach)) + 1]
    if first_look.any():
        *_, valid = first_valid(rim_f[first_look], felt_f[first_look], c[first_look], shift[first_look], units[::2],
                                look, 0.5 * MIN_COVERAGE)
        first_look[first_look] = valid.mean(1) >= 0.5 * MIN_COVERAGE
    if with_rejected:
        for i in np.flatnonzero(~first_look):
            out[slot[i]].append((c[i] + origin, 0.0, 0.0, 0.0, "first look"))
    c, shift, slot = c[first_look], shift[first_look], slot[first_look]
    blob_other = blob_other[first_look]
    rim_f, felt_f = rim_f[first_look], felt_f[first_look]
    if not len(c):
        return out
    # (every centre left has edges: the fit's points where they are)
    edges, wall, valid = first_valid(rim_f, felt_f, c, shift, units, look, 0.0)
    points = c[:, None, :] + np.nan_to_num(edges - wall)[..., None] * units[None]
    centre, radius, _ = fit_trimmed(points, valid, c.copy(), r_px)
    # measured again from the fitted centre
    shift_c = shift_at(centre)
    points, valid, wall, rim, fs = edges_from(rim_f, felt_f, centre, shift_c, units, radii)
    off = np.hypot(points[..., 0] - centre[:, None, 0], points[..., 1] - centre[:, None, 1]) - radius[:, None]
    kept = valid & (np.abs(off) <= EDGE_TRIM * r_px)
    coverage = kept.mean(1)
    arc = longest_arc(kept)
    residual = np.sqrt((np.where(kept, off, 0.0) ** 2).sum(1) / np.maximum(kept.sum(1), 1))
    rr = radii[None, None, :]
    middle = rr <= 0.45 * r_px
    # (the samples in the middle and in the band outside counted by where the radii fall, not
    # over every sample)
    n_mid = np.maximum(np.full(len(centre), rim.shape[1] * int(middle.sum())), 1)
    mid_felt = (fs * middle).sum((1, 2)) / n_mid
    mid_rim = (rim * middle).sum((1, 2)) / n_mid
    # (no other side's colour in the window: its samples are all nought)
    other_s = sample_rays(other_f, centre, radii, units) if other_any else np.zeros(rim.shape, np.float32)
    mid_other = (other_s * middle).sum((1, 2)) / n_mid
    outside = (rr >= 1.35 * r_px + wall[..., None]) & (rr <= 1.8 * r_px + wall[..., None])
    n_out = np.maximum((np.searchsorted(radii, 1.8 * r_px + wall, side="right")
                        - np.searchsorted(radii, 1.35 * r_px + wall, side="left")).clip(0).sum(1), 1)
    out_rim = (rim * outside).sum((1, 2)) / n_out
    out_felt = (fs * outside).sum((1, 2)) / n_out
    ring = (rr >= 0.6 * r_px) & (rr <= 1.3 * r_px + wall[..., None])
    other = ((other_s >= 0.5) & ring).any(2).mean(1)
    ground = (radii >= r_px) & (radii <= 1.6 * r_px)
    in_felt = sample_rays(maps.enclosed_f, centre, radii[ground], units).mean((1, 2))
    max_res = max(1.2, MAX_RESIDUAL * r_px)
    moved = np.hypot(*(centre - c).T)
    # (a ring already found near it: which of the two is the base is for the caller, by the camera)
    alone = np.ones(len(centre), bool)
    if found_xy is not None and len(found_xy):
        alone = np.hypot(*(centre[:, None, :] + origin - np.asarray(found_xy, np.float64)[None]).transpose(2, 0, 1)
                         ).min(1) >= OVERLAP * r_px
    # (only what stands inside the felt: the mat past the felt's edge is no body)
    in_front = np.zeros(len(centre))
    for m, lk in enumerate(looks):
        rows = np.flatnonzero(slot == m)
        if len(rows):
            in_front[rows] = body_in_front(lk.body_f * maps.enclosed_f, lk.felt_f, centre[rows], shift_c[rows], r_px)
    tests = [("fit", ~np.isfinite(centre).all(1) | (moved > 1.1 * r_px)), ("coverage", coverage < MIN_COVERAGE),
             ("arc", arc < MIN_ARC), ("residual", residual > max_res), ("middle felt", mid_felt > MAX_MIDDLE_FELT),
             ("middle rim", mid_rim > MAX_MIDDLE_RIM), ("middle other", (mid_other > MAX_MIDDLE_OTHER) | blob_other),
             ("outside rim", out_rim > MAX_OUTSIDE_RIM), ("outside felt", out_felt < MIN_OUTSIDE_FELT),
             ("other side", other > MAX_OTHER), ("body in front", alone & (in_front > MAX_BODY_IN_FRONT)),
             ("felt's edge", in_felt < MIN_GROUND_IN_FELT)]
    reason = np.full(len(centre), "ring", object)
    for name, failed in reversed(tests):           # the first test failed names the candidate
        reason[failed] = name
    # (the brightness may overrule only the colour's ring falling short, not what its middle is)
    rescuable = np.logical_and.reduce([~failed for name, failed in tests if name not in RESCUED]) & (reason != "ring")
    # (placed again only where it is reported: the fit is row by row)
    placed = centre.copy()
    again = np.arange(len(centre)) if with_rejected else np.flatnonzero((reason == "ring") | rescuable)
    if len(again):
        placed[again] = _placed(points[again], kept[again], centre[again], r_px)
    conf = (np.minimum(1.0, coverage / 0.6) * np.maximum(0.0, 1 - residual / (2 * max_res))
            * np.maximum(0.0, 1 - out_rim / (2 * MAX_OUTSIDE_RIM)))
    at = centre.copy()
    if bgr is not None:
        # The rim's edge in brightness: where it shows, it places the base (the colour's ring is
        # as much the felt's mottling), and where the colour's ring falls short it shows the base.
        look = rescuable | (reason == "ring")
        if found_xy is not None and len(found_xy) and look.any():
            # (not where a ring found already stands: whatever the step, that is its base)
            near = np.hypot(*(placed[:, None, :] + origin - np.asarray(found_xy, np.float64)[None]).transpose(2, 0, 1))
            look &= near.min(1) >= (OVERLAP - 1.5 * STEP_SEARCH) * r_px
        look = np.flatnonzero(look)
        if len(look):
            units = _STEP_UNITS
            fitted, on, soft = step_circles(bgr, placed[look], r_px, shift_at(placed[look]), units, step_sign)
            # inside the step, the side's paint: the labels call it the side's colour or the felt's
            inside = _inner_band(maps.painted_f, fitted, r_px, units)

            def shown(rays):
                arc = longest_arc(rays)
                painted = (inside * rays).sum(1) / np.maximum(rays.sum(1), 1)
                return arc, (arc >= STEP_MIN_ARC) & (painted >= STEP_MIN_PAINT)

            arc, ok = shown(on)
            # (where the step puts it, the ground round it lies within the felt's outline too: a
            # step along the felt's own edge, at a pond's corner, is the felt's, not a base's)
            grounded = sample_rays(maps.enclosed_f, fitted, radii[ground], units).mean((1, 2)) >= MIN_GROUND_IN_FELT
            ok &= grounded
            # (a faint step the frame's blur spread over a ramp shows a base the colour's ring fell
            # short of, where it rises to the felt the base stands in, not to the mat past the
            # felt's edge; it does not move a ring the colour found)
            felt_out = sample_rays(maps.felt_f, fitted, r_px + np.arange(2.5, 4.51, 0.5), units).mean(2)
            arc_soft, ok_soft = shown(on | (soft & (felt_out >= 0.5)))
            not_yet = reason[look] != "ring"
            by_ramp = ok_soft & grounded & not_yet & ~ok
            ok |= by_ramp
            arc = np.where(by_ramp, arc_soft, arc)
            rescued = ok & not_yet
            # (a ramp is less sure than a step: a ring of the same base the colour or a step shows
            # goes first)
            conf[look[rescued]] = np.where(by_ramp[rescued], 0.25, 0.5) * np.minimum(1.0, arc[rescued] / 0.6)
            reason[look[ok]] = "ring"
            placed[look[ok]] = at[look[ok]] = fitted[ok]
    for m in range(len(looks)):
        # (each look's bases apart: one base per place within a look)
        rows = np.flatnonzero(slot == m)
        order = rows[np.argsort(-conf[rows])]
        taken: list[np.ndarray] = []
        for i in order:
            why = reason[i]
            if why == "ring" and any(np.hypot(*(at[i] - t)) < OVERLAP * r_px for t in taken):
                why = "overlap"
            if why == "ring":
                taken.append(at[i])
            if why == "ring" or with_rejected:
                out[m].append((placed[i] + origin, float(conf[i]), float(coverage[i]), float(residual[i]), why))
    return out


def paint_model(view_bgr: np.ndarray, strict: np.ndarray, rings_xy: np.ndarray, k: int, felt: np.ndarray,
                r_px: float) -> tuple[np.ndarray, np.ndarray] | None:
    """(mean, covariance) of side k's paint (BGR) as this photo shows it: the pixels labelled k in
    the rim band (0.7-1 radii) of its rings found outside the felt; None with too few."""
    h, w = strict.shape
    units = _UNITS
    radii = np.arange(0.7 * r_px, r_px + 1e-6, STEP_PX)
    pts = (np.asarray(rings_xy, np.float64).reshape(-1, 1, 1, 2)
           + radii[None, None, :, None] * units[None, :, None, :]).reshape(-1, 2)
    ix, iy = np.rint(pts[:, 0]).astype(int), np.rint(pts[:, 1]).astype(int)
    inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    ix, iy = ix[inside], iy[inside]
    keep = (strict[iy, ix] == k) & ~felt[iy, ix]
    if keep.sum() < MIN_PAINT_SAMPLES:
        return None
    px = view_bgr[iy[keep], ix[keep]].astype(np.float64)
    return px.mean(0), np.cov(px.T) + np.eye(3) * COLOUR_NOISE ** 2


def paint_map(view_bgr: np.ndarray, feltish: np.ndarray, paint, r_px: float) -> np.ndarray:
    """(H, W) float32 0/1: the pixels of a window of the view (uint8 BGR) likelier the side's paint
    (`paint`: paint_model's Gaussian) than the felt round them: a Gaussian of the colours of
    `feltish` (the pixels labelled the felt or the rim's colour, most of them felt) in a box a few
    bases wide, whatever the light across the table. (The body, far from both, is likelier the
    paint's wider Gaussian and shows here too. Keeping only the pixels the labels call the felt or
    the side's colour found 8 more bases on 24 hard photos of each of seeds 0, 7 and 3, but mostly
    by the body's blurred outline, 0.1-0.5 in off, with a phantom and p95 up to +0.006 in; with the
    outline's pixels left out too, 1 more.)"""
    w = feltish.astype(np.float32)
    if w.sum() < 4:
        return np.zeros(feltish.shape, np.float32)
    centre = _masked_mean(view_bgr, feltish)
    # centred: the box's moments cancel little (each channel's plane split from the bytes and
    # centred on its own: the same numbers as the whole view made float and centred, then split)
    ch = [p.astype(np.float32) for p in cv2.split(view_bgr)]
    for i in range(3):
        ch[i] -= centre[i]
    size = int(round(FELT_BOX * r_px)) | 1

    def box(a):
        return cv2.boxFilter(a, -1, (size, size), normalize=False, borderType=cv2.BORDER_CONSTANT)

    # (float32 throughout, each product and sum in the order written out, into arrays made once)
    n = np.maximum(box(w), 1.0)
    w_ch = [w * ch[i] for i in range(3)]
    m = [box(w_ch[i]) / n for i in range(3)]
    c = {}
    for i in range(3):
        for j in range(i, 3):
            # box(w c_i c_j) / n - m_i m_j (+ the noise's variance on the diagonal)
            t = box(w_ch[i] * ch[j])
            t /= n
            t -= m[i] * m[j]
            if i == j:
                t += COLOUR_NOISE ** 2
            c[i, j] = t
    # the 3x3 inverse pixel by pixel, by its cofactors
    a00, a01, a02, a11, a12, a22 = c[0, 0], c[0, 1], c[0, 2], c[1, 1], c[1, 2], c[2, 2]
    i00, i01, i02, i11, i12, i22, det = adjugate_sym3(a00, a01, a02, a11, a12, a22)
    np.maximum(det, 1e-6, out=det)
    d0, d1, d2 = ch[0] - m[0], ch[1] - m[1], ch[2] - m[2]
    # maha = (i00 d0 d0 + i11 d1 d1 + i22 d2 d2 + 2 (i01 d0 d1 + i02 d0 d2 + i12 d1 d2)) / det
    maha = i00 * d0
    maha *= d0
    t = i11 * d1
    t *= d1
    maha += t
    np.multiply(i22, d2, out=t)
    t *= d2
    maha += t
    cross = i01 * d0
    cross *= d1
    np.multiply(i02, d0, out=t)
    t *= d2
    cross += t
    np.multiply(i12, d1, out=t)
    t *= d2
    cross += t
    cross *= 2
    maha += cross
    maha /= det
    felt_ll = maha                            # -0.5 (maha + log det)
    felt_ll += np.log(det)
    felt_ll *= -0.5
    p_mean, p_cov = paint
    # the paint's Mahalanobis distance in float32, its inverse covariance applied by one transform
    p_centred = (p_mean - centre).astype(np.float32)
    dp = cv2.merge([ch[i] - p_centred[i] for i in range(3)])
    # (its three products summed in order as channels: numpy's sum over a last axis of three is
    # slow, and adds them in this order)
    prod = cv2.transform(dp, np.linalg.inv(p_cov).astype(np.float32))
    prod *= dp
    paint_ll = prod[..., 0] + prod[..., 1]
    paint_ll += prod[..., 2]
    paint_ll += np.float32(np.log(np.linalg.det(p_cov)))
    paint_ll *= -0.5
    return (paint_ll > felt_ll).astype(np.float32)


def _enclosed(painted: np.ndarray) -> np.ndarray:
    """float32 0/1: the pixels within the outer outline of the felt (`painted`, bool): the felt and
    the holes in it, where figures and dice stand, not the mat round it."""
    contours, _ = cv2.findContours(painted.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros(painted.shape, np.uint8)
    cv2.drawContours(out, contours, -1, 1, thickness=cv2.FILLED)
    return out.astype(np.float32)


def body_in_front(body_f: np.ndarray, felt_f: np.ndarray, centres: np.ndarray, shift: np.ndarray,
                  r_px: float) -> np.ndarray:
    """(N,): of each candidate's rays towards the camera (within FRONT_DEG of its side wall's `shift`
    (N, 2)), the share whose band just past the rim and the wall (FRONT_BAND) shows more body
    (`body_f`, 0/1) than felt (`felt_f`). A base stands in the felt with its body showing away
    from the camera, so the felt shows just in front of its rim; a circle fitted up on a figure's
    body (its shoulders or head, seen farther from the camera the higher they stand) has that
    body, running down to the base, in front of it. (0 looking straight down: nothing known.)"""
    n = len(centres)
    out = np.zeros(n)
    norm = np.hypot(*np.asarray(shift, np.float64).reshape(-1, 2).T)
    if not n or not (norm > 1e-6).any():
        return out
    units = _UNITS
    towards = (shift / np.maximum(norm, 1e-9)[:, None]) @ units.T >= np.cos(np.radians(FRONT_DEG))   # (N, K)
    wall = np.maximum(0.0, shift @ units.T)
    along = r_px * (1 + np.linspace(*FRONT_BAND, 5))[None, None, :] + wall[..., None]                  # (N, K, S)
    x, y, _ = ray_pixels(centres, units, along, body_f.shape)
    body = body_f[y, x].mean(2) > felt_f[y, x].mean(2)                                                   # (N, K)
    share = (body & towards).sum(1) / np.maximum(towards.sum(1), 1)
    return np.where(norm > 1e-6, share, 0.0)


def _masked_mean(view_bgr: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """view_bgr[mask].astype(np.float32).mean(0), the same (3,) float32, for less: while no
    channel's sum passes 2**24 every partial sum of its float32 sum is a whole number float32 holds
    exactly, so the sum is the bytes' (counted by OpenCV through the mask), whatever their order,
    and it is divided as np.mean divides it."""
    sums = np.array(cv2.sumElems(cv2.bitwise_and(view_bgr, view_bgr, mask=mask.view(np.uint8)))[:3])
    if sums.max() > 2 ** 24:
        return view_bgr[mask].astype(np.float32).mean(0)
    out = sums.astype(np.float32)
    return np.true_divide(out, np.intp(np.count_nonzero(mask)), out=out, casting="unsafe")


def _rim_within(rim_px: np.ndarray, centres: np.ndarray, reach_px: float) -> np.ndarray:
    """(N,) bool: whether any pixel of the bool map `rim_px` lies in the square `reach_px` round each
    centre (N, 2) (from its integral image: a count)."""
    h, w = rim_px.shape
    sums = cv2.integral(rim_px.view(np.uint8), sdepth=cv2.CV_32S)
    x0 = np.clip(np.floor(centres[:, 0] - reach_px).astype(int), 0, w)
    x1 = np.clip(np.ceil(centres[:, 0] + reach_px).astype(int) + 1, 0, w)
    y0 = np.clip(np.floor(centres[:, 1] - reach_px).astype(int), 0, h)
    y1 = np.clip(np.ceil(centres[:, 1] + reach_px).astype(int) + 1, 0, h)
    return sums[y1, x1] - sums[y0, x1] - sums[y1, x0] + sums[y0, x0] > 0


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


def _placed(points, kept, centre, r_px: float) -> np.ndarray:
    """(N, 2) the bases' centres: the circle of the base's radius through the edge points measured
    from the fitted centre (`points` (N, K, 2), the side wall off, `kept` (N, K) those near it). The
    first fit's rays start at the candidate, often most of a radius off (the body leans), and read
    the ring's far side obliquely; from the fitted centre they cross it square. (A centre moved
    more than half a radius, or with fewer than 3 points, stays. Taking less of the wall off, as
    if the paint's darker shade did not read as the rim against the water, made the tail worse.)"""
    fitted, _, w = fit_trimmed(points, kept, centre.copy(), r_px)
    ok = np.isfinite(fitted).all(1) & (w.sum(1) >= 3) & (np.hypot(*(fitted - centre).T) <= 0.5 * r_px)
    return np.where(ok[:, None], fitted, centre)


# The rim's outer edge in brightness. Blue paint on blue water is nearly one hue, but not one
# brightness: the rim is darker (or lighter) than the felt, and the luma keeps that step at the
# frame's full resolution where JPEG smears the colour. A base's step runs along the circle of its
# known radius (out by its side wall where the wall shows, on the camera's side) on every ray of
# its visible arc, its paint one level inside, the felt one level beyond; a body's outline is not
# that circle, and the felt's mottling makes steps of either way on a ray or two.
STEP_SEARCH = 0.45             # radii: the circle is looked for this far round a candidate
STEP_SAMPLE_PX = 0.25          # luma sample spacing along a ray
STEP_MIN_LEVELS = 6.0          # grey levels across the edge that make a step on a ray
STEP_NOISE = 1.5               # and at least this many times the felt's own spread round the ring
STEP_GRID_PX = 0.5             # the centres tried lie this far apart
STEP_INLIER_PX = 1.0           # a ray's steepest point this near the circle agrees with it
STEP_MIN_ARC = 0.35            # the longest arc of rays stepping at the circle, as a share of it
STEP_MIN_PAINT = 0.5           # the share of the band inside the step, on those rays, labelled the side's or the felt's
STEP_SIGN_SHARE = 0.1          # the paint's and the felt's brightness this far apart (a share) tell the step's way
STEP_RAYS = 64
# What the step may overrule: the colour's ring falling short, never what the middle is. (On 60 hard
# photos of each of seeds 0, 7, 3: 6 + 8 + 5 more bases found, no more phantoms, p95 not up.)
RESCUED = ("coverage", "outside felt", "outside rim", "residual", "arc")

# (the rays' directions, made once: read only)
_UNITS = ray_units()
_STEP_UNITS = ray_units(STEP_RAYS)
_UNITS.flags.writeable = False
_STEP_UNITS.flags.writeable = False


def step_circles(view_bgr: np.ndarray, centres: np.ndarray, r_px: float, shift: np.ndarray,
                 units: np.ndarray, sign: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each candidate centre (N, 2) in the view (uint8 BGR): the centre (N, 2) of the circle of
    the base's radius `r_px` (out by the side wall, `shift` (N, 2), on the camera's side) that the
    luma's step gathers most along within STEP_SEARCH radii, fitted to each ray's steepest point
    near it; and which rays (`units` (K, 2)) step there (N, K): darker or lighter inside the circle
    than beyond it, the way of the most, by more than the felt's spread round it, the felt level
    beyond the step. `sign`: +1 the paint darker than the felt (lighter beyond the step), -1
    lighter, 0 unknown (the way most rays step); and which rays (N, K) step there or rise there as
    a faint step the frame's blur spread (_steps_at)."""
    n, k = len(centres), len(units)
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    if not n:
        return c.copy(), np.zeros((0, k), bool), np.zeros((0, k), bool)
    wall = np.maximum(0.0, shift @ units.T)
    reach_px = STEP_SEARCH * r_px
    offs = np.arange(-reach_px - STEP_SAMPLE_PX, reach_px + STEP_SAMPLE_PX + 1e-9, STEP_SAMPLE_PX)
    expect = r_px + BRIGHT_BIAS_PX + wall
    s = luma_rays(view_bgr, c, units, expect[..., None] + offs)
    so = offs[1:-1]
    inner, outer = s[..., :4].mean(2), s[..., -4:].mean(2)
    big = np.abs(outer - inner) >= STEP_MIN_LEVELS
    if sign:
        sign = np.full(n, float(sign))
    else:
        sign = np.sign(np.where(big, outer - inner, 0.0).sum(1))
        sign = np.where(sign == 0, 1.0, sign)
    g = np.maximum((s[..., 2:] - s[..., :-2]) * (sign / (2 * STEP_SAMPLE_PX)).astype(np.float32)[:, None, None], 0.0)
    # each centre tried (offset d) gathers the slope at its circle on every ray: ray k's step lies
    # d . u_k further out, between two samples
    # (on a grid twice as coarse first, then round the best of it)
    coarse = grid_offsets(reach_px, 2 * STEP_GRID_PX)
    taps = _coarse_taps(reach_px, len(so)) if units is _STEP_UNITS else _taps(coarse, units, reach_px, len(so))
    best = coarse[np.argmax(_gathered(g, *taps), axis=1)]
    fine = best[:, None, :] + grid_offsets(1.5 * STEP_GRID_PX, STEP_GRID_PX)[None]
    inside = np.hypot(fine[..., 0], fine[..., 1]) <= reach_px + 1e-9
    score = np.where(inside, _gathered(g, *_taps(fine, units, reach_px, len(so))), -np.inf)
    d_best = fine[np.arange(n), np.argmax(score, axis=1)]
    along_best = d_best @ units.T
    step_at, g1 = steepest_points(g, so, along_best, expect, STEP_INLIER_PX, STEP_SAMPLE_PX)
    step_at = step_at - wall - BRIGHT_BIAS_PX
    points = c[:, None, :] + step_at[..., None] * units[None]
    w = big & (np.sign(outer - inner) == sign[:, None])
    radius = np.full(n, float(r_px))
    fitted = c + d_best
    for _ in range(2):
        # the circle through the steps near it, weighed by their steepness
        off = np.hypot(points[..., 0] - fitted[:, None, 0], points[..., 1] - fitted[:, None, 1]) - r_px
        on = w & (np.abs(off) <= STEP_INLIER_PX)
        fitted = circle_centres(points, on * g1 ** 2, fitted, radius, iterations=2)
    bad = ~np.isfinite(fitted).all(1) | (np.hypot(*(fitted - c).T) > 1.5 * reach_px)
    fitted[bad] = c[bad]
    steps, rises = _steps_at(view_bgr, fitted, r_px, wall, units, sign)
    return fitted, steps & ~bad[:, None], (steps | rises) & ~bad[:, None]


def _step_sign(side_rgb, felt_rgbs) -> float:
    """+1 when the side's paint (RGB) is darker than each of the felts (lighter beyond its rim's
    edge), -1 when lighter than each, 0 when they are about as bright."""
    luma = lambda rgb: float(np.dot(LUMA_BGR[::-1], np.asarray(rgb, np.float64)))     # noqa: E731
    paint = luma(side_rgb)
    ratios = [paint / max(luma(f), 1.0) for f in felt_rgbs]
    if ratios and all(r <= 1 - STEP_SIGN_SHARE for r in ratios):
        return 1.0
    if ratios and all(r >= 1 + STEP_SIGN_SHARE for r in ratios):
        return -1.0
    return 0.0


def _inner_band(mask_f: np.ndarray, centres: np.ndarray, r_px: float, units: np.ndarray) -> np.ndarray:
    """(N, K) the share of each ray's samples 0.5-2 px inside the circle of radius `r_px` about
    `centres` (N, 2) that the float32 0/1 map `mask_f` holds."""
    return sample_rays(mask_f, centres, r_px - np.arange(0.5, 2.01, 0.5), units).mean(2)


def _gathered(g: np.ndarray, at: np.ndarray, f: np.ndarray, f_rest: np.ndarray) -> np.ndarray:
    """(N, G) the slope `g` (N, K, J: J samples along each ray from -reach_px, STEP_SAMPLE_PX
    apart) summed round the circle about each centre's offsets, given by their _taps ((G, K) for all
    centres, or (N, G, K) each its own): ray k's step lies d . u_k further out, between two samples."""
    n, k, j = g.shape
    if at.ndim == 2:
        flat = g.reshape(n, k * j)
        return (flat[:, at] * f_rest + flat[:, at + 1] * f).sum(2)
    at = at + (np.arange(n) * (k * j))[:, None, None]
    flat = g.reshape(-1)
    return (flat[at] * f_rest + flat[at + 1] * f).sum(2)


def _taps(d: np.ndarray, units: np.ndarray, reach_px: float, j: int):
    """_gathered's two samples round the circles about offsets `d` ((G, 2), or (N, G, 2)), where
    each crosses each ray of `units` (J samples a ray), by their index in a row of the slope
    flattened (K * J), and their weights (f, 1 - f), float32."""
    along = d @ units.T                                             # (G, K) or (N, G, K)
    at = (along + reach_px) / STEP_SAMPLE_PX
    i0 = np.clip(np.floor(at).astype(np.int64), 0, j - 2)
    f = np.clip(at - i0, 0.0, 1.0).astype(np.float32)
    i0 += np.arange(units.shape[0]) * j
    return i0, f, 1 - f


@lru_cache(maxsize=16)
def _coarse_taps(reach_px: float, j: int):
    """_taps of the coarse grid of step_circles on its own rays (made once for each base size: read
    only)."""
    taps = _taps(grid_offsets(reach_px, 2 * STEP_GRID_PX), _STEP_UNITS, reach_px, j)
    for a in taps:
        a.flags.writeable = False
    return taps


def _steps_at(view_bgr, centres, r_px, wall, units, sign):
    """Two (N, K): the rays on which the circle of radius `r_px` about `centres` is a step the way
    `sign` (N,) (+1: lighter beyond): the level 0.5-2 px inside it (the paint) differs from the
    level 0.5-2 px beyond it (past the wall) by STEP_MIN_LEVELS and STEP_NOISE times the felt's
    mottling (from ray to ray, 2.5-4.5 px beyond), and the felt is about that level on out to
    4.5 px. (Its spread round the whole ring takes in the bodies and dice standing near: on 60 hard
    photos of each of seeds 0, 7, 3 that left 4 + 6 + 4 bases unfound.) `wall` (N, K): the side
    wall's width on each ray (step_circles'). Returns (steps, ramps): also the rays that rise there
    as a ramp.

    A ramp: in a 1080p photo the view is finer than the frame, and the frame's blur and JPEG
    spread a faint step over 4-5 view pixels, so that only part of it lies between the two levels
    next to the circle; on such a ray the level rises from the paint's to the felt's by as much
    (out to 4.5 px), at least half of that need across the circle, and never falls back, and the
    level it rises to is the felt's round the ring (a body standing over the felt beyond the rim
    is not)."""
    o = np.arange(-2.0, 4.51, 0.5)
    s = luma_rays(view_bgr, centres, units, r_px + o + (o > 0) * wall[..., None]) * sign[:, None, None]
    inside = s[..., (o >= -2) & (o <= -0.5)].mean(2)
    beyond = s[..., (o >= 0.5) & (o <= 2)].mean(2)
    felt = s[..., o >= 2.5].mean(2)
    step = beyond - inside
    # (the felt's own mottling from ray to ray, not the things standing round the base)
    spread = 1.4826 * np.median(np.abs(np.diff(felt, axis=1, append=felt[:, :1])), 1) / np.sqrt(2) + 2.0
    need = np.maximum(STEP_MIN_LEVELS, STEP_NOISE * spread)[:, None]
    steps = (step >= need) & (np.abs(felt - beyond) <= need + 0.5 * step)
    level = np.median(felt, axis=1, keepdims=True)
    return steps, (felt - inside >= need) & (step >= 0.5 * need) & (felt >= beyond) & (np.abs(felt - level) <= need)


LEARN_PPI = 5.0                # felt is learnt on a layer this coarse: it is inches wide
MIN_FELT_PATCH_SQIN = 6.0      # a patch nearer a felt's colour than anything else, at least this big, is that felt
MIN_FELT_SHIFT = 0.05          # chromaticity: the set's felt under a cast the anchors left lies up to 0.04 off the
                               # profile's (on 12 photos), a family's own felt further: only that is learnt (learning
                               # the set's too, on 60 hard photos of seeds 0/7/3/11: +3 rims, +3 phantoms)
MAX_FELT_SHIFT = 0.12          # and a felt seen further than this is not learnt (some other thing of its hue)


def seen_felts(quantised, side_rgbs, other_rgbs, mat: np.ndarray, ppi: float) -> tuple[tuple[float, ...], ...]:
    """`other_rgbs` with each felt of a side's hue (similar_felts) as this photo shows it, for the water
    search's labels: a family's own felt (a teal pond where the profile names the set's blue) lies
    off the profile's colour, and the strict labels then call little of it felt, so the search for
    a blue base standing in it barely looks.

    `quantised`: quantise_view of a whole table's view at `ppi`. A felt's colour is the median
    chromaticity of the patches (MIN_FELT_PATCH_SQIN or more) whose pixels lie nearer its profile
    colour, or a side's of its hue, than any other felt's, side's or the mat's (a navy pond lies
    nearer the blue side's colour than the profile's water; no base is that big); its brightness
    stays the profile's."""
    n_sides = len(side_rgbs)
    similar = similar_felts(side_rgbs, other_rgbs, n_sides)
    wanted = sorted({t - n_sides for labels in similar for t in labels})
    out = [tuple(float(v) for v in c) for c in other_rgbs]
    if not wanted:
        return tuple(out)
    index, present, counts, colours, chroma, brightness = quantised
    targets = np.array([rgb_chroma(c) for c in side_rgbs] + [rgb_chroma(c) for c in other_rgbs]
                       + [np.asarray(mat, np.float32)], np.float32)
    # nearest by |c - t|^2, less the |c|^2 every target shares: one product for all the colours
    nearest = np.where(brightness[0] >= MIN_BRIGHTNESS,
                       ((targets * targets).sum(axis=1) - 2.0 * (chroma[0] @ targets.T)).argmin(axis=1), -1)
    table = np.full(int(present.max()) + 1, -1, np.int16)
    table[present] = nearest
    step = max(1, int(round(ppi / LEARN_PPI)))
    small = index[::step, ::step]
    label = table[small]
    px_sqin = (step / ppi) ** 2
    for t in wanted:
        ours = label == n_sides + t
        for k, labels in enumerate(similar):
            if n_sides + t in labels:
                ours |= label == k
        mask = cv2.morphologyEx(ours.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        big = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] * px_sqin >= MIN_FELT_PATCH_SQIN)
        big = big[big > 0]
        if not len(big):
            continue
        codes = small[np.isin(comp, big) & ours]
        seen = median_rows(chroma[0][np.searchsorted(present, codes)].T.astype(np.float32))
        seen = seen / max(float(seen.sum()), 1e-6)
        if not MIN_FELT_SHIFT <= np.linalg.norm(seen - rgb_chroma(other_rgbs[t])) <= MAX_FELT_SHIFT:
            continue
        out[t] = tuple(float(v) for v in (seen * float(sum(other_rgbs[t])))[::-1])
    return tuple(out)
