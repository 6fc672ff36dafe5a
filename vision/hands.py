"""A hand and arm over the table: found in the white-balanced top view, so that the figures under
it are reported hidden (at their last place), never removed, and nothing on it is taken for a base.

A hand is skin-coloured (after white balance: a warm hue, moderately saturated, not dark, not the
mat's own colour, and on the whole nearer a skin tone than a felt colour of the profile), large (a palm and fingers: several square
inches), long (with its forearm) or reaching in from the table's edge, not square-cut (a book) and
not the whole table (a wooden table is skin-coloured all over). Its outline, a little
enlarged, is what it hides.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import cv2
import numpy as np
import shapely
from shapely.geometry import Point, Polygon

from measure.scene import Figure, Scene
from vision.colour import chromaticity, mat_chroma, rgb_chroma

HAND_PPI = 10.0
MIN_AREA_IN2 = 8.0           # a child's hand and wrist seen from above
MAX_TEXTURE = 0.04           # mean |Laplacian| over brightness: felt and gravel are rough, skin is smooth
MAX_SQUARENESS = 0.88        # of its smallest enclosing rectangle a hand fills less than this
MIN_ELONGATION = 1.7         # length over width of a hand with its forearm (unless it reaches the edge)
MAX_TABLE_SHARE = 0.35       # more than this of the table is the table, not a hand
SKIN_HUE_DEG = (-12.0, 48.0)
SKIN_SATURATION = (0.15, 0.8)
MIN_VALUE = 45.0             # of 255
MIN_FROM_MAT = 0.035         # chromaticity distance from the mat
# Skin from fair to dark (RGB), after white balance: a patch nearer a felt colour than all of these is felt.
SKIN_TONES = ((230, 185, 155), (205, 155, 120), (165, 115, 80), (110, 75, 55))
REACH_IN = 0.4               # a base this close to a hand's outline is under it


@dataclass(frozen=True)
class Hands:
    polygons: tuple[Polygon, ...]         # table inches
    mask: np.ndarray                      # (H, W) bool in the view it was found in, enlarged by REACH_IN
    ppi: float = HAND_PPI
    origin_in: tuple[float, float] = (0.0, 0.0)

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

    def covers(self, xy_in: np.ndarray) -> np.ndarray:
        """(N,) bool: points under a hand (within REACH_IN of one)."""
        if not self.polygons:
            return np.zeros(len(xy_in), bool)
        pts = shapely.points(np.asarray(xy_in, np.float64).reshape(-1, 2))
        hand = shapely.union_all(self.polygons).buffer(REACH_IN)
        return shapely.contains(hand, pts)

    def as_json(self) -> list[dict]:
        return [{"polygon": [[round(x, 2), round(y, 2)] for x, y in list(p.exterior.coords)[:-1]],
                 "area_in2": round(p.area, 1)} for p in self.polygons]


def skin_mask(view_bgr: np.ndarray, ppi: float, *, wb=None, mat: np.ndarray | None = None,
              normalised: np.ndarray | None = None) -> np.ndarray:
    """(H, W) bool: skin-coloured pixels of a top view, after white balance (`normalised`: the
    view already white-balanced, float BGR)."""
    img = normalised if normalised is not None else (
        wb.apply(view_bgr) if wb is not None else view_bgr.astype(np.float32))
    img = np.clip(img, 0, 255)
    hsv = cv2.cvtColor(img * np.float32(1 / 255.0), cv2.COLOR_BGR2HSV)
    h, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    skin = (((h <= SKIN_HUE_DEG[1]) | (h >= 360 + SKIN_HUE_DEG[0])) & (sat >= SKIN_SATURATION[0])
            & (sat <= SKIN_SATURATION[1]) & (val * 255 >= MIN_VALUE))
    if not skin.any():
        return skin
    chroma = chromaticity(img)[0]
    if mat is None:
        mat = mat_chroma(chroma)
    local = _local_mat(chroma, ppi)
    ys, xs = np.nonzero(skin)
    c = chroma[ys, xs]
    # Away from the mat's colour, and from the mat around it (a lamp's warm hot spot tints it there).
    far = ((((c - np.asarray(mat, np.float32)) ** 2).sum(1) >= MIN_FROM_MAT ** 2)
           & (((c - local[ys, xs]) ** 2).sum(1) >= MIN_FROM_MAT ** 2))
    skin[ys[~far], xs[~far]] = False
    return skin


def _local_mat(chroma: np.ndarray, ppi: float, cell_in: float = 2.5) -> np.ndarray:
    """(H, W, 3) the mat's chromaticity around each pixel: the median of 5 x 5 cells of `cell_in`
    (a foot across), smoothed back up; a hand covers few of them."""
    h, w = chroma.shape[:2]
    small_w, small_h = max(3, int(round(w / ppi / cell_in))), max(3, int(round(h / ppi / cell_in)))
    small = cv2.resize(chroma.astype(np.float32), (small_w, small_h), interpolation=cv2.INTER_AREA)
    small = cv2.medianBlur(small, 5)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _is_felt(chroma_mean: np.ndarray, other_rgbs) -> bool:
    """A warm patch clearly nearer a felt colour of the profile (a hill) than any skin tone is felt;
    a felt of a skin tone is told from a hand by its texture (find_hands)."""
    if not other_rgbs:
        return False
    d_felt = min(float(np.linalg.norm(chroma_mean - rgb_chroma(c))) for c in other_rgbs)
    d_skin = min(float(np.linalg.norm(chroma_mean - rgb_chroma(c))) for c in SKIN_TONES)
    return d_felt < 0.5 * d_skin          # a hill's tan is a skin tone too: only clearly nearer


def find_hands(view_bgr: np.ndarray, ppi: float, origin_in: tuple[float, float] = (0.0, 0.0), *, wb=None,
               mat: np.ndarray | None = None, other_rgbs: Sequence[Sequence[int]] = ()) -> Hands:
    """Hands in a top view of the table (BGR, `ppi`, table point of pixel (0, 0) `origin_in`)."""
    img = np.clip(wb.apply(view_bgr) if wb is not None else view_bgr.astype(np.float32), 0, 255)
    skin = skin_mask(view_bgr, ppi, mat=mat, normalised=img).astype(np.uint8)
    k = max(1, int(round(0.15 * ppi))) | 1
    skin = cv2.morphologyEx(skin, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    skin = cv2.morphologyEx(skin, cv2.MORPH_CLOSE, np.ones((2 * k + 1, 2 * k + 1), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(skin, connectivity=8)
    h, w = skin.shape
    if not (stats[1:, cv2.CC_STAT_AREA] >= MIN_AREA_IN2 * ppi * ppi).any():
        return Hands((), np.zeros((h, w), bool), ppi, tuple(origin_in))
    chroma = chromaticity(img)[0]
    lum = img.mean(axis=2)
    texture = np.abs(cv2.Laplacian(cv2.GaussianBlur(lum, (0, 0), 0.7), cv2.CV_32F))
    polygons, keep = [], np.zeros(n, bool)
    for i in range(1, n):
        area_in2 = stats[i, cv2.CC_STAT_AREA] / (ppi * ppi)
        if area_in2 < MIN_AREA_IN2 or stats[i, cv2.CC_STAT_AREA] > MAX_TABLE_SHARE * h * w:
            continue
        inside = labels == i
        if _is_felt(chroma[inside].mean(axis=0), other_rgbs):
            continue
        core = cv2.erode(inside.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0     # its outline is no texture
        core = core if core.any() else inside
        if float(texture[core].mean()) > MAX_TEXTURE * max(float(lum[core].mean()), 1.0):
            continue              # felt's weave or gravel, a printed page: skin is smooth
        x, y, bw, bh = (stats[i, c] for c in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT))
        at_edge = x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1
        pts = np.column_stack(np.nonzero(labels == i)[::-1]).astype(np.float32)
        (_, _), (rw, rh), _ = cv2.minAreaRect(pts)
        if not at_edge and max(rw, rh) < MIN_ELONGATION * max(1.0, min(rw, rh)):
            continue              # round: a mug of coffee, a cork mat; a hand and arm reach in, long
        if stats[i, cv2.CC_STAT_AREA] > MAX_SQUARENESS * rw * rh:
            continue              # square-cut: a book, a phone, a box; a hand has fingers and a wrist
        contours, _ = cv2.findContours((labels == i).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        c = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
        if len(c) < 3:
            continue
        poly = shapely.make_valid(Polygon(c / ppi + np.asarray(origin_in)))
        poly = max(getattr(poly, "geoms", [poly]), key=lambda g: g.area)
        if poly.geom_type == "Polygon" and not poly.is_empty:
            polygons.append(poly.simplify(0.1))
            keep[i] = True
    mask = keep[labels]
    if mask.any():
        r = max(1, int(round(REACH_IN * ppi)))
        mask = cv2.dilate(mask.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) > 0
    return Hands(tuple(polygons), mask, ppi, tuple(origin_in))


def carry_hidden(previous: Scene | None, current: Scene, hands_json: Sequence[dict] | None = None,
                 gate_in: float = 0.5) -> Scene:
    """The current Scene with the previous picture's figures that a hand now hides added back,
    `hidden`, at their last place; colour figures found again keep their previous ids (the same
    base within `gate_in` on the same side). A figure missing where no hand is stays missing: it
    was moved or taken off, and the players see that."""
    if previous is None:
        return current
    hands = [Polygon(h["polygon"]) for h in (hands_json if hands_json is not None else current.extra.get("hands", []))
             if len(h.get("polygon", [])) >= 3]
    # A roster marker the still photo alone put under the hand, place unknown, is replaced by the
    # previous picture's knowledge of it (its last place, or that it was not under the hand).
    prev_ids = {p.id for p in previous.figures}
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
        near = [(float(np.hypot(p.x - f.x, p.y - f.y)), p) for p in prev_colour
                if p.id not in used and p.side == f.side and np.hypot(p.x - f.x, p.y - f.y) <= gate_in]
        if near:
            p = min(near, key=lambda t: t[0])[1]
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
    if hands:
        under = shapely.union_all(hands).buffer(REACH_IN)
        present = {f.id for f in out}
        for p in previous.figures:
            if p.id in present or p.id in taken_ids:
                continue
            if under.contains(Point(p.x, p.y)):
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
