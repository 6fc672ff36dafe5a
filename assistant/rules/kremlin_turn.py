"""KremlinMiniatures' guided turn: who has the first move, moving, shooting, melee.

"CinCs roll 1d6, highest score wins (re-roll ties)"; the winner moves first. A move is measured
against the most its movement dice can roll; each missile-armed unit shoots at its closest enemy
in range ("Declare the target and measure range"); every pair of units in contact fights one round.
A king killed sends the units under him to an immediate morale test, and a unit that fails one with
a king or captain attached gets its one attempt to rally, each played next.
"""
from __future__ import annotations

from dataclasses import replace

from assistant.rules.kremlin_rules import movement_dice
from assistant.rules.kremlin_units import build_units
from assistant.rules.turn import Call, Phase, TurnSpec
from assistant.rules.turn_phases import (aim_again, drop_if_fallen, fight_calls, initiative_calls, order_from_winner,
                                        shooting_calls)


def _unit_of(fig) -> str:
    return str(fig.extra.get("unit", fig.id))


def _shot(shooter: str, target: str, distance_in: float) -> Call:
    return Call("shoot", {"shooter": shooter, "target": target},
                f"{shooter} shoots at {target}: the closest enemy in range ({distance_in:.1f} in).", (shooter, target))


def _shoot_calls(state, ctx):
    """Each missile unit at its closest enemy, but only a unit whose facing is known: its "arc of fire -
    45 degrees measured from the unit's flank line" needs one (a photo does not give it; Setup does)."""
    units = build_units(state.scene, ctx.system)

    def faced(fid: str) -> bool:
        unit = units.get(_unit_of(state.scene.figure(fid)))
        return unit is not None and unit.facing_deg is not None
    return tuple(c for c in shooting_calls(_shot)(state, ctx) if faced(c.about[0]))


def _melee(a: str, b: str) -> Call:
    return Call("melee", {"melee": [a, b]}, f"{a} and {b} are in contact: they fight.", (a, b))


def _melee_calls(state, ctx):
    """"On the second turn of a drawn melee" both add +1: a pair whose last round was drawn says so."""
    drawn = {frozenset(p) for p in state.carry.get("drawn", ())}
    return tuple(replace(c, options={**c.options, "drawn_before": frozenset(c.about) in drawn})
                 for c in fight_calls(_melee)(state, ctx))


def _remember_draw(state, call, result, ctx):
    drawn = [p for p in state.carry.get("drawn", ()) if set(p) != set(call.about)]
    if result.get("result") == "draw":
        drawn.append(list(call.about))
    return replace(state, carry={**state.carry, "drawn": drawn})


def _follow_ups(state, call, result, ctx):
    """What a result asks for at once, played next: "When a king is killed all units under his command must
    take an immediate morale test"; a unit that fails one with a king or captain attached: "he may have one
    attempt to rally them"."""
    units = build_units(state.scene, ctx.system)
    more = []
    for p in result.get("prompts", ()):
        if p.get("kind") == "king_killed":
            for uid in p.get("options", ()):
                if uid in units:
                    more.append(Call("morale", {"unit": uid, "king_killed": True},
                                     f"{uid} must take a morale test: its king has fallen.", units[uid].all_bases))
        elif p.get("kind") == "rally" and call.step == "morale" and call.options.get("unit") in units:
            uid = call.options["unit"]
            general = (p.get("options") or [None])[0]
            more.append(Call("rally", {"unit": uid}, f"{general or 'Its general'} tries to rally {uid}: one attempt.",
                             units[uid].all_bases))
    if not more:
        return state
    return replace(state, calls=state.calls[:state.call + 1] + tuple(more) + state.calls[state.call + 1:])


def _after_melee(state, call, result, ctx):
    return _follow_ups(_remember_draw(state, call, result, ctx), call, result, ctx)


def _allowance(system, scene, fig):
    """The most the unit's movement dice can roll (6 a die, plus any fixed inches)."""
    unit = build_units(scene, system).get(_unit_of(fig))
    if unit is None:
        return None
    md = movement_dice(unit.move)
    return float(md.dice * 6 + md.plus)


TURN = TurnSpec(
    system="kremlin",
    phases=(
        Phase("initiative", "dice", "Who moves first?", initiative_calls, order_from_winner),
        Phase("move", "move", "Move"),
        Phase("shoot", "dice", "Shooting", _shoot_calls, _follow_ups,
              none_words="Nobody can shoot (a unit shoots into the arc it faces: give its facing on Setup).",
              again=aim_again(_shoot_calls, ("shoot",))),
        Phase("melee", "dice", "Melee", _melee_calls, _after_melee, none_words="Nobody is fighting.",
              again=drop_if_fallen(("melee",))),
    ),
    allowance_in=_allowance,
    move_words=lambda system: "Each unit moves as far as its movement dice allow; the tablet checks it against "
                              "the most those dice can roll.",
)
