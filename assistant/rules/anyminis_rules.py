"""AnyMinis! (c) 2014 Brant Guillory as pure functions: assessment, squads, action points,
grid movement costs, the hit roll, damage, initiative.

These take plain values (numbers read from anyminis.toml, cells, flags); the Scene adapter is
assistant/rules/anyminis.py. Sentences quoted are from the AnyMinis! text.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assistant.rules.errors import MoveError, RulesError, ScenarioError


class AssessmentError(ScenarioError):
    """A figure's weapons, armour, stance or role that the data does not know; names the figure."""


class SquadError(RulesError):
    """A squad whose size or roles break "Build your squad"; names the squad."""




# ----------------------------------------------------------------- assessment

@dataclass(frozen=True)
class Weapon:
    name: str
    kind: str                   # "melee", "thrown" or "launched"
    range_spaces: int           # melee: 1 ("adjacent spaces only")
    damage_die: str | None      # "d6", "d3" or None (a fixed number)
    damage_plus: int


@dataclass(frozen=True)
class Assessment:
    """A figure's numbers after "Assess the figures"."""
    id: str
    role: str                   # "leader", "hero", "squad_member"
    action_points: int
    hit_points: int
    weapons: tuple[Weapon, ...]
    armour: int                 # torso + arms + legs + head + cape (shield apart)
    shield: int
    cape: bool
    body_armour: bool           # wears at least one armour piece worth something
    stance: str | None
    gear: tuple[str, ...] = ()

    def defence_types(self, from_behind: bool) -> tuple[str, ...]:
        """"Subtract 1 point for each type of defense (armor, dodge, gadget, etc)"; capes are one
        ("non-armor types of defense (shields, dodge skills, capes, etc)"); "Shields do not absorb
        damage on attacks from behind"."""
        types = []
        if self.body_armour:
            types.append("armor")
        if self.shield and not from_behind:
            types.append("shield")
        if self.cape:
            types.append("cape")
        if self.stance == "dodging":
            types.append("dodge")
        return tuple(types)


def assess(fig_id: str, role: str, spec: Mapping[str, Any], data: Mapping[str, Any]) -> Assessment:
    """A figure's numbers from what it carries and wears (`spec` = the scene figure's extra keys)."""
    roles = data["roles"]
    if role not in roles:
        raise AssessmentError(f"figure {fig_id!r}: unknown role {role!r}; roles: {', '.join(roles)}")
    weapons_data, aliases = data["weapons"], data.get("weapon_aliases", {})
    weapons = []
    for name in spec.get("weapons", ["melee_unarmed"]) or ["melee_unarmed"]:
        key = aliases.get(name, name)
        if key not in weapons_data:
            raise AssessmentError(f"figure {fig_id!r}: unknown weapon {name!r}; weapons: {', '.join(weapons_data)}")
        w = weapons_data[key]
        weapons.append(Weapon(key, w["kind"], int(w["range"]), w.get("die"), int(w.get("plus", 0))))
    armour_table = data["armor"]
    armour = 0
    body = False
    worn = spec.get("armor", {}) or {}
    if not isinstance(worn, Mapping):
        raise AssessmentError(f"figure {fig_id!r}: armor must map a body part to 'full' or 'partial'")
    for part, cover in worn.items():
        if part not in armour_table or (cover not in armour_table[part] and cover not in (None, "none")):
            raise AssessmentError(f"figure {fig_id!r}: unknown armour {part}={cover!r}; "
                                  f"parts: {', '.join(armour_table)} (full or partial)")
        if cover in (None, "none"):
            continue
        value = int(armour_table[part][cover])
        armour += value
        body = body or value > 0 or not data.get("armor_type_needs_value", True)
    shield_name = spec.get("shield")
    shield = 0
    if shield_name not in (None, "none", False):
        if shield_name not in data["shield"]:
            raise AssessmentError(f"figure {fig_id!r}: unknown shield {shield_name!r}; shields: "
                                  f"{', '.join(data['shield'])}")
        shield = int(data["shield"][shield_name])
    cape = bool(spec.get("cape", False))
    if cape:
        armour += int(data["cape"])
    stance = spec.get("stance")
    if stance is not None and stance not in data["stances"]:
        raise AssessmentError(f"figure {fig_id!r}: unknown stance {stance!r}; stances: {', '.join(data['stances'])}")
    return Assessment(fig_id, role, int(roles[role]["action_points"]), int(roles[role]["hit_points"]),
                      tuple(weapons), armour, shield, cape, body, stance, tuple(spec.get("gear", ()) or ()))


# ----------------------------------------------------------------- squads

