"""A photo too dark or too blurred to measure, told in plain words before anything is measured; and
a photo too coarse for colour bases, told once it is registered.

Dark: most of the frame is near black (the median and the bright end both low): nothing in it has
the contrast the markers need. Blurred: the sharpest edges in the frame are wide. For each edge the
step in brightness over its steepest slope is its width; a sharp photo has edges one or two pixels
wide (at a 960-pixel working size) somewhere in every direction, the anchors' and markers' at
least; an unfocused one has none, a shaken one none across the shake (`blurred_edge_px`). The slopes
are read on every other row and column of the working size (an edge is long: as many of its steepest
slopes are there, at a quarter of the cost). Both limits are house defaults (vision_defaults.toml).

Too coarse for colour bases: a rim is found by its colour, and a camera's JPEG keeps colour at half
its resolution each way. Where the table shows at fewer pixels an inch than `colour_least_px_per_in`
a base's rim is a chroma pixel or two wide and many are missed (on 60 hard photos of each of 8 seeds,
found: 89% of the bases standing where the photo shows fewer than 20 px/in, 96% at 20-24, 97% at
24 and more, with a p95 error of 0.09-0.14, 0.04-0.09 and 0.04-0.05 in). The photo is still
measured (markers, grid and terrain do not need it): the reply says so, and what to do: where the
table's long side runs along the picture's short side, turning the camera a quarter turn lets the
table fill more of the picture (`quarter_turn_gain`), and the words say so. They also say that a rim
painted as a band 3 mm wide or more shows better than a thin line: bands half that wide were found
79% of the time against 92% on the same hard photos (docs/vision.md, "The hard set").

Strongly tinted light: the anchors' white card shows the lamp's colour before the white balance
evens it out (vision.whitebalance). Under a household bulb its blue is a third to a half of its red;
the white balance lifts the blue back, and the noise and JPEG's rounding with it, so a blue rim
shows faintly (at 1080p, 76% of blue bases found where the card's weakest channel is under
`tinted_light_channel_share` of its strongest, 86-91% elsewhere). Said for the sides painted in
that channel's colour, with what helps.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.registration import RegistrationError
from vision.settings import VISION_DEFAULTS

MIN_CONTRAST = 30.0      # gray levels between a frame's dark and bright ends for it to have edges
WORK_PX = 960            # the longer side the check works at (cheap, and the same for any camera)

MESSAGES = {
    "dark": "The photo is too dark to measure: turn on a light or open the curtains, then take it again.",
    "blurred": ("The photo is too blurred to measure: hold the camera still and let it focus, "
                "then take it again."),
}


class PhotoQualityError(RegistrationError):
    """A photo that cannot be measured, and why: `problem` is "dark" or "blurred"."""

    def __init__(self, problem: str):
        super().__init__(MESSAGES[problem])
        self.problem = problem

    def as_json(self) -> dict:
        """What the tablet shows: {"problem": "dark" | "blurred", "message": plain words}."""
        return {"problem": self.problem, "message": MESSAGES[self.problem]}


@dataclass(frozen=True)
class PhotoQuality:
    median: float            # of the gray levels (0-255)
    bright: float            # 99th percentile
    edge_px: float           # width of the sharpest edges, at WORK_PX
    contrast: float          # 99th less 1st percentile

    @property
    def problem(self) -> str | None:
        if is_dark(self.median, self.bright):
            return "dark"
        # A frame with hardly any contrast (a blank wall) has no edges to be blurred: it shows no
        # anchor, and registration says so.
        if self.contrast >= MIN_CONTRAST and self.edge_px > VISION_DEFAULTS["blurred_edge_px"]:
            return "blurred"
        return None


def is_dark(median: float, bright: float) -> bool:
    """The one verdict on darkness (a photo refused, a camera feed's status line): the median and
    the bright end (99th percentile) of the gray levels both low."""
    return median < VISION_DEFAULTS["dark_median"] and bright < VISION_DEFAULTS["dark_bright"]


def gray_levels(gray: np.ndarray) -> tuple[float, float]:
    """(median, 99th percentile) of a gray image's levels (a sample of its pixels will do)."""
    if gray.dtype == np.uint8:
        median, bright = _histogram_percentiles(gray, (50, 99))
        return median, bright
    median, bright = np.percentile(gray, (50, 99))
    return float(median), float(bright)


def photo_quality(gray: np.ndarray) -> PhotoQuality:
    h, w = gray.shape[:2]
    scale = min(1.0, WORK_PX / max(h, w))
    small = _working_size(gray, (max(1, int(w * scale)), max(1, int(h * scale)))) if scale < 1 else gray
    if small.dtype == np.uint8:
        # Gray levels are whole numbers: the order statistics come from a histogram (the same
        # numbers as np.percentile, without sorting), and the slopes in whole numbers too
        # (8 x the float Sobel's), scaled once at the end.
        lo, median, bright = _histogram_percentiles(small[::2, ::2], (1, 50, 99))
        gx, gy = (np.ascontiguousarray(g[::2, ::2]) for g in cv2.spatialGradient(small, ksize=3))  # Sobel's, both at once
        factors = (1 / 8, 1 / 8, 1 / (8 * np.sqrt(2)), 1 / (8 * np.sqrt(2)))
    else:
        small = small.astype(np.float32)
        lo, median, bright = np.percentile(small[::2, ::2], (1, 50, 99))
        gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3)[::2, ::2] / 8
        gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3)[::2, ::2] / 8
        factors = (1.0, 1.0, 1 / np.sqrt(2), 1 / np.sqrt(2))
    # The slopes are taken at the working size (their widths are its pixels) but read on every
    # other row and column: an edge is many pixels long, so its steepest slopes are as many in a
    # quarter of the pixels, and the percentile costs a quarter.
    directions = (gx, gy, gx + gy, gx - gy)
    for g in directions:          # (each its own array: made absolute in place)
        np.abs(g, out=g)
    # The steepest slopes across, down and along both diagonals: a shake smears one direction only,
    # so the photo is as blurred as its worst direction.
    steepest = min(_top_percentile(g, 99.95) * f for g, f in zip(directions, factors))
    # The brightness step across an edge: between the dark and bright ends of the frame.
    step = max(float(bright - lo), 1.0)
    return PhotoQuality(float(median), float(bright), float(step / max(steepest, 1e-3)), float(bright - lo))


