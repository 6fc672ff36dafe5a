"""Felt terrain: pieces of the profile's terrain colours become one simplified polygon each, in table
inches, with a confidence.

Felt is inches wide, so the table-plane view is read at `WORK_PPI` (a few pixels an inch). Each
pixel is described by four numbers, all relative to the mat around it (the mat is most of the table,
and a lamp's hot spot, vignetting or a warm corner change the mat and every felt on it alike): its
two log chromaticities, log(R/G) and log(B/G) (a photographed texture is a change of brightness, so
these are free of it), its log brightness, and the log of its brightness's spread over ~0.6" (gravel
felt is rougher than a gravel mat, water felt smoother than grass). The mat's local value of each is
the mean of the mat-like pixels within `MAT_REACH_IN`, and its spread is learnt from the whole mat.
The seeds are looked for on a layer `SEED_FACTOR` times coarser (each pixel the mean of a block's
four numbers, judged in the work layer's spreads), the pieces outlined on the work layer.

Each kind starts as a Gaussian around the profile's colour, as wide as a felt's colour is uncertain.
Seeds are pixels far from the mat (in its own spread) and nearer a kind's colour than to the mat in
shade, paper, a phone or a pencil, and not where a figure stands (a marker's black and white is a
grey); of a kind's seed patches the one that stands out most and is most like the profile is the
kind (the patches are shared out among the kinds at once, so that a felt a cast moved towards
another kind's colour is still its own kind when that kind's felt is elsewhere; specks the camera
clipped inside a patch are part of it, and so is a larger clipped hole the patch rings (a bright
felt's middle under a lamp: the felt's, not a share of it unseen, though the piece grows from the
patch's seen pixels only); a patch at the table's edge counts for less than a felt inside that stands
out well, a book or a cloth hanging over it, but for more than a faint mottle of the mat: a felt
running off the table), and the kind's Gaussian is learnt from the patches like it, in its
own spread (as the rims relearn a side's colour). When the felts seeded surely (and off the mat's
own chromaticity: a patch of the mat's hue, only darker or lighter, may be the mat in shade or under
a lamp) all lie off their profile colours the same way (a cast the anchors' white balance left), the
kinds' colours are moved by it and the seeds looked for again (a felt that told the cast keeps its
seeds unless the second look finds a patch standing further from the mat); where three felts or
more fit a stretch of the colours and not a shift (each chromaticity a gain times the profile's plus
an offset: a phone that makes colours more vivid over what is left of a cast), they are stretched
instead. Then, in a window round its seeds, a kind wins where it is likelier than the mat, the mat
in shade and the other kinds; its
edge near there is where the colour is half the felt's, half the mat's just around the piece (linear
unmixing of the colour as a share of the mat's, weighted by how the mat's colour varies), so a soft
ragged edge falls where the felt covers half. A felt of the mat's own colour (rocks on a grey table)
that is rougher than the mat, at the felt's scale and at the pixel scale (a soft blotch of a plain
mat is rough only where its light changes), wins by its roughness too, and its edge is where it is
as likely as not. A piece is a connected region holding seeds (hysteresis), closed, with its holes
filled and the figures seen on its edge added (a figure standing on it is part of it, and a larger
hole that is mostly clipped: the felt under a lamp's hot spot), traced at a quarter pixel; a strip
narrower than STREAK_IN joined to it (a grain's streak) is opened off. Where a figure stands the
felt is hidden and its colours are no evidence (a marker's black and white read as grey felt): it is
left out, then given back when it stands on the piece, or as far as the piece's hull when at its
edge. A notch in its edge that mostly shows a thing neither mat nor felt (a figure the detectors
missed) is the piece's. A piece that reaches the edge of the window round its seeds (the rest of it
under a clipped hot spot, where nothing seeds) is looked for again in a window reaching further that
way; one that reaches on and on is kept as first found. That one, and one at the table's edge, is
the mat when it shows the mat's own grain (a streak of light wood; a grain is a texture: a plain
mat's light lines up its gradients too). Where the camera clipped, a pixel brighter than both the
mat around and the felt is the lamp's hot spot on the mat, not the felt. A region is no piece when
it is small, thin, lies along the table's edge, reaches in over it (an arm, a cloth), is square-cut
and hangs over it (a book), is cut straight and plain where a felt is rough (a book lying on the
table: then the kind's next patch is tried), or is nearly all as white as paper (over the mat, nearer the anchors'
white card than the kind's colour in brightness, or clipped, unless it keeps a tinted kind's tint: a
pale sand felt): a printed page, its print too fine for this layer, averages to a grey near a rocks
felt's. Each piece's `confidence` is how surely its inside (where no figure stands) is its kind,
against the sides' rim colours and the distractors too, times how far the kind stands from the mat,
in the mat's own spread (its roughness counted only where it is rougher than the mat: rocks felt of
a grey table's own grey). Two pieces of different kinds that touch and are one colour are one felt
seeded in two parts (a grey felt a warm light moved part way to the hill's colour): one piece, of
the kind its colour is nearer in chromaticity and brightness, the other kind none there. A kind the
colours find no piece of may be a felt cut to the mat's own colour on a grained mat (a hill on light
wood): the one patch of its colour where the grain stops (vision.terrain_grain), and as rough at the
pixel scale as a felt (a plain book or card of the mat's colour is smooth), is its piece.
"""
from __future__ import annotations

import functools
import itertools
import math
from typing import Sequence

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

from measure.scene import Terrain
from vision import terrain_grain
from vision.colour import median_rows

TERRAIN_PPI = 10.0           # the layer the white balance is measured on (vision.pipeline)
WORK_PPI = 5.0               # felt is inches wide: it is outlined this coarse ...
SEED_FACTOR = 2              # ... and its seeds are looked for on a layer this many times coarser
UNKNOWN_SHARE = 0.5          # a block of it with this share of its pixels unknown (clipped, a hand) is unknown
SMOOTH_IN = 0.2              # colour is averaged over about this (felt fibres, sensor noise, JPEG)
MAT_REACH_IN = 8.0           # the local mat is the mean of mat-like pixels this far around
MAT_LIKE_SIGMA = 3.0         # a pixel within this many of the mat's spreads counts as mat-like
MIN_AREA_SQIN = 8.0          # smaller regions of a kind are not a piece
MAX_HOLE_SQIN = 3.0          # holes up to this are filled: a figure or a marker standing on the felt ...
CLIPPED_HOLE = 0.5           # ... and larger ones with this share clipped: the felt under a lamp's hot spot
STREAK_IN = 0.4              # narrower than this, a strip joined to a piece is no felt (a grain's streak)
MAX_NOTCH_SQIN = 2.5         # a notch in a piece's edge up to this ...
MIN_THING_SHARE = 0.7        # ... this much of it neither mat nor felt is a figure standing there
MIN_THICK_IN = 0.6           # a piece holds a disc this wide somewhere (pencils, strips, rims do not)
POOL_IN = 0.5                # colour is also pooled over about this (a felt is one colour, a texture varies)
POOL_FLOOR = 2.0             # ... where the mat's spread may be this much under a pixel's least (FLOOR)
ANOMALY_SIGMA = 4.5          # a seed lies this far from the mat (in its spreads, roughness too) ...
SEED_SIGMA = 4.5             # ... this near a kind's colour, nearer than to any other colour ...
SEED_MIN_SQIN = 2.0          # ... in a patch at least this big ...
MIN_STRENGTH_SIGMA = 4.0     # ... lying on average this far from the mat (a soft mottle does not)
MIN_SEED_EVIDENCE = 32.0     # ... and its size (sq in) times that at least this: a felt's patch is big or stands
                             # far out; a few square inches of the mat's mottle, a shadow or a book's edge just
                             # past MIN_STRENGTH_SIGMA is what a kind left off the table seeds
MAX_LEARN_SIGMA = 4.5        # a seed patch further than this from the kind's profile colour is not it
SECOND_PRIOR_SCALE = 1.5     # a kind looked for again is less sure of its colour: its spread this many times,
SECOND_MIN_SQIN = 12.0       # and its piece is this big at least (a 4" disc; a mug's coffee is 9 sq in)
CAST_SURE_SIGMA = 3.0        # felts seeded this near their profile colours tell the cast left by the white balance
STRETCH_KINDS = 3            # felts off the mat's chromaticity that may tell a stretch of the colours (a phone's
STRETCH_SPAN = 4.0           # vivid colour over a cast), their profile colours this many spreads apart on each axis,
STRETCH_GAIN = (0.8, 3.0)    # the stretch within this, and at least this far from none,
STRETCH_LEAST = 0.15
STRETCH_LEFT = 0.6           # leaving this share of what a shift of the colours leaves at most
RELABELLED_SHARE = 0.5       # a seed patch this much of which the second look gives another kind is that kind's
SAME_KIND_SIGMA = 1.5        # a patch this near the kind's chosen patch is the same felt
CLIP_GAP_SQIN = 1.0          # clipped specks up to this beside a seed patch are part of it (half their rim held) ...
CLIP_HELD = 0.75             # ... and a larger clipped hole when the patch holds this share of its rim
                             # (a bright felt's middle under a lamp's hot spot) ...
CLIP_HOLE_MAX_SQIN = 80.0    # ... up to this (a felt is a foot across at most; a lamp's whole hot spot is more)
MIN_SEEN_SHARE = 0.4         # a seed patch is mostly seen (not where the camera clipped)
MAX_SEED_GROUPS = 3          # groups of a kind's patches tried, likeliest first, until one makes a piece
PRIOR_PER_CHANNEL = 7.0      # a felt's colour is uncertain by about this much per channel (0-255) ...
PRIOR_L = 0.25               # ... and its brightness (log) by this: exposure and light
PRIOR_TEXTURE = 1.0          # a kind's roughness is not known before it is seen (log spread)
NEAR_FELT_SIGMA = 2.0        # a distractor colour this near a felt's is left out (a white snow felt)
SHADE_L = (-0.5, 0.3)        # the mat in shade: log brightness below the mat's (a mug's shadow) ...
LOG_PRIOR_SHADE = -2.0       # ... less likely than the mat in full light
LOG_PRIOR_OTHER = -2.0       # a rim or a distractor is less likely than felt
FLOOR = np.array([0.012, 0.012, 0.03, 0.08], np.float32)   # least spread of a class per feature
ROI_PAD_IN = 2.0             # a piece is looked for this far around its seeds
MAX_WIDENINGS = 3            # ... and up to this many times twice as far again where it reaches that window's edge
EDGE_SLACK_IN = 0.4          # the colour edge is looked for this far around where the kind wins
EDGE_BAND_IN = 1.0           # a patch mostly within this of the table's edge is not on the table
MAX_EDGE_SHARE = 0.5
EDGE_TOUCH_IN = 0.3          # a patch this near the view's edge touches the table's edge ...
MAX_REACH_ASPECT = 1.8       # ... and one this elongated there reaches in from outside (an arm),
ALONG_EDGE_COS = math.cos(math.radians(25.0))   # unless its long axis runs along that edge (within 25
MAX_ALONG_ASPECT = 2.4       # degrees) and it is no more elongated than this: a felt the edge cuts
EDGE_SEED_SCORE = 3.0        # a seed patch touching the table's edge scores no more than this: less than a felt
                             # inside that stands out well (most score 5.7 or more), so a book hanging over the edge
                             # is not taken before it; more than a faint patch of the mat's mottle, so a felt running
                             # off the table is
MIN_EDGE_THING_FILL = 0.9    # one filling its bounding rectangle this well hangs over it (a book) ...
EDGE_CUT_FILL = 0.8          # ... and one filling it this well whose outline is cut straight (a rotated book the
EDGE_CUT_CORNERS = 4         # edge cuts: this many corners at most, within EDGE_CUT_TOL_IN); a felt the table's
EDGE_CUT_TOL_IN = 0.3        # edge cuts fills 0.7-0.9 of it too, but is round everywhere else
MIN_BOX_FILL = 0.93          # a piece filling its smallest rectangle this well is cut straight (the hard set's
                             # felts 0.89 at most; the demo table's rocks, a cut quadrilateral, 0.94; a book 0.98) ...
MAX_BOX_FUZZ = 0.4           # ... and, no rougher than this share of the mat's fuzz, a plain thing (a book)
MAX_EDGE_FUZZ = 0.15         # a piece the table's edge cuts this smooth is a plain thing hanging over it, whatever
                             # its outline (books 0.01-0.11 of a textured mat's fuzz; felts 0.27 or more)
THIN_IN = 1.5                # a piece no thicker than this (its widest disc) is thin, and then ...
MAX_THIN_ASPECT = 3.0        # ... one this elongated (its turned rectangle) is a streak, a wood's grain
BROAD_DISC_IN = 2.0         # a felt is cut inches wide: discs this wide that fit in it ...
MIN_BROAD_SHARE = 0.7        # ... hold this share of it at least (holes filled)
MIN_HULL_FILL = 0.7          # a cut felt fills its convex hull well; a net of streaks or mottle does not ...
BROAD_IN = 3.0               # ... unless it is this thick somewhere (a broad piece a figure or a hand bites into)
RING_IN = (0.5, 1.5)         # the mat around a piece is read in this ring outside where it wins
SUBPIXEL = 4                 # outlines are traced on the unmixed cover enlarged this much
SIMPLIFY_IN = 0.03           # outline simplification tolerance
SEPARATION_FULL = 4.0        # a kind this many mat spreads from the mat is fully distinct
COLOUR_ALONE_SIGMA = 2.0     # a kind nearer the mat than this in colour (its pixels' spreads), and
                             # further off in roughness, is told and outlined by its roughness too ...
ROUGH_FUZZ_SHARE = 1.5       # ... when it is that much rougher at the pixel scale as well (its stones;
                             # a soft blotch of a plain mat is rough only where its light changes)
PAPER_SHARE = 0.9            # a region nearly all this share as white as paper is no felt of a darker kind
TINT_SHARE = 0.4             # ... unless its tint lies within this share of the way from the kind's to paper's
MIN_TINT_RATIO = 1.15        # ... of a kind whose colour is tinted: its brightest channel this over its darkest
FAINT_SIGMA = 4.5            # a piece whose inside stands out less than this from the mat (its spreads) ...
FADE_IN_IN = 1.0             # ... must step across its outline (this far in against this far out) by ...
FADE_SHARE = 0.95            # ... this share of that at least: a felt is cut, a soft blotch of the mat fades
                             # (on 900 hard photos faint felts stepped 0.99-1.15 of it, the mottle taken for a
                             # kind left off the table 0.72-0.93)
FADE_STEP_IN = 0.3           # (its outline read every this far,
FADE_MIN_SAMPLES = 8         # at this many places at least, or it is not judged)
FAINT_HULL_FILL = 0.8        # ... and fills this share of its convex hull at least: a faint felt is one cut shape
                             # (0.85 or more on 2600 faint and strong felts of 900 hard photos), a faint sprawl
                             # the mottle's blotches joined (0.55-0.78) is the mat
