"""The centre of a partly hidden rim, from the base's known radius.

A leaning figure hides part of its rim, and what it leans over may be of the rim's own colour (a
cloak hanging over the rim and past it). The outer edge of the colour then follows the rim along
one arc and the cloak along another; a least-squares circle through both, with the radius free,
settles between them and the centre drifts towards the cloak or the visible arc. The radius is
known (the base's size, plus the blur's small outward bias): the centre that the most edge points
lie a radius from is the rim's, for the rim's arc is one circle of that radius and a cloak's edge
is not. The centre is then fitted to those points alone. Run on the few kept rings only.

That known radius is the top's, plus how far outside it the edge shows in the labels: the photo's
blur and JPEG's colour at half resolution decide that, not the base. Rings of one side found on one
kind of labels share it: measured on those of them showing a long arc, it is held for all of them
(`held_radius_centres`), where the frame is at least as fine as the view.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.rim_rays import solve_sym3

INLIER = 0.12                  # radii: an edge point this near the circle agrees with it
MAX_MOVE = 0.5                 # radii: a refinement never moves a centre farther than this
GRID = 0.1                     # radii: the spacing of the centres tried (the fit after finds the centre)


def consensus_centres(points: np.ndarray, valid: np.ndarray, centres: np.ndarray,
                      radius_px: float) -> tuple[np.ndarray, np.ndarray]:
    """For each ring's edge points (N, K, 2), where `valid` (N, K): the centre (N, 2), among those
    within MAX_MOVE radii of its current one (N, 2), of the circle of radius `radius_px` that the
    most of them lie on, and which do (N, K). Each edge point votes for the centres a radius from
    it (a Hough vote with the radius known, on a grid GRID radii apart); the current centre stands
    unless another holds more points."""
    r = radius_px
    steps = int(round(MAX_MOVE / GRID))
    g = np.arange(-steps, steps + 1) * GRID * r
    gx, gy = np.meshgrid(g, g)
    inside = gx * gx + gy * gy <= (MAX_MOVE * r) ** 2
    offsets = np.column_stack([gx[inside], gy[inside]])                  # (G, 2), (0, 0) among them
    here = int(np.flatnonzero((offsets == 0).all(1))[0])
    cand = centres[:, None, :] + offsets[None]                           # (N, G, 2)
    dx = points[:, None, :, 0] - cand[..., 0, None]
    dy = points[:, None, :, 1] - cand[..., 1, None]
    on = (np.abs(np.sqrt(dx * dx + dy * dy) - r) <= INLIER * r) & valid[:, None, :]   # (N, G, K)
    votes = on.sum(2)
    best = np.argmax(votes, axis=1)
    rows = np.arange(len(centres))
    best = np.where(votes[rows, best] > votes[:, here], best, here)
    return cand[rows, best], on[rows, best]


# The rim's edge as the labels show it lies a little outside the top's edge, by how much the photo
# decides (its blur, JPEG keeping the colour at half resolution, the side's colour and the labels
# the ring was found on): the first fit guesses it (rim_rays.EDGE_BIAS_PX) and lets a ring's radius
# drift from the guess, which on a short arc moves the centre towards or away from the arc. Rings
# of one side found on one kind of labels share that bias: it is measured on those of them showing
# a long arc (the median of their own radii), and each of them is fitted with it held.
HELD_ARC = 0.45                # a ring with this share of its rays on its circle measures its kind's radius
MIN_MEASURING = 2              # rings of a kind that must measure it before it is held for them
FINE_SCALE = 1.0               # frame pixels per view pixel: where the frame is coarser, its blur spans
                               # more view pixels the farther a ring is, and no one radius holds


# The base's side wall shows on the camera's side as the rim's colour in shade. The first fit takes
# the whole of it off each ray's edge (rims._rim_edges): right where the colour map takes the wall
# for the colour, too far in where it does not (the centre then sits off towards the far side).
# A side's labels take some of a wall and not the rest (its shade falls under their brightness
# floor or not, the blur and the mat beyond decide), so where their colour ends there lies the
# top's edge or as much as the wall's width further out: the refined centre takes the middle,
# half the wall off, which halves the worst offset. The likelihood, graded by brightness and
# judged against each ring's own peak, takes a wall for the colour nearly whole: the whole of it
# stays off. (On 72 hard photos, with the whole wall off: the labels' rings sat 0.25-0.6 px
# from the camera on average, the likelihood's 0.0-0.2 px.)
WALL_SHOWN_LABELS = 0.5        # the share of the wall's width taken as showing in a side's labels
WALL_SHOWN_LIKELIHOOD = 1.0    # and in its likelihood


def wall_shown_points(points: np.ndarray, shift: np.ndarray, units: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """Edge points (N, K, 2) found with the whole side wall taken off (`shift` (N, 2): the wall's
    offset, rims._rim_edges), moved out again by the share of the wall not showing as the colour
    (`shown` (N,): the share that does)."""
    wall = np.maximum(0.0, shift @ units.T)                       # (N, K)
    return points + ((1.0 - np.asarray(shown, np.float64))[:, None] * wall)[..., None] * units[None]


def free_circles(points: np.ndarray, weights: np.ndarray, start: np.ndarray,
                 iterations: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """(centres (N, 2), radii (N,)): the circles through the weighted points (N, K, 2), radius free
    (Gauss-Newton from `start`, each step's 3 x 3 normal equations solved in closed form)."""
    c = np.array(start, np.float64)
    px, py, w = points[..., 0], points[..., 1], weights
    sw = np.maximum(w.sum(1), 1e-9)
    r = (np.hypot(px - c[:, None, 0], py - c[:, None, 1]) * w).sum(1) / sw
    for _ in range(iterations):
        ux, uy, e, wx, wy = _linearised(px, py, w, c, r)
        # J = -(ux, uy, 1): (J^T W J) step = -J^T W e
        step = solve_sym3((wx * ux).sum(1), (wx * uy).sum(1), wx.sum(1), (wy * uy).sum(1), wy.sum(1), sw,
                          (wx * e).sum(1), (wy * e).sum(1), (w * e).sum(1))
        c = c + np.stack(step[:2], 1)
        r = r + step[2]
    return c, r


def _linearised(px, py, w, c, radius):
    """The fit's terms about centres `c` (N, 2) and radii (N,): each point's unit vector from the
    centre (ux, uy), its distance off the circle `e`, and the weighted unit vectors (wx, wy)."""
    dx, dy = px - c[:, None, 0], py - c[:, None, 1]
    dist = np.maximum(np.hypot(dx, dy), 1e-9)
    ux, uy = dx / dist, dy / dist
    return ux, uy, dist - radius[:, None], w * ux, w * uy


def circle_centres(points: np.ndarray, weights: np.ndarray, start: np.ndarray, radius: np.ndarray,
                   iterations: int = 3) -> np.ndarray:
    """(N, 2) centres of the circles of the given radii (N,) through the weighted points (N, K, 2)."""
    c = np.array(start, np.float64)
    px, py, w = points[..., 0], points[..., 1], weights
    for _ in range(iterations):
        ux, uy, e, wx, wy = _linearised(px, py, w, c, radius)
        a00, a01, a11 = (wx * ux).sum(1), (wx * uy).sum(1), (wy * uy).sum(1)
        b0, b1 = (wx * e).sum(1), (wy * e).sum(1)
        det = a00 * a11 - a01 * a01
        inv = 1.0 / np.where(det > 1e-12, det, np.inf)
        c = c + np.stack([(a11 * b0 - a01 * b1) * inv, (a00 * b1 - a01 * b0) * inv], 1)
    return c


def held_radius_centres(points: np.ndarray, valid: np.ndarray, agree: np.ndarray, start: np.ndarray,
                        r_px: float, kinds: np.ndarray, fine: np.ndarray):
    """Rings' centres with the radius of their kind held: (centres (N, 2), the points agreeing
    (N, K), which rings were so fitted (N,)).

    `points`, `valid` (N, K): the rings' edge points; `agree`: those on the circle about `start`
    (consensus_centres); `kinds` (N,): rings of one kind share a radius (a side, the labels found
    on); `fine` (N,): the frame is at least as fine as the view there (only those measure and are
    fitted). A kind with fewer than MIN_MEASURING rings showing a long arc keeps the first fit."""
    held = np.zeros(len(start), bool)
    radius = np.full(len(start), np.nan)
    weights = agree.astype(np.float64)
    measuring = fine & (agree.mean(1) >= HELD_ARC)
    if np.count_nonzero(measuring) >= MIN_MEASURING:
        _, own = free_circles(points[measuring], weights[measuring], start[measuring])
        for k in np.unique(kinds[measuring]):
            of_kind = kinds[measuring] == k
            if np.count_nonzero(of_kind) >= MIN_MEASURING:
                these = fine & (kinds == k)
                radius[these] = np.clip(np.median(own[of_kind]), 0.95 * r_px, 1.15 * r_px)
                held |= these
    centres = np.array(start, np.float64)
    if not held.any():
        return centres, agree, held
    pts, ok, c = points[held], valid[held], start[held]
    on = agree[held]
    for _ in range(2):
        # the circle through the points that agree, then again through those near it
        c = circle_centres(pts, on.astype(np.float64), c, radius[held])
        off = np.hypot(pts[..., 0] - c[:, None, 0], pts[..., 1] - c[:, None, 1]) - radius[held][:, None]
        on = ok & (np.abs(off) <= INLIER * r_px)
    centres[held] = c
    agree = agree.copy()
    agree[held] = on
    return centres, agree, held


def frame_scale_at(pose, view, height_in: float):
    """For a top view of the table plane: frame pixels per view pixel at view points (N, 2) where
    a base's top shows (`pose`: vision.height.CameraPose; the top `height_in` up)."""
    H = pose.plane_homography(height_in)

    def scale(c_view: np.ndarray) -> np.ndarray:
        xy = np.asarray(view.to_table(np.asarray(c_view, np.float64).reshape(-1, 2)), np.float64)
        xy = pose.lift(xy, height_in)
        d = 1.0 / view.ppi
        px = cv2.perspectiveTransform(np.concatenate([xy, xy + (d, 0), xy + (0, d)]).reshape(-1, 1, 2), H)
        px = px.reshape(3, -1, 2)
        a, b = px[1] - px[0], px[2] - px[0]
        return np.sqrt(np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]))
    return scale


