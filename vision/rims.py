"""Colour bases as rims, not blobs: a base is a ring of its side's colour, of the base's size.

The figure standing on a base hides its middle and, leaning, part of the ring: 30-70% of the ring
may show. A die of the side's colour (a filled square, smaller), a patch of cloth on a body (a blob
with colour in its middle), felt of a similar hue (colour all round, outside too), a mug (a ring of
the wrong size) and a book cover (a large patch) are not a ring of the base's size with an empty
middle and little colour around it. (Some players paint a base's whole top: then it is a disc of
the colour with the body standing in it, its colour running in from the rim to the body's feet, and
only its core, where the feet stand, free of it.) So each base is judged by its shape:

1. candidates: where a base-sized square annulus holds the colour and its middle does not
   (box filters: constant time a pixel), on each side's strict and loose labels, its likelihood
   (vision.rim_search) and, for rims paler still, that likelihood where the brightness steps (the
   edge pass, _on_edges: JPEG keeps a thin rim's colour at half resolution, its edge at full);
2. for all candidates at once, the colour is sampled along rays from the candidate (one remap):
   on each ray the rim's outer edge (the last sample of the colour inside 1.35 radii), moved back
   by the base's side wall where the wall shows (towards the camera);
3. a circle of the base's known radius is fitted to those edge points (Gauss-Newton, with the
   points that do not lie on it trimmed twice), then the rays are sampled again from its centre;
4. a candidate is a ring when enough of it shows (`coverage`), in one arc, cleanly, and the edge
   points lie on the circle (`residual_px`); each gets a confidence from all its measures (the
   measures of the middle, the band outside and the other colour near are taken only for the
   candidates that pass these shape tests, unless every rejected one is asked for);
5. the rings are then judged against the look-alikes of a side's colour (a mug, a die, cloth on a
   body, felt, a book cover, a phone's case: vision.rim_vetting.vet_hits). Each candidate comes
   out with the reason it was kept or left out.

Pixels are classified before (vision.colour.classify, on a white-balanced view): the tests here
are of shape, not of colour.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, NamedTuple, Sequence

import cv2
import numpy as np

from vision.colour import chromaticity, classify, rgb_chroma
from vision.rim_rays import (EDGE_BIAS_PX, EDGE_TRIM, STEP_PX, Bands, Slots, best_per_cell_index, fit_circle,
                             fit_trimmed, free_radius, gained, gained_threshold, longest_arc, max_wall, outer_edges,
                             ray_pixels, ray_units, reach, sample_rays)
from vision.rim_dice import MIN_PIPS, pip_counts
from vision.rim_outline import faces_camera, outline_of_base_size, outline_on_arc
from vision.rim_refine import (FINE_SCALE, INLIER, WALL_SHOWN_LABELS,
                               WALL_SHOWN_LIKELIHOOD, brightness_centres, consensus_centres, frame_scale_at,
                               held_radius_centres, off_cloaks, rim_over_felt, wall_shown_points)
from vision.rim_search import fade_past_blends, mat_brightness, quantised_likelihoods
from vision.rim_vetting import (MAX_OUTER, TOO_WEAK, faces_away_more, is_strong, label_in, on_a_surer_body,
                                shows_more_ring, similar_felts, vet_hits)
from vision.rim_water import seen_felts, water_candidates
from vision.settings import VISION_DEFAULTS
from vision.whitebalance import WHITE

MIN_COVERAGE = 0.2             # share of the ring that must show (a leaning body hides up to 70%,
                               # and the rays at the ends of the arc the body's edge spoils)
MIN_ARC = 0.18                 # the longest unbroken stretch of ring, as a share of it
MIN_CLEAN = 0.75               # of the rays meeting the colour, the share with a rim edge on the circle
CLEAN_FULL = 0.8               # a ring this clean or cleaner loses nothing of its confidence to clutter
RIM_BAND = 0.2                 # a rim's band of colour is at least this wide, in radii
MAX_RESIDUAL = 0.14            # RMS distance of the edge points from the circle, in radii (>= 1.2 px)
HIDDEN_RUN = 3                 # rays past either end of the visible arc the body's edge may cut the rim short on
MIN_RING_PX2 = 0.2             # candidate: colour pixels in the annulus, in radii squared
MAX_CANDIDATES = 250
MIN_CONFIDENCE = 0.33          # of a ring passing every test: all its measures together
OVERLAP = 1.8                  # two bases' centres are at least a diameter apart: 2 radii, less slack
PASS_STRICT, PASS_LOOSE, PASS_SOFT = 0, 1, 2   # which labels a candidate was found on
SOFT_RING_PX2 = 0.12           # soft candidate: likelihood summed in the annulus, in radii squared
                               # (halved for a side whose channel the white balance raised most, blue under
                               # tungsten: on 60 hard photos of each of 8 seeds, 4 rims more of 5,100 and a phantom
                               # fewer; quartered, no more on 4 of them: its pale rims are lost further on)
FAINT_SOFT_RING_PX2 = 0.06     # ... or this much: a faint candidate (a thin rim at 1080p, its colour a chroma
                               # pixel wide), kept only this sure:
FAINT_MIN_CONFIDENCE = 0.4     # (with MIN_RING_PX2 0.3 -> 0.2, on 60 hard photos of each of the 8 seeds rims
                               # 4717 -> 4725, phantoms 77 -> 76; of seeds 100-105, 3468 -> 3475 and 84 -> 80;
                               # kept at any confidence, 4740 and 82, 3480 and 82)
SOFT_NOISE = 0.1               # the likelihood counts above this (a body's brown is a little red)
                               # (halved too for such a side: 5 phantoms more on seeds 0/7/3/11, p95 up)
EDGE_NOISE = 0.03              # the edge pass: the likelihood counts above this where the brightness steps ...
EDGE_STEP = 16.0               # ... in full at a slope of this many grey levels a pixel (in proportion below it)
EDGE_TEXTURE = 3.0             # ... or of this many times the mean slope round it (a grained mat steps everywhere)
EDGE_PATCH = 0.8               # ... and not in a patch of the side's colour that a square this share of a base
EDGE_CLEAR_PX = 5              # wide fits in, nor within 2 px of it (a felt scrap, a book's cover: the edge pass
                               # sees a filled patch as its outline, a ring; a die is narrower, a base's paint too)
                               # (the pass, on 60 hard photos of each of seeds 0/7/3/11/5/13/23/31: rims
                               # 580/583/576/564/586/588/560/569 -> 602/595/587/582/604/599/576/580 (127 found,
                               # 113 of them at 1080p; 8 lost); phantoms 5/7/7/9/7/12/17/9 -> 9/10/14/18/10/12/
                               # 20/10; p95 0.090/0.093/0.088/0.081/0.081/0.103/0.099/0.079 -> 0.089/0.101/0.096/
                               # 0.093/0.087/0.106/0.094/0.082 in: misses and phantoms together 592 -> 503.
                               # Without the mean slope's part: phantoms on wood grain, 25 on seed 3; and on
                               # seeds 0/7, a noise floor of 0.05-0.06 or a slope of 24 found 3-7 rims fewer a
                               # seed for 0-3 phantoms fewer)
SAME_RING = 0.2                # two passes' rings whose centres are this close (radii) are one ring
COARSE_COVERAGE = 1.0          # of MIN_COVERAGE: a candidate's first look (half the rays) must show this (as much as
                               # the final test asks: half the candidates show less, and go no further). A trade, not
                               # a free cut: on 60 hard photos of seeds 0, 7, 3 against 0.6, rims 1674 -> 1671,
                               # phantoms 55 -> 53, find_rims 0.89 of its CPU time; 0.8: 1673 rims, 55 phantoms, 0.95.
                               # With the disc model, on 24 photos of each seed: rims 686 -> 685, phantoms 15 -> 15, 0.87
MIN_COVERED = 0.6              # of the rays not showing the rim, the share something must stand over (_body_cover)
                               # (the rule as a whole, on 60 hard photos of seeds 0, 7, 3: rims 567 -> 570, 566 -> 567,
                               # 568 -> 569, all at 1080p; phantoms 11, 13, 17 as they were; p95 0.099 -> 0.103,
                               # 0.099 -> 0.100, 0.105 -> 0.105 in: the short arcs it keeps lie about 0.1 in off)
MAX_FRONT = 0.25               # ... and with the ground in front of it clear on at least the rest of the rays
HIDDEN_SEEN = 0.5              # ... for this share of them to count as seen ring in the confidence
SEEN_FULL = 0.6                # a ring showing this much (seen or hidden by its body) is whole for the confidence
CORE = 0.3                     # radii: a base's core, where the figure's feet stand (two legs 0.32" across, a 1" base)
SOFT_FLOOR = 0.25              # a likelihood peaking below this near a candidate is no rim's colour
PAPER_SHARE = 0.55             # an arc brighter than this share of the way from its side's paint to the
                               # anchors' white card, in the same light, is no paint (a page, a white mug) ...
PAPER_QUANTILE = 0.25          # ... read on its darker quarter (a pale mat blurred into a dark rim's arc is no paint)
FACING_COS = 0.3               # a too weak ring's visible arc within 73 degrees of the camera's direction
FACING_LENGTH = 0.3            # ... and one-sided (its rays' mean unit vector this long)
OUTLINE_LEAST = 0.45           # ... and the base's outline on this share of its rays (vision.rim_outline)
OUTLINE_ON_ARC = 0.85          # ... and on this share of the rays its colour shows its rim on
                               # (on 60 hard photos of seeds 0, 7, 3: rims 573 -> 576, 578 -> 580, 574 -> 576 (two
                               # on photos at 2160p, the rest at 1080p), phantoms 4, 8, 7 -> 4, 8, 8 (a red cloak
                               # on a blue base whose blue the tungsten cast hides), p95 0.089, 0.092, 0.088 ->
                               # 0.089, 0.092, 0.090 in; seed 11: 560 -> 561, phantoms 10 -> 10, p95 0.082 -> 0.081)
OUTLINED_ARC = 0.75            # a ring failing only the clean test whose brightness outline lies on the base's circle
                               # on this share of its colour's arc (rim_outline.outline_on_arc) is judged as clean:
                               # what spoils the rays beside its arc is the body over it, not clutter (on 60 hard
                               # photos of seeds 0, 7, 3, 11, judged just clean: rims 577, 581, 575, 563 -> 580, 582,
                               # 575, 564, phantoms 5, 7, 7, 9 as they were, p95 0.088, 0.092, 0.091, 0.082 -> 0.090,
                               # 0.092, 0.088, 0.081 in; the two it keeps on seed 0 at 1080p lie 0.15-0.17 in off)


@dataclass(frozen=True)
class RimHit:
    xy_view: np.ndarray        # (2,) centre of the base's top, view pixels
    side_index: int
    confidence: float          # 0..1
    coverage: float            # share of the ring showing the colour
    residual_px: float         # RMS distance of the rim's edge points from the fitted circle
    inner: float               # share of the middle showing the colour (of all of it, or along the
                               # rays where the rim shows, whichever is more; of a disc alone on the
                               # mat the ring's model finds too weak, no more than its core shows)
    outer: float               # share of the band just outside showing it
    reason: str                # "ring", or why the candidate is not a base
    by_hue: bool = False       # found on the loose (hue) labels, not the strict ones
    radius: float = 1.0        # the fitted circle's radius, in the base's radii
    clean: float = 1.0         # of the rays meeting the colour, the share with a rim edge on the circle
    other: float = 0.0         # share of the rays meeting another side's colour just outside the ring
    free_radius: float = 1.0   # the visible arc's own radius (unconstrained fit), in the base's radii
    middle: float = 0.0        # share of the middle (within 0.45 radii) showing the colour
    hollow: float = 1.0        # along the rays showing the rim, the share of 0.1-0.4 radii without it
                               # (of a disc the ring's model finds too weak, or of its core, whichever is more)
    by_likelihood: bool = False  # found on the soft colour likelihood (vision.rim_search), not on labels
    core: float = 0.0          # share of the core (within CORE radii), where the body's feet stand, showing the colour
    covered: float = 0.0       # of the rays not showing the rim, the share whose top something unlike the ground
                               # round the base stands over (the body hiding the rest of the rim)
    front: float = 1.0         # of the rays towards the camera, the share with something unlike the ground just in
                               # front of the ring (1: no camera direction known). These two are measured only
                               # for a ring they may keep (one otherwise too weak, no other side's colour round
                               # it; front also for a too weak ring facing the camera: vision.rim_outline)
    by_water: bool = False     # found by the water search (vision.rim_water): no ring measures, its radius the base's
    faint: bool = False        # found where its likelihood's annulus held less than a soft candidate's (SOFT_RING_PX2)
    pale: bool = False         # ... and its likelihood peaks lower than a rim's colour does


# A side's labels as 0/255 bytes (cv2.compare's), halved by area: each 2x2 block's rounded mean
# (0, 64, 128, 191, 255) -> how many of its pixels show the colour; at full size, 255 -> 4 quarters.
_QUARTERS_HALVED = np.zeros(256, np.uint8)
_QUARTERS_HALVED[[0, 64, 128, 191, 255]] = [0, 1, 2, 3, 4]
_QUARTERS_FULL = np.zeros(256, np.uint8)
_QUARTERS_FULL[255] = 4
_ONE_AT_255 = np.zeros(256, np.float32)
_ONE_AT_255[255] = 1.0


def _candidates(mask: np.ndarray, r_px: float, min_ring: float = MIN_RING_PX2, *,
                with_ring: bool = False):
    """(N, 2) view points where a base-sized annulus holds the colour and its middle does not
    (`with_ring`: and (N,) how much colour each one's annulus holds, in radii squared).

    `mask`: a float map (a likelihood, or labels as 0/1), or a side's labels as uint8 0/255: these
    are summed in integers, quarters of a pixel, and give the same sums to the bit (a sum of
    quarters is exact in float32 too), from a quarter of the bytes.
    Looked for at half the view's resolution when a base is 16 pixels across or more (candidates
    need only land within a third of a radius: the rays and the fit find the centre)."""
    labels = mask.dtype == np.uint8
    if not labels:
        mask = np.asarray(mask, np.float32)       # no copy of a float map: nothing here writes to it
    if r_px >= 8:
        # an even-sized crop halves exactly (an odd size takes resize's general area path, five
        # times slower, and its cells drift up to a pixel from 2x by the far edge); the last
        # row or column dropped is no base's middle
        h, w = mask.shape
        h2, w2 = max(1, h // 2), max(1, w // 2)
        small = cv2.resize(mask[:2 * h2, :2 * w2], (w2, h2), interpolation=cv2.INTER_AREA)
        if labels:
            small = cv2.LUT(small, _QUARTERS_HALVED)
        pts, ring = _candidates_in(small, r_px / 2, min_ring, quarters=labels)
        pts = pts * 2 + 0.5
    else:
        if labels:
            mask = cv2.LUT(mask, _QUARTERS_FULL)
        pts, ring = _candidates_in(mask, r_px, min_ring, quarters=labels)
    return (pts, ring) if with_ring else pts


def _candidates_in(m: np.ndarray, r_px: float, min_ring: float = MIN_RING_PX2,
                   quarters: bool = False) -> tuple[np.ndarray, np.ndarray]:
    s_in = int(round(1.1 * r_px)) | 1             # the middle, inside the rim band
    s_out = int(round(2.2 * r_px)) | 1            # the whole base and a little more
    if quarters:
        # (integer sums, exact in float32, then in pixels: a power of two, exact too)
        a_in = cv2.boxFilter(m, cv2.CV_32F, (s_in, s_in), normalize=False, borderType=cv2.BORDER_CONSTANT)
        a_out = cv2.boxFilter(m, cv2.CV_32F, (s_out, s_out), normalize=False, borderType=cv2.BORDER_CONSTANT)
        a_in *= np.float32(0.25)
        a_out *= np.float32(0.25)
    else:
        a_in = cv2.boxFilter(m, -1, (s_in, s_in), normalize=False, borderType=cv2.BORDER_CONSTANT)
        a_out = cv2.boxFilter(m, -1, (s_out, s_out), normalize=False, borderType=cv2.BORDER_CONSTANT)
    ring = np.subtract(a_out, a_in, out=a_out)
    # Ranked by the colour in the annulus less that in the middle; a middle almost all colour (the
    # inside of a felt or a book cover) is no candidate at all, so that a large patch's plateau of
    # equal peaks cannot crowd out the bases.
    score = ring - a_in
    size = int(round(r_px)) | 1
    top = cv2.dilate(score, cv2.getStructuringElement(cv2.MORPH_RECT, (size, size)))
    # the places with colour enough in the annulus are a few tenths of the view, their local peaks
    # fewer: the other tests are made at them alone (numpy's nonzero over a 2-D map is three times
    # slower than over the flat one)
    at = np.flatnonzero(ring >= min_ring * r_px * r_px)
    at = at[score.reshape(-1)[at] >= top.reshape(-1)[at]]
    ys, xs = np.divmod(at, m.shape[1])
    ring_at, in_at = ring[ys, xs], a_in[ys, xs]
    good = in_at <= 0.85 * s_in * s_in
    if min_ring != MIN_RING_PX2:
        # a likelihood: the middle no more of the colour than the annulus (a felt's corner is)
        good &= in_at / (s_in * s_in) <= ring_at / (s_out * s_out - s_in * s_in)
    ys, xs = ys[good], xs[good]
    pts = np.column_stack([xs, ys]).astype(np.float64)
    pick = best_per_cell_index(pts, score[ys, xs], r_px)[:MAX_CANDIDATES]
    return pts[pick], ring_at[good][pick] / (r_px * r_px)


def _rim_edges(samples, centres, shift, units, radii, r_px: float, search_lo: float, search_hi: float, gain):
    """On each ray (samples (N, K, J), each candidate's `gained` by its `gain`) the radius where the
    colour ends between `search_lo` and `search_hi` radii, the side wall's shift (N, 2) added out;
    the top's edge points (N, K, 2), the wall taken away; and which rays show a rim there: (edges,
    points, valid)."""
    wall = np.maximum(0.0, shift @ units.T)                      # (N, K): the side wall adds this out
    on = samples >= gained_threshold(gain)[:, None, None]        # the samples gained to 0.5 or more
    edges = outer_edges(samples, radii, search_lo * r_px, search_hi * r_px + wall, on, gain)
    top = edges - wall                                           # the top's edge, wall taken away
    points = centres[:, None, :] + np.nan_to_num(top)[..., None] * units[None]
    # A rim is a band of solid colour ending at its edge, with the mat beyond: a speckle of noise
    # or one thread of a pattern is not.
    e = np.nan_to_num(edges, nan=-1e9)
    bands = Bands(samples, radii, on)
    n_in, on_in = bands.count(e - RIM_BAND * r_px, e - 0.5)
    n_out, on_out = bands.count(e + 1.0, e + 0.3 * r_px)
    solid = on_in >= 0.75 * np.maximum(n_in, 1)
    clear = n_out - on_out >= 0.75 * np.maximum(n_out, 1)
    return edges, points, np.isfinite(top) & solid & clear


def _edge_radii(radii: np.ndarray, r_px: float, search_lo: float, search_hi: float, wall_px: float) -> np.ndarray:
    """The samples of `radii` that _rim_edges reads for edges searched from `search_lo` to
    `search_hi` radii (the side wall adding up to `wall_px`): from the inner end of a rim band
    at the nearest edge to the outer end of the clear band beyond the farthest (and the sample
    after it), not from the centre out to the shape measures' outer band."""
    j0 = int(np.searchsorted(radii, (search_lo - RIM_BAND) * r_px, side="left"))
    return reach(radii, search_hi * r_px + wall_px + STEP_PX + 0.3 * r_px)[j0:]


