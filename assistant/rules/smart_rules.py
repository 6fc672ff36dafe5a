"""SMART (Simple Miniature Adventure Rules and Tactics) as pure functions: the range penalty,
combat rolls, armour absorption, weapon-length order, dragon breath area, experience levels.

Plain values in, plain values out; smart.py adapts a Scene to them. Sentences quoted are from
the SMART fundamental and basic rules.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import shapely
from shapely.geometry import Polygon

from assistant.rules.errors import RulesError


def fire_order(shooter_sides: list[str], order: list[str]) -> list[int]:
    """"... on till each player has a chance to fire their bows or crossbows": the shots (by index), player
    by player in `order` (the order they moved: "The highest number moves their miniatures first, then the
    next highest roll, and so on"), each player's shots in the order given."""
    rank = {side: i for i, side in enumerate(order)}
    return sorted(range(len(shooter_sides)), key=lambda i: (rank[shooter_sides[i]], i))


class SmartDataError(RulesError):
    """An armour, weapon or level the data does not know; the message names the unit."""


# ----------------------------------------------------------------- projectiles

def range_penalty(distance_in: float, effective_in: float = 30.0, step_in: float = 20.0) -> int:
    """+1 for each full `step_in` past the effective range.

    The text: "The effective range for projectiles is 30 inches. For each inch past 30 inches, a
    +1 modifier is added" (step 1") but "an archer aiming at a target 50 inches away must roll a
    12 or higher" (step 20"). `step_in` is the setting; 20 reproduces the worked example.
    """
    past = distance_in - effective_in
    if past <= 1e-9:
        return 0
    return int(math.floor(past / step_in + 1e-9))


def projectile_to_hit(distance_in: float, base: int = 11, effective_in: float = 30.0, step_in: float = 20.0) -> int:
    """"The base chance to hit an opponent is a roll of 11 or higher. Each +1 penalty for range is
    added to that base chance"."""
    return base + range_penalty(distance_in, effective_in, step_in)


def diverted(roll: int, up_to: int = 10) -> bool:
    """"If one rolls a 1-10, the arrow or bolt hits that obstacle instead" (and, firing into
    hand-to-hand, "On a roll of 1-10 one hits their own unit instead of the target")."""
    return roll <= up_to


# ----------------------------------------------------------------- hand-to-hand

def combat_hit(roll: int, to_hit: int = 11) -> bool:
    """"The chance to hit is a roll of 11 or higher"."""
    return roll >= to_hit


def absorption(armour: Sequence[str], levels: Mapping[str, int], unit: str = "unit",
               large_monster: int | None = None) -> int:
    """"Each piece of armor may absorb one (1) point of damage for each level it has"; large
    monsters get "an absorption level of 5" (their hide replaces any armour list)."""
    if large_monster is not None:
        return large_monster
    total = 0
    for piece in armour:
        key = piece.strip().lower()
        if key not in levels:
            raise SmartDataError(f"{unit}: unknown armour {piece!r}; armour: {', '.join(levels)}")
        total += int(levels[key])
    return total


def defeated(damage_total: int, absorbs: int) -> bool:
    """The armour absorbs one point per level; the first point it cannot absorb defeats the unit
    ("... receives the next point of damage, and is defeated")."""
    return damage_total > absorbs


def strike_tiers(lengths: Mapping[str, int], first_turn: bool) -> list[list[str]]:
    """Who strikes when: "For the first turn of that combat the player with the longest weapon goes
    first ... Combat between units with equal sized weapons is simultaneous. If the units continue to
    fight each other in subsequent turns, then the order is reversed: the shortest weapon goes first"."""
    order = sorted(set(lengths.values()), reverse=first_turn)
    return [[u for u in lengths if lengths[u] == length] for length in order]


# ----------------------------------------------------------------- initiative

def initiative_order(rolls: Mapping[str, int]) -> list[list[str]]:
    """"The highest number moves their miniatures first, then the next highest roll, and so on";
    sides with equal rolls share a place (re-rolled between them)."""
    values = sorted(set(rolls.values()), reverse=True)
    return [[s for s in rolls if rolls[s] == v] for v in values]


# ----------------------------------------------------------------- dragon breath

def breath_area(x: float, y: float, base_in: float, facing_deg: float, width_in: float = 3.0,
                depth_in: float = 3.0) -> Polygon:
    """"an area of 3 inches by 3 inches in front it": a square from the dragon's front edge."""
    fx, fy = math.cos(math.radians(facing_deg)), math.sin(math.radians(facing_deg))
    lx, ly = -fy, fx
    r = base_in / 2.0
    cx, cy = x + fx * r, y + fy * r
    h = width_in / 2.0
    return Polygon([(cx + lx * h, cy + ly * h), (cx + lx * h + fx * depth_in, cy + ly * h + fy * depth_in),
                    (cx - lx * h + fx * depth_in, cy - ly * h + fy * depth_in), (cx - lx * h, cy - ly * h)])


def in_area(area: Polygon, xy: Sequence[tuple[float, float]], base_in: Sequence[float]) -> list[bool]:
    """Which round bases reach into the area (touching counts)."""
    if not xy:
        return []
    discs = shapely.buffer(shapely.points(list(xy)), [b / 2.0 for b in base_in])
    return [bool(v) for v in shapely.intersects(discs, area)]


def faith_saves(roll: int, needs: int = 11) -> bool:
    """"If the unit rolls 11-20 on a d20 it avoids all damage from dragon breath or magic"."""
    return roll >= needs


# ----------------------------------------------------------------- experience

def xp_for_level(level: int, factor: int = 6) -> int:
    """"The formula for xps needed to advance in level: levelxlevelx6" (1st level: 0)."""
    if level < 1:
        raise SmartDataError(f"level must be 1 or more, got {level}")
    return 0 if level == 1 else level * level * factor


def level_for_xp(xp: int, factor: int = 6) -> int:
    level = 1
    while xp >= xp_for_level(level + 1, factor):
        level += 1
    return level


def xp_award(defeated_level: int) -> int:
    """"The Formula for xps awarded for defeat a unit: level squared (levelxlevel)"."""
    if defeated_level < 1:
        raise SmartDataError(f"level must be 1 or more, got {defeated_level}")
    return defeated_level * defeated_level