MIN_CONFIDENCE = 0.5         # pieces less sure than this are not reported
MAX_THING_RING = 0.1         # a kind looked for again takes no patch this much of whose ring is a thing (a mug) ...
THING_RING_IN = 0.8          # ... the ring this wide
GRAIN_MAX_THINGS_ROUND = 0.5  # a felt told by its lack of grain has things (not the mat) round at most this share of it
GRAINED_MAT = 0.4            # a mat this coherent has a grain (vision.terrain_grain: wood 0.5-0.75, grass 0.2) ...
GRAINED_MAT_FUZZ = 0.02      # ... when it has a texture at all (its fuzz: wood 0.07-0.1; a plain mat 0.004-0.03,
                             # whose coherence is its light's smooth gradients lining up)
SAME_GRAIN_SIGMA = 0.5       # ... and a region within this many of its spreads under its coherence shows it
FOOT_MARGIN_IN = 0.1         # a figure's footprint is its base this much enlarged (the felt it hides)
# Things on a table that are no felt: paper, a phone, a pencil. Each competes for seeds unless it
# is near one of the profile's felt colours (a white "snow" felt stays snow). Hands are found by
# vision.hands and handed in as `exclude_mask`.
DISTRACTORS = ((236, 236, 236), (28, 28, 30), (225, 185, 45))
OFFSET = 2.0                 # added before logs (dark channels)
CLIPPED = 254                # a channel this bright (camera 0-255, before white balance) over a whole work pixel clipped
WASHED = 245                 # a channel this bright is on the tone curve's shoulder: flattened, not yet clipped,
FLATTEN_LOG = 0.25           # by up to this much (log): a work pixel reading 245-253 holds clipped and unclipped
                             # pixels, so what it shows lies within the texture's spread of clipping (on 660 hard
                             # photos 0.35 lost a pale hill on a cherry table, 0.25 no felt)


@functools.lru_cache(maxsize=64)
def _kernel(radius_in: float, ppi: float) -> np.ndarray:
    n = max(1, int(round(radius_in * ppi))) * 2 + 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (n, n))


def colour_features(rgbs: Sequence[Sequence[int]]) -> np.ndarray:
    """(K, 3) log(R/G), log(B/G) and log brightness of RGB colours, as `_features` measures them."""
    bgr = np.asarray([tuple(c)[::-1] for c in rgbs], np.float32).reshape(-1, 1, 3)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).reshape(-1)
    lg = np.log(bgr.reshape(-1, 3) + OFFSET)
    return np.column_stack([lg[:, 2] - lg[:, 1], lg[:, 0] - lg[:, 1], np.log(gray + OFFSET)]).astype(np.float32)