# A base standing in felt of a hue near its rim's (a blue base in blue water): the side's labels
# take the felt's mottling for the rim about as readily as the rim, the colours being judged against
# the felts of the whole table. Against the felt just round the base the rim still shows: it lies
# off that felt's colour towards the side's (darker and bluer than water, its wall darker still),
# where the felt's mottling scatters every way.
FELT_BAND = (1.3, 1.8)         # radii: the band round a ring the felt's colour is taken from (its median)


def rim_over_felt(view_bgr: np.ndarray, centres: np.ndarray, r_px: float, rim_rgbs, wb=None) -> np.ndarray:
    """(H, W) float32: round each of `centres` (N, 2) (out to FELT_BAND's outer radius), how far each
    pixel's colour lies from the felt's round it towards that ring's side's `rim_rgbs` (N, RGB, white
    balanced by `wb`), in Lab: 0 the felt, 1 the rim's colour (clipped to 0..1); 0 elsewhere."""
    h, w = view_bgr.shape[:2]
    out = np.zeros((h, w), np.float32)
    reach = int(np.ceil(FELT_BAND[1] * r_px)) + 3
    for (cx, cy), rgb in zip(np.asarray(centres, np.float64), rim_rgbs):
        if not (np.isfinite(cx) and np.isfinite(cy)):
            continue
        x0, y0 = max(0, int(cx) - reach), max(0, int(cy) - reach)
        x1, y1 = min(w, int(cx) + reach + 1), min(h, int(cy) + reach + 1)
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue
        crop = view_bgr[y0:y1, x0:x1].astype(np.float32)
        if wb is not None:
            crop = np.clip(wb.apply(crop), 0, 255)
        lab = cv2.cvtColor(crop * np.float32(1 / 255), cv2.COLOR_BGR2Lab)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        d = np.hypot(xx - cx, yy - cy)
        band = (d >= FELT_BAND[0] * r_px) & (d <= FELT_BAND[1] * r_px)
        if np.count_nonzero(band) < 8:
            continue
        felt = np.median(lab[band], axis=0)
        rim = cv2.cvtColor(np.array([[tuple(rgb)[::-1]]], np.float32) * np.float32(1 / 255), cv2.COLOR_BGR2Lab)[0, 0]
        toward = rim - felt
        share = ((lab - felt) @ toward) / max(float(toward @ toward), 1e-6)
        out[y0:y1, x0:x1] = np.maximum(out[y0:y1, x0:x1], np.clip(share, 0.0, 1.0))
    return out


