"""White balance and exposure from the anchors: each anchor's white card and black cells are a grey
card in every photo.

In a top view of the table, each anchor's window holds its black square (the border cells and
about half of the inner cells) and its white quiet zone and white cells. The brightest part of the
window is the white card, the darkest the black ink, whatever small misplacement or parallax the
view has. Per channel, a cast (tungsten to daylight) scales the channels and haze or flare lifts
them: so `out = BLACK + (in - black_c) * gain_c` maps each anchor's black to BLACK and its white to
WHITE, the same for the three channels, and a colour then means the same under any lamp.

Where several anchors are spread over the table, their white levels also say how the light falls
off across it (a lamp's hot spot, vignetting): a plane fitted to their brightness (relative to
their mean) divides the view before the per-channel map. A plane is all four corners can say; it
leaves a hot spot's round shape alone but takes away the gradient from one side to the other.
An anchor covered by a hand or glare disagrees with the others: its levels are left out.

Under a lamp's hot spot a white card clips: a channel whose white reads 255 (about 250 after JPEG)
says only that the card is at least that bright there. A grey card has the same channel ratios
under one light wherever it lies, so a clipped channel's white (over its black) is the card's
unclipped channel's times that ratio, taken from the anchors where both channels are unclipped
(or, when every anchor clips that channel, from each card's unclipped white pixels, or from the
pixels where ink and card blur together, which lie on the line from black to white); it is never
set below what was seen. A card with all three channels clipped says nothing about the light's
colour or level and is left out. While fewer than half of a card's white pixels clip, their
median is what it would have been.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from vision.colour import median_rows

WHITE, BLACK = 230.0, 25.0      # where the anchors' white card and black ink land after normalising
CARD_WINDOW = 1.2               # an anchor's window, in its size: the black square and a little less than
                                # one cell of white all round (the printed quiet zone)
WHITE_SHARE = 0.15              # of an anchor's window: the brightest share is its white card
BLACK_SHARE = 0.15              # and the darkest share its black ink
MAX_CARD_CHROMA = 0.04          # an anchor whose white differs this much (chromaticity) from the
                                # others' median is not a clean grey card (hand, glare, shadow edge)
MIN_CONTRAST = 40.0             # white - black (sum of channels / 3) below this: not a card
CLIP_LEVEL = 250.0              # a white level at or above this is clipped (JPEG rings 255 down a little)
MIN_OWN_PIXELS = 8              # unclipped pixels a card needs to give its own channel slopes
MIN_MIX = 0.3                   # of the card's white - black: above the ink's noise


@dataclass(frozen=True)
class WhiteBalance:
    """Per-channel levels of the grey card (BGR) and an optional exposure plane over table inches."""
    black_bgr: np.ndarray           # (3,) measured black ink
    white_bgr: np.ndarray           # (3,) measured white card
    exposure_plane: np.ndarray | None = None   # (3,) a, b, c: relative brightness = a + b x + c y (inches)
    anchors_used: tuple[int, ...] = ()

    @property
    def gain(self) -> np.ndarray:
        return (WHITE - BLACK) / np.maximum(self.white_bgr - self.black_bgr, 1.0)

    @classmethod
    def identity(cls) -> "WhiteBalance":
        return cls(np.full(3, BLACK), np.full(3, WHITE))

    def exposure_at(self, xy_in: np.ndarray) -> np.ndarray:
        """Relative brightness of the light at table points (N, 2) -> (N,)."""
        xy = np.asarray(xy_in, np.float64).reshape(-1, 2)
        if self.exposure_plane is None:
            return np.ones(len(xy))
        a, b, c = self.exposure_plane
        return np.clip(a + b * xy[:, 0] + c * xy[:, 1], 0.3, 3.0)

    def _field(self, shape, ppi: float | None, origin_in: tuple[float, float]) -> np.ndarray | None:
        """(H, W, 1) relative brightness of the light over a view, or None (no plane, or no ppi)."""
        if self.exposure_plane is None or not ppi:
            return None
        h, w = shape[:2]
        a, b, c = (float(v) for v in self.exposure_plane)
        x = origin_in[0] + (np.arange(w, dtype=np.float32) + 0.5) / ppi
        y = origin_in[1] + (np.arange(h, dtype=np.float32) + 0.5) / ppi
        return np.clip(a + b * x[None, :] + c * y[:, None], 0.3, 3.0).astype(np.float32)[..., None]

    def apply(self, view_bgr: np.ndarray, ppi: float | None = None,
              origin_in: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        """A top view (uint8 or float BGR) normalised: float32 BGR, the anchors' grey at BLACK..WHITE.

        With `ppi` (and the view's table origin), the exposure plane is divided out first."""
        view_bgr = np.asarray(view_bgr)
        field = self._field(view_bgr.shape, ppi, origin_in)
        gain = self.gain.astype(np.float32)
        offset = (np.float32(BLACK) - self.black_bgr.astype(np.float32) * gain)
        if view_bgr.ndim != 3 or view_bgr.shape[2] != 3:
            img = view_bgr.astype(np.float32)
            return img * gain + offset if field is None else img * (gain / field) + offset
        # out = (img / field) * gain + (BLACK - black * gain): the light divided out in place, then
        # the per-channel map as one affine transform of each pixel (OpenCV's, vectorised).
        if field is None:
            img = view_bgr.astype(np.float32)          # a copy: the caller's view is left alone
        else:                                          # (numpy's broadcast over 3 channels is slow)
            inv = np.float32(1.0) / field[..., 0]
            src = view_bgr if view_bgr.dtype in (np.uint8, np.float32) else view_bgr.astype(np.float32)
            img = cv2.multiply(src, cv2.merge([inv, inv, inv]), dtype=cv2.CV_32F)
        affine = np.zeros((3, 4), np.float32)
        affine[[0, 1, 2], [0, 1, 2]] = gain
        affine[:, 3] = offset
        return cv2.transform(img, affine, dst=img)

    def felt(self, view_bgr: np.ndarray, ppi: float | None = None,
             origin_in: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        """A top view for judging felt: the exposure plane divided out and each channel scaled so the
        white card is WHITE, with no black offset (felt colours scale with the light; an ink black
        measured a little low would otherwise darken every dark felt), and not clipped at 255 (a
        lamp's hot spot keeps its colours). float32 BGR."""
        img = np.asarray(view_bgr, np.float32)
        scale = (WHITE / np.maximum(self.white_bgr, 1.0)).astype(np.float32)
        field = self._field(img.shape, ppi, origin_in)
        if img.ndim == 3 and img.shape[2] == 3:
            # The same products as numpy's broadcast over the channel axis, which is slow: OpenCV's
            # per-pixel transform (a diagonal: each channel times its scale, plus exact zeros) or
            # multiply by each channel's scale over the light, made channel by channel.
            if field is None:
                out = cv2.transform(img, np.diag(scale).astype(np.float32))
            else:
                f = field[..., 0]
                out = cv2.multiply(img, cv2.merge([scale[0] / f, scale[1] / f, scale[2] / f]))
        else:
            out = img * scale if field is None else img * (scale / field)
        return np.maximum(out, 0, out=out)

    def apply_rgb(self, rgb: Sequence[float], xy_in: Sequence[float] | None = None) -> tuple[float, float, float]:
        """One measured colour (RGB) normalised, e.g. a rim sampled in the raw photo."""
        bgr = np.asarray(rgb, np.float64)[::-1]
        if xy_in is not None:
            bgr = bgr / self.exposure_at(np.asarray(xy_in))[0]
        out = (bgr - self.black_bgr) * self.gain + BLACK
        return tuple(float(v) for v in out[::-1])

    def as_json(self) -> dict:
        out = {"black_bgr": np.round(self.black_bgr, 1).tolist(), "white_bgr": np.round(self.white_bgr, 1).tolist(),
               "anchors": list(self.anchors_used)}
        if self.exposure_plane is not None:
            out["exposure_plane"] = np.round(self.exposure_plane, 5).tolist()
        return out


def _card_levels(window: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(black BGR, white BGR) of one anchor's window, or None when it shows no card."""
    px = window.reshape(-1, 3).astype(np.float32)
    if len(px) < 16:
        return None
    lum = px[:, 0] + px[:, 1] + px[:, 2]          # (sum(axis=1)'s numbers, for less)
    lo, hi = _quantiles(lum, np.array([BLACK_SHARE, 1 - WHITE_SHARE]))
    black = median_rows(px[lum <= lo].T)
    white = median_rows(px[lum >= hi].T)
    if (white - black).mean() < MIN_CONTRAST:
        return None
    return black, white


def _own_slopes(window: np.ndarray, black: np.ndarray, white: np.ndarray) -> tuple[np.ndarray, bool]:
    """One card's own slopes (3, 3) [c, u] of channel c over channel u from black to white, and
    whether they come from its white (else from where ink and card blur together: less sure).

    The window holds only ink and card, so a pixel where the two blur together lies on the line
    from black to white: (p_c - black_c) / (p_u - black_u) is the same whatever the mix. Its median
    over the unclipped white pixels, or with too few over the unclipped mixed ones; NaN with too
    few of those."""
    px = window.reshape(-1, 3).astype(np.float32)
    lum = px.sum(axis=1)
    lift = px - black
    unclipped = px.max(axis=1) < CLIP_LEVEL
    card = unclipped & (lum >= _quantiles(lum, np.array([1 - WHITE_SHARE]))[0])
    from_white = bool(card.sum() >= MIN_OWN_PIXELS)
    if not from_white:
        card = unclipped & (lift.min(axis=1) > MIN_MIX * (white - black).min())
    if card.sum() < MIN_OWN_PIXELS:
        return np.full((3, 3), np.nan), False
    m = lift[card]
    return np.median(m[:, :, None] / m[:, None, :], axis=0), from_white


def _unclip(blacks: np.ndarray, whites: np.ndarray, windows: list) -> tuple[np.ndarray, np.ndarray]:
    """Whites (N, 3) with each clipped channel estimated from an unclipped one (see the module's
    docstring), and which cards keep at least one unclipped channel (N,)."""
    clipped = whites >= CLIP_LEVEL
    if not clipped.any():
        return whites, np.ones(len(whites), bool)
    span = np.maximum(whites - blacks, 1.0)
    out = whites.copy()
    owns = None
    for i, c in zip(*np.nonzero(clipped)):
        estimates = []
        for u in np.flatnonzero(~clipped[i]):
            both = ~clipped[:, c] & ~clipped[:, u]
            if both.any():                 # the grey card's slope where it did not clip
                slope = np.median(span[both, c] / span[both, u])
            else:                          # every card clips c: the cards' unclipped pixels
                if owns is None:
                    slopes = [_own_slopes(w, k, t) for w, k, t in zip(windows, blacks, whites)]
                    owns = np.array([o for o, _ in slopes])
                    from_white = np.array([f for _, f in slopes])
                finite = np.isfinite(owns[:, c, u])
                pool = finite & from_white if (finite & from_white).any() else finite
                slope = np.median(owns[pool, c, u]) if pool.any() else np.nan
            if np.isfinite(slope):
                estimates.append(blacks[i, c] + span[i, u] * slope)
        if estimates:
            out[i, c] = max(whites[i, c], float(np.mean(estimates)))
    return out, ~clipped.all(axis=1)


def _quantiles(values: np.ndarray, qs: np.ndarray) -> np.ndarray:
    """np.quantile(values, qs) (linear, numpy's own interpolation and rounding) from one sort of a
    few values (numpy partitions for several order statistics slowly)."""
    s = np.sort(values)
    virtual = (len(s) - 1) * qs
    below = np.floor(virtual).astype(np.intp)
    above = np.minimum(below + 1, len(s) - 1)
    t = virtual - below
    a, b = s[below], s[above]
    diff = b - a
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


def estimate_white_balance(view_bgr: np.ndarray, ppi: float, anchors, origin_in: tuple[float, float] = (0.0, 0.0),
                           *, spatial: bool = True) -> WhiteBalance:
    """The grey card of the anchors in a top view (table plane) -> a WhiteBalance.

    `anchors`: the profile's anchors (id, x_in, y_in, size_in). Anchors outside the view or showing
    no card are skipped; with none usable the identity is returned (colours are then judged as
    they were photographed)."""
    h, w = view_bgr.shape[:2]
    ids, blacks, whites, windows, centres = [], [], [], [], []
    for a in anchors:
        half = a.size_in / 2 * CARD_WINDOW
        x0 = int(round((a.x_in - half - origin_in[0]) * ppi))
        y0 = int(round((a.y_in - half - origin_in[1]) * ppi))
        x1 = int(round((a.x_in + half - origin_in[0]) * ppi))
        y1 = int(round((a.y_in + half - origin_in[1]) * ppi))
        # The card itself must be in the view; of its quiet zone, what the view's edge leaves (a view
        # cut at the table's edge, the anchors in its corners).
        inset = int(np.ceil(a.size_in * (CARD_WINDOW - 1) / 2 * ppi))
        if x0 + inset < 0 or y0 + inset < 0 or x1 - inset > w or y1 - inset > h:
            continue
        window = view_bgr[max(y0, 0):min(y1, h), max(x0, 0):min(x1, w)]
        levels = _card_levels(window)
        if levels is None:
            continue
        ids.append(int(a.id))
        blacks.append(levels[0])
        whites.append(levels[1])
        windows.append(window)
        centres.append((a.x_in, a.y_in))
    if not ids:
        return WhiteBalance.identity()
    blacks, centres = np.array(blacks), np.array(centres)
    whites, seen = _unclip(blacks, np.array(whites), windows)
    if seen.any() and not seen.all():     # cards clipped in every channel: only lower bounds
        ids = [i for i, s in zip(ids, seen) if s]
        blacks, whites, centres = blacks[seen], whites[seen], centres[seen]
    # A grey card is grey: anchors whose white chromaticity strays from the others' are left out.
    chroma = whites / whites.sum(axis=1, keepdims=True)
    keep = np.abs(chroma - median_rows(chroma.T)).max(axis=1) <= MAX_CARD_CHROMA
    if keep.sum() == 0:
        keep[:] = True
    blacks, whites, centres = blacks[keep], whites[keep], centres[keep]
    used = tuple(i for i, k in zip(ids, keep) if k)
    plane = None
    if spatial and len(used) >= 3:
        plane = _exposure_plane(centres, whites.mean(axis=1))
        if plane is not None:
            rel = np.clip(plane[0] + centres @ plane[1:], 0.3, 3.0)
            whites = whites / rel[:, None]
            blacks = blacks / rel[:, None]
    return WhiteBalance(median_rows(blacks.T), median_rows(whites.T), plane, used)


def _exposure_plane(centres_in: np.ndarray, brightness: np.ndarray) -> np.ndarray | None:
    """a, b, c with a + b x + c y = brightness / its mean (least squares), when the anchors span an area."""
    a = np.column_stack([np.ones(len(centres_in)), centres_in])
    rel = brightness / brightness.mean()
    sol, _, rank, _ = np.linalg.lstsq(a, rel, rcond=None)      # (its rank: matrix_rank's tolerance)
    return sol if rank >= 3 else None