def _working_size(gray: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The frame at the working size (w, h), an area average. A uint8 frame at exactly twice it
    (1080p) is halved bilinearly: at the midpoints of the 2 x 2 blocks that is their mean with the
    same rounding, the same pixels, and faster."""
    if gray.dtype == np.uint8 and gray.shape[1] == 2 * size[0] and gray.shape[0] == 2 * size[1]:
        return cv2.resize(gray, size, interpolation=cv2.INTER_LINEAR)
    return cv2.resize(gray, size, interpolation=cv2.INTER_AREA)


def _histogram_percentiles(values: np.ndarray, qs) -> tuple[float, ...]:
    """np.percentile(values, qs) (linear) of uint8 values, from their histogram."""
    counts = cv2.calcHist([np.ascontiguousarray(values)], [0], None, [256], [0, 256]).ravel()
    cum = np.cumsum(counts.astype(np.int64))
    n = int(cum[-1])
    out = []
    for q in qs:
        virtual = (n - 1) * (np.float64(q) / 100)
        i = int(np.floor(virtual))
        a = int(np.searchsorted(cum, i, side="right"))             # the i-th smallest (from 0)
        b = int(np.searchsorted(cum, min(i + 1, n - 1), side="right"))
        out.append(float(_lerp(np.float64(a), np.float64(b), virtual - i)))
    return tuple(out)


def _top_percentile(values: np.ndarray, q: float) -> float:
    """np.percentile(values, q) (linear) for q near 100, the same number: the two order statistics
    it interpolates are looked for only among the largest values (a pass over the array to find
    them, not a partition of all of it)."""
    flat = values.ravel()
    n = flat.size
    virtual = (n - 1) * (np.float64(q) / 100)
    lo = int(np.floor(virtual))
    need = n - lo                  # how many of the largest values the two order statistics are in
    sub = flat[::16]
    top = flat[:0]
    # A threshold a little below where the sample puts them; where the sample's largest values
    # are rarer than the whole's (sharp edges in few places), a lower one, before sorting all.
    whole = flat.dtype.kind in "iu" and len(sub) and int(sub.min()) >= 0
    cum = np.cumsum(np.bincount(sub)) if whole else None       # small whole numbers: counted, not sorted
    for margin in (2 * need // 16 + 2, 8 * need // 16 + 8):
        k = len(sub) - 1 - min(len(sub) - 1, margin)
        if whole:
            threshold = int(np.searchsorted(cum, k, side="right"))     # the k-th smallest (from 0)
        else:
            threshold = np.partition(sub, k)[k] if len(sub) else -np.inf
        top = flat[flat >= threshold]
        if len(top) >= need + 1:
            break
    if len(top) < need + 1:
        return float(np.percentile(flat, q))
    top.partition((len(top) - need, min(len(top) - need + 1, len(top) - 1)))
    a, b = top[len(top) - need], top[min(len(top) - need + 1, len(top) - 1)]
    return float(_lerp(a, b, virtual - lo))


def _lerp(a, b, t) -> float:
    """numpy's own interpolation between two order statistics (the same rounding)."""
    t = np.asarray(t).astype(np.result_type(a, b))
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


COARSE_GRID = 9                # table points a side the photo's scale is read at for colour bases


def colour_resolution(registration, table_in: tuple[float, float]) -> dict | None:
    """Where the photo shows the table too coarsely for colour bases: the frame's pixels per inch (the
    shorter of an inch's steps along the table's two axes) over a grid of table points (the least
    and the most, and the share of the points below the house default `colour_least_px_per_in`), or
    None where every point is at or above it. With `turn_gain`, where the camera turned a quarter
    turn would let the table fill the picture that many times more (quarter_turn_gain), at least the
    house default `colour_turn_gain`."""
    least = float(VISION_DEFAULTS["colour_least_px_per_in"])
    w, d = table_in
    u = (np.arange(COARSE_GRID) + 0.5) / COARSE_GRID
    points = np.stack(np.meshgrid(u * w, u * d), -1).reshape(-1, 2)
    # each point and the points an inch along x and along y from it, in one transform; the shorter
    # step is the scale (a tilted camera foreshortens one way: a rim is thinnest across it)
    px = registration.to_image(np.concatenate([points, points + (1.0, 0.0), points + (0.0, 1.0)])).reshape(3, -1, 2)
    scale = np.minimum(np.linalg.norm(px[1] - px[0], axis=1), np.linalg.norm(px[2] - px[0], axis=1))
    below = scale < least
    if not below.any():
        return None
    out = {"px_per_in_least": round(float(scale.min()), 1), "px_per_in_most": round(float(scale.max()), 1),
           "share_below": round(float(below.mean()), 2), "least_px_per_in": least}
    gain = quarter_turn_gain(registration, table_in)
    if gain >= float(VISION_DEFAULTS["colour_turn_gain"]):
        out["turn_gain"] = round(gain, 2)
    return out


def quarter_turn_gain(registration, table_in: tuple[float, float]) -> float:
    """How many times larger the table could show with the camera turned a quarter turn and the table
    framed again as fully: the picture's sides over the table's extent in it, the table's extents
    along the picture's two axes swapped (a table whose long side runs along a landscape picture's
    short side fills more of it turned). 1 or less: turning does not help."""
    w, d = table_in
    corners = registration.to_image(np.array([[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]]))
    across, down = np.ptp(corners, axis=0)
    width_px, height_px = registration.image_size
    if min(across, down) <= 0:
        return 1.0
    now = min(width_px / across, height_px / down)
    turned = min(width_px / down, height_px / across)
    return float(turned / now)


def colour_resolution_words(info: dict | None) -> str | None:
    """Plain words for colour_resolution's finding (None: nothing to say)."""
    if not info:
        return None
    lo, hi = info["px_per_in_least"], info["px_per_in_most"]
    shown = f"{lo:.0f}" if round(lo) == round(hi) or hi >= info["least_px_per_in"] else f"{lo:.0f}-{hi:.0f}"
    where = "" if info["share_below"] >= 1 else " on part of it"
    words = (f"The photo shows the table at {shown} pixels an inch{where}: below about {info['least_px_per_in']:.0f}, "
             "colour bases are missed more often. Use the camera's full picture size, or bring it closer, "
             "and take the photo again. Rims painted as a band at least 3 mm (1/8 in) wide show better than "
             "a thin line at the edge.")
    if info.get("turn_gain"):
        words += (" Turning the camera a quarter turn, so that the table's long side runs along the picture's "
                  f"long side, lets the table fill more of the picture: about {lo * info['turn_gain']:.0f} "
                  "pixels an inch.")
    return words


_CHANNELS = ("blue", "green", "red")          # BGR order, as the white card is measured
# how a light short of each channel looks, and what helps
TINT_WORDS = {"blue": "very warm (orange)", "green": "strongly tinted (purple)", "red": "very cool (blue)"}
_BETTER = {"blue": "Daylight, or a white lamp instead of a warm one,", "green": "Daylight, or a plain white lamp,",
           "red": "Warmer light, or daylight out of the blue shade,"}


def light_tint(white_bgr, black_bgr, sides) -> dict | None:
    """Where the light is strongly tinted against a side's colour: the anchors' white card as the
    camera saw it (`white_bgr`, `black_bgr`: vision.whitebalance.WhiteBalance's levels) shows its
    weakest channel at less than the house default `tinted_light_channel_share` of its strongest,
    and a side's colour (`sides`: name and rgb) is strongest in that channel. -> {"weakest": "blue",
    "channel_share": 0.42, "least_channel_share": 0.55, "faint_sides": ["blue"]}, or None."""
    least = float(VISION_DEFAULTS["tinted_light_channel_share"])
    span = np.asarray(white_bgr, np.float64) - np.asarray(black_bgr, np.float64)
    if not np.all(np.isfinite(span)) or span.max() <= 0:
        return None
    weakest = int(np.argmin(span))
    share = float(max(span[weakest], 0.0) / span.max())
    faint = [s.name for s in sides if int(np.argmax(np.asarray(s.rgb, np.float64)[::-1])) == weakest]
    if share >= least or not faint:
        return None
    return {"weakest": _CHANNELS[weakest], "channel_share": round(share, 2), "least_channel_share": least,
            "faint_sides": faint}


def light_tint_words(info: dict | None) -> str | None:
    """Plain words for light_tint's finding (None: nothing to say)."""
    if not info:
        return None
    names = " and ".join(info["faint_sides"])
    return (f"The light is {TINT_WORDS[info['weakest']]}, so the {names} bases' colour shows faintly and some may be "
            f"missed, more so where the photo is coarse. {_BETTER[info['weakest']]} will help.")


def colour_like_table_words(sides: list[str] | None) -> str | None:
    """Plain words for the sides whose colour the table shows over much of itself (the Scene's
    `colour_like_table`; None: nothing to say)."""
    if not sides:
        return None
    names = " and ".join(sides)
    return (f"The table itself looks much like the {names} bases' colour, so some {names} figures may be "
            "missed. A plain cloth or mat of another colour under the figures, or rims of a colour "
            "the table does not have, will help.")


def colour_like_felt_words(like: dict[str, list[str]] | None) -> str | None:
    """Plain words for the sides with felt of a hue near their own on the table (the Scene's
    `colour_like_felt`, side -> felt kinds; None: nothing to say)."""
    if not like:
        return None
    said = []
    for side, kinds in like.items():
        felt = " or ".join(f"the {kind}" for kind in kinds)
        said.append(f"{side.capitalize()} figures standing in or beside {felt} may be missed: their rims look "
                    f"much like {'its' if len(kinds) == 1 else 'that'} colour.")
    return " ".join(said) + (" A marker on those figures, or rims of a colour the felt does not have, "
                             "will help.")


def check_photo(gray: np.ndarray) -> None:
    """Raise PhotoQualityError when the photo is too dark or too blurred to measure."""
    problem = photo_quality(gray).problem
    if problem is not None:
        raise PhotoQualityError(problem)
