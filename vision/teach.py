"""Teach the camera a side's rim colour: a player points at one figure of that side.

The profile's colour is a starting guess written before anyone looked at these figures under this
lamp. Where the player points (table inches), the rim is sampled after white balance: of the
pixels in the ring where a base's rim lies (around the point, which may be off by a little), those
of the guess's hue, saturated, are the rim; their median is the learned colour. It is kept only
if, looking for that colour, a ring of the base's size is then found there (vision.rims), so a
point on the mat, on felt or on a die teaches nothing.

It is used from then on only where it is plainly the better colour for that figure: where the colour
looked for now (the profile's, or one learned before) does not find that base, or finds it
ADOPT_MARGIN less surely. One figure's paint, read from a rim a few pixels wide and blended with the
mat and the body, is a worse guess for the side's other figures than a colour that already finds
them: it made more figures missed and more phantoms (see ADOPT_MARGIN).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.colour import COLOUR_PPI, chromaticity, mat_chroma
from vision.rims import mat_flood_in_view, rims_in_view
from vision.topview import warp_top_view
from vision.whitebalance import estimate_white_balance

REACH_IN = 0.6             # the point may be this far from the base's centre
HUE_REACH_DEG = 40.0       # rim pixels: within this of the guess's hue
MIN_SATURATION = 0.25
MIN_RIM_PIXELS = 12
MIN_FROM_MAT = 0.08        # chromaticity distance from the mat's colour
# How much surer the learned colour must find the taught base than the colour looked for now, to be
# used. (benchmarks/teach_colour.py, each side taught from its clearest dry figure, one side at a
# time, on 60 hard photos each of seeds 0 and 7. Rims painted near the profile's colour, 221
# teachings: used every time, 43 figures fewer found and 80 phantoms more; with this margin 11 used,
# 6 fewer found, 6 more phantoms. Shop paints unlike it (paint="hobby"), 216: used every time, 16
# more found and 83 more phantoms; with it 16 used, 8 more found, 1 more phantom. An amber rim the
# profile calls red: the profile's colour finds it 0.82 sure, the amber 0.94-0.95.)
ADOPT_MARGIN = 0.1


class TeachError(ValueError):
    """Nothing to learn where the player pointed; the message says so in plain words."""


@dataclass(frozen=True)
class Learned:
    side: str
    rgb: tuple[int, int, int]          # the rim after white balance
    xy_in: tuple[float, float]         # the base it was learned from
    confidence: float                  # how sure the base there is, looking for that colour
    current_confidence: float | None = None   # and looking for the colour looked for now (None: not found)

    @property
    def adopted(self) -> bool:
        """Whether the learned colour is to be used: it finds the base plainly surer (ADOPT_MARGIN)."""
        return adopts(self.confidence, self.current_confidence)


def adopts(confidence: float, current_confidence: float | None) -> bool:
    """A learned colour finding the taught base `confidence` sure is used where the colour looked for
    now finds it not at all (None) or ADOPT_MARGIN less sure."""
    return current_confidence is None or confidence >= current_confidence + ADOPT_MARGIN - 1e-9


def kept_words(learned: Learned) -> str:
    """Why a learned colour was not used, in plain words."""
    return (f"The camera already finds that {learned.side} figure with the colour it looks for now "
            f"({learned.current_confidence:.2f} sure, against {learned.confidence:.2f} with the colour seen "
            f"there), so it keeps that colour: one figure's paint would make the other {learned.side} figures "
            f"harder to find.")


def parse_teach(text: str) -> tuple[str, float, float]:
    """'red=12.5,8' -> ("red", 12.5, 8.0); raises TeachError."""
    side, sep, rest = text.partition("=")
    parts = rest.split(",")
    try:
        if not sep or not side.strip() or len(parts) != 2:
            raise ValueError
        x, y = float(parts[0]), float(parts[1])
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError
    except ValueError:
        raise TeachError(f"--teach-colour: expected SIDE=X,Y (table inches), got {text!r}") from None
    return side.strip(), x, y


def _hsv(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor((np.clip(bgr, 0, 255) / 255.0).astype(np.float32).reshape(1, -1, 3), cv2.COLOR_BGR2HSV)[0]


def learn_rim_colour(frame_bgr: np.ndarray, registration, profile, side: str, xy_in: tuple[float, float], *,
                     pose=None, base_in: float = 1.0, height_in: float = 0.125) -> Learned:
    """The rim colour of the `side` figure at `xy_in` (table inches); raises TeachError."""
    names = [s.name for s in profile.sides]
    if side not in names:
        raise TeachError(f"the table has no side {side!r} (its sides: {', '.join(names) or 'none'})")
    x, y = xy_in
    if not (0 <= x <= profile.width_in and 0 <= y <= profile.depth_in):
        raise TeachError(f"({x:g}, {y:g}) is outside the {profile.width_in:g} x {profile.depth_in:g} in table")
    spec = profile.sides[names.index(side)]
    whole = warp_top_view(frame_bgr, registration.H_in_to_px, 10.0, (0.0, 0.0, profile.width_in, profile.depth_in))
    wb = estimate_white_balance(whole.image, whole.ppi, profile.anchors, whole.origin_in)
    half = base_in / 2 + REACH_IN + 0.6
    rect = (max(0.0, x - half), max(0.0, y - half), min(profile.width_in, x + half), min(profile.depth_in, y + half))
    view = warp_top_view(frame_bgr, registration.H_in_to_px, COLOUR_PPI, rect)
    norm = wb.apply(view.image, view.ppi, view.origin_in)
    h, w = norm.shape[:2]
    u, v = np.meshgrid(np.arange(w) + 0.5, np.arange(h) + 0.5)
    pu, pv = view.to_view(np.array([[x, y]]))[0]
    d = np.hypot(u - pu, v - pv) / view.ppi
    # Anywhere a rim could be, when the base's centre is up to REACH_IN from the point.
    zone = d <= base_in / 2 + REACH_IN
    px = norm[zone]
    hsv = _hsv(px)
    guess_h = _hsv(np.array(spec.rgb[::-1], np.float32))[0, 0]
    dh = np.abs(hsv[:, 0] - guess_h)
    dh = np.minimum(dh, 360 - dh)
    # ... and away from the mat's own colour (a beige mat is a pale orange).
    whole_norm = np.clip(wb.apply(whole.image, whole.ppi, whole.origin_in), 0, None)
    mat = mat_chroma(chromaticity(whole_norm)[0])
    chroma = chromaticity(np.clip(px, 0, None)[None])[0][0]
    off_mat = np.linalg.norm(chroma - mat, axis=1) >= MIN_FROM_MAT
    rim = (dh <= HUE_REACH_DEG) & (hsv[:, 1] >= MIN_SATURATION) & (hsv[:, 2] >= 0.2) & off_mat
    if rim.sum() < MIN_RIM_PIXELS:
        raise TeachError(f"no {side} rim at ({x:g}, {y:g}): point at the middle of one {side} figure's base")
    # The most saturated half of them: the rim's own paint, not its blend with the mat.
    sat = hsv[rim, 1]
    best = px[rim][sat >= np.median(sat)]
    rgb = tuple(int(round(c)) for c in np.clip(np.median(best, axis=0), 0, 255)[::-1])
    # Is there a ring of that colour there? (other sides keep their colours, so as not to steal it)
    others = [t.rgb for t in profile.terrain]
    k = names.index(side)

    def nearest_ring(looked_for):
        """(centre in inches, RimHit) of the side's ring nearest the point, looking for these colours,
        or (None, None)."""
        # (the mat judged on the whole table: the window round one base is mostly that base)
        found = rims_in_view(view, looked_for, base_in, pose=pose, height_in=height_in if pose is not None else 0.0,
                             wb=wb, other_rgbs=others,
                             flood=mat_flood_in_view(whole.image, looked_for, others, wb=wb, mat=mat))
        near = [(float(np.hypot(*(p - (x, y)))), p, hit) for p, hit in found
                if hit.side_index == k and np.hypot(*(p - (x, y))) <= base_in / 2 + REACH_IN]
        return min(near, key=lambda t: t[0])[1:] if near else (None, None)

    p, hit = nearest_ring([rgb if s.name == side else s.seen_rgb for s in profile.sides])
    if hit is None:
        raise TeachError(f"no {side} figure found at ({x:g}, {y:g}): point at the middle of one {side} figure's base")
    _, now = nearest_ring([s.seen_rgb for s in profile.sides])
    return Learned(side, rgb, (round(float(p[0]), 3), round(float(p[1]), 3)), hit.confidence,
                   None if now is None else now.confidence)
