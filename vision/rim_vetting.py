"""Is this ring a base? The tests that tell a base's rim from a look-alike of its colour.

vision.rims finds candidate rings and measures them (how much of a ring of the base's size shows,
how round and clean it is); the candidates that pass are judged here against what else shows a
side's colour on a table. A real base is a ring of the base's size at table level, its middle the
base's top and the figure's body:

- a mug's rim or a felt's curve: a circle of another size (`free_radius`);
- a die (0.63") or a blob: a circle smaller than a base (`radius`);
- a die, or cloth on a body: colour filling the middle, not a ring round a body (`middle`, `hollow`);
  however clean and round the ring, a die's colour fills the middle where a figure's feet stand
  and runs on unbroken out to its edge, with the mat clear round it (label_fill);
- felt or a book cover of a similar hue: the colour goes on outside the ring (`outer`), or, on the
  labels, fills its middle and the band round it alike (a ring the likelihood alone shows in felt
  the labels call the side's colour);
- a mug or a book across the table's edge: its colour runs off the view, whose edge then makes
  part of the ring's outline (runs_off_view);
- cloth of one side's colour on a figure of the other: a ring inside a rim of another colour
  (`other`), or with such a rim beneath it, nearer the camera by what the cloth's height above
  the base shows there (rim_beneath, from the pose's wall shift); of two sides' rings in one
  place, or overlapping one behind the other, the one whose rim shows less on its side away from
  the other (arc_direction: the body leans over its base's rim and the cloth hangs on it), else
  the one farther from the camera with more of the other's colour outside it, the less sure when
  those two disagree (_cloth_over_rims); a rim called cloth by the first two tests but showing
  away from a ring of another colour is the base, and that ring the cloth (_rims_under_cloth);
- a phone's case: a hollow frame of the colour, wider than bases side by side (frame_span), or a
  ring whose middle is a large flat dark patch, the screen (or a mug's coffee: flat_middle), or
  whose disc the screen's straight edge crosses (flat_beside);
- water felt's bluer mottling round a blue side's "ring", or the edge of a cloak of its hue up on a
  body standing in it: its middle is the felt (felt_middle), joined to the felt round it through the
  gaps of its arc (felt_through);
- a mat's or felt's own mottling (wood grain under warm light, water felt) making a faint ring of a
  side's hue: its middle is the colour of what lies round it, where a base's holds its top and the
  figure's feet (middle_contrast); or whose band is no more unlike the ground round it in hue than
  that ground is itself, a felt's edge too: a rim is paint unlike what it stands on (band_contrast).

One entry, `vet_hits`: each candidate comes back with reason "ring" when it is a base, else with
why it is not. The tests look at small windows round each candidate only.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from typing import TYPE_CHECKING, Callable, Sequence

import cv2
import numpy as np

from vision.colour import median_rows
from vision.rim_rays import ray_units

if TYPE_CHECKING:
    from vision.rims import RimHit

MIN_FREE_R, MAX_FREE_R = 0.55, 1.6  # the visible arc's own radius, in the base's radii
MIN_RADIUS = 0.93             # the fitted circle's radius, in the base's: a rim's edge shows at the
                               # base's radius or a little out (blur); a die's corners at 0.89 of it
MAX_INNER = 0.45               # share of the middle (within 0.45 radii) that may show the colour
MAX_FOOTED = 0.75              # ... even round a strong rim, on its own map or on the labels: a
                               # figure's feet stand in a base's middle (two legs 0.32" across either
                               # side of its centre cover about half of it), a die's top fills it
MAX_SOLID = 0.7                # and the share of the band on out to the rim (0.45-0.7 radii) with it:
                               # cloth of the side's colour hanging over a base's middle shows apart
                               # from its rim, the base's top or the feet between; a die's top does not
                               # (a 16 mm die in water fills 0.61-0.75 of that band; at 0.6, on 60 hard
                               # photos of 14 seeds, 2 such dice went and 6 painted-top red bases with them)
MAX_AROUND = 0.1               # and a die stands clear on the mat: the colour (on the labels) stops at
                               # its edge, not on in the band 1.35-1.8 radii out (a mat of the side's
                               # hue, round a blurred rim, does not)
MIN_SOLID_RESIDUAL = 0.045    # in radii: ... and its outline fits the circle no closer than this (a die's
                               # square top, its corners at 0.89 of a base's radius and its sides' middles at
                               # 0.63, blurred to a circle, leaves 0.053-0.12 of it; the round top of a base
                               # painted all over, its small body leaving most of it in view, 0.030-0.041)
MIDDLE_IN, SOLID_OUT, AROUND_IN, AROUND_OUT = 0.45, 0.7, 1.35, 1.8
MIN_HOLLOW = 0.6               # along the rays showing the rim, the share of 0.1-0.4 radii without it
MAX_OUTER = 0.22               # share of the band 1.35-1.8 radii out that may show it
STRONG_COVERAGE = 0.45         # a rim this complete, clean and round may have colour in its middle
STRONG_CLEAN = 0.85
STRONG_RESIDUAL = 0.6          # of the largest residual a ring may have
MAX_OTHER = 0.28               # share of the rays meeting another side's colour just outside the ring,
CLOTH_SURE = 0.6               # above which a ring less confident than this is cloth on a body
                               # (MAX_OTHER at 0.2, on 60 hard photos of 14 seeds: 19 phantoms fewer, most
                               # of them cloaks, and 69 rims fewer, bases beside another side's figure)
MAX_FRAME_SPAN = 2.6 * 2       # in radii: a hollow piece of the colour wider and deeper than this is
                               # a frame (a phone's case), not bases side by side
FRAME_FILL = 0.25              # "hollow": colour on at most this share of its bounding box


def is_strong(coverage, clean, residual_px, max_residual_px: float):
    """A clean, round rim round most of the ring (scalars or arrays alike): it may have cloth of the
    side's colour on its body."""
    return ((np.asarray(coverage) >= STRONG_COVERAGE) & (np.asarray(clean) >= STRONG_CLEAN)
            & (np.asarray(residual_px) <= STRONG_RESIDUAL * max_residual_px))