def squad_roles(size: int, table: Mapping[str, Mapping[str, int]], squad: str = "squad") -> dict[str, int]:
    """"3 figures - 1 leader, 2 squaddies ... 10 figures - 1 leader, 2 heroes, 7 squaddies"."""
    row = table.get(str(size))
    if row is None:
        sizes = sorted(int(k) for k in table)
        raise SquadError(f"squad {squad!r}: {size} figures; a squad has {sizes[0]} to {sizes[-1]} "
                         f"(\"minimum 3 figures\"; \"more than 10 ... not really playing a skirmish game\")")
    return {"leader": int(row["leader"]), "hero": int(row["hero"]), "squad_member": int(row["squad_member"])}


def check_squad(roles: Sequence[str], table: Mapping[str, Mapping[str, int]], squad: str = "squad") -> dict[str, int]:
    """The roles a squad of this size must have; raises SquadError when the figures' roles differ."""
    want = squad_roles(len(roles), table, squad)
    have = {role: sum(1 for r in roles if r == role) for role in want}
    if have != want or len(roles) != sum(have.values()):
        raise SquadError(f"squad {squad!r}: {len(roles)} figures need {want['leader']} leader, "
                         f"{want['hero']} hero(es) and {want['squad_member']} squad members; "
                         f"has {have['leader']}, {have['hero']} and {have['squad_member']}")
    return want


# ----------------------------------------------------------------- action points

def check_assignment(fig_id: str, assigned: Mapping[str, int], available: int, guarding: bool = False,
                     kinds: Sequence[str] = ("move", "attack", "defence", "skill", "command", "reserve")) -> int:
    """"you designate how each member of your team is going spend their action points"; returns
    the points held in reserve. A guarding figure "automatically has 1 action point in reserve"."""
    for kind, points in assigned.items():
        if kind not in kinds:
            raise AssessmentError(f"figure {fig_id!r}: unknown action kind {kind!r}; kinds: {', '.join(kinds)}")
        if isinstance(points, bool) or not isinstance(points, int) or points < 0:
            raise AssessmentError(f"figure {fig_id!r}: {kind} points must be a whole number >= 0, got {points!r}")
    total = sum(assigned.values())
    if total > available:
        raise AssessmentError(f"figure {fig_id!r}: assigns {total} action points but has {available}")
    reserve = available - total + assigned.get("reserve", 0)
    if guarding and reserve < 1:
        raise AssessmentError(f"figure {fig_id!r}: a guarding figure keeps 1 action point in reserve")
    return reserve


def check_spend_order(fig_id: str, sequence: Sequence[str]) -> None:
    """"you must use all of one type of action point assignment before moving on to the next"."""
    seen: list[str] = []
    for kind in sequence:
        if seen and seen[-1] == kind:
            continue
        if kind in seen:
            raise AssessmentError(f"figure {fig_id!r}: spends {kind} points again after {seen[-1]} "
                                  f"(use all of one kind before the next)")
        seen.append(kind)


# ----------------------------------------------------------------- movement

@dataclass(frozen=True)
class Step:
    to_cell: tuple[int, int]
    diagonal: bool = False
    difficult: bool = False     # the space entered is difficult terrain
    elevation: bool = False     # an up- or down-hill move
    blocking: bool = False      # the space entered blocks movement


@dataclass(frozen=True)
class MoveCost:
    spaces: int
    diagonal_enable: int        # 0 or 1: "spend 1 additional action point ... unlimited diagonal moves"
    difficult_extra: int        # "1 additional action point per space of difficult terrain"
    total: int


def move_cost(fig_id: str, steps: Sequence[Step], stance: str | None = None) -> MoveCost:
    """Action points for a path. "Moving 1 space orthogonally costs 1 action point"; "To move
    diagonally, spend 1 additional action point, and you can make unlimited diagonal moves";
    "treat elevation moves (up- or down-hill) as diagonal moves (1 action point to enable)";
    charging "Moves diagonally at no extra cost"; walking "Moves through 1 space of difficult
    terrain at no extra cost"."""
    for i, step in enumerate(steps):
        if step.blocking:
            raise MoveError(f"figure {fig_id!r}: step {i + 1} into {list(step.to_cell)} enters blocking terrain")
    needs_enable = any(s.diagonal or s.elevation for s in steps)
    enable = 1 if needs_enable and stance != "charging" else 0
    difficult = sum(1 for s in steps if s.difficult)
    if stance == "walking" and difficult:
        difficult -= 1
    return MoveCost(len(steps), enable, difficult, len(steps) + enable + difficult)


# ----------------------------------------------------------------- the hit roll

