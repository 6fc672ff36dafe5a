"""AnyMinis! attacks: the hit roll, damage and the leader's tie-break, read from the Scene.

A mixin of the AnyMinis rule system (assistant/rules/anyminis.py): it uses the system's `assess`,
`values`, `sight_policy`, `spaces_between`, `terrain_class` and `_kinds_at`. Facing comes from a
figure's `facing` key. Sentences quoted are from the AnyMinis! text.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from measure.engage import contact_matrix
from measure.los import line_of_sight
from measure.scene import Figure, Scene

from assistant.rules.anyminis_rules import (Assessment, AssessmentError, HitFacts, Weapon, attacks_allowed, damage_roll,
                                            damage_taken, defence_die, hit_roll)
from assistant.rules.dice import Dice, d3_from_d6
from assistant.rules.events import Event, Prompt, StepResult, event
from assistant.rules.errors import ScenarioError
from assistant.rules.facing import parse_facing
from assistant.rules.inputs import need





def facing_deg(fig: Figure) -> float | None:
    """The way a figure faces, degrees from table +x toward +y, from its `facing` key."""
    return parse_facing(fig.extra.get("facing"), f"figure {fig.id!r}", ScenarioError)


def is_behind(defender: Figure, attacker: Figure, arc_deg: float) -> bool:
    """The attacker stands more than `arc_deg` from the defender's facing (None facing: not behind)."""
    face = facing_deg(defender)
    if face is None:
        return False
    bearing = math.degrees(math.atan2(attacker.y - defender.y, attacker.x - defender.x))
    off = abs((bearing - face + 180.0) % 360.0 - 180.0)
    return off > arc_deg + 1e-9


def _pick_weapon(a: Assessment, name: str | None, aliases: Mapping[str, str]) -> Weapon:
    if name is None:
        return a.weapons[0]
    key = aliases.get(name, name)
    for w in a.weapons:
        if w.name == key:
            return w
    raise AssessmentError(f"figure {a.id!r} does not carry {name!r}; it has {', '.join(w.name for w in a.weapons)}")


def _fmt(mods: Mapping[str, int]) -> str:
    return "".join(f" {v:+d} {k.replace('_', ' ')}" for k, v in mods.items())