def vet_hits(hits: Sequence[RimHit], *, strict: np.ndarray, loose: np.ndarray, r_px: float,
             max_residual_px: float, n_sides: int | None = None,
             wall_shift_px: Callable[[np.ndarray], np.ndarray] | None = None, wall_height_in: float = 0.0,
             view_bgr: np.ndarray | None = None,
             similar_felt: Sequence[Sequence[int]] = (),
             left_out_rims: Sequence[tuple[np.ndarray, int]] = ()) -> list[RimHit]:
    """Each candidate ring judged against the look-alikes, in order: those that passed vision.rims's
    shape tests (reason "ring") keep it only if no test here finds a look-alike; the others come
    back as they are.

    `strict`, `loose`: the (H, W) int side labels the candidates were found on (a hit with `by_hue`
    on the loose ones), -1 for none (strict labels from `n_sides` up are terrain), the same view
    pixels as the hits' `xy_view`. `r_px`: a base's radius in view pixels; `max_residual_px`: the
    largest RMS residual a ring may have. `wall_shift_px(centres (N, 2))`: where a base's bottom
    shows relative to its top, `wall_height_in` up, towards the camera (None: looking straight down). `view_bgr`: the
    view itself (uint8), for what lies in a ring's middle. `similar_felt[k]`: the strict labels of
    the felts of a hue near side k's (similar_felts). `left_out_rims`: (centre (2,), side) of
    candidates the shape tests left out before they were measured (not in `hits`), for the cloth
    test as the left-out `hits` are (_rims_under_cloth)."""
    out: list[RimHit] = []
    cloth_called: set[int] = set()
    faint: set[int] = set()
    bright = None
    for hit in hits:
        if hit.reason == "ring":
            # a clean, round rim round most of the ring is a base whatever lies in its middle (a
            # dark body near the table's dark edge), unless a phone's screen lies beside it
            strong = bool(is_strong(hit.coverage, hit.clean, hit.residual_px, max_residual_px))
            is_faint = not strong and hit.confidence < FAINT_RING
            if is_faint:
                faint.add(len(out))
            reason = _look_alike(hit, strict, loose, r_px, strong)
            if not reason and view_bgr is not None:
                if bright is None:
                    bright = brightest_tenth(view_bgr)
                # (a strong rim's dark middle may flood out through its gap with its body; the screen's
                # straight edge through the disc tells a phone even from a strong ring: a case's rounded
                # corner round the screen's is as clean and round as a rim)
                area = flat_middle(view_bgr, hit.xy_view, r_px, bright)[0] if not strong else 0.0
                if area > MAX_FLAT_MIDDLE:
                    reason = (f"the edge of something large and dark ({area:.1f} bases of one flat colour in its middle): "
                              f"a phone's screen, a mug's inside")
                else:
                    area, solid = flat_beside(view_bgr, hit.xy_view, r_px, bright, least=MAX_FLAT_MIDDLE)
                    if area > MAX_FLAT_MIDDLE and solid >= MIN_SCREEN_SOLIDITY:
                        reason = (f"beside something large, dark and straight-edged ({area:.1f} bases of one flat "
                                  f"colour, {solid:.2f} of its hull, through its disc): a phone's screen")
            if not reason and view_bgr is not None and is_faint:
                contrast = middle_contrast(view_bgr, hit.xy_view, r_px)
                if contrast < MIN_MIDDLE_CONTRAST:
                    reason = (f"a faint ring ({hit.confidence:.2f} sure) whose middle is the colour of the mat or felt "
                              f"round it ({contrast:.0f} Lab units off it), not a base's top and a body: the "
                              f"texture's own mottling")
                else:
                    stands = band_contrast(view_bgr, hit.xy_view, r_px)
                    if stands < MIN_BAND_CONTRAST:
                        reason = (f"a faint ring ({hit.confidence:.2f} sure) whose colour stands out of the ground round "
                                  f"it by less than can be seen ({stands:.1f} units of hue): the mat's or felt's own "
                                  f"colours (grain, a felt's edge), not a rim painted on a base")
            if not reason and hit.side_index < len(similar_felt) and len(similar_felt[hit.side_index]):
                felt = felt_middle(strict, hit.xy_view, r_px, similar_felt[hit.side_index])
                if felt >= MIN_FELT_MIDDLE:
                    reason = f"felt of a similar hue, not a body, fills its middle ({felt:.2f} of it)"
                else:
                    felt, like = felt_through(strict, hit.xy_view, r_px, similar_felt[hit.side_index], view_bgr)
                    if felt > MAX_FELT_THROUGH and like >= 0.5:
                        reason = (f"felt of a similar hue runs on from round it into its middle ({felt:.2f} of it, "
                                  f"{like:.2f} of that the felt's colour): the felt seen through it, not a base's "
                                  f"top and feet")
            if not reason:
                # the cloth tests last: the only ones a rim showing away from the other ring overrules
                if hit.other >= MAX_OTHER and hit.confidence < CLOTH_SURE:
                    reason = f"cloth inside a rim of another colour ({hit.other:.2f} of the rays meet it)"
                else:
                    reason = _up_on_a_body(hit, strict, loose, r_px, n_sides, wall_shift_px, wall_height_in)
                if reason:
                    cloth_called.add(len(out))
            if reason:
                hit = dataclasses.replace(hit, reason=reason)
        out.append(hit)
    left_out = {j for j, h in enumerate(hits) if h.reason != "ring" and np.isfinite(h.xy_view).all()}
    n = len(out)
    left_out |= set(range(n, n + len(left_out_rims)))
    shown = [_LeftOut(np.asarray(xy, np.float64), int(side)) for xy, side in left_out_rims]
    every = out + shown        # (the cloth tests change only reasons: places and sides stay)
    arcs: dict[int, np.ndarray] = {}

    def arc(k: int) -> np.ndarray:      # arc_direction of every[k], read once for both cloth tests
        if k not in arcs:
            arcs[k] = arc_direction(strict, loose, every[k].side_index, every[k].xy_view, r_px)
        return arcs[k]
    out = _cloth_over_rims(out, r_px, wall_shift_px, arc)
    return _rims_under_cloth(out + shown, cloth_called, r_px, wall_shift_px, arc, faint, left_out)[:n]


@dataclasses.dataclass(frozen=True)
class _LeftOut:
    """A candidate the shape tests left out unmeasured: where it is and whose colour, all the cloth
    test reads of it."""
    xy_view: np.ndarray
    side_index: int
    reason: str = "left out by the shape tests"
    pale: bool = False         # (vision.rims hands on no pale ring as left out: RimHit.pale)


MAX_SAME_PLACE = 1.0           # in radii: rings of two sides whose centres are this near are one base's
                               # (two bases stand at least 2 apart)
MAX_OVERLAP = 1.8              # in radii: ... and of two this near (their circles overlap: rims.OVERLAP)
                               # only one is a base, when the other shows off it along the camera's
                               # direction (cloth up on a body shows farther from the camera, not aside)
MIN_NEARER = 0.1               # in radii: a ring this much nearer the camera shows lower down
MIN_SURER = 0.02               # confidence: a ring this much more confident is the better evidence
MIN_LESS_OTHER = 0.1           # a ring with this much less of the other's colour outside it (5 of 48 rays)
                               # is the outer: a few rays either way are a neighbour's or noise
MIN_FACING = 0.3               # a ring whose rim shows this much more on its side away from the other
                               # than the other's does away from it (arc_direction, along the line
                               # between them) is the base: arcs both facing away (cloth hanging on a
                               # body's back beyond it, the rim's near arc) differ by less


def _cloth_over_rims(hits: list[RimHit], r_px: float,
                     wall_shift_px: Callable[[np.ndarray], np.ndarray] | None,
                     arc: Callable[[int], np.ndarray]) -> list[RimHit]:
    """Of two rings of different sides in nearly one place, or whose circles overlap with one off
    the other along the camera's direction (cloth hanging high shows well behind the rim), only
    one can be a base: the other is cloth on its figure's body. First, where the rim shows: the
    body stands on the base and leans, hiding the rim on the side it leans to, where the cloth
    hanging on it shows; so the base's rim shows on its side away from the cloth, and the cloth's
    own arc, round the body, does not face away from the base (`arc(k)`: arc_direction of hits[k]
    on the side labels). When that does not tell, two more things, each a vote: cloth hangs
    higher than the rim, so from the camera it shows farther away (unless the figure leans
    towards the camera); and the rim is the figure's outer edge at its foot, so less of the
    cloth's colour lies outside it than of its own outside the cloth (`other`). When they
    disagree the surer ring stands; when neither tells, both stay for the other tests (as without
    the camera's pose)."""
    if wall_shift_px is None:
        return hits
    rings = [i for i, h in enumerate(hits) if h.reason == "ring"]
    if len(rings) < 2:
        return hits
    centres = np.array([hits[i].xy_view for i in rings], np.float64)
    shift = np.asarray(wall_shift_px(centres), np.float64).reshape(-1, 2)
    norm = np.hypot(*shift.T)

    # (the pairs of two sides near enough, found at once: [a, b] is ring b seen from ring a)
    d_all = centres[None] - centres[:, None]
    apart_all = np.hypot(d_all[..., 0], d_all[..., 1]) / r_px
    sides = np.array([hits[i].side_index for i in rings])
    pairs = (sides[:, None] != sides[None]) & ~(apart_all > MAX_OVERLAP)
    pairs &= ~np.array([hits[i].pale for i in rings])[None, :]      # (a pale ring makes no ring cloth: RimHit.pale)
    out = list(hits)
    for a, i in enumerate(rings):
        towards = shift[a] / max(norm[a], 1e-9)
        for b in np.flatnonzero(pairs[a]):
            j, d, apart = rings[b], d_all[a, b], float(apart_all[a, b])
            nearer = float(d @ towards) / r_px if norm[a] > 1e-6 else 0.0
            if apart > MAX_SAME_PLACE and abs(nearer) < math.sqrt(max(0.0, apart * apart - nearer * nearer)):
                continue            # farther apart than one base's rings, and more across the camera's
                                    # direction than along it: no sign of height
            # for j being the base: its rim facing away from i more than i's faces away from j;
            # else where it shows, and the colour round it; its confidence only when those two disagree
            margin = facing_margin(arc(j), arc(i), d)
            facing = _vote(margin, MIN_FACING)
            near, outer = _vote(nearer, MIN_NEARER), _vote(hits[i].other - hits[j].other, MIN_LESS_OTHER)
            surer = _vote(hits[j].confidence - hits[i].confidence, MIN_SURER)
            if facing > 0 or (facing == 0 and (near + outer > 0 or (near == -outer != 0 and surer > 0))):
                out[i] = dataclasses.replace(hits[i], reason=(
                    f"cloth up on a body: a ring of another colour in nearly the same place shows its rim "
                    f"{margin:.2f} more on its side away from this one than this one does away from it, "
                    f"{nearer:.2f} radii nearer the camera, {hits[j].confidence:.2f} sure against "
                    f"{hits[i].confidence:.2f}, {hits[j].other:.2f} of this one's colour outside it against "
                    f"{hits[i].other:.2f}"))
                break
    return out