def _ring_stats(mask_f: np.ndarray, centres: np.ndarray, r_px: float, shift: np.ndarray,
                units: np.ndarray, radii: np.ndarray, search_lo: float, search_hi: float, gain: np.ndarray | None = None,
                min_valid: float = 0.0, measures: bool = True, labelled: np.ndarray | None = None):
    """Edge points, fitted centres and the shape measures for candidates at `centres` (`gain` (N,):
    each candidate's samples scaled by it, clipped at 1: a likelihood judged against its own rim).
    A candidate with fewer than `min_valid` of its rays showing a rim edge keeps none (its circle is
    not fitted: the rays kept are some of those). Without `measures` only the rays kept and the
    centres are worth using (a look that only moves the centre: no free radius, residual or clean).
    `labelled` (N,): which candidates were found on labels, not on a likelihood (None: all)."""
    radii = _edge_radii(radii, r_px, search_lo, search_hi, max_wall(shift, units))
    samples = sample_rays(mask_f, centres, radii, units)
    gain = np.ones(len(centres)) if gain is None else gain
    edges, points, valid = _rim_edges(samples, centres, shift, units, radii, r_px, search_lo, search_hi, gain)
    # A candidate without a rim edge (or too few: `min_valid`) has no circle to fit: it keeps its
    # place, the prior's radius and no ray.
    n = len(centres)
    centre, weights = np.array(centres, np.float64), np.zeros(valid.shape)
    radius = np.full(n, np.clip(r_px + EDGE_BIAS_PX, 0.85 * r_px, 1.25 * r_px))
    free_r = np.full(n, np.nan)
    rows = np.flatnonzero(valid.any(1) & (valid.mean(1) >= min_valid))
    if len(rows):
        pts = points[rows]
        c, r, w = fit_trimmed(pts, valid[rows], centre[rows], r_px)
        centre[rows], radius[rows], weights[rows] = c, r, w
        if measures:
            free_r[rows] = free_radius(pts, w)
    kept = weights > 0
    if not measures:
        return kept, centre, None, None, free_r, radius
    px, py = points[..., 0], points[..., 1]
    res = np.hypot(px - centre[:, None, 0], py - centre[:, None, 1]) - radius[:, None]
    n_kept = kept.sum(1)
    # Of the rays that meet the colour near the ring, the share that show a clean rim edge on the
    # circle: a partial rim is clean where it shows (the body hides the rest); clutter is not.
    # (a ray meets the colour in the band searched exactly when an outer edge was found there)
    # The rays just past the visible arc whose colour ends well inside the circle meet the body
    # leaning over the rim (its edge crosses the rim's band at a slant): hidden, as the rest under
    # the body is, not clutter. (On labels only: a likelihood's colour fades out, a body's faint
    # likeness with it, with no clear end.)
    short = ~kept & (res < -EDGE_TRIM * r_px)
    if labelled is not None:
        short &= np.asarray(labelled, bool)[:, None]
    hidden = np.zeros_like(short)
    for _ in range(HIDDEN_RUN):                  # a run of them from either end of the arc
        seen = kept | hidden
        hidden |= short & (np.roll(seen, 1, axis=1) | np.roll(seen, -1, axis=1))
    touched = np.isfinite(edges) & ~hidden
    clean = n_kept / np.maximum(touched.sum(1), 1)
    residual = np.sqrt((np.where(kept, res, 0.0) ** 2).sum(1) / np.maximum(n_kept, 1))
    return kept, centre, residual, clean, free_r, radius


FELT_NEAR = 0.15              # a felt colour this near a side's (chromaticity) is a background to judge it on
FELT_MAX_ALPHA = 1.2          # past this share of the way from the mat to a felt's colour, no felt
FELT_PATCH_BASES = 1.5        # a patch of a side's colour a square this many bases wide fits in is felt
QUANT_SHIFT = 2               # colours are classified on 6 bits a channel: 4 levels, well inside CHROMA_TOL


def quantise_view(view_bgr: np.ndarray, wb=None):
    """The view's colours on 6 bits a channel: (index map, the indices present, their counts, their
    white-balanced BGR (1, n, 3), chromaticity and brightness), shared by label_view's passes."""
    img = np.ascontiguousarray(view_bgr, np.uint8)
    bits = 8 - QUANT_SHIFT
    # B, G, R levels packed into one index, shifted and or-ed in place (no float copy of the view)
    b, g, r = cv2.split(img)
    # (packed in 32 bits, then made numpy's own index type once: every look-up by it, np.take or
    # bincount, would convert it again)
    index = (b >> QUANT_SHIFT).astype(np.uint32)
    for level in (g, r):
        index <<= bits
        index |= level >> QUANT_SHIFT
    index = index.astype(np.intp)
    counts = np.bincount(index.ravel(), minlength=1 << (3 * bits))
    present = np.flatnonzero(counts > 0)          # (nonzero over a bool map is three times faster)
    levels = ((np.stack([present >> (2 * bits), (present >> bits) & ((1 << bits) - 1),
                         present & ((1 << bits) - 1)], axis=1) << QUANT_SHIFT) + (1 << QUANT_SHIFT) / 2)
    colours = levels.astype(np.float32)[None]                       # (1, n, 3) BGR
    if wb is not None:
        colours = wb.apply(colours)
    colours = np.clip(colours, 0, 255)
    chroma, brightness = chromaticity(colours)
    return index, present, counts, colours, chroma, brightness


