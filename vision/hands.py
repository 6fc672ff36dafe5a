"""A hand and arm over the table: found in the white-balanced top view, so that the figures under
it are reported hidden (at their last place), never removed, and nothing on it is taken for a base.

A hand is found at a few pixels per inch (it is inches wide) by what sets skin apart from a mat:
- its colour lies in a broad skin region of log-chromaticity (log R/G, log B/G after the anchors'
  white balance), from pale skin under a tungsten lamp to dark skin in daylight;
- it differs from the mat around it: either in colour and brightness (measured against the mat's
  local median, in units of the mat's own spread) or, on a textured mat (grass, gravel, wood
  grain), by being smooth where the mat is rough; a hand and forearm on a plain mat of near its
  colour, shaded as unevenly as the mat is mottled, by being both fairly smooth and apart from the
  mat, and large;
- it is large (a palm with its forearm: several square inches) and reaches in from the table's
  edge unless it is larger still; a palm fits in it (a ruler, a pencil does not); it is not
  square-cut or convex all round (a book, a phone, a page cut by the table's edge), not round
  (coffee in a mug), not a felt colour of the profile.
The sleeve it comes out of (any colour: smooth, not the mat, joining the hand and running out over
the table's edge) hides figures too and is taken with it. Where no blob of skin is a hand, a patch
smooth and unlike the mat, of a hand's size and shape, at a sleeve's inner end is the hand, whatever
its colour (a pale hand under a warm lamp clips to a colour off skin). Where the camera clipped
such a patch its colour is the clipping's, not its own, and only its shape is judged: nearer a felt
colour than a skin tone, it is still the hand, and where its sleeve lies beyond the table's edge,
such a patch that itself runs over the edge is the hand and arm. The outline, a little enlarged, is
what they hide. Fingertips reaching past it (a finger is a pixel or two wide here, and the blob leaves
them out) are followed as the hand's own colour joined to the blob, or as skin at the hand's far
end: a ring fitted to them is no base.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence

import cv2
import numpy as np
import shapely
from shapely.geometry import Point, Polygon

from measure.scene import Figure, Scene
from vision.colour import rgb_chroma
from vision.settings import VISION_DEFAULTS
from vision.whitebalance import CLIP_LEVEL

HAND_PPI = 5.0               # the view hands are looked for in: a finger is still a pixel or two wide
MIN_AREA_IN2 = 5.0           # a child's palm and wrist, seen from above, reaching in from the edge
MIN_FREE_AREA_IN2 = 8.0      # a hand and forearm not touching the table's edge (a sleeve between)
FELT_HAND_IN2 = 20.0         # a hand and forearm reaching in that reads nearer a felt colour than skin (a grey
                             # book's corner, a page's margin or a white table's corner at the edge: 8-13)
# Skin in log-chromaticity (u = log R/G, v = log B/G) after white balance: an ellipse along the
# line from pale skin (under a warm lamp nearly neutral) to dark skin, wide across it.
SKIN_CENTRE_UV = (0.30, -0.25)
SKIN_AXIS_UV = (0.902, -0.432)
SKIN_HALF_LENGTH, SKIN_HALF_WIDTH = 0.42, 0.15
SKIN_MOST_VIVID = 1.35       # skin is also skin made up to this many times as vivid (its chromaticity
                             # so much further from grey): a phone's saturation
MIN_LOG_BRIGHTNESS = 4.1     # log of the mean channel (~60 of 255): coffee and a dark book are darker
MAT_CELL_IN = 3.0            # the mat's local median: cells this size, median over 5 x 5 of them
MIN_SPREAD = (0.05, 0.02, 0.02)  # floor of the mat's spread in (log brightness, u, v)
MIN_FROM_MAT = 3.0           # in the mat's spreads: a pixel this far from the mat around it is not mat
SMOOTH_ABS = 0.02            # local contrast (std / brightness over 3 x 3 px) below this is smooth,
SMOOTH_REL = 0.35            # or below this share of the mat's own local contrast
ROUGH_MAT = 0.04             # a mat this rough (grass, gravel, grain) tells a smooth patch from itself
BLOB_SMOOTH = 0.12           # a hand's median contrast over the mat's; else it must differ in colour:
BLOB_FROM_MAT = 6.0          # its median distance from the mat, in the mat's spreads, and
BLOB_FROM_TABLE = 3.0        # from the whole table's mat (its median), in that mat's spreads: beside felt
                             # running off the table's edge the mat round a patch of it is mostly felt, and
                             # the plain mat there lies 6-9 local spreads from it (1 from the table's; a
                             # hand judged by its colour lies 7 or more from the table's)
MOTTLED_SMOOTH = 0.2         # or, a hand and forearm's size (MOTTLED_MIN_IN2), this smooth and this far from the
MOTTLED_FROM_MAT = 3.0       # mat (in its spreads): a hand on a plain mat near its colour, shaded as the mat is
MOTTLED_MIN_IN2 = 12.0       # mottled (the mottle's own blobs are smaller or nearer the mat)
MAX_RECT_FILL = 0.88         # of its smallest enclosing rectangle a hand fills less (a book, a phone),
ARM_ASPECT = 3.0             # unless, clear of the table's edge, it is this many times as long as wide and
                             # joins a sleeve: a forearm and hand held straight, the palm and fingers lost in a
                             # mat of their own colour (seed 23 photo 44 of the hard set: 10 x 2.2 in, 0.89 of
                             # its rectangle); a book, a phone, a page is not so long, a ruler or a pencil holds
                             # no palm. At the edge a blob is its own sleeve: a bare forearm there is judged as
                             # a book or a page cut by the edge is
MIN_RECT_FILL = 0.3          # and more (a palm and forearm are solid)
MAX_CIRCLE_FILL = 0.75       # and of its enclosing circle (coffee in a mug)
MIN_PALM_IN = 1.3            # a disc this wide fits in a hand's blob (a child's palm is 2.4" across, a
                             # pixel of it each side may read as the mat's edge); a ruler is 1-1.2" wide
MAX_SOLIDITY = 0.92          # of its convex hull: a hand has a thumb and fingers, a cut page is convex
GROW_IN = 0.6                # the fingers and edges a smoothness test leaves out
# Fingers reaching past that: a finger is a pixel or two wide at HAND_PPI, its 3 x 3 contrast the step to the
# mat, so the blob leaves it out; a ring fitted to the fingertips reads as a base of a warm side's colour.
FINGER_REACH_IN = 1.2        # a hand's own colour, or skin, unlike the mat, is followed this far out of its blob
FINGER_TOL = (0.25, 0.25, 0.5)  # the blob's own colour: this near its median (log brightness and the skin
                             # ellipse's two axes, in their units; or 3 of its own spreads, if more)
FINGER_TIP_IN = 1.0          # skin of another tone is a finger only in a part reaching within this of the
                             # hand's far end from where it comes in (a base's rim beside the forearm or
                             # the wrist, of a hue near skin's, joins the skin too)
FINGER_NEAR_IN = 0.4         # a colour base centred this near a finger is a ring fitted to the fingertips
MAX_ARM_SHARE = 0.15         # a sleeve covers less of the table than this
CLIPPED_ARM_SHARE = 0.5      # of a patch's pixels with a channel clipped (as photographed): its colour is lost
MIN_CLIPPED_ARM_IN2 = 8.0    # a clipped patch over the table's edge, judged by its shape alone, is as large
                             # as a hand away from the edge (a clipped page's corner, its margin round the
                             # print, is less)
# Skin from fair to dark (RGB), after white balance: a patch nearer a felt colour than all of these is felt.
SKIN_TONES = ((230, 185, 155), (205, 155, 120), (165, 115, 80), (110, 75, 55))
REACH_IN = 0.4               # a base this close to a hand's outline is under it
MARKER_REACH_IN = 1.5        # a marker read before and not now is under a hand this close: a marker in view is
                             # read, and the outline found can fall short of the fingers (seed 31 photo 2 of
                             # the hard set: 1.0" short)
CARRIED_REACH_IN = 1.0       # any other figure seen in the last picture and not now (a colour base) is under a
                             # hand this close: the outline found falls short of the fingers, and a base partly
                             # under them is not found (six on the goal seeds of the hard set: 0.44-0.70")


@dataclass(frozen=True)
class Hands:
    polygons: tuple[Polygon, ...]         # table inches
    mask: np.ndarray                      # (H, W) bool in the view it was found in, enlarged by REACH_IN
    ppi: float = HAND_PPI
    origin_in: tuple[float, float] = (0.0, 0.0)
    finger_zone: np.ndarray | None = None  # (H, W) bool in that view: within FINGER_NEAR_IN of a finger
                                           # beyond the outline

    def mask_in(self, view) -> np.ndarray | None:
        """The enlarged hands as a (H, W) bool mask of another top view (a TopView), or None."""
        if not self.polygons:
            return None
        h, w = view.image.shape[:2]
        x = view.origin_in[0] + (np.arange(w) + 0.5) / view.ppi
        y = view.origin_in[1] + (np.arange(h) + 0.5) / view.ppi
        col = np.clip(((x - self.origin_in[0]) * self.ppi).astype(int), 0, self.mask.shape[1] - 1)
        row = np.clip(((y - self.origin_in[1]) * self.ppi).astype(int), 0, self.mask.shape[0] - 1)
        return self.mask[row[:, None], col[None, :]]

    def covers(self, xy_in: np.ndarray, reach_in: float = REACH_IN, fingers: bool = False) -> np.ndarray:
        """(N,) bool: points under a hand (within `reach_in` of one); with `fingers`, also those
        within FINGER_NEAR_IN of its fingers beyond its outline."""
        xy = np.asarray(xy_in, np.float64).reshape(-1, 2)
        if not self.polygons:
            return np.zeros(len(xy), bool)
        hand = shapely.union_all(self.polygons)
        out = shapely.contains(hand.buffer(reach_in) if reach_in else hand, shapely.points(xy))
        if fingers and self.finger_zone is not None:
            fx, fy = ((xy[:, 0] - self.origin_in[0]) * self.ppi, (xy[:, 1] - self.origin_in[1]) * self.ppi)
            h, w = self.finger_zone.shape
            inside = (fx >= 0) & (fy >= 0) & (fx < w) & (fy < h)     # (False for a point not finite)
            out[inside] |= self.finger_zone[fy[inside].astype(int), fx[inside].astype(int)]
        return out

    def as_json(self) -> list[dict]:
        return [{"polygon": [[round(x, 2), round(y, 2)] for x, y in list(p.exterior.coords)[:-1]],
                 "area_in2": round(p.area, 1)} for p in self.polygons]


@dataclass(frozen=True)
class _Layers:
    """Per-pixel evidence at HAND_PPI."""
    skin: np.ndarray              # bool: skin-coloured, bright enough
    vivid_only: np.ndarray        # bool: of those, skin only made more vivid (SKIN_MOST_VIVID)
    smooth: np.ndarray            # bool
    not_mat: np.ndarray           # bool: far from the mat around it, or smooth on a rough mat
    from_mat2: np.ndarray         # squared distance from the mat around it, in the mat's spreads
    contrast_ratio: np.ndarray    # local contrast over the mat's
    feats: np.ndarray             # (H, W, 3) float32: log brightness, and chromaticity on the skin ellipse's axes
    table_mat: np.ndarray         # (3,) the whole table's mat in those features (their median) ...
    table_spread: np.ndarray      # (3,) ... and its spread


def _at_hand_ppi(img: np.ndarray, ppi: float) -> tuple[np.ndarray, float]:
    h, w = img.shape[:2]
    if ppi <= HAND_PPI * 1.01 or h < 2 or w < 2:
        return img, ppi
    if abs(ppi / HAND_PPI - 2.0) < 1e-6:      # halving: bilinear at the midpoints is the 2 x 2 mean, faster
        size = (w // 2, h // 2)
        return cv2.resize(img[:2 * size[1], :2 * size[0]], size, interpolation=cv2.INTER_LINEAR), HAND_PPI
    size = (max(1, int(round(w * HAND_PPI / ppi))), max(1, int(round(h * HAND_PPI / ppi))))
    small = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    return small, ppi * size[0] / w


def _local_median(x: np.ndarray, ppi: float) -> np.ndarray:
    """The mat around each pixel: the median of 5 x 5 cells of MAT_CELL_IN, smoothed back up; a hand
    covers few of them."""
    h, w = x.shape[:2]
    sw, sh = max(3, int(round(w / ppi / MAT_CELL_IN))), max(3, int(round(h / ppi / MAT_CELL_IN)))
    small = cv2.medianBlur(cv2.resize(x, (sw, sh), interpolation=cv2.INTER_AREA), 5)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _to_features() -> np.ndarray:
    """(3, 4) affine map from (log B, log G, log R) to (log brightness, along, across): the last two
    are the skin ellipse's axes in (u, v) = (log R/G, log B/G), in its half-axes, from its centre."""
    (cu, cv), (au, av) = SKIN_CENTRE_UV, SKIN_AXIS_UV
    # u = r - g and v = b - g, as coefficients of (b, g, r)
    u, v = np.array([0.0, -1.0, 1.0]), np.array([1.0, -1.0, 0.0])
    along = np.append(au * u + av * v, -(au * cu + av * cv)) / SKIN_HALF_LENGTH
    across = np.append(-av * u + au * v, -(-av * cu + au * cv)) / SKIN_HALF_WIDTH
    return np.array([[1 / 3, 1 / 3, 1 / 3, 0.0], along, across], np.float32)