TOO_WEAK = "too weak a ring all told"   # the reason vision.rims gives a ring passing its shape tests, short
                                        # of its confidence
MAX_UNDER_APART = 0.7          # in radii: a weak rim this near a ring of another side's colour (a cloak
                               # hangs on the body standing on it) whose rim shows on its side away from
                               # it is the base, the ring its cloak
MIN_UNDER_SURE = 0.2           # confidence a weak rim needs for that
MIN_UNDER_SURE_PALE = 0.3      # ... and a pale one (RimHit.pale: its hue faint on the likelihood)
MIN_FACING_UNDER = 0.35        # and how much more its rim must show on its side away from the ring
                               # (MIN_FACING's margin): a rim its own tests left out comes back only on
                               # more than calls a ring cloth


def _rims_under_cloth(hits: list[RimHit], cloth_called: set[int], r_px: float,
                      wall_shift_px: Callable[[np.ndarray], np.ndarray] | None,
                      arc: Callable[[int], np.ndarray], faint: set[int] = frozenset(),
                      left_out: set[int] = frozenset()) -> list[RimHit]:
    """A ring overlapping a candidate of another side whose rim shows on its side away from it
    (MIN_FACING more than the ring's does away from the candidate: `arc(k)`, arc_direction of
    hits[k] on the side labels) is cloth on that
    figure's body, even when the candidate was itself left out: called cloth by the tests that
    look for a rim beneath or round it (`cloth_called`, indices into `hits`: the cloth round a
    figure leaning towards the camera shows nearer it, round the rim's near arc, and looks like a
    rim beneath; those come back as bases), or, for a faint ring (`faint`: not strong, less sure
    than FAINT_RING), left out by the shape tests (`left_out`: too weak, too little of it showing,
    as a rim the body mostly hides is): cloth hanging on a body over a rim the ring search
    missed shows as a faint ring whose arc faces the rim's. A rim left out only as too weak (at
    least MIN_UNDER_SURE, a pale one MIN_UNDER_SURE_PALE: a pale ring makes no cloth otherwise)
    within MAX_UNDER_APART of the ring, facing away MIN_FACING_UNDER more,
    makes any ring cloth and comes back as the base: a cloak's ring over a rim a third in view is
    often the surer. (It comes back without the look-alike tests a ring kept by its own confidence
    meets: what it is, a cloak on its body says.)"""
    if wall_shift_px is None:
        return hits
    rings = [i for i, h in enumerate(hits) if h.reason == "ring"]
    # (a weak rim under a cloak may be pale: its hue faint on the likelihood, as a rim a third in
    # view often is; it counts only as such a rim, a pale ring otherwise making no cloth)
    under = {j for j in left_out if hits[j].reason.startswith(TOO_WEAK)
             and hits[j].confidence >= (MIN_UNDER_SURE_PALE if hits[j].pale else MIN_UNDER_SURE)}
    others = [j for j, h in enumerate(hits) if h.reason != "ring"
              and (j in cloth_called or j in left_out) and (not h.pale or j in under)]
    if not rings or not others:
        return hits

    # (the pairs near enough, of two sides, found at once: the candidates left out are many)
    d_all = (np.array([hits[j].xy_view for j in others], np.float64)[None]
             - np.array([hits[i].xy_view for i in rings], np.float64)[:, None])             # (rings, others, 2)
    apart_all = np.hypot(d_all[..., 0], d_all[..., 1])
    pairs = ((apart_all <= MAX_OVERLAP * r_px) & (apart_all >= 1e-9)
             & (np.array([hits[i].side_index for i in rings])[:, None] != np.array([hits[j].side_index for j in others])))
    out = list(hits)
    for a, i in enumerate(rings):
        for b in np.flatnonzero(pairs[a]):
            j = others[b]
            d, apart = d_all[a, b], float(apart_all[a, b])
            # (a pale candidate is here only as a weak rim that may lie under the ring)
            by_cloth = (j in cloth_called or i in faint) and not hits[j].pale
            weak_under = j in under and apart <= MAX_UNDER_APART * r_px
            if not (by_cloth or weak_under):
                continue
            margin = facing_margin(arc(j), arc(i), d)
            # (each way to call the ring cloth has its own margin: a weak rim's the wider)
            by_cloth &= margin >= MIN_FACING
            weak_under &= margin >= MIN_FACING_UNDER
            if by_cloth or weak_under:
                out[i] = dataclasses.replace(hits[i], reason=(
                    f"cloth up on a body: a rim of another colour {apart / r_px:.2f} radii off shows "
                    f"{margin:.2f} more on its side away from this ring than this ring does away from it"))
                if j in cloth_called or weak_under:
                    out[j] = dataclasses.replace(hits[j], reason="ring")
                break
    return out


def faces_away_more(ring: RimHit, other: RimHit, strict: np.ndarray, loose: np.ndarray, r_px: float) -> bool:
    """Whether `ring`'s rim shows MIN_FACING more on its side away from `other` (a ring of another
    side overlapping it) than `other`'s does away from `ring` (arc_direction on the labels): `ring`
    is the base and `other` cloth on its figure's body (see _cloth_over_rims)."""
    d = np.asarray(ring.xy_view, np.float64) - np.asarray(other.xy_view, np.float64)
    apart = float(np.hypot(*d))
    if ring.side_index == other.side_index or apart < 1e-9:
        return False
    return facing_margin(arc_direction(strict, loose, ring.side_index, ring.xy_view, r_px),
                         arc_direction(strict, loose, other.side_index, other.xy_view, r_px), d) >= MIN_FACING


def facing_margin(arc_ring: np.ndarray, arc_other: np.ndarray, d: np.ndarray) -> float:
    """How much more a ring's rim shows on its side away from another ring than the other's does
    away from it: their arc_direction's along `d`, the vector from the other's centre to the ring's
    (0 when they share a centre). MIN_FACING or more: the ring is the base, the other cloth on its body."""
    apart = float(np.hypot(*d))
    return float((arc_ring + arc_other) @ (d / apart)) if apart > 0 else 0.0


N_ARC = 48                     # rays round a ring for where its rim shows
_ARC_UNITS = ray_units(N_ARC)
ARC_IN, ARC_OUT = 0.75, 1.25   # in radii: the band a rim and its blur show in


def arc_direction(strict: np.ndarray, loose: np.ndarray, side: int, centre: np.ndarray, r_px: float) -> np.ndarray:
    """(2,) the mean of the unit vectors of the rays from `centre` (of N_ARC round it) on which either
    label map shows `side`'s colour within ARC_IN-ARC_OUT radii (to the nearest pixel): which way the
    ring's visible arc lies, and (its length, up to 1) how one-sided it is; zero for a ring showing
    all round, or none."""
    on = _arc_shows(strict, loose, side, centre, r_px, _ARC_UNITS)
    return (_ARC_UNITS * on[:, None]).sum(0) / max(int(on.sum()), 1)


