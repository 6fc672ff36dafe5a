"""Felt terrain: pieces of the profile's terrain colours become simplified polygons in table inches.

Felt and mats both have texture (grass, gravel, wood grain, the felt's own fibres) and felt edges are
soft and ragged, so the table-plane top view is first smoothed at felt scale (a median, then a
blur), then compared in a perceptual space (CIE Lab) with the profile's felt colours and with the
mat's own colour. The mat's colour is measured, not given: the view's median, then, place by place,
the mean of the mat-like pixels within `MAT_REACH_IN`, so a lamp's hot spot, vignetting or a warm
corner shift the mat and every felt in it alike and are taken out. A pixel is felt of a kind when
that kind is the nearest of all (mat, felts, the sides' rim colours) and near enough; labels are
then voted over a felt-scale window, opened (grid lines, pencils, rims go) and closed (blemishes),
and holes are filled: a marker or a figure standing on the felt is part of the piece. Figures
standing on the edge of a piece bite a notch out of its outline; their footprints are added back.

A patch is not a piece when it is small, thin (no disc of `MIN_THICK_IN` fits in it), lies mostly
along the table's edge (the floor, a cloth or a book hanging over the edge, an arm reaching in), or
is square-cut and hangs over the table's edge (a book, a box). Each piece reports a
`confidence`: how much of it shows the kind's colour, times how far that colour stands from the
mat's.
"""
from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

from measure.scene import Terrain

TERRAIN_PPI = 10.0
MIN_AREA_SQIN = 8.0          # smaller patches of a terrain colour are not a piece
MAX_HOLE_SQIN = 3.0          # holes up to this are filled: a figure or a marker standing on the felt
MIN_THICK_IN = 0.6           # a piece holds a disc this wide somewhere (pencils, strips, rims do not)
SMOOTH_IN = 0.25             # felt-scale smoothing (texture of mat and felt)
VOTE_IN = 0.6                # labels are voted over a window this wide ...
VOTE_SHARE = 0.4             # ... where this share of the pixels shows the kind (coarse felt texture)
MAT_REACH_IN = 6.0           # the local mat colour is the mean of mat-like pixels this far around
MAT_LIKE_AB = 14.0           # Lab a/b distance from the view's median that is still mat (for its colour)
LEARN_AXES = np.array([1.0, 1.0, 1.0], np.float32)   # read off the photo in lightness and hue (named by eye)
MAX_LEARN_DE = 8.0           # a kind's colour read off the photo moves at most this far from the profile's
MAX_DELTA_E = 28.0           # a felt pixel lies at most this far (weighted Lab) from the felt's colour
L_WEIGHT = 0.8               # lightness counts less than hue: exposure is the least certain part
EDGE_BAND_IN = 1.0           # a patch mostly within this of the table's edge is not on the table
MAX_EDGE_SHARE = 0.5
EDGE_TOUCH_IN = 0.3          # a patch this near the view's edge touches the table's edge ...
MAX_REACH_ASPECT = 1.8       # ... and one this elongated there reaches in from outside (an arm),
MIN_EDGE_THING_FILL = 0.8    # one filling its bounding rectangle this well hangs over it (a book)
SIMPLIFY_IN = 0.06           # outline simplification tolerance
MIN_SEPARATION_DE = 6.0      # a felt nearer the mat's colour than this is not looked for
MIN_CONFIDENCE = 0.5         # pieces less sure than this are not reported
MIN_SHOWN = 0.6              # of a piece's inside (0.3" in from its edge) that shows its colour
SEPARATION_DE = 20.0         # felt this far (Lab) from the mat's colour counts as fully distinct
SHADE_MARGIN_DE = 3.0        # a felt colour must beat the mat in shade by this much (a mug's shadow)
SHADES = (0.35, 0.45, 0.55, 0.62)   # the mat's colour scaled: the mat in shadow
# Things on a table that are no felt: paper, a phone, a pencil. Each competes for pixels unless it
# is near one of the profile's felt colours (a white "snow" felt stays snow). Hands are found by
# vision.hands and handed in as `exclude_mask`.
DISTRACTORS = ((236, 236, 236), (28, 28, 30), (225, 185, 45))
DISTRACTOR_MIN_DE = 12.0
DISTRACTOR_MARGIN_DE = 0.0


