"""A second look at a faint ring: the base's outline in the brightness, and which way its arc faces.

A rim seen at 1080p is a crescent a pixel or two wide in the JPEG's colour, which keeps colour at
half the resolution of brightness: its colour measures (how much ring shows, how empty its middle
is) are weak evidence, and a ring found on them alone may be too weak to keep. Two cues that do not
come from the colour say whether a base stands there:

- the base is a disc of known radius, its top edge a brightness step against the mat wherever it
  shows: on many rays round the candidate, the steepest brightness change lies on one circle of the
  base's radius (`outline_rays`), and on no circle of another size as much (a felt's edge, a fold of
  cloth or the mat's texture have steps too, but not round one circle of that size); and the rim's
  paint ends at that edge, so the rays where the colour shows its rim have it there nearly all
  (`outline_of_base_size`);
- a body stands on the base and, seen from the camera, shows away from it (higher is farther from
  the camera's foot): the part of the rim it hides lies away from the camera, the arc that shows
  towards it (`faces_camera`).

Both are measured only for the candidates the colour finds too weak.
"""
from __future__ import annotations

import numpy as np

from vision.rim_rays import grid_offsets
from vision.rim_refine import BRIGHT_BIAS_PX, luma_rays

OUTLINE_BAND = (0.55, 1.6)     # radii: the stretch of each ray its steepest brightness change is looked for in
OUTLINE_STEP_PX = 0.25         # sample spacing along a ray
OUTLINE_REACH = 0.25           # radii: the circles tried lie within this of the candidate's centre ...
OUTLINE_GRID_PX = 0.5          # ... this far apart
OUTLINE_NEAR_PX = 1.0          # a ray's steepest change this near a circle lies on it
OUTLINE_MIN_SLOPE = 4.0        # grey levels a pixel: a ray whose steepest change is gentler has none
OTHER_SIZES = (0.75, 1.3)      # of the base's radius: the circles of other sizes the base's is set against


