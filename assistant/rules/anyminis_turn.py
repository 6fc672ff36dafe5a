"""AnyMinis!'s guided turn: who goes first, moving with action points, attacks.

"each team rolls 1d6 ... highest goes first"; a figure moves one space for each action point
("Squad members have 4 action points per turn", leaders 6, heroes 5); then every figure attacks:
one next to an enemy hits it in melee, a spellcaster that did not move casts its attack spell
(Fireball, Lightning) at the closest enemy it can see and reach, one with a ranged weapon shoots at
its closest enemy it can see.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from measure.engage import enemy_matrix
from measure.los import line_of_sight

from assistant.rules.turn import Call, Phase, TurnSpec
from assistant.rules.turn_phases import aim_again, by_order, initiative_calls, order_from_winner, why_not_closer
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
        spell = None if foes else _spell_call(state, ctx, scene.figure(fid), enemies[index[fid]])
        if foes:
            out.append(Call("attack", {"attacks": [{"attacker": fid, "target": foes[0]}]},
                            f"{fid} is next to {foes[0]} and attacks it.", (fid, foes[0])))
        elif spell is not None:
            out.append(spell)
        elif fid in ranged and ranged[fid].target is not None:
            r = ranged[fid]
            out.append(Call("attack", {"attacks": [{"attacker": fid, "target": r.target}]},
                            f"{fid} shoots at {r.target}: the closest enemy it can see and reach "
                            f"({r.distance_in:.1f} in).", (fid, r.target), why=why_not_closer(r)))
    return tuple(out)


def _attack_spells(system, fig) -> list[tuple[str, int]]:
    """The figure's picked spells that are attacks (a weapon: Fireball, Lightning), with their range in spaces."""
    sp, weapons = system.values["spells"], system.values["weapons"]
    out = []
    for name in fig.extra.get("spells") or ():
        spell = sp.get(name)
        if isinstance(spell, Mapping) and "weapon" in spell:
            out.append((name, int(weapons[spell["weapon"]]["range"])))
    return out


def _spell_call(state, ctx, fig, is_enemy) -> Call | None:
    """A spellcaster's attack spell at the closest enemy it can see and reach, or None. "Figures can't cast
    a spell at move in the same turn (unless tagged as such)": one that moved (against where it stood
    when the turn began) attacks as usual, unless it is in the casting stance."""
    system, scene = ctx.system, state.scene
    spells = _attack_spells(system, fig)
    if not spells:
        return None
    stood = state.carry.get("stood", {}).get(fig.id)
    moved = stood is not None and math.hypot(fig.x - stood[0], fig.y - stood[1]) >= 0.25
    if moved and system.assess(fig).stance != "casting":
        return None
    reach = max(r for _, r in spells)
    foes = sorted(((system.spaces_between(scene, fig, f), i, f.id) for i, f in enumerate(scene.figures)
                   if is_enemy[i]), key=lambda t: (t[0], t[1]))
    for spaces, _, target in foes:
        if spaces > reach:
            break
        if line_of_sight(scene, fig.id, target, system.values["leaders"]["sight_width"], system.sight_policy()).clear:
            name = next(n for n, r in spells if r >= spaces)
            return Call("spell", {"caster": fig.id, "spell": name, "target": target, "moved": moved},
                        f"{fig.id} casts {name} at {target}: the closest enemy it can see and reach "
                        f"({spaces} spaces).", (fig.id, target))
    return None


def _remember_start(state, call, result, ctx):
    """Who goes first, and where each figure stood before anyone moved (a caster that moved may not cast)."""
    state = order_from_winner(state, call, result, ctx)
    return replace(state, carry={**state.carry, "stood": {f.id: [f.x, f.y] for f in state.scene.figures}})


def _allowance(system, scene, fig):
    """One space per action point (a grid's pitch, or 1 inch without a printed grid); diagonal spaces
    count as one once "1 to move diagonally" is paid: the farthest is max(AP, (AP - 1) x 1.414) spaces."""
    pitch = float(scene.grid.pitch_in) if scene.grid is not None else 1.0
    points = float(system.assess(fig).action_points)
    return max(points, (points - 1) * 2 ** 0.5) * pitch


TURN = TurnSpec(
    system="anyminis",
    phases=(
        Phase("initiative", "dice", "Who goes first?", initiative_calls, _remember_start),
        Phase("move", "move", "Move"),
        Phase("attack", "dice", "Attacks", _attack_calls, none_words="Nobody can attack.",
              again=aim_again(_attack_calls, ("attack", "spell"))),
    ),
    allowance_in=_allowance,
    blocks_move=lambda system, kind: bool(system.terrain_class(kind).get("blocks_movement")),
    move_words=lambda system: "Each figure moves one space for each action point: squad members 4, "
                              "heroes 5, leaders 6.",
)
