"""AnyMinis!'s guided turn: who goes first, moving with action points, attacks.

"each team rolls 1d6 ... highest goes first"; a figure moves one space for each action point
("Squad members have 4 action points per turn", leaders 6, heroes 5); then every figure attacks:
one next to an enemy hits it in melee, one with a ranged weapon its closest enemy it can see.
"""
from __future__ import annotations

from measure.engage import enemy_matrix

from assistant.rules.turn import Call, Phase, TurnSpec
from assistant.rules.turn_phases import by_order, initiative_calls, order_from_winner, why_not_closer
from measure.targets import closest_targets


def _attack_calls(state, ctx):
    scene, system = state.scene, ctx.system
    # "next to" as the rules count spaces (the same reading the attack step uses for melee range).
    enemies = enemy_matrix(scene)
    index = {f.id: i for i, f in enumerate(scene.figures)}
    touching = {(a.id, b.id) for a in scene.figures for b in scene.figures
                if enemies[index[a.id], index[b.id]] and system.spaces_between(scene, a, b) <= 1}
    specs = system.shooter_specs(scene)
    ranged = {r.shooter: r for r in closest_targets(scene, specs, system.target_policy(), ctx.settings)} if specs else {}
    out = []
    for fid in by_order(state, [f.id for f in scene.figures]):
        foes = [f.id for f in scene.figures if (fid, f.id) in touching]
        if foes:
            out.append(Call("attack", {"attacks": [{"attacker": fid, "target": foes[0]}]},
                            f"{fid} is next to {foes[0]} and attacks it.", (fid, foes[0])))
        elif fid in ranged and ranged[fid].target is not None:
            r = ranged[fid]
            out.append(Call("attack", {"attacks": [{"attacker": fid, "target": r.target}]},
                            f"{fid} shoots at {r.target}: the closest enemy it can see and reach "
                            f"({r.distance_in:.1f} in).", (fid, r.target), why=why_not_closer(r)))
    return tuple(out)


def _allowance(system, scene, fig):
    """One space per action point (a grid's pitch, or 1 inch without a printed grid); diagonal spaces
    count as one once "1 to move diagonally" is paid: the farthest is max(AP, (AP - 1) x 1.414) spaces."""
    pitch = float(scene.grid.pitch_in) if scene.grid is not None else 1.0
    points = float(system.assess(fig).action_points)
    return max(points, (points - 1) * 2 ** 0.5) * pitch


TURN = TurnSpec(
    system="anyminis",
    phases=(
        Phase("initiative", "dice", "Who goes first?", initiative_calls, order_from_winner),
        Phase("move", "move", "Move"),
        Phase("attack", "dice", "Attacks", _attack_calls, none_words="Nobody can attack."),
    ),
    allowance_in=_allowance,
    blocks_move=lambda system, kind: bool(system.terrain_class(kind).get("blocks_movement")),
    move_words=lambda system: "Each figure moves one space for each action point: squad members 4, "
                              "heroes 5, leaders 6.",
)
