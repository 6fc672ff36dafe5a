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


# Words for the reasons and risks a system's target policy adds to KIMMIRIA's (words.REASON_WORDS).
POLICY_WORDS = {
    "shooter_engaged": "the shooter is touching an enemy: it does not shoot",
    "out_of_arc": "outside its arc of fire",
    "obstacle_roll": "something is in the way: a die says if the shot hits it instead",
    "friendly_fire": "fighting next to a friend: a die says if the shot hits the friend",
}


class LosQueryError(ValueError):
    """A line-of-sight question that cannot be answered; the message names the item."""


def measure_settings(profile: TableProfile) -> MeasureSettings:
    r = profile.rules
    return MeasureSettings(ruler_edge_in=r.ruler_edge_in, ruler_width_in=r.ruler_width_in,
                           engage_gap_in=r.engage_gap_in, tie_in=r.tie_in)


def los_json(scene: Scene, a: str | None, b: str | None, width: str | None, system: RuleSystem,
             profile: TableProfile, to: str | None = None, cell: str | None = None) -> dict[str, Any]:
    """The tablet's line-of-sight answer: the same `los_answer` as `tablesight los`, with names and words.
    The target is figure b, or a point: `to` X,Y / `cell` COL,ROW (a spell's target square)."""
    if a and not b and (to or cell):
        answer = los_answer(scene, a, None, width, system, measure_settings(profile), to=to, cell=cell)
        return _with_words(answer, thing_names(scene), answer.point_words)
    if not a or not b:
        raise LosQueryError("los: give two figures, ?a=ID&b=ID (or a point: ?a=ID&to=X,Y or ?a=ID&cell=COL,ROW)")
    if a == b:
        raise LosQueryError(f"los: pick two different figures (both are {a})")
    answer = los_answer(scene, a, b, width, system, measure_settings(profile))
    names = thing_names(scene)
    return _with_words(answer, names, names[b])


def _with_words(answer, names: dict[str, str], target_words: str) -> dict[str, Any]:
    out = answer.to_json(names)
    blockers = [x["name"] for x in out["blocked_by"]]
    out["words"] = (f"{names[answer.a]} can see {target_words}." if answer.result.clear else
                    f"{names[answer.a]} cannot see {target_words}: blocked by {name_list(blockers)}.")
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
    results = closest_targets(scene, specs, system.target_policy(), measure_settings(profile))
    names = thing_names(scene)
    out = []
    for r in results:
        out.append({
            "shooter": r.shooter, "name": names.get(r.shooter, r.shooter), "width_in": r.width_in,
            "range_in": r.range_in, "target": r.target, "target_name": names.get(r.target) if r.target else None,
            "distance_in": None if r.distance_in is None else round(r.distance_in, 3), "ties": list(r.ties),
            "engaged": r.engaged, "measure": r.measure, "range_unit": r.range_unit,
            "enemies": [{"id": e.id, "name": names.get(e.id, e.id), "distance_in": round(e.distance_in, 3),
                         "edge_distance_in": round(e.edge_distance_in, 3), "reason": e.reason,
                         "measured": round(e.measured, 3), "unit": r.range_unit, "needs": e.needs,
                         "risks": list(e.risks), "in_the_way": [{"id": i, "name": names.get(i, i)} for i in e.in_the_way],
                         "reason_words": REASON_WORDS.get(e.reason) or POLICY_WORDS.get(e.reason, e.reason),
                         "risk_words": [POLICY_WORDS[k] for k in e.risks],
                         "blocked_by": [{"id": i, "name": names.get(i, i)} for i in e.blocked_by]}
                        for e in r.enemies]})
    return {"shooters": out, "names": figure_names(scene)}
