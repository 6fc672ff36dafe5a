"""A soft colour likelihood per side, for finding rims too thin or too pale for hard labels.

In a 1080p photo of a 5' table a rim is one or two pixels wide, and JPEG halves its colour's
resolution again: few of its pixels show the side's paint, most a blend of it with the mat, the
body or the felt. A hard label (this pixel is blue) loses them; a likelihood keeps how far each
pixel lies from its background towards the side's colour.

`side_likelihoods`: per pixel and side, the share `alpha` of the way from the background's
chromaticity to the side's (0..1), weighted down by how far off that line the pixel lies. The
background is judged twice, and the smaller likelihood kept: against the mat's colour (so a brown
body in a pond is not "red": it is mat-like), and against the local background, the median colour
of the neighbourhood (so blue water felt is not blue rim everywhere: only what is bluer than the
water around it).
"""
from __future__ import annotations

from typing import Collection, Sequence

import cv2
import numpy as np

from vision.colour import rgb_chroma

BACKGROUND_PPI = 5.0          # the local background is a median at this resolution...
BACKGROUND_IN = 1.8           # ...over a window this wide: twice a base, so a figure is not its own background
OFF_LINE = 0.12              # chromaticity: how far off the background-to-side line a blend may lie (a
                             # rim blends with the body and the felt as well as with the mat)
FELT_REACH_IN = 0.5          # a known felt's zone reaches this far beyond where its colour rules
DARK, LIT = 60.0, 180.0      # B + G + R: below DARK no colour to judge (ink, shadow), trusted fully from LIT
BLEND_SLACK = 1.25           # a blend of a rim's paint with the ground is no brighter than the brighter of the
                             # two: a colour this many times as bright as that is no rim, whatever its hue
MAT_BRIGHT_Q = 0.75          # the mat's brightness: this quantile of the table's (the mat covers most of it)


def chroma_layers(bal_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(H, W, 3) chromaticity and (H, W) brightness of a white-balanced float view."""
    f = np.maximum(np.asarray(bal_bgr, np.float32), 0)
    s = f.sum(axis=2)
    return f / np.maximum(s, 1.0)[..., None], s


def _median(chroma: np.ndarray, ppi: float) -> list[np.ndarray]:
    """The median chromaticity of each pixel's neighbourhood (BACKGROUND_IN across), at about
    BACKGROUND_PPI: its three (h, w) planes (each channel's distances are taken plane by plane)."""
    h, w = chroma.shape[:2]
    f = min(1.0, BACKGROUND_PPI / ppi)
    small = chroma if f >= 1.0 else cv2.resize(chroma, (max(1, int(round(w * f))), max(1, int(round(h * f)))),
                                               interpolation=cv2.INTER_AREA)
    k = max(3, int(round(BACKGROUND_IN * ppi * f)) | 1)
    u8 = np.clip(small * 255.0, 0, 255).astype(np.uint8)
    return [plane.astype(np.float32) / 255.0 for plane in cv2.split(cv2.medianBlur(u8, k))]


def _plane_dist2(planes: list[np.ndarray], colour: np.ndarray) -> np.ndarray:
    """(h, w) squared distance of an image, given as its three planes, from a colour (3,): the
    channels' squares summed in their order, each channel's difference made on its own plane
    (numpy's broadcast over three channels, and its sum over a last axis of three, are slow)."""
    d = planes[0] - colour[0]
    out = d * d
    for c in (1, 2):
        np.subtract(planes[c], colour[c], out=d)
        d *= d
        out += d
    return out


def _felt_zone(local: list[np.ndarray], felt: np.ndarray, to_mat2: np.ndarray, shape: tuple) -> np.ndarray | None:
    """(H, W) 0..1: where the neighbourhood (`local`: _median's planes) is nearer the felt's colour
    than the mat's, and FELT_REACH_IN round it (a felt's ragged, blended edge is felt too); None
    where it is nowhere. `to_mat2`: the neighbourhood's squared distance from the mat's colour
    (every felt's is the same)."""
    inside = (_plane_dist2(local, felt) < to_mat2).astype(np.uint8)   # squared distances
    if not inside.any():
        return None
    k = 2 * int(round(FELT_REACH_IN * BACKGROUND_PPI)) + 1
    inside = cv2.dilate(inside, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))).astype(np.float32)
    return cv2.resize(inside, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)


def _along(chroma: np.ndarray, background: np.ndarray, target: np.ndarray) -> np.ndarray:
    axis = target - background
    n2 = np.maximum(np.einsum("...c,...c->...", axis, axis), 1e-4)
    d = chroma - background
    alpha = np.einsum("...c,...c->...", d, axis) / n2
    off2 = np.maximum(np.einsum("...c,...c->...", d, d) - alpha * alpha * n2, 0.0)
    return np.clip(alpha, 0.0, 1.0) * np.exp(-off2 / (2 * OFF_LINE * OFF_LINE))


