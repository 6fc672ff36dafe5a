"""The referee's facts as JSON: line of sight between two figures and every shooter's ranking."""
from __future__ import annotations

from typing import Any

from calibration.profile import TableProfile
from measure.corridor import corridor
from measure.los import line_of_sight, line_of_sight_to_point, point_of
from measure.scene import Scene
from measure.sight import MeasureSettings, resolve_width
from measure.targets import closest_targets

from assistant.rules.system import RuleSystem
from assistant.web.words import REASON_WORDS, figure_names, name_list, thing_names
from assistant.web.inputs import quote


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


def parse_width(text: str | None, scene: Scene, shooter_id: str, system: RuleSystem,
                settings: MeasureSettings) -> tuple[str | float, str]:
    """'rules' (the shooter's own ruler, edge if it cannot shoot), 'edge', 'ruler' or inches."""
    text = (text or "rules").strip().lower()
    if text == "rules":
        try:
            spec = system.shooter_spec(scene.figure(shooter_id))
        except ValueError:
            spec = None
        if spec is None:
            return "edge", "edge (this figure does not shoot)"
        fig_type = scene.figure(shooter_id).type or "figure"
        width_word = spec.width if isinstance(spec.width, str) else f"{spec.width:g} in"
        return spec.width, f"{width_word} ({system.title}, {fig_type.replace('_', ' ')})"
    if text in ("edge", "ruler"):
        return text, text
    try:
        value = float(text)
    except ValueError:
        raise LosQueryError(f"width: expected rules, edge, ruler or inches, got {quote(text)}") from None
    resolve_width(value, settings)              # SightError for 0, negative, nan
    return value, f"{value:g} in"


def point_los_json(scene: Scene, a: str, to: str | None, cell: str | None, width: str | None, system: RuleSystem,
                   profile: TableProfile) -> dict[str, Any]:
    """Sight from a figure to a table point or grid space (a spell's "target square must be in line of sight")."""
    fa = scene.figure(a)
    xy, point_words = point_of(scene, to, cell)
    settings = measure_settings(profile)
    w, w_words = parse_width(width, scene, a, system, settings)
    res = line_of_sight_to_point(scene, a, xy, w, system.sight_policy(), settings)
    names = thing_names(scene)
    blockers = [{"id": i, "name": names.get(i, i)} for i in res.blocked_by]
    words = (f"{names[a]} can see {point_words}." if res.clear else
             f"{names[a]} cannot see {point_words}: blocked by {name_list([x['name'] for x in blockers])}.")
    poly = corridor(fa.xy, xy, res.width_in)
    return {"a": a, "a_name": names[a], "point": [round(xy[0], 4), round(xy[1], 4)], "clear": res.clear,
            "width_in": round(res.width_in, 4), "width": w, "width_words": w_words,
            "distance_in": round(res.distance_in, 3), "blocked_by": blockers,
            "corridor": [[round(x, 4), round(y, 4)] for x, y in poly.exterior.coords][:-1]
            if poly.geom_type == "Polygon" else [], "words": words}


def los_json(scene: Scene, a: str | None, b: str | None, width: str | None, system: RuleSystem,
             profile: TableProfile, to: str | None = None, cell: str | None = None) -> dict[str, Any]:
    if a and not b and (to or cell):
        return point_los_json(scene, a, to, cell, width, system, profile)
    if not a or not b:
        raise LosQueryError("los: give two figures, ?a=ID&b=ID (or a point: ?a=ID&to=X,Y or ?a=ID&cell=COL,ROW)")
    if a == b:
        raise LosQueryError(f"los: pick two different figures (both are {a})")
    fa, fb = scene.figure(a), scene.figure(b)           # SceneError names an unknown id
    settings = measure_settings(profile)
    w, w_words = parse_width(width, scene, a, system, settings)
    width_in = resolve_width(w, settings)
    res = line_of_sight(scene, a, b, w, system.sight_policy(), settings)
    names = thing_names(scene)
    blockers = [{"id": i, "name": names.get(i, i)} for i in res.blocked_by]
    poly = corridor(fa.xy, fb.xy, width_in)
    words = (f"{names[a]} can see {names[b]}." if res.clear else
             f"{names[a]} cannot see {names[b]}: blocked by {name_list([x['name'] for x in blockers])}.")
    return {"a": a, "b": b, "a_name": names[a], "b_name": names[b], "clear": res.clear,
            "width_in": round(width_in, 4), "width": w, "width_words": w_words,
            "distance_in": round(res.distance_in, 3), "edge_distance_in": round(res.edge_distance_in, 3),
            "blocked_by": blockers, "corridor": [[round(x, 4), round(y, 4)] for x, y in poly.exterior.coords][:-1]
            if poly.geom_type == "Polygon" else [], "words": words}


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
