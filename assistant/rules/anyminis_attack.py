"""AnyMinis! attacks: the hit roll, damage and the leader's tie-break, read from the Scene.

A mixin of the AnyMinis rule system (assistant/rules/anyminis.py): it uses the system's `assess`,
`values`, `sight_policy`, `spaces_between`, `terrain_class` and `_kinds_at`. Facing comes from a
figure's `facing` key. Sentences quoted are from the AnyMinis! text.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from measure.engage import contact_matrix
from measure.los import line_of_sight
from measure.scene import Figure, Scene

from assistant.rules.anyminis_rules import (Assessment, AssessmentError, HitFacts, Weapon, attacks_allowed, damage_roll,
                                            damage_taken, defence_die, hit_roll)
from assistant.rules.anyminis_effects import forbidden
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


def _pick_weapon(a: Assessment, name: str | None, aliases: Mapping[str, str], ability: "Ability | None" = None) -> Weapon:
    if name is None:
        if ability is not None and ability.kind is not None:
            fit = [w for w in a.weapons if (w.kind == "melee") == (ability.kind == "melee")]
            if not fit:
                raise AssessmentError(f"figure {a.id!r} has no {ability.kind} weapon for {ability.name}")
            return fit[0]
        return a.weapons[0]
    key = aliases.get(name, name)
    for w in a.weapons:
        if w.name == key:
            if ability is not None and ability.kind is not None and (w.kind == "melee") != (ability.kind == "melee"):
                raise AssessmentError(f"{ability.name} needs a {ability.kind} attack; {w.name} is {w.kind}")
            return w
    raise AssessmentError(f"figure {a.id!r} does not carry {name!r}; it has {', '.join(w.name for w in a.weapons)}")


def _fmt(mods: Mapping[str, int]) -> str:
    return "".join(f" {v:+d} {k.replace('_', ' ')}" for k, v in mods.items())


@dataclass(frozen=True)
class Ability:
    """How a hero's ability changes one attack (None fields: no change)."""
    name: str
    attack_bonus: int = 0               # Charge "1d6+2"; Called shot "+3 die roll"
    damage_plus: int | None = None      # Charge "1d6+2 damage" (a d6 plus this, whatever the weapon)
    ignore_non_armour: bool = False     # Called shot
    kind: str | None = None             # "melee" or "ranged": the attack it must be


@dataclass
class AttackTurn:
    """What the attacks of one step have done so far."""
    bonuses: dict[str, int]
    hp: dict[str, int]
    leader_points: dict[str, int]
    attacked_by: dict[str, list[str]]
    made: dict[str, int]
    bring_it: frozenset[str]
    effects: tuple[Mapping[str, Any], ...]
    touching: Any
    index: dict[str, int]
    events: list[Event] = field(default_factory=list)
    prompts: list[Prompt] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    rolls_before: int = 0

    def rolls_made(self, dice: Dice) -> bool:
        return len(dice.rolls) > self.rolls_before