class AttackStep:
    def step_attack(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """Each attack in `attacks` in order: the hit roll, then damage; the dead leave at clean-up."""
        combat = self.values["combat"]
        bonuses = {"from_behind": combat["from_behind"], "difficult_ranged": combat["difficult_ranged"],
                   "attacking": self.values["stances"]["attacking"]["attack"],
                   "defending": self.values["stances"]["defending"]["defence"],
                   "aiming": self.values["stances"]["aiming"]["launched_attack"],
                   "dodging": (self.values["stances"]["dodging"]["dodge"]
                               if combat["dodge_roll_needs_defence_point"] else 0)}
        policy = self.sight_policy()
        hp = {f.id: int(options.get("hp", {}).get(f.id, f.extra.get("hp", self.assess(f).hit_points)))
              for f in scene.figures}
        leader_points = {k: int(v) for k, v in options.get("leader_points", {}).items()}
        attacked_by: dict[str, list[str]] = {k: list(v) for k, v in options.get("attacked_this_turn", {}).items()}
        made: dict[str, int] = {k: int(v) for k, v in options.get("attacks_made", {}).items()}
        touching = contact_matrix(scene, 0.1)
        index = {f.id: i for i, f in enumerate(scene.figures)}
        events: list[Event] = []
        prompts: list[Prompt] = []
        removed: list[str] = []
        for n, spec in enumerate(need(options, "attacks")):
            att = scene.figure(need(spec, "attacker", f"attacks[{n}]"))
            tgt = scene.figure(need(spec, "target", f"attacks[{n}]"))
            if att.side == tgt.side:
                raise ScenarioError(f"attacks[{n}]: {att.id} and {tgt.id} are on the same side")
            a, d = self.assess(att), self.assess(tgt)
            if att.id in removed or tgt.id in removed:
                events.append(event("attack_skipped", f"{att.id} -> {tgt.id}: a figure is already down.",
                                    attacker=att.id, target=tgt.id))
                continue
            allowed = attacks_allowed(len(a.weapons), combat["attacks_one_weapon"], combat["attacks_two_weapons"])
            if allowed is not None and made.get(att.id, 0) >= allowed:
                # "Only minis wielding 2 weapons are allowed 2 attacks in a single turn"
                events.append(event("attack_illegal", f"{att.id} wields {len(a.weapons)} weapon(s) and has made its "
                                    f"{allowed} attack(s) this turn.", attacker=att.id, target=tgt.id,
                                    allowed=allowed, reason="attacks_used"))
                continue
            weapon = _pick_weapon(a, spec.get("weapon"), self.values.get("weapon_aliases", {}))
            spaces = self.spaces_between(scene, att, tgt)
            if spaces > weapon.range_spaces:
                events.append(event("attack_illegal", f"{att.id} cannot reach {tgt.id} with {weapon.name}: "
                                    f"{spaces} spaces, range {weapon.range_spaces}.", attacker=att.id,
                                    target=tgt.id, spaces=spaces, range=weapon.range_spaces, reason="out_of_range"))
                continue
            if weapon.kind != "melee":
                los = line_of_sight(scene, att.id, tgt.id, self.values["leaders"]["sight_width"], policy)
                if not los.clear:
                    events.append(event("attack_illegal", f"{att.id} cannot see {tgt.id}: "
                                        f"{', '.join(los.blocked_by)} in the way.", attacker=att.id, target=tgt.id,
                                        reason="no_line_of_sight", blocked_by=list(los.blocked_by)))
                    continue
            behind = (bool(spec["from_behind"]) if "from_behind" in spec
                      else is_behind(tgt, att, combat["behind_arc_deg"]))
            prior = len({x for x in attacked_by.get(tgt.id, []) if x != att.id})
            tgt_kinds = self._kinds_at(scene, tgt.xy)
            facts = HitFacts(extra_points=int(spec.get("extra_points", 0)), prior_attackers=prior, from_behind=behind,
                             attacker_stance=a.stance, weapon_kind=weapon.kind,
                             defence_points=int(spec.get("defence_points", 0)), armour=d.armour, shield=d.shield,
                             defender_in_difficult=any(self.terrain_class(k).get("difficult") for k in tgt_kinds),
                             defender_stance=d.stance)
            made[att.id] = made.get(att.id, 0) + 1
            a_die = dice.roll(6, "hit roll", who=att.id)
            d_raw = dice.roll(6, "defence roll", who=tgt.id)
            d_die = d_raw if defence_die(facts) == 6 else d3_from_d6(d_raw)
            outcome = hit_roll(a_die, d_die, facts, bonuses)
            attacked_by.setdefault(tgt.id, []).append(att.id)
            hit, by_leader = outcome.hit, None
            if outcome.tie:
                leaders = [f for f in scene.figures if f.side == att.side and f.id != att.id and f.id not in removed
                           and self.type_name(f.type) == "leader" and touching[index[f.id], index[att.id]]]
                for leader in leaders:
                    if leader_points.get(leader.id, 0) >= self.values["leaders"]["tie_break_cost"]:
                        leader_points[leader.id] -= self.values["leaders"]["tie_break_cost"]
                        hit, by_leader = True, leader.id
                        break
                else:
                    if leaders:
                        prompts.append(Prompt("leader_tie_break", f"{leaders[0].id} is next to {att.id}: if he has "
                                              f"an action point left he may spend it for the tied attack on {tgt.id} "
                                              "to succeed.",
                                              (leaders[0].id,)))
            roll_text = (f"{att.id} rolls {outcome.attack_total} ({a_die}{_fmt(outcome.attack_mods)}) against "
                         f"{tgt.id}'s {outcome.defence_total} (d{defence_die(facts) if defence_die(facts) == 6 else 3} "
                         f"{d_die}{_fmt(outcome.defence_mods)})")
            data = dict(attacker=att.id, target=tgt.id, weapon=weapon.name, attack_roll=a_die, defence_roll=d_die,
                        attack_total=outcome.attack_total, defence_total=outcome.defence_total,
                        attack_mods=dict(outcome.attack_mods), defence_mods=dict(outcome.defence_mods),
                        from_behind=behind)
            if not hit:
                events.append(event("attack_miss", roll_text + (": a tie goes to the defender." if outcome.tie else
                                                               ": no hit."), **data))
                continue
            die_value = None
            if weapon.damage_die == "d6":
                die_value = dice.roll(6, "damage", who=att.id)
            elif weapon.damage_die == "d3":
                die_value = d3_from_d6(dice.roll(6, "damage", who=att.id))
            raw = damage_roll(weapon, die_value)
            types = d.defence_types(behind)
            taken = damage_taken(raw, types)
            hp[tgt.id] -= taken
            events.append(event("attack_hit", f"{roll_text}: {'a tie made a hit' if by_leader else 'a hit'} "
                                f"for {raw} damage, less {len(types)} for "
                                f"{', '.join(types) or 'no defences'}: {taken}; {tgt.id} has {max(hp[tgt.id], 0)} "
                                "hit points left.", **data, damage_roll=die_value, damage=raw,
                                defence_types=list(types), damage_taken=taken, hp_left=hp[tgt.id]))
            if by_leader:
                events.append(event("leader_tie_break", f"The roll was a tie: {by_leader}, next to {att.id}, spends an "
                                    "action point for the attack to succeed.", leader=by_leader, attacker=att.id,
                                    target=tgt.id))
            if hp[tgt.id] <= 0:
                removed.append(tgt.id)
                events.append(event("dead", f"{tgt.id} is dead (removed at clean-up).", figure=tgt.id))
        return StepResult("attack", tuple(events), tuple(removed), tuple(prompts),
                          extra={"hp": hp, "leader_points": leader_points})
