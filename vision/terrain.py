"""Felt terrain: pieces of the profile's terrain colours become one simplified polygon each, in
table inches, with a confidence.

Felt is inches wide, so the table-plane view is read at `WORK_PPI` (a few pixels an inch). Each
pixel is described by four numbers, all relative to the mat around it (the mat is most of the
table, and a lamp's hot spot, vignetting or a warm corner change the mat and every felt on it
alike): its two log chromaticities, log(R/G) and log(B/G) (a photographed texture is a change of
brightness, so these are free of it), its log brightness, and the log of its brightness's spread
over ~0.6" (gravel felt is rougher than a gravel mat, water felt smoother than grass). The mat's
local value of each is the mean of the mat-like pixels within `MAT_REACH_IN`, and its spread is
learnt from the whole mat.

Each kind starts as a Gaussian around the profile's colour, as wide as a felt's colour is
uncertain; pixels clearly that kind and clearly not mat are seeds, and the kind's Gaussian is then
learnt from them (as the rims relearn a side's colour). Every pixel gets a posterior over mat, the
mat in shade, each kind and the things that are no felt (the sides' rim colours, paper, a phone, a
pencil); a piece is a connected region where its kind wins that holds seeds (hysteresis), closed
and with its holes filled (a figure standing on it is part of it), traced at a quarter pixel on
the smoothed posterior. A region is no piece when it is small, thin, square-cut like a book, lies
along the table's edge or reaches in over it (an arm, a cloth). Each piece's `confidence` is how
surely its inside is its kind times how far the kind stands from the mat, in the mat's own spread.
"""
from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

from measure.scene import Terrain

TERRAIN_PPI = 10.0           # the layer the pipeline hands in (the white balance reads it too)
WORK_PPI = 5.0               # felt is inches wide: it is classified this coarse
SMOOTH_IN = 0.2              # colour is averaged over about this (felt fibres, sensor noise, JPEG)
TEXTURE_IN = 0.6             # brightness spread is measured over a window this wide
MAT_REACH_IN = 8.0           # the local mat is the mean of mat-like pixels this far around
MAT_LIKE_SIGMA = 3.0         # a pixel within this many of the mat's spreads counts as mat-like
MIN_AREA_SQIN = 8.0          # smaller regions of a kind are not a piece
MAX_HOLE_SQIN = 3.0          # holes up to this are filled: a figure or a marker standing on the felt
MIN_THICK_IN = 0.6           # a piece holds a disc this wide somewhere (pencils, strips, rims do not)
ANOMALY_SIGMA = 4.5          # a seed is this far from the mat (in its spreads) ...
MIN_STRENGTH_SIGMA = 4.0     # a seed patch lies on average this far from the mat (a soft mottle does not)
SEED_SIGMA = 3.5             # ... and this near a kind's colour, nearer than to any other

SEED_MIN_SQIN = 2.0          # ... in a patch at least this big
PRIOR_PER_CHANNEL = 7.0      # a felt's colour is uncertain by about this much per channel (0-255) ...
PRIOR_L = 0.25               # ... and its brightness (log) by this: exposure and light
PRIOR_TEXTURE = 1.0          # a kind's roughness is not known before it is seen (log spread)
SAME_KIND_SIGMA = 1.5        # ... and a patch this near the most like it is the same felt
NEAR_FELT_SIGMA = 2.0        # a distractor colour this near a felt's is left out (a white snow felt)
MAX_LEARN_SIGMA = 4.0        # a seed patch whose colour lies further from the kind's than this is not it
SHADE_L = (-0.5, 0.3)        # the mat in shade: log brightness below the mat's (a mug's shadow)
LOG_PRIOR_SHADE = -2.0
LOG_PRIOR_OTHER = -2.0

