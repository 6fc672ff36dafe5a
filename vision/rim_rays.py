"""Rays from candidate centres and circles through their edge points: the measuring tools of the
colour rims (vision.rims) and of bases standing in felt of their own hue (vision.rim_water).

A candidate's map (a side's labels as 0/1, or its likelihood) is sampled along rays (one
remap for all candidates); on each ray the rim's outer edge is where the colour ends; a circle of
the base's known radius is fitted to those edges (Gauss-Newton, the radius held by a prior).
"""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

N_RAYS = 48
STEP_PX = 0.5                  # sample spacing along a ray
EDGE_TRIM = 0.2                # an edge point farther than this (radii) from the circle is not rim
EDGE_BIAS_PX = 0.5             # the rim's edge as found lies this far outside the base's true edge
RADIUS_PRIOR = 8.0             # the base's known radius counts as this many edge points


def reach(radii: np.ndarray, reach_px: float) -> np.ndarray:
    """The samples of `radii` (ascending) out to `reach_px`, and two beyond (an edge's next sample)."""
    return radii[:int(np.searchsorted(radii, reach_px, side="right")) + 2]


def max_wall(shift: np.ndarray, units: np.ndarray) -> float:
    """The farthest the side wall moves any ray's edge out (pixels), for centres with `shift` (N, 2)."""
    return float(np.maximum(0.0, shift @ units.T).max(initial=0.0))


class Slots:
    """Each candidate's own map to sample (its side's labels, or likelihood), by slot."""

    def __init__(self, maps: list[np.ndarray], slot_of: np.ndarray):
        self.maps, self.slot_of = maps, slot_of

    def __getitem__(self, keep) -> "Slots":
        return Slots(self.maps, self.slot_of[keep])

    def sample(self, centres: np.ndarray, radii: np.ndarray, units: np.ndarray) -> np.ndarray:
        out = np.empty((len(centres), len(units), len(radii)), np.float32)
        if np.all(self.slot_of[1:] >= self.slot_of[:-1]):
            # the candidates come slot by slot: each slot's rays are sampled straight into its rows
            ends = np.searchsorted(self.slot_of, np.arange(len(self.maps) + 1), side="left")
            for m in range(len(self.maps)):
                if ends[m + 1] > ends[m]:
                    sample_rays(self.maps[m], centres[ends[m]:ends[m + 1]], radii, units, out[ends[m]:ends[m + 1]])
            return out
        for m in np.unique(self.slot_of):
            sel = self.slot_of == m
            out[sel] = sample_rays(self.maps[m], centres[sel], radii, units)
        return out


