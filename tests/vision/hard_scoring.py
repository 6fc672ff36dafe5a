"""Scoring a found scene against a hard photo's truth, by the figures of issue 10 (shared by the
hard-set tests and benchmarks/accuracy_vision.py).

Figures under a hand (truth `hidden`) are not expected to be seen: they count neither as misses
nor, when something is found there, as phantoms; `hidden_reported` checks they are reported
hidden instead. A found figure that matches nothing visible or hidden is a phantom (a false id
for markers), and `suspect` names what lies under it (a die, a mug, the hand, a cloak...).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import Point, Polygon, box

from measure.scene import Scene
from tests.vision.scoring import visible_truth
from vision.settings import VISION_DEFAULTS

GATE_IN = 0.5
HAND_FOUND_SHARE = 0.3       # of the drawn hand and arm on the table that the hands found cover: found
HAND_CLEAR_IN = 1.5          # a found hand's part this far clear of the drawn one
HAND_NONE_IN2 = 2.0          # and this large is a hand where there is none
UNSEEN_BEFORE = "not found in the picture before"   # how hidden_reported names a figure nothing could carry
GOALS = {"marker_recall": 0.995, "marker_p95_in": 0.05, "colour_recall": 0.98, "colour_p95_in": 0.08,
         "terrain_iou": 0.9}
KINDS = ("woods", "rocks", "hill", "water")


@dataclass
class PhotoScore:
    index: int
    groups: dict[str, str]
    marker_total: int = 0
    marker_found: int = 0
    marker_false: list[str] = field(default_factory=list)
    marker_errors_in: list[float] = field(default_factory=list)
    grid_ok: bool = True
    grid_note: str = ""
    colour_phantoms: list[str] = field(default_factory=list)
    colour_phantom_kinds: list[str] = field(default_factory=list)   # what each phantom is (phantom_kind)
    colour_errors_in: list[float] = field(default_factory=list)
    painted_total: int = 0          # colour figures whose base's whole top is painted (of colour_total)
    painted_found: int = 0
    water_total: int = 0            # colour figures standing in water felt (of colour_total: a blue one in
    water_found: int = 0            # blue water), and of them, found
    colour_in_water: list[bool] = field(default_factory=list)       # each of colour_errors_in's figures
    side_total: Counter = field(default_factory=Counter)    # visible colour figures of each side
    side_found: Counter = field(default_factory=Counter)    # and of them, found
    # the same by how finely the photo shows the table at the figure (ppi_band), with the found ones'
    # errors, and the phantoms by the band at their place
    band_total: Counter = field(default_factory=Counter)
    band_found: Counter = field(default_factory=Counter)
    band_errors_in: dict[str, list[float]] = field(default_factory=dict)
    band_phantoms: Counter = field(default_factory=Counter)
    terrain_iou: dict[str, list[float]] = field(default_factory=dict)
    terrain_extra: list[str] = field(default_factory=list)
    hand_drawn: bool = False        # a hand reaches in over this table
    hand_found: bool = False        # and the hands found cover HAND_FOUND_SHARE of it
    hands_where_none: int = 0       # found hands (parts of them) clear of any drawn hand
    misses: list[str] = field(default_factory=list)

    @property
    def colour_total(self) -> int:
        """Visible colour figures, all sides (counted by side only)."""
        return sum(self.side_total.values())

    @property
    def colour_found(self) -> int:
        return sum(self.side_found.values())


def _marker_truth(truth: Scene):
    return {f.marker: f for f in truth.figures if f.detected_by == "marker" and f.marker is not None}


def score_markers(found: Scene, truth: Scene, s: PhotoScore) -> None:
    want = _marker_truth(truth)
    seen = {f.marker: f for f in found.figures if f.marker is not None and not f.hidden}
    for marker, t in want.items():
        if t.hidden:
            continue
        s.marker_total += 1
        f = seen.get(marker)
        d = math.hypot(f.x - t.x, f.y - t.y) if f is not None else math.inf
        if d <= GATE_IN:
            s.marker_found += 1
            s.marker_errors_in.append(d)
        else:
            s.misses.append(f"marker {marker} at ({t.x:.1f}, {t.y:.1f}) "
                            + ("not found" if f is None else f"found {d:.2f} in away"))
    for marker, f in seen.items():
        t = want.get(marker)
        if t is None or (not t.hidden and math.hypot(f.x - t.x, f.y - t.y) > GATE_IN):
            s.marker_false.append(f"m{marker}")
            s.misses.append(f"false marker {marker} at ({f.x:.1f}, {f.y:.1f})")


def score_grid(found: Scene, truth: Scene, s: PhotoScore) -> None:
    t, f = truth.grid, found.grid
    if t is None:
        s.grid_ok = f is None
        s.grid_note = "" if f is None else f"false {f.kind} grid, pitch {f.pitch_in:.2f} in"
    elif f is None:
        s.grid_ok, s.grid_note = False, f"{t.kind} grid (pitch {t.pitch_in} in) not found"
    else:
        s.grid_ok = f.kind == t.kind and abs(f.pitch_in / t.pitch_in - 1) < 0.03
        s.grid_note = "" if s.grid_ok else f"{t.kind} {t.pitch_in} in grid found as {f.kind} {f.pitch_in:.2f} in"
    if s.grid_note:
        s.misses.append("grid: " + s.grid_note)


def colour_pairs(found: Scene, truth: Scene):
    """(the found colour figures, the truth's, {truth index: (found index, distance in)}): visible truth
    only, nearest pairs first, same side only, within GATE_IN."""
    found_c = [f for f in found.figures if f.detected_by == "colour" and not f.hidden]
    truth_c = [f for f in truth.figures if f.detected_by == "colour"]
    return found_c, truth_c, nearest_pairs(truth_c, found_c, lambda t, f: not t.hidden and f.side == t.side, GATE_IN)


def nearest_pairs(xs, ys, fits, reach_in: float) -> dict[int, tuple[int, float]]:
    """{index in xs: (index in ys, distance in)}: the pairs of figures that `fits(x, y)` within
    `reach_in`, nearest first, each figure of either list in one pair at most."""
    pairs = sorted((math.hypot(y.x - x.x, y.y - x.y), i, j) for i, x in enumerate(xs)
                   for j, y in enumerate(ys) if fits(x, y))
    out: dict[int, tuple[int, float]] = {}
    used: set[int] = set()
    for d, i, j in pairs:
        if d <= reach_in and i not in out and j not in used:
            out[i] = (j, d)
            used.add(j)
    return out


def frame_ppi(camera, x_in: float, y_in: float) -> float:
    """Frame pixels per inch of the table at (x_in, y_in): the shorter of an inch's steps along x and y
    (as vision.quality.colour_resolution reads it from the registration)."""
    p = camera.project(np.array([[x_in, y_in, 0.0], [x_in + 1, y_in, 0.0], [x_in, y_in + 1, 0.0]]))
    return float(min(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[0])))


_LEAST_PPI = VISION_DEFAULTS["colour_least_px_per_in"]
# How finely a photo shows the table at a place, against the house default a colour base needs
# (`colour_least_px_per_in`) and 4 px/in under it: the bands, coarsest first.
PPI_BANDS = (f"under {_LEAST_PPI - 4:g} px/in", f"{_LEAST_PPI - 4:g}-{_LEAST_PPI:g} px/in",
             f"{_LEAST_PPI:g} px/in and more")


def ppi_band(ppi: float) -> str:
    """The band of PPI_BANDS a place shown at `ppi` frame pixels per inch falls in."""
    return PPI_BANDS[0] if ppi < _LEAST_PPI - 4 else PPI_BANDS[1] if ppi < _LEAST_PPI else PPI_BANDS[2]


def in_water(truth: Scene):
    """(x, y) in -> whether a figure centred there stands in the truth's water felt."""
    water = [t.polygon for t in truth.terrain if t.kind == "water"]
    return lambda x, y: any(w.contains(Point(x, y)) for w in water)


def score_colour(found: Scene, truth: Scene, s: PhotoScore, suspect=None, rim_visible=None,
                 painted_top=None, ppi_at=None) -> None:
    """`ppi_at(x, y)`: the frame's pixels per inch at a table place (frame_ppi), to count by ppi_band.
    A figure whose centre lies in the truth's water felt stands in water (counted apart too)."""
    found_c, truth_c, matched = colour_pairs(found, truth)
    used = {j for j, _ in matched.values()}
    stands_in_water = in_water(truth)
    for i, t in enumerate(truth_c):
        if t.hidden:
            continue
        painted = bool(painted_top and painted_top.get(t.id))
        wet = stands_in_water(t.x, t.y)
        band = ppi_band(ppi_at(t.x, t.y)) if ppi_at else None
        s.painted_total += painted
        s.water_total += wet
        s.side_total[t.side] += 1
        if band:
            s.band_total[band] += 1
        if i in matched:
            s.side_found[t.side] += 1
            s.painted_found += painted
            s.water_found += wet
            s.colour_errors_in.append(matched[i][1])
            s.colour_in_water.append(wet)
            if band:
                s.band_found[band] += 1
                s.band_errors_in.setdefault(band, []).append(matched[i][1])
        else:
            vis = f", {rim_visible.get(t.id, 1):.0%} of rim in view" if rim_visible else ""
            vis += ", whole top painted" if painted else ""
            vis += ", standing in water" if wet else ""
            s.misses.append(f"colour {t.id} ({t.side}{vis}) at ({t.x:.1f}, {t.y:.1f}) missed")
    hidden = [t for t in truth_c if t.hidden]
    missed = [t for i, t in enumerate(truth_c) if not t.hidden and i not in matched]
    phantoms = [f for j, f in enumerate(found_c)
                if j not in used and not any(math.hypot(f.x - t.x, f.y - t.y) <= GATE_IN for t in hidden)]
    # Each missed figure explains at most one phantom, nearest pairs first: one of another side within
    # the gate was found with its side misread (it counts once as missed and once as a phantom); one of
    # its own side a little past the gate was found too far off.
    misread = _claim(phantoms, missed, lambda f, t: t.side != f.side, GATE_IN, {})
    off = _claim(phantoms, missed, lambda f, t: t.side == f.side, 2 * GATE_IN, misread)
    for j, f in enumerate(phantoms):
        what = suspect(f.x, f.y) if suspect else ""
        s.colour_phantoms.append(f.id)
        if ppi_at:
            s.band_phantoms[ppi_band(ppi_at(f.x, f.y))] += 1
        s.colour_phantom_kinds.append(phantom_kind(what, f.side, j in misread, j in off))
        note = (f": figure {misread[j].id} ({misread[j].side}) read as {f.side}" if j in misread else
                f": figure {off[j].id} found {math.hypot(f.x - off[j].x, f.y - off[j].y):.2f} in off" if j in off else "")
        s.misses.append(f"phantom {f.side} colour figure at ({f.x:.1f}, {f.y:.1f})" + (f" on {what}" if what else "") + note)


def _claim(phantoms, missed, fits, reach_in: float, taken: dict) -> dict:
    """{phantom index: the missed truth figure it is}: nearest_pairs that `fits(phantom, figure)`
    within `reach_in`, none of the figures already `taken`."""
    gone = {id(t) for t in taken.values()}
    pairs = nearest_pairs(phantoms, missed, lambda f, t: fits(f, t) and id(t) not in gone, reach_in)
    return {j: missed[i] for j, (i, _d) in pairs.items()}


def phantom_kind(what: str, side: str, misread: bool = False, off: bool = False) -> str:
    """A phantom's class, from what lies under it (`suspect`'s words), its side, and whether it is a
    figure of another side missed there (its side misread) or one of its own side missed a little
    past the gate (found too far off)."""
    if misread:
        return "a figure of the other side, its side misread"
    if off:
        return "a figure of its side, found too far off"
    if what.startswith("figure "):
        return "cloth of its side on a figure's body" if f", {side} cloak)" in what else "a figure's body"
    if " die" in what:
        return "a die"
    if " felt " in what:
        return "felt"
    if what in ("the mat", "the hand"):
        return what
    return "clutter" if what.startswith("the ") else what or "nothing named"


def score_terrain(found: Scene, truth: Scene, s: PhotoScore) -> None:
    for (kind, poly), piece in zip(visible_truth(truth), truth.terrain):
        best = 0.0
        for f in found.terrain:
            if f.kind == kind:
                union = f.polygon.union(poly).area
                best = max(best, f.polygon.intersection(poly).area / union if union else 0.0)
        s.terrain_iou.setdefault(kind, []).append(best)
        if best < GOALS["terrain_iou"]:
            s.misses.append(f"terrain {piece.id} ({kind}) IoU {best:.2f}")
    for f in found.terrain:
        same = [p for k, p in visible_truth(truth) if k == f.kind]
        if not any(f.polygon.intersects(p) for p in same):
            s.terrain_extra.append(f.kind)
            c = f.polygon.centroid
            s.misses.append(f"{f.kind} found where there is none, at ({c.x:.1f}, {c.y:.1f}), "
                            f"{f.polygon.area:.1f} sq in, confidence {f.extra.get('confidence', math.nan):.2f}")


def score_hands(found: Scene, drawn, s: PhotoScore, suspect=None) -> None:
    """The hands found (the Scene's `hands`) against the hand drawn (its footprint on the table, a
    shapely geometry, or None): found when they cover HAND_FOUND_SHARE of it; each part of them
    HAND_NONE_IN2 or larger lying HAND_CLEAR_IN clear of it is a hand where there is none, named by
    what `suspect` (x, y) says lies there."""
    polygons = [Polygon(h["polygon"]) for h in found.extra.get("hands", [])]
    union = shapely.union_all(polygons) if polygons else Polygon()
    s.hand_drawn = drawn is not None and not drawn.is_empty
    if s.hand_drawn:
        s.hand_found = union.intersection(drawn).area >= HAND_FOUND_SHARE * drawn.area
        if not s.hand_found:
            c = drawn.centroid
            s.misses.append(f"the hand at ({c.x:.1f}, {c.y:.1f}) not found")
    clear = union.difference(drawn.buffer(HAND_CLEAR_IN)) if s.hand_drawn else union
    for part in shapely.get_parts(clear):
        if part.area >= HAND_NONE_IN2:
            s.hands_where_none += 1
            c = part.centroid
            on = f" on {suspect(c.x, c.y)}" if suspect is not None else ""
            s.misses.append(f"a hand where there is none, at ({c.x:.1f}, {c.y:.1f}), {part.area:.1f} sq in{on}")


def score_photo(photo, found: Scene) -> PhotoScore:
    """Every figure (markers, grid, colour, terrain, hands) for one HardPhoto (vision.synthetic.hard)
    and the scene found in it."""
    s = PhotoScore(index=photo.index, groups=photo.conditions.groups())
    score_markers(found, photo.truth, s)
    score_grid(found, photo.truth, s)
    score_colour(found, photo.truth, s, suspect=lambda x, y: suspect(photo, x, y), rim_visible=photo.rim_visible,
                 painted_top=photo.painted_top, ppi_at=lambda x, y: frame_ppi(photo.camera, x, y))
    score_terrain(found, photo.truth, s)
    table = box(0.0, 0.0, photo.truth.table.width_in, photo.truth.table.depth_in)
    score_hands(found, photo.hand.footprint(photo.camera).intersection(table) if photo.hand is not None else None, s,
                suspect=lambda x, y: suspect(photo, x, y))
    return s


def suspect(photo, x: float, y: float) -> str:
    """What in the truth lies under (x, y): the thing a phantom was most likely made of."""
    p = Point(x, y)
    if photo.hand is not None and photo.hand.footprint(photo.camera).buffer(0.3).contains(p):
        return "the hand"
    for d in photo.dice:
        if math.hypot(d.x_in - x, d.y_in - y) < 0.6:
            return f"a {'red' if d.rgb[0] > d.rgb[2] else 'blue'} die"
    for item in photo.clutter:
        if item.footprint(photo.camera).buffer(0.3).contains(p):
            return f"the {item.kind}"
    for f in photo.truth.figures:
        if f.detected_by == "colour" and math.hypot(f.x - x, f.y - y) < 1.5:
            cloth = photo.cloaks.get(f.id)
            return f"figure {f.id}'s body ({f.side}" + (f", {cloth} cloak)" if cloth else ")")
    for t in photo.truth.terrain:
        if t.polygon.buffer(0.3).contains(p):
            return f"{t.kind} felt {t.id}"
    return "the mat"


def hidden_reported(found: Scene, truth: Scene, *, markers_only: bool = False,
                    before: Scene | None = None) -> tuple[int, int, list[str]]:
    """(hidden truth figures, of them reported hidden, names of the others). With a previous
    picture (the default) each must be reported hidden at its last place (within the gate); a
    still photo can only know the roster's markers, and no place for them: `markers_only`. Given
    the previous picture's own scene (`before`), a figure it did not find is named so: nothing could
    be carried (colour rim recall, not the hand)."""
    want = [t for t in truth.figures if t.hidden and (t.marker is not None or not markers_only)]
    ok, bad = 0, []
    for t in want:
        hit = any(f.hidden and _same_figure(f, t) and (markers_only or math.hypot(f.x - t.x, f.y - t.y) <= GATE_IN)
                  for f in found.figures)
        ok += hit
        if hit:
            continue
        if before is not None and not any(_same_figure(f, t) and math.hypot(f.x - t.x, f.y - t.y) <= GATE_IN
                                          for f in before.figures):
            bad.append(f"{t.id} under the hand, {UNSEEN_BEFORE}")
            continue
        # (a colour figure is gone when nothing of its side is reported within the gate of it)
        gone = not any(_same_figure(f, t) and (t.marker is not None or math.hypot(f.x - t.x, f.y - t.y) <= GATE_IN)
                       for f in found.figures)
        bad.append(f"{t.id} under the hand " + ("removed" if gone else "not reported hidden at its place"))
    return len(want), ok, bad


def _same_figure(found, truth) -> bool:
    """The same roster marker, or for a colour figure the same side."""
    return found.marker == truth.marker if truth.marker is not None else found.side == truth.side


def p95(values) -> float:
    return float(np.percentile(values, 95)) if len(values) else math.nan