def outline_rays(view_bgr: np.ndarray, centres: np.ndarray, shift: np.ndarray, units: np.ndarray,
                 radius_px: float, reach: float = OUTLINE_REACH) -> np.ndarray:
    """(N, K) which of the rays (`units` (K, 2)) from each of `centres` (N, 2) have their steepest
    brightness change (one way, rising or falling) within OUTLINE_NEAR_PX of the circle of radius
    `radius_px` (and the blur's bias) centred within `reach` radii of it that the most rays do (of
    both ways, the one giving more; `reach` 0: the circle centred on it); `shift` (N, 2): the side
    wall's offset, which moves the edge out on the camera's side (vision.rims._rim_edges)."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    n, k = len(centres), len(units)
    if not n:
        return np.zeros((0, k), bool)
    wall = np.maximum(0.0, np.asarray(shift, np.float64).reshape(-1, 2) @ units.T)          # (N, K)
    rad = np.arange(OUTLINE_BAND[0] * radius_px, OUTLINE_BAND[1] * radius_px + 1e-9, OUTLINE_STEP_PX)
    s = luma_rays(view_bgr, centres, units, wall[..., None] + rad)                          # (N, K, J)
    slope = (s[..., 2:] - s[..., :-2]) / (2 * OUTLINE_STEP_PX)
    at = rad[1:-1]
    d = grid_offsets(reach * radius_px, OUTLINE_GRID_PX)
    expect = radius_px + BRIGHT_BIAS_PX + d @ units.T                                      # (G, K)
    best, best_share = np.zeros((n, k), bool), np.full(n, -1.0)
    for way in (1.0, -1.0):
        j = np.argmax(slope * way, axis=2)                                                  # (N, K)
        steep = np.take_along_axis(slope * way, j[..., None], 2)[..., 0] >= OUTLINE_MIN_SLOPE
        pos = at[j]                                                                          # the top's edge (wall off)
        on = (np.abs(pos[:, None, :] - expect[None]) <= OUTLINE_NEAR_PX) & steep[:, None, :]   # (N, G, K)
        share = on.mean(2)
        g = np.argmax(share, axis=1)
        more = share[np.arange(n), g] > best_share
        best[more] = on[np.flatnonzero(more), g[more]]
        best_share = np.maximum(best_share, share[np.arange(n), g])
    return best


def outline_share(view_bgr: np.ndarray, centres: np.ndarray, shift: np.ndarray, units: np.ndarray,
                  radius_px: float) -> np.ndarray:
    """(N,) the share of the rays outline_rays finds on one circle of radius `radius_px`."""
    return outline_rays(view_bgr, centres, shift, units, radius_px).mean(1)


def outline_of_base_size(view_bgr: np.ndarray, centres: np.ndarray, shift: np.ndarray, units: np.ndarray,
                         r_px: float, kept: np.ndarray, least: float, least_on_arc: float) -> np.ndarray:
    """(N,) bool: the base's outline shows round each centre: on at least `least` of the rays, more
    than a circle of OTHER_SIZES of the base's radius shows (a felt's edge or a body's outline is no
    circle of that size), and on at least `least_on_arc` of the rays where the colour shows its rim
    (`kept` (N, K)), on that circle or on the colour's own (centred on the candidate): the paint's
    edge against the ground is a brightness step too, on the base's circle. (The colour's circle
    and the brightness's lie apart by the side wall and the blur, differently ring to ring: of the
    too weak candidates on 60 hard photos of seeds 0, 7, 3 that the other tests keep, the nearest
    circle of the brightness's keeps 8 places of missed rims and 3 places with no rim of the side
    within 0.5 in, the colour's circle 5 and 0, either 10 and 3.)"""
    rays = outline_rays(view_bgr, centres, shift, units, r_px)
    own = rays.mean(1)
    other = np.max([outline_share(view_bgr, centres, shift, units, f * r_px) for f in OTHER_SIZES], axis=0)
    on_arc = _share_of_arc(rays, kept)
    ask = (own >= least) & (own >= other) & (on_arc < least_on_arc)
    if ask.any():
        own_circle = outline_rays(view_bgr, centres[ask], shift[ask], units, r_px, reach=0.0)
        on_arc[ask] = np.maximum(on_arc[ask], _share_of_arc(own_circle, kept[ask]))
    return (own >= least) & (own >= other) & (on_arc >= least_on_arc)


def outline_on_arc(view_bgr: np.ndarray, centres: np.ndarray, shift: np.ndarray, units: np.ndarray, r_px: float,
                   kept: np.ndarray) -> np.ndarray:
    """(N,) of the rays where the colour shows its rim (`kept` (N, K)), the share whose steepest
    brightness change lies on one circle of the base's radius (outline_rays): the paint's edge,
    which JPEG keeps sharp in the brightness when it blurs the colour, where the colour says the
    rim is (0 for a ring showing no ray)."""
    return _share_of_arc(outline_rays(view_bgr, centres, shift, units, r_px), kept)


def _share_of_arc(rays: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """(N,) of the rays `kept` (N, K), the share also in `rays` (N, K) (0 where none is kept)."""
    return (rays & kept).sum(1) / np.maximum(kept.sum(1), 1)


def faces_camera(kept: np.ndarray, units: np.ndarray, shift: np.ndarray, least_cos: float,
                 least_length: float) -> np.ndarray:
    """(N,) bool: the visible arc (the rays `kept` (N, K) showing the rim; `units` (K, 2)) lies to
    one side (the mean of its rays' unit vectors at least `least_length` long) and that side is
    within arccos(`least_cos`) of the camera's direction (the side wall's `shift` (N, 2), towards
    the camera). False where no camera direction is known (a zero shift)."""
    m = (kept[..., None] * units[None]).sum(1) / np.maximum(kept.sum(1), 1)[:, None]       # (N, 2)
    length = np.hypot(m[:, 0], m[:, 1])
    norm = np.hypot(shift[:, 0], shift[:, 1])
    cos = (m * shift).sum(1) / np.maximum(length * norm, 1e-12)
    return (norm > 1e-6) & (length >= least_length) & (cos >= least_cos)