# At 1080p the JPEG keeps the colour at half resolution: a rim's colour is smeared a view pixel or
# two into the mat, and a circle through its edge strays as far. The brightness is kept at full
# resolution: the rim's outer edge against the mat (or the foot of its side wall, on the camera's
# side) is a step of it. On the rays where the colour says the rim's edge lies (those agreeing
# with its circle), the brightness's slope along the ray, signed towards the mat's level, is summed
# round each circle of the base's radius near the colour's: the circle the rim's step runs along
# gathers it on every ray at once, where the mat's texture or a fold of cloak adds up on a ray or
# two. Each ray's steepest point near that circle is then taken at subpixel precision and the circle
# of the base's radius fitted to them. Where the rim is about as bright as the mat the step is
# weak, and the mat's texture moves it: the two centres are weighed by how steep the step is.
BRIGHT_REACH = 0.25            # radii: the step is looked for this far either side of the colour's circle
BRIGHT_STEP_PX = 0.25          # sample spacing along a ray
BRIGHT_GRID_PX = 0.5           # the centres tried lie this far apart (the steps near the best are fitted)
BRIGHT_BIAS_PX = 0.3           # the steepest point of the step lies this far outside the top's edge, unless
                               # the rings showing a long arc measure it (0-0.6 px)
BRIGHT_MIN_STEP = 6.0          # grey levels: a ray whose levels differ less either side has no step
BRIGHT_MIN_RAYS = 6            # rays with a step that a ring needs for its steps to count
STEP_WAY_PX = (0.25, 1.0)      # the levels this far either side of the colour's edge say which way a ray steps
BRIGHT_NEAR_PX = 1.0           # a ray's steepest point is taken this near the circle that gathers most
BRIGHT_EVEN_SLOPE = 20.0       # grey levels a pixel: the mean slope at which the step's centre and the
                               # colour's are trusted alike (steeper: the step's more)