def _arc_shows(strict: np.ndarray, loose: np.ndarray, side: int, centre: np.ndarray, r_px: float,
               units: np.ndarray) -> np.ndarray:
    """(K,) whether either label map shows `side`'s colour within ARC_IN-ARC_OUT radii of `centre`
    (to the nearest pixel) on each of the rays `units` (K, 2)."""
    h, w = strict.shape
    radii = np.linspace(ARC_IN, ARC_OUT, 6) * r_px
    pts = np.asarray(centre, np.float64)[None, None] + units[:, None] * radii[None, :, None]
    xi = np.clip(np.rint(pts[..., 0]).astype(int), 0, w - 1)
    yi = np.clip(np.rint(pts[..., 1]).astype(int), 0, h - 1)
    inside = (pts[..., 0] >= -0.5) & (pts[..., 0] < w - 0.5) & (pts[..., 1] >= -0.5) & (pts[..., 1] < h - 0.5)
    at = yi * w + xi
    return (((strict.reshape(-1).take(at) == side) | (loose.reshape(-1).take(at) == side)) & inside).any(1)


def _vote(margin: float, least: float) -> int:
    return 1 if margin >= least else -1 if margin <= -least else 0


def _up_on_a_body(hit: RimHit, strict: np.ndarray, loose: np.ndarray, r_px: float, n_sides: int | None,
                  wall_shift_px: Callable[[np.ndarray], np.ndarray] | None, wall_height_in: float) -> str:
    """Why the ring is cloth up on a figure's body rather than a base, or "" (see rim_beneath)."""
    # The rim beneath, nearly round the same centre, shows within 1.6 radii of it (RimHit.other)
    if n_sides is None or wall_shift_px is None or wall_height_in <= 0 or hit.other <= 0:
        return ""
    shift = np.asarray(wall_shift_px(hit.xy_view[None]), np.float64).reshape(2)
    per_in = np.hypot(*shift) / wall_height_in / r_px         # radii a thing shows farther out per inch up
    share, offset = rim_beneath(other_side_reader(strict, loose, n_sides, hit.side_index), strict.shape,
                                hit.xy_view, r_px, shift)
    # Cloth hangs from about a third to two thirds of a body's height: the ring it makes shows
    # that much farther from the camera than the rim of the figure's own base.
    if share >= MIN_RIM_BENEATH and max(MIN_CLOTH_OFFSET, CLOTH_LOW_IN * per_in) <= offset <= CLOTH_HIGH_IN * per_in + MIN_CLOTH_OFFSET:
        return (f"cloth up on a body: a rim of another colour ({share:.2f} of a ring) shows {offset:.2f} radii "
                f"nearer the camera")
    return ""