def _kernel(radius_in: float, ppi: float) -> np.ndarray:
    n = max(1, int(round(radius_in * ppi))) * 2 + 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (n, n))


def lab_of(bgr: np.ndarray) -> np.ndarray:
    """BGR 0-255 (any shape ..., 3) -> float32 Lab (L 0-100)."""
    arr = np.clip(np.asarray(bgr, np.float32), 0, 255).reshape(-1, 1, 3) / 255.0
    return cv2.cvtColor(arr, cv2.COLOR_BGR2Lab).reshape(np.shape(bgr))


def rgb_lab(rgb: Sequence[int]) -> np.ndarray:
    return lab_of(np.array([[rgb[::-1]]], np.uint8))[0, 0]


def _smooth(view_bgr: np.ndarray, ppi: float) -> np.ndarray:
    k = min(5, max(3, int(round(SMOOTH_IN * ppi)) | 1))      # (a float median takes 3 or 5)
    out = cv2.medianBlur(np.asarray(view_bgr, np.float32), k)
    return cv2.GaussianBlur(out, (0, 0), SMOOTH_IN * ppi / 2)


def _mat_light(bgr: np.ndarray, ppi: float, colours: Sequence[np.ndarray], reference_px: np.ndarray | None
               ) -> np.ndarray:
    """(H, W, 3) per-channel gains that make the mat look everywhere as it does at the reference
    (the anchors; else the mat's median): a lamp's hot spot, vignetting and a warm corner are
    taken out as they act, channel by channel on the light (not as a shift in Lab).

    The local mat colour is the mean of the mat's pixels around: first those near the view's median
    in a/b (a lighting gradient moves L a long way and a/b a little), then, with that light taken
    out, those nearer the mat than any felt colour (dark woods on a green mat are green too)."""
    small = max(1, int(ppi // 2))     # the mat's light changes slowly: work at a coarse scale
    shape = bgr.shape[:2]
    bgr_s = cv2.resize(bgr, (max(1, shape[1] // small), max(1, shape[0] // small)), interpolation=cv2.INTER_AREA)
    lab_s = lab_of(bgr_s)
    mat = np.median(lab_s.reshape(-1, 3), axis=0).astype(np.float32)
    k = max(3, (int(round(2 * MAT_REACH_IN * ppi)) // small) | 1)

    def spread(like: np.ndarray) -> np.ndarray:
        weight = cv2.blur(like, (k, k), borderType=cv2.BORDER_REFLECT)
        total = cv2.blur(bgr_s * like[..., None], (k, k), borderType=cv2.BORDER_REFLECT)
        fallback = np.median(bgr_s.reshape(-1, 3), axis=0)
        return np.where(weight[..., None] > 0.05, total / np.maximum(weight, 1e-6)[..., None], fallback)

    def reference(local: np.ndarray) -> np.ndarray:
        if reference_px is None or not len(reference_px):
            return np.median(local.reshape(-1, 3), axis=0)
        u = np.clip(np.round(reference_px[:, 0] / small).astype(int), 0, local.shape[1] - 1)
        v = np.clip(np.round(reference_px[:, 1] / small).astype(int), 0, local.shape[0] - 1)
        return local[v, u].mean(axis=0)

    local = spread((np.hypot(lab_s[..., 1] - mat[1], lab_s[..., 2] - mat[2]) < MAT_LIKE_AB).astype(np.float32))
    flat = lab_of(bgr_s * (reference(local) / np.maximum(local, 1.0)))
    ref_lab = lab_of(reference(local)[None, None])[0, 0]
    d_mat = _distance(flat, ref_lab)
    nearer = np.ones(d_mat.shape, bool)
    for colour in colours:
        nearer &= d_mat < _distance(flat, colour)
    if nearer.mean() > 0.2:
        local = spread(nearer.astype(np.float32))
    gains = (reference(local) / np.maximum(local, 1.0)).astype(np.float32)
    return cv2.resize(gains, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)


def _distance(lab: np.ndarray, colour: np.ndarray) -> np.ndarray:
    if isinstance(lab, _LabPlanes):
        return lab.distance(colour)
    d = lab - colour
    return np.sqrt((L_WEIGHT * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


class _LabPlanes:
    """A Lab view split once into contiguous L, a, b planes, for the many distances a view is
    labelled by: the same sums as `_distance` (the same order, the same precision) done in place,
    without an (H, W, 3) difference per colour."""

    def __init__(self, lab: np.ndarray):
        self.shape = lab.shape[:2]
        self.planes = [np.ascontiguousarray(lab[..., c]) for c in range(3)]

    def distance(self, colour: np.ndarray) -> np.ndarray:
        colour = np.asarray(colour)
        dtype = np.result_type(self.planes[0], colour)
        c = colour.astype(dtype, copy=False)
        out = np.subtract(self.planes[0], c[..., 0], dtype=dtype)
        out *= L_WEIGHT
        np.square(out, out=out)
        tmp = np.empty_like(out)
        for k in (1, 2):
            np.subtract(self.planes[k], c[..., k], out=tmp, dtype=dtype)
            np.square(tmp, out=tmp)
            out += tmp
        return np.sqrt(out, out=out)


def label_felt(view_bgr: np.ndarray, ppi: float, kind_rgbs: Sequence[Sequence[int]],
               other_rgbs: Sequence[Sequence[int]] = (), reference_px: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """(H, W) int label (kind index or -1) and each kind's distance from the mat (K,), for a
    table-plane view. `reference_px`: (N, 2) view pixels whose light the view was white-balanced
    for (the anchors): everywhere is brought to that light.

    The profile's colours are the first guess; each kind's colour is then read off the felt found
    with it (the middle of its pieces) and the view labelled again, so that a felt that photographs
    a little off its profile colour still has its edge where it is half felt, half mat."""
    profile = [rgb_lab(c) for c in kind_rgbs]
    smooth = _smooth(view_bgr, ppi).astype(np.float32)
    lab = lab_of(smooth * _mat_light(smooth, ppi, profile, reference_px))
    step = max(1, int(math.sqrt(lab.shape[0] * lab.shape[1] / 20000)))
    mat = np.median(lab[::step, ::step].reshape(-1, 3), axis=0)
    mat_bgr = cv2.cvtColor(mat.reshape(1, 1, 3).astype(np.float32), cv2.COLOR_Lab2BGR)[0, 0]
    planes = _LabPlanes(lab)
    background = [_distance(planes, mat)]
    background += [_distance(planes, lab_of(mat_bgr * shade * 255)) + SHADE_MARGIN_DE for shade in SHADES]
    base = np.minimum.reduce(background)
    others = [_distance(planes, rgb_lab(c)) for c in other_rgbs]
    # Things that are no felt win a pixel only clearly; none that is near one of the felt colours.
    others += [_distance(planes, c) + DISTRACTOR_MARGIN_DE for c in map(rgb_lab, DISTRACTORS)
               if all(float(_distance(c[None, None], k)[0, 0]) >= DISTRACTOR_MIN_DE for k in profile)]
    other = np.minimum.reduce(others) if others else np.full(base.shape, np.inf, np.float32)

    def classify(colours):
        best = base.copy()
        label = np.full(lab.shape[:2], -1, np.int32)
        for k, colour in enumerate(colours):
            d = _distance(planes, colour)
            take = (d < best) & (d < MAX_DELTA_E)
            label[take] = k
            np.copyto(best, d, where=take)
        label[other < best] = -1
        return label

    label = classify(profile)
    seen = list(profile)
    core = _kernel(0.4, ppi)
    for k in range(len(profile)):
        middle = cv2.erode((label == k).astype(np.uint8), core) > 0
        if middle.sum() >= 2 * ppi * ppi:
            shift = (np.median(lab[middle], axis=0) - profile[k]) * LEARN_AXES
            size = float(_distance(shift[None, None], np.zeros(3, np.float32))[0, 0])
            seen[k] = profile[k] + shift * min(1.0, MAX_LEARN_DE / max(size, 1e-6))
    label = classify(seen)
    separation = np.array([float(_distance(c[None, None], mat)[0, 0]) for c in seen], np.float32)
    return label, separation


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
    ox, oy = origin_in
    reference_px = (np.asarray(reference_in, np.float64).reshape(-1, 2) - (ox, oy)) * ppi if len(reference_in) else None
    label, separation = label_felt(view_bgr, ppi, [rgb for _, rgb in kinds], side_rgbs, reference_px)
    h, w = label.shape
    for x0, y0, x1, y1 in exclude_in:
        label[max(0, int((y0 - oy) * ppi)):max(0, int(math.ceil((y1 - oy) * ppi))),
              max(0, int((x0 - ox) * ppi)):max(0, int(math.ceil((x1 - ox) * ppi)))] = -1
    if table_in is None:
        table_in = (ox, oy, ox + w / ppi, oy + h / ppi)
    if exclude_mask is not None:
        label[exclude_mask] = -1
    edge = _edge_band(label.shape, ppi, origin_in, table_in)
    vote = max(3, int(round(VOTE_IN * ppi)) | 1)
    pieces: list[tuple[str, Polygon, float]] = []
    for k, (kind, _) in enumerate(kinds):
        raw = (label == k).astype(np.uint8)
        if not raw.any() or separation[k] < MIN_SEPARATION_DE:
            continue                  # a felt the mat's own colour cannot be told from the mat
        mask = (cv2.blur(raw.astype(np.float32), (vote, vote)) > VOTE_SHARE).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _kernel(0.25, ppi))
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _kernel(0.4, ppi))
        mask = _fill_holes(mask, MAX_HOLE_SQIN * ppi * ppi)
        if footprints_in:
            mask = _add_footprints(mask, ppi, footprints_in, origin_in)
        count, comp = cv2.connectedComponents(mask, connectivity=8)
        for c in range(1, count):
            part = (comp == c).astype(np.uint8)
            area_px = int(part.sum())
            if area_px < MIN_AREA_SQIN * ppi * ppi or not _plausible(part, ppi, edge):
                continue
            polygon = _polygon(part, ppi, origin_in)
            if polygon is None:
                continue
            inner = cv2.erode(part, _kernel(0.3, ppi))
            shown = float(raw[inner > 0].mean()) if inner.any() else float(raw[part > 0].mean())
            if shown < MIN_SHOWN:
                continue              # mostly not its colour: a ring of blends (a mug's rim), a seam
            confidence = min(1.0, shown / 0.9) * min(1.0, float(separation[k]) / SEPARATION_DE)
            if confidence < MIN_CONFIDENCE:
                continue              # too like the mat to tell: a phantom piece costs more than a missed one
            pieces.append((kind, polygon, round(confidence, 3)))
    pieces.sort(key=lambda p: (p[1].centroid.y, p[1].centroid.x))
    return tuple(Terrain(f"t{i + 1}", kind, poly, extra={"confidence": conf})
                 for i, (kind, poly, conf) in enumerate(pieces))


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


def _polygon(part: np.ndarray, ppi: float, origin_in) -> Polygon | None:
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(contours, key=cv2.contourArea)
    if len(contour) < 3:
        return None
    ring = contour.reshape(-1, 2).astype(np.float64) / ppi + origin_in
    # Contour points are the centres of the edge pixels: the felt's edge is half a pixel out.
    polygon = shapely.make_valid(Polygon(ring)).buffer(0.5 / ppi, join_style="mitre")
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
    out = mask.copy()
    for c in range(1, count):
        x, y, bw, bh, area = stats[c]
        if area <= max_px and x > 0 and y > 0 and x + bw < w and y + bh < h:
            out[comp == c] = 1
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
