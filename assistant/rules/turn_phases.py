"""Phase builders the systems' turns share: who goes first, who shoots whom, who fights whom.

Each returns plain `Call`s; geometry comes from measure/ through its public functions, with the
system's own sight policy and shooter specs, so a system's policy flows through unchanged.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from measure.engage import engaged_ids, engaged_pairs
from measure.targets import closest_targets

from assistant.rules.turn import Call, TurnContext, TurnState


def by_order(state: TurnState, ids: list[str]) -> list[str]:
    """Figure ids sorted by their side's place in this turn's order (scene order within a side)."""
    place = {s: i for i, s in enumerate(state.order)}
    side = {f.id: f.side for f in state.scene.figures}
    return sorted(ids, key=lambda fid: place.get(side.get(fid), len(place)))


def initiative_calls(state: TurnState, ctx: TurnContext) -> tuple[Call, ...]:
    options: dict[str, Any] = {"sides": list(state.sides)}
    if state.carry.get("initiative"):
        options["last_initiative"] = state.carry["initiative"]     # AnyMinis!: "whoever had it last turn keeps it"
    return (Call("initiative", options, "Each player rolls: the highest roll goes first.", side=None),)


def order_from_winner(state: TurnState, call: Call, result: Mapping[str, Any], ctx: TurnContext) -> TurnState:
    """The side that won the roll acts first (the rules let it choose; the tablet takes "first")."""
    if "order" in result:
        return replace(state, order=tuple(result["order"]))
    winner = result.get("initiative")
    rest = tuple(s for s in state.sides if s != winner)
    return replace(state, order=((winner,) if winner else ()) + rest, carry={**state.carry, "initiative": winner})


def shooting_calls(make: Callable[[str, str, float], Call]) -> Callable[[TurnState, TurnContext], tuple[Call, ...]]:
    """One call per figure that can shoot and is not fighting, at its closest legal target
    (`measure.targets.closest_targets` with the system's specs and target policy). A tie takes the
    first of the tied (the rules here leave the choice to the players; the words say so)."""
    def calls(state: TurnState, ctx: TurnContext) -> tuple[Call, ...]:
        scene = state.scene
        fighting = engaged_ids(scene, ctx.settings.engage_gap_in)
        specs = {k: v for k, v in ctx.system.shooter_specs(scene).items() if k not in fighting}
        if not specs:
            return ()
        results = {r.shooter: r for r in closest_targets(scene, specs, ctx.system.target_policy(), ctx.settings)}
        out = []
        for fid in by_order(state, list(results)):
            r = results[fid]
            if r.target is not None:
                out.append(replace(make(fid, r.target, float(r.distance_in or 0.0)), why=why_not_closer(r)))
        return tuple(out)
    return calls


def aim_again(calls: Callable[[TurnState, TurnContext], tuple[Call, ...]], steps: tuple[str, ...]
              ) -> Callable[[TurnState, Call, TurnContext], Call | None]:
    """For a phase of one call per actor (`calls`, first in `about` the one acting): a call of `steps`
    whose target fell to an earlier call is worked out again for its actor on the table as it is now
    (its closest enemy now), or dropped when it has none left. The actor has not acted yet, so it still
    may. Calls of other steps (a morale test a result asked for) are left as they are."""
    def again(state: TurnState, call: Call, ctx: TurnContext) -> Call | None:
        present = {f.id for f in state.scene.figures}
        gone = [fid for fid in call.about[1:] if fid not in present]
        if call.step not in steps or not gone:
            return call
        fresh = next((c for c in calls(state, ctx) if c.about[:1] == call.about[:1]), None)
        if fresh is None:
            return None
        return replace(fresh, why=tuple(f"{fid} has fallen already." for fid in gone) + fresh.why)
    return again


def drop_if_fallen(steps: tuple[str, ...]) -> Callable[[TurnState, Call, TurnContext], Call | None]:
    """A fight (a call of `steps`) whose foe fell meanwhile is not fought; KIMMIRIA's worked example reads
    so: "B has no target anymore, it was killed by A"."""
    def again(state: TurnState, call: Call, ctx: TurnContext) -> Call | None:
        present = {f.id for f in state.scene.figures}
        return call if call.step not in steps or all(fid in present for fid in call.about) else None
    return again


WHY = {"blocked": "{e} is closer, but the way is blocked by {by}", "engaged": "{e} is closer, but it is in a fight",
       "out_of_range": "{e} is closer, but out of range", "out_of_arc": "{e} is closer, but outside its arc of fire"}
# The risks a system's target policy puts on a legal target (measure.targets RISKS): the step rolls for them.
RISK_WHY = {"obstacle_roll": "In the way: {by}. A die says if it stops the shot",
            "friendly_fire": "Careful: {e} is fighting next to a friend, so a die says if the shot hits the friend"}


def why_not_closer(result) -> tuple[str, ...]:
    """Sentences for each enemy nearer than the target that may not be shot, then the target's risks
    (figure and terrain ids in them)."""
    out = []
    for e in result.enemies:
        if result.distance_in is not None and e.distance_in < result.distance_in and e.reason in WHY:
            out.append(WHY[e.reason].format(e=e.id, by=" and ".join(e.blocked_by) or "something") + ".")
    target = next((e for e in result.enemies if e.id == result.target), None)
    for risk in (target.risks if target is not None else ()):
        if risk in RISK_WHY:
            out.append(RISK_WHY[risk].format(e=target.id, by=" and ".join(target.in_the_way) or "something") + ".")
    return tuple(out)


def fight_calls(make: Callable[[str, str], Call]) -> Callable[[TurnState, TurnContext], tuple[Call, ...]]:
    """One call per pair of enemies whose bases touch (`measure.engage.engaged_pairs`), the side acting
    first named first."""
    def calls(state: TurnState, ctx: TurnContext) -> tuple[Call, ...]:
        pairs = engaged_pairs(state.scene, ctx.settings.engage_gap_in)
        place = {s: i for i, s in enumerate(state.order)}
        side = {f.id: f.side for f in state.scene.figures}
        out = []
        for a, b in pairs:
            if place.get(side[b], 9) < place.get(side[a], 9):
                a, b = b, a
            out.append(make(a, b))
        return tuple(out)
    return calls