def label_view(view_bgr: np.ndarray, side_rgbs: Sequence[Sequence[float]], other_rgbs: Sequence[Sequence[float]] = (),
               *, wb=None, mat: np.ndarray | None = None, quantised=None,
               felt_width_px: float | None = None, tables: "ColourTables | None" = None,
               loose_reach: Sequence[float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two (H, W) int maps of which side's colour each pixel of a uint8 BGR view shows (-1: none).

    strict: the nearest of the sides' and the terrain colours (vision.colour.classify, terrain k
    labelled n_sides + k), so that blue water felt is not a blue rim; loose: a side's hue, saturated enough, whatever else is
    near, so that a thin rim blended with a dark body or with the mat, which lies off the segment
    from the mat to its colour, still shows.

    The view is quantised to 6 bits a channel (not smoothed: a thin rim in a 1080p photo is two or
    three pixels wide),
    and only the colours present are white-balanced and classified: a table holds a few tens of
    thousands of distinct colours against a million pixels.

    `felt_width_px`: a patch of a side's colour this wide (a square of it fits inside) is no base:
    felt that the cast moved onto the side's colour, unless plainly paint (_felt_patches).
    `tables`: the labels of the colours earlier views judged the same way showed (ColourTables).
    `loose_reach`: per side, how far from the mat a colour must reach to be the side's on the loose
    labels (MatFlood: where the mat has the side's hue)."""
    quantised = quantised or quantise_view(view_bgr, wb)
    if tables is not None and mat is not None:
        strict, loose = tables.labels(quantised, side_rgbs, other_rgbs, mat, wb, loose_reach)
    else:
        strict, loose = _label_tables(quantised, side_rgbs, other_rgbs, mat, loose_reach)       # by colour code
    if len(side_rgbs) + len(other_rgbs) < 127 and strict.dtype != np.int8:
        # as bytes: a quarter of the memory for every full-view test of them
        strict, loose = strict.astype(np.int8), loose.astype(np.int8)
    strict_px, loose_px = np.take(strict, quantised[0]), np.take(loose, quantised[0])
    if felt_width_px:
        _felt_patches(strict_px, loose_px, quantised, side_rgbs, other_rgbs, mat, felt_width_px)
    return strict_px, loose_px


class ColourTables:
    """label_view's strict and loose labels by colour code, kept between views judged alike (the same
    sides', terrain and mat colours and white balance: a tracked stream's windows, frame after
    frame), so that each view classifies only the colours no earlier one showed. A colour's labels
    are its own alone (vision.colour.classify and the hue test judge each colour by itself): the
    same as judging every colour of the view afresh."""

    KEEP = 4                   # sets of colours kept at once (a pass on the profile's side colours, one on the learned)

    def __init__(self):
        self._by_key: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def labels(self, quantised, side_rgbs, other_rgbs, mat: np.ndarray, wb=None,
               loose_reach: Sequence[float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(strict, loose) tables by colour code for the colours of `quantised` (quantise_view of a
        view white-balanced by `wb`), every colour it shows labelled as _label_tables labels it."""
        key = (tuple(tuple(float(v) for v in c) for c in side_rgbs), tuple(tuple(float(v) for v in c) for c in other_rgbs),
               tuple(loose_reach or ()),
               np.asarray(mat, np.float64).tobytes(),
               None if wb is None else (np.asarray(wb.black_bgr, np.float64).tobytes(), np.asarray(wb.white_bgr, np.float64).tobytes()))
        if key not in self._by_key:
            if len(self._by_key) >= self.KEEP:
                self._by_key.clear()
            dtype = np.int8 if len(side_rgbs) + len(other_rgbs) < 127 else np.int32
            codes = 1 << (3 * (8 - QUANT_SHIFT))
            self._by_key[key] = (np.full(codes, -1, dtype), np.full(codes, -1, dtype), np.zeros(codes, bool))
        strict, loose, known = self._by_key[key]
        _, present, _, colours, chroma, brightness = quantised
        new = ~known[present]
        if new.any():
            codes = present[new]
            strict[codes], loose[codes] = _colour_labels(colours[:, new], chroma[:, new], brightness[:, new],
                                                         side_rgbs, other_rgbs, mat, loose_reach)
            known[codes] = True
        return strict, loose


def _paint_or_felt(chroma, brightness, side_rgb, felt_chroma, side: int, felt_label: int) -> np.ndarray:
    """Label of each colour seen in felt of a hue near a side's: the side's (`side`) where it lies at
    least half way from the felt to the side's colour (the paint of a rim standing in it), else the
    felt's (`felt_label`)."""
    paint = classify(chroma, brightness, [rgb_chroma(side_rgb)], felt_chroma, min_alpha=0.5)[0]
    return np.where(paint == 0, side, felt_label)


def _felt_patches(strict, loose, quantised, side_rgbs, other_rgbs, mat, width_px) -> None:
    """In place: a patch of a side's strict colour that a square `width_px` wide fits inside, and
    all of the side's colour joined to it, is judged again against the felts.

    A blue side and blue water point almost the same way from the mat: a cast that moves the felt
    a little off its own segment puts it nearer the side's, and most of the water is "the blue
    side" (no felt for the water search to look in). No base is that wide: there a colour that
    shows a felt (against the mat, the felts alone) is that felt, unless it lies at least half way
    from the felt to the side's colour (judged against the felt, as felt labelled so is), which
    keeps the paint of a rim standing in it or joined to its edge."""
    n_sides = len(side_rgbs)
    if not other_rgbs:
        return
    index, present, counts, colours, chroma, brightness = quantised
    if mat is None:
        mat = _mat_of(quantised)
    # (looked for at half the resolution: the patch is many bases wide)
    w = max(3, int(round(width_px / 2)))
    square = cv2.getStructuringElement(cv2.MORPH_RECT, (w, w))
    h_px, w_px = strict.shape
    felts = [rgb_chroma(o) for o in other_rgbs]
    for k in range(n_sides):
        mask = (strict[::2, ::2] == k).astype(np.uint8)
        # (the felt's mottling leaves pin holes in the side's colour: closed first, for the core only)
        core = cv2.erode(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), square)
        if not core.any():
            continue
        n, comp, boxes, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        joined = np.zeros(n, np.uint8)
        joined[comp[core > 0]] = 1
        joined[0] = 0
        if not joined.any():        # (the closing alone made the core: pin holes, no patch of the side)
            continue
        box = boxes[joined > 0]
        x0, y0 = box[:, 0].min(), box[:, 1].min()
        bw, bh = (box[:, 0] + box[:, 2]).max() - x0, (box[:, 1] + box[:, 3]).max() - y0
        region = joined[comp[y0:y0 + bh, x0:x0 + bw]]
        region = cv2.resize(region, (2 * bw, 2 * bh), interpolation=cv2.INTER_NEAREST)
        y0, x0 = 2 * y0, 2 * x0
        region = region[:h_px - y0, :w_px - x0]
        sl = np.s_[y0:y0 + region.shape[0], x0:x0 + region.shape[1]]
        lab, idx = strict[sl], index[sl]
        patch = np.flatnonzero((region > 0) & (lab == k))
        patch_codes = idx.ravel()[patch]
        seen = np.zeros(1 << (3 * (8 - QUANT_SHIFT)), bool)
        seen[patch_codes] = True
        codes = np.flatnonzero(seen)
        sub = np.searchsorted(present, codes)
        c, b = chroma[:, sub], brightness[:, sub]
        which = classify(c, b, felts, mat)[0]
        table = np.full(codes.size, k, np.int32)
        for t, felt in enumerate(felts):
            here = which == t
            if here.any():
                table[here] = _paint_or_felt(c[:, here], b[:, here], side_rgbs[k], felt, k, n_sides + t)
        relabel = np.full(1 << (3 * (8 - QUANT_SHIFT)), k, np.int32)
        relabel[codes] = table
        new = relabel[patch_codes]
        felt = new != k
        # (the window's rows are strided in the view: its pixels set by row and column)
        rows, cols = np.divmod(patch[felt], region.shape[1])
        lab[rows, cols] = new[felt]
        loose[sl][rows, cols] = -1


def _label_tables(quantised, side_rgbs, other_rgbs=(), mat=None, loose_reach=None) -> tuple[np.ndarray, np.ndarray]:
    """label_view's strict and loose labels by colour code (quantise_view's index), as two tables."""
    index, present, counts, colours, chroma, brightness = quantised
    bits = 8 - QUANT_SHIFT
    if mat is None:
        mat = _mat_of(quantised)
    strict = np.full(1 << (3 * bits), -1, np.int32)
    loose = np.full(1 << (3 * bits), -1, np.int32)
    strict[present], loose[present] = _colour_labels(colours, chroma, brightness, side_rgbs, other_rgbs, mat,
                                                     loose_reach)
    return strict, loose


def _colour_labels(colours, chroma, brightness, side_rgbs, other_rgbs, mat,
                   loose_reach: Sequence[float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The strict and loose labels of each colour (quantise_view's colours, chroma and brightness of
    the colours present), each judged by itself alone. `loose_reach`: per side, how far a colour
    must reach from the mat towards the side to be the side's on the loose labels (MatFlood)."""
    targets = [rgb_chroma(c) for c in side_rgbs] + [rgb_chroma(c) for c in other_rgbs]
    found = classify(chroma, brightness, targets, mat)[0]
    # A colour well beyond a felt's, on the far side of it from the mat, is more saturated than the
    # felt ever is: a rim painted near that hue (a blue rim seen as "more water than water"), not
    # felt. Judged again against the sides alone.
    n_sides = len(side_rgbs)
    for t, other in enumerate(other_rgbs):
        axis = rgb_chroma(other) - mat
        norm2 = float(axis @ axis)
        here = found == n_sides + t
        if norm2 < 1e-6 or not here.any():
            continue
        alpha = ((chroma[0, here] - mat) @ axis) / norm2
        beyond = np.flatnonzero(here)[alpha > FELT_MAX_ALPHA]
        if len(beyond):
            sub = classify(chroma[:, beyond], brightness[:, beyond], targets[:n_sides], mat)[0]
            found[beyond] = np.where(sub >= 0, sub, n_sides + t)
    # In felt of a colour near a side's (a blue figure standing in blue water), a rim blended with
    # the felt lies between the two: judged against the felt, not the mat.
    for t, other in enumerate(other_rgbs):
        felt = rgb_chroma(other)
        for k, side in enumerate(side_rgbs):
            if np.linalg.norm(felt - rgb_chroma(side)) > FELT_NEAR:
                continue
            here = found == len(side_rgbs) + t
            if here.any():
                found[here] = _paint_or_felt(chroma[:, here], brightness[:, here], side, felt, k, len(side_rgbs) + t)
    # Loose labels leave out what is nearest a terrain colour (textured water felt is full of
    # blue-hued holes), however blue its hue.
    hue = _hue_label(colours[0], side_rgbs)
    for k, least in enumerate(loose_reach or ()):
        if least > 0:
            hue[(hue == k) & (_towards(chroma[0], mat, side_rgbs[k])[0] < least)] = -1
    return found, np.where(found >= len(side_rgbs), -1, hue)


HUE_TOL_DEG = 14.0             # loose labels: a side's hue within this
MIN_SATURATION = 0.4           # and at least this saturated (HSV), and
MIN_VALUE = 50.0               # this bright (of 255), after white balance


def _hue_label(bgr: np.ndarray, side_rgbs) -> np.ndarray:
    """(n,) which side's hue each (n, 3) BGR colour has, -1 for none."""
    hsv = cv2.cvtColor((bgr / 255.0).astype(np.float32)[None], cv2.COLOR_BGR2HSV)[0]
    side_hsv = cv2.cvtColor((np.array([c[::-1] for c in side_rgbs], np.float32) / 255.0)[None], cv2.COLOR_BGR2HSV)[0]
    ok = (hsv[:, 1] >= MIN_SATURATION) & (hsv[:, 2] * 255 >= MIN_VALUE)
    d = np.abs(hsv[:, None, 0] - side_hsv[None, :, 0])
    d = np.minimum(d, 360 - d)
    best = np.argmin(d, axis=1)
    return np.where(ok & (d[np.arange(len(d)), best] <= HUE_TOL_DEG), best, -1).astype(np.int32)


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per column, the median of rows weighted by `weights` (the mat: the commonest colour)."""
    out = np.empty(values.shape[1])
    for c in range(values.shape[1]):
        order = np.argsort(values[:, c])
        cum = np.cumsum(weights[order])
        out[c] = values[order[np.searchsorted(cum, cum[-1] / 2)], c]
    return out


def _towards(chroma: np.ndarray, mat: np.ndarray, rgb) -> tuple[np.ndarray, float]:
    """How far each colour (chroma (n, 3)) lies from the mat towards a side's colour `rgb`, along
    the line from one to the other (chromaticity), and that line's length."""
    axis = rgb_chroma(rgb) - mat
    norm = float(np.linalg.norm(axis))
    return ((chroma - mat) @ axis) / max(norm, 1e-12), norm


def _mat_of(quantised) -> np.ndarray:
    """The mat's chromaticity in a view quantised by quantise_view: its colours' median, weighted by
    how many pixels show each (the mat covers most of a table)."""
    return _weighted_median(quantised[4][0], quantised[2][quantised[1]])


FLOOD_SHARE = 0.1              # a side's hue on this share of the view that is no felt: the mat's own hue (a
                               # red side on a cherry table, a blue one on a blue cloth; rims, dice and cloaks
                               # are a few hundredths at most, felt aside: 0.2-1.7% on 12 hard photos)
FLOOD_REACH = 3.0              # ... then a colour is the side's on the loose labels only this many times as far
FLOOD_LEAST = 0.25             # from the mat towards it as the mat reaches by itself (MAT_SPREAD_Q), and at least
                               # this share of the way; and the likelihood counts only past the mat's own reach
MAT_SPREAD_Q = 0.9             # how far the mat reaches towards a side by itself: this quantile of its pixels


@dataclass(frozen=True)
class MatFlood:
    """Per side, what the mat's own colour leaves of its tests where the mat shows the side's hue
    (mat_flood): how far (chromaticity, along the mat-to-side line) a colour must reach from the
    mat to be the side's on the loose labels, and the least noise floor of its likelihood (a share
    of the way from the mat to the side; the soft and edge passes keep SOFT_NOISE and EDGE_NOISE
    where they are higher). 0: the test as on any other mat."""
    loose_reach: tuple[float, ...]
    noise_floor: tuple[float, ...]
    brightness: float | None = None    # the mat's (vision.rim_search.mat_brightness; None: judged on the view)

    @classmethod
    def none(cls, n_sides: int) -> "MatFlood":
        return cls((0.0,) * n_sides, (0.0,) * n_sides)


def mat_flood(quantised, side_rgbs: Sequence[Sequence[float]], other_rgbs: Sequence[Sequence[float]],
              mat: np.ndarray) -> MatFlood:
    """MatFlood of a whole table's view (quantise_view's): a side whose hue the loose labels find on
    FLOOD_SHARE or more of the pixels that are no felt's colour has the mat's own hue. Its loose
    labels then need a colour to reach past the mat's own spread (FLOOD_REACH times its MAT_SPREAD_Q
    quantile, at least FLOOD_LEAST of the way), and its likelihood counts only past that quantile
    (a cherry table's grain and grid lines step in brightness everywhere: the edge pass would see
    rings in its cells). Other sides' are left as they were. (Judged on the whole table: a window
    round one base is mostly that base.)"""
    _, present, counts, colours, chroma, brightness = quantised
    n_sides = len(side_rgbs)
    strict, loose = _colour_labels(colours, chroma, brightness, side_rgbs, other_rgbs, mat)
    weights = counts[present] * (strict < n_sides)
    total = float(weights.sum())
    reach_out, floor_out = [0.0] * n_sides, [0.0] * n_sides
    for k, rgb in enumerate(side_rgbs):
        if total <= 0 or weights[loose == k].sum() < FLOOD_SHARE * total:
            continue
        reach, norm = _towards(chroma[0], mat, rgb)
        if norm < 1e-6:
            continue
        order = np.argsort(reach)
        cum = np.cumsum(weights[order])
        spread = max(0.0, float(reach[order[np.searchsorted(cum, cum[-1] * MAT_SPREAD_Q)]]))
        reach_out[k] = max(FLOOD_REACH * spread, FLOOD_LEAST * norm)
        floor_out[k] = spread / norm
    return MatFlood(tuple(reach_out), tuple(floor_out), mat_brightness(quantised))


def mat_flood_in_view(view_bgr: np.ndarray, side_rgbs, other_rgbs=(), *, wb=None, mat: np.ndarray | None = None,
                      quantised=None) -> MatFlood:
    """mat_flood of a whole table's view (uint8 BGR; `wb`, `mat`, `quantised` as find_rims takes them)."""
    if quantised is None:
        quantised = quantise_view(view_bgr, wb)
    return mat_flood(quantised, side_rgbs, other_rgbs, mat if mat is not None else _mat_of(quantised))


def seen_felts_in_view(view_bgr: np.ndarray, ppi: float, side_rgbs, other_rgbs=(), *, wb=None,
                       mat: np.ndarray | None = None, quantised=None) -> tuple[tuple[float, ...], ...]:
    """vision.rim_water.seen_felts of a whole table's view (uint8 BGR at `ppi`; `wb`, `mat`,
    `quantised` as find_rims takes them)."""
    if quantised is None:
        quantised = quantise_view(view_bgr, wb)
    return seen_felts(quantised, side_rgbs, other_rgbs, mat if mat is not None else _mat_of(quantised), ppi)


def find_rims(view_bgr: np.ndarray, ppi: float, side_rgbs: Sequence[Sequence[float]], base_in: float = 1.0, *,
              other_rgbs: Sequence[Sequence[float]] = (), mat: np.ndarray | None = None,
              wall_shift_px: Callable[[np.ndarray], np.ndarray] | None = None, wall_height_in: float = 0.0,
              exclude: np.ndarray | None = None, wb=None, frame_scale: Callable[[np.ndarray], np.ndarray] | None = None,
              with_rejected: bool = False, tables: ColourTables | None = None,
              flood: MatFlood | None = None,
              light_at: Callable[[np.ndarray], np.ndarray] | None = None, quantised=None,
              water_felts: Sequence[Sequence[float]] | None = None) -> list[RimHit]:
    """Bases in a top view of the plane of the bases' tops.

    `view_bgr`: the view (uint8 BGR), `wb`: the anchors' white balance (vision.whitebalance), applied
    before any colour is judged. `side_rgbs`: each side's rim colour (RGB, in the white-balanced
    space). `other_rgbs`:
    terrain colours, so that felt is not taken for a rim. `wall_shift_px(centres (N, 2))` -> (N, 2):
    where the bottom of a base centred there shows, relative to its top `wall_height_in` up (towards
    the camera).
    `exclude`: (H, W) bool, pixels that are no base (a hand). `frame_scale(centres (N, 2))` -> (N,):
    frame pixels per view pixel there (vision.rim_refine.held_radius_centres). `tables`: the colours'
    labels kept from earlier views judged alike (ColourTables; the same result, less work). `flood`:
    what the mat's own colour leaves of each side's colour tests (mat_flood of the whole table; None:
    judged on this view, which should then be the whole table). `light_at(centres (N, 2))` -> (N,):
    the light there relative to the anchors' (WhiteBalance.exposure_at; None: the same). `quantised`:
    quantise_view(view_bgr, wb) when the caller has it already. `water_felts`: `other_rgbs` as the
    whole table shows them (seen_felts_in_view), for the water search's labels alone. Returns the
    kept bases (and, with `with_rejected`, every candidate with the reason it was left out)."""
    if not side_rgbs:
        return []
    if quantised is None:
        quantised = quantise_view(view_bgr, wb)
    # (the mat each pass judges colour against; `mat` as given is what learning a colour is told:
    # without one, none is learnt)
    judged_mat = mat if mat is not None else _mat_of(quantised)
    if flood is None:
        flood = mat_flood(quantised, side_rgbs, other_rgbs, judged_mat)
    args = dict(other_rgbs=other_rgbs, mat=judged_mat, wall_shift_px=wall_shift_px, wall_height_in=wall_height_in,
                exclude=exclude, wb=wb, frame_scale=frame_scale,
                quantised=quantised, shared={}, tables=tables, flood=flood, light_at=light_at)
    first, strict, loose = _find_rims_once(view_bgr, ppi, side_rgbs, base_in, with_rejected=with_rejected, **args)
    water = _water_labels(strict, view_bgr, ppi, side_rgbs, base_in, water_felts, **args)
    # The paint on the rims is near the profile's colour, not at it: what the confident rims of
    # this photo show is a better guess for the others (a second pass, from the learned colours).
    learned = learn_side_colours(view_bgr, ppi, base_in, side_rgbs, first, strict, loose, wb=wb, mat=mat,
                                 other_rgbs=other_rgbs)
    if learned is None:
        first = _unlabelled_faint(first, strict, loose, base_in / 2 * ppi, with_rejected)
        return _with_water_rims(first, strict, side_rgbs, base_in / 2 * ppi, wall_shift_px, view_bgr,
                                loose, wall_height_in, with_rejected, water=water)
    # Only the sides whose colour moved are looked at again, and not where a sure rim stands.
    changed = {k for k in range(len(side_rgbs)) if tuple(learned[k]) != tuple(side_rgbs[k])}
    sure = [h for h in first if h.reason == "ring" and h.confidence >= TEACH_CONFIDENCE]
    second, _, _ = _find_rims_once(view_bgr, ppi, learned, base_in, with_rejected=with_rejected, only_sides=changed,
                                   skip_near=np.array([h.xy_view for h in sure]).reshape(-1, 2), **args)
    unchanged = [h for h in first if h.side_index not in changed]
    both = sure + unchanged + second
    hits = _one_per_base(both, base_in / 2 * ppi, strict, loose, wall_shift_px, wall_height_in, with_rejected,
                         view_bgr=view_bgr)
    hits = _unlabelled_faint(hits, strict, loose, base_in / 2 * ppi, with_rejected)
    return _with_water_rims(hits, strict, learned, base_in / 2 * ppi, wall_shift_px, view_bgr,
                            loose, wall_height_in, with_rejected, water=water)


class WaterLabels(NamedTuple):
    """What the water search reads (_water_labels)."""
    strict: np.ndarray                       # the strict labels
    felt_rgbs: Sequence[Sequence[float]]     # the felts' colours they were judged by
    felts: list[list[int]]                   # per side, the labels of the felts it looks in


def _water_labels(strict, view_bgr, ppi, side_rgbs, base_in, water_felts, *, other_rgbs, mat, wb, quantised, tables,
                  flood, exclude, **_) -> WaterLabels:
    """(strict labels, felt colours, felt labels per side) the water search reads: `strict` and the
    profile's felts, or, where the whole table shows a felt of a side's hue off its profile colour
    (`water_felts`, seen_felts_in_view), the view labelled again with the felts as seen; the felts
    it looks in are those the profile names of a side's hue (similar_felts). Only the water search
    reads them: every other test judges a rim by the profile's felts, which the set's own felt,
    moved a little by a cast, fits better (taking the seen felts there lost more dry rims than
    the water gained)."""
    felts = similar_felts(side_rgbs, other_rgbs, len(side_rgbs))
    if water_felts is None or [tuple(map(float, c)) for c in water_felts] == [tuple(map(float, c)) for c in other_rgbs]:
        return WaterLabels(strict, other_rgbs, felts)
    water, _ = label_view(view_bgr, side_rgbs, water_felts, wb=wb, mat=mat, quantised=quantised,
                          felt_width_px=FELT_PATCH_BASES * base_in * ppi, tables=tables,
                          loose_reach=(flood or MatFlood.none(len(side_rgbs))).loose_reach)
    if exclude is not None:
        water[exclude] = -1
    return WaterLabels(water, water_felts, felts)


def _with_water_rims(hits, strict, side_rgbs, r_px, wall_shift_px, view_bgr=None, loose=None,
                     wall_height_in: float = 0.0, with_rejected: bool = False, *, water: WaterLabels) -> list[RimHit]:
    """`hits` and the bases standing in felt of their own side's hue that no ring found
    (vision.rim_water: there the ring test cannot tell the rim from the felt). `water`: the labels
    and felt colours that search reads (_water_labels)."""
    rings = [h for h in hits if h.reason == "ring"]
    found = np.array([h.xy_view for h in rings], np.float64).reshape(-1, 2)
    seen = [(RimHit(xy, k, round(conf, 3), round(cov, 3), round(res, 2), 0.0, 0.0, "ring", by_water=True), why)
            for xy, k, conf, cov, res, why in water_candidates(
                water.strict, len(side_rgbs), side_rgbs, water.felt_rgbs, r_px, found, wall_shift_px=wall_shift_px,
                view_bgr=view_bgr, found_sides=np.array([h.side_index for h in rings], int), felts=water.felts)]
    extra = [h for h, why in seen if why == "ring"]
    contested = [h for h, why in seen if why != "ring"]
    if contested:
        # A base the water search sees where the ring test found a ring: which stands on the
        # other's body is told by the camera, as between two rings (rim_vetting.on_a_surer_body).
        # The rings only the water search's base puts on a body are that figure's body, and it
        # takes their place.
        hits, rings, extra = _contested(hits, rings, extra, contested, r_px, strict, wall_shift_px, wall_height_in,
                                        with_rejected)
    if extra and loose is not None:
        # What is not felt in the felt is a base's middle or a figure's body: a find behind a surer
        # ring, within its figure's reach, with no rim on its near side, is that body, as a ring
        # there is (rim_vetting.on_a_surer_body)
        vetted = on_a_surer_body(rings + extra, r_px, strict, loose, wall_shift_px, wall_height_in,
                                 VISION_DEFAULTS["figure_height_in"])
        extra = [h for h in vetted[len(rings):] if h.reason == "ring"]
    return hits + extra


def _contested(hits, rings, extra, contested, r_px, strict, wall_shift_px, wall_height_in, with_rejected):
    """(hits, rings, extra) with the rings that only a contested water base (`contested`: bases
    the water search saw within OVERLAP of a ring) puts up on its body left out (named so with
    `with_rejected`'s hits) and those water bases in `extra`, one a base, where no other ring stands.

    Up on a body is judged as between two rings (rim_vetting.on_a_surer_body: less sure, a radius
    or more behind, within the body's reach) but by the camera alone: in felt of the side's hue the
    ring's near arc shows the side's colour whatever it stands on (the felt on the loose labels, the
    water base's own rim on the strict ones), so it cannot tell. (On 60 hard photos of each of
    seeds 0, 7, 3, the water bases seen within OVERLAP of a ring and 0.2-0.8 in off stood behind
    that ring or beside it, none a radius in front of it.)"""
    height = VISION_DEFAULTS["figure_height_in"]
    blank = np.broadcast_to(np.array(-1, strict.dtype), strict.shape)   # no colour anywhere: the camera alone judges
    alone = on_a_surer_body(rings, r_px, blank, blank, wall_shift_px, wall_height_in, height)
    both = on_a_surer_body(rings + contested, r_px, blank, blank, wall_shift_px, wall_height_in, height)
    off = {i for i in range(len(rings)) if alone[i].reason == "ring" and both[i].reason != "ring"}
    if not off:
        return hits, rings, extra
    kept = [h for i, h in enumerate(rings) if i not in off]
    taken = [h.xy_view for h in kept + extra]
    for h in sorted(contested, key=lambda h: -h.confidence):
        if all(np.hypot(*(h.xy_view - q)) >= OVERLAP * r_px for q in taken):
            extra = extra + [h]
            taken.append(h.xy_view)
    gone = {id(rings[i]): both[i] for i in off}
    hits = [gone.get(id(h), h) for h in hits if with_rejected or id(h) not in gone]
    return hits, kept, extra


FELT_EDGE_ON_ARC = 0.5         # felt of the side's hue beyond this share of a faint ring's arc, or more ...
FELT_EDGE_OFF_ARC = 0.25       # ... and beyond this share of its other rays, or less ...
FELT_EDGE_MAX_COVERAGE = 0.35  # ... the arc this share of the circle or less, no other side's colour round it:
                               # the curve of a felt's edge (a bay of its ragged edge follows a base's circle
                               # a third of the way at most, with nothing but the felt and the mat round it)
TEACH_CONFIDENCE = 0.5         # rims this confident teach their side's colour to the second pass
LABELLED_RAYS = 0.05           # a ring's side labels show it on this share of its rays (0.8-1.2 radii) or more ...
LABELLED_SURE = 3              # ... on every sure ring of its side, at least this many: then a faint ring only
                               # the likelihood found, with its labels on none, is the mat's texture, not paint
TEACH_MIN_RIMS = 1
TEACH_MAX_SHIFT = 0.08         # the learned colour stays this near the profile's (chromaticity)
TEACH_MIN_REACH = 0.9          # and at least this share of the profile's distance from the mat and
                               # from each felt's colour (it may not drift onto either)
# (Under tungsten a 1080p rim's paint shows paler after the white balance, a blue one about a third of
# the way from the mat to the profile's colour; the rims' least blended half is paler too, and nearer
# the water's felt: that test refuses it even where the others would not. Letting the learned colour
# follow it, 0.25 and 0.5 for these two, made the mat a rim: on 60 hard photos of seeds 0/7/3/11, rims
# 580/583/576/564 -> 580/578/574/572, phantoms 5/7/7/9 -> 60/21/48/22, most of them red on a warm mat.
# Only for a side whose channel the white balance raised most (blue under tungsten), the felt's test at
# 0.5 too: rims +8, phantoms +4, p95 0.088/0.081 -> 0.095/0.090 on seeds 3/11.)


def learn_side_colours(view_bgr, ppi, base_in, side_rgbs, hits, strict, loose, *, wb=None, mat=None,
                       other_rgbs=()) -> list[tuple[float, float, float]] | None:
    """Each side's rim colour (RGB, white-balanced) as the confident rims in this view show it, or
    None when no side's colour moves. A side without a confident rim, or whose rims' colour strays
    from the profile's (towards the mat, a felt, another colour), keeps the profile's."""
    r_px = base_in / 2 * ppi
    h, w = view_bgr.shape[:2]
    out, moved = [], False
    for k, rgb in enumerate(side_rgbs):
        prof = rgb_chroma(rgb)
        rims = [x for x in hits if x.side_index == k and x.reason == "ring" and x.confidence >= TEACH_CONFIDENCE]
        if len(rims) < TEACH_MIN_RIMS or mat is None:
            out.append(tuple(rgb))
            continue
        pix = []
        for x in rims:
            cx, cy = x.xy_view
            x0, x1 = max(0, int(cx - 1.3 * r_px)), min(w, int(cx + 1.3 * r_px) + 1)
            y0, y1 = max(0, int(cy - 1.3 * r_px)), min(h, int(cy + 1.3 * r_px) + 1)
            if x1 <= x0 or y1 <= y0:
                continue
            yy, xx = np.mgrid[y0:y1, x0:x1]
            d = np.hypot(xx - cx, yy - cy) / r_px
            on = (d >= 0.7) & (d <= 1.2) & ((strict[y0:y1, x0:x1] == k) | (loose[y0:y1, x0:x1] == k))
            pix.append(view_bgr[y0:y1, x0:x1][on])
        pix = np.concatenate(pix) if pix else np.empty((0, 3))
        if len(pix) < 8:
            out.append(tuple(rgb))
            continue
        colours = pix.astype(np.float32)[None]
        if wb is not None:
            colours = wb.apply(colours)
        chroma, _ = chromaticity(np.clip(colours, 0, 255))
        chroma = chroma[0]
        reach = np.linalg.norm(chroma - mat, axis=1)
        pure = chroma[reach >= np.percentile(reach, 50)]          # the least blended half
        learned = np.median(pure, axis=0)
        learned = learned / learned.sum()
        near_felt = any(np.linalg.norm(learned - rgb_chroma(o)) < TEACH_MIN_REACH * np.linalg.norm(prof - rgb_chroma(o))
                        for o in other_rgbs)
        if (np.linalg.norm(learned - prof) > TEACH_MAX_SHIFT or near_felt
                or np.linalg.norm(learned - mat) < TEACH_MIN_REACH * np.linalg.norm(prof - mat)):
            out.append(tuple(rgb))
            continue
        if np.linalg.norm(learned - prof) > 0.01:
            moved = True
        bgr = learned * float(np.sum(rgb))
        out.append((float(bgr[2]), float(bgr[1]), float(bgr[0])))
    return out if moved else None


def _labelled_share(strict: np.ndarray, loose: np.ndarray, hits: Sequence[RimHit], r_px: float) -> np.ndarray:
    """(N,) each ring's share of rays on which its side's labels (strict or loose) show in its rim's
    band, 0.8-1.2 radii out (nearest pixels along the rays)."""
    if not hits:
        return np.zeros(0)
    radii = np.arange(0.8 * r_px, 1.2 * r_px + 1e-6, 0.5)
    x, y, _ = ray_pixels(np.array([h.xy_view for h in hits], np.float64), ray_units(), radii, strict.shape)
    side = np.array([h.side_index for h in hits])[:, None, None]
    shows = (strict[y, x] == side) | (loose[y, x] == side)
    return shows.any(axis=2).mean(axis=1)


def _unlabelled_faint(hits: list[RimHit], strict: np.ndarray, loose: np.ndarray, r_px: float,
                      with_rejected: bool = False) -> list[RimHit]:
    """`hits` less each faint ring (less sure than TEACH_CONFIDENCE) found on the likelihood alone whose
    side's labels show on none of its rays (LABELLED_RAYS) while they show on every sure ring of that
    side in this view, LABELLED_SURE or more (`with_rejected`: kept, with the reason "the mat's
    texture"): where the labels see this photo's paint on every clear rim, a ring they see nothing
    of is a trace of the hue in the mat (a red streak in wood under a tungsten lamp). Where the
    labels miss some clear rims of a side (a pale blue under tungsten at 1080p) nothing is asked of
    its faint ones."""
    rings = [h for h in hits if h.reason == "ring" and not h.by_water]
    if not rings:
        return hits
    share = dict(zip(map(id, rings), _labelled_share(strict, loose, rings, r_px)))
    asked = set()
    for k in {h.side_index for h in rings}:
        sure = [share[id(h)] for h in rings if h.side_index == k and h.confidence >= TEACH_CONFIDENCE]
        if len(sure) >= LABELLED_SURE and min(sure) >= LABELLED_RAYS:
            asked.add(k)
    out = []
    for h in hits:
        if (h.side_index in asked and id(h) in share and h.by_likelihood and h.confidence < TEACH_CONFIDENCE
                and share[id(h)] < LABELLED_RAYS):
            h = dataclasses.replace(h, reason=f"the mat's texture: a faint ring only the likelihood finds, its side's "
                                              f"labels on {share[id(h)]:.2f} of its rays, where they show on every "
                                              f"sure ring of its side")
            if not with_rejected:
                continue
        out.append(h)
    return out


def _find_rims_once(view_bgr, ppi, side_rgbs, base_in, *, mat, quantised, other_rgbs=(), wall_shift_px=None,
                    wall_height_in=0.0, exclude=None, wb=None, with_rejected=False, only_sides=None, skip_near=None,
                    frame_scale=None, shared=None, tables=None, flood=None, light_at=None):
    """One pass of find_rims with the given side colours: (hits, strict labels, loose labels).
    `shared`: what the passes over one view share (vision.rim_search.quantised_likelihoods').
    `flood`: find_rims' (MatFlood, by side index: the learned colours' pass keeps the profile's).
    `mat`: the mat's chromaticity colours are judged against (find_rims': the one given, or the view's);
    `quantised`: the view's quantise_view."""
    flood = flood or MatFlood.none(len(side_rgbs))
    strict, loose = label_view(view_bgr, side_rgbs, other_rgbs, wb=wb, mat=mat, quantised=quantised,
                               felt_width_px=FELT_PATCH_BASES * base_in * ppi, tables=tables,
                               loose_reach=flood.loose_reach)
    if exclude is not None:
        strict[exclude] = -1
        loose[exclude] = -1
    r_px = base_in / 2 * ppi
    units = ray_units()
    radii = np.arange(0.0, 2.0 * r_px + 6, STEP_PX)
    hits: list[RimHit] = []
    # Every candidate is measured on its own side's map (labels as 0/1, or the likelihood): one
    # vectorised fit for all of them.
    h, w = strict.shape
    masks, c0s, sides, kinds, faints = [], [], [], [], []
    n_sides = len(side_rgbs)
    # The soft pass: each side's likelihood, for rims too thin or pale for either label.
    # (the noise taken off: a body's brown is a little red) The edge pass: at 1080p a rim is a
    # chroma pixel or two wide and the JPEG keeps little of its colour (benchmarks/accuracy_vision.py
    # --full-colour-jpeg), but its edges are steps of the brightness, kept at full resolution: there
    # a paler colour counts (a lower noise floor). The likelihood is judged once, above the lower
    # floor; the soft pass's is the same less the difference (the felt's blend only lowers a pixel's
    # likelihood, so one at or below the higher floor is 0 either way).
    # (a mat of the side's own hue: both floors at least as far as it reaches by itself, MatFlood)
    floor = np.asarray(flood.noise_floor, np.float32)
    edge_noise, soft_noise = np.maximum(EDGE_NOISE, floor), np.maximum(SOFT_NOISE, floor)
    low = quantised_likelihoods(quantised, ppi, side_rgbs, mat, other_rgbs, noise=edge_noise, sides=only_sides,
                                shared=shared)
    if exclude is not None:
        np.copyto(low, 0.0, where=exclude)      # (a boolean index over both sides is slow)
    fade_past_blends(low, quantised, ppi, side_rgbs,
                     flood.brightness if flood.brightness is not None else mat_brightness(quantised), shared)
    likelihood = np.maximum(low - (soft_noise - edge_noise)[:, None, None], np.float32(0.0))
    on_edges = _on_edges(view_bgr, low, r_px)
    # (not in or at the edge of a patch of the side's colour as wide as most of a base: the edge pass
    # sees a filled patch by its outline, and a book cover's title steps with its colour all round)
    wide = np.ones((int(EDGE_PATCH * 2 * r_px) | 1,) * 2, np.uint8)
    for k in range(n_sides):
        patch = cv2.morphologyEx(cv2.compare(strict, k, cv2.CMP_EQ), cv2.MORPH_OPEN, wide)
        if patch.any():
            np.copyto(on_edges[k], 0.0, where=cv2.dilate(patch, np.ones((EDGE_CLEAR_PX, EDGE_CLEAR_PX), np.uint8)) > 0)
    passes = [(PASS_STRICT, strict), (PASS_LOOSE, loose), (PASS_SOFT, likelihood), (PASS_SOFT, on_edges)]
    for kind, label in passes:
        for k in range(len(side_rgbs)):
            if only_sides is not None and k not in only_sides:
                continue
            if kind == PASS_SOFT:
                mask = label[k]
                if float(mask.sum()) < FAINT_SOFT_RING_PX2 * r_px * r_px:
                    continue
                c, ring = _candidates(mask, r_px, FAINT_SOFT_RING_PX2, with_ring=True)
                faint = ring < SOFT_RING_PX2
            else:
                on = cv2.compare(label, k, cv2.CMP_EQ)   # 0/255 bytes, as _candidates counts them
                if cv2.countNonZero(on) < MIN_RING_PX2 * r_px * r_px:
                    continue
                c = _candidates(on, r_px)
                faint = np.zeros(len(c), bool)
                mask = on
            if skip_near is not None and len(skip_near) and len(c):
                d = np.hypot(c[:, None, 0] - skip_near[None, :, 0], c[:, None, 1] - skip_near[None, :, 1])
                far = d.min(1) > 1.5 * r_px
                c, faint = c[far], faint[far]
            if not len(c):
                continue
            masks.append(mask if kind == PASS_SOFT else cv2.LUT(mask, _ONE_AT_255))   # 0/1 float32, as the rays want it
            c0s.append(c)
            faints.append(faint)
            sides.append(np.full(len(c), k))
            kinds.append(np.full(len(c), kind))
    if not masks:
        return [], strict, loose
    side_of = np.concatenate(sides)
    kind_of = np.concatenate(kinds)
    faint_of = np.concatenate(faints)
    c0 = np.concatenate(c0s)
    slot_of = np.concatenate([np.full(len(c), m) for m, c in enumerate(c0s)])
    mask_f = Slots(masks, slot_of)
    # A likelihood is judged against the rim's own strength: scaled so that half its peak near
    # the candidate's ring (the brightest tenth of that band) is the edge, as 0.5 is for a label.
    gain = np.ones(len(c0))
    soft = kind_of == PASS_SOFT
    pale_of = np.zeros(len(c0), bool)
    if soft.any():
        band = (radii >= 0.5 * r_px) & (radii <= 1.2 * r_px)
        near = sample_rays(mask_f[soft], c0[soft], radii[band], units)
        peak = np.percentile(near.reshape(int(soft.sum()), -1), 90, axis=1)
        gain[soft] = 1.0 / np.maximum(peak, SOFT_FLOOR - SOFT_NOISE)
        # a faint candidate whose colour peaks lower than a rim's is pale: it may be a base, but it
        # makes no other side's ring cloth and gives way to any ring it overlaps (a grey body's
        # trace of blue over a red base's painted top, scaled up by the gain, is a perfect ring)
        pale_of[soft] = peak < SOFT_FLOOR - SOFT_NOISE
        pale_of &= faint_of

    def shift_at(c: np.ndarray) -> np.ndarray:
        return np.zeros_like(c) if wall_shift_px is None else np.asarray(wall_shift_px(c), np.float64)

    shift0 = shift_at(c0)
    # (_ring_stats samples the rays only over the radii its tests read)
    # First from the candidate (which may sit off-centre, towards the visible arc), on half the
    # rays and samples: what shows too little ring even so is measured no further. Then again from
    # the fitted centre with the tighter band, in full.
    kept0, c1, _, _, _, _ = _ring_stats(mask_f, c0, r_px, shift0, units[::2], radii[::2], 0.3, 1.45, gain,
                                              min_valid=COARSE_COVERAGE * MIN_COVERAGE, measures=False)
    moved = np.hypot(*(c1 - c0).T)
    live = (kept0.mean(1) >= COARSE_COVERAGE * MIN_COVERAGE) & (moved <= 0.9 * r_px) & np.isfinite(c1).all(1)
    c0, gain, shift0 = c0[live], gain[live], shift0[live]
    side_of, kind_of, faint_of, pale_of = side_of[live], kind_of[live], faint_of[live], pale_of[live]
    mask_f = mask_f[live]
    if not len(c0):
        return [], strict, loose
    _, c1, _, _, _, _ = _ring_stats(mask_f, c0, r_px, shift0, units, radii, 0.3, 1.45, gain,
                                          measures=False)
    moved = np.hypot(*(c1 - c0).T)
    shift1 = shift_at(c1)
    radii = reach(radii, 1.8 * r_px + max_wall(shift1, units) + 2.0)
    kept, c2, residual, clean, free_r, fit_r = _ring_stats(mask_f, c1, r_px, shift1, units, radii, 0.55, 1.25, gain,
                                                           labelled=kind_of != PASS_SOFT)
    max_res = max(1.2, MAX_RESIDUAL * r_px)
    coverage = kept.mean(1)
    arc = longest_arc(kept)
    failed = _failed_shape_test(c2, moved, coverage, arc, clean, residual, r_px, max_res)
    # At 1080p a rim is a chroma pixel wide: its colour blurs into the body beside it, whose rays
    # then meet the colour off the circle (cluttered). The brightness, kept at full resolution,
    # shows the paint's edge: where it runs on the base's circle all along the colour's arc, the
    # ring is judged as just clean (MIN_CLEAN: no surer than a ring that passes the test itself; its
    # confidence alone must keep it; measured only for a ring that, so judged, could be sure enough).
    luma_clean = np.zeros(len(c2), bool)
    ask = np.flatnonzero((failed == 4) & (residual <= max_res)
                         & (_shape_confidence(coverage, MIN_CLEAN, residual, 0.0, max_res) >= MIN_CONFIDENCE))
    if len(ask) and view_bgr is not None:
        luma_clean[ask] = outline_on_arc(view_bgr, c2[ask], shift_at(c2[ask]), units, r_px, kept[ask]) >= OUTLINED_ARC
    failed[luma_clean] = 0
    # (a rim the shape tests leave out, the body hiding most of it, still tells the cloth test where
    # a figure stands: vet_hits' left_out_rims, as the candidates themselves do with_rejected)
    cut = np.flatnonzero((failed != 0) & np.isfinite(c2).all(1)) if not with_rejected else np.zeros(0, int)
    left_out_rims = [(c2[i].copy(), int(side_of[i])) for i in cut if not pale_of[i]]   # (a pale ring makes no cloth)
    if not with_rejected:
        # What fails a shape test is no ring whatever its other measures: only the rest are
        # measured further (a tenth of the candidates, or less).
        shaped = failed == 0
        c0, c2, moved, kept, residual, clean, free_r, fit_r, failed, luma_clean = (
            a[shaped] for a in (c0, c2, moved, kept, residual, clean, free_r, fit_r, failed, luma_clean))
        coverage, arc, gain, shift1 = coverage[shaped], arc[shaped], gain[shaped], shift1[shaped]
        side_of, kind_of, faint_of, pale_of = side_of[shaped], kind_of[shaped], faint_of[shaped], pale_of[shaped]
        mask_f = mask_f[shaped]
    # The shape measures, from the final centre.
    samples = gained(sample_rays(mask_f, c2, radii, units), gain)
    wall = np.maximum(0.0, shift1 @ units.T)
    rr = radii[None, None, :]
    # Along the rays where the rim shows, the colour stops before the middle (the footing and the
    # body stand there): seen from beside a die or a mug's wall, it does not.
    near = (rr >= 0.1 * r_px) & (rr <= 0.4 * r_px)
    along = (samples * near).sum(2) / max(int(near.sum()), 1)             # (N, K)
    hollow = 1 - (along * kept).sum(1) / np.maximum(kept.sum(1), 1)
    inner_band = np.broadcast_to(rr <= 0.45 * r_px, samples.shape)
    inner = (samples * inner_band).sum((1, 2)) / np.maximum(inner_band.sum((1, 2)), 1)
    outer_band = (rr >= 1.35 * r_px + wall[..., None]) & (rr <= 1.8 * r_px + wall[..., None])
    outer = (samples * outer_band).sum((1, 2)) / np.maximum(outer_band.sum((1, 2)), 1)
    # Cloth of one side's colour on the body of a figure of the other: from above, a ring of
    # nearly the base's size, standing inside (a little off) the real rim of the other colour.
    around = (rr >= 0.9 * r_px) & (rr <= 1.6 * r_px + wall[..., None])
    other_s = sample_rays(_other_colour(strict, loose, c2, side_of, n_sides, radii[-1]), c2, radii, units) >= 0.5
    other_near = (other_s & around).any(2).mean(1)
    # A base whose whole top is painted is a disc of the colour with the body standing in it: along
    # the rim's rays the colour runs on inward up to the body, but where the feet stand (the core)
    # the body shows, not the colour; a die, or a blob of cloth, is the colour right through its
    # core. Only a disc alone on the mat is judged so: with another side's colour round it, a
    # crescent of cloak over that side's rim looks just the same, and on felt the colour in its
    # middle may be the felt's (its hue, or its mottling, or its blend with the mat at its edge).
    core_along = samples[:, :, radii <= CORE * r_px].mean(2)              # (N, K)
    core = core_along.mean(1)
    # (and on the rays where the rim shows, the colour stops short of the core: an arc's mirror
    # fit, centred just past the disc's edge, has the disc's colour running right up to it there)
    core = np.maximum(core, (core_along * kept).sum(1) / np.maximum(kept.sum(1), 1))
    felts = similar_felts(side_rgbs, other_rgbs, n_sides)
    near_hue, any_felt, felt_rays = _felt_round(strict, c2, side_of, felts, n_sides, r_px, units)
    # A curve of a felt's edge, the mat in its bay: felt of the side's hue lies beyond the arc where
    # the colour shows and the mat beyond the rest. A base in the felt has the felt all round it.
    felt_beyond = felt_rays >= 0.5
    felt_on_arc = (felt_beyond & kept).sum(1) / np.maximum(kept.sum(1), 1)
    felt_off_arc = (felt_beyond & ~kept).sum(1) / np.maximum((~kept).sum(1), 1)
    felt_edge = ((felt_on_arc >= FELT_EDGE_ON_ARC) & (felt_off_arc <= FELT_EDGE_OFF_ARC)
                 & (coverage <= FELT_EDGE_MAX_COVERAGE) & (other_near == 0))
    alone = (other_near == 0) & (near_hue == 0) & (any_felt < FELT_AROUND)
    ring_filled = np.maximum(inner, 1 - hollow)
    strong = is_strong(coverage, clean, residual, max_res)
    shown = np.minimum(1.0, coverage / SEEN_FULL)      # how whole the ring shows, for the confidence
    shape = _shape_confidence(coverage, np.where(luma_clean, np.maximum(clean, MIN_CLEAN), clean), residual, outer,
                              max_res)

    def confidence(fill):
        return shape * (1 - np.where(strong, 0.0, fill))

    # The ring's model first; the disc's takes in (its measures and confidence) only a disc alone on
    # the mat the ring's model finds too weak: every ring the ring's model keeps stays as it was.
    disc = alone & (confidence(ring_filled) < MIN_CONFIDENCE)
    filled = np.where(disc, np.minimum(ring_filled, core), ring_filled)
    hollow = np.where(disc, np.maximum(hollow, 1 - core), hollow)
    conf = confidence(filled)
    # (a ring judged clean by its outline that is not sure enough is cluttered, as it was: no other rule keeps it)
    failed[luma_clean & (conf < MIN_CONFIDENCE)] = 4
    # A short arc whose missing part its body stands over (the ground in front of it clear, no other
    # side's colour round it: not cloth up on a figure of the other side) is hidden there, not
    # missing: it is kept when, a share of that part counted as seen, it would be sure enough. Its
    # confidence stays what it shows, so that it outranks no ring seen whole and pulls no centre.
    # (measured only for the rings it may keep: those otherwise too weak)
    covered, front = np.zeros(len(c0)), np.ones(len(c0))
    ask = np.flatnonzero((failed == 0) & (conf < MIN_CONFIDENCE) & (other_near == 0))
    if len(ask):
        covered[ask], front[ask] = _body_cover(view_bgr, c2[ask], kept[ask], r_px, shift_at(c2[ask]))
    hidden = (covered >= MIN_COVERED) & (front <= MAX_FRONT)      # (covered is 0 where not asked)
    seen = np.minimum(SEEN_FULL, coverage + HIDDEN_SEEN * covered * (1 - coverage))
    kept_hidden = hidden & (conf * np.minimum(1.0, seen / SEEN_FULL) / np.maximum(shown, 1e-9) >= MIN_CONFIDENCE)
    # A ring the colour finds too weak is kept when two cues that are not the colour agree that a
    # base stands there: its arc faces the camera (its body hides the rest) and the brightness shows
    # the outline of a disc of the base's size round it (vision.rim_outline).
    weak = np.flatnonzero((failed == 0) & (conf < MIN_CONFIDENCE) & ~kept_hidden)
    if len(weak) and wall_shift_px is not None and view_bgr is not None:
        weak = weak[faces_camera(kept[weak], units, shift_at(c2[weak]), FACING_COS, FACING_LENGTH)]
        if len(weak):
            # (and the ground in front of it clear: not cloth up on a body whose base, of another
            # side, shows in front of it: _body_cover; measured above where no other side's colour
            # is round it)
            fresh = weak[other_near[weak] != 0]
            if len(fresh):
                _, front[fresh] = _body_cover(view_bgr, c2[fresh], kept[fresh], r_px, shift_at(c2[fresh]))
            weak = weak[front[weak] <= MAX_FRONT]
        if len(weak):
            outlined = outline_of_base_size(view_bgr, c2[weak], shift_at(c2[weak]), units, r_px, kept[weak],
                                            OUTLINE_LEAST, OUTLINE_ON_ARC)
            kept_hidden[weak[outlined]] = True
    # (paper white is asked only of the rings every other test keeps)
    paper = np.zeros(len(c0), bool)
    ask = np.flatnonzero((failed == 0) & ((conf >= MIN_CONFIDENCE) | kept_hidden))
    if len(ask):
        paper[ask] = _as_white_as_paper(quantised, wb, c2[ask], samples[ask], radii, units, r_px, side_of[ask],
                                        side_rgbs, light_at)
    # (and a die's pips of the rings left: rim_dice)
    pips = np.zeros(len(c0), int)
    ask = ask[~paper[ask]]
    if len(ask) and view_bgr is not None:
        pips[ask] = pip_counts(view_bgr, c2[ask], side_of[ask], side_rgbs, r_px, ppi,
                               balance=_balancer(wb, light_at))
    candidates = []
    for i in range(len(c0)):
        reason = ("ring", "no circle of the base's size", f"too little ring ({coverage[i]:.2f} of it)",
                  f"bits of arcs, not one rim ({arc[i]:.2f} of the ring in one piece)",
                  f"cluttered, not a clean rim ({clean[i]:.2f} of the rays)",
                  f"not round ({residual[i]:.1f} px off a circle of the base's size)")[failed[i]]
        hit = RimHit(c2[i].copy(), int(side_of[i]), float(conf[i]), float(coverage[i]), float(residual[i]),
                     float(filled[i]), float(outer[i]), reason, bool(kind_of[i] == PASS_LOOSE), float(fit_r[i] / r_px),
                     float(clean[i]), float(other_near[i]), float(free_r[i] / r_px), float(inner[i]),
                     float(hollow[i]), bool(kind_of[i] == PASS_SOFT), float(core[i]), float(covered[i]), float(front[i]),
                     faint=bool(faint_of[i]), pale=bool(pale_of[i]))
        if reason == "ring" and (conf[i] < MIN_CONFIDENCE and not kept_hidden[i]
                                 or faint_of[i] and conf[i] < FAINT_MIN_CONFIDENCE):
            hit = dataclasses.replace(hit, reason=f"{TOO_WEAK} (confidence {conf[i]:.2f})")
        elif reason == "ring" and felt_edge[i] and conf[i] < TEACH_CONFIDENCE:
            hit = dataclasses.replace(hit, reason=f"the curve of a felt's edge: felt of its hue beyond "
                                                  f"{felt_on_arc[i]:.2f} of its arc, the mat beyond the rest")
        elif reason == "ring" and paper[i]:
            hit = dataclasses.replace(hit, reason="as white as paper where its colour shows: a page, a white mug or "
                                                  "a lit hand with a trace of the side's hue, not paint")
        elif reason == "ring" and pips[i] >= MIN_PIPS:
            hit = dataclasses.replace(hit, reason=f"a die: {pips[i]} white pips on its top, each ringed by the "
                                                  f"side's colour")
        candidates.append(hit)
    vetted = vet_hits(candidates, strict=strict, loose=loose, r_px=r_px, max_residual_px=max_res,
                      n_sides=n_sides, wall_shift_px=wall_shift_px, wall_height_in=wall_height_in,
                      view_bgr=view_bgr, similar_felt=felts, left_out_rims=left_out_rims)
    # The kept rings' centres from the circle of the base's radius most of their edge points lie on.
    rings = np.array([i for i, hh in enumerate(vetted) if hh.reason == "ring"], int)
    if len(rings):
        # (each ring's inputs made once, for whichever of the two fits places it)
        at, shift = c2[rings], shift_at(c2[rings])
        fine = frame_scale(at) >= FINE_SCALE if frame_scale is not None else np.zeros(len(rings), bool)
        kinds = side_of[rings] * (PASS_SOFT + 1) + kind_of[rings]
        # In felt of a hue near the rim's (a blue base in water) the colour's edge is as much the
        # felt's mottling as the rim: no one arc of it to trust over the fit of them all (_in_felt_centres).
        in_felt = near_hue[rings] >= FELT_AROUND
        refined, agree = np.empty((len(rings), 2)), np.zeros((len(rings), len(units)), bool)
        if in_felt.any():
            sel, f = rings[in_felt], in_felt
            over_felt = rim_over_felt(view_bgr, at[f], r_px, [side_rgbs[int(k)] for k in side_of[sel]], wb)
            refined[f], agree[f] = _in_felt_centres(mask_f[sel], gain[sel], over_felt, at[f], shift[f], r_px, units,
                                                    radii, kinds[f], fine[f])
        if not in_felt.all():
            sel, f = rings[~in_felt], ~in_felt
            refined[f], agree[f] = _refined_centres(mask_f[sel], gain[sel], at[f], shift[f], r_px, units, radii,
                                                    kinds[f], fine[f])
        # Then all moved at once towards the circle the brightness's step at their rims' edge runs
        # along, on the rays whose colour edge agrees with their circle (rim_refine.brightness_centres):
        # in felt of the rim's hue the step is trusted more, the colour's edge being as much the felt's.
        refined = brightness_centres(view_bgr, refined, shift, units, agree, r_px, in_felt)
        for j, i in enumerate(rings):
            vetted[i] = dataclasses.replace(vetted[i], xy_view=refined[j])
    for hit in vetted:
        if hit.reason == "ring" or with_rejected:
            hits.append(_rounded(hit))
    # (a ring of a base's shape too weak to keep, its body hiding most of its rim, still tells where a
    # figure stands whose body a ring behind it may be on: on_a_surer_body)
    # (failed == 0: the shape tests fail a centre that is not finite)
    faint = np.flatnonzero((failed == 0) & (conf < MIN_CONFIDENCE) & ~kept_hidden)
    return (_one_per_base(hits, r_px, strict, loose, wall_shift_px, wall_height_in, with_rejected, c2[faint], view_bgr),
            strict, loose)


def _as_white_as_paper(quantised, wb, centres: np.ndarray, samples: np.ndarray, radii: np.ndarray, units: np.ndarray,
                       r_px: float, sides: np.ndarray, side_rgbs, light_at) -> np.ndarray:
    """(N,) bool: the ring's colour, where it shows on its rim (its map's `samples` (N, K, R) along the
    rays, 0.8-1.15 radii out), is as bright as paper: its white-balanced brightness (its darker
    quarter, PAPER_QUANTILE, over the light at its centre, `light_at`) lies more than PAPER_SHARE of
    the way from its side's paint to the anchors' white card. A side's dye takes some of the light,
    so its paint is darker than white card in the same light; a page, a white mug or a lit hand the
    likelihood finds a trace of blue on (a page is white-balanced a little blue under a warm lamp)
    is not. Without the anchors' white balance, nothing is."""
    out = np.zeros(len(centres), bool)
    if wb is None or not len(centres):
        return out
    index, present, _counts, _colours, _chroma, brightness = quantised
    band = (radii >= 0.8 * r_px) & (radii <= 1.15 * r_px)
    x, y, inside = ray_pixels(centres, units, radii[band], index.shape)
    shows = (samples[:, :, band] >= 0.5) & inside
    if not shows.any():
        return out
    bright = brightness.reshape(-1)[np.searchsorted(present, index[y[shows], x[shows]])] / np.float32(3 * WHITE)
    which = np.broadcast_to(np.arange(len(centres))[:, None, None], shows.shape)[shows]
    light = np.asarray(light_at(centres), np.float64) if light_at is not None else np.ones(len(centres))
    paint = np.array([sum(side_rgbs[int(k)]) / (3 * WHITE) for k in sides], np.float64)
    limit = paint + PAPER_SHARE * np.maximum(0.0, 1.0 - paint)
    for i in np.unique(which):
        out[i] = float(np.quantile(bright[which == i], PAPER_QUANTILE)) / max(float(light[i]), 1e-6) > limit[i]
    return out


def _balancer(wb, light_at):
    """rim_dice.pip_counts' `balance`: a window of the view under the anchors' white balance, the
    light at a ring's centre (`light_at`, view pixels) divided out; None without the balance."""
    if wb is None:
        return None

    def balance(window: np.ndarray, centre: np.ndarray) -> np.ndarray:
        light = float(np.asarray(light_at(centre[None]), np.float64).reshape(-1)[0]) if light_at is not None else 1.0
        return wb.apply(window.astype(np.float32) / np.float32(max(light, 1e-6)))
    return balance


def _on_edges(view_bgr: np.ndarray, likelihood: np.ndarray, r_px: float) -> np.ndarray:
    """(K, H, W) each side's `likelihood` (in place) weighted by how steeply the view's brightness
    steps there (its Sobel slope over EDGE_STEP grey levels a pixel, or over EDGE_TEXTURE times the
    mean slope within 1.5 base diameters where that is more, up to 1; spread a pixel each way, the
    width of a rim's blurred edge): a rim's colour where its edge is, not the mat's or a body's
    flat tint, nor the grain of a wood mat."""
    gray = cv2.cvtColor(np.ascontiguousarray(view_bgr, np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    # (Sobel's 3 x 3 weights sum to 8 across: divided, a slope in grey levels a pixel)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
    slope = cv2.magnitude(gx, gy)
    k = int(round(3 * r_px)) | 1
    scale = np.maximum(EDGE_STEP, EDGE_TEXTURE * cv2.boxFilter(slope, -1, (k, k)))
    weight = cv2.dilate(np.minimum(slope / scale, 1.0), np.ones((3, 3), np.uint8))
    likelihood *= weight[None]
    return likelihood


def _other_colour(strict, loose, centres, sides, n_sides: int, reach_px: float) -> Slots:
    """Each candidate's map of another side's colour (either label some side but its own), as 0/1,
    made only in windows round the candidates (`reach_px` out, and the pixel a bilinear sample
    reads beyond): the rays of the few candidates measured so far are all that read it."""
    h, w = strict.shape
    maps, slot_of = [], np.zeros(len(centres), int)
    for k in np.unique(sides):
        other = np.zeros((h, w), np.float32)
        for i in np.flatnonzero(sides == k):
            if not np.isfinite(centres[i]).all():
                continue
            x0, y0 = (max(0, int(np.floor(v - reach_px)) - 1) for v in centres[i])
            x1, y1 = min(w, int(np.ceil(centres[i][0] + reach_px)) + 2), min(h, int(np.ceil(centres[i][1] + reach_px)) + 2)
            s, lo = strict[y0:y1, x0:x1], loose[y0:y1, x0:x1]
            other[y0:y1, x0:x1] = ((s >= 0) & (s < n_sides) & (s != k)) | ((lo >= 0) & (lo < n_sides) & (lo != k))
        slot_of[sides == k] = len(maps)
        maps.append(other)
    return Slots(maps, slot_of)


def _shape_confidence(coverage, clean, residual, outer, max_res: float) -> np.ndarray:
    """A ring's confidence by its shape alone: how whole it shows, how clean, how round (residual
    against `max_res`, px) and how little of its colour lies just outside it (`outer`)."""
    return (np.minimum(1.0, coverage / SEEN_FULL) * np.minimum(1.0, np.divide(clean, CLEAN_FULL))
            * np.maximum(0.0, 1 - residual / (2 * max_res)) * np.maximum(0.0, 1 - np.divide(outer, 2 * MAX_OUTER)))


def _failed_shape_test(centres, moved, coverage, arc, clean, residual, r_px: float, max_res: float) -> np.ndarray:
    """(N,) which shape test each candidate fails first (1: no circle of the base's size, 2: too
    little ring, 3: bits of arcs, 4: cluttered, 5: not round), 0 when it passes them all: one set of
    tests for the early cut and for the reasons reported."""
    fails = np.stack([~np.isfinite(centres).all(1) | (moved > 0.9 * r_px), coverage < MIN_COVERAGE,
                      arc < MIN_ARC, clean < MIN_CLEAN, residual > max_res])
    return np.where(fails.any(0), fails.argmax(0) + 1, 0)


COVER_BAND = (0.55, 0.95)      # radii: a base's top just inside its rim's edge, where a body over the rim shows
GROUND_BAND = (1.6, 2.1)       # radii: the ground round a base, past its rim and blur
FRONT_BAND = (0.15, 0.5)       # radii past the rim's edge and its side wall: the ground in front of a base
FRONT_DEG = 60.0               # rays this near the camera's direction look in front of the base
COVER_LAB = 12.0               # Lab (a, b weighed 0.39): a band this far (median) from the ground's median is covered...
COVER_SPREAD = 1.5             # ... and this many times as far as the ground's own colours lie from it (p75)


def _body_cover(view_bgr, centres, kept, r_px: float, shift: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """What stands over a ring's missing part, and in front of it: (covered (N,), front (N,)).

    `covered`: of each candidate's rays that do not show the rim (`kept` (N, K) False), the share
    whose band just inside the ring (COVER_BAND) shows something unlike the ground round the base
    (GROUND_BAND): a body standing over that part of the rim, where a short arc's missing part is
    hidden, not absent (0 for a ring showing whole). `front`: of the rays towards the camera (the
    side wall's `shift` (N, 2)), the share whose band just past the rim and its wall (FRONT_BAND)
    is unlike the ground. A body stands up from its base and shows away from the camera, so the
    ground in front of a base is clear; cloth up on a body shows behind the base it stands on,
    whose top and rim are then in front of it. (1 without a camera direction: nothing known.)"""
    n, k = kept.shape
    covered, front = np.zeros(n), np.ones(n)
    if view_bgr is None or not n:
        return covered, front
    units = ray_units(k)
    shift = np.zeros((n, 2)) if shift is None else np.asarray(shift, np.float64)
    wall = np.maximum(0.0, shift @ units.T)                                  # (N, K)
    rel = np.concatenate([np.linspace(*COVER_BAND, 4), np.linspace(*GROUND_BAND, 4)])
    along = np.broadcast_to(rel * r_px, (n, k, len(rel))).copy()
    front_at = r_px + wall[..., None] + np.linspace(*FRONT_BAND, 4) * r_px        # (N, K, 4)
    along = np.concatenate([along, front_at], axis=2)
    c = np.asarray(centres, np.float64)
    # (a sample past the view's edge reads the edge's pixel)
    x, y, _ = ray_pixels(c, units, along, view_bgr.shape[:2])
    bgr = view_bgr[y.reshape(1, -1), x.reshape(1, -1)]                          # (1, M, 3): one row for cvtColor
    lab = cv2.cvtColor(bgr.astype(np.float32) * np.float32(1 / 255), cv2.COLOR_BGR2Lab)
    # a and b weighed at 100/255 of L: brightness, sharp in a 1080p photo whose colour JPEG keeps
    # at half resolution, weighs most
    lab *= np.array([1.0, 100 / 255, 100 / 255], np.float32)
    lab = lab.reshape(n, k, along.shape[2], 3)
    ground = lab[:, :, 4:8].reshape(n, -1, 3)
    median = np.median(ground, axis=1)                                        # (N, 3)
    spread = np.percentile(np.linalg.norm(ground - median[:, None], axis=2), 75, axis=1)
    far_from = np.maximum(COVER_LAB, COVER_SPREAD * spread)[:, None]
    off = np.linalg.norm(lab - median[:, None, None], axis=3)                 # (N, K, 12)
    unlike = np.median(off[:, :, :4], axis=2) > far_from
    ahead = np.median(off[:, :, 8:], axis=2) > far_from
    hidden = ~kept
    covered = np.where(hidden.any(1), (unlike & hidden).sum(1) / np.maximum(hidden.sum(1), 1), 0.0)
    norm = np.hypot(shift[:, 0], shift[:, 1])
    towards = (shift / np.maximum(norm, 1e-9)[:, None]) @ units.T >= np.cos(np.radians(FRONT_DEG))   # (N, K)
    front = np.where(norm > 1e-6, (ahead & towards).sum(1) / np.maximum(towards.sum(1), 1), 1.0)
    return covered, front


FELT_AROUND = 0.5              # a ring with this share of the band round it in felt of a hue near its own is not refined


def _felt_round(strict, centres, sides, felts, n_sides: int, r_px, units) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N,) the share of the band 1.3-1.8 radii round each centre whose strict label is a felt of a
    hue near its side's (rim_vetting.similar_felts), (N,) the share of felt of any kind, and (N, K)
    on each ray the share of its band that is felt of that hue, from one sampling of the band (0
    round a centre that is not finite)."""
    n = len(centres)
    if not n:
        return np.zeros(0), np.zeros(0), np.zeros((0, len(units)))
    # (a centre the fit lost, NaN, has no band round it: none of it felt)
    finite = np.isfinite(centres).all(1)
    c = np.where(finite[:, None], centres, 0.0)
    radii = np.linspace(1.3, 1.8, 4) * r_px
    x, y, _ = ray_pixels(c, units, radii, strict.shape)
    lab = strict[y, x]
    per_ray = np.zeros((n, len(units)))
    for k in np.unique(sides):
        if felts[int(k)]:
            sel = sides == k
            per_ray[sel] = label_in(lab[sel], felts[int(k)]).mean(2)
    per_ray[~finite] = 0.0
    return per_ray.mean(1), np.where(finite, (lab >= n_sides).reshape(n, -1).mean(1), 0.0), per_ray


def _wall_shown(kinds: np.ndarray) -> np.ndarray:
    """(N,) how much of the side wall each ring's colour edge takes in, by the map it was found on
    (`kinds`: side * (PASS_SOFT + 1) + pass): the likelihood takes the wall for the colour, a side's
    labels part of it (rim_refine)."""
    return np.where(kinds % (PASS_SOFT + 1) == PASS_SOFT, WALL_SHOWN_LIKELIHOOD, WALL_SHOWN_LABELS)


def _refined_centres(mask_f, gain, centres, shift, r_px, units, radii, kinds, fine,
                     wall_whole: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(N, 2) the kept rings' centres, from the circle of the base's radius most of their edge
    points lie on (vision.rim_refine): a cloak of the rim's colour hanging past the rim does not
    pull it. Where the frame is `fine` (N,), rings of one kind (N,) are fitted with the radius their
    long arcs show (rim_refine.held_radius_centres). The side wall is taken off as much as the map
    each was found on shows it (_wall_shown), or whole (`wall_whole`). With them, (N, K) the rays
    whose edge points agree with their circle."""
    radii = _edge_radii(radii, r_px, 0.55, 1.45, max_wall(shift, units))
    samples = sample_rays(mask_f, centres, radii, units)
    _, points, valid = _rim_edges(samples, centres, shift, units, radii, r_px, 0.55, 1.45, gain)
    if not wall_whole:
        points = wall_shown_points(points, shift, units, _wall_shown(kinds))
    start, agree = consensus_centres(points, valid, centres, r_px + EDGE_BIAS_PX)
    held_at, held_agree, held = held_radius_centres(points, valid, agree, start, r_px, kinds, fine)
    # the circle through the points that agree, its radius held near the base's as in the first fit,
    refined, radius = fit_circle(points, agree.astype(np.float64), start, r_px, iterations=3)
    # and once more with the points near that circle (a cloak's edge may cross the first)
    off = np.hypot(points[..., 0] - refined[:, None, 0], points[..., 1] - refined[:, None, 1]) - radius[:, None]
    agree = valid & (np.abs(off) <= INLIER * r_px)
    refined, _ = fit_circle(points, agree.astype(np.float64), refined, r_px, iterations=3)
    refined = np.where(held[:, None], held_at, refined)
    agree = np.where(held[:, None], held_agree, agree)
    return np.where(np.isfinite(refined) & (agree.sum(1) >= 3)[:, None], refined, centres), agree


def _in_felt_centres(mask_f, gain, over_felt, centres, shift, r_px, units, radii, kinds,
                     fine) -> tuple[np.ndarray, np.ndarray]:
    """(N, 2) the centres of kept rings standing in felt of a hue near their own (a blue base in
    water). There the labels' edge is the rim's on some rays and the felt's mottling on others,
    each pulling a fit its own way: the centre is the mean of four fits that err apart more than
    together. On the side's map (`mask_f`, `gain`): the ring's own fit (`centres`), that fit made
    again from it, and the circle most edge points agree on (_refined_centres); and the fit made
    again on `over_felt` (rim_refine.rim_over_felt: the colour judged against the felt just round
    the ring). (On 60 hard photos of seeds 0, 7 and 3 at once, these rings' mean error 0.054 ->
    0.051 in, p95 0.153 -> 0.144 in; each fit alone moved p95 by less than its noise, or made it
    worse.) With them, (N, K) the rays agreeing with the third's circle.

    The side wall, the paint in shade, is darker than the top and than felt of the paint's hue
    alike: there each map takes it for the colour whole, and each fit takes it off whole. (With
    half of it showing in a side's labels, as on the mat, these rings sat towards the camera the
    more the wider their wall: at 1080p on 60 hard photos of seeds 0, 7, 3, those showing their
    arc on the camera's side by 0.06 in for each 0.05 in of wall. Whole: colour p95 0.089 / 0.092 /
    0.092 -> 0.088 / 0.092 / 0.090 in, the same bases found and no phantom more.)"""
    agreed, agree = _refined_centres(mask_f, gain, centres, shift, r_px, units, radii, kinds, fine, wall_whole=True)
    n = len(centres)
    # both fits made again at once (the first fit's search, 0.55-1.25 radii), the wall whole off
    radii = _edge_radii(radii, r_px, 0.55, 1.25, max_wall(shift, units))
    samples = np.concatenate([sample_rays(mask_f, centres, radii, units), sample_rays(over_felt, centres, radii, units)])
    twice, shift2 = np.concatenate([centres, centres]), np.concatenate([shift, shift])
    _, points, valid = _rim_edges(samples, twice, shift2, units, radii, r_px, 0.55, 1.25,
                                  np.concatenate([gain, np.ones(n)]))
    fitted, _, kept = fit_trimmed(points, valid, twice, r_px)
    fitted = np.where(np.isfinite(fitted) & (kept.sum(1) >= 3)[:, None], fitted, twice)
    return (centres + fitted[:n] + agreed + fitted[n:]) / 4.0, agree


def _off_cloaks(hits: list[RimHit], kept: list[RimHit], r_px: float, view_bgr, wall_shift_px) -> list[RimHit]:
    """`kept` (_one_per_base of `hits`) with each ring that is a cloak of its side's colour up on the
    body moved onto its base's ring among `hits` (rim_refine.off_cloaks: the ring towards the camera
    whose outer edge is clearly more of a brightness step). Without the camera's direction
    (`wall_shift_px` None) nothing is moved."""
    rings = [h for h in hits if h.reason == "ring"]
    at = [j for j, h in enumerate(kept) if h.reason == "ring"]
    if wall_shift_px is None or view_bgr is None or len(rings) < 2 or not at:
        return kept
    xy = np.array([kept[j].xy_view for j in at], np.float64)
    ring_xy = np.array([h.xy_view for h in rings], np.float64)
    moved = off_cloaks(view_bgr, xy, np.array([kept[j].side_index for j in at]), np.asarray(wall_shift_px(xy), np.float64),
                       ring_xy, np.array([h.side_index for h in rings]), np.asarray(wall_shift_px(ring_xy), np.float64),
                       np.array([h.coverage * h.confidence for h in rings]), ray_units(), r_px, SAME_RING * r_px)
    kept = list(kept)
    for j, m in zip(at, moved):
        if not np.array_equal(m, kept[j].xy_view):
            kept[j] = dataclasses.replace(kept[j], xy_view=m)
    return kept


def _rounded(hit: RimHit) -> RimHit:
    """The hit's measures rounded for reports (the tests are run on the exact ones)."""
    return dataclasses.replace(hit, confidence=round(hit.confidence, 3), coverage=round(hit.coverage, 3),
                               residual_px=round(hit.residual_px, 2), inner=round(hit.inner, 3),
                               outer=round(hit.outer, 3), radius=round(hit.radius, 3), clean=round(hit.clean, 3),
                               other=round(hit.other, 3), free_radius=round(hit.free_radius, 3),
                               middle=round(hit.middle, 3), hollow=round(hit.hollow, 3),
                               core=round(hit.core, 3), covered=round(hit.covered, 3), front=round(hit.front, 3))


def _one_per_base(hits: list[RimHit], r_px: float, strict: np.ndarray | None = None,
                  loose: np.ndarray | None = None, wall_shift_px: Callable[[np.ndarray], np.ndarray] | None = None,
                  wall_height_in: float = 0.0, with_rejected: bool = False,
                  faint_bases: np.ndarray | None = None, view_bgr: np.ndarray | None = None) -> list[RimHit]:
    """Bases do not overlap: of kept candidates closer than a base's diameter (less a little for the
    fit), the most confident stands, or, of two rings of one side as sure as each other, the one
    showing more of its circle (rim_vetting.shows_more_ring), or, of two sides' rings, the one whose
    rim shows on its side away from the other (rim_vetting.faces_away_more, on the side labels
    `strict` and `loose`: the other is cloth on its body). (An arc seen from its mirror side fits
    a circle as well.) Then, given the view (uint8 BGR), a kept ring that is a cloak of its side's
    colour moves onto its base's (_off_cloaks). Last, a ring behind a surer one, or behind one of
    another side however sure, within its figure's reach, with no rim on its near arc is up on that
    figure's body (rim_vetting.on_a_surer_body, from the pose's `wall_shift_px` for a base top
    `wall_height_in` up), or behind one of the `faint_bases` (centres of rings of a base's shape too
    weak to keep): left out, or kept with that reason `with_rejected`."""
    # The most confident ring stands (the labels it was found on only break ties): a faint rim
    # found on the likelihood may be the base, and a strict ring beside it cloth on its body. A pale
    # ring (RimHit.pale) stands only where no other does.
    order = sorted(range(len(hits)), key=lambda i: (hits[i].reason != "ring", hits[i].pale, -hits[i].confidence,
                                                     hits[i].by_likelihood, hits[i].by_hue))
    # (every pair's distance at once: the same numbers as pair by pair)
    xy = np.array([h.xy_view for h in hits], np.float64).reshape(-1, 2)
    apart = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    is_ring = [h.reason == "ring" for h in hits]
    out_at: list[int] = []             # the hits standing, by their place in `hits`
    for i in order:
        h = hits[i]
        clash = [j for j, o in enumerate(out_at) if is_ring[o] and apart[i, o] < OVERLAP * r_px]
        if is_ring[i] and len(clash) == 1 and not h.pale and (
                shows_more_ring(h, hits[out_at[clash[0]]], r_px)
                or (strict is not None and loose is not None
                    and faces_away_more(h, hits[out_at[clash[0]]], strict, loose, r_px))):
            out_at[clash[0]] = i
            continue
        if clash:
            continue
        out_at.append(i)
    out: list[RimHit] = [hits[i] for i in out_at]
    # The same ring found on several passes (strict, loose, likelihood) is fitted to different
    # edge pixels: its centre is their mean, weighted by how much ring and confidence each shows.
    rings = [i for i, ring in enumerate(is_ring) if ring]
    for j, h in enumerate(out):
        if h.reason != "ring":
            continue
        same = [hits[o] for o in rings if hits[o].side_index == h.side_index and apart[o, out_at[j]] < SAME_RING * r_px]
        w = np.array([o.coverage * o.confidence for o in same])
        if len(same) > 1 and w.sum() > 0:
            out[j] = dataclasses.replace(h, xy_view=(np.array([o.xy_view for o in same]) * w[:, None]).sum(0) / w.sum())
    # (a cloak moved onto its base first: the body test judges where the bases stand)
    out = _off_cloaks(hits, out, r_px, view_bgr, wall_shift_px)
    if strict is not None and loose is not None:
        vetted = on_a_surer_body(out, r_px, strict, loose, wall_shift_px, wall_height_in,
                                 VISION_DEFAULTS["figure_height_in"], faint_bases, other_side_host=True)
        out = [h for h, o in zip(vetted, out) if with_rejected or h.reason == "ring" or o.reason != "ring"]
    return out


def table_view_wall_shift(pose, view, height_in: float) -> Callable[[np.ndarray], np.ndarray]:
    """For a top view of the table plane (a `TopView` with to_table/to_view): the offset, in view
    pixels, from where a base's top shows (centres (N, 2)) to where its bottom shows. The top, seen
    `height_in` up, shows farther from the camera's foot than the base stands; the bottom shows
    where it stands (`pose.lift` is exact for a plane parallel to the table)."""
    def shift(c_view: np.ndarray) -> np.ndarray:
        c = np.asarray(c_view, np.float64).reshape(-1, 2)
        xy = view.to_table(c)
        return view.to_view(pose.lift(xy, height_in)) - c
    return shift


def rims_in_view(view, side_rgbs, base_in: float, *, pose=None, height_in: float = 0.0, wb=None,
                 other_rgbs=(), mat=None, exclude=None, table_in: tuple[float, float] | None = None,
                 keep_out_in: Sequence[tuple[float, float, float, float]] = (),
                 tables: ColourTables | None = None, flood: MatFlood | None = None,
                 quantised=None, water_felts=None) -> list[tuple[np.ndarray, RimHit]]:
    """Bases in a top view of the table plane (or a window of it): [(centre in table inches, hit)].

    `view`: a TopView (image BGR, ppi, origin_in). `wb`: the anchors' white balance, applied to the
    view before any colour is judged. With the camera `pose`, a base's top, seen `height_in` above
    the table, is put back over where the base stands; without it the top's position is reported
    (off by height / camera height of the distance from the camera's foot: under 0.3% for a 1/8"
    base under a camera 4' up). A base stands on the table (`table_in`: width, depth), its centre at
    least most of a radius in from the edge, and not on an anchor (`keep_out_in`: x0, y0, x1, y1).
    `tables`, `flood`, `quantised`, `water_felts`: find_rims'."""
    shift = table_view_wall_shift(pose, view, height_in) if pose is not None and height_in > 0 else None
    hits = find_rims(view.image, view.ppi, side_rgbs, base_in, other_rgbs=other_rgbs, mat=mat,
                     wall_shift_px=shift, wall_height_in=height_in, exclude=exclude, wb=wb,
                     frame_scale=frame_scale_at(pose, view, height_in) if pose is not None else None, tables=tables,
                     flood=flood, quantised=quantised, water_felts=water_felts,
                     light_at=(lambda c: wb.exposure_at(view.to_table(c))) if wb is not None else None)
    out = []
    for hit in hits:
        xy = view.to_table(hit.xy_view[None])
        if pose is not None and height_in > 0:
            xy = pose.lift(xy, height_in)
        x, y = xy[0]
        edge = 0.8 * base_in / 2
        if table_in is not None and not (edge <= x <= table_in[0] - edge and edge <= y <= table_in[1] - edge):
            continue
        if any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in keep_out_in):
            continue
        out.append((xy[0], hit))
    return out
