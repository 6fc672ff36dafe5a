"""One line-of-sight answer for the command line (`tablesight los`) and the tablet (`/api/los`).

`parse_width` reads a corridor width the same way everywhere ("rules": what the shooter's type needs
in the system, the edge if it cannot shoot; "edge"; "ruler"; a positive number of inches), and
`los_answer` lays the ruler once and returns a typed `LosAnswer`. Its `to_json()` gives the tablet's
keys (docs/api.md); `cli_json()` the same answer under the command line's published `--json` keys
(docs/measuring.md), which both surfaces keep.

The target is a figure B, or a point: `to` "X,Y" in table inches or `cell` "COL,ROW" on the scene's
grid (a spell's "target square must be in line of sight"); the answer then has `b` None and a `point`.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from measure.corridor import corridor
from measure.los import line_of_sight, line_of_sight_to_point, point_of
from measure.scene import Scene
from measure.sight import LosResult, MeasureSettings, resolve_width

from assistant.rules.system import RuleSystem


class WidthError(ValueError):
    """A corridor width that is not rules, edge, ruler or a positive number of inches."""


def parse_width(text: str | None, scene: Scene, shooter_id: str, system: RuleSystem,
                option: str = "width") -> tuple[str | float, str]:
    """(the width measure/ takes, the same in words)."""
    word = (text or "rules").strip().lower()
    if word == "rules":
        try:
            spec = system.shooter_spec(scene.figure(shooter_id))
        except ValueError:
            spec = None
        if spec is None:
            return "edge", "edge (this figure does not shoot)"
        fig_type = scene.figure(shooter_id).type or "figure"
        width_word = spec.width if isinstance(spec.width, str) else f"{spec.width:g} in"
        return spec.width, f"{width_word} ({system.title}, {fig_type.replace('_', ' ')})"
    if word in ("edge", "ruler"):
        return word, word
    try:
        value = float(word)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise WidthError(f"{option}: expected rules, edge, ruler or a positive number of inches, got {text[:40]!r}")
    return value, f"{value:g} in"


@dataclass(frozen=True)
class LosAnswer:
    a: str
    b: str | None                           # None when the target is a point
    width: str | float                      # as asked: "edge", "ruler" or inches
    width_words: str
    result: LosResult
    corridor: tuple[tuple[float, float], ...]
    point: tuple[float, float] | None = None    # the point target, table inches
    point_words: str | None = None              # "the point (3, 4)", "square 5,5 (centre ...)"

    def to_json(self, names: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The tablet's keys (docs/api.md): names put in when given; a point target adds `point`."""
        names = names or {}
        n = lambda i: names.get(i, i)       # noqa: E731
        r = self.result
        out = {"a": self.a, "a_name": n(self.a), "clear": r.clear,
               "width_in": round(r.width_in, 4), "width": self.width, "width_words": self.width_words,
               "distance_in": round(r.distance_in, 3), "blocked_by": [{"id": i, "name": n(i)} for i in r.blocked_by],
               "in_the_way": [{"id": i, "name": n(i)} for i in r.in_the_way],
               "corridor": [[round(x, 4), round(y, 4)] for x, y in self.corridor]}
        if self.point is None:
            out.update(b=self.b, b_name=n(self.b), edge_distance_in=round(r.edge_distance_in, 3))
        else:
            out.update(point=[round(self.point[0], 4), round(self.point[1], 4)], point_words=self.point_words)
        return out

    def cli_json(self) -> dict[str, Any]:
        """The command line's published `--json` keys (docs/measuring.md)."""
        r = self.result
        out = {"a": self.a, "b": self.b, "clear": r.clear, "width": round(r.width_in, 4),
               "distance": round(r.distance_in, 4), "edge_distance": round(r.edge_distance_in, 4),
               "blocked_by": list(r.blocked_by), "in_the_way": list(r.in_the_way)}
        if self.point is not None:
            out["point"] = [round(self.point[0], 4), round(self.point[1], 4)]
        return out


def los_answer(scene: Scene, a: str, b: str | None, width_text: str | None, system: RuleSystem,
               settings: MeasureSettings = MeasureSettings(), option: str = "width", *,
               to: str | None = None, cell: str | None = None) -> LosAnswer:
    """Sight from figure `a` to figure `b`, or (b None) to the point `to` "X,Y" / grid space `cell` "COL,ROW"."""
    fa = scene.figure(a)                                # SceneError names an unknown id
    point = point_words = None
    if b is None:
        point, point_words = point_of(scene, to, cell)  # SceneError: neither or both, or bad numbers
        end = point
    else:
        end = scene.figure(b).xy
    width, words = parse_width(width_text, scene, a, system, option)
    policy = system.sight_policy()
    result = (line_of_sight(scene, a, b, width, policy, settings) if point is None else
              line_of_sight_to_point(scene, a, point, width, policy, settings))
    width_in = resolve_width(width, settings)
    poly = corridor(fa.xy, end, width_in)
    ring = tuple(poly.exterior.coords)[:-1] if poly.geom_type == "Polygon" else ()
    return LosAnswer(a, b, width, words, result, tuple((float(x), float(y)) for x, y in ring), point, point_words)
