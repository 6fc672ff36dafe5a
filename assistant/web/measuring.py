"""The referee's facts as JSON: line of sight between two figures and every shooter's ranking."""
from __future__ import annotations

from typing import Any

from calibration.profile import TableProfile
from measure.scene import Scene
from measure.sight import MeasureSettings
from measure.targets import closest_targets

from assistant.rules.sight_answer import los_answer
from assistant.rules.system import RuleSystem
from assistant.web.words import REASON_WORDS, figure_names, name_list, thing_names


class LosQueryError(ValueError):
    """A line-of-sight question that cannot be answered; the message names the item."""


def measure_settings(profile: TableProfile) -> MeasureSettings:
    r = profile.rules
    return MeasureSettings(ruler_edge_in=r.ruler_edge_in, ruler_width_in=r.ruler_width_in,
                           engage_gap_in=r.engage_gap_in, tie_in=r.tie_in)


def los_json(scene: Scene, a: str | None, b: str | None, width: str | None, system: RuleSystem,
             profile: TableProfile) -> dict[str, Any]:
    """The tablet's line-of-sight answer: the same `los_answer` as `tablesight los`, with names and words."""
    if not a or not b:
        raise LosQueryError("los: give two figures, ?a=ID&b=ID")
    if a == b:
        raise LosQueryError(f"los: pick two different figures (both are {a})")
    answer = los_answer(scene, a, b, width, system, measure_settings(profile))
    names = thing_names(scene)
    out = answer.to_json(names)
    blockers = [x["name"] for x in out["blocked_by"]]
    out["words"] = (f"{names[a]} can see {names[b]}." if answer.result.clear else
                    f"{names[a]} cannot see {names[b]}: blocked by {name_list(blockers)}.")
    return out


def targets_json(scene: Scene, system: RuleSystem, profile: TableProfile,
                 shooter: str | None = None) -> dict[str, Any]:
    specs = system.shooter_specs(scene)
    if shooter is not None:
        scene.figure(shooter)                           # SceneError for an unknown id
        if shooter not in specs:
            fig = scene.figure(shooter)
            return {"shooters": [], "note": f"{fig.name or fig.id} ({fig.type or 'no type'}) does not shoot "
                                            f"in {system.title}."}
        specs = {shooter: specs[shooter]}
    results = closest_targets(scene, specs, system.sight_policy(), measure_settings(profile))
    names = thing_names(scene)
    out = []
    for r in results:
        out.append({
            "shooter": r.shooter, "name": names.get(r.shooter, r.shooter), "width_in": r.width_in,
            "range_in": r.range_in, "target": r.target, "target_name": names.get(r.target) if r.target else None,
            "distance_in": None if r.distance_in is None else round(r.distance_in, 3), "ties": list(r.ties),
            "enemies": [{"id": e.id, "name": names.get(e.id, e.id), "distance_in": round(e.distance_in, 3),
                         "edge_distance_in": round(e.edge_distance_in, 3), "reason": e.reason,
                         "reason_words": REASON_WORDS.get(e.reason, e.reason),
                         "blocked_by": [{"id": i, "name": names.get(i, i)} for i in e.blocked_by]}
                        for e in r.enemies]})
    return {"shooters": out, "names": figure_names(scene)}