_TO_FEATURES = _to_features()
_MEAN = np.full((1, 3), 1 / 3, np.float32)
# The floors of the mat's spread, in the features' units.
_MIN_SPREAD = np.array([MIN_SPREAD[0], MIN_SPREAD[1] / SKIN_HALF_LENGTH, MIN_SPREAD[2] / SKIN_HALF_WIDTH])


# Grey's (along, across), at (u, v) = (0, 0): the features are affine in (u, v), so a colour made
# s times as vivid lies s times as far from this point.
_GREY = _TO_FEATURES[1:, 3].copy()


def _skin_radii2(feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The squared distances from the skin ellipse's centre in its half-axes (under 1 is skin) of
    features `feats` (_TO_FEATURES'): of the colour as it is, and of the same colour made 1 to
    1/SKIN_MOST_VIVID times as vivid, whichever is nearest (the nearest point to the centre on the
    segment towards grey)."""
    _, along, across = cv2.split(feats)
    as_is = along * along + across * across
    g_along, g_across = _GREY
    a, b = along - g_along, across - g_across          # from grey
    # the share of the way from grey, t * (a, b) + grey nearest the centre, within [1 / most vivid, 1]
    t = cv2.divide(a * g_along + b * g_across, cv2.max(a * a + b * b, 1e-12), scale=-1.0)
    t = cv2.min(cv2.max(t, 1 / SKIN_MOST_VIVID), 1.0)
    a, b = g_along + t * a, g_across + t * b
    return as_is, a * a + b * b


def _median(x: np.ndarray) -> float:
    k = len(x) // 2
    return float(np.partition(x, k)[k]) if len(x) else 0.0


def _layers(img: np.ndarray, ppi: float) -> _Layers:
    """`img`: white-balanced float32 BGR at about HAND_PPI."""
    feats = cv2.transform(cv2.log(np.maximum(img, np.float32(1.0))), _TO_FEATURES)
    mat = _local_median(feats, ppi)
    dev = cv2.subtract(feats, mat)
    h, w = dev.shape[:2]
    step = max(1, int(np.sqrt(h * w / 1500)))
    sample = np.abs(dev[::step, ::step]).reshape(-1, 3).T.copy()
    k = sample.shape[1] // 2
    spread = np.maximum(np.partition(sample, k, axis=1)[:, k] * 1.48, _MIN_SPREAD)
    whole = feats[::step, ::step].reshape(-1, 3).T
    table_mat = np.partition(whole, k, axis=1)[:, k]
    table_spread = np.maximum(np.partition(np.abs(whole - table_mat[:, None]), k, axis=1)[:, k] * 1.48, _MIN_SPREAD)
    dist2 = cv2.transform(cv2.multiply(dev, dev), (1.0 / spread ** 2).reshape(1, 3).astype(np.float32))
    # Local contrast of brightness over 3 x 3 pixels, relative to the mat's brightness there.
    y = cv2.transform(img, _MEAN)
    m1 = cv2.blur(y, (3, 3))
    sd = cv2.sqrt(cv2.max(cv2.blur(cv2.multiply(y, y), (3, 3)) - cv2.multiply(m1, m1), 0.0))
    sd = cv2.divide(sd, cv2.exp(np.ascontiguousarray(mat[..., 0])))
    sd_mat = _local_median(sd, ppi)
    smooth = sd < cv2.max(SMOOTH_REL * sd_mat, SMOOTH_ABS)
    lum = feats[..., 0]
    as_is, made_vivid = _skin_radii2(feats)
    skin = (made_vivid < 1) & (lum > MIN_LOG_BRIGHTNESS)
    vivid_only = skin & (as_is >= 1)
    # Smooth on a rough mat, over more than a streak (wood grain has smooth lines along it).
    smooth_on_rough = cv2.morphologyEx((smooth & (sd_mat > ROUGH_MAT)).astype(np.uint8), cv2.MORPH_OPEN,
                                       np.ones((3, 3), np.uint8)) > 0
    not_mat = (dist2 > MIN_FROM_MAT ** 2) | smooth_on_rough
    return _Layers(skin, vivid_only, smooth, not_mat, dist2, sd / cv2.max(sd_mat, 1e-4), feats, table_mat,
                   table_spread)


def _is_felt(chroma_mean: np.ndarray, other_rgbs) -> bool:
    """A warm patch clearly nearer a felt colour of the profile (a hill) than any skin tone is felt."""
    if not other_rgbs:
        return False
    d_felt = min(float(np.linalg.norm(chroma_mean - rgb_chroma(c))) for c in other_rgbs)
    d_skin = min(float(np.linalg.norm(chroma_mean - rgb_chroma(c))) for c in SKIN_TONES)
    return d_felt < 0.5 * d_skin          # a hill's tan is a skin tone too: only clearly nearer


HAND, FELT_COLOURED = "hand", "felt-coloured"


def _judge(inside: np.ndarray, stats_row: np.ndarray, shape: tuple[int, int], ppi: float, layers: _Layers,
           img: np.ndarray, other_rgbs, joins_sleeve: Callable[[], bool] = lambda: False) -> str | None:
    """HAND, FELT_COLOURED (a hand's size and shape, nearer a felt colour of the profile than a skin
    tone: a hand only if a hand and forearm's size reaching in from the table's edge, or clipped at a
    sleeve's end) or None, for a blob of skin; `inside`:
    its pixels in its bounding box (`stats_row`) of the view (`shape`); `joins_sleeve`: whether it
    joins a sleeve (asked only of a long, straight-edged blob clear of the table's edge: at the edge
    a blob is its own sleeve)."""
    area_px = int(stats_row[cv2.CC_STAT_AREA])
    x, y, bw, bh = (int(stats_row[c]) for c in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH,
                                               cv2.CC_STAT_HEIGHT))
    at_edge = _touches_edge(x, y, bw, bh, shape)
    if not at_edge and area_px < MIN_FREE_AREA_IN2 * ppi * ppi:
        return None
    box = (slice(y, y + bh), slice(x, x + bw))
    # Skin is smooth beside the mat, or clearly not the mat's colour. Its smoothness is read where
    # the 3 x 3 contrast sees only the blob: at its outline that contrast is the step to the mat
    # (a pale hand a step lighter than a tan mat, fingers a pixel or two wide at HAND_PPI).
    core = _interior(inside)
    contrast = _median(layers.contrast_ratio[box][core if core.any() else inside])
    from_mat2 = _median(layers.from_mat2[box][inside])
    mottled = not (contrast < BLOB_SMOOTH or (from_mat2 > BLOB_FROM_MAT ** 2 and _far_from_table(layers, box, inside)))
    if mottled and not (contrast < MOTTLED_SMOOTH and from_mat2 > MOTTLED_FROM_MAT ** 2
                        and area_px >= MOTTLED_MIN_IN2 * ppi * ppi):
        return None
    if not _holds_a_palm(inside, ppi):
        return None              # a ruler, a pencil, a page's margin
    contours, _ = cv2.findContours(inside.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(outline)
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    arm = not at_edge and max(rw, rh) >= ARM_ASPECT * min(rw, rh)
    if area_px > MAX_RECT_FILL * max(rw * rh, 1.0) and not (arm and joins_sleeve()):
        return None              # square-cut: a book, a phone, a box (not an arm straight out of its sleeve)
    if area_px < MIN_RECT_FILL * rw * rh:
        return None              # a thin frame: the margins round a printed page's text
    (_, _), radius = cv2.minEnclosingCircle(hull)
    if area_px > MAX_CIRCLE_FILL * np.pi * radius * radius:
        return None              # round: coffee in a mug, a cork mat
    if cv2.contourArea(outline) > MAX_SOLIDITY * max(cv2.contourArea(hull), 1.0):
        return None              # convex all round: a page or a book cut by the table's edge
    mean_bgr = img[box][inside].mean(axis=0)
    if _is_felt(mean_bgr / max(float(mean_bgr.sum()), 1.0), other_rgbs):
        return None if mottled else FELT_COLOURED    # (a mottled patch nearer a felt colour is no hand's)
    return HAND


def _far_from_table(layers: _Layers, box: tuple[slice, slice], inside: np.ndarray) -> bool:
    """Whether a blob (`inside`, bool, its bounding `box` of the view) lies, by its median, more than
    BLOB_FROM_TABLE of the whole table's mat spreads from that mat (its features' distance)."""
    d2 = (((layers.feats[box][inside] - layers.table_mat) / layers.table_spread) ** 2).sum(axis=1)
    return _median(d2) > BLOB_FROM_TABLE ** 2


def _holds_a_palm(inside: np.ndarray, ppi: float) -> bool:
    """Whether a disc MIN_PALM_IN across fits in the blob (bool, its bounding box): a palm does, a
    ruler, a pencil or a page's margin does not, however its outline bends at a few pixels an inch."""
    padded = np.pad(inside, 1).astype(np.uint8)
    # (the distance from a pixel's centre to the nearest pixel outside, less half a pixel, is the
    # radius of the disc centred there that the blob's pixels hold)
    return float(cv2.distanceTransform(padded, cv2.DIST_L2, 5).max()) - 0.5 >= MIN_PALM_IN / 2 * ppi


def _interior(inside: np.ndarray) -> np.ndarray:
    """The pixels of a blob (bool, its bounding box) whose 3 x 3 neighbourhood lies in it."""
    padded = np.pad(inside, 1).astype(np.uint8)
    return cv2.erode(padded, np.ones((3, 3), np.uint8))[1:-1, 1:-1] > 0


def _touches_edge(x, y, bw, bh, shape: tuple[int, int]):
    """Whether a bounding box (left, top, width, height: numbers or arrays of them) reaches the
    edge of a view of `shape`: a hand reaches in from beyond the table."""
    h, w = shape
    return (x <= 0) | (y <= 0) | (x + bw >= w) | (y + bh >= h)


def _components(mask: np.ndarray):
    """cv2.connectedComponentsWithStats (8-connected) of a small mask, the same labels and stats:
    16-bit labels (room for every blob such a mask can hold) take OpenCV's serial labelling, which
    for a view this size is faster than its parallel one and does not wait on a busy machine's
    second core."""
    h, w = mask.shape
    ltype = cv2.CV_16U if ((h + 1) // 2) * ((w + 1) // 2) < 65535 else cv2.CV_32S
    return cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=ltype)


def _sleeves(layers: _Layers) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(labels, is_sleeve, stats): the smooth, not-mat patches of any colour (cv2's labels and stats),
    and which run out over the table's edge and cover less than MAX_ARM_SHARE of it, where a sleeve
    (or a bare forearm) can be."""
    arm = (layers.smooth & layers.not_mat).astype(np.uint8)
    arm = cv2.morphologyEx(arm, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))   # not the smooth streaks of wood grain
    n, labels, stats, _ = _components(arm)
    h, w = arm.shape
    at_edge = _touches_edge(stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP], stats[:, cv2.CC_STAT_WIDTH],
                            stats[:, cv2.CC_STAT_HEIGHT], arm.shape)
    is_sleeve = at_edge & (stats[:, cv2.CC_STAT_AREA] <= MAX_ARM_SHARE * h * w)
    is_sleeve[0] = False
    return labels, is_sleeve, stats


def _hands_at_sleeves(sleeves, layers: _Layers, img: np.ndarray, ppi: float, other_rgbs,
                      grow: np.ndarray, photographed) -> np.ndarray:
    """(H, W) uint8: the hands the skin test missed, at the inner end of a sleeve. A pale hand under a
    warm lamp clips to a colour off skin; it is still smooth and unlike the mat, of a hand's size and
    shape and nearer a skin tone than a felt colour (_judge's HAND), and it is where an arm reaching in
    over the table's edge ends: a smooth, not-mat patch that joins a sleeve (`sleeves`: _sleeves')
    across GROW_IN, a cuff between. Where the camera clipped such a patch (CLIPPED_ARM_SHARE of its
    pixels in `photographed`, a callable giving the view as photographed at this ppi) its colour is
    the clipping's, not its own: nearer a felt colour than a skin tone (_judge's FELT_COLOURED) says
    nothing, and only its shape is judged. A patch that reaches the table's edge itself is a hand and
    bare forearm, its sleeve beyond the edge, only when it is clipped and MIN_CLIPPED_ARM_IN2 or more;
    unclipped it is left out: a book or a page cut by the edge is one, and without skin nothing tells
    it from an arm."""
    labels, is_sleeve, stats = sleeves
    h, w = labels.shape
    found = np.zeros((h, w), np.uint8)
    x, y, bw, bh = (stats[:, c] for c in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT))
    area = stats[:, cv2.CC_STAT_AREA]
    ask = area >= MIN_AREA_IN2 * ppi * ppi
    ask[0] = False                       # (the background)
    at_edge = _touches_edge(x, y, bw, bh, (h, w))
    ask &= ~at_edge | (is_sleeve & (area >= MIN_CLIPPED_ARM_IN2 * ppi * ppi))
    clipped = None
    for i in np.flatnonzero(ask):
        x0, y0, x1, y1 = int(x[i]), int(y[i]), int(x[i] + bw[i]), int(y[i] + bh[i])
        inside = labels[y0:y1, x0:x1] == i
        if not at_edge[i] and not _joins_sleeve(inside, x0, y0, sleeves, grow):
            continue
        verdict = _judge(inside, stats[i], (h, w), ppi, layers, img, other_rgbs, lambda: True)   # (joined, above)
        if verdict is None:
            continue
        if verdict == FELT_COLOURED or at_edge[i]:       # only its shape speaks for it: it must be clipped
            if clipped is None:
                clipped = photographed().max(axis=2) >= CLIP_LEVEL
            if clipped[y0:y1, x0:x1][inside].mean() < CLIPPED_ARM_SHARE:
                continue
        found[y0:y1, x0:x1] |= inside
    return found


def _joins_sleeve(inside: np.ndarray, x0: int, y0: int, sleeves, grow: np.ndarray) -> bool:
    """Whether a blob (`inside`: bool, its bounding box at (x0, y0) in the view), grown by `grow`,
    joins a sleeve (_sleeve_of), looked at in a window round the blob only."""
    labels = sleeves[0]
    h, w = labels.shape
    pad = grow.shape[0] // 2 + 2         # (the growth, and _sleeve_of's seam)
    wy0, wx0 = max(0, y0 - pad), max(0, x0 - pad)
    wy1, wx1 = min(h, y0 + inside.shape[0] + pad), min(w, x0 + inside.shape[1] + pad)
    blob = np.zeros((wy1 - wy0, wx1 - wx0), np.uint8)
    blob[y0 - wy0:y0 - wy0 + inside.shape[0], x0 - wx0:x0 - wx0 + inside.shape[1]] = inside
    return bool(_sleeve_of(cv2.dilate(blob, grow), (labels[wy0:wy1, wx0:wx1], sleeves[1])).any())


def _fingers(found: np.ndarray, grown: np.ndarray, layers: _Layers, ppi: float) -> np.ndarray:
    """(H, W) bool: the fingers of the hands in `found` (uint8, their blobs) reaching past `grown`
    (the blobs grown by GROW_IN), followed from a blob within FINGER_REACH_IN of it: pixels of the
    blobs' own colour anywhere round it (a thumb beside the palm), and skin unlike the mat in the
    parts that reach within FINGER_TIP_IN of a hand's far end (a base's rim beside the wrist, of a
    hue near skin's, joins the skin too, but not the far end)."""
    steps = max(1, int(round(FINGER_REACH_IN * ppi)))
    ys, xs = np.nonzero(found)
    h, w = found.shape
    win = (slice(max(0, ys.min() - steps - 1), min(h, ys.max() + steps + 2)),
           slice(max(0, xs.min() - steps - 1), min(w, xs.max() + steps + 2)))    # all a finger can reach
    own = layers.feats[ys, xs]
    median = np.median(own, axis=0)
    tol = np.maximum(3 * 1.48 * np.median(np.abs(own - median), axis=0), np.asarray(FINGER_TOL, np.float32))
    feats = np.ascontiguousarray(layers.feats[win])
    like = cv2.inRange(feats, tuple((median - tol).tolist()), tuple((median + tol).tolist())) > 0
    in_win, not_mat = found[win], layers.not_mat[win]

    def joined_past(ok: np.ndarray) -> np.ndarray:
        allowed = ((ok & not_mat) | (in_win > 0)).astype(np.uint8)
        joined, count, step = in_win, cv2.countNonZero(in_win), np.ones((3, 3), np.uint8)
        for _ in range(steps):               # followed pixel by pixel from the blob (each step only adds)
            joined = cv2.dilate(joined, step) & allowed
            count, before = cv2.countNonZero(joined), count
            if count == before:
                break
        past = np.zeros((h, w), bool)
        past[win] = (joined > 0) & (grown[win] == 0)
        return past

    skin_past = joined_past(like | layers.skin[win])
    return joined_past(like) | (_at_far_end(skin_past, found, ppi) if skin_past.any() else skin_past)


def _at_far_end(parts: np.ndarray, found: np.ndarray, ppi: float) -> np.ndarray:
    """The connected parts of `parts` (bool) reaching within FINGER_TIP_IN of a hand's far end: the
    farthest of its blob (in `found`, uint8) from where it comes in (its pixels on the view's
    border, else those nearest it)."""
    h, w = found.shape
    n_parts, part_of = _components(parts.astype(np.uint8))[:2]
    n_blobs, blob_of = _components(found)[:2]
    py, px = np.nonzero(part_of)
    keep = np.zeros(n_parts, bool)
    for i in range(1, n_blobs):
        ys, xs = np.nonzero(blob_of == i)
        to_border = np.minimum(np.minimum(xs, w - 1 - xs), np.minimum(ys, h - 1 - ys))
        entry = to_border == to_border.min()
        ex, ey = xs[entry].mean(), ys[entry].mean()
        tip = np.hypot(xs - ex, ys - ey).max() - FINGER_TIP_IN * ppi
        at_tip = np.hypot(px - ex, py - ey) >= tip
        keep[part_of[py[at_tip], px[at_tip]]] = True
    keep[0] = False
    return keep[part_of]


def _sleeve_of(hand: np.ndarray, sleeves: tuple[np.ndarray, ...]) -> np.ndarray:
    """(n,) bool: the sleeves that join `hand` (uint8 mask, already grown by GROW_IN)."""
    labels, is_sleeve = sleeves[:2]
    touching = np.zeros(len(is_sleeve), bool)
    touching[labels[cv2.dilate(hand, np.ones((5, 5), np.uint8)) > 0]] = True   # across the seam between them
    return is_sleeve & touching


def find_hands(view_bgr: np.ndarray, ppi: float, origin_in: tuple[float, float] = (0.0, 0.0), *, wb=None,
               other_rgbs: Sequence[Sequence[int]] = (), normalised: np.ndarray | None = None) -> Hands:
    """Hands in a top view of the table (BGR, `ppi`, table point of pixel (0, 0) `origin_in`), after
    the white balance `wb`; `normalised`: the same view already white-balanced (float BGR), e.g. the
    one the frame's other colour stages share. (The mat is measured around each pixel here.)"""
    if normalised is not None:
        img = np.asarray(normalised, np.float32)
    elif wb is not None:
        img = wb.apply(view_bgr)
    else:
        img = view_bgr.astype(np.float32)
    view_ppi = ppi
    img, ppi = _at_hand_ppi(img, ppi)
    h, w = img.shape[:2]
    empty = Hands((), np.zeros((h, w), bool), ppi, tuple(origin_in))
    if h < 3 or w < 3:
        return empty
    layers = _layers(img, ppi)
    cand = (layers.skin & layers.smooth & layers.not_mat).astype(np.uint8)
    cand = cv2.morphologyEx(cand, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = _components(cand)
    big = np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] >= MIN_AREA_IN2 * ppi * ppi) + 1
    found = np.zeros((h, w), np.uint8)
    felt_coloured = []
    g = max(1, int(round(GROW_IN * ppi)))
    grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1))
    sleeves = _sleeves(layers)

    def reaches_in(x, y, bw, bh, inside) -> bool:
        # an arm reaches in to the blob: from beyond the table's edge, or out of a sleeve
        return bool(_touches_edge(x, y, bw, bh, (h, w))) or _joins_sleeve(inside, x, y, sleeves, grow)

    for i in big:
        x, y, bw, bh = (int(stats[i, c]) for c in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH,
                                                  cv2.CC_STAT_HEIGHT))
        inside = labels[y:y + bh, x:x + bw] == i
        # Mostly skin only as a phone makes it (a pale hand's yellow-green), it is a hand only where
        # an arm reaches in to it, as an off-skin colour is (a cloth or a toy lies anywhere).
        if (2 * np.count_nonzero(layers.vivid_only[y:y + bh, x:x + bw][inside]) > np.count_nonzero(inside)
                and not reaches_in(x, y, bw, bh, inside)):
            continue
        verdict = _judge(inside, stats[i], (h, w), ppi, layers, img, other_rgbs,
                         lambda: _joins_sleeve(inside, x, y, sleeves, grow))
        if verdict == HAND:
            found[y:y + bh, x:x + bw] |= inside
        elif verdict == FELT_COLOURED:
            felt_coloured.append((x, y, bw, bh, inside))
    # A felt piece lies on the table; a pale hand that white balance leaves nearly grey, near a grey
    # felt's colour, still reaches in from the edge, itself or through its sleeve: a hand and forearm,
    # FELT_HAND_IN2 or more, far from the table's mat. (Every neutral thing is near the rocks' grey:
    # a page, a grey book or a white table's corner at the edge is smaller, or the mat itself.)
    for x, y, bw, bh, inside in felt_coloured:
        if (np.count_nonzero(inside) >= FELT_HAND_IN2 * ppi * ppi
                and _far_from_table(layers, (slice(y, y + bh), slice(x, x + bw)), inside)
                and reaches_in(x, y, bw, bh, inside)):
            found[y:y + bh, x:x + bw] |= inside
    if not found.any():
        found = _hands_at_sleeves(sleeves, layers, img, ppi, other_rgbs, grow,
                                  lambda: _at_hand_ppi(np.asarray(view_bgr, np.float32), view_ppi)[0])
        if not found.any():
            return empty
    grown = cv2.dilate(found, grow)
    near = max(1, int(round(FINGER_NEAR_IN * ppi)))
    finger_zone = cv2.dilate(_fingers(found, grown, layers, ppi).astype(np.uint8),
                             cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * near + 1, 2 * near + 1))) > 0
    found = grown
    joined = _sleeve_of(found, sleeves)
    # (A "sleeve" of the whole table's mat colour is the mat: beside an arm the local mat is the
    # arm's as much as the mat's, so plain baize there reads as not the mat.)
    labels, _, stats = sleeves
    for i in np.flatnonzero(joined):
        x, y, bw, bh = (int(stats[i, c]) for c in range(4))
        if not _far_from_table(layers, (slice(y, y + bh), slice(x, x + bw)), labels[y:y + bh, x:x + bw] == i):
            joined[i] = False
    if joined.any():
        found |= joined[labels].astype(np.uint8)
    polygons = []
    contours, _ = cv2.findContours(found, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        c = cv2.approxPolyDP(c, 0.1 * ppi, True).reshape(-1, 2).astype(np.float64)     # to 0.1"
        if len(c) < 3:
            continue
        outline = Polygon((c + 0.5) / ppi + np.asarray(origin_in))
        if not outline.is_valid:       # it touches itself (a sleeve joined at one pixel): its parts, each
            outline = outline.buffer(0)
        polygons += [p for p in shapely.get_parts(outline) if p.geom_type == "Polygon" and p.area >= 1.0]
    r = max(1, int(round(REACH_IN * ppi)))
    mask = cv2.dilate(found, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) > 0
    return Hands(tuple(polygons), mask, ppi, tuple(origin_in), finger_zone)


def carry_hidden(previous: Scene | None, current: Scene, hands_json: Sequence[dict] | None = None,
                 gate_in: float = 0.5, pull_gate_in: float = 1.0) -> Scene:
    """The current Scene with the previous picture's figures that a hand now hides added back,
    `hidden`, at their last place; colour figures found again keep their previous ids (the same
    base within `gate_in` on the same side). A figure missing where no hand is stays missing: it
    was moved or taken off, and the players see that. A roster marker the still photo did not read
    is under the hand when its last place is within `MARKER_REACH_IN` of it (`CARRIED_REACH_IN`
    for the rest). A colour base found `hand_edge_pull_in` or more (and within `pull_gate_in`) from a
    previous figure of its side whose place a hand now covers is the arc the hand leaves showing at
    its edge, as vision.tracking has it: that figure is hidden at its last place, and the arc is
    dropped."""
    if previous is None:
        return current
    hands = [Polygon(h["polygon"]) for h in (hands_json if hands_json is not None else current.extra.get("hands", []))
             if len(h.get("polygon", [])) >= 3]
    hand = shapely.union_all(hands) if hands else None
    under = hand.buffer(REACH_IN) if hand is not None else None
    pull_in = VISION_DEFAULTS["hand_edge_pull_in"]
    # A roster marker the still photo alone put under the hand, place unknown, is replaced by the
    # previous picture's knowledge of it (its last place, or that it was not under the hand).
    prev_ids = {p.id for p in previous.figures}
    unread = {f.id for f in current.figures if f.extra.get("place_known", True) is False and f.id in prev_ids}
    figures = [f for f in current.figures if f.extra.get("place_known", True) or f.id not in prev_ids]
    # Colour figures found again keep their ids (so names given on the tablet stay with them).
    prev_colour = [f for f in previous.figures if f.detected_by == "colour" and not f.hidden]
    used: set[str] = set()
    taken_ids = {f.id for f in figures if f.detected_by != "colour"}
    renamed = []
    for f in figures:
        if f.detected_by != "colour":
            renamed.append(f)
            continue
        nearest = min(((float(np.hypot(p.x - f.x, p.y - f.y)), p) for p in prev_colour
                       if p.id not in used and p.side == f.side), key=lambda t: t[0], default=(math.inf, None))
        dist, p = nearest if nearest[0] <= max(gate_in, pull_gate_in) else (math.inf, None)
        if p is not None and dist >= pull_in and under is not None and under.contains(Point(p.x, p.y)):
            used.add(p.id)               # under the hand: hidden at its last place below
        elif dist <= gate_in:
            used.add(p.id)
            renamed.append(replace(f, id=p.id))
        else:
            renamed.append(f)
    fresh_ids = {f.id for f in renamed}
    # Unmatched colour figures whose id collides with a previous one get a new id.
    prev_ids = {p.id for p in previous.figures}
    counter = 1
    out = []
    for f in renamed:
        if f.detected_by == "colour" and f.id not in used and f.id in prev_ids:
            while f"c{counter}" in fresh_ids or f"c{counter}" in prev_ids:
                counter += 1
            fresh_ids.add(f"c{counter}")
            f = replace(f, id=f"c{counter}")
        out.append(f)
    hidden = []
    if under is not None:
        present = {f.id for f in out}
        under_unread = hand.buffer(MARKER_REACH_IN) if unread else None
        under_seen = hand.buffer(CARRIED_REACH_IN)
        # (a base found now, new, near a figure only that far from the hand is that figure found again
        # farther off than the ids' gate, not a second one beside it: that figure is not carried)
        fresh = [f for f in out if f.detected_by == "colour" and f.id not in prev_ids]
        for p in previous.figures:
            if p.id in present or p.id in taken_ids:
                continue
            xy = Point(p.x, p.y)
            if not (under_unread if p.id in unread else under_seen).contains(xy):
                continue
            if p.id not in unread and not under.contains(xy) and any(
                    f.side == p.side and math.hypot(f.x - p.x, f.y - p.y) <= pull_gate_in for f in fresh):
                continue
            out.append(replace(p, hidden=True))
            hidden.append(p.id)
    extra = dict(current.extra)
    hidden += [f.id for f in out if f.hidden and f.extra.get("place_known", True) is False]
    if hidden:
        extra["hidden_under_hand"] = hidden
    else:
        extra.pop("hidden_under_hand", None)
    return replace(current, figures=tuple(out), extra=extra)


def roster_under_hands(figures: Sequence[Figure], roster: Mapping[str, Mapping], hands: Hands,
                       table_in: tuple[float, float] | None = None) -> tuple[tuple[Figure, ...], list[str]]:
    """A still photo with a hand in it: each marker figure of the roster that is not seen may be
    under the hand, so it is reported hidden (not removed). With no previous picture its place is
    not known: it is put where the hand is (the point of the hands' outline nearest the table's
    middle that lies inside them), marked `place_known: false`. Returns (figures, the ids added)."""
    if not hands.polygons:
        return tuple(figures), []
    seen = {f.id for f in figures}
    missing = [fid for fid in roster if fid.startswith("m") and fid[1:].isdigit() and fid not in seen]
    if not missing:
        return tuple(figures), []
    hand = shapely.union_all(hands.polygons)
    if table_in is not None:
        hand = hand.intersection(shapely.box(0.0, 0.0, *table_in))
        if hand.is_empty:
            return tuple(figures), []
    at = hand.representative_point()
    out = list(figures)
    for fid in missing:
        entry = roster[fid]
        out.append(Figure(id=fid, x=float(at.x), y=float(at.y), base_in=float(entry.get("base", 1.0)),
                          side=entry.get("side"), type=entry.get("type"), marker=int(fid[1:]),
                          detected_by="marker", confidence=0.0, painted=bool(entry.get("painted", True)),
                          name=entry.get("name"), hidden=True, extra={"place_known": False}))
    return tuple(out), missing