def side_likelihoods(bal_bgr: np.ndarray, ppi: float, side_rgbs: Sequence[Sequence[float]],
                     mat: np.ndarray, felt_rgbs: Sequence[Sequence[float]] = ()) -> np.ndarray:
    """(K, H, W) float32 in 0..1: how much each pixel of a white-balanced view shows side k's colour.

    Against the mat's colour; and where the neighbourhood is a known felt nearer the side's colour
    than the mat is (blue water for a blue side), against that felt too: there a pixel shows the
    side only as far as it lies beyond the felt, so the felt is not rim and a rim standing in it
    still is. Felt the profile does not know stays colour, for the shape tests to judge."""
    chroma, brightness = chroma_layers(bal_bgr)
    def to_view(lut, at=None, out=None):
        if at is not None:                     # `at`: rows of the colours (here the pixels themselves)
            return lut.reshape(-1)[at]
        if out is None:
            return lut
        out[...] = lut
        return out

    return _likelihoods(chroma, brightness, to_view, lambda at: at, chroma, ppi, side_rgbs, mat, felt_rgbs)


def quantised_likelihoods(quantised, ppi: float, side_rgbs: Sequence[Sequence[float]], mat: np.ndarray,
                          felt_rgbs: Sequence[Sequence[float]] = (), noise: float | Sequence[float] = 0.0, *,
                          sides: Collection[int] | None = None, shared: dict | None = None) -> np.ndarray:
    """side_likelihoods of a view quantised by vision.rims.quantise_view: judged once per colour
    present (tens of thousands, against a million pixels), then looked up; less `noise`, floored
    at 0 (a pixel at or below the noise is then 0 whatever a felt would have made of it, so only
    the few pixels above it are judged against the felt).

    `sides`: only these sides are judged (the others' maps are left at 0). `shared`: a dict kept
    between calls on the same view, mat and felts, holding what does not depend on the sides'
    colours (the neighbourhoods' median and the felts' zones), made once for all of them."""
    index, present, _counts, _colours, chroma, brightness = quantised
    slot = _by_code(present, np.arange(len(present), dtype=np.intp))
    step = _coarse_step(ppi)
    coarse = chroma[0][slot[index[::step, ::step]]]       # the view's chromaticity at about 5 px/in
    def to_view(lut, at=None, out=None):
        if at is not None:                     # a few pixels, by their colours' rows (`rows_of`)
            return lut[at]
        # looked up by colour code: no map of each pixel's row among the colours present is made
        # first. Straight into the output; every code is in the table, so "clip" clips nothing (and,
        # unlike the default, does not buffer `out`)
        return np.take(_by_code(present, lut), index, out=out, mode="clip")

    return _likelihoods(chroma[0], brightness[0], to_view, lambda at: slot[index.reshape(-1)[at]], coarse,
                        ppi / step, side_rgbs, mat, felt_rgbs,
                        index.shape, noise, sides, shared)


def _by_code(present: np.ndarray, values: np.ndarray) -> np.ndarray:
    """A table of every colour code up to the last present (vision.rims.quantise_view's index),
    `values` (one per colour present, in order) at theirs, 0 at the rest: looked up by a view's
    codes directly."""
    table = np.zeros(int(present[-1]) + 1 if len(present) else 1, values.dtype)
    table[present] = values
    return table


def _coarse_step(ppi: float) -> int:
    """The stride that samples a view at `ppi` at about BACKGROUND_PPI."""
    return max(1, int(round(ppi / BACKGROUND_PPI)))


