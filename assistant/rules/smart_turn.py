"""SMART's guided turn: who moves first, moving (6" or 12", barriers), shooting, hand-to-hand.

"Each player rolls a d20. The highest number moves their miniatures first"; "FOOT SOLDIERS ... move
6 inches in one turn. KNIGHTS AND LARGE MONSTERS move 12 inches"; "high walls and trees are complete
barriers". Each archer shoots at its closest enemy it can see and reach; every unit in hand-to-hand
then strikes in weapon-length order (the rules' own `melee` step).
"""
from __future__ import annotations

from dataclasses import replace

from measure.engage import engaged_pairs

from assistant.rules.turn import Call, Phase, TurnSpec
from assistant.rules.turn_phases import aim_again, initiative_calls, order_from_winner, shooting_calls


def _shot(shooter: str, target: str, distance_in: float) -> Call:
    return Call("missile", {"shots": [{"shooter": shooter, "target": target}]},
                f"{shooter} shoots at {target}: the closest enemy it can see and reach ({distance_in:.1f} in).",
                (shooter, target))


def _melee_calls(state, ctx):
    pairs = engaged_pairs(state.scene, ctx.settings.engage_gap_in)
    if not pairs:
        return ()
    before = {tuple(p) for p in state.carry.get("engaged", ())}
    # "first turn of combat": longest weapons strike first; later turns shortest first.
    combat_turn = 2 if pairs and all(tuple(p) in before for p in pairs) else 1
    fighters = ", ".join(f"{a} and {b}" for a, b in pairs)
    return (Call("melee", {"combat_turn": combat_turn},
                 f"Hand-to-hand: {fighters} fight. Longer weapons strike first on the first turn of a fight, "
                 "shorter ones after that.", tuple(x for p in pairs for x in p)),)


def _remember_fights(state, call, result, ctx):
    return replace(state, carry={**state.carry, "engaged": [list(p) for p in engaged_pairs(state.scene)]})


_missile_calls = shooting_calls(_shot)     # each archer at its closest enemy (chosen again if it falls)


def _allowance(system, scene, fig):
    return float(system.figure_type(fig.type)["move"])


TURN = TurnSpec(
    system="smart",
    phases=(
        Phase("initiative", "dice", "Who moves first?", initiative_calls, order_from_winner),
        Phase("move", "move", "Move"),
        Phase("missile", "dice", "Shooting", _missile_calls, none_words="Nobody can shoot.",
              again=aim_again(_missile_calls, ("missile",))),
        Phase("melee", "dice", "Hand-to-hand", _melee_calls, _remember_fights, none_words="Nobody is fighting."),
    ),
    allowance_in=_allowance,
    blocks_move=lambda system, kind: kind.lower() in system.values["terrain"]["barriers"],
    move_words=lambda system: "Foot soldiers move up to 6 inches, knights and large monsters up to 12. "
                              "High walls and trees cannot be crossed.",
)
