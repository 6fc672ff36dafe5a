"""KremlinMiniatures (fantasy mass battle, units of bases, d6 per base) as pure functions:
movement dice, hit and save rolls, casualties on bases, melee outcome and recoil casualties,
morale and disorder recovery, unknown woods, the arc of fire.

Plain values in, plain values out; kremlin.py adapts a Scene to them. Sentences quoted are from
the KremlinMiniatures text.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import shapely
from shapely.geometry import Polygon

from assistant.rules.dice import Dice
from assistant.rules.errors import ScenarioError


class KremlinError(ScenarioError):
    """A unit or request the rules cannot take; the message names the unit."""


# ----------------------------------------------------------------- movement

@dataclass(frozen=True)
class MoveDice:
    dice: int
    plus: int

    def text(self) -> str:
        return f"{self.dice}d6" + (f"+{self.plus}" if self.plus else "")


def movement_dice(base: MoveDice, charge: bool = False, routing: bool = False, pursuing: bool = False,
                  difficult: bool = False, lose: int = 0) -> MoveDice:
    """"Units that declare a charge, are routing, or are pursuing routers, add one movement die";
    "Difficult going - Units lose one movement die (minimum is always 1d6)"; `lose`: other lost
    dice (shieldwall, hostile woods)."""
    n = base.dice + (1 if (charge or routing or pursuing) else 0) - (1 if difficult else 0) - lose
    return MoveDice(max(1, n), base.plus)


# ----------------------------------------------------------------- hits and saves

def hit_dice(bases: int, disordered_or_routing: bool) -> int:
    """"Roll 1d6 per base in the unit"; disorder: "unit shoots and fights with half (round down) it's hit dice"."""
    return bases // 2 if disordered_or_routing else bases


def hit_needed(chance: int, bonus: int = 0) -> int:
    """The lowest die that hits: a chance of "5 - 6" is 5; +1 ("charging", "second turn of a drawn
    melee") makes it one easier. A 6 always hits."""
    return max(2, min(6, chance - bonus))


def count_hits(rolls: Sequence[int], needed: int) -> int:
    return sum(1 for r in rolls if r >= needed)


def count_kills(save_rolls: Sequence[int], save: int | None) -> int:
    """"Target rolls it's armour save against each hit"; "Each successful hit kills one figure"."""
    if save is None:
        return len(save_rolls)
    return sum(1 for r in save_rolls if r < save)


def roll_hits(dice: Dice, n: int, needed: int, who: str, purpose: str) -> tuple[list[int], int]:
    rolls = [dice.roll(6, purpose, who=who) for _ in range(n)]
    return rolls, count_hits(rolls, needed)


def roll_saves(dice: Dice, hits: int, save: int | None, who: str) -> tuple[list[int], int]:
    if save is None:
        return [], hits
    rolls = [dice.roll(6, "armour save", who=who) for _ in range(hits)]
    return rolls, count_kills(rolls, save)


@dataclass(frozen=True)
class Casualties:
    bases_lost: int
    figures_left_on_partial: int     # figures already lost from the next base (0 = whole)
    destroyed: bool


def apply_kills(bases: int, figures_per_base: int, lost_before: int, kills: int) -> Casualties:
    """"Each successful hit kills one figure - If all the figures on a base are killed remove the base"."""
    total = lost_before + kills
    lost = min(bases, total // figures_per_base)
    return Casualties(lost, total % figures_per_base if lost < bases else 0, lost >= bases)


def kill_on_bases(figures: Sequence[int], lost_before: int, kills: int) -> Casualties:
    """Kills taken base by base in removal order (`figures`: figures on each base, an attached king or
    captain last): "Each successful hit kills one figure - If all the figures on a base are killed
    remove the base"; generals "are always the last base to be destroyed when attached to a unit"."""
    left = lost_before + kills
    lost = 0
    for on_base in figures:
        if left < on_base:
            break
        left -= on_base
        lost += 1
    destroyed = lost >= len(figures)
    return Casualties(lost, 0 if destroyed else left, destroyed)


def heavy_fire(figure_casualties: int, front_rank: int) -> bool:
    """"if a unit receives more figure casualties than the number of stands in it's front rank it is disordered"."""
    return figure_casualties > front_rank


# ----------------------------------------------------------------- melee

def melee_result(kills_a: int, kills_b: int) -> str:
    """"Whichever unit scores the most kills is the victor. Otherwise the melee is a draw": "a", "b" or "draw"."""
    return "a" if kills_a > kills_b else "b" if kills_b > kills_a else "draw"


def recoil_casualties(victor_kind: str, table: Mapping[str, int]) -> int:
    """"recoiled by heavy infantry receives 1 casualty"; "by heavy cavalry or monsters receives 2"."""
    return int(table.get(victor_kind, 0))


# ----------------------------------------------------------------- morale and disorder

AVERAGE_DIE = {1: 2, 2: 3, 3: 3, 4: 4, 5: 4, 6: 5}


def morale_allowance(d6: int, plus: int = 1) -> int:
    """"Each player rolls one average die and adds +1 to the score" (an average die reads 2,3,3,4,4,5)."""
    return AVERAGE_DIE[d6] + plus


def morale_passes(roll: int, modifiers: Mapping[str, int], size: int) -> bool:
    """"To pass a test the unit must roll less than the number of bases in the unit (or hits remaining)"."""
    return roll + sum(modifiers.values()) < size


def recovery_passes(roll: int, modifiers: Mapping[str, int], size: int) -> bool:
    """"Roll 1d6 score greater than the number of bases in the unit to recover"."""
    return roll + sum(modifiers.values()) > size


def woods_nature(d6: int, table: Mapping[str, str]) -> str:
    """"1 = evil, 2 = good, 3 or 4 = neutral, 5 = evil, 6 = good"."""
    return table[str(d6)]


def woods_hostile(nature: str, alignment: str | None) -> bool:
    """"Good woods - evil units lose one movement die and are attacked each turn" (and the reverse)."""
    return (nature == "good" and alignment == "evil") or (nature == "evil" and alignment == "good")


# ----------------------------------------------------------------- arc of fire

def arc_of_fire(front_left: tuple[float, float], front_right: tuple[float, float], facing_deg: float,
                reach_in: float, arc_deg: float = 45.0) -> Polygon:
    """"Arc of fire - 45 degrees measured from the unit's flank line": the area ahead of the front,
    between the two flank lines each turned `arc_deg` outward, out to `reach_in`."""
    f = (math.cos(math.radians(facing_deg)), math.sin(math.radians(facing_deg)))

    def turned(deg: float) -> tuple[float, float]:
        a = math.radians(facing_deg + deg)
        return (math.cos(a), math.sin(a))

    # Table y points down: turning by +deg turns from +x toward +y, i.e. clockwise on a top view.
    left, right = turned(-arc_deg), turned(arc_deg)
    lx, ly = front_left
    rx, ry = front_right
    far = reach_in / math.cos(math.radians(arc_deg)) if arc_deg < 89.9 else reach_in * 10
    ahead = (lx + rx) / 2 + f[0] * reach_in * 4, (ly + ry) / 2 + f[1] * reach_in * 4
    poly = Polygon([front_left, (lx + left[0] * far, ly + left[1] * far), ahead,
                    (rx + right[0] * far, ry + right[1] * far), front_right])
    return poly if poly.is_valid else shapely.make_valid(poly).convex_hull


def in_arc(arc: Polygon, xy: Sequence[tuple[float, float]], base_in: Sequence[float]) -> bool:
    """Any of the target's bases reaches into the arc."""
    discs = shapely.buffer(shapely.points(list(xy)), [b / 2.0 for b in base_in])
    return bool(shapely.intersects(discs, arc).any())