def ray_pixels(centres: np.ndarray, units: np.ndarray, radii: np.ndarray,
               shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, inside), each (N, K, R): the pixel nearest each ray's sample (`radii`: (R,), or (N, K, R)
    for each ray its own), held within the view (`shape`: H, W), and whether the sample itself lies in it."""
    h, w = shape
    x = np.rint(centres[:, None, None, 0] + units[None, :, None, 0] * radii).astype(np.intp)
    y = np.rint(centres[:, None, None, 1] + units[None, :, None, 1] * radii).astype(np.intp)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    return np.clip(x, 0, w - 1), np.clip(y, 0, h - 1), inside


def sample_rays(mask_f, centres: np.ndarray, radii: np.ndarray, units: np.ndarray,
                 out: np.ndarray | None = None) -> np.ndarray:
    """(N, K, J) mask values (bilinear) at centre + radius * unit, 0 outside the view (`mask_f`: a
    float32 map, or Slots), into `out` (N, K, J) float32 when given."""
    if isinstance(mask_f, Slots):
        return mask_f.sample(centres, radii, units)
    n, k, j = len(centres), len(units), len(radii)
    if out is None:
        out = np.empty((n, k, j), np.float32)
    # the offsets are the same for every centre; the sums go straight into remap's float32 maps
    x = np.empty((n, k, j), np.float32)
    y = np.empty((n, k, j), np.float32)
    np.add(centres[:, None, None, 0], (units[:, None, 0] * radii[None, :])[None], out=x, casting="unsafe")
    np.add(centres[:, None, None, 1], (units[:, None, 1] * radii[None, :])[None], out=y, casting="unsafe")
    x, y, flat = x.reshape(n * k, j), y.reshape(n * k, j), out.reshape(n * k, j)
    rows = 32000                   # remap's maps are at most SHRT_MAX rows
    for i in range(0, n * k, rows):
        cv2.remap(mask_f, x[i:i + rows], y[i:i + rows], cv2.INTER_LINEAR, dst=flat[i:i + rows],
                  borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out


def gained(samples: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """Samples (N, K, J) scaled by each candidate's `gain` (N,), clipped at 1, in float64 (so the
    product is exact enough that no edge moves). The likelihood candidates come after the labels'
    (gain 1, whose samples a gain of 1 leaves as they are): one block, scaled in place."""
    out = samples.astype(np.float64)
    rows = np.flatnonzero(gain != 1.0)
    if len(rows):
        block = out[rows[0]:rows[-1] + 1]
        np.multiply(block, gain[rows[0]:rows[-1] + 1, None, None], out=block)
        np.minimum(block, 1.0, out=block)
    return out


def gained_threshold(gain: np.ndarray) -> np.ndarray:
    """(N,) float32: the least sample that `gained` by each candidate's gain takes to 0.5 or more,
    so that the samples may be tested as they are, in float32, and only the few read as values
    (an edge's two) be gained: the test is the same to the bit (the product's rounding only ever
    rises with the sample, so the samples that reach 0.5 are those at or above one value)."""
    g = np.asarray(gain, np.float64)

    def reaches(v):
        return np.minimum(v.astype(np.float64) * g, 1.0) >= 0.5

    t = (0.5 / g).astype(np.float32)                  # within an ulp or two of it
    while True:
        below = np.nextafter(t, np.float32(-np.inf))
        up = ~reaches(t)
        down = ~up & reaches(below)
        if not (up.any() or down.any()):
            return t
        t = np.where(up, np.nextafter(t, np.float32(np.inf)), np.where(down, below, t))


class Bands:
    """Counts of the samples (N, K, J) at or above 0.5 in runs along each ray. A rim's bands are a
    few samples wide: each is counted by reading its samples, one step along all rays at a time
    (integers: the same counts however they are summed), not from a running count of every
    sample (numpy's cumulative sum along a short axis is slow); a wide band from that running count."""

    NARROW = 12                # samples: a band wider than this is counted from the running count

    def __init__(self, samples: np.ndarray, radii: np.ndarray, on: np.ndarray | None = None):
        self.radii = radii
        self.on = np.ascontiguousarray(samples >= 0.5 if on is None else on)
        self._before = None

    def count(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(samples with lo <= radius <= hi, of them at or above 0.5), each (N, K), for bands
        (N, K) on each ray."""
        j0 = np.searchsorted(self.radii, lo, side="left")          # the first sample at lo or beyond
        j1 = np.maximum(np.searchsorted(self.radii, hi, side="right"), j0)   # the first beyond hi
        n = j1 - j0
        widest = int(n.max(initial=0))
        if widest > self.NARROW:
            if self._before is None:
                self._before = np.zeros(self.on.shape[:2] + (self.on.shape[2] + 1,), np.int32)
                np.cumsum(self.on, axis=2, dtype=np.int32, out=self._before[..., 1:])
            on = (np.take_along_axis(self._before, j1[..., None], 2)[..., 0]
                  - np.take_along_axis(self._before, j0[..., None], 2)[..., 0])
            return n, on
        flat = self.on.reshape(-1)
        j = self.on.shape[2]
        at = np.arange(0, flat.size, j).reshape(n.shape) + j0  # each band's first sample, flat
        on = np.zeros(n.shape, np.int32)
        for step in range(widest):
            # (past a band's end the sample read is another's, or clipped: not counted)
            on += np.take(flat, at + step, mode="clip") & (n > step)
        return n, on


def outer_edges(samples: np.ndarray, radii: np.ndarray, lo: float, hi: np.ndarray,
                on: np.ndarray | None = None, gain: np.ndarray | None = None) -> np.ndarray:
    """(N, K) radius where the colour ends, looking inwards from `hi` (N, K) to `lo`; NaN if none.
    With `gain` (N,), the samples as `gained` by it, `on` (N, K, J) telling which reach 0.5."""
    j_lo = int(np.searchsorted(radii, lo, side="left"))            # the first sample at lo or beyond
    j_hi = np.searchsorted(radii, hi, side="right")                 # (N, K): the first beyond hi
    # From the last sample back to j_lo (so that the first found is the edge), those before j_hi:
    # rows of a table by j_hi (a copy of a row a ray, not a comparison of every sample).
    before = np.arange(len(radii) - 1, j_lo - 1, -1)[None, :] < np.arange(len(radii) + 1)[:, None]
    back = (samples[..., j_lo:] >= 0.5 if on is None else on[..., j_lo:])[..., ::-1] & np.take(before, j_hi, axis=0)
    last_back = np.argmax(back, axis=2)
    j_last = len(radii) - 1 - last_back
    # (each ray's one sample read by its flat index: take_along_axis builds an index grid a call)
    ray = np.arange(0, last_back.size).reshape(last_back.shape)
    found = back.reshape(-1)[ray * back.shape[2] + last_back]
    j_next = np.minimum(j_last + 1, len(radii) - 1)
    flat, at = samples.reshape(-1), ray * samples.shape[2]
    s0, s1 = flat[at + j_last][..., None], flat[at + j_next][..., None]
    if gain is not None:
        s0, s1 = gained(s0, gain), gained(s1, gain)
    s0, s1 = s0[..., 0], s1[..., 0]
    frac = np.where(s0 - s1 > 1e-6, (s0 - 0.5) / np.maximum(s0 - s1, 1e-6), 0.0)
    r = radii[j_last] + np.minimum(np.maximum(frac, 0.0), 1.0) * (radii[j_next] - radii[j_last])
    return np.where(found, r, np.nan)


def longest_arc(kept: np.ndarray, gap: int = 2) -> np.ndarray:
    """(N,) share of the rays in the longest run of kept rays round the circle (gaps of up to `gap`
    rays bridged): a rim shows as one arc where the body does not hide it; bits of a die and of a
    neighbouring base seen from between them are two short arcs."""
    n, k = kept.shape
    closed = kept.copy()
    for g in range(1, gap + 1):
        # a gap of g rays is bridged when kept rays stand on both sides of it
        for s in range(1, g + 1):
            closed |= np.roll(kept, s, axis=1) & np.roll(kept, s - g - 1, axis=1)
    if closed.all(axis=1).any():
        full = closed.all(axis=1)
    else:
        full = np.zeros(n, bool)
    # the run of kept rays ending at each ray, round the circle twice: how far it lies past the
    # last ray not kept (all rays at once, not one ray after another)
    twice = np.concatenate([closed, closed], axis=1)
    at = np.arange(2 * k)
    last_gap = np.maximum.accumulate(np.where(twice, -1, at), axis=1)
    best = (at - last_gap).max(axis=1, initial=0)
    return np.where(full, 1.0, np.minimum(best, k) / k)


def free_radius(points: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(N,) radius of the circle best through the weighted points (Kasa's algebraic fit); NaN when
    they do not fix one. A mug's rim or a felt's curve has the wrong one."""
    x, y = points[..., 0], points[..., 1]
    w = weights
    cols = [x, y, np.ones_like(x)]
    a = np.stack([np.stack([(w * ci * cj).sum(1) for cj in cols], -1) for ci in cols], -2)   # (N, 3, 3)
    z = x * x + y * y
    b = np.stack([(w * ci * z).sum(1) for ci in cols], -1)
    ok = np.linalg.matrix_rank(a) == 3
    sol = np.full((len(x), 3), np.nan)
    if ok.any():
        sol[ok] = np.linalg.solve(a[ok], b[ok][..., None])[..., 0]
    cx, cy = sol[:, 0] / 2, sol[:, 1] / 2
    r2 = sol[:, 2] + cx * cx + cy * cy
    return np.sqrt(np.where(r2 > 0, r2, np.nan))


def adjugate_sym3(a00, a01, a02, a11, a12, a22):
    """(c00, c01, c02, c11, c12, c22, det): the adjugate's entries and the determinant of the
    symmetric matrices [[a00 a01 a02] [a01 a11 a12] [a02 a12 a22]] (each entry (N,) or an array)."""
    c00, c01, c02 = a11 * a22 - a12 * a12, a02 * a12 - a01 * a22, a01 * a12 - a02 * a11
    c11, c12, c22 = a00 * a22 - a02 * a02, a01 * a02 - a00 * a12, a00 * a11 - a01 * a01
    return c00, c01, c02, c11, c12, c22, a00 * c00 + a01 * c01 + a02 * c02


def solve_sym3(a00, a01, a02, a11, a12, a22, b0, b1, b2):
    """Solutions (x0, x1, x2), each (N,), of the symmetric systems [[a00 a01 a02] [a01 a11 a12]
    [a02 a12 a22]] x = b by their adjugates (many tiny systems: faster than a general solver); 0
    where the system is singular."""
    c00, c01, c02, c11, c12, c22, det = adjugate_sym3(a00, a01, a02, a11, a12, a22)
    ok = np.abs(det) > 1e-6
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    return ((c00 * b0 + c01 * b1 + c02 * b2) * inv, (c01 * b0 + c11 * b1 + c12 * b2) * inv,
            (c02 * b0 + c12 * b1 + c22 * b2) * inv)


# The adjugate of stacked symmetric systems, rows (a00, a01, a02, a11, a12, a22): its entries (c00,
# c01, c02, c11, c12, c22) are A B - C D of these rows, each as adjugate_sym3 writes it; the
# solution's rows take the entries in these places.
_ADJ_A, _ADJ_B = np.array([3, 2, 1, 0, 1, 0]), np.array([5, 4, 4, 5, 2, 3])
_ADJ_C, _ADJ_D = np.array([4, 1, 2, 2, 0, 1]), np.array([4, 5, 3, 2, 4, 1])
_ADJ_ROWS = np.array([[0, 1, 2], [1, 3, 4], [2, 4, 5]])


# The normal equations' sums, rows: w ux, w uy, w ux ux, w uy uy, w ux uy (a02, a12, a00, a11, a01), w e ux,
# w e uy, w e (the right-hand side's, b0, b1, b2, before the radius prior and the sign), and a22 (the
# weights' sum and the prior, made once). fit_circle gathers by those rows: the adjugate's
# four factors and the first column, in one gather.
_FIT_A = np.array([2, 4, 0, 3, 1, 8])                 # a00, a01, a02, a11, a12, a22 among the sums
_FIT_GATHER = np.concatenate([_FIT_A[_ADJ_A], _FIT_A[_ADJ_B], _FIT_A[_ADJ_C], _FIT_A[_ADJ_D], _FIT_A[:3]])


def fit_circle(points: np.ndarray, weights: np.ndarray, start: np.ndarray, r_px: float,
                iterations: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """(N, 2) centres and (N,) radii of circles through points (N, K, 2) with weights (N, K), the
    radius held near the base's `r_px` by a prior worth RADIUS_PRIOR points (Gauss-Newton).

    The rim's outer edge shows a little outside the base (blur, a blended pixel counted as rim):
    on a whole ring that only grows the radius, but on a short arc a fixed radius would pull the
    centre towards the arc. A long arc finds its own radius; a short one keeps the prior's."""
    n = len(start)
    lam = RADIUS_PRIOR
    r0 = r_px + EDGE_BIAS_PX
    xy = np.ascontiguousarray(np.moveaxis(points, -1, 0))           # (2, N, K): x and y
    w = weights
    # (each step written into arrays made once, the centre kept as (2, N): a step of a few dozen
    # calls over small arrays, whose cost is the calls; each product and sum as solve_sym3 makes it)
    c = np.array(start, np.float64).T.copy()                        # (2, N)
    r = np.full(n, r0)
    d, u = np.empty_like(xy), np.empty_like(xy)
    dist, e = np.empty(xy.shape[1:]), np.empty(xy.shape[1:])
    terms = np.empty((8,) + xy.shape[1:])
    sums = np.empty((9, n))
    sums[8] = w.sum(1) + lam
    ones = np.ones(xy.shape[2])
    half = 0.5 * r_px
    for _ in range(iterations):
        np.subtract(xy, c[:, :, None], out=d)
        # (the distance as the root of the squares' sum: np.hypot's care for overflow costs eight
        # times as much, and these are pixels)
        np.multiply(d[0], d[0], out=dist)
        np.multiply(d[1], d[1], out=e)
        dist += e
        np.sqrt(dist, out=dist)
        np.divide(d, np.maximum(dist, 1e-6), out=u)
        np.subtract(dist, r[:, None], out=e)                 # d e / d (cx, cy, r) = (-ux, -uy, -1)
        np.multiply(w, u, out=terms[0:2])
        np.multiply(terms[0:2], u, out=terms[2:4])
        np.multiply(terms[0], u[1], out=terms[4])
        np.multiply(w, e, out=terms[7])
        np.multiply(terms[7], u, out=terms[5:7])
        # (each row summed over the rays by a product with ones: numpy's reduce over a short last
        # axis is four times slower)
        np.matmul(terms.reshape(-1, terms.shape[2]), ones, out=sums[:8].reshape(-1))
        # J^T e with J = (-ux, -uy, -1), and the radius prior: the right-hand side is minus these
        # rows, so the step is minus the solution of the system with them as they are
        sums[7] -= lam * (r - r0)
        g = sums[_FIT_GATHER]
        cof = g[0:6] * g[6:12]
        cof -= g[12:18] * g[18:24]
        p = g[24:27] * cof[:3]
        det = p[0] + p[1] + p[2]
        inv = np.divide(1.0, det, out=np.zeros_like(det), where=np.abs(det) > 1e-6)
        q = cof[_ADJ_ROWS] * sums[None, 5:8]
        neg_step = q[:, 0] + q[:, 1]
        neg_step += q[:, 2]
        neg_step *= inv
        c += np.minimum(np.maximum(neg_step[:2], -half), half)
        r += neg_step[2]
        np.minimum(np.maximum(r, 0.85 * r_px, out=r), 1.25 * r_px, out=r)
    return c.T.copy(), r


def _dist(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(N, K) distance of points (N, K, 2) from centres (N, 2), as the root of the squares' sum
    (np.hypot is eight times slower)."""
    dx = points[..., 0] - centres[:, None, 0]
    dy = points[..., 1] - centres[:, None, 1]
    dx *= dx
    dy *= dy
    dx += dy
    return np.sqrt(dx, out=dx)


def ray_units(n: int = N_RAYS) -> np.ndarray:
    """(n, 2) unit vectors of n rays evenly round the circle, the first along +x."""
    angles = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([np.cos(angles), np.sin(angles)])


def fit_trimmed(points: np.ndarray, valid: np.ndarray, start: np.ndarray, r_px: float):
    """A circle of about the base's radius through the valid edge points (N, K, 2), fitted twice,
    the points off the first fit (0.45 radii) and then off the second (EDGE_TRIM) left out:
    (centres (N, 2), radii (N,), the weights of the points kept (N, K))."""
    w, c = valid.astype(np.float64), start
    for trim in (0.45, EDGE_TRIM):
        c, r = fit_circle(points, w, c, r_px)
        res = _dist(points, c) - r[:, None]
        w = (valid & (np.abs(res) <= trim * r_px)).astype(np.float64)
    return c, r, w


def best_per_cell(pts: np.ndarray, score: np.ndarray, r_px: float) -> np.ndarray:
    """Of candidate points (N, 2), the best scored in each cell of 0.7 radii (a plateau gives
    several equal peaks), best first."""
    return pts[best_per_cell_index(pts, score, r_px)]


def best_per_cell_index(pts: np.ndarray, score: np.ndarray, r_px: float) -> np.ndarray:
    """best_per_cell's picks as indices into `pts`."""
    if len(pts) <= 1:
        return np.arange(len(pts))
    order = np.argsort(-score, kind="stable")
    cell = np.floor(pts[order] / max(1.0, 0.7 * r_px)).astype(np.int64)
    _, first = np.unique(cell[:, 0] * 1_000_003 + cell[:, 1], return_index=True)
    return order[np.sort(first)]


@lru_cache(maxsize=16)
def grid_offsets(reach_px: float, spacing: float) -> np.ndarray:
    """(G, 2) the offsets of the centres tried round a point, `spacing` apart within `reach_px` (made
    once for each size: read only)."""
    steps = int(reach_px / spacing + 1e-9)
    g = np.arange(-steps, steps + 1) * spacing
    gx, gy = np.meshgrid(g, g)
    inside = gx * gx + gy * gy <= reach_px * reach_px + 1e-9
    grid = np.column_stack([gx[inside], gy[inside]])
    grid.flags.writeable = False
    return grid