class AttackStep:
    def attack_turn(self, scene: Scene, options: Mapping[str, Any], dice: Dice | None = None) -> AttackTurn:
        combat, stances = self.values["combat"], self.values["stances"]
        bonuses = {"from_behind": combat["from_behind"], "difficult_ranged": combat["difficult_ranged"],
                   "attacking": stances["attacking"]["attack"], "defending": stances["defending"]["defence"],
                   "aiming": stances["aiming"]["launched_attack"],
                   "dodging": stances["dodging"]["dodge"] if combat["dodge_roll_needs_defence_point"] else 0,
                   "bring_it": int(self.values["abilities"]["bring_it"]["defence_per_attacker"])}
        hp = {f.id: int(options.get("hp", {}).get(f.id, f.extra.get("hp", self.assess(f).hit_points)))
              for f in scene.figures}
        turn = AttackTurn(bonuses, hp, {k: int(v) for k, v in options.get("leader_points", {}).items()},
                          {k: list(v) for k, v in options.get("attacked_this_turn", {}).items()},
                          {k: int(v) for k, v in options.get("attacks_made", {}).items()},
                          frozenset(options.get("bring_it", ())), tuple(options.get("effects", ())),
                          contact_matrix(scene, 0.1),
                          {f.id: i for i, f in enumerate(scene.figures)})
        turn.rolls_before = len(dice.rolls) if dice is not None else 0
        return turn

    def step_attack(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """Each attack in `attacks` in order: the hit roll, then damage; the dead leave at clean-up."""
        turn = self.attack_turn(scene, options)
        for n, spec in enumerate(need(options, "attacks")):
            self.one_attack(scene, turn, dice, spec, f"attacks[{n}]")
        return self.attack_result("attack", turn)

    def attack_result(self, step: str, turn: AttackTurn, extra: Mapping[str, Any] | None = None) -> StepResult:
        return StepResult(step, tuple(turn.events), tuple(turn.removed), tuple(turn.prompts),
                          extra={"hp": turn.hp, "leader_points": turn.leader_points, **(extra or {})})

    def one_attack(self, scene: Scene, turn: AttackTurn, dice: Dice, spec: Mapping[str, Any], where: str,
                   ability: Ability | None = None, weapon: Weapon | None = None) -> bool:
        """One attack: may it be made, the hit roll, the leader's tie-break, damage. True when it hit."""
        att = scene.figure(need(spec, "attacker", where))
        tgt = scene.figure(need(spec, "target", where))
        if att.side == tgt.side:
            raise ScenarioError(f"{where}: {att.id} and {tgt.id} are on the same side")
        a, d = self.assess(att), self.assess(tgt)
        refused = self._refused(scene, turn, att, tgt, a, spec, ability, weapon)
        if isinstance(refused, Event):
            turn.events.append(refused)
            return False
        weapon = refused
        if ability is None:
            turn.made[att.id] = turn.made.get(att.id, 0) + 1
        facts = self._hit_facts(scene, turn, att, tgt, a, d, weapon, spec, ability)
        a_die = dice.roll(6, "hit roll", who=att.id)
        d_raw = dice.roll(6, "defence roll", who=tgt.id)
        d_die = d_raw if defence_die(facts) == 6 else d3_from_d6(d_raw)
        outcome = hit_roll(a_die, d_die, facts, turn.bonuses)
        turn.attacked_by.setdefault(tgt.id, []).append(att.id)
        hit, by_leader = outcome.hit, None
        if outcome.tie:
            hit, by_leader = self._leader_tie_break(scene, turn, att, tgt)
        roll_text = (f"{att.id} rolls {outcome.attack_total} ({a_die}{_fmt(outcome.attack_mods)}) against "
                     f"{tgt.id}'s {outcome.defence_total} (d{defence_die(facts) if defence_die(facts) == 6 else 3} "
                     f"{d_die}{_fmt(outcome.defence_mods)})")
        data = dict(attacker=att.id, target=tgt.id, weapon=weapon.name, attack_roll=a_die, defence_roll=d_die,
                    attack_total=outcome.attack_total, defence_total=outcome.defence_total,
                    attack_mods=dict(outcome.attack_mods), defence_mods=dict(outcome.defence_mods),
                    from_behind=facts.from_behind, **({"ability": ability.name} if ability else {}))
        if not hit:
            turn.events.append(event("attack_miss", roll_text + (": a tie goes to the defender." if outcome.tie
                                                                 else ": no hit."), **data))
            return False
        self._damage(turn, dice, att, tgt, d, weapon, facts, ability, roll_text, data, by_leader)
        return True

    def _refused(self, scene: Scene, turn: AttackTurn, att: Figure, tgt: Figure, a: Assessment,
                 spec: Mapping[str, Any], ability: Ability | None, given: Weapon | None = None) -> Weapon | Event:
        """The weapon the attack uses, or the event saying why it cannot be made."""
        if att.id in turn.removed or tgt.id in turn.removed:
            return event("attack_skipped", f"{att.id} -> {tgt.id}: a figure is already down.",
                         attacker=att.id, target=tgt.id)
        held = forbidden(att.id, "attack", turn.effects)
        if held:
            # "Daze: target figure may not attack next turn"; Freeze; Whirlwind's pushed figures
            return event("attack_illegal", f"{att.id} may not attack this turn: {held}.", attacker=att.id,
                         target=tgt.id, reason="effect", effect=held)
        combat = self.values["combat"]
        allowed = attacks_allowed(len(a.weapons), combat["attacks_one_weapon"], combat["attacks_two_weapons"],
                                  special_ability=ability is not None)
        if allowed is not None and turn.made.get(att.id, 0) >= allowed:
            # "Only minis wielding 2 weapons are allowed 2 attacks in a single turn"
            return event("attack_illegal", f"{att.id} wields {len(a.weapons)} weapon(s) and has made its "
                         f"{allowed} attack(s) this turn.", attacker=att.id, target=tgt.id, allowed=allowed,
                         reason="attacks_used")
        weapon = given or _pick_weapon(a, spec.get("weapon"), self.values.get("weapon_aliases", {}), ability)
        spaces = self.spaces_between(scene, att, tgt)
        if spaces > weapon.range_spaces:
            return event("attack_illegal", f"{att.id} cannot reach {tgt.id} with {weapon.name}: {spaces} spaces, "
                         f"range {weapon.range_spaces}.", attacker=att.id, target=tgt.id, spaces=spaces,
                         range=weapon.range_spaces, reason="out_of_range")
        if weapon.kind != "melee":
            los = line_of_sight(scene, att.id, tgt.id, self.values["leaders"]["sight_width"], self.sight_policy())
            if not los.clear:
                return event("attack_illegal", f"{att.id} cannot see {tgt.id}: {', '.join(los.blocked_by)} in the "
                             "way.", attacker=att.id, target=tgt.id, reason="no_line_of_sight",
                             blocked_by=list(los.blocked_by))
        return weapon

    def _hit_facts(self, scene: Scene, turn: AttackTurn, att: Figure, tgt: Figure, a: Assessment, d: Assessment,
                   weapon: Weapon, spec: Mapping[str, Any], ability: Ability | None) -> HitFacts:
        combat = self.values["combat"]
        behind = (bool(spec["from_behind"]) if "from_behind" in spec
                  else is_behind(tgt, att, combat["behind_arc_deg"]))
        prior = len({x for x in turn.attacked_by.get(tgt.id, []) if x != att.id})
        ignore = bool(ability and ability.ignore_non_armour)
        armour = d.armour - (int(self.values["equipment"]["cape"]) if ignore and d.cape else 0)
        return HitFacts(extra_points=int(spec.get("extra_points", 0)), prior_attackers=prior, from_behind=behind,
                        attacker_stance=a.stance, weapon_kind=weapon.kind,
                        defence_points=int(spec.get("defence_points", 0)), armour=armour, shield=d.shield,
                        defender_in_difficult=any(self.terrain_class(k).get("difficult")
                                                  for k in self._kinds_at(scene, tgt.xy)),
                        defender_stance=d.stance, ability_bonus=ability.attack_bonus if ability else 0,
                        ignore_non_armour=ignore, bring_it=tgt.id in turn.bring_it)

    def _leader_tie_break(self, scene: Scene, turn: AttackTurn, att: Figure, tgt: Figure) -> tuple[bool, str | None]:
        """"If a leader is adjacent to an attacker whose roll tied with the defender, and the leader has an
        action point left, he may spend that action point for the attack to succeed"."""
        cost = self.values["leaders"]["tie_break_cost"]
        leaders = [f for f in scene.figures if f.side == att.side and f.id != att.id and f.id not in turn.removed
                   and self.type_name(f.type) == "leader" and turn.touching[turn.index[f.id], turn.index[att.id]]]
        for leader in leaders:
            if turn.leader_points.get(leader.id, 0) >= cost:
                turn.leader_points[leader.id] -= cost
                return True, leader.id
        if leaders:
            turn.prompts.append(Prompt("leader_tie_break", f"{leaders[0].id} is next to {att.id}: if he has an "
                                       f"action point left he may spend it for the tied attack on {tgt.id} to "
                                       "succeed.", (leaders[0].id,)))
        return False, None

    def _damage(self, turn: AttackTurn, dice: Dice, att: Figure, tgt: Figure, d: Assessment, weapon: Weapon,
                facts: HitFacts, ability: Ability | None, roll_text: str, data: dict, by_leader: str | None) -> None:
        """"Roll the damage as assigned when assessing the figures. Subtract 1 point for each type of defense"."""
        if ability is not None and ability.damage_plus is not None:
            die_value = dice.roll(6, "damage", who=att.id)
            raw = die_value + ability.damage_plus
        else:
            die_value = None
            if weapon.damage_die == "d6":
                die_value = dice.roll(6, "damage", who=att.id)
            elif weapon.damage_die == "d3":
                die_value = d3_from_d6(dice.roll(6, "damage", who=att.id))
            raw = damage_roll(weapon, die_value)
        types = d.defence_types(facts.from_behind)
        if facts.ignore_non_armour:
            types = tuple(t for t in types if t == "armor")
        taken = damage_taken(raw, types)
        turn.hp[tgt.id] -= taken
        turn.events.append(event("attack_hit", f"{roll_text}: {'a tie made a hit' if by_leader else 'a hit'} "
                                 f"for {raw} damage, less {len(types)} for {', '.join(types) or 'no defences'}: "
                                 f"{taken}; {tgt.id} has {max(turn.hp[tgt.id], 0)} hit points left.", **data,
                                 damage_roll=die_value, damage=raw, defence_types=list(types), damage_taken=taken,
                                 hp_left=turn.hp[tgt.id]))
        if by_leader:
            turn.events.append(event("leader_tie_break", f"The roll was a tie: {by_leader}, next to {att.id}, "
                                     "spends an action point for the attack to succeed.", leader=by_leader,
                                     attacker=att.id, target=tgt.id))
        if turn.hp[tgt.id] <= 0 and tgt.id not in turn.removed:
            turn.removed.append(tgt.id)
            turn.events.append(event("dead", f"{tgt.id} is dead (removed at clean-up).", figure=tgt.id))