def _shrink(image: np.ndarray, n: int) -> np.ndarray:
    """Means of n x n blocks (a last partial row and column of blocks dropped)."""
    if n == 1:
        return image
    h, w = image.shape[:2]
    image = image[: h // n * n, : w // n * n]
    if image.ndim == 3 and image.shape[2] > 4:
        return np.concatenate([_shrink(image[..., c:c + 4], n).reshape(h // n, w // n, -1)
                               for c in range(0, image.shape[2], 4)], axis=2)
    return cv2.resize(image, (w // n, h // n), interpolation=cv2.INTER_AREA)


def _smooth(image: np.ndarray, sigma_px: float) -> np.ndarray:
    """A Gaussian blur of `sigma_px` for a slowly varying field, cheaper than the full kernel: a
    Gaussian at half resolution between a pyramid step down and up, which together spread it by
    sqrt(2) pixels, so never less (the pool on the seeds' layer, asked for 1.25 px, is 1.41 px or
    0.57 in wide: the pool of 0.5 in on that layer gave a false piece in 72 hard photos)."""
    half = cv2.pyrDown(image)
    half = cv2.GaussianBlur(half, (0, 0), math.sqrt(max(sigma_px ** 2 - 2.0, 0.25)) / 2)
    return cv2.pyrUp(half, dstsize=(image.shape[1], image.shape[0]))


def _features(small: np.ndarray, ppi: float) -> np.ndarray:
    """(7, H, W) float32 planes: log(R/G), log(B/G), log brightness (smoothed at felt scale), log
    spread of the brightness over 3 x 3 pixels, and the smoothed B, G, R themselves."""
    h, w = small.shape[:2]
    out = np.empty((7, h, w), np.float32)
    smooth = cv2.GaussianBlur(small, (0, 0), SMOOTH_IN * ppi)
    b, g, r = cv2.split(smooth, [out[4], out[5], out[6]])
    offset = np.float32(OFFSET)
    lg = [cv2.log(cv2.add(c, float(offset))) for c in (b, g, r)]
    np.subtract(lg[2], lg[1], out=out[0])
    np.subtract(lg[0], lg[1], out=out[1])
    gray = cv2.cvtColor(smooth, cv2.COLOR_BGR2GRAY)
    cv2.log(cv2.add(gray, float(offset), dst=gray), dst=out[2])
    raw = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    raw = cv2.log(cv2.add(raw, float(offset), dst=raw), dst=raw)
    m1 = cv2.blur(raw, (3, 3))
    var = cv2.blur(cv2.multiply(raw, raw), (3, 3))
    var -= cv2.multiply(m1, m1, dst=m1)
    np.maximum(var, np.float32(1e-4), out=var)
    cv2.log(var, dst=var)
    np.multiply(var, np.float32(0.5), out=out[3])
    return out


def _mat_may_explain(rel_uv: np.ndarray, washed: np.ndarray) -> None:
    """Log chromaticity over the local mat's (2, H, W: log R/G, log B/G; in place) where a channel
    was near clipping (`washed`: (H, W, 3) bool, B, G, R): there the camera flattened it, so the
    true ratio may lie up to FLATTEN_LOG beyond the one read on one side. Where the mat's lies
    within that, the mat explains the pixel and it reads as the mat (a lamp's hot spot on a warm mat,
    its red flattened, reads as a grey felt); further, it reads as it was read (a pale felt on a dark
    red table, its red near clipping too, is far less red than the table)."""
    b, g, r = washed[..., 0], washed[..., 1], washed[..., 2]
    reach = np.float32(FLATTEN_LOG)
    for plane, top in ((rel_uv[0], r), (rel_uv[1], b)):
        # (the top channel flattened: truly more of it; green flattened: truly less; both: either)
        low = (plane < 0) & (plane >= -reach)
        high = (plane > 0) & (plane <= reach)
        np.copyto(plane, np.float32(0.0), where=(top & low) | (g & high))


def _sq_dist(planes: np.ndarray, mu, sigma) -> np.ndarray:
    """Sum over the planes of ((plane - mu) / sigma) ** 2, plane by plane."""
    out = None
    for plane, m, s in zip(planes, mu, sigma):
        d = (plane - np.float32(m)) * np.float32(1.0 / s)
        d *= d
        out = d if out is None else np.add(out, d, out=out)
    return out


def _robust(values: np.ndarray, floor: np.ndarray = FLOOR) -> tuple[np.ndarray, np.ndarray]:
    values = np.ascontiguousarray(np.asarray(values).T)
    centre = median_rows(values)
    spread = 1.4826 * median_rows(np.abs(values - centre[:, None]))
    return centre.astype(np.float32), np.maximum(spread, floor[: values.shape[0]]).astype(np.float32)


def _mean_std(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """xs.mean(axis=0) and xs.std(axis=0) of an (N, C) array, numpy's own numbers (the same ufuncs
    in the same order as its mean and var), with the sum over the rows taken once for both."""
    n = np.intp(xs.shape[0])
    total = np.add.reduce(xs, axis=0)
    mean = np.true_divide(total, n, out=total, casting="unsafe")
    dev = xs - mean
    np.multiply(dev, dev, out=dev)
    var = np.add.reduce(dev, axis=0)
    np.true_divide(var, n, out=var, casting="unsafe")
    return mean, np.sqrt(var, out=var)


def _mahal(d: np.ndarray, sigma: np.ndarray) -> float:
    return float(np.sqrt(((np.asarray(d) / np.asarray(sigma)) ** 2).sum()))


def _prior_sigma(rgb: Sequence[int]) -> np.ndarray:
    """How uncertain a named colour's features are: each channel off by about PRIOR_PER_CHANNEL."""
    r, g, b = (float(c) + OFFSET for c in rgb)
    e = PRIOR_PER_CHANNEL
    return np.array([e * math.hypot(1 / r, 1 / g), e * math.hypot(1 / b, 1 / g), PRIOR_L, PRIOR_TEXTURE], np.float32)


def _local_mat(planes: np.ndarray, mat_like: np.ndarray, ppi: float, fallback) -> tuple[np.ndarray, int]:
    """(C, H', W'): the mean of the mat-like pixels within MAT_REACH_IN of each block of s x s pixels,
    and s (`_enlarged` brings a plane of it back to the planes' layer, or a finer one). `fallback()`:
    the (C,) value where no mat-like pixel is near (asked for only then)."""
    small = max(1, int(ppi))          # the light changes slowly: an inch a pixel is enough
    k = max(3, int(round(2 * MAT_REACH_IN * ppi / small)) | 1)

    weighted = np.empty((len(planes) + 1, *mat_like.shape), np.float32)
    np.multiply(planes, mat_like, out=weighted[:-1])
    weighted[-1] = mat_like
    shrunk = _shrink_planes(weighted, small)
    wsum = cv2.blur(shrunk[-1], (k, k), borderType=cv2.BORDER_REFLECT)
    sums = cv2.blur(cv2.merge(list(shrunk[:-1])), (k, k), borderType=cv2.BORDER_REFLECT)
    have = (wsum > 0.05)[..., None]
    mean = sums / np.maximum(wsum, 1e-6)[..., None]
    if not have.all():
        mean = np.where(have, mean, np.asarray(fallback(), np.float32))
    mean = mean.astype(np.float32)
    return np.ascontiguousarray(mean.transpose(2, 0, 1)), small


def _enlarged(plane: np.ndarray, s: int, shape: tuple[int, int], out: np.ndarray) -> np.ndarray:
    """A plane of s x s blocks on the layer of `shape`: block j covers pixels s * j ... s * j + s - 1,
    which is how an exact enlargement by s places it; the last partial blocks repeat. Made in `out`
    (float32, of `shape`), which is returned."""
    hb, wb = plane.shape[0] * s, plane.shape[1] * s
    cv2.resize(plane, None, fx=s, fy=s, interpolation=cv2.INTER_LINEAR, dst=out[:hb, :wb])
    if wb < shape[1]:
        out[:hb, wb:] = out[:hb, wb - 1:wb]
    if hb < shape[0]:
        out[hb:] = out[hb - 1]
    return out


def _shrink_planes(planes: np.ndarray, f: int) -> np.ndarray:
    """(C, H // f, W // f): `_shrink` of each plane; when H is a multiple of f, in one call on the
    planes stacked as one image of C * H rows, whose f x f blocks never straddle two planes (the
    same pixels)."""
    if f == 1:
        return planes
    c, h, w = planes.shape
    if h % f:                  # (the planes cut to whole blocks would be copied to be stacked)
        return np.stack([_shrink(p, f) for p in planes])
    ww = w // f * f
    stacked = planes[:, :, :ww].reshape(c * h, ww)      # (rows of w pixels, the first ww read)
    return cv2.resize(stacked, (ww // f, c * h // f), interpolation=cv2.INTER_AREA).reshape(c, h // f, ww // f)


def _finer(seed: np.ndarray, box, f: int, shape: tuple[int, int]):
    """A seed mask and its box (u0, v0, u1, v1) on a layer f times coarser, on the work layer."""
    if f == 1:
        return seed, box
    h, w = shape
    fine = np.zeros(shape, bool)
    u0, v0, u1, v1 = (int(b) for b in box)
    block = seed[v0:v1, u0:u1].view(np.uint8)
    big = cv2.resize(block, ((u1 - u0) * f, (v1 - v0) * f), interpolation=cv2.INTER_NEAREST)
    fine[v0 * f:v1 * f, u0 * f:u1 * f] = big > 0
    return fine, (u0 * f, v0 * f, min(w, u1 * f), min(h, v1 * f))


def find_terrain(view_bgr: np.ndarray, ppi: float, kinds: Sequence[tuple[str, Sequence[int]]],
                 side_rgbs: Sequence[Sequence[int]] = (), footprints_in: Sequence[tuple[float, float, float]] = (),
                 origin_in: tuple[float, float] = (0.0, 0.0),
                 exclude_in: Sequence[tuple[float, float, float, float]] = (),
                 table_in: tuple[float, float, float, float] | None = None,
                 reference_in: Sequence[tuple[float, float]] = (),
                 exclude_mask: np.ndarray | None = None,
                 clipped_mask: np.ndarray | None = None,
                 washed_mask: np.ndarray | None = None) -> tuple[Terrain, ...]:
    """Terrain pieces in a table-plane top view (BGR, uint8 or float: white-balanced when the
    pipeline can, and then not clipped, so a lamp's hot spot keeps its colours; any resolution,
    read at about WORK_PPI). `kinds`: (kind, rgb) from the profile; `side_rgbs`: the sides' rim
    colours (they count against how sure a piece is; a rim is too small to seed); `footprints_in`: (x, y, radius)
    of the figures and markers seen, filled into the piece they stand on; `exclude_in`: (x0, y0,
    x1, y1) rectangles that are never terrain (the anchor cards); `table_in`: the table's rectangle
    (default: the view's); `reference_in`: table points whose light the view was white-balanced
    for (the anchors); `exclude_mask`: (H, W) bool, never terrain (hands over the table);
    `clipped_mask`: (H, W) bool, where the camera clipped a channel (no colour evidence);
    `washed_mask`: (H, W, 3) bool, where each channel (B, G, R) was near clipping (WASHED: the tone
    curve flattened it), so that a ratio with it is a bound, not a reading (_mat_may_explain)."""
    if not kinds:
        return ()
    n = max(1, int(round(ppi / WORK_PPI)))
    wppi = ppi / n
    # A block of n view pixels is one work pixel, centred (n - 1) / 2 view pixels in.
    ox, oy = origin_in[0] + (n - 1) / (2 * ppi), origin_in[1] + (n - 1) / (2 * ppi)
    work_bgr = _shrink(np.asarray(view_bgr, np.float32), n)
    planes = _features(work_bgr, wppi)
    h, w = planes.shape[1:]
    excluded = np.zeros((h, w), bool)
    if exclude_mask is not None:
        excluded |= _shrink(np.asarray(exclude_mask, np.float32), n) > 0
    for x0, y0, x1, y1 in exclude_in:
        excluded[max(0, int((y0 - oy) * wppi)):max(0, int(math.ceil((y1 - oy) * wppi)) + 1),
                 max(0, int((x0 - ox) * wppi)):max(0, int(math.ceil((x1 - ox) * wppi)) + 1)] = True
    unknown = excluded.copy()
    if clipped_mask is not None:
        # A clipped channel carries no colour: there the felt is unknown. It neither seeds a piece
        # (a lamp's streak along bright grain is no hill) nor tells what the mat is like; a piece
        # seeded elsewhere may still reach over it.
        unknown |= _shrink(np.asarray(clipped_mask, np.float32), n) > 0
    if table_in is None:
        table_in = (origin_in[0], origin_in[1], origin_in[0] + view_bgr.shape[1] / ppi,
                    origin_in[1] + view_bgr.shape[0] / ppi)

    # The seeds are looked for on a layer SEED_FACTOR times coarser (each pixel the mean of a block's
    # features: a felt is inches wide); the pieces are outlined on the work layer.
    f = SEED_FACTOR
    cplanes = _shrink_planes(planes, f)
    hc, wc = cplanes.shape[1:]
    cppi = wppi / f
    cox, coy = ox + (f - 1) / (2 * wppi), oy + (f - 1) / (2 * wppi)
    cexcluded, cunknown = excluded, unknown
    if f > 1:                  # (a block is unknown, or never terrain, when half its pixels are)
        cexcluded, cunknown = _shrink_planes(np.stack([excluded, unknown]).astype(np.float32), f) >= UNKNOWN_SHARE

    # The mat: its centre and spread over the whole view, then its local mean around each pixel.
    step = max(1, int(math.sqrt(hc * wc / 2500)))
    sample = cplanes[:, ::step, ::step][:, ~cunknown[::step, ::step]].T
    centre, spread = _robust(sample[:, :3])
    mat_like = ((_sq_dist(cplanes[:3], centre, spread) < 3 * MAT_LIKE_SIGMA ** 2) & ~cunknown).astype(np.float32)
    like_s = mat_like[::step, ::step] > 0
    blocks, block = _local_mat(
        cplanes, mat_like, cppi,
        lambda s=step: median_rows(cplanes[:, ::s, ::s][:, like_s]) if like_s.any() else median_rows(sample.T))
    # (only the log chromaticity and brightness planes are read at the seeds' layer)
    clocal = np.empty((4, hc, wc), np.float32)
    for plane, local in zip(blocks[:4], clocal):
        _enlarged(plane, block, (hc, wc), local)
    rel_c = cplanes[:4] - clocal
    # (The seeds are judged in the work layer's mat spread, read below: a block's mean varies less than
    # its pixels, and a felt no more surely stands out for being looked at coarser.)
    rel = np.empty((4, h, w), np.float32)
    ratio = np.empty((3, h, w), np.float32)
    for i in range(7):
        if i < 4:
            local = _enlarged(blocks[i], block * f, (h, w), rel[i])
            np.subtract(planes[i], local, out=local)
        else:
            # Colour as a share of the local mat's: a pixel half felt, half mat lies half way.
            local = _enlarged(blocks[i], block * f, (h, w), ratio[i - 4])
            np.maximum(local, np.float32(1.0), out=local)
            np.divide(planes[i], local, out=local)
            local -= np.float32(1.0)
    # (The work layer's mat spread, read where the coarse layer's mat-like samples lie.)
    fs = (slice(0, like_s.shape[0] * step * f, step * f), slice(0, like_s.shape[1] * step * f, step * f))
    like_f = like_s[: rel[0][fs].shape[0], : rel[0][fs].shape[1]]
    mat_sigma = seed_sigma = _robust(rel[:, fs[0], fs[1]][:, like_f].T)[1]
    q_mat = ratio[:, fs[0], fs[1]][:, like_f].T
    if len(q_mat) > 10:
        q_dev = q_mat - q_mat.mean(axis=0, dtype=np.float64)      # (np.cov's numbers, without its checks)
        q_w = np.linalg.inv(q_dev.T @ q_dev / (len(q_mat) - 1) + np.eye(3) * 1e-4).astype(np.float32)
    else:
        q_w = np.eye(3, dtype=np.float32)
    as_read = rel[:3]              # (a felt's kind, and whether it is a soft blotch, are told by its colour as read)
    if washed_mask is not None and washed_mask.any():
        # A lamp's hot spot on a warm mat flattens its red into a colour like a grey felt's: the mat
        # explains a flattened pixel (_mat_may_explain) where the mat round it was read unflattened
        # (flattened too, both read alike) and the pixel is brighter than it (a lamp lit it into the
        # shoulder). (After the mat's spread is read: that is of the photo as it came.)
        washed = _shrink(np.asarray(washed_mask, np.float32), n)
        cwashed = _shrink(washed, f) if f > 1 else washed
        as_read = rel[:3].copy()
        around, _ = _local_mat(np.ascontiguousarray(cwashed.transpose(2, 0, 1)), mat_like, cppi, lambda: np.zeros(3))
        for layer, here, shape, scale in ((rel, washed, (h, w), block * f), (rel_c, cwashed, (hc, wc), block)):
            mat_washed = np.stack([_enlarged(p, scale, shape, np.empty(shape, np.float32)) for p in around], axis=2)
            _mat_may_explain(layer[:2], (here >= UNKNOWN_SHARE) & (mat_washed < UNKNOWN_SHARE)
                             & (layer[2] > 0)[..., None])

    if len(reference_in):
        ref = np.asarray(reference_in, np.float64).reshape(-1, 2)
        u = np.clip(np.round((ref[:, 0] - cox) * cppi).astype(int), 0, wc - 1)
        v = np.clip(np.round((ref[:, 1] - coy) * cppi).astype(int), 0, hc - 1)
        mat_ref = clocal[:3, v, u].mean(axis=1)
    else:
        mat_ref = median_rows(clocal[:3, ::step, ::step].reshape(3, -1))
    kind_abs = colour_features([rgb for _, rgb in kinds])
    profile_mu = prior_mu = kind_abs - mat_ref     # (prior_mu is moved by the cast the felts tell, below)
    prior_sd = np.array([_prior_sigma(rgb)[:3] for _, rgb in kinds], np.float32)
    # Other colours a seed may be nearer to: paper, a phone, a pencil (not near a felt colour), the
    # mat in shade (a soft shadow is darker mat, not a dark felt). The sides' rim colours do not
    # compete: a rim is too small to seed, and blue water under a warm light is no blue rim.
    extra = [tuple(c) for c in side_rgbs] + list(DISTRACTORS)
    extra_mu = colour_features(extra) - mat_ref
    extra_sd = np.array([_prior_sigma(c)[:3] for c in extra], np.float32)
    near_felt = ((((extra_mu[:, None] - prior_mu[None]) / prior_sd[None]) ** 2).sum(axis=2)
                 <= NEAR_FELT_SIGMA ** 2).any(axis=1)
    others = [i for i in range(len(side_rgbs), len(extra)) if not near_felt[i]]
    # Seeds: pixels far from the mat, nearest a kind's colour and near enough to it, and not where
    # a figure or a marker stands (a marker's black and white is a grey). Where no one pixel stands
    # out, its colour pooled over about a felt's width is read too: a felt is one colour where a
    # mat's texture (wood grain) varies from place to place, so a patch's mean tells a felt the
    # colour of the grain from the mat. (What stands out pixel by pixel, the clipped and the hands
    # carry no weight in the pool: a strong felt does not smear into the mat around it.)
    d_mat = _sq_dist(rel_c, np.zeros(4), seed_sigma)
    seen = ((d_mat <= ANOMALY_SIGMA ** 2) & ~cunknown).astype(np.float32)
    weight = _smooth(seen, POOL_IN * cppi)
    sums = _smooth(cv2.merge(list(rel_c * seen)), POOL_IN * cppi)
    inv = 1.0 / np.maximum(weight, np.float32(1e-3))
    pooled = np.empty((4, hc, wc), np.float32)
    cv2.split(sums, list(pooled))
    for part in pooled:
        np.multiply(part, inv, out=part)
    pool_centre, pool_sigma = _robust(pooled[:, ::step, ::step][:, like_s].T, FLOOR / POOL_FLOOR)
    pooled -= pool_centre[:, None, None]     # (the pool leaves out what stands out: its mat is off nought)
    weak = (d_mat <= ANOMALY_SIGMA ** 2) & (weight > 0.5)
    d_mat = np.where(weak, np.maximum(d_mat, _sq_dist(pooled, np.zeros(4), pool_sigma)), d_mat)
    cstanding = _discs((hc, wc), cppi, footprints_in, (cox, coy))
    idx = np.flatnonzero((d_mat > ANOMALY_SIGMA ** 2) & ~cunknown & ~cstanding)
    x3 = np.where(weak.reshape(-1)[idx], pooled[:3].reshape(3, -1)[:, idx], rel_c[:3].reshape(3, -1)[:, idx])
    standing = _discs((h, w), wppi, footprints_in, (ox, oy))
    edge = _edge_band((h, w), wppi, (ox, oy), table_in)
    open_k = _kernel(0.3, wppi)
    copen_k = _kernel(0.3, cppi)
    pad = int(round(ROI_PAD_IN * wppi))
    edge_px = max(1, int(EDGE_TOUCH_IN * cppi))     # a seed patch this near the view's edge touches the table's
    pieces: list[tuple[str, Polygon, float]] = []
    # The white balance leaves a cast common to every felt (the anchors' card is no felt's dye): when
    # the felts seeded surely lie off their profile colours the same way, the kinds' colours (and
    # the other colours looked for) are moved by it and the seeds are looked for again.
    # Clipped specks, each with the pixels round its rim: a speck is a gap in a patch when the patch
    # holds most of its rim.
    specks = None
    gaps = (cunknown & ~cexcluded).astype(np.uint8)
    if gaps.any():
        x0, y0, bw, bh = cv2.boundingRect(gaps)
        at = (slice(max(0, y0 - 2), y0 + bh + 2), slice(max(0, x0 - 2), x0 + bw + 2))
        count, comp, stats, _ = cv2.connectedComponentsWithStats(gaps[at], connectivity=8)
        grown = cv2.dilate(comp.astype(np.float32), np.ones((3, 3), np.uint8)).astype(np.int32)
        rim = (gaps[at] == 0) & (grown > 0)
        around = np.maximum(np.bincount(grown[rim], minlength=count), 1)
        small = stats[:, cv2.CC_STAT_AREA] <= CLIP_GAP_SQIN * cppi * cppi
        middle = ~small & (stats[:, cv2.CC_STAT_AREA] <= CLIP_HOLE_MAX_SQIN * cppi * cppi)
        specks = (at, comp, grown, rim, around, small, middle)
    # Candidate colours' squared distances, expanded (two small matrix products for all pixels and
    # colours): the squares of the pixels do not move with the cast.
    x3t = np.ascontiguousarray(x3.T)
    x3sq = x3t * x3t
    # (nor do the candidates' spreads)
    cand_sd = [*np.hypot(prior_sd, seed_sigma[:3]), *np.hypot(extra_sd[others], seed_sigma[:3]),
               [seed_sigma[0], seed_sigma[1], SHADE_L[1]]]
    iv = 1.0 / np.asarray(cand_sd, np.float64) ** 2                        # (K, 3)
    sq_term = _product(x3sq, iv.T.astype(np.float32))
    cand_bias = [0.0] * (len(cand_sd) - 1) + [-2 * LOG_PRIOR_SHADE]
    # How sure a piece is: its inside against the mat, the mat in shade and every other colour
    # looked for (the sides' rims and the distractors too), as the last look moved them.
    rivals = ~np.asarray(near_felt, bool).reshape(-1)
    rival_sd = np.asarray(np.hypot(extra_sd[rivals], mat_sigma[:3]), np.float64).reshape(-1, 3)

    # A kind's first group of seed patches is learnt at once; its other groups are kept as (coarse
    # seed, box) and learnt only when tried.
    def learn(cseed, cbox):
        """((coarse, work-layer seed), its box, the patch's colour and spread on the work layer)."""
        seed, box = _finer(cseed, cbox, f, (h, w))
        m = open_k.shape[0]
        cut = (slice(max(0, box[1] - m), box[3] + m), slice(max(0, box[0] - m), box[2] + m))
        part = seed[cut]
        seen = part & ~unknown[cut]
        core = seen & (cv2.erode(part.view(np.uint8), open_k) > 0)
        xs = (rel[:, cut[0], cut[1]][:, core if core.sum() >= 8 else seen]).T
        mean, sd = _mean_std(xs)
        return (cseed, seed), box, mean, np.maximum(sd, FLOOR)

    kind_shift = np.zeros_like(prior_mu)        # (each kind's colour, and each other colour's, as moved)
    extra_shift = np.zeros_like(extra_mu)
    sure: list[int] = []                   # the kinds, and their seeds, that told the cast (first look)
    first: tuple[dict, dict] = ({}, {})
    for _ in range(2):
        kind_mu = prior_mu + kind_shift
        extra_mu_now = extra_mu + extra_shift
        cand_mu = [*kind_mu, *extra_mu_now[others], [0.0, 0.0, SHADE_L[0]]]
        rival_mu = np.asarray(extra_mu_now[rivals], np.float32).reshape(-1, 3)
        mu = np.asarray(cand_mu, np.float64)
        dist = sq_term - _product(2 * x3t, (mu * iv).T.astype(np.float32)) \
            + ((mu * mu * iv).sum(axis=1) + np.asarray(cand_bias)).astype(np.float32)
        label = np.full(hc * wc, -1, np.int16)
        nearest = dist.argmin(axis=1)
        label[idx] = np.where(np.take_along_axis(dist, nearest[:, None], 1)[:, 0] < SEED_SIGMA ** 2, nearest, -1)
        label = label.reshape(hc, wc)

        learnt, alternatives = {}, {}
        # A seed patch is a patch of pixels nearest some kind (whichever: a cast moves a felt towards
        # another kind's colour); where the camera clipped beside them is no gap in it (a bright felt
        # under a lamp clips in grains, or all over its middle, leaving a rim too thin to seed).
        masks = [label == k for k in range(len(kinds))]
        ringed = np.zeros((hc, wc), bool)      # clipped holes a patch rings: the felt's, not unseen of it
        for mask in masks:
            if specks is not None:
                at, comp, grown, rim, around, small, middle = specks
                held = np.bincount(grown[rim & mask[at]], minlength=len(small))
                hole = middle & (held >= CLIP_HELD * around)
                fill = (small & (held >= 0.5 * around)) | hole
                fill[0] = hole[0] = False
                if fill.any():
                    mask[at] |= fill[comp]
                    ringed[at] |= hole[comp]
        for k, groups in _seeds(masks, cunknown, rel_c, d_mat, kind_mu, prior_sd, seed_sigma, copen_k,
                                cppi * cppi, edge_px, ringed).items():
            # (A kind's other groups are read only when tried: most never are.)
            learnt[k] = learn(*groups[0])
            alternatives[k] = list(groups[1:])
        if kind_shift.any():
            # The felts that told the cast keep their seeds unless the second look found a patch that
            # stands further from the mat: a patch of the mat a kind's moved colour now comes near is
            # not taken over a felt.
            def evidence(group):
                return float(np.sqrt(d_mat[group[0][0]]).mean())
            # Nor does one whose patch the moved colours now read as another kind's (grey rocks a
            # warm light moved nearer the hill: the cast the other felts told moves it back).
            def relabelled(k):
                patch = first[0][k][0][0]
                return any((patch & learnt[j][0][0]).sum() >= RELABELLED_SHARE * patch.sum() for j in learnt if j != k)
            sure = [k for k in sure if (k not in learnt or evidence(first[0][k]) >= evidence(learnt[k]))
                    and not relabelled(k)]
            for k in sure:
                learnt[k], alternatives[k] = first[0][k], first[1][k]
            held = np.zeros((hc, wc), bool)
            for k in sure:
                held |= learnt[k][0][0]
            for k in [k for k in learnt if k not in sure]:
                free = [g for g in alternatives[k] if not (g[0] & held).any()]      # (coarse seed, box)
                if not (learnt[k][0][0] & held).any():
                    alternatives[k] = free
                elif free:
                    learnt[k], alternatives[k] = learn(*free[0]), free[1:]
                else:
                    del learnt[k], alternatives[k]
            break
        # A phone that makes colours more vivid after a white balance that left a lamp's cast moves
        # each felt by its own colour, not all alike: when three felts or more fit a stretch of the
        # colours and not a shift, they tell the stretch.
        stretch = _colour_stretch(learnt, kind_mu, prior_sd, mat_sigma, mat_ref)
        if stretch is not None:
            kind_shift, extra_shift = (_stretched(mu, mat_ref, *stretch) for mu in (prior_mu, extra_mu))
            sure = list(learnt)
            first = (dict(learnt), dict(alternatives))
            continue
        sure = [k for k in learnt if _tells_cast(learnt[k][2], kind_mu[k], prior_sd[k], mat_sigma)]
        if len(sure) < 2:
            break
        cast = median_rows(np.asarray([learnt[k][2][:2] - kind_mu[k][:2] for k in sure], np.float32).T)
        if _mahal(cast, np.hypot(prior_sd[:, :2], mat_sigma[:2]).mean(axis=0)) < 1.0:
            break
        kind_shift[:, :2] = cast
        extra_shift[:, :2] = cast
        first = (dict(learnt), dict(alternatives))
    firsts = dict(learnt)                  # (with their coarse seeds)
    learnt = {k: (g[0][1], *g[1:]) for k, g in learnt.items()}
    prior_mu = kind_mu
    # Halfway in brightness from each kind's colour to paper white (the anchors' card), over the mat
    # (None where white paper is no distractor: a white felt).
    paper_at = len(side_rgbs)
    # A kind whose own colour is tinted may be a pale felt as bright as paper that keeps its tint.
    tinted = [max(rgb) >= MIN_TINT_RATIO * max(1, min(rgb)) for _name, rgb in kinds]
    paper_l = [None if near_felt[paper_at] else
               (float(extra_mu[paper_at][2] + prior_mu[k][2]) / 2, extra_mu[paper_at][:2],
                prior_mu[k][:2] if tinted[k] else None)
               for k in range(len(kinds))]
    # Each kind is told from the mat, the mat in shade, the other kinds as learnt (or as named,
    # when not seen) and the other colours looked for: one table of those classes, the kind's own
    # first (each try puts its own there).
    # (Each class with its roughness too, read only for a kind outlined by it: a kind not seen, a rim
    # or a distractor may be as rough as anything.)
    unknown_rough_sd = math.hypot(PRIOR_TEXTURE, mat_sigma[3])
    model_mu = np.array([learnt[k][2][:4] if k in learnt else [*prior_mu[k], 0.0] for k in range(len(kinds))],
                        np.float32)
    model_sd = np.array([np.hypot(learnt[k][3][:4], mat_sigma[:4]) if k in learnt
                         else [*np.hypot(prior_sd[k], mat_sigma[:3]), unknown_rough_sd] for k in range(len(kinds))],
                        np.float64)
    base_mu = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, SHADE_L[0], 0.0]], np.float32)
    base_sd = np.array([mat_sigma[:4], [mat_sigma[0], mat_sigma[1], SHADE_L[1], mat_sigma[3]]], np.float64)
    rival_mu = np.column_stack([rival_mu, np.zeros(len(rival_mu), np.float32)])
    rival_sd = np.column_stack([rival_sd, np.full(len(rival_sd), unknown_rough_sd)])
    feet = np.asarray(footprints_in, np.float64).reshape(-1, 3)
    feet_px = np.column_stack([(feet[:, 0] - ox) * wppi, (feet[:, 1] - oy) * wppi, feet[:, 2] * wppi])
    texture = _Texture(work_bgr, wppi, rel, mat_sigma, unknown | standing)
    # (the table less a band along its edge: a piece reaching into the band is at the edge)
    inner_table = shapely.box(table_in[0] + EDGE_TOUCH_IN, table_in[1] + EDGE_TOUCH_IN,
                              table_in[2] - EDGE_TOUCH_IN, table_in[3] - EDGE_TOUCH_IN)
    def kind_pieces(k, tries) -> list:
        """The pieces of kind `k` made by the first of `tries` ((work-layer seed, box, colour, spread),
        likeliest first) that makes any: [(kind, polygon, confidence)], empty if none does."""
        other_kinds = [j for j in range(len(kinds)) if j != k]
        for seed, box, mu, sd in tries:
            own_sd = np.hypot(sd[:3], mat_sigma[:3])
            # Roughness counts only above the mat's: rough felt of the table's own colour stands out by
            # it, but a smooth thing of the mat's colour is no more felt for being smoother.
            rough = max(0.0, float(mu[3]))
            rough_sd = math.hypot(sd[3], mat_sigma[3])
            separation = _mahal(np.append(mu[:3], rough), np.append(own_sd, rough_sd) / math.sqrt(2))
            # A felt of the mat's own colour (rocks on a grey table) is told from it pixel by pixel,
            # and outlined, by its roughness as well: its colour alone cannot.
            colour_sep = _mahal(mu[:3], own_sd / math.sqrt(2))
            by_rough = (colour_sep < COLOUR_ALONE_SIGMA and rough / (rough_sd / math.sqrt(2)) > colour_sep
                        and texture.fuzz_share(seed & ~unknown) >= ROUGH_FUZZ_SHARE)
            nf = 4 if by_rough else 3
            mus = np.concatenate([mu[None, :nf].astype(np.float32), base_mu[:, :nf], model_mu[other_kinds, :nf],
                                  rival_mu[:, :nf]])
            sds = np.concatenate([np.array([[*own_sd, rough_sd][:nf]]), base_sd[:, :nf], model_sd[other_kinds, :nf],
                                  rival_sd[:, :nf]])
            priors = np.zeros(len(mus), np.float64)
            priors[2] = LOG_PRIOR_SHADE
            priors[3 + len(other_kinds):] = LOG_PRIOR_OTHER
            table_all = _gauss_table(mus, sds, priors)
            u0, v0 = max(0, box[0] - pad), max(0, box[1] - pad)
            u1, v1 = min(w, box[2] + pad), min(h, box[3] + pad)
            first_kept, reached_on = [], False
            for widening in range(MAX_WIDENINGS + 1):
                win = (slice(v0, v1), slice(u0, u1))
                cube = (slice(None), slice(v0, v1), slice(u0, u1))
                free = ~excluded[win]           # nor other kinds' seeds: their felt, not this one's
                for j in learnt:
                    if j != k:
                        free &= ~learnt[j][0][win]
                found = _pieces(rel[cube], ratio[cube], seed[win], free, excluded[win], table_all,
                                3 + len(other_kinds), q_w, wppi, feet_px - (u0, v0, 0),
                                (ox + u0 / wppi, oy + v0 / wppi), edge[win], (u0, v0, w, h), open_k, standing[win],
                                unknown[win], max(0.0, float(mu[2])),
                                (mat_sigma[:3], mu[:3], own_sd), paper_l[k], by_rough=by_rough)
                kept = [(kinds[k][0], polygon, round(min(1.0, sure / 0.9) * min(1.0, separation / SEPARATION_FULL), 3),
                         reach) for polygon, sure, reach in found]
                kept = [q for q in kept if q[2] >= MIN_CONFIDENCE]
                if not kept:
                    kept = first_kept       # (nothing; or looked further, it is no piece: as it was)
                    break
                if widening == 0:
                    first_kept = kept
                # A piece cut off by the window (its seeds lie in one part of it: the rest under a
                # lamp's clipped hot spot, or shaded) is looked for again in a window reaching further
                # that way.
                left, top, right, bottom = (any(side) for side in zip(*(q[3] for q in kept)))
                step = pad << widening      # (twice as far each time)
                grown = (max(0, u0 - step) if left else u0, max(0, v0 - step) if top else v0,
                         min(w, u1 + step) if right else u1, min(h, v1 + step) if bottom else v1)
                if grown == (u0, v0, u1, v1):
                    break
                u0, v0, u1, v1 = grown
            else:
                # It reaches on and on: the mat round it, not a felt cut off; the pieces as first found.
                kept, reached_on = first_kept, True
            def felt(q) -> bool:
                # A piece that kept reaching, or one at the table's edge (its seed patch counted for
                # less), that shows the mat's own grain is the mat itself: a streak of light wood like
                # the hill felt, taken into its seeds, or along the edge under a lamp.
                at_edge = not inner_table.contains(q[1])
                if ((reached_on and any(q[3])) or at_edge) and _mats_grain(texture, q[1], (ox, oy)):
                    return False
                return (not _plain_box(texture, q[1], (ox, oy), at_edge=at_edge)
                        and (by_rough or not _soft_blotch(as_read, mat_sigma[:3], unknown | standing, q[1], (ox, oy),
                                                          wppi)))
            kept = [q[:3] for q in kept if felt(q)]
            if kept:
                return kept
        return []

    tried = {k: [] for k in range(len(kinds))}          # the coarse seeds each kind tried

    def attempts(k, groups):
        for (cseed, seed), *rest in groups:
            tried[k].append(cseed)
            yield (seed, *rest)

    for k in learnt:
        # The patch group that stands out most may be no felt (a book of the kind's colour hanging
        # over the edge): then the next group of the kind's patches is tried.
        pieces += kind_pieces(k, attempts(k, itertools.chain([firsts[k]], itertools.starmap(learn, alternatives[k]))))
    # One felt seeded in two parts by two kinds (a grey felt a warm light moved halfway to the hill's
    # colour) is one piece, of the kind its colour is nearer.
    kind_spread = np.hypot(prior_sd, mat_sigma[:3])      # a kind's colour's spread with the mat's
    names, unread = [name for name, _ in kinds], unknown | standing

    def one_felt(pieces):
        return _one_felt(pieces, names, as_read, unread, wppi, (ox, oy), prior_mu, kind_spread, mat_sigma[:3])

    pieces = one_felt(pieces)
    # A kind left with no piece is looked for again, by its profile colour (less sure of it), among
    # the patches no piece holds, whichever kind's colour they lie nearest: its likeliest patch may
    # have been the edge of another felt (joined to it as one felt), or its felt's patch taken by
    # another kind when the cast the other felts told moved the colours (a shop's stone-grey rocks
    # under a tungsten lamp, seeded as hill; the hill's own felt kept), and left to none, or its
    # felt may lie further from the profile's swatch than a seed may (a shop's teal water). Only
    # the likeliest patch is tried: the next ones were a mug, or another kind's felt.
    def missing_kinds(pieces) -> list[int]:
        return [k for k in range(len(kinds)) if not any(q[0] == kinds[k][0] for q in pieces)]

    missing = missing_kinds(pieces)
    if missing:
        def covered(polygon) -> np.ndarray:
            """The seeds' layer under a piece, and a little round it."""
            lay = np.zeros((hc, wc), np.uint8)
            _fill_polygon(lay, polygon, (cox, coy), cppi)
            return cv2.dilate(lay, copen_k) > 0

        felt_like = (label >= 0) & (label < len(kinds))
        for _, polygon, _ in pieces:
            felt_like &= ~covered(polygon)
        shade_label = len(cand_mu) - 1
        # (the patches shared out among the kinds looked for again at once, as the first look shares
        # them: a patch is one kind's; and none that a piece found just now has grown over)
        mask = felt_like.copy()
        for k in missing:
            for cseed in tried[k]:
                mask &= ~cseed
        shared = _seeds([mask] + [np.zeros_like(mask)] * (len(missing) - 1), cunknown, rel_c, d_mat,
                        profile_mu[missing], SECOND_PRIOR_SCALE * prior_sd[missing], seed_sigma, copen_k,
                        cppi * cppi, edge_px, ringed)
        added = []
        for i, k in enumerate(missing):
            # (only a patch that lies on the mat, inside the table: the first looks judged every patch
            # against the colours of things that are no felt, and one at the table's edge (what
            # hangs over it, an arm's shadow) against a felt inside; this one takes any there is)
            groups = [(seed, box) for seed, box in shared.get(i, [])
                      if not (seed & ~felt_like).any()
                      and not _beside_a_thing(seed, label, len(kinds), shade_label, cexcluded, cppi)
                      and min(box[0], box[1], wc - box[2], hc - box[3]) >= edge_px]
            found = [q for q in kind_pieces(k, attempts(k, (learn(*g) for g in groups[:1])))
                     if q[1].area >= SECOND_MIN_SQIN]
            for _, polygon, _ in found:
                felt_like &= ~covered(polygon)
            added += found
        if added:
            pieces = one_felt(pieces + added)
    # Two pieces each nearer the other's kind by their whole colours trade kinds, where the colours
    # the cast told and the profile's agree.
    pieces = _traded_kinds(pieces, names, as_read, unread, wppi, (ox, oy),
                           [(prior_mu, kind_spread), (profile_mu, kind_spread)])
    # A kind the colours found no piece of may be a felt of the mat's own colour on a grained mat
    # (a hill on light wood): told by its lack of grain (vision.terrain_grain).
    missing = missing_kinds(pieces)
    if missing:
        pieces += _grain_pieces(texture, (ox, oy), rel, mat_sigma, [kinds[k][0] for k in missing],
                                prior_mu[missing], prior_sd[missing], [p for _, p, _ in pieces],
                                excluded, unknown, standing, edge, feet_px, open_k)
    pieces.sort(key=lambda q: (q[1].centroid.y, q[1].centroid.x))
    return tuple(Terrain(f"t{i + 1}", kind, poly, extra={"confidence": conf})
                 for i, (kind, poly, conf) in enumerate(pieces))


def _beside_a_thing(seed: np.ndarray, label: np.ndarray, n_kinds: int, shade_label: int, hand: np.ndarray,
                    ppi: float) -> bool:
    """Whether more than MAX_THING_RING of the ring THING_RING_IN wide round a seed patch (`seed`,
    bool, on the seeds' layer, `ppi` a inch) is a thing that is no felt: a colour looked for as
    none (`label` of a distractor: paper, a mug's dark coffee or bright glaze; not `shade_label`,
    the mat in shade) or a hand (`hand`): the patch may be its edge or its shadow."""
    ring = (cv2.dilate(seed.view(np.uint8), _kernel(THING_RING_IN, ppi)) > 0) & ~seed
    around = label[ring]
    thing = ((around >= n_kinds) & (around != shade_label)) | hand[ring]
    return bool(thing.sum() > MAX_THING_RING * max(int(ring.sum()), 1))


def _stretched(mu: np.ndarray, mat_ref: np.ndarray, gain: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """(N, 3): how far colours `mu` (N, 3; over the mat `mat_ref`) move when each chromaticity,
    as read, is `gain` times the colour's plus `offset` (per axis); brightness stays."""
    moved = np.zeros_like(mu)
    moved[:, :2] = (mu[:, :2] + mat_ref[:2]) * (gain - 1.0) + offset
    return moved


def _colour_stretch(learnt: dict, kind_mu: np.ndarray, prior_sd: np.ndarray, mat_sigma: np.ndarray,
                    mat_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(gain (2,), offset (2,)): each chromaticity the seeded felts off the mat's own (`learnt`:
    kind -> (seeds, box, mean over the mat, spread)) show is gain times their profile colour's
    (`kind_mu`, over the mat `mat_ref`) plus offset, fitted per axis, where three felts or more
    tell it: a felt lies further than CAST_SURE_SIGMA from its colour moved by their common shift
    (or a kind has no seed), the stretch brings every one within it, leaving under STRETCH_LEFT of
    what the shift left, and it stretches by STRETCH_LEAST or more, within STRETCH_GAIN on each axis
    (a camera's colour made a little duller or more vivid; a fit outside it is felts misread, or a
    felt off the table). Else None: a shift, or nothing."""
    told = [k for k in learnt if _off_the_mats_hue(learnt[k][2], mat_sigma)]
    if len(told) < STRETCH_KINDS:
        return None
    seen = np.asarray([learnt[k][2][:2] for k in told], np.float64) + mat_ref[:2]
    named = np.asarray([kind_mu[k][:2] for k in told], np.float64) + mat_ref[:2]
    sd = np.asarray([np.hypot(prior_sd[k][:2], mat_sigma[:2]) for k in told], np.float64)
    shifted = np.sqrt(((((seen - named) - np.median(seen - named, axis=0)) / sd) ** 2).sum(axis=1))
    if shifted.max() <= CAST_SURE_SIGMA and len(learnt) == len(kind_mu):
        return None
    gain, offset = np.ones(2), np.zeros(2)
    for c in range(2):
        if np.ptp(named[:, c]) < STRETCH_SPAN * sd[:, c].mean():       # (too near one another to tell)
            return None
        gain[c] = np.polyfit(named[:, c], seen[:, c], 1)[0]
        if not STRETCH_GAIN[0] <= gain[c] <= STRETCH_GAIN[1]:      # (no camera's colour: felts misread)
            return None
        offset[c] = np.mean(seen[:, c] - gain[c] * named[:, c])
    stretched = np.sqrt((((seen - (named * gain + offset)) / sd) ** 2).sum(axis=1))
    if (stretched.max() > CAST_SURE_SIGMA or np.abs(gain - 1.0).max() < STRETCH_LEAST
            or stretched.sum() > STRETCH_LEFT * shifted.sum()):
        return None
    return gain.astype(np.float32), offset.astype(np.float32)


def _tells_cast(mean, kind_mu, kind_sd, mat_sigma) -> bool:
    """Whether a kind's seed patch (its mean `mean`, relative to the mat) tells the cast the white
    balance left: it lies near its profile colour (`kind_mu`, `kind_sd`) in chromaticity, and off
    the mat's own chromaticity. A patch of the mat's chromaticity, only darker or lighter, is as
    likely the mat in shade or under a lamp as a felt of the mat's hue: it still seeds its kind,
    but it says nothing of how the light moved the felts' colours."""
    near_kind = _mahal(mean[:2] - kind_mu[:2], np.hypot(kind_sd[:2], mat_sigma[:2])) <= CAST_SURE_SIGMA
    return near_kind and _off_the_mats_hue(mean, mat_sigma)


def _off_the_mats_hue(mean, mat_sigma) -> bool:
    """Whether a seed patch's mean colour over the mat (`mean`) lies off the mat's own chromaticity
    (in its spread `mat_sigma`): not the mat in shade or under a lamp, which tells nothing of how the
    light moved the felts' colours."""
    return _mahal(mean[:2], mat_sigma[:2]) > MAT_LIKE_SIGMA


def _one_felt(pieces: list, names: list, rel: np.ndarray, unseen: np.ndarray, ppi: float, origin_in,
              kind_mu: np.ndarray, kind_sd: np.ndarray, mat_sigma: np.ndarray) -> list:
    """[(kind, polygon, confidence)]: `pieces` with each two of different kinds that touch (within a
    work pixel) and are one colour (their means within SAME_KIND_SIGMA of the spread of a pixel of
    either: theirs and the mat's, `mat_sigma`; as a seed patch like a kind's patch is its felt) made
    one piece, of the kind whose colour (`kind_mu`, `kind_sd`: chromaticity and brightness over the
    mat) is nearer the two's together; the other kind has no piece there. Felts of different kinds
    lying side by side differ in colour, and are left as they are."""
    if len(pieces) < 2:
        return pieces
    pieces = list(pieces)

    def colour(polygon):
        return _piece_colour(polygon, rel, unseen, ppi, origin_in)

    merged = True
    while merged:
        merged = False
        for i, j in itertools.combinations(range(len(pieces)), 2):
            (ki, pi, ci), (kj, pj, cj) = pieces[i], pieces[j]
            if ki == kj or pi.distance(pj) > 1.0 / ppi:
                continue
            a, b = colour(pi), colour(pj)
            if a is None or b is None or _mahal(a[0] - b[0], np.sqrt(a[1] ** 2 + b[1] ** 2 + mat_sigma ** 2)) > SAME_KIND_SIGMA:
                continue
            both = (a[0] * a[2] + b[0] * b[2]) / (a[2] + b[2])
            ni, nj = names.index(ki), names.index(kj)
            keep = ki if _mahal(both - kind_mu[ni], kind_sd[ni]) <= _mahal(both - kind_mu[nj], kind_sd[nj]) else kj
            union = shapely.union(pi, pj).buffer(1.0 / ppi, join_style="mitre").buffer(-1.0 / ppi, join_style="mitre")
            if union.geom_type != "Polygon":
                union = max(getattr(union, "geoms", [union]), key=lambda g: g.area)
            pieces = [q for n, q in enumerate(pieces) if n not in (i, j)] + [(keep, union, max(ci, cj))]
            merged = True
            break
    return pieces


def _piece_colour(polygon: Polygon, rel: np.ndarray, unseen: np.ndarray, ppi: float, origin_in):
    """A piece's colour on the layer `rel` (C, H, W; `ppi`, `origin_in`): (mean (C,), spread (C,),
    pixels) of its seen pixels a pixel in from its outline; None with fewer than 8."""
    # (read in its bounding box, two pixels round it: the erosion reaches one)
    h, w = unseen.shape
    x0, y0, x1, y1 = polygon.bounds
    c0 = max(0, int(np.floor((x0 - origin_in[0]) * ppi)) - 2)
    r0 = max(0, int(np.floor((y0 - origin_in[1]) * ppi)) - 2)
    c1 = min(w, int(np.ceil((x1 - origin_in[0]) * ppi)) + 3)
    r1 = min(h, int(np.ceil((y1 - origin_in[1]) * ppi)) + 3)
    if c1 <= c0 or r1 <= r0:
        return None
    inside = _seen_inside(polygon, origin_in, ppi, unseen[r0:r1, c0:c1], _SQUARE3, (c0, r0))
    xs = rel[:, r0:r1, c0:c1][:, inside]
    if xs.shape[1] < 8:
        return None
    return xs.mean(axis=1), np.maximum(xs.std(axis=1), FLOOR[:3]), xs.shape[1]


def _traded_kinds(pieces: list, names: list, rel: np.ndarray, unseen: np.ndarray, ppi: float, origin_in,
                  colours: list[tuple[np.ndarray, np.ndarray]]) -> list:
    """[(kind, polygon, confidence)]: `pieces` where two pieces of different kinds, each nearer the
    other's kind by its whole colour, the two taken together, trade kinds: by every one of `colours`
    (each a (kind_mu, kind_sd) per kind of `names`: the colours the cast told, the profile's). Each
    keeps the confidence it was found with. (A seed patch is a few square inches of a felt, its
    piece the whole felt: a shop's khaki hill seeded as rocks, and its stone-grey rocks, between the
    rocks' grey and the hill's tan, as the hill. A piece nearer a kind that has no piece keeps its
    own: that kind's felt may be off the table, and the set's grey rocks under a tungsten lamp lie a
    little nearer the hill's colour.)"""
    pieces = list(pieces)
    seen = [_piece_colour(q[1], rel, unseen, ppi, origin_in) for q in pieces]
    if sum(c is not None for c in seen) < 2:
        return pieces
    means = np.array([c[0] if c is not None else np.full(3, np.nan) for c in seen])
    # (N pieces, K kinds, M colourings): each piece's distance from each kind's colour in its spread
    dist = np.stack([np.sqrt((((means[:, None, :] - np.asarray(mu)[None, :, :3]) / np.asarray(sd)[None, :, :3]) ** 2)
                             .sum(axis=2)) for mu, sd in colours], axis=2)

    def cost(i: int, kind: str) -> np.ndarray:
        return dist[i, names.index(kind)]

    # (each trade lowers the two pieces' distances together by every measure: none is undone)
    traded = True
    while traded:
        traded = False
        for i, j in itertools.combinations(range(len(pieces)), 2):
            (ki, pi, ci), (kj, pj, cj) = pieces[i], pieces[j]
            if ki == kj or seen[i] is None or seen[j] is None:
                continue
            if (cost(i, kj) + cost(j, ki) < cost(i, ki) + cost(j, kj)).all():
                pieces[i], pieces[j] = (kj, pi, ci), (ki, pj, cj)
                traded = True
                break
    return pieces


def _seeds(masks: list, unknown: np.ndarray, rel, d_mat, prior_mu, prior_sd, mat_sigma, open_k,
           sqin_px: float, edge_px: int, ringed: np.ndarray) -> dict[int, list]:
    """{kind: [((H, W) bool seed patches, their bounding box (u0, v0, u1, v1))], likeliest first}.

    `masks`: per kind, the pixels far from the mat whose colour is nearest that kind's. Their
    patches are shared out among the kinds at once: each kind takes at most one patch, near enough
    its profile colour, so that together they stand out most from the mat (size times how far
    from it) and are most like the kinds' colours (a rocks felt a cast moved towards the hill's
    colour is still rocks when the hill is elsewhere). A patch is mostly seen (a lamp's clipped
    streak with a few felt-like grains in it is none), but for the clipped holes it rings (`ringed`,
    bool: the felt's middle under the lamp). Other patches are the
    same felt as a kind's when they look like its patch (in that patch's own spread: a page held
    over the table is no rocks felt for being grey too). The patches left near a kind's colour make
    its next groups (tried when the first makes no piece: a book of the kind's colour). A patch is
    big enough (SEED_MIN_SQIN, `sqin_px` pixels to the square inch), and its size times how far its
    core stands from the mat is enough (MIN_SEED_EVIDENCE)."""
    # Each label's patches, numbered one after another in one image, read only in the box round
    # them all (with a margin the opening cannot see across).
    full = masks[0].shape
    rects = [cv2.boundingRect(mask.astype(np.uint8)) for mask in masks]
    boxes = [b for b in rects if b[2] > 0]
    if not boxes:
        return {}
    m = open_k.shape[0] + 1
    u0, v0 = max(0, min(b[0] for b in boxes) - m), max(0, min(b[1] for b in boxes) - m)
    u1, v1 = min(full[1], max(b[0] + b[2] for b in boxes) + m), min(full[0], max(b[1] + b[3] for b in boxes) + m)
    win = (slice(v0, v1), slice(u0, u1))
    comp = np.zeros((v1 - v0, u1 - u0), np.int32)
    sure = np.zeros((v1 - v0, u1 - u0), np.uint8)
    stats = [np.zeros((1, 5), np.int32)]
    count = 1
    for mask, (x0, y0, bw, bh) in zip(masks, rects):
        if bw == 0:
            continue
        a0, b0 = max(0, x0 - m), max(0, y0 - m)
        a1, b1 = min(full[1], x0 + bw + m), min(full[0], y0 + bh + m)
        opened = cv2.morphologyEx(mask[b0:b1, a0:a1].astype(np.uint8), cv2.MORPH_OPEN, open_k)
        # (Scattered pixels the opening took away widened the box: numbered in what is left.)
        x0, y0, bw, bh = cv2.boundingRect(opened)
        if bw == 0:
            continue
        a0, b0, a1, b1 = a0 + x0, b0 + y0, a0 + x0 + bw, b0 + y0 + bh
        opened = opened[y0:y0 + bh, x0:x0 + bw]
        n, c, st, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
        if n < 2:
            continue
        at = (slice(b0 - v0, b1 - v0), slice(a0 - u0, a1 - u0))
        np.copyto(comp[at], c + (count - 1), where=c > 0)
        sure[at] |= opened
        st = st[1:]
        st[:, 0] += a0 - u0
        st[:, 1] += b0 - v0
        stats.append(st)
        count += n - 1
    if count < 2:
        return {}
    stats = np.concatenate(stats)
    unknown, rel, d_mat = unknown[win], rel[:, v0:v1, u0:u1], d_mat[win]
    core = (cv2.erode(sure, open_k) > 0) & ~unknown
    lab = comp[core]
    total = np.bincount(lab, minlength=count).astype(np.float32)
    n = np.maximum(total, 1)[:, None]
    x = rel[:3, core]
    means = np.stack([np.bincount(lab, x[f], count) for f in range(3)], 1) / n
    sd = np.sqrt(np.maximum(np.stack([np.bincount(lab, x[f] * x[f], count) for f in range(3)], 1) / n - means ** 2, 0))
    strength = np.bincount(lab, np.sqrt(d_mat[core]), count) / n[:, 0]
    area = stats[:, cv2.CC_STAT_AREA]
    seen = np.bincount(comp[(sure > 0) & ~unknown], minlength=count)
    looked = area - np.bincount(comp[(sure > 0) & ringed[win]], minlength=count)
    usable = ((area >= SEED_MIN_SQIN * sqin_px) & (total >= 4) & (strength >= MIN_STRENGTH_SIGMA)
              & (area * strength >= MIN_SEED_EVIDENCE * sqin_px) & (seen >= MIN_SEEN_SHARE * looked))
    usable[0] = False
    spread = np.hypot(prior_sd, mat_sigma[:3])                      # (K, 3)
    off = np.sqrt((((means[:, None] - prior_mu[None]) / spread[None]) ** 2).sum(axis=2))   # (count, K)
    ok = usable[:, None] & (off <= MAX_LEARN_SIGMA)
    score = np.where(ok, np.log(np.maximum(total * strength, 1.0))[:, None] - 0.5 * off ** 2, -np.inf)
    # A patch at the table's edge may be what hangs over it (a book, a cloth, an arm's shadow): it counts
    # for less than a felt inside that stands out well, but for more than a faint patch of the mat (a
    # felt running off the table); it may still be tried after the first.
    rim = edge_px
    touches = ((stats[:, 0] + u0 < rim) | (stats[:, 1] + v0 < rim) | (stats[:, 0] + stats[:, 2] + u0 > full[1] - rim)
               | (stats[:, 1] + stats[:, 3] + v0 > full[0] - rim))
    score = np.where(touches[:, None] & (score > 0), np.minimum(score, EDGE_SEED_SCORE), score)
    # The likeliest sharing of patches among kinds: a patch adds its log size and strength and the
    # log likelihood of its colour under its kind's; a kind left without one adds nothing (the kinds
    # are few, and each looks at its few best patches only).
    n_kinds = len(prior_mu)
    options = [[int(i) for i in np.argsort(-score[:, k])[:MAX_SEED_GROUPS + 1] if ok[i, k]] + [None]
               for k in range(n_kinds)]
    best, best_value = None, 0.0
    first = [next((c for c in opts if c is not None and score[c, k] > 0), None) for k, opts in enumerate(options)]
    taken = [c for c in first if c is not None]
    if len(taken) == len(set(taken)):
        options = [[c] for c in first]        # no patch wanted twice: each kind's best is the best sharing
    for choice in itertools.product(*options):
        taken = [c for c in choice if c is not None]
        if len(taken) != len(set(taken)):
            continue
        value = sum(score[c, k] for k, c in enumerate(choice) if c is not None)
        if value > best_value:
            best, best_value = choice, value
    if best is None:
        return {}
    chosen = {c for c in best if c is not None}
    out = {}
    for k, c in enumerate(best):
        if c is None:
            continue
        own = np.hypot(np.maximum(sd[c], FLOOR[:3]), mat_sigma[:3])
        like = usable & (np.sqrt((((means - means[c]) / own) ** 2).sum(axis=1)) <= SAME_KIND_SIGMA)
        others = np.zeros(count, bool)
        others[list(chosen - {c})] = True
        like &= ~others
        like[c] = True
        groups = [like]
        rest = ok[:, k] & ~like & ~others
        rest[c] = False
        order = np.argsort(-score[:, k])
        for i in order[rest[order]].tolist():          # (rest only loses patches on the way)
            if len(groups) >= MAX_SEED_GROUPS:
                break
            if not rest[i]:
                continue
            group = rest & (np.sqrt((((means - means[i]) / own) ** 2).sum(axis=1)) <= SAME_KIND_SIGMA)
            group[i] = True
            rest &= ~group
            groups.append(group)
        out[k] = []
        for keep in groups:
            st = stats[keep]
            box = (u0 + int(st[:, 0].min()), v0 + int(st[:, 1].min()), u0 + int((st[:, 0] + st[:, 2]).max()),
                   v0 + int((st[:, 1] + st[:, 3]).max()))
            seed = np.zeros(full, bool)
            seed[box[1]:box[3], box[0]:box[2]] = keep[comp[box[1] - v0:box[3] - v0, box[0] - u0:box[2] - u0]]
            seed &= ~ringed          # (the holes it rings hold the patch together: no seeds of a piece)
            out[k].append((seed, box))
    return out


def _gauss_table(mus: np.ndarray, sds: np.ndarray, priors: np.ndarray) -> np.ndarray:
    """Gaussians of M classes, means and spreads (M, F) and log priors (M,), as `_sure` reads them:
    (M, 2F + 1) the terms of each class's log likelihood as a quadratic in the features (x, x ** 2, 1)."""
    a = 1.0 / np.asarray(sds, np.float64) ** 2
    mus = np.asarray(mus, np.float64)
    const = -0.5 * (mus * mus * a).sum(axis=1) - np.log(np.asarray(sds, np.float64)).sum(axis=1) + priors
    return np.column_stack([mus * a, -0.5 * a, const]).astype(np.float32)


def _sure(xs: np.ndarray, table: np.ndarray, classes: int | None = None) -> np.ndarray:
    """How likely the first class of `table` (of its first `classes`) is at each of the (F, ...)
    feature vectors `xs`, against the rest (Gaussians with their priors)."""
    nf = len(xs)
    terms = np.empty((2 * nf + 1, *xs.shape[1:]), np.float32)      # (a window of planes is read as it is)
    terms[:nf] = xs
    np.multiply(terms[:nf], terms[:nf], out=terms[nf:2 * nf])
    terms[2 * nf] = 1.0
    ll = _product(table[:classes], terms.reshape(2 * nf + 1, -1))  # (M, N) log likelihoods
    rest = ll[1:]
    rest -= ll[0]
    np.minimum(rest, np.float32(60.0), out=rest)      # (no overflow, no denormals)
    np.maximum(rest, np.float32(-60.0), out=rest)
    rest = cv2.exp(rest).sum(axis=0)
    rest += 1.0
    return (1.0 / rest).reshape(xs.shape[1:])


PRODUCT_LIMIT = 131072      # multiply-adds a matrix product is made in at a time (OpenBLAS keeps one thread up to 262144)


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for float32 matrices of which one side is long (many rows of `a`, or many columns of
    `b`), in pieces of at most PRODUCT_LIMIT multiply-adds: the same numbers (each row's and
    column's own dot products), but BLAS shares a bigger product out among its threads, which spin
    for milliseconds on a busy machine (a window widened to 130 x 234 pixels took 25-50 ms of CPU
    instead of 19)."""
    m, k = a.shape
    n = b.shape[1]
    if m * n * k <= PRODUCT_LIMIT:
        return a @ b
    out = np.empty((m, n), np.result_type(a, b))
    if n >= m:
        step = max(1, PRODUCT_LIMIT // (m * k))
        for i in range(0, n, step):
            out[:, i:i + step] = a @ b[:, i:i + step]
    else:
        step = max(1, PRODUCT_LIMIT // (n * k))
        for i in range(0, m, step):
            out[i:i + step] = a[i:i + step] @ b
    return out


def _pieces(rel, ratio, seed, free, excluded, table, classes, q_w, ppi, feet_px, origin_in, edge, place, open_k,
            unseen, clipped, lit_l, spreads, paper_l=None, *, by_rough=False):
    """[(polygon, sureness, reach)] of one kind in a window around its seeds (`reach`: whether the
    piece reaches the window's left, top, right and bottom edge). `table`: `_gauss_table` of the
    kind's (first), the mat, the mat in shade and the other kinds (the first `classes`: where it
    wins), then the other colours looked for (how sure a piece is only: a blue rim's colour must
    not eat blue water felt); `free`: where neither hands, cards nor other kinds' seeds are;
    `feet_px`: (F, 3) footprints in window pixels; `unseen`: where figures stand (the felt there
    is hidden: it does not count for or against how sure a piece is); `clipped`: where the camera
    clipped; `lit_l`: the brighter of the mat's and the kind's log brightness (over the mat's);
    `spreads`: (the mat's spread, the kind's colour and spread), to tell things that are neither;
    `paper_l`: (the log brightness over the mat's halfway from the kind's colour to paper white,
    paper's chromaticity over the mat's, the kind's), or None.

    Where the kind wins is found from the learnt colours; the outline near there is where the
    colour is half the kind's, half the mat's: linear unmixing of the colour as a share of the local
    mat's, weighted by how the mat's colour varies (a texture's brightness counts little), so a
    soft ragged edge falls where the felt covers half. `by_rough`: the kind is of the mat's own
    colour and rougher (`table` has the roughness too): where it wins is told by both, and the
    outline is where it is as likely as not (no colour to unmix)."""
    x = rel[:4] if by_rough else rel[:3]
    p = cv2.GaussianBlur(_sure(x, table, classes), (0, 0), 0.2 * ppi)
    wins = ((p > 0.5) & ~excluded).view(np.uint8)
    ring_in = cv2.dilate(wins, _kernel(RING_IN[0], ppi))
    if by_rough:
        alpha = p
    else:
        inside = (cv2.erode(wins, open_k) > 0) & seed
        # The mat just around the piece (the local mean reaches further and a photographed mat varies).
        ring = (cv2.dilate(wins, _kernel(RING_IN[1], ppi)) > ring_in) & free
        rv, ru = np.nonzero(ring)
        b = median_rows(ratio[:, rv[::max(1, len(rv) // 400)], ru[::max(1, len(rv) // 400)]]) if len(rv) >= 10 \
            else np.zeros(3, np.float32)
        d = ratio[:, inside if inside.any() else seed].mean(axis=1) - b
        wd = q_w @ d
        coef = (wd / max(float(d @ wd), 1e-6)).astype(np.float32)
        alpha = ratio[0] * coef[0]
        alpha += ratio[1] * coef[1]
        alpha += ratio[2] * coef[2]
        alpha -= np.float32(coef @ b)
        alpha = cv2.GaussianBlur(alpha, (0, 0), 0.05 * ppi)
    near = (ring_in if _same_kernel(EDGE_SLACK_IN, RING_IN[0], ppi) else cv2.dilate(wins, _kernel(EDGE_SLACK_IN, ppi))) > 0
    near &= free
    cover = np.where(near, alpha, np.float32(0.0))
    # (Where a figure stands the felt is hidden: its colours, a marker's black and white read as grey
    # felt, are no evidence. It is given back below when it stands on the piece or at its edge.)
    mask = (cover > 0.5) & ~unseen
    # Where the camera clipped, a pixel brighter than both the mat around and this felt is the
    # lamp's hot spot on the mat (its colour washed out towards grey), not the felt.
    mask &= ~(clipped & (rel[2] > lit_l))
    mask = mask.view(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _kernel(0.4, ppi))
    mask = _fill_holes(mask, MAX_HOLE_SQIN * ppi * ppi, clipped)
    # (A streak of the mat's grain or a lamp's glint a pixel or two wide, joined to the piece, is no felt.)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _kernel(STREAK_IN / 2, ppi))
    felt = mask
    if len(feet_px):
        mask = _add_footprints(mask, ppi, feet_px)
    count, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    # Which pieces' felt (not a figure added to it) reaches each edge of the window.
    sides = [comp[:, 0][felt[:, 0] > 0], comp[0][felt[0] > 0],
             comp[:, -1][felt[:, -1] > 0], comp[-1][felt[-1] > 0]]
    out = []
    for c in np.flatnonzero(np.bincount(comp[seed], minlength=count)):
        if c == 0 or stats[c, cv2.CC_STAT_AREA] < MIN_AREA_SQIN * ppi * ppi:
            continue
        bx, by, bw, bh = stats[c, :4]
        cut = (slice(max(0, by - 2), by + bh + 2), slice(max(0, bx - 2), bx + bw + 2))
        part = (comp[cut] == c).view(np.uint8)
        hidden = unseen[cut]
        if hidden.any() and (hidden & (cv2.dilate(part, _SQUARE3) > 0)).any():
            # A figure at the piece's edge: the felt runs on under it as far as the piece's hull (a
            # figure beside the piece is none of it).
            part |= (hidden & (_hull_mask(part) > 0)).view(np.uint8)
        part |= _notches(part, rel[:3, cut[0], cut[1]], ppi, *spreads)
        at = (place[0] + cut[1].start, place[1] + cut[0].start)
        if paper_l is not None and _paper_white(rel[:3, cut[0], cut[1]], clipped[cut], (part > 0) & ~unseen[cut], *paper_l):
            continue
        if not _plausible(part, ppi, edge[cut], at, place[2:]):
            continue
        polygon = _polygon(part, cover[cut], ppi, (origin_in[0] + cut[1].start / ppi, origin_in[1] + cut[0].start / ppi))
        if polygon is None:
            continue
        # (Read over felt-wide windows, and not where a figure stands: a grid line or a figure on the
        # felt is not what it shows.)
        inner = (cv2.erode(part, _kernel(0.3, ppi)) > 0) & ~unseen[cut]
        if not inner.any():
            continue
        # (Every other pixel each way: the colour is read over 3 x 3 pixels.)
        sv, su = np.nonzero(inner[::2, ::2])
        blurred = cv2.blur(np.ascontiguousarray(x[:, cut[0], cut[1]].transpose(1, 2, 0)), (3, 3))
        reach = tuple(bool((side == c).any()) for side in sides)
        out.append((polygon, float(_sure(blurred[2 * sv, 2 * su].T, table).mean()), reach))
    return out


def _paper_white(rel: np.ndarray, clipped: np.ndarray, inside: np.ndarray, paper_l: float,
                 paper_ab: np.ndarray, kind_ab: np.ndarray | None) -> bool:
    """Whether a region (`inside`) is nearly all paper white rather than felt of the kind's colour:
    brighter than `paper_l` (`rel`: log chromaticity and brightness over the mat) or where the camera
    clipped, and not of the kind's tint: a printed page (paper with print too fine to see at this
    scale), a white card or a light book, not that felt. The light lifts the mat and the felt alike,
    so over the mat a felt's brightness is its dye's, within its texture; a felt dyed the kind's
    colour is not nearly all as white as paper, and a pale one (sand, cream) that is keeps its dye's
    tint: its chromaticity (`kind_ab`; paper's `paper_ab`) lies well within TINT_SHARE of the way
    from it to paper's, where a page's, greyed by its print or warmed by a lamp, does not (None: the
    kind's own colour is grey, and its tint tells nothing)."""
    n = int(np.count_nonzero(inside))
    if n == 0:
        return False
    white = ((rel[2] > np.float32(paper_l)) | clipped) & inside
    if int(np.count_nonzero(white)) < PAPER_SHARE * n:
        return False
    if kind_ab is None:
        return True                   # a grey kind: its tint cannot tell it from paper's
    tint = median_rows(rel[:2][:, inside])
    kind_ab = np.asarray(kind_ab, np.float64)
    return bool(np.hypot(*(tint - kind_ab)) >= TINT_SHARE * np.hypot(*(np.asarray(paper_ab, np.float64) - kind_ab)))


def _fill_polygon(mask: np.ndarray, polygon: Polygon, origin_in, ppi: float, offset_px=(0, 0)) -> None:
    """Sets to 1 the work pixels of `mask` inside a piece's outline (table inches; work pixel (0, 0)
    at `origin_in`, `ppi` a inch; `mask` a window of the work layer from work pixel `offset_px`)."""
    ring = (np.asarray(polygon.exterior.coords) - origin_in) * ppi
    cv2.fillPoly(mask, [np.round(ring).astype(np.int32) - np.asarray(offset_px, np.int32)], 1)


def _seen_inside(polygon: Polygon, origin_in, ppi: float, unseen: np.ndarray,
                 erode: np.ndarray | None = None, offset_px=(0, 0)) -> np.ndarray:
    """(H, W) bool: the work pixels inside a piece's outline (eroded by `erode`, if given) where
    something is read (`unseen` False), on a layer the shape of `unseen` (a window of the work
    layer from work pixel `offset_px`)."""
    inside = np.zeros(unseen.shape, np.uint8)
    _fill_polygon(inside, polygon, origin_in, ppi, offset_px)
    if erode is not None:
        inside = cv2.erode(inside, erode)
    return (inside > 0) & ~unseen


def _hull_mask(part: np.ndarray) -> np.ndarray:
    """(H, W) uint8: 1 inside the convex hull of a piece's pixels (`part`, uint8)."""
    hull = np.zeros_like(part)
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.fillPoly(hull, [cv2.convexHull(np.concatenate(contours))], 1)
    return hull


def _notches(part: np.ndarray, rel: np.ndarray, ppi: float, mat_sigma, mu, sd) -> np.ndarray:
    """(H, W) uint8: the notches in a piece's edge (where its hull is not, after the streaks are
    opened off) up to MAX_NOTCH_SQIN that mostly show a thing neither mat nor this felt: a figure
    standing there that the detectors missed."""
    gaps = cv2.morphologyEx(_hull_mask(part) & (1 - part), cv2.MORPH_OPEN, _kernel(STREAK_IN / 2, ppi))
    if not gaps.any():
        return gaps
    count, label, stats, _ = cv2.connectedComponentsWithStats(gaps, connectivity=4)
    at = gaps > 0
    x = rel[:, at]
    thing = (_sq_dist(x, np.zeros(3), mat_sigma) > ANOMALY_SIGMA ** 2) & (_sq_dist(x, mu, sd) > SEED_SIGMA ** 2)
    share = np.bincount(label[at], thing, count) / np.maximum(stats[:, cv2.CC_STAT_AREA], 1)
    fill = (stats[:, cv2.CC_STAT_AREA] <= MAX_NOTCH_SQIN * ppi * ppi) & (share >= MIN_THING_SHARE)
    fill[0] = False
    return fill[label].view(np.uint8) if fill.any() else np.zeros_like(part)


def _discs(shape, ppi: float, footprints_in, origin_in) -> np.ndarray:
    """(H, W) bool: the footprints (x, y, radius in inches), enlarged by FOOT_MARGIN_IN."""
    out = np.zeros(shape, np.uint8)
    for x, y, r in footprints_in:
        cv2.circle(out, (int(round((x - origin_in[0]) * ppi)), int(round((y - origin_in[1]) * ppi))),
                   int(math.ceil((r + FOOT_MARGIN_IN) * ppi)), 1, thickness=cv2.FILLED)
    return out > 0


def _edge_band(shape, ppi: float, origin_in, table_in) -> np.ndarray:
    """(H, W) bool: view pixels within EDGE_BAND_IN of the table's edge (or off the table)."""
    h, w = shape
    x = origin_in[0] + np.arange(w) / ppi
    y = origin_in[1] + np.arange(h) / ppi
    x0, y0, x1, y1 = table_in
    near_x = (x < x0 + EDGE_BAND_IN) | (x > x1 - EDGE_BAND_IN)
    near_y = (y < y0 + EDGE_BAND_IN) | (y > y1 - EDGE_BAND_IN)
    return near_y[:, None] | near_x[None, :]


def _plausible(part: np.ndarray, ppi: float, edge: np.ndarray, at=(0, 0), view_size=None) -> bool:
    """Felt-shaped: thick enough, not a thin streak (long one way, or a net of them: bright wood
    grain), broad over most of it (not a sprawl of the mat's mottle), not lying along the table's
    edge, not reaching in over it (an arm) nor square-cut and hanging over it (a book). A rectangle
    inside the table may be felt.
    `part` is a window at view pixel `at` of a view of `view_size` (w, h)."""
    thick = cv2.distanceTransform(part, cv2.DIST_L2, 3).max() * 2 / ppi
    if thick < MIN_THICK_IN:
        return False
    area = float(cv2.countNonZero(part))
    if float(np.count_nonzero(part[edge])) > MAX_EDGE_SHARE * area:
        return False
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    contour = max(contours, key=cv2.contourArea)
    (_, _), (rw, rh), angle = cv2.minAreaRect(contour)
    if thick < THIN_IN:
        # A cut felt is broad; bright grain or a lamp's streak is long and thin along one way.
        if max(rw, rh) > MAX_THIN_ASPECT * max(1.0, min(rw, rh)):
            return False
    # (The hull's area is measured through edge pixels' centres: half its perimeter brings it to pixels.)
    if thick < BROAD_IN and area < MIN_HULL_FILL * (cv2.contourArea(cv2.convexHull(contour)) + 0.5 * cv2.arcLength(contour, True)):
        return False
    # A felt is cut inches wide: most of it lies within discs BROAD_DISC_IN across that fit in it (a
    # figure standing on it or a hand biting in leaves that so). A patch of the mat's mottle or
    # grain that a lamp lifted over the seeds' cut sprawls in arms narrower than that.
    whole = np.zeros_like(part)
    cv2.drawContours(whole, contours, -1, 1, thickness=cv2.FILLED)
    opened = cv2.morphologyEx(whole, cv2.MORPH_OPEN, _kernel(BROAD_DISC_IN / 2, ppi))
    if cv2.countNonZero(opened) < MIN_BROAD_SHARE * cv2.countNonZero(whole):
        return False
    rim = max(1, int(EDGE_TOUCH_IN * ppi))
    vw, vh = view_size if view_size is not None else (part.shape[1], part.shape[0])
    x0, y0, bw, bh = cv2.boundingRect(part)
    sides = (at[0] + x0 < rim or at[0] + x0 + bw - 1 >= vw - rim,      # touches the left or right edge
             at[1] + y0 < rim or at[1] + y0 + bh - 1 >= vh - rim)      # the top or the bottom one
    touches = any(sides)
    if touches and max(rw, rh) > MAX_REACH_ASPECT * max(1.0, min(rw, rh)):
        # Long and in from the edge: an arm reaching in, its shadow, a cloth. A felt the edge cuts is
        # long along it (its on-table part up to twice as long as deep); longer still, a strip along
        # the edge is the mat there, lit or shaded.
        theta = math.radians(angle if rw >= rh else angle + 90.0)
        long_axis = (abs(math.cos(theta)), abs(math.sin(theta)))       # (x, y) share of the long axis
        parallel = (sides[0] and long_axis[1] >= ALONG_EDGE_COS) or (sides[1] and long_axis[0] >= ALONG_EDGE_COS)
        if not parallel or max(rw, rh) > MAX_ALONG_ASPECT * max(1.0, min(rw, rh)):
            return False
    fill = area / max(1.0, (rw + 1) * (rh + 1))
    if touches and (fill >= MIN_EDGE_THING_FILL or (
            fill >= EDGE_CUT_FILL and len(cv2.approxPolyDP(contour, EDGE_CUT_TOL_IN * ppi, True)) <= EDGE_CUT_CORNERS)):
        return False                  # square-cut and over the edge: a book or a box hanging off
    return True


def _polygon(part: np.ndarray, cover: np.ndarray, ppi: float, origin_in) -> Polygon | None:
    """The piece's outline where its unmixed cover crosses one half, traced on the cover enlarged
    SUBPIXEL times; inside the piece (filled holes, figures standing on it) it counts as whole."""
    inner = cv2.erode(part, _SQUARE3)
    near = cv2.dilate(part, _SQUARE3)
    field = np.where(inner > 0, np.float32(1.0), cover * near)
    np.maximum(field, part * np.float32(0.5), out=field)        # the part's own edge pixels stay in
    big = cv2.resize(field, None, fx=SUBPIXEL, fy=SUBPIXEL, interpolation=cv2.INTER_LINEAR)
    contours, _ = cv2.findContours((big >= 0.5).view(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea)
    contour = cv2.approxPolyDP(contour, SIMPLIFY_IN * ppi * SUBPIXEL, True)
    if len(contour) < 3:
        return None
    # Enlarged pixel U sits at work pixel (U + 0.5) / SUBPIXEL - 0.5.
    ring = ((contour.reshape(-1, 2).astype(np.float64) + 0.5) / SUBPIXEL - 0.5) / ppi + origin_in
    # Contour points are the centres of the edge pixels: the edge is half an (enlarged) pixel out.
    grown = _mitred(ring, 0.5 / (SUBPIXEL * ppi))
    if grown is not None:
        polygon = shapely.polygons(grown)
        if shapely.is_valid(polygon):
            return polygon
    polygon = shapely.polygons(ring)           # a ring that touches itself: shapely mends it
    if not shapely.is_valid(polygon):
        polygon = shapely.make_valid(polygon)
    polygon = shapely.buffer(polygon, 0.5 / (SUBPIXEL * ppi), join_style="mitre")
    if polygon.geom_type != "Polygon":
        polygon = max(getattr(polygon, "geoms", [polygon]), key=lambda g: g.area)
    if polygon.is_empty or polygon.geom_type != "Polygon":
        return None
    return shapely.polygons(shapely.get_exterior_ring(polygon))


_SQUARE3 = np.ones((3, 3), np.uint8)
MITRE_LIMIT = 5.0                # as shapely's buffer: a corner reaches out at most this many distances


def _mitred(ring: np.ndarray, distance: float) -> np.ndarray | None:
    """A closed ring (N, 2) moved `distance` outwards, each corner mitred (shapely's mitre buffer of
    a simple ring without its bevels); None when it has a repeated point."""
    z = np.ascontiguousarray(ring, np.float64).view(np.complex128)[:, 0]     # (x + 1j * y, as a view)
    forward = np.concatenate([z[1:], z[:1]]) - z                  # edge i: ring[i] -> ring[i + 1]
    length = np.abs(forward)
    if not (length > 0).all():
        return None
    # Outwards is right of the edges when the ring runs anticlockwise (twice its area > 0).
    normal = forward / length * (-1j if float(np.dot(z.real, forward.imag) - np.dot(z.imag, forward.real)) > 0 else 1j)
    before = np.concatenate([normal[-1:], normal[:-1]])            # the edge into each corner
    shift = (before + normal) / np.maximum(1.0 + (before * normal.conj()).real, 1e-9)   # 2 cos^2 of half the turn
    reach = np.abs(shift)
    shift *= distance * np.minimum(reach, MITRE_LIMIT) / np.maximum(reach, 1e-12)
    shift += z
    return shift.view(np.float64).reshape(-1, 2)


def _fill_holes(mask: np.ndarray, max_px: float, unknown: np.ndarray | None = None) -> np.ndarray:
    """Holes up to `max_px` filled (a figure standing on the felt); bigger ones (a mug's ring) kept,
    but for those half or more `unknown` (bool, as `mask`: where the camera clipped, or a card or a
    hand the felt runs under): the felt's middle under a lamp's hot spot (a hot spot on the mat
    beside the felt is no hole in it).

    (Looked for in the mask's bounding box only: a hole, ringed by the mask, lies inside it; what
    touches the box's edge there is open ground outside, as it is in the whole mask.)"""
    x0, y0, bw0, bh0 = cv2.boundingRect(mask)
    if bw0 == 0:
        return mask
    box = (slice(y0, y0 + bh0), slice(x0, x0 + bw0))
    holes = 1 - mask[box]
    count, comp, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
    x, y, bw, bh, area = stats.T
    fill = area <= max_px
    if unknown is not None:
        fill |= np.bincount(comp[unknown[box]], minlength=count) >= CLIPPED_HOLE * area
    fill &= (x > 0) & (y > 0) & (x + bw < bw0) & (y + bh < bh0)
    fill[0] = False
    if not fill.any():
        return mask
    out = mask.copy()
    out[box][fill[comp]] = 1
    return out


def _add_footprints(mask: np.ndarray, ppi: float, feet_px: np.ndarray) -> np.ndarray:
    """Discs of figures (u, v, radius in pixels) whose centre stands on (or within their radius of)
    a piece, added to it."""
    h, w = mask.shape
    u, v = feet_px[:, 0], feet_px[:, 1]
    inside = (u >= 0) & (u < w - 0.5) & (v >= 0) & (v < h - 0.5)
    if not inside.any():
        return mask
    x, y, radius = u[inside], v[inside], feet_px[inside, 2]
    iu, iv = np.round(x).astype(int), np.round(y).astype(int)
    # (The piece dilated a little, read only at the centres: the kernel's offsets round each.)
    dv, du = _kernel_offsets(0.15, ppi)
    a, b = iu[:, None] + du, iv[:, None] + dv
    ok = (a >= 0) & (a < w) & (b >= 0) & (b < h)
    near = (mask[np.where(ok, b, 0), np.where(ok, a, 0)] & ok).any(axis=1)
    # The figure stands on the piece when its centre is on it, or when the felt shows all round a
    # good part of it (just outside its footprint and the disc left out of the felt round it, where
    # the figure does not hide the felt).
    reach = np.maximum(1.3 * radius, np.ceil(radius + FOOT_MARGIN_IN * ppi) + 1)[:, None]
    a = np.round(x[:, None] + reach * _RING_COS).astype(int)
    b = np.round(y[:, None] + reach * _RING_SIN).astype(int)
    ok = (a >= 0) & (a < w) & (b >= 0) & (b < h)
    felt = (mask[np.where(ok, b, 0), np.where(ok, a, 0)] & ok).sum(axis=1)
    on = near | (felt >= 6)
    if not on.any():
        return mask
    out = mask.copy()
    for cu, cv, r in zip(iu[on].tolist(), iv[on].tolist(), radius[on].tolist()):
        cv2.circle(out, (cu, cv), int(math.ceil(r + FOOT_MARGIN_IN * ppi)), 1, thickness=cv2.FILLED)
    return out


@functools.lru_cache(maxsize=16)
def _same_kernel(a_in: float, b_in: float, ppi: float) -> bool:
    """Whether two radii give the same `_kernel` at `ppi` (one dilation serves both)."""
    return bool(np.array_equal(_kernel(a_in, ppi), _kernel(b_in, ppi)))


@functools.lru_cache(maxsize=16)
def _kernel_offsets(radius_in: float, ppi: float) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of `_kernel(radius_in, ppi)`'s pixels from its centre."""
    k = _kernel(radius_in, ppi)
    dv, du = np.nonzero(k)
    return dv - k.shape[0] // 2, du - k.shape[1] // 2


_RING_ANGLES = np.linspace(0, 2 * math.pi, 16, endpoint=False)
_RING_COS, _RING_SIN = np.cos(_RING_ANGLES), np.sin(_RING_ANGLES)


def _log_brightness(small: np.ndarray) -> np.ndarray:
    """The work layer's log brightness (float32 BGR in), which the grain's coherence and fuzz read."""
    return cv2.log(cv2.add(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), float(OFFSET)))


class _Texture:
    """The work layer's brightness texture (vision.terrain_grain), each map made when first asked:
    its log brightness, coherence and fuzz, and the mat's grain and fuzz over its mat-like pixels
    (`rel` within MAT_LIKE_SIGMA of the mat's spread `mat_sigma`) away from `unseen` (bool: unknown,
    or where a figure stands)."""

    def __init__(self, small: np.ndarray, ppi: float, rel: np.ndarray, mat_sigma: np.ndarray, unseen: np.ndarray):
        self.small, self.ppi, self.unseen = small, ppi, unseen
        self._rel, self._mat_sigma = rel, mat_sigma

    @functools.cached_property
    def d_mat(self) -> np.ndarray:
        """Each pixel's squared distance from the mat in colour and brightness, in the mat's spreads."""
        return _sq_dist(self._rel[:3], np.zeros(3), self._mat_sigma[:3])

    @functools.cached_property
    def mat_like(self) -> np.ndarray:
        return (self.d_mat < 3 * MAT_LIKE_SIGMA ** 2) & ~self.unseen

    @functools.cached_property
    def gray_log(self) -> np.ndarray:
        return _log_brightness(self.small)

    @functools.cached_property
    def coherence(self) -> np.ndarray:
        return terrain_grain.coherence(self.gray_log, self.ppi)

    @functools.cached_property
    def fuzz(self) -> np.ndarray:
        return terrain_grain.fuzz(self.gray_log, self.ppi)

    @functools.cached_property
    def mat_grain(self) -> tuple[float, float]:
        """The mat's coherence and its spread (terrain_grain.grain_level)."""
        return terrain_grain.grain_level(self.coherence[::2, ::2], self.mat_like[::2, ::2])

    @functools.cached_property
    def mat_fuzz(self) -> float:
        return terrain_grain.fuzz_level(self.fuzz[::2, ::2][self.mat_like[::2, ::2]]) if self.mat_like.any() else 0.0

    def fuzz_share(self, region: np.ndarray) -> float:
        """A region's fuzz (bool mask) as a share of the mat's (0 where either is not there)."""
        if not region.any() or self.mat_fuzz <= 0:
            return 0.0
        return terrain_grain.fuzz_level(self.fuzz[region]) / self.mat_fuzz


def _soft_blotch(rel: np.ndarray, sigma: np.ndarray, unseen: np.ndarray, polygon: Polygon, origin_in,
                 ppi: float) -> bool:
    """Whether a piece stands faintly from the mat (its inside, FADE_IN_IN in from its outline, within
    FAINT_SIGMA of the mat's spreads) and is a soft blotch of the mat's mottle or a shadow, not felt:
    it sprawls (fills less than FAINT_HULL_FILL of its convex hull: the blotches of a grass mat's
    texture joined into one, where a felt is one cut shape) or fades out to its outline (the colour
    across its outline, FADE_IN_IN each side of it, steps less than FADE_SHARE of how far its inside
    stands out: a felt is cut, its edge a step as strong as its middle). `rel`: (3, H, W) colour and
    brightness over the local mat's; `unseen`: where a figure stands or nothing is read."""
    h, w = rel.shape[1:]
    inside = _seen_inside(polygon, origin_in, ppi, unseen, _kernel(FADE_IN_IN, ppi))
    if not inside.any():
        return False
    per = 1.0 / np.asarray(sigma, np.float32)[:, None]
    standing_out = float(np.median(np.sqrt(((rel[:, inside] * per) ** 2).sum(axis=0))))
    if standing_out >= FAINT_SIGMA:
        return False
    if polygon.area < FAINT_HULL_FILL * polygon.convex_hull.area:
        return True
    ring = polygon.exterior
    along = np.arange(0.0, ring.length, FADE_STEP_IN)
    at, ahead = shapely.line_interpolate_point(ring, along), shapely.line_interpolate_point(ring, along + 0.1)
    xy, xy2 = shapely.get_coordinates(at), shapely.get_coordinates(ahead)
    tangent = xy2 - xy
    length = np.hypot(*tangent.T)
    ok = length > 0
    xy, normal = xy[ok], (tangent[ok] / length[ok, None]) @ np.array([[0.0, -1.0], [1.0, 0.0]])
    # (outward: the exterior ring runs either way round)
    probe = shapely.points(xy + 0.5 * normal)
    normal[shapely.contains(polygon, probe)] *= -1
    inner, outer = (((xy + side * normal - origin_in) * ppi).astype(np.float32) for side in (-FADE_IN_IN, FADE_IN_IN))
    valid = np.ones(len(xy), bool)
    for px in (inner, outer):
        u, v = np.round(px[:, 0]).astype(int), np.round(px[:, 1]).astype(int)
        inside_view = (u >= 0) & (v >= 0) & (u < w) & (v < h)
        valid &= inside_view
        valid[inside_view] &= ~unseen[v[inside_view], u[inside_view]]
    if valid.sum() < FADE_MIN_SAMPLES:
        return False
    inner, outer = inner[valid], outer[valid]
    a = np.stack([cv2.remap(plane, inner[:, 0][None], inner[:, 1][None], cv2.INTER_LINEAR)[0] for plane in rel]) * per
    b = np.stack([cv2.remap(plane, outer[:, 0][None], outer[:, 1][None], cv2.INTER_LINEAR)[0] for plane in rel]) * per
    return float(np.median(np.sqrt(((a - b) ** 2).sum(axis=0)))) < FADE_SHARE * standing_out


def _plain_box(texture: _Texture, polygon: Polygon, origin_in, at_edge: bool = False) -> bool:
    """Whether the piece `polygon` (table inches) is a plain thing cut straight, a book or a box
    lying on the table: it fills its smallest rectangle MIN_BOX_FILL or more, and where it is seen it
    is smoother than a felt (its fuzz no more than MAX_BOX_FUZZ of the mat's; a book's cover is one
    paint, a felt's fibres are as rough as a mat at the pixel scale). A felt cut straight is as
    rough as any felt; on a plain mat, where nothing is rough, a straight cut alone tells nothing.
    One the table's edge cuts (`at_edge`) shows no whole rectangle: there a book hanging over the
    edge is told by its smoothness alone, far smoother than a felt (MAX_EDGE_FUZZ)."""
    boxed = polygon.area >= MIN_BOX_FILL * polygon.minimum_rotated_rectangle.area
    if not (boxed or at_edge):
        return False
    inside = _seen_inside(polygon, origin_in, texture.ppi, texture.unseen, _SQUARE3)
    if not inside.any():
        return False
    fuzz = texture.fuzz_share(inside)
    return fuzz <= MAX_BOX_FUZZ if boxed else fuzz <= MAX_EDGE_FUZZ


def _mats_grain(texture: _Texture, polygon: Polygon, origin_in) -> bool:
    """Whether the region `polygon` (table inches) shows the mat's own grain: on a grained mat (its
    median coherence over its mat-like pixels at least GRAINED_MAT, and its fuzz GRAINED_MAT_FUZZ:
    a texture), the region's median coherence (where it is mat-like or a felt: not unknown, no
    figure) no more than SAME_GRAIN_SIGMA of the mat's spreads under the mat's. A felt's fibres run
    every way (a hill on wood: 0.2 against the mat's 0.5-0.6)."""
    centre, spread = texture.mat_grain
    if centre < GRAINED_MAT or texture.mat_fuzz < GRAINED_MAT_FUZZ:
        return False
    inside = _seen_inside(polygon, origin_in, texture.ppi, texture.unseen)
    return bool(inside.any()) and float(np.median(texture.coherence[inside])) >= centre - SAME_GRAIN_SIGMA * spread


def _grain_pieces(texture: _Texture, origin_in, rel, mat_sigma, names, mus, sds, found, excluded, unknown, standing,
                  edge, feet_px, open_k) -> list[tuple[str, Polygon, float]]:
    """[(kind, polygon, confidence)]: felts of the kinds `names` (their colours `mus`, `sds` as
    the seeds judge them) told from a grained mat by their lack of grain, away from the pieces
    `found` (polygons), `excluded` (hands, cards) and where figures stand (`standing`). Where the
    camera clipped (`unknown`, with the excluded) a channel, the brightness still shows the grain
    (the other channels carry it), but not the colour."""
    coh, ppi = texture.coherence, texture.ppi
    h, w = coh.shape
    taken = np.zeros((h, w), np.uint8)
    for polygon in found:
        _fill_polygon(taken, polygon, origin_in, ppi)
    taken = cv2.dilate(taken, _kernel(1.0, ppi)) > 0
    free = ~excluded & ~taken
    d_mat, mat_like = texture.d_mat, texture.mat_like
    # (Within the tensor's reach of a figure, a card, a hand or anything not of the mat's colour (a
    # pencil, a die, a figure missed), their outlines break the grain: no felt of the mat's colour
    # is told there.)
    things = standing | excluded | ((d_mat > ANOMALY_SIGMA ** 2) & ~unknown)
    near_things = cv2.dilate(things.view(np.uint8), _kernel(2 * terrain_grain.GRAIN_IN, ppi)) > 0
    near_half = cv2.dilate(things.view(np.uint8), _kernel(terrain_grain.GRAIN_IN, ppi)) > 0
    # (The mat's own grain is read away from them too.)
    centre, spread = terrain_grain.grain_level(coh[::2, ::2], (mat_like & ~near_things)[::2, ::2])
    if centre - terrain_grain.GRAIN_SIGMA * spread <= 0:
        return []               # (no grain to stand out from: nothing is grainless)
    core = terrain_grain.grainless(coh, centre, spread) & free & ~near_things
    core = cv2.morphologyEx(core.view(np.uint8), cv2.MORPH_OPEN, open_k)
    if not core.any():
        return []
    spreads = np.hypot(sds, mat_sigma[:3])
    count, comp, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
    out = []
    claimed = np.zeros((h, w), bool)
    # The felt reaches where the coherence is under half the mat's (the tensor's blur smears the
    # edge both ways). (Round a figure or a thing the grain is broken whether felt lies there or
    # not: the felt runs on there as far as the piece's hull.) The same regions for every seed.
    level = 0.5 * centre
    regions = mat_fuzz = None
    for c in range(1, count):
        if stats[c, cv2.CC_STAT_AREA] < SEED_MIN_SQIN * ppi * ppi:
            continue
        seed = comp == c
        if (seed & claimed).any():
            continue            # (a part of a felt already outlined)
        if regions is None:
            mask = cv2.morphologyEx(((coh < level) & free & ~near_half).view(np.uint8), cv2.MORPH_OPEN,
                                    _kernel(STREAK_IN / 2, ppi))
            mask = _fill_holes(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _kernel(0.4, ppi)), MAX_HOLE_SQIN * ppi * ppi)
            regions = cv2.connectedComponentsWithStats(mask, connectivity=8)
        n, region, rstats, _ = regions
        # (A seed in no region, a swirl of the mat under the seed's cut but over the region's, is
        # none: it must claim nothing, or the felt's own seed is later skipped as claimed.)
        counts = np.bincount(region[seed], minlength=n)
        counts[0] = 0
        r = int(counts.argmax())
        if counts[r] == 0:
            continue
        bx, by, bw, bh = rstats[r, :4]
        m = int(math.ceil(max(2 * terrain_grain.GRAIN_IN, RING_IN[1]) * ppi)) + 2    # (the mat round it is read in it)
        cut = (slice(max(0, by - m), by + bh + m), slice(max(0, bx - m), bx + bw + m))
        part = (region[cut] == r).view(np.uint8)
        part |= ((coh[cut] < level) & free[cut] & near_half[cut] & (_hull_mask(part) > 0)).view(np.uint8)
        if len(feet_px):
            part = _add_footprints(part, ppi, feet_px - (cut[1].start, cut[0].start, 0))
        if cv2.countNonZero(part) < MIN_AREA_SQIN * ppi * ppi:
            continue
        claimed[cut] |= part > 0
        if not _plausible(part, ppi, edge[cut], (cut[1].start, cut[0].start), (w, h)):
            continue
        # A felt lies on the mat: the mat shows round most of it (a mug's dark inside is ringed by its rim).
        around = (cv2.dilate(part, _kernel(RING_IN[1], ppi)) > 0) & (part == 0)
        if np.count_nonzero(things[cut] & around) > GRAIN_MAX_THINGS_ROUND * np.count_nonzero(around):
            continue
        inner = seed[cut] & (part > 0)
        seen = inner & ~unknown[cut]
        if not seen.any():
            continue
        # Which kind: the colour of its core nearest a kind's (the mat's own colour is no kind's
        # unless a kind is cut to it), near enough it.
        colour = rel[:3, cut[0], cut[1]][:, seen].mean(axis=1)
        off = np.sqrt((((colour[None] - mus) / spreads) ** 2).sum(axis=1))
        k = int(np.argmin(off))
        if off[k] > MAX_LEARN_SIGMA:
            continue
        polygon = _polygon(part, part.astype(np.float32), ppi, (origin_in[0] + cut[1].start / ppi,
                                                                origin_in[1] + cut[0].start / ppi))
        if polygon is None:
            continue
        separation = terrain_grain.grain_separation(coh[cut][inner], centre, spread)
        # How sure: as rough as a felt at the pixel scale, not plain (a book, a card, a building of
        # the mat's colour), and as far under the mat's grain as a felt.
        if mat_fuzz is None:
            # A felt is rough at the pixel scale as the mat is; a plain thing of the mat's colour
            # is not (vision.terrain_grain). The mat's fuzz is read where its grain is.
            mat_fuzz = terrain_grain.fuzz_level(texture.fuzz[::2, ::2][(mat_like & ~near_things)[::2, ::2]])
        sure = terrain_grain.fuzz_sureness(terrain_grain.fuzz_level(texture.fuzz[cut][seen]), mat_fuzz)
        confidence = round(sure * min(1.0, separation / SEPARATION_FULL), 3)
        if confidence >= MIN_CONFIDENCE:
            out.append((names[k], polygon, confidence, polygon.area * separation))
    # A kind the colours missed whole is one felt cut to the mat's colour: the patch that stands out
    # most (the biggest, least grained); others are likelier the mat's own swirls.
    best = {}
    for q in out:
        if q[0] not in best or q[3] > best[q[0]][3]:
            best[q[0]] = q
    return [q[:3] for q in best.values()]