def _likelihoods(chroma, brightness, to_view, rows_of, coarse, coarse_ppi, side_rgbs, mat, felt_rgbs, shape=None,
                 noise: float | Sequence[float] = 0.0, sides: Collection[int] | None = None, shared: dict | None = None):
    """The likelihoods of colours (chroma (..., 3), brightness (...)), put in the view by
    `to_view` (at a few flat pixels: `to_view(lut, at=rows_of(pixels))`, by the rows of their
    colours, found once for all the felts), less `noise` and floored at 0; `coarse`: the view's
    chromaticity at `coarse_ppi` for the felts' neighbourhoods. Only `sides` are judged (None:
    all); `shared` keeps the median and the felts' zones for the next call on the same view."""
    shape = chroma.shape[:2] if shape is None else shape
    mat = np.asarray(mat, np.float32)
    lit = np.clip((brightness - DARK) / (LIT - DARK), 0.0, 1.0).astype(np.float32)
    judged = range(len(side_rgbs)) if sides is None else [k for k in range(len(side_rgbs)) if k in sides]
    out = (np.empty if len(judged) == len(side_rgbs) else np.zeros)((len(side_rgbs),) + tuple(shape), np.float32)
    shared = {} if shared is None else shared
    zones = shared.setdefault("zones", {})   # each felt's zone: its weight at every pixel (flat), by colour
    noises = np.broadcast_to(np.asarray(noise, np.float32), (len(side_rgbs),))
    for k in judged:
        noise = float(noises[k])
        t = rgb_chroma(side_rgbs[k]).astype(np.float32)
        like_mat = _along(chroma, mat, t) * lit
        to_view(np.maximum(like_mat - noise, 0.0) if noise else like_mat, out=out[k])
        strong = raw = rows = None
        for j, felt in enumerate(felt_rgbs):
            f = rgb_chroma(felt).astype(np.float32)
            if np.linalg.norm(f - t) >= np.linalg.norm(mat - t):
                continue
            if "local" not in shared:
                shared["local"] = _median(coarse, coarse_ppi)
            key = (f.tobytes(), mat.tobytes())
            if key not in zones:
                if ("to_mat2", key[1]) not in shared:
                    shared["to_mat2", key[1]] = _plane_dist2(shared["local"], mat)
                zone = _felt_zone(shared["local"], f, shared["to_mat2", key[1]], tuple(shape))
                zones[key] = None if zone is None else zone.reshape(-1)
            if zones[key] is None:
                continue
            if strong is None:
                # The blend with the felt's likelihood only lowers a pixel's: one at or below the
                # noise stays at 0, so only the pixels above it (a few hundredths of the view,
                # scattered) are blended, from their likelihood before the noise is taken off.
                strong = np.flatnonzero(out[k] > 0)
            weight = zones[key][strong]        # (gathered once: the pixels in the zone and their weight)
            sel = np.flatnonzero(weight > 0)
            if not len(sel):
                continue
            if raw is None:
                rows = rows_of(strong)
                raw = to_view(like_mat, rows)
            inside = weight[sel]
            beyond = to_view(np.minimum(like_mat, _along(chroma, f, t) * lit), rows[sel])
            raw[sel] = raw[sel] * (1 - inside) + beyond * inside
        if raw is not None:
            out[k].reshape(-1)[strong] = np.maximum(raw - noise, 0.0) if noise else raw
    return out


def mat_brightness(quantised) -> float:
    """The mat's brightness (B + G + R, white-balanced) in a whole table's view quantised by
    vision.rims.quantise_view: the MAT_BRIGHT_Q quantile of its pixels'."""
    _, present, counts, _, _, brightness = quantised
    b = brightness[0]
    order = np.argsort(b)
    cum = np.cumsum(counts[present][order])
    return float(b[order][min(len(order) - 1, int(np.searchsorted(cum, MAT_BRIGHT_Q * cum[-1])))])


def fade_past_blends(likelihoods: np.ndarray, quantised, ppi: float, side_rgbs: Sequence[Sequence[float]],
                     mat_bright: float, shared: dict | None = None) -> None:
    """Each side's likelihood (K, H, W; in place) faded out where a pixel is brighter than any blend
    of the side's paint with the ground round it: from 1 at the brighter of the two to 0 at
    BLEND_SLACK times that. A lit skin, metal or tan body leaning over a base may lean towards the
    side's hue, but not blend the paint with the mat. The ground is the median brightness of the
    neighbourhood (BACKGROUND_IN across), at least the mat's (`mat_bright`: mat_brightness of the
    whole table); the paint (its B + G + R) is lit as that ground is over the mat, where brighter (a
    lamp's hot spot lights the rim too). `shared`: as quantised_likelihoods keeps it for the view."""
    index, present, _counts, _colours, _chroma, brightness = quantised
    shared = {} if shared is None else shared
    if "ground" not in shared:
        table = _by_code(present, brightness[0].astype(np.float32))
        step = _coarse_step(ppi)
        coarse = table[index[::step, ::step]]
        k = max(3, int(round(BACKGROUND_IN * ppi / step)) | 1)
        # (medianBlur takes bytes at this size: B + G + R is 0..765, a third of it to one byte)
        third = cv2.medianBlur(np.clip(coarse / 3.0, 0, 255).astype(np.uint8), k).astype(np.float32) * 3.0
        ground = cv2.resize(np.maximum(third, np.float32(mat_bright)), (index.shape[1], index.shape[0]),
                            interpolation=cv2.INTER_LINEAR)
        shared["ground"] = (ground.reshape(-1), table)
    ground, table = shared["ground"]
    mat_bright = max(float(mat_bright), 1.0)
    for k, rgb in enumerate(side_rgbs):
        at = np.flatnonzero(likelihoods[k] > 0)      # (a few hundredths of the view; a float array
                                                     # is searched several times slower than a mask)
        if not len(at):
            continue
        near = ground[at]
        paint = float(np.sum(rgb))
        top = np.maximum(near, paint * np.maximum(near / mat_bright, 1.0))
        seen = table[index.reshape(-1)[at]]
        fade = np.clip((BLEND_SLACK * top - seen) / ((BLEND_SLACK - 1.0) * top), 0.0, 1.0)
        likelihoods[k].reshape(-1)[at] *= fade