FLOOR = np.array([0.012, 0.012, 0.03, 0.08], np.float32)   # least spread of a class per feature
EDGE_BAND_IN = 1.0           # a patch mostly within this of the table's edge is not on the table
MAX_EDGE_SHARE = 0.5
EDGE_TOUCH_IN = 0.3          # a patch this near the view's edge touches the table's edge ...
MAX_REACH_ASPECT = 1.8       # ... and one this elongated there reaches in from outside (an arm),
MIN_EDGE_THING_FILL = 0.8    # one filling its bounding rectangle this well hangs over it (a book)
EDGE_SLACK_IN = 0.4          # the colour edge is looked for this far around where the kind wins
SUBPIXEL = 4                 # outlines are traced on the posterior enlarged this much
SIMPLIFY_IN = 0.06           # outline simplification tolerance
SEPARATION_FULL = 4.0        # a kind this many mat spreads from the mat is fully distinct
MIN_CONFIDENCE = 0.5         # pieces less sure than this are not reported
# Things on a table that are no felt: paper, a phone, a pencil. Each competes for pixels unless it
# is near one of the profile's felt colours (a white "snow" felt stays snow). Hands are found by
# vision.hands and handed in as `exclude_mask`.
DISTRACTORS = ((236, 236, 236), (28, 28, 30), (225, 185, 45))
OFFSET = 2.0                 # added before logs (dark channels)


def _kernel(radius_in: float, ppi: float) -> np.ndarray:
    n = max(1, int(round(radius_in * ppi))) * 2 + 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (n, n))


def colour_features(rgbs: Sequence[Sequence[int]]) -> np.ndarray:
    """(K, 3) log chromaticities and log brightness of RGB colours, as `_features` measures them."""
    bgr = np.asarray([c[::-1] for c in rgbs], np.float32).reshape(-1, 1, 3)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).reshape(-1)
    lg = np.log(bgr.reshape(-1, 3) + OFFSET)
    return np.column_stack([lg[:, 2] - lg[:, 1], lg[:, 0] - lg[:, 1], np.log(gray + OFFSET)]).astype(np.float32)