BRIGHT_EVEN_SLOPE_IN_FELT = 10.0   # and for a ring in felt of its own hue, whose colour's edge is as much the
                                   # felt's mottling as the rim (on 24 hard photos of seeds 0, 7, 3 against 20:
                                   # p95 at 1080p 0.097 / 0.112 / 0.101 -> 0.090 / 0.110 / 0.096 in, at 2160p
                                   # 0.047 / 0.049 / 0.032 -> 0.045 / 0.040 / 0.032; 5: 0.091 / 0.112 / 0.093,
                                   # 0.045 / 0.041 / 0.038)
LUMA_BGR = np.array([0.114, 0.587, 0.299], np.float32)   # brightness from B, G, R (cv2's grey's weights)


def luma_rays(view_bgr: np.ndarray, centres: np.ndarray, units: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """(N, K, J) the view's (uint8 BGR) brightness along rays `units` (K, 2) from `centres` (N, 2)
    at `radii` (N, K, J) pixels out (its colour sampled bilinear, then weighed as cv2's grey)."""
    n, k = len(centres), len(units)
    x = (centres[:, None, None, 0] + units[None, :, None, 0] * radii).astype(np.float32).reshape(n * k, -1)
    y = (centres[:, None, None, 1] + units[None, :, None, 1] * radii).astype(np.float32).reshape(n * k, -1)
    # (remap's maps are at most SHRT_MAX rows)
    parts = [cv2.remap(view_bgr, x[i:i + 32000], y[i:i + 32000], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
             for i in range(0, n * k, 32000)]
    bgr = parts[0] if len(parts) == 1 else np.concatenate(parts)     # (one part, as a rule: no copy of it)
    return cv2.transform(bgr.astype(np.float32), LUMA_BGR[None]).reshape(n, k, -1)


def steepest_points(slope: np.ndarray, offs: np.ndarray, along: np.ndarray, expect: np.ndarray,
                    near_px: float, step_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Each ray's steepest point near a circle, to a fraction of a sample (a parabola through three):
    `slope` (N, K, J) at `offs` (J,) from `expect` (N, K) pixels out, the circle `along` (N, K) from
    it; only samples within `near_px` of it count, `step_px` apart. -> (N, K) how far out the
    point lies, and (N, K) the slope there."""
    near = np.abs(offs[None, None, :] - along[..., None]) <= near_px
    j = np.clip(np.argmax(np.where(near, slope, -1.0), axis=2), 1, len(offs) - 2)
    g0, g1, g2 = (np.take_along_axis(slope, (j + o)[..., None], 2)[..., 0] for o in (-1, 0, 1))
    curve = g0 - 2 * g1 + g2
    frac = np.where(curve < -1e-9, 0.5 * (g0 - g2) / np.where(curve < -1e-9, curve, -1.0), 0.0)
    return expect + offs[j] + np.clip(frac, -0.5, 0.5) * step_px, g1


def brightness_centres(view_bgr: np.ndarray, centres: np.ndarray, shift: np.ndarray, units: np.ndarray,
                       agree: np.ndarray, r_px: float, in_felt: np.ndarray | None = None) -> np.ndarray:
    """(N, 2) the rings' centres (`centres` (N, 2), from the colour) moved towards the circle of the
    base's radius `r_px` that the brightness's step at their rims' outer edge runs along, by how
    steep that step is. `view_bgr`: the view (uint8 BGR); `shift` (N, 2): the side wall's offset
    (rims._rim_edges); `agree` (N, K): the rays (`units` (K, 2)) whose colour edge lies on the
    circle. `in_felt` (N,): the rings standing in felt of their own hue, whose step is trusted at
    BRIGHT_EVEN_SLOPE_IN_FELT rather than BRIGHT_EVEN_SLOPE (None: none). A centre that is not finite
    stays as it is."""
    n = agree.shape[0]
    centres = np.asarray(centres, np.float64)
    finite = np.isfinite(centres).all(1)
    if not finite.any():
        return centres.copy()
    c = np.where(finite[:, None], centres, 0.0)
    wall = np.maximum(0.0, shift @ units.T)                              # (N, K)
    reach_px = BRIGHT_REACH * r_px
    # samples along each ray from reach_px inside the expected step to reach_px outside it (and one
    # more each end for the slope)
    offs = np.arange(-reach_px - BRIGHT_STEP_PX, reach_px + BRIGHT_STEP_PX + 1e-9, BRIGHT_STEP_PX)
    expect = r_px + BRIGHT_BIAS_PX + wall                                # (N, K): where the step should be
    rad = expect[..., None] + offs
    s = luma_rays(view_bgr, c, units, rad)
    so = offs[1:-1]                                                      # where the slope is known
    inner, outer = s[..., :3].mean(2), s[..., -3:].mean(2)
    # Which way a ray's step goes is read right at the colour's edge: a few pixels either side, a
    # pale top (sand, snow) inside a dark band lies brighter than the mat, though the band's own
    # step up to the mat goes the other way (the steepest step was then the top's edge).
    lo, hi = STEP_WAY_PX
    way = np.sign(s[..., (offs >= lo) & (offs <= hi)].mean(2) - s[..., (offs >= -hi) & (offs <= -lo)].mean(2))
    g = np.maximum((s[..., 2:] - s[..., :-2]) * (way / (2 * BRIGHT_STEP_PX))[..., None], 0.0)
    # The rim is one paint and the mat round it one level: the step goes the same way on every ray
    # of a ring (the way most of its steps go, by their height). A ray whose levels go the other way
    # meets something else there (the body, the mat's texture).
    use = agree & finite[:, None] & (np.abs(outer - inner) >= BRIGHT_MIN_STEP)
    ring_sign = np.sign(np.where(use, way * np.abs(outer - inner), 0.0).sum(1))
    use &= way == ring_sign[:, None]
    # the centres tried (offsets d within reach_px; ray k's step then lies d . u_k further out),
    # each gathering the slope at its circle on every ray: one product with a fixed weight matrix
    d, along, weights = _gather_weights(reach_px, units, len(so))
    # (numpy's own loop, not BLAS: a small product, which a BLAS's threads only slow on a busy machine)
    gathered = np.einsum("nj,jg->ng", np.where(use[..., None], g, 0.0).reshape(n, -1), weights, optimize=False)
    best = np.argmax(gathered, axis=1)
    n_use = use.sum(1)
    # each ray's steepest point near that circle, to a fraction of a sample (a parabola through three)
    step_at, g1 = steepest_points(g, so, along[best], expect, BRIGHT_NEAR_PX, BRIGHT_STEP_PX)
    step_at = step_at - wall                                             # the step, the wall off
    # each step weighed by its steepness squared (its place is as uncertain as the mat's noise over it)
    w = np.where(use, g1, 0.0) ** 2
    radius = np.full(n, float(r_px))

    def fit(bias):
        points = c[:, None, :] + (step_at - bias)[..., None] * units[None]
        centre = circle_centres(points, w, c + d[best], radius, iterations=2)
        off = np.hypot(points[..., 0] - centre[:, None, 0], points[..., 1] - centre[:, None, 1]) - r_px
        kept = np.where(np.abs(off) <= BRIGHT_NEAR_PX, w, 0.0)
        return circle_centres(points, kept, centre, radius, iterations=2), points, kept

    fitted, points, kept = fit(BRIGHT_BIAS_PX)
    # How far out the step shows the photo decides (its blur, how its pixels cover an edge): the
    # rings showing a long arc measure it (their own radius), and all are fitted with it.
    measuring = finite & ((kept > 0).mean(1) >= HELD_ARC)
    if np.count_nonzero(measuring) >= MIN_MEASURING:
        _, own = free_circles(points[measuring], kept[measuring], fitted[measuring])
        if np.isfinite(own).any():
            bias = BRIGHT_BIAS_PX + float(np.clip(np.nanmedian(own) - r_px, -BRIGHT_BIAS_PX, BRIGHT_BIAS_PX))
            fitted, _, _ = fit(bias)
    steep2 = w.sum(1) / np.maximum(n_use, 1)                            # the step's mean square steepness
    ok = (finite & (n_use >= BRIGHT_MIN_RAYS) & np.isfinite(fitted).all(1)
          & (np.hypot(*(fitted - c).T) <= reach_px))
    even = BRIGHT_EVEN_SLOPE if in_felt is None else np.where(in_felt, BRIGHT_EVEN_SLOPE_IN_FELT, BRIGHT_EVEN_SLOPE)
    weight = (steep2 / (steep2 + even * even))[:, None]
    return np.where(ok[:, None], c + weight * (fitted - c), centres)


_GATHER: dict = {}


def _gather_weights(reach_px: float, units: np.ndarray, n_samples: int):
    """The centres tried, offsets (G, 2) within `reach_px` BRIGHT_GRID_PX apart; how far out each
    moves each ray's step (G, K); and the (K * J, G) float32 weights that sum the slope sampled along
    the rays (J samples from -reach_px, BRIGHT_STEP_PX apart) at each one's circle (linear
    interpolation). Made once for each base size and set of rays."""
    key = (round(float(reach_px), 6), units.shape[0], n_samples, units.tobytes())
    if key not in _GATHER:
        steps = int(round(reach_px / BRIGHT_GRID_PX))
        grid = np.arange(-steps, steps + 1) * BRIGHT_GRID_PX
        gx, gy = np.meshgrid(grid, grid)
        inside = gx * gx + gy * gy <= reach_px * reach_px
        d = np.column_stack([gx[inside], gy[inside]])
        along = d @ units.T
        pos = (along + reach_px) / BRIGHT_STEP_PX
        i0 = np.clip(np.floor(pos).astype(np.int64), 0, n_samples - 2)
        f = np.clip(pos - i0, 0.0, 1.0)
        k = units.shape[0]
        w = np.zeros((len(d), k, n_samples), np.float32)
        g_idx, k_idx = np.meshgrid(np.arange(len(d)), np.arange(k), indexing="ij")
        np.add.at(w, (g_idx, k_idx, i0), 1 - f)
        np.add.at(w, (g_idx, k_idx, i0 + 1), f)
        _GATHER[key] = (d, along, np.ascontiguousarray(w.reshape(len(d), -1).T))
    return _GATHER[key]


# A cloak of the rim's own colour hanging from the body shows in the view away from the camera
# (a thing up off the table shows farther from the camera's foot the higher it is): a ring the
# colour fits through the rim and the cloak at once sits off the base that way, and may be surer
# than the ring of the rim alone (more of its circle in colour), so that one-per-base keeps it.
# The base's outer edge is a brightness step round the circle of the base's radius; the cloak's
# outline is no such circle. Of one side's rings for one base, one lying towards the camera from
# the kept one whose circle gathers clearly more step is the base's. (On 60 hard photos each of
# seeds 0, 7, 3: 6 rims moved nearer their truth (0.07-0.26 in off -> 0.02-0.07), 1 farther
# (0.03 -> 0.08); a gain of 1.2 moved one more farther, 1.0 or a cone of 72 degrees several.)
CLOAK_STEP_GAIN = 1.5          # the other ring's circle gathers this many times the kept one's step
CLOAK_AWAY_COS = 0.5           # the kept ring lies off it within 60 degrees of away from the camera
CLOAK_MIN_OFF = 0.1            # radii: and at least this far (nearer: one ring fitted twice)
CLOAK_NEAR = 1.0               # radii: the rings this near a kept one are the same base's
STEP_SIDE_PX = 3.0             # the levels this far either side of the edge say which way the step goes


def outer_steps(view_bgr: np.ndarray, centres: np.ndarray, shift: np.ndarray, units: np.ndarray,
                r_px: float) -> np.ndarray:
    """(N,) grey levels a pixel: the brightness's slope across the circle of the base's radius
    about each of `centres` (N, 2) (its outer edge: r_px + BRIGHT_BIAS_PX, and the side wall `shift`
    (N, 2) out on the camera's side), on every ray (`units` (K, 2)), signed the way most of the
    ring's levels go from inside to out and clipped at 0, averaged over the rays."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    if not len(centres):
        return np.zeros(0)
    wall = np.maximum(0.0, np.asarray(shift, np.float64).reshape(-1, 2) @ units.T)
    offs = np.array([-STEP_SIDE_PX, -BRIGHT_STEP_PX, BRIGHT_STEP_PX, STEP_SIDE_PX])
    rad = (r_px + BRIGHT_BIAS_PX + wall)[..., None] + offs
    s = luma_rays(view_bgr, centres, units, rad)
    slope = (s[..., 2] - s[..., 1]) / (2 * BRIGHT_STEP_PX)
    way = np.sign((s[..., 3] - s[..., 0]).sum(1))
    return np.maximum(slope * way[:, None], 0.0).mean(1)


def off_cloaks(view_bgr: np.ndarray, kept: np.ndarray, kept_sides: np.ndarray, kept_shift: np.ndarray,
               rings: np.ndarray, ring_sides: np.ndarray, ring_shift: np.ndarray, ring_weights: np.ndarray,
               units: np.ndarray, r_px: float, same_px: float) -> np.ndarray:
    """(M, 2) the kept rings' centres (`kept` (M, 2), one a base, of sides `kept_sides`), each moved
    onto the base's ring where it is a cloak of its side's colour: among all the rings found
    (`rings` (N, 2), `ring_sides`), those of its side within CLOAK_NEAR radii, the one whose circle
    gathers the most brightness step at its outer edge (outer_steps) lies towards the camera from
    it (`kept_shift` (M, 2): the side wall's offset, towards the camera) and gathers CLOAK_STEP_GAIN
    times its step. It then takes the mean of the rings within `same_px` of that one, weighted by
    `ring_weights` (N,), as one-per-base does."""
    kept = np.asarray(kept, np.float64).reshape(-1, 2)
    out = kept.copy()
    rings = np.asarray(rings, np.float64).reshape(-1, 2)
    if len(rings) < 2 or not len(kept):
        return out
    groups = [(j, same) for j in range(len(kept))
              if len(same := np.flatnonzero((ring_sides == kept_sides[j])
                                            & (np.hypot(*(rings - kept[j]).T) < CLOAK_NEAR * r_px))) >= 2]
    if not groups:
        return out
    # (each ring's step is its own: only the rings a kept one may move onto are measured)
    need = np.unique(np.concatenate([same for _, same in groups]))
    ring_step = np.zeros(len(rings))
    ring_step[need] = outer_steps(view_bgr, rings[need], np.asarray(ring_shift, np.float64).reshape(-1, 2)[need],
                                  units, r_px)
    own_step = None
    for j, same in groups:
        best = same[np.argmax(ring_step[same])]
        off = kept[j] - rings[best]
        dist = float(np.hypot(*off))
        towards = np.asarray(kept_shift[j], np.float64)
        away = -float(off @ towards) / max(float(np.hypot(*towards)), 1e-9)
        if dist < CLOAK_MIN_OFF * r_px or away < CLOAK_AWAY_COS * dist:
            continue
        if own_step is None:
            own_step = outer_steps(view_bgr, kept, kept_shift, units, r_px)
        if ring_step[best] < CLOAK_STEP_GAIN * own_step[j]:
            continue
        group = same[np.hypot(*(rings[same] - rings[best]).T) < same_px]
        w = np.asarray(ring_weights, np.float64)[group]
        out[j] = (rings[group] * w[:, None]).sum(0) / w.sum() if w.sum() > 0 else rings[best]
    return out