def other_side_reader(strict: np.ndarray, loose: np.ndarray, n_sides: int,
                      side: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """(rows, cols) -> whether either label map shows a side other than `side` there (of the
    `n_sides`; labels -1 none, sides 0..n-1, terrain n..), as rim_beneath reads it."""
    # (looked up by the label's byte, -1 being 255)
    others = np.zeros(256, bool)
    others[:n_sides] = True
    others[side] = False
    strict_b, loose_b = _label_bytes(strict).reshape(-1), _label_bytes(loose).reshape(-1)
    w = strict.shape[1]

    def other(yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
        at = yi * w + xi                                          # (each map read once, flat)
        return others.take(strict_b.take(at)) | others.take(loose_b.take(at))
    return other


def _label_bytes(label: np.ndarray) -> np.ndarray:
    """The labels as bytes, -1 (and any label past a byte's) as 255, for a table looked up by label: a
    view of the int8 labels vision.rims makes."""
    if label.dtype == np.int8:
        return label.view(np.uint8)
    return np.where((label >= 0) & (label < 255), label, 255).astype(np.uint8)


def _look_alike(hit: RimHit, strict: np.ndarray, loose: np.ndarray, r_px: float, strong: bool) -> str:
    """Why the ring is not a base, or "" when it is (`strong`: is_strong's verdict on it)."""
    if not MIN_FREE_R <= hit.free_radius <= MAX_FREE_R:
        return f"a curve of another size (radius {hit.free_radius:.2f} of the base's)"
    if hit.radius < MIN_RADIUS:
        return f"smaller than a base (a circle of {hit.radius:.2f} of its radius): a die or a blob"
    if not strong and runs_off_view(strict, loose, hit.side_index, hit.xy_view, r_px):
        return "its colour runs off the view's edge: the outline there is the view's, not a rim's (a mug, a book)"
    middle, band = label_fill(strict, loose, hit.side_index, hit.xy_view, r_px)
    footed = max(hit.middle, middle)
    if footed > MAX_FOOTED and band > MAX_SOLID:
        around = label_fill(strict, loose, hit.side_index, hit.xy_view, r_px, around=True)[0]
        if around < MAX_AROUND and hit.residual_px >= MIN_SOLID_RESIDUAL * r_px:
            return (f"solid, no figure's feet in it ({footed:.2f} of the middle, {band:.2f} of the way out to the "
                    f"rim): a die or a blob")
        if middle > MAX_FOOTED and around > MAX_OUTER and not strong:
            # (a ring only the likelihood shows, in felt the labels call the side's: its middle is the felt)
            return (f"in a field of its colour, no figure's feet in its middle ({middle:.2f} of it, {around:.2f} of "
                    f"the band round it on the labels): felt or a mat of the side's hue")
    if (hit.middle > MAX_INNER or hit.hollow < MIN_HOLLOW) and not strong:
        return f"filled, not a ring ({hit.inner:.2f} of the middle)"
    if hit.outer > MAX_OUTER:
        return f"the colour goes on outside ({hit.outer:.2f} of the band around)"
    label = loose if hit.by_hue else strict
    span = frame_span(label, hit.side_index, hit.xy_view, r_px, least=MAX_FRAME_SPAN * r_px)
    if span > MAX_FRAME_SPAN * r_px:
        return f"a corner of a frame of the colour {span / (2 * r_px):.1f} bases across (a phone's case)"
    return ""


EDGE_REACH = 1.3               # in radii: a ring's rim and its blur lie within this of its centre


def runs_off_view(strict: np.ndarray, loose: np.ndarray, side: int, centre: np.ndarray, r_px: float) -> bool:
    """Whether the side's colour (either label map) meets the view's edge within EDGE_REACH of the
    ring at `centre`. Beyond the edge nothing is seen, so a ring measured there may have the edge of
    the view for its outline (the arc of a mug's rim cut off by it fits a base's circle). A base
    stands on the table, its rim inside the table's view, and a window cutting a base is overlapped
    by one that sees it whole; only a base touching the table's edge comes this near it, and it is
    kept when its rim shows clean and round (is_strong)."""
    h, w = strict.shape
    reach = EDGE_REACH * r_px
    x0, x1 = int(math.floor(centre[0] - reach)), int(math.ceil(centre[0] + reach)) + 1
    y0, y1 = int(math.floor(centre[1] - reach)), int(math.ceil(centre[1] + reach)) + 1
    if x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h:
        return False
    cx0, cx1, cy0, cy1 = max(0, x0), min(w, x1), max(0, y0), min(h, y1)
    if cx1 <= cx0 or cy1 <= cy0:
        return False
    edges = []
    if x0 < 0:
        edges.append((slice(cy0, cy1), 0))
    if x1 > w:
        edges.append((slice(cy0, cy1), w - 1))
    if y0 < 0:
        edges.append((0, slice(cx0, cx1)))
    if y1 > h:
        edges.append((h - 1, slice(cx0, cx1)))
    for rows, cols in edges:
        if np.any((strict[rows, cols] == side) | (loose[rows, cols] == side)):
            return True
    return False


def label_fill(strict: np.ndarray, loose: np.ndarray, side: int, centre: np.ndarray, r_px: float,
               around: bool = False) -> tuple[float, ...]:
    """(share of the middle, within 0.45 radii; of the band 0.45-0.7 radii out) of the ring at
    `centre` (to the nearest pixel) that either label map calls `side`: a die's pips and a
    likelihood's blur may make its own map look hollow, its labels not. `around`: instead, (share of
    the band 1.35-1.8 radii out,)."""
    masks = _fill_masks(float(r_px), around)
    window = _mask_window(strict.shape, centre, masks[0].shape[0] // 2)
    if window is None:
        return (0.0,) * len(masks)
    win, cut = window
    on = (strict[win] == side) | (loose[win] == side)
    out = []
    for mask in masks:
        part = mask[cut]
        n = np.count_nonzero(part)
        out.append(float(np.count_nonzero(on & part)) / n if n else 0.0)
    return tuple(out)


def _mask_window(shape: tuple, centre: np.ndarray, m: int) -> tuple[tuple[slice, slice], tuple[slice, slice]] | None:
    """(the view's window, the part of a (2m + 1, 2m + 1) mask centred on `centre` (to the nearest
    pixel) that falls in it), None when none does."""
    h, w = shape[:2]
    ix, iy = int(round(centre[0])), int(round(centre[1]))
    x0, x1, y0, y1 = max(0, ix - m), min(w, ix + m + 1), max(0, iy - m), min(h, iy + m + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return (slice(y0, y1), slice(x0, x1)), (slice(y0 - iy + m, y1 - iy + m), slice(x0 - ix + m, x1 - ix + m))


@functools.lru_cache(maxsize=8)
def _fill_masks(r_px: float, around: bool) -> tuple[np.ndarray, ...]:
    """label_fill's masks round a pixel, (2m + 1, 2m + 1) each: the middle and the band out to 0.7
    radii, or the band round a base."""
    m = int(math.ceil((AROUND_OUT if around else SOLID_OUT) * r_px))
    yy, xx = np.mgrid[-m:m + 1, -m:m + 1]
    d2 = (xx * xx + yy * yy) / (r_px * r_px)
    if around:
        return ((d2 >= AROUND_IN ** 2) & (d2 <= AROUND_OUT ** 2),)
    return d2 <= MIDDLE_IN ** 2, (d2 > MIDDLE_IN ** 2) & (d2 <= SOLID_OUT ** 2)


def frame_span(label: np.ndarray, side: int, centre: np.ndarray, r_px: float, least: float = 0.0) -> float:
    """The smaller side, in pixels, of the bounding box of the hollow piece of colour `side` the ring
    at `centre` is part of (0 when that piece is solid or none): a phone's case is a thin frame some
    three by six inches round; bases, even side by side, are not. Looked at in a window a little
    wider than such a frame's short side. 0 too when all the colour in the window spans no more than
    `least` one way or the other: no piece of it can be wider (then none is told apart)."""
    h, w = label.shape
    cx, cy = centre
    half = (MAX_FRAME_SPAN + 1.0) * r_px
    wx0, wx1 = max(0, int(cx - half)), min(w, int(cx + half) + 1)
    wy0, wy1 = max(0, int(cy - half)), min(h, int(cy + half) + 1)
    if wx1 <= wx0 or wy1 <= wy0:
        return 0.0
    on = label[wy0:wy1, wx0:wx1] == side
    lx, ly = cx - wx0, cy - wy0
    x0, x1 = max(0, int(lx - 1.2 * r_px)), min(wx1 - wx0, int(lx + 1.2 * r_px) + 1)
    y0, y1 = max(0, int(ly - 1.2 * r_px)), min(wy1 - wy0, int(ly + 1.2 * r_px) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    # (the pieces are labelled only when one could be wider than `least`: most windows' colour is not)
    _, _, all_w, all_h = cv2.boundingRect(on.view(np.uint8))
    if min(all_w, all_h) <= least:
        return 0.0
    # (the boxes of the pieces the ring is part of only: labelling with every piece's box costs more)
    _, lab = cv2.connectedComponents(on.view(np.uint8), connectivity=8)
    best = 0.0
    for c in np.unique(lab[y0:y1, x0:x1]):
        if c > 0:
            piece = (lab == c).view(np.uint8)
            _, _, bw, bh = cv2.boundingRect(piece)
            if np.count_nonzero(piece) <= FRAME_FILL * bw * bh:
                best = max(best, float(min(bw, bh)))
    return best


N_LOOK = 32                    # rays round a ring for the look-alike measures
_ANGLES = np.linspace(0, 2 * np.pi, N_LOOK, endpoint=False)
_UNITS = np.column_stack([np.cos(_ANGLES), np.sin(_ANGLES)])
MIN_RIM_BENEATH = 0.36         # share of a ring of another colour under a ring that makes it cloth
                               # (12 of 32 rays: a neighbour's rim seen from between shows on fewer)
CLOTH_LOW_IN, CLOTH_HIGH_IN = 0.3, 1.5   # cloth hangs on a body between these heights above the base
MIN_CLOTH_OFFSET = 0.3         # in radii: a ring of another colour nearer than this is no help telling


def rim_beneath(other: Callable[[np.ndarray, np.ndarray], np.ndarray], shape: tuple[int, int], centre: np.ndarray,
                r_px: float, shift_px: np.ndarray | None) -> tuple[float, float]:
    """(share of a ring, offset in radii) of the ring of another side's colour, of the base's size,
    that shows best round a centre from `centre` towards the camera (within two radii, a little to
    either side): the rim of the figure whose body this ring may be up on (cloth).

    `other(rows, cols)`: whether pixels of a view of `shape` (H, W) show another side's colour;
    `shift_px`: a base top's wall shift at `centre` (towards the camera), None looking straight
    down (then no ring is looked for)."""
    h, w = shape
    if shift_px is None or np.hypot(*shift_px) <= 1e-6:
        return 0.0, 0.0
    towards = shift_px / np.hypot(*shift_px)
    steps = np.arange(0.0, 2.2 * r_px + 1e-9, max(1.0, 0.25 * r_px))
    side = np.array([-towards[1], towards[0]])
    lateral = np.array([-0.3, 0.0, 0.3]) * r_px
    qs = (centre[None, None, :] + steps[:, None, None] * towards + lateral[None, :, None] * side).reshape(-1, 2)
    return _best_ring(other, shape, qs, centre, r_px)


def _best_ring(other, shape, qs: np.ndarray, centre: np.ndarray, r_px: float) -> tuple[float, float]:
    h, w = shape
    # A ring round Q: the colour on its rays at the base's radius, and not well inside it (a ring
    # seen from a centre moved towards it shows on as many rays, but inside too).
    radii = np.array([0.45, 0.6, 0.8, 0.95, 1.1]) * r_px
    # (Q, K, J) each: the points on ray K at radius J round Q
    xi = np.round(qs[:, 0, None, None] + radii[None, None, :] * _UNITS[None, :, None, 0]).astype(int)
    yi = np.round(qs[:, 1, None, None] + radii[None, None, :] * _UNITS[None, :, None, 1]).astype(int)
    xc, yc = np.clip(xi, 0, w - 1), np.clip(yi, 0, h - 1)
    hit = other(yc, xc) & (xc == xi) & (yc == yi)                  # (a point off the view meets nothing)
    share = hit[..., 2:].any(2).mean(1) - hit[..., :2].any(2).mean(1)                     # (Q,)
    best = int(np.argmax(share))
    return float(share[best]), float(np.hypot(*(qs[best] - centre)) / r_px)


FLAT_TOL = 18.0                # colours this near (BGR, each channel) are one flat surface
MAX_FLAT_MIDDLE = 2.0          # in bases: a base's middle (its top, the body's foot) is at most one
MAX_DARK = 0.5                 # a middle darker than this share of the brightest tenth round it is dark


def brightest_tenth(view_bgr: np.ndarray) -> float:
    """The gray level (B + G + R) of the view's brightest tenth, on every sixteenth pixel each way
    (a base or two apart): what a dark thing is dark against (the mat, paper, felt)."""
    gray = view_bgr[::16, ::16].sum(axis=2, dtype=np.int32).ravel()
    k = int(0.9 * (len(gray) - 1))
    return float(np.partition(gray, k)[k]) if len(gray) else 765.0


def flat_middle(view_bgr: np.ndarray, centre: np.ndarray, r_px: float, bright: float) -> tuple[float, float]:
    """(area in bases, darkness) of the flat patch of colour the middle of the ring at `centre` is
    part of, looked at within three radii: a base's middle holds its top and a body, a base across
    at most; the middle of a ring drawn on a phone's case or a mug's rim is the screen or the
    coffee, a flat dark patch running far past the ring. Darkness: the middle's gray over `bright`
    (brightest_tenth); the area is only measured for a dark middle (0 otherwise)."""
    h, w = view_bgr.shape[:2]
    cx, cy = centre
    m = max(1, int(0.3 * r_px))
    ix, iy = int(round(cx)), int(round(cy))
    if not (0 <= ix < w and 0 <= iy < h):
        return 0.0, 1.0
    mid = view_bgr[max(0, iy - m):iy + m + 1, max(0, ix - m):ix + m + 1].reshape(-1, 3).astype(np.int16)
    ref = np.sort(mid, axis=0)[len(mid) // 2]                    # the middle's median colour
    dark = float(ref.sum()) / max(bright, 1.0)
    if dark >= MAX_DARK:
        return 0.0, dark
    # the flood starts from the middle's pixel nearest its median colour
    j = int(np.argmin(np.abs(mid - ref).sum(axis=1)))
    mx0, my0 = max(0, ix - m), max(0, iy - m)
    wm = min(w, ix + m + 1) - mx0
    area, _ = _flat_patch(view_bgr, centre, r_px, (mx0 + j % wm, my0 + j // wm))
    return float(area / (math.pi * r_px * r_px)), dark


def _flat_patch(view_bgr: np.ndarray, centre: np.ndarray, r_px: float, seed_xy) -> tuple[int, np.ndarray]:
    """(area in pixels, flood mask with its 1-pixel frame) of the patch within FLAT_TOL of the colour
    at `seed_xy` (view pixels), looked at within three radii of `centre`."""
    h, w = view_bgr.shape[:2]
    cx, cy = centre
    half = 3.0 * r_px
    x0, x1 = max(0, int(cx - half)), min(w, int(cx + half) + 1)
    y0, y1 = max(0, int(cy - half)), min(h, int(cy + half) + 1)
    win = np.ascontiguousarray(view_bgr[y0:y1, x0:x1])
    mask = np.zeros((y1 - y0 + 2, x1 - x0 + 2), np.uint8)
    tol = (FLAT_TOL,) * 3
    area, *_ = cv2.floodFill(win, mask, (int(seed_xy[0]) - x0, int(seed_xy[1]) - y0), 0, tol, tol,
                             4 | cv2.FLOODFILL_FIXED_RANGE | cv2.FLOODFILL_MASK_ONLY | (1 << 8))
    return area, mask


SCREEN_REACH = 0.7             # in radii: a ring's disc, where the darkest pixel is looked for
MIN_SCREEN_SOLIDITY = 0.75     # a flat dark patch this convex (of its hull) is straight-edged: a screen


def flat_beside(view_bgr: np.ndarray, centre: np.ndarray, r_px: float, bright: float,
                least: float = 0.0) -> tuple[float, float]:
    """(area in bases, solidity) of the flat dark patch the darkest pixel of the ring's disc (within
    SCREEN_REACH radii of `centre`) is part of, looked at within three radii: a ring drawn beside a
    phone's screen, its middle half on the screen and half on the mat, has the screen's straight
    edge through its disc. Solidity: the patch's area over its convex hull's (a screen's corner,
    however the window cuts it, is convex; a shadowed felt's dark texture is ragged). (0, 0) when
    that pixel is not dark (MAX_DARK of `bright`); the solidity 0 too for a patch of no more than
    `least` bases (its hull is drawn only for a patch large enough to be a screen)."""
    h, w = view_bgr.shape[:2]
    cx, cy = centre
    m = max(1, int(SCREEN_REACH * r_px))
    ix, iy = int(round(cx)), int(round(cy))
    dx0, dy0 = max(0, ix - m), max(0, iy - m)
    disc = view_bgr[dy0:min(h, iy + m + 1), dx0:min(w, ix + m + 1)]
    if not disc.size:
        return 0.0, 0.0
    yy, xx = np.arange(dy0, dy0 + disc.shape[0])[:, None], np.arange(dx0, dx0 + disc.shape[1])
    gray = np.where((xx - cx) ** 2 + (yy - cy) ** 2 <= (SCREEN_REACH * r_px) ** 2,
                    disc.sum(axis=2, dtype=np.int32), np.iinfo(np.int32).max)
    sy, sx = np.unravel_index(int(np.argmin(gray)), gray.shape)
    if gray[sy, sx] >= MAX_DARK * bright:
        return 0.0, 0.0
    area, mask = _flat_patch(view_bgr, centre, r_px, (dx0 + sx, dy0 + sy))
    bases = float(area / (math.pi * r_px * r_px))
    if bases <= least:
        return bases, 0.0
    pts = cv2.findNonZero(mask[1:-1, 1:-1])
    hull = cv2.contourArea(cv2.convexHull(pts)) if pts is not None and len(pts) >= 3 else 0.0
    return bases, float(min(1.0, area / hull)) if hull > 0 else 0.0


FAINT_RING = 0.5               # confidence: a ring less sure than this (most are surer) ...
                               # (0.45 -> 0.5: wood grain's rings on a walnut or cherry kitchen table are
                               # 0.45-0.49 sure; on 60 hard photos each of 8 seeds, rims 4720 -> 4717,
                               # phantoms 84 -> 78; kitchen seeds 7 and 13, rims 1098 -> 1100, phantoms
                               # 56 -> 49. 0.55: 4713 rims, 75 phantoms; 1100, 48)
MIN_MIDDLE_CONTRAST = 10.0     # ... is a base only if its middle's colour is this far (Lab, median)
                               # from that of the band round it: a base's top and the body standing
                               # on it are not the mat's or felt's colour, the mottling of a mat or
                               # felt that makes a faint ring of a side's hue has that very colour
                               # in its middle


def middle_contrast(view_bgr: np.ndarray, centre: np.ndarray, r_px: float) -> float:
    """The median distance (CIE Lab, OpenCV's 8-bit scale) of the middle of the ring at `centre`
    (to the nearest pixel; within MIDDLE_IN radii) from the median colour of the band
    AROUND_IN-AROUND_OUT radii round it (the mat or felt it lies on, past a rim and its blur): what
    stands in a base's middle, its top and the figure's feet, is not what lies round it. Infinite
    where either is out of the view."""
    mid, ring = _lab_under(view_bgr, centre, *_contrast_masks(float(r_px)))
    if not len(mid) or len(ring) < 8:
        return math.inf
    ref = median_rows(ring.T)
    return float(median_rows(np.sqrt(((mid - ref) ** 2).sum(1))[None])[0])


def _lab_under(view_bgr: np.ndarray, centre: np.ndarray, *masks: np.ndarray) -> list[np.ndarray]:
    """The colours (CIE Lab, OpenCV's 8-bit scale, float32 (n, 3)) of the view's pixels under each of
    `masks` ((2m + 1, 2m + 1) each) centred on `centre` (to the nearest pixel); none where it is out
    of the view."""
    window = _mask_window(view_bgr.shape, centre, masks[0].shape[0] // 2)
    under = [] if window is None else [view_bgr[window[0]][mask[window[1]]] for mask in masks]
    if not sum(map(len, under)):
        return [np.zeros((0, 3), np.float32) for _ in masks]
    lab = cv2.cvtColor(np.concatenate(under)[None], cv2.COLOR_BGR2LAB)[0].astype(np.float32)
    return np.split(lab, np.cumsum([len(u) for u in under[:-1]]))


@functools.lru_cache(maxsize=8)
def _contrast_masks(r_px: float) -> tuple[np.ndarray, np.ndarray]:
    """middle_contrast's masks round a pixel, (2m + 1, 2m + 1) each: the middle and the band round it
    (label_fill's, the middle widened to the band's window)."""
    (band,), (middle, _) = _fill_masks(r_px, True), _fill_masks(r_px, False)
    return np.pad(middle, (band.shape[0] - middle.shape[0]) // 2), band


BAND_RING = (0.75, 1.2)        # radii: a ring's rim, its blur and what stands just inside it
BAND_GROUND = (1.4, 1.9)       # radii: the ground round it, past the blur
MIN_BAND_CONTRAST = 2.3        # CIELAB a*b* units (OpenCV's 8-bit Lab keeps them): about the least
                               # difference of colour that can be seen (a just-noticeable difference)


def band_contrast(view_bgr: np.ndarray, centre: np.ndarray, r_px: float) -> float:
    """How much more the band of the ring at `centre` (to the nearest pixel; BAND_RING) is unlike
    the ground round it (BAND_GROUND) in hue than the ground is itself: the median a*b* distance
    (CIE Lab) of the band's pixels from the ground's median colour, less that of the ground's own
    pixels. A base's rim is paint of its side's colour, its top and the figure's feet inside it: its
    band is of other colours than the mat or felt it stands on, even where its rim shows faint. A
    faint ring the mat's grain or a felt's edge makes of a side's hue is those very colours: as
    unlike their own median as the ground round them is. Infinite where the ground is out of view."""
    ring, round_it = _lab_under(view_bgr, centre, *_band_masks(float(r_px)))
    if len(ring) < 8 or len(round_it) < 8:
        return math.inf
    ring, round_it = ring[:, 1:], round_it[:, 1:]          # (a* and b*: the hue, not the lightness)
    ref = median_rows(round_it.T)
    dist = np.sqrt(((ring - ref) ** 2).sum(1)), np.sqrt(((round_it - ref) ** 2).sum(1))
    return float(median_rows(dist[0][None])[0] - median_rows(dist[1][None])[0])


@functools.lru_cache(maxsize=8)
def _band_masks(r_px: float) -> tuple[np.ndarray, np.ndarray]:
    """band_contrast's masks round a pixel, (2m + 1, 2m + 1) each: the ring's band and the ground's."""
    m = int(math.ceil(BAND_GROUND[1] * r_px))
    yy, xx = np.mgrid[-m:m + 1, -m:m + 1]
    d2 = (xx * xx + yy * yy) / (r_px * r_px)
    return ((d2 >= BAND_RING[0] ** 2) & (d2 <= BAND_RING[1] ** 2),
            (d2 >= BAND_GROUND[0] ** 2) & (d2 <= BAND_GROUND[1] ** 2))


FELT_HUE_DEG = 30.0            # a felt whose hue is this near a side's is one its rims may be lost in
MIN_FELT_SATURATION = 0.25    # (HSV) below this a felt is grey, of no hue
MIN_FELT_MIDDLE = 0.75         # a ring's middle this much such felt is the felt's own mottling


def similar_felts(side_rgbs: Sequence[Sequence[float]], felt_rgbs: Sequence[Sequence[float]], n_sides: int) -> list[list[int]]:
    """For each side, the strict labels (n_sides + t) of the felts (RGB) of a hue near its own: blue
    water for a blue side. Their mottling makes rings of the side's colour; a base's middle is its
    body, never the felt."""
    def hsv(rgbs):
        bgr = np.array([[c[::-1] for c in rgbs]], np.float32) / 255.0
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)[0]
    if not len(felt_rgbs):
        return [[] for _ in side_rgbs]
    sides, felts = hsv(side_rgbs), hsv(felt_rgbs)
    d = np.abs(sides[:, None, 0] - felts[None, :, 0])
    d = np.minimum(d, 360 - d)
    near = (d <= FELT_HUE_DEG) & (felts[None, :, 1] >= MIN_FELT_SATURATION)     # grey felt has no hue
    return [[n_sides + int(t) for t in np.flatnonzero(row)] for row in near]


def felt_middle(strict: np.ndarray, centre: np.ndarray, r_px: float, labels: Sequence[int]) -> float:
    """Share of the middle (within 0.45 radii, a square of it) of the ring at `centre` that the
    strict labels call one of `labels` (felt)."""
    window = _mask_window(strict.shape, centre, max(1, int(0.45 * r_px)))
    return float(label_in(strict[window[0]], labels).mean()) if window else 0.0


def label_in(label: np.ndarray, labels: Sequence[int]) -> np.ndarray:
    """Where `label` is one of `labels` (a few: np.isin sorts them for every call)."""
    out = np.zeros(label.shape, bool)
    for k in labels:
        out |= label == k
    return out


FELT_BEYOND = 1.6              # in radii: felt this far out lies past a base's rim and its blur
MAX_FELT_THROUGH = 0.5         # a base's feet cover about half its middle (MAX_FOOTED): felt round the
                               # ring running on into more of it than that, and looking like that
                               # felt in most of it, is seen through it
FELT_SPREAD = 90               # percentile: the felt's own colours lie this near its median colour


def felt_through(strict: np.ndarray, centre: np.ndarray, r_px: float, labels: Sequence[int],
                 view_bgr: np.ndarray | None = None) -> tuple[float, float]:
    """(share of the middle, within 0.45 radii, of the ring at `centre`; of that, the share of the
    felt's own colour) of felt of `labels` (strict) joined, side by side (4-connected) within three
    radii, to that felt beyond FELT_BEYOND radii: the felt round the ring running on into its middle
    through the gaps of its arc. A base's middle is its top and the body's feet, walled in by its
    rim where the body does not hide it; a ring of the felt's mottling, or the edge of a cloak of the
    felt's hue up on a body standing in it, has the felt itself in its middle. The labels alone may
    call a pale body next to the felt felt too: what is the felt looks like it (in `view_bgr`, the
    same pixels: within the felt's own spread of colours round its median, Lab); without the view
    the second share is 1. (0, 0) when no more than MAX_FELT_THROUGH of the middle is felt at all:
    no more of it can be joined to the felt round it."""
    h, w = strict.shape
    ix, iy = int(round(centre[0])), int(round(centre[1]))

    def window(reach: float):
        half = int(math.ceil(reach * r_px))
        x0, x1, y0, y1 = max(0, ix - half), min(w, ix + half + 1), max(0, iy - half), min(h, iy + half + 1)
        yy, xx = np.arange(y0, y1)[:, None], np.arange(x0, x1)
        return (slice(y0, y1), slice(x0, x1)), ((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (r_px * r_px)

    # (no more of the middle can be felt joined to the felt round it than is felt at all: looked at first)
    win, d2 = window(MIDDLE_IN)
    middle = d2 <= MIDDLE_IN ** 2
    n_middle = int(middle.sum())
    if not n_middle or np.count_nonzero(label_in(strict[win], labels) & middle) <= MAX_FELT_THROUGH * n_middle:
        return 0.0, 0.0
    win, d2 = window(3.0)
    felt = label_in(strict[win], labels)
    middle = d2 <= MIDDLE_IN ** 2
    n, lab = cv2.connectedComponents(felt.view(np.uint8), connectivity=4)
    far = felt & (d2 >= FELT_BEYOND ** 2)
    reaches = np.zeros(n, bool)
    reaches[lab[far]] = True
    reaches[0] = False
    joined = middle & reaches[lab]
    through = float(joined.sum() / n_middle)
    if view_bgr is None or not joined.any():
        return through, 1.0 if joined.any() else 0.0
    colours = cv2.cvtColor(np.ascontiguousarray(view_bgr[win]), cv2.COLOR_BGR2LAB).astype(np.float32)
    ref = np.median(colours[far], axis=0)
    spread = np.percentile(np.linalg.norm(colours[far] - ref, axis=1), FELT_SPREAD)
    like = float((np.linalg.norm(colours[joined] - ref, axis=1) <= spread).mean())
    return through, like


TIE_CONFIDENCE = 0.02          # two rings this near in confidence are as sure as each other ...
MORE_RING = 0.1                # ... and the one showing this much more of its circle (5 of 48 rays) is the base


def shows_more_ring(ring: RimHit, kept: RimHit, r_px: float) -> bool:
    """Of two overlapping rings of one side (bases never overlap: only one is a base), whether
    `ring`, the less confident, is the base rather than `kept`: the two are different circles
    (centres a radius or more apart: a short arc fitted from its mirror side as well as from its
    own, or a cloak of the rim's colour up on the body), as sure as each other, and `ring` shows
    clearly more of its circle. The same rim found on two passes (centres nearer) keeps the surer."""
    return (ring.side_index == kept.side_index and math.hypot(*(ring.xy_view - kept.xy_view)) >= r_px
            and kept.confidence - ring.confidence < TIE_CONFIDENCE and ring.coverage >= kept.coverage + MORE_RING)


BODY_LEAN_R = 1.0              # in radii per inch up: how far aside of its base's centre a body's parts
                               # reach (a lean of about 27 degrees on a 1" base, arms and weapons held
                               # out), and a radius more for the body's own width: with the camera's
                               # smear, where a figure's cloak, head or the felt round its body may show
NEAR_ARC_DEG = 30.0            # the rays within this of the camera's direction: a base's near arc
FAINT_APART = 1.8              # radii: a faint base nearer a ring than this is that ring's (rims.OVERLAP)
FAINT_HOSTS_BELOW = 0.5        # a ring this sure or surer is judged against the rings alone, not faint bases


def on_a_surer_body(hits: Sequence[RimHit], r_px: float, strict: np.ndarray, loose: np.ndarray,
                    wall_shift_px: Callable[[np.ndarray], np.ndarray] | None, wall_height_in: float,
                    figure_height_in: float, faint_bases: np.ndarray | None = None,
                    other_side_host: bool = False) -> list[RimHit]:
    """Rings up on a surer ring's figure: its cloak, its head, or felt of the ring's hue round its
    body. In the top view a point z up a body stands shows z * (the wall shift per inch) farther
    from the camera than its base (and, the body leaning, up to BODY_LEAN_R * z aside): a figure's
    body shows behind its base, away from the camera, within its height's reach (`figure_height_in`,
    BODY_LEAN_R aside per inch up and a radius for the body's width). A base stands on the table
    with its own body on it showing away from the camera, so its near arc (towards the camera),
    where that body hides least, shows its rim; a ring on a body has that body, running down to the
    base in front of it, on its near side. So a ring less sure than another, behind it (a radius or
    more farther from the camera along the camera's direction) within its body's reach, showing its
    colour on no ray of its near arc (either label map, NEAR_ARC_DEG either side of the camera's
    direction) is on that figure's body. So is one behind any of the `faint_bases` (M, 2): centres
    of rings of a base's shape too weak to keep, a base whose body hides most of its rim, at least a
    diameter from the ring (another base), and not within FAINT_APART radii of any ring (that ring's
    own base found again on other labels, judged as the ring it is), when the ring is less than
    FAINT_HOSTS_BELOW sure (a ring too weak to keep is weak evidence of a figure: a die, a cloak or
    the ring's own body, as often). A base beside or in front of another in a melee is not
    behind it; one right behind it, touching, shows its near arc past the front one's base. Looking
    straight down (no wall shift) nothing is called so. With `other_side_host`, a ring behind a
    ring of another side is judged so however sure it is: a head ringed by its brown torso reads as
    the red side's ring under a warm lamp, behind its blue base and surer than it. (Two figures of
    different sides touching in a melee each show their near arc; of one side's two rings the surer
    still stands, as a body leaning towards the camera may put a ring of its base's colour in front
    of the base.)"""
    if wall_shift_px is None or wall_height_in <= 0:
        return list(hits)
    rings = sorted((i for i, h in enumerate(hits) if h.reason == "ring"), key=lambda i: -hits[i].confidence)
    faint = np.zeros((0, 2)) if faint_bases is None else np.asarray(faint_bases, np.float64).reshape(-1, 2)
    if not rings or len(rings) + len(faint) < 2:
        return list(hits)
    centres = np.array([hits[i].xy_view for i in rings], np.float64)
    # (a faint base where a ring stands is that ring's base found again on other labels: the ring
    # itself is the body, surer or not)
    apart = np.hypot(*(centres[:, None] - faint[None]).transpose(2, 0, 1))      # (A, F): ring to faint base
    keep = (apart >= FAINT_APART * r_px).all(0)
    faint, apart = faint[keep], apart[:, keep]
    # the bodies: the rings (surest first), then the faint bases
    bases = np.concatenate([centres, faint])
    shift = np.asarray(wall_shift_px(bases), np.float64).reshape(-1, 2)
    norm = np.hypot(*shift.T)
    per_in = norm / wall_height_in                               # view px a thing shows farther per inch up
    away = -shift / np.maximum(norm, 1e-9)[:, None]
    # (every pair at once: [a, b] is ring a against base b's body)
    d = centres[:, None] - bases[None]                           # (A, B, 2)
    behind = (d * away[None]).sum(2)
    aside = np.abs(away[None, :, 0] * d[..., 1] - away[None, :, 1] * d[..., 0])
    heights = np.linspace(0.0, figure_height_in, 21)
    # nearest the body's axis at some height, less how far aside it may reach there
    off_axis = (np.hypot(behind[..., None] - heights * per_in[None, :, None], aside[..., None])
                - heights * BODY_LEAN_R * r_px).min(2)
    conf = np.array([hits[i].confidence for i in rings])
    host = conf[None] > conf[:, None]
    if other_side_host:
        sides = np.array([hits[i].side_index for i in rings])
        host |= sides[None] != sides[:, None]
    host = np.concatenate([host, (apart >= 2 * r_px) & (conf < FAINT_HOSTS_BELOW)[:, None]], axis=1)
    reached = host & (per_in[None] > 1e-9) & (behind >= r_px) & (off_axis <= r_px)
    out = list(hits)
    on_body = np.zeros(len(bases), bool)
    for a in np.flatnonzero(reached.any(1)):
        hit = hits[rings[a]]
        # (only a ring kept as a base has a body: `rings` runs from the surest down)
        hosts = np.flatnonzero(reached[a] & ~on_body)
        if not len(hosts) or near_arc(strict, loose, hit.side_index, hit.xy_view, shift[a], r_px) > 0:
            continue
        b = int(hosts[0])
        on_body[a] = True
        which = f"a ring {conf[b]:.2f} sure" if b < len(rings) else "a ring too weak to keep"
        out[rings[a]] = dataclasses.replace(hit, reason=(
            f"up on a figure's body: {behind[a, b] / r_px:.2f} radii behind {which}, within its body's reach, "
            f"and no rim on its own side towards the camera"))
    return out


def near_arc(strict: np.ndarray, loose: np.ndarray, side: int, centre: np.ndarray, shift_px: np.ndarray,
             r_px: float) -> float:
    """Share of the rays of the ring at `centre` within NEAR_ARC_DEG of the camera's direction
    (`shift_px`, a wall shift towards it) on which either label map shows `side`'s colour within
    ARC_IN-ARC_OUT radii: its near arc and wall."""
    norm = float(np.hypot(*shift_px))
    if norm <= 1e-9:
        return 1.0
    units = _ARC_UNITS[_ARC_UNITS @ (np.asarray(shift_px, np.float64) / norm) >= math.cos(math.radians(NEAR_ARC_DEG))]
    on = _arc_shows(strict, loose, side, centre, r_px, units)
    return float(on.mean()) if len(on) else 1.0