def _shrink(image: np.ndarray, n: int) -> np.ndarray:
    """Means of n x n blocks (the last partial row and column of blocks dropped)."""
    if n == 1:
        return image
    h, w = image.shape[:2]
    image = image[: h // n * n, : w // n * n]
    if image.ndim == 3 and image.shape[2] > 4:
        return np.concatenate([_shrink(image[..., c:c + 4], n).reshape(h // n, w // n, -1)
                               for c in range(0, image.shape[2], 4)], axis=2)
    return cv2.resize(image, (w // n, h // n), interpolation=cv2.INTER_AREA)


def _features(view: np.ndarray, n: int, ppi: float) -> np.ndarray:
    """(H, W, 7) float32 at 1/n of the view: log(R/G), log(B/G), log brightness, log spread, and the
    smoothed B, G, R themselves."""
    view = np.asarray(view, np.float32)
    gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    lg = cv2.log(gray + OFFSET)
    m1 = _shrink(lg, n)
    m2 = _shrink(lg * lg, n)
    k = max(3, int(round(TEXTURE_IN * ppi)) | 1)
    m1b = cv2.blur(m1, (k, k))
    var = cv2.blur(m2, (k, k)) - m1b * m1b
    tex = 0.5 * cv2.log(np.maximum(var, 1e-4))
    small = cv2.GaussianBlur(_shrink(view, n), (0, 0), SMOOTH_IN * ppi)
    b, g, r = cv2.split(cv2.log(small + OFFSET))
    lum = cv2.log(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) + OFFSET)
    return cv2.merge([r - g, b - g, lum, tex, small])


def _robust(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    centre = np.median(values, axis=0)
    spread = 1.4826 * np.median(np.abs(values - centre), axis=0)
    return centre.astype(np.float32), np.maximum(spread, FLOOR).astype(np.float32)


def _weights(means: np.ndarray, sigmas: np.ndarray, log_priors: np.ndarray) -> np.ndarray:
    """(9, C) so that [x, x*x, 1] @ W is each diagonal Gaussian's log likelihood (+ log prior)."""
    inv = 1.0 / sigmas ** 2
    const = -0.5 * (means ** 2 * inv).sum(axis=1) - np.log(sigmas).sum(axis=1) + log_priors
    return np.vstack([(means * inv).T, (-0.5 * inv).T, const[None, :]]).astype(np.float32)


def _posteriors(x: np.ndarray, means, sigmas, log_priors) -> np.ndarray:
    """(N, C) class posteriors of (N, 4) features."""
    planes = np.empty((x.shape[0], 9), np.float32)
    planes[:, :4] = x
    np.multiply(x, x, out=planes[:, 4:8])
    planes[:, 8] = 1.0
    ll = planes @ _weights(np.asarray(means, np.float32), np.asarray(sigmas, np.float32), np.asarray(log_priors, np.float32))
    ll -= ll.max(axis=1, keepdims=True)
    np.exp(ll, out=ll)
    ll /= ll.sum(axis=1, keepdims=True)
    return ll


def find_terrain(view_bgr: np.ndarray, ppi: float, kinds: Sequence[tuple[str, Sequence[int]]],
                 side_rgbs: Sequence[Sequence[int]] = (), footprints_in: Sequence[tuple[float, float, float]] = (),
                 origin_in: tuple[float, float] = (0.0, 0.0),
                 exclude_in: Sequence[tuple[float, float, float, float]] = (),
                 table_in: tuple[float, float, float, float] | None = None,
                 reference_in: Sequence[tuple[float, float]] = (),
                 exclude_mask: np.ndarray | None = None) -> tuple[Terrain, ...]:
    """Terrain pieces in a table-plane top view (BGR, uint8 or float: white-balanced when the
    pipeline can, and then not clipped, so a lamp's hot spot keeps its colours). `kinds`:
    (kind, rgb) from the profile; `side_rgbs` compete for pixels (a red rim is not a red felt);
    `footprints_in`: (x, y, radius) of the figures and markers seen, filled into the piece they
    stand on; `exclude_in`: (x0, y0, x1, y1) rectangles that are never terrain (the anchor cards);
    `table_in`: the table's rectangle (default: the view's); `reference_in`: table points whose light
    the view was white-balanced for (the anchors); `exclude_mask`: (H, W) bool, never terrain (hands
    over the table, vision.hands)."""
    if not kinds:
        return ()
    n = max(1, int(round(ppi / WORK_PPI)))
    wppi = ppi / n
    # A block of n view pixels is one work pixel, centred (n - 1) / 2 view pixels in.
    ox, oy = origin_in[0] + (n - 1) / (2 * ppi), origin_in[1] + (n - 1) / (2 * ppi)
    both = _features(view_bgr, n, wppi)
    feats = both[..., :4]
    h, w = feats.shape[:2]
    excluded = np.zeros((h, w), bool)
    if exclude_mask is not None:
        excluded |= _shrink(np.asarray(exclude_mask, np.float32), n) > 0
    for x0, y0, x1, y1 in exclude_in:
        excluded[max(0, int((y0 - oy) * wppi)):max(0, int(math.ceil((y1 - oy) * wppi)) + 1),
                 max(0, int((x0 - ox) * wppi)):max(0, int(math.ceil((x1 - ox) * wppi)) + 1)] = True
    if table_in is None:
        table_in = (origin_in[0], origin_in[1], origin_in[0] + view_bgr.shape[1] / ppi,
                    origin_in[1] + view_bgr.shape[0] / ppi)

    # The mat: its centre and spread over the whole view, then its local mean around each pixel.
    step = max(1, int(math.sqrt(h * w / 15000)))
    sample = feats[::step, ::step][~excluded[::step, ::step]]
    centre, spread = _robust(sample)
    d2 = (((feats[..., :3] - centre[:3]) / spread[:3]) ** 2).sum(axis=2)
    mat_like = ((d2 < 3 * MAT_LIKE_SIGMA ** 2) & ~excluded).astype(np.float32)
    local_all = _local_mat(both, mat_like, wppi)
    local = local_all[..., :4]
    rel = (feats - local).reshape(-1, 4)
    # Colour as a share of the local mat's (linear: a pixel half felt, half mat lies half way).
    ratio = both[..., 4:] / np.maximum(local_all[..., 4:], 1.0) - 1.0
    q_mat = ratio[::step, ::step][mat_like[::step, ::step] > 0]
    q_cov = np.cov(q_mat.T) + np.eye(3) * 1e-4 if len(q_mat) > 10 else np.eye(3)
    q_w = np.linalg.inv(q_cov).astype(np.float32)
    mat_sigma = _robust(rel[mat_like.reshape(-1) > 0][:: step * step])[1]

    if len(reference_in):
        ref = np.asarray(reference_in, np.float64).reshape(-1, 2)
        u = np.clip(np.round((ref[:, 0] - ox) * wppi).astype(int), 0, w - 1)
        v = np.clip(np.round((ref[:, 1] - oy) * wppi).astype(int), 0, h - 1)
        mat_ref = local[v, u, :3].mean(axis=0)
    else:
        mat_ref = np.median(local[::step, ::step, :3].reshape(-1, 3), axis=0)
    kind_rgbs = [rgb for _, rgb in kinds]
    kind_abs = colour_features(kind_rgbs)
    prior_mu = np.zeros((len(kinds), 4), np.float32)
    prior_mu[:, :3] = kind_abs - mat_ref
    prior_sd = np.array([_prior_sigma(rgb) for rgb in kind_rgbs], np.float32)
    # Things that are no felt: the sides' rims and the distractors not near a felt colour.
    others = [c for c in list(side_rgbs) + list(DISTRACTORS)
              if all(_mahal(colour_features([c])[0] - kind_abs[k], prior_sd[k, :3]) > NEAR_FELT_SIGMA
                     for k in range(len(kinds)))]
    other_mu = np.zeros((len(others), 4), np.float32)
    if others:
        other_mu[:, :3] = colour_features(others) - mat_ref
    other_sd = np.array([_prior_sigma(c) for c in others], np.float32).reshape(-1, 4)

    def classes(kind_mu, kind_sd, texture=True):
        shade_mu = np.array([0, 0, SHADE_L[0], 0], np.float32)
        shade_sd = mat_sigma.copy()
        shade_sd[2] = SHADE_L[1]
        means = np.vstack([np.zeros(4, np.float32), shade_mu, kind_mu, other_mu])
        sigmas = np.vstack([mat_sigma, shade_sd, np.hypot(kind_sd, mat_sigma), np.hypot(other_sd, mat_sigma)])
        priors = np.zeros(len(means), np.float32)
        priors[1] = LOG_PRIOR_SHADE
        priors[2 + len(kind_mu):] = LOG_PRIOR_OTHER
        if not texture:
            means[:, 3] = 0.0
            sigmas[:, 3] = 10.0
        return means, sigmas, priors

    # Seeds: pixels far from the mat (in its own spread, roughness too), nearest to a kind's colour
    # of all the colours looked for, and not too far from it.
    d_mat = ((rel / mat_sigma) ** 2).sum(axis=1).reshape(h, w)
    anomalous = (d_mat > ANOMALY_SIGMA ** 2) & ~excluded
    # (The sides' rim colours do not compete here: a rim is too small to seed, and a blue water
    # felt under a warm light must not be taken for a blue rim.)
    n_sides = sum(1 for c in others if c in [tuple(x) for x in side_rgbs])
    cand_mu = np.vstack([prior_mu[:, :3], other_mu[n_sides:, :3]])
    cand_sd = np.hypot(np.vstack([prior_sd[:, :3], other_sd[n_sides:, :3]]), mat_sigma[:3])
    # The mat in shade competes too (a soft shadow is darker mat, not a dark felt).
    cand_mu = np.vstack([cand_mu, [0.0, 0.0, SHADE_L[0]]])
    cand_sd = np.vstack([cand_sd, [mat_sigma[0], mat_sigma[1], SHADE_L[1]]])
    x3 = rel[:, :3]
    dist = np.stack([(((x3 - m) / sd) ** 2).sum(axis=1) for m, sd in zip(cand_mu, cand_sd)], 1)
    dist[:, -1] -= 2 * LOG_PRIOR_SHADE
    nearest = dist.argmin(axis=1).reshape(h, w)
    near_enough = (dist.min(axis=1) < SEED_SIGMA ** 2).reshape(h, w)
    open_k = _kernel(0.3, wppi)
    seed_min = SEED_MIN_SQIN * wppi * wppi
    learnt_mu, learnt_sd = prior_mu.copy(), prior_sd.copy()
    seeds = []
    for k in range(len(kinds)):
        sure = (anomalous & near_enough & (nearest == k)).astype(np.uint8)
        sure = cv2.morphologyEx(sure, cv2.MORPH_OPEN, open_k)
        count, comp, stats, _ = cv2.connectedComponentsWithStats(sure, connectivity=8)
        keep = np.zeros(count, bool)
        core = cv2.erode(sure, open_k) > 0
        lab = comp[core]
        x = rel.reshape(h, w, 4)[core]
        total = np.bincount(lab, minlength=count).astype(np.float32)
        means = np.stack([np.bincount(lab, x[:, f], count) for f in range(4)], 1) / np.maximum(total, 1)[:, None]
        strength = np.bincount(lab, np.sqrt(d_mat[core]), count) / np.maximum(total, 1)
        # The patch that stands out most from the mat (its size times how far it lies from the mat)
        # and is most like the profile's colour is the kind; others must look like it.
        spread_k = np.hypot(prior_sd[k, :3], mat_sigma[:3])
        off = [(_mahal(means[c, :3] - prior_mu[k, :3], spread_k), c) for c in range(1, count)
               if stats[c, cv2.CC_STAT_AREA] >= seed_min and total[c] >= 4 and strength[c] >= MIN_STRENGTH_SIGMA]
        off = [(o, c) for o, c in off if o <= MAX_LEARN_SIGMA]
        if off:
            best = means[max(off, key=lambda oc: total[oc[1]] * strength[oc[1]] * math.exp(-0.5 * oc[0] ** 2))[1], :3]
            for _o, c in off:
                keep[c] = _mahal(means[c, :3] - best, spread_k) <= SAME_KIND_SIGMA
        seed = keep[comp] & (comp > 0)
        seeds.append(seed)
        pick = seed & core
        if pick.sum() >= 8:
            xs = rel.reshape(h, w, 4)[pick]
            learnt_mu[k] = xs.mean(axis=0)
            learnt_sd[k] = np.maximum(xs.std(axis=0), FLOOR)
    learnt = [s.any() for s in seeds]
    # Each kind as learnt (its spread as well as the mat's); the outline is then found by unmixing.
    means, sigmas, priors = classes(learnt_mu, np.where(np.array(learnt)[:, None], learnt_sd, prior_sd), texture=False)
    post = _posteriors(rel, means, sigmas, priors).reshape(h, w, -1)

    edge = _edge_band((h, w), wppi, (ox, oy), table_in)
    close_k = _kernel(0.4, wppi)
    pieces: list[tuple[str, Polygon, float]] = []
    for k, (kind, _) in enumerate(kinds):
        if not learnt[k]:
            continue
        p = post[..., 2 + k] / np.maximum(post[..., 2 + k] + post[..., 0] + post[..., 1], 1e-12)
        p = cv2.GaussianBlur(p, (0, 0), 0.2 * wppi)
        p[excluded] = 0
        # The edge: where the colour is half the kind's, half the mat's (weighted by how the mat's
        # colour varies: a texture's brightness counts little), near where the kind wins.
        # (The felt's colour is read inside its seed patches where the kind wins.)
        inside = (cv2.erode((p > 0.5).astype(np.uint8), open_k) > 0) & seeds[k]
        d = ratio[inside].mean(axis=0) if inside.any() else None
        if d is not None and np.isfinite(d).all():
            wd = q_w @ d
            alpha = (ratio.reshape(-1, 3) @ (wd / max(float(d @ wd), 1e-6))).reshape(h, w)
            alpha = cv2.GaussianBlur(alpha, (0, 0), 0.05 * wppi)
            wins = cv2.dilate((p > 0.5).astype(np.uint8), _kernel(EDGE_SLACK_IN, wppi)) > 0
            p = np.where(wins, alpha, 0.0).astype(np.float32)
            p[excluded] = 0
        mask = (p > 0.5).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close_k)
        mask = _fill_holes(mask, MAX_HOLE_SQIN * wppi * wppi)
        if footprints_in:
            mask = _add_footprints(mask, wppi, footprints_in, (ox, oy))
        count, comp = cv2.connectedComponents(mask, connectivity=8)
        held = np.unique(comp[seeds[k]])
        separation = _mahal(learnt_mu[k, :3], np.hypot(learnt_sd[k, :3], mat_sigma[:3]) / math.sqrt(2))
        for c in held[held > 0]:
            part = (comp == c).astype(np.uint8)
            area_px = int(part.sum())
            if area_px < MIN_AREA_SQIN * wppi * wppi or not _plausible(part, wppi, edge):
                continue
            polygon = _polygon(part, p, wppi, (ox, oy))
            if polygon is None:
                continue
            inner = cv2.erode(part, _kernel(0.3, wppi)) > 0
            sure = float(post[..., 2 + k][inner].mean()) if inner.any() else 0.0
            confidence = min(1.0, sure / 0.9) * min(1.0, separation / SEPARATION_FULL)
            if confidence < MIN_CONFIDENCE:
                continue
            pieces.append((kind, polygon, round(confidence, 3)))
    pieces.sort(key=lambda q: (q[1].centroid.y, q[1].centroid.x))
    return tuple(Terrain(f"t{i + 1}", kind, poly, extra={"confidence": conf})
                 for i, (kind, poly, conf) in enumerate(pieces))


def _mahal(d: np.ndarray, sigma: np.ndarray) -> float:
    return float(np.sqrt(((np.asarray(d) / np.asarray(sigma)) ** 2).sum()))


def _prior_sigma(rgb: Sequence[int]) -> np.ndarray:
    """How uncertain a named colour's features are: each channel off by about PRIOR_PER_CHANNEL."""
    r, g, b = (float(c) + OFFSET for c in rgb)
    e = PRIOR_PER_CHANNEL
    return np.array([e * math.hypot(1 / r, 1 / g), e * math.hypot(1 / b, 1 / g), PRIOR_L, PRIOR_TEXTURE], np.float32)


def _local_mat(feats: np.ndarray, mat_like: np.ndarray, ppi: float) -> np.ndarray:
    """(H, W, C): the mean of the mat-like pixels within MAT_REACH_IN of each pixel."""
    small = max(1, int(ppi))          # the light changes slowly: an inch a pixel is enough
    h, w = mat_like.shape
    f = _shrink(feats * mat_like[..., None], small)
    m = _shrink(mat_like, small)
    k = max(3, int(round(2 * MAT_REACH_IN * ppi / small)) | 1)
    wsum = cv2.blur(m, (k, k), borderType=cv2.BORDER_REFLECT)
    fsum = cv2.blur(f, (k, k), borderType=cv2.BORDER_REFLECT)
    local = np.where(wsum[..., None] > 0.05, fsum / np.maximum(wsum, 1e-6)[..., None],
                     np.median(feats[mat_like > 0], axis=0) if mat_like.any() else 0.0)
    # Back to the work grid: coarse pixel j covers work pixels small * j ... small * j + small - 1.
    scale = np.array([[small, 0, (small - 1) / 2], [0, small, (small - 1) / 2]], np.float64)
    local = local.astype(np.float32)
    return np.concatenate([cv2.warpAffine(local[..., c:c + 4], scale, (w, h), flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE).reshape(h, w, -1)
                           for c in range(0, local.shape[2], 4)], axis=2)


def _edge_band(shape, ppi: float, origin_in, table_in) -> np.ndarray:
    """(H, W) bool: view pixels within EDGE_BAND_IN of the table's edge (or off the table)."""
    h, w = shape
    x = origin_in[0] + np.arange(w) / ppi
    y = origin_in[1] + np.arange(h) / ppi
    x0, y0, x1, y1 = table_in
    near_x = (x < x0 + EDGE_BAND_IN) | (x > x1 - EDGE_BAND_IN)
    near_y = (y < y0 + EDGE_BAND_IN) | (y > y1 - EDGE_BAND_IN)
    return near_y[:, None] | near_x[None, :]


def _plausible(part: np.ndarray, ppi: float, edge: np.ndarray) -> bool:
    """Felt-shaped: thick enough, not lying along the table's edge, not reaching in over it (an
    arm) nor square-cut and hanging over it (a book). A rectangle inside the table may be felt."""
    thick = cv2.distanceTransform(part, cv2.DIST_L2, 3).max() * 2 / ppi
    if thick < MIN_THICK_IN:
        return False
    area = float(part.sum())
    if float(part[edge].sum()) > MAX_EDGE_SHARE * area:
        return False
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(contours, key=cv2.contourArea)
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    rim = max(1, int(EDGE_TOUCH_IN * ppi))
    touches = part[:rim].any() or part[-rim:].any() or part[:, :rim].any() or part[:, -rim:].any()
    if touches and max(rw, rh) > MAX_REACH_ASPECT * max(1.0, min(rw, rh)):
        return False                  # long and in from the edge: an arm reaching in, a cloth
    if touches and area / max(1.0, (rw + 1) * (rh + 1)) >= MIN_EDGE_THING_FILL:
        return False                  # square-cut and over the edge: a book or a box hanging off
    return True


def _polygon(part: np.ndarray, soft: np.ndarray, ppi: float, origin_in) -> Polygon | None:
    """The piece's outline where its (smoothed) posterior crosses one half, traced on the posterior
    enlarged SUBPIXEL times; inside the piece (filled holes, figures) it counts as sure."""
    h, w = part.shape
    ys, xs = np.nonzero(part)
    v0, v1 = max(0, ys.min() - 2), min(h, ys.max() + 3)
    u0, u1 = max(0, xs.min() - 2), min(w, xs.max() + 3)
    roi = part[v0:v1, u0:u1]
    inner = cv2.erode(roi, np.ones((3, 3), np.uint8))
    near = cv2.dilate(roi, np.ones((3, 3), np.uint8))
    field = np.where(inner > 0, 1.0, np.where(near > 0, soft[v0:v1, u0:u1], 0.0)).astype(np.float32)
    field = np.where(roi > 0, np.maximum(field, 0.5), field)     # the part's own edge pixels stay in
    big = cv2.resize(field, None, fx=SUBPIXEL, fy=SUBPIXEL, interpolation=cv2.INTER_LINEAR)
    contours, _ = cv2.findContours((big >= 0.5).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea)
    if len(contour) < 3:
        return None
    # Enlarged pixel U sits at work pixel (U + 0.5) / SUBPIXEL - 0.5.
    uv = (contour.reshape(-1, 2).astype(np.float64) + 0.5) / SUBPIXEL - 0.5 + (u0, v0)
    ring = uv / ppi + origin_in
    # Contour points are the centres of the edge pixels: the edge is half an (enlarged) pixel out.
    polygon = shapely.make_valid(Polygon(ring)).buffer(0.5 / (SUBPIXEL * ppi), join_style="mitre")
    if polygon.geom_type != "Polygon":
        polygon = max(getattr(polygon, "geoms", [polygon]), key=lambda g: g.area)
    polygon = polygon.simplify(SIMPLIFY_IN, preserve_topology=True)
    if polygon.is_empty or polygon.geom_type != "Polygon":
        return None
    return Polygon(polygon.exterior)


def _fill_holes(mask: np.ndarray, max_px: float) -> np.ndarray:
    """Holes up to `max_px` filled (a figure standing on the felt); bigger ones (a mug's ring) kept."""
    holes = (1 - mask).astype(np.uint8)
    count, comp, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
    h, w = mask.shape
    small = np.zeros(count, bool)
    for c in range(1, count):
        x, y, bw, bh, area = stats[c]
        small[c] = area <= max_px and x > 0 and y > 0 and x + bw < w and y + bh < h
    out = mask.copy()
    out[small[comp]] = 1
    return out


def _add_footprints(mask: np.ndarray, ppi: float, footprints_in, origin_in) -> np.ndarray:
    """Discs of figures whose centre stands on (or within their radius of) a piece, added to it."""
    out = mask.copy()
    h, w = mask.shape
    near = cv2.dilate(mask, _kernel(0.15, ppi))
    for x, y, radius in footprints_in:
        u, v = (x - origin_in[0]) * ppi, (y - origin_in[1]) * ppi
        iu, iv = int(round(u)), int(round(v))
        if not (0 <= iu < w and 0 <= iv < h):
            continue
        # The figure stands on the piece when its centre is on it, or when the felt shows all round a
        # good part of it (just outside its footprint, where the figure does not hide the felt).
        r = radius * ppi
        angles = np.linspace(0, 2 * math.pi, 16, endpoint=False)
        ring = np.column_stack([u + 1.3 * r * np.cos(angles), v + 1.3 * r * np.sin(angles)]).round().astype(int)
        inside = [(0 <= a < w and 0 <= b < h and mask[b, a]) for a, b in ring]
        if near[iv, iu] or sum(inside) >= 6:
            cv2.circle(out, (iu, iv), int(math.ceil(r + 0.1 * ppi)), 1, thickness=cv2.FILLED)
    return out