@dataclass(frozen=True)
class HitFacts:
    extra_points: int = 0           # action points spent on this attack beyond its own 1
    prior_attackers: int = 0        # other figures that attacked the target already this turn
    from_behind: bool = False
    attacker_stance: str | None = None
    weapon_kind: str = "melee"      # "melee", "thrown", "launched"
    defence_points: int = 0         # points the defender allocated to defence
    armour: int = 0                 # without the shield
    shield: int = 0
    defender_in_difficult: bool = False
    defender_stance: str | None = None
    ability_bonus: int = 0          # a hero's ability: Charge "1d6+2", Called shot "+3 die roll"
    ignore_non_armour: bool = False  # Called shot: "may ignore any non-armor types of defense (shields, dodge ...)"
    bring_it: bool = False          # the defender is a hero who called "Bring it!" this turn


@dataclass(frozen=True)
class HitOutcome:
    attack_total: int
    defence_total: int
    attack_mods: Mapping[str, int] = field(default_factory=dict)
    defence_mods: Mapping[str, int] = field(default_factory=dict)

    @property
    def hit(self) -> bool:
        """"The attacker must exceed the defender's total defense ... Ties go to the defender"."""
        return self.attack_total > self.defence_total

    @property
    def tie(self) -> bool:
        return self.attack_total == self.defence_total


def defence_die(facts: HitFacts) -> int:
    """"The defender rolls 1d3 ... If the defender allocated an action point to defense, roll 1d6 instead"."""
    return 6 if facts.defence_points >= 1 else 3


def hit_roll(attack_d6: int, defence_die_value: int, facts: HitFacts, bonuses: Mapping[str, int]) -> HitOutcome:
    """Totals of the hit roll. `defence_die_value` is already read as a d3 when the defender
    spent no point. `bonuses` are the data's numbers (behind, stance bonuses, terrain)."""
    # "For each additional action point spent on combat, add +1"; "For each figure that attacked the
    # target already this turn, add +1"; "If attacking from behind ... add +2".
    # "Bring it!: ... ignore the attackers' bonuses for ganging up on the hero, and instead add +1 to
    # the defense for each additional attacker".
    a = {
        "ability": facts.ability_bonus,
        "points": facts.extra_points,
        "ganging_up": 0 if facts.bring_it else facts.prior_attackers,
        "from_behind": bonuses["from_behind"] if facts.from_behind else 0,   # "add +2"
        "attacking": bonuses["attacking"] if facts.attacker_stance == "attacking" else 0,
        "aiming": bonuses["aiming"] if facts.attacker_stance == "aiming" and facts.weapon_kind == "launched" else 0,
    }
    # "Shields do not add their defense value to attacks from behind"; "For any additional action points
    # allocated to defense, add +1"; "If the defender is in difficult terrain, and it is a ranged attack, add +1".
    d = {
        "armor": facts.armour,
        "shield": 0 if facts.from_behind or facts.ignore_non_armour else facts.shield,
        "bring_it": facts.prior_attackers * bonuses.get("bring_it", 1) if facts.bring_it else 0,
        "points": max(0, facts.defence_points - 1),
        "terrain": (bonuses["difficult_ranged"]
                    if facts.defender_in_difficult and facts.weapon_kind != "melee" else 0),
        "defending": bonuses["defending"] if facts.defender_stance == "defending" else 0,
        "dodging": (bonuses["dodging"] if facts.defender_stance == "dodging" and facts.defence_points >= 1
                    and not facts.ignore_non_armour else 0),
    }
    a = {k: v for k, v in a.items() if v}
    d = {k: v for k, v in d.items() if v}
    return HitOutcome(attack_d6 + sum(a.values()), defence_die_value + sum(d.values()), a, d)


def attacks_allowed(weapons: int, one_weapon: int = 1, two_weapons: int = 2, special_ability: bool = False) -> int | None:
    """"Only minis wielding 2 weapons are allowed 2 attacks in a single turn, unless a special ability
    is used": the attacks a figure may make this turn (None: a special ability sets its own)."""
    if special_ability:
        return None
    return two_weapons if weapons >= 2 else one_weapon


def damage_roll(weapon: Weapon, die_value: int | None) -> int:
    """"Roll the damage as assigned when assessing the figures" (die_value already read as d3)."""
    return (die_value or 0) + weapon.damage_plus


def damage_taken(raw: int, defence_types: Sequence[str]) -> int:
    """"Subtract 1 point for each type of defense ... for a total of 5 points" (never below 0)."""
    return max(0, raw - len(defence_types))


# ----------------------------------------------------------------- initiative

def initiative_winner(totals: Mapping[str, int], last_holder: str | None) -> str | None:
    """"Whoever has highest roll gets to choose ... If there's a tie, then whoever had initiative
    last turn keeps it this turn". None: a tie with no holder among the tied (roll again)."""
    best = max(totals.values())
    tied = [side for side, total in totals.items() if total == best]
    if len(tied) == 1:
        return tied[0]
    return last_holder if last_holder in tied else None
