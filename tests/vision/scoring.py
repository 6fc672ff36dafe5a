"""Scoring found scenes against synthetic truth (shared by the vision tests)."""
from __future__ import annotations

import numpy as np
import shapely

from measure.scene import Scene


def match_colour(found: Scene, truth: Scene, gate_in: float = 0.5):
    """(errors_in of matched truth bases, n missed, ids of found colour figures matching nothing)."""
    found_c = [f for f in found.figures if f.detected_by == "colour"]
    used: set[int] = set()
    errors, missed = [], 0
    for t in (f for f in truth.figures if f.detected_by == "colour"):
        d = [np.hypot(f.x - t.x, f.y - t.y) if f.side == t.side and k not in used else np.inf
             for k, f in enumerate(found_c)]
        k = int(np.argmin(d)) if d else -1
        if k >= 0 and d[k] <= gate_in:
            used.add(k)
            errors.append(d[k])
        else:
            missed += 1
    false = [f.id for k, f in enumerate(found_c) if k not in used]
    return errors, missed, false


def visible_truth(truth: Scene):
    """Truth terrain as the camera sees it: a piece laid later covers what it overlaps."""
    out = []
    pieces = list(truth.terrain)
    for i, piece in enumerate(pieces):
        poly = shapely.make_valid(piece.polygon)
        for later in pieces[i + 1:]:
            poly = poly.difference(shapely.make_valid(later.polygon))
        out.append((piece.kind, poly))
    return out


def terrain_ious(found: Scene, truth: Scene) -> list[float]:
    """Per truth piece: the best IoU with a found piece of its kind (0 when none)."""
    ious = []
    for kind, poly in visible_truth(truth):
        best = 0.0
        for f in found.terrain:
            if f.kind == kind:
                union = f.polygon.union(poly).area
                best = max(best, f.polygon.intersection(poly).area / union if union else 0.0)
        ious.append(best)
    return ious
