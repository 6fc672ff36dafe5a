"""KIMMIRIA's order of play outside combat: initiative, groups to move, movement costs, victory.

Pure functions over plain values; kimmiria.py adapts a Scene to them. Sentences quoted are from
the KIMMIRIA text.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assistant.rules.dice import Dice
from assistant.rules.errors import MoveError
from assistant.rules.events import Event, event

IMPASSABLE = "impassable"




# ----------------------------------------------------------------- initiative and groups

def roll_initiative(sides: Sequence[str], dice: Dice, max_rounds: int = 100) -> tuple[str, list[Event]]:
    """"Each player rolls one d6. High roll goes first. Ties are re-rolled."."""
    if len(sides) < 2:
        raise MoveError(f"initiative needs two sides, got {', '.join(sides) or 'none'}")
    events: list[Event] = []
    for round_no in range(1, max_rounds + 1):
        rolls = {side: dice.roll(6, "initiative", who=side) for side in sides}
        best = max(rolls.values())
        leaders = [s for s, v in rolls.items() if v == best]
        if len(leaders) == 1:
            events.append(event("initiative", f"{leaders[0]} wins the initiative ({best}) and is the attacker.",
                                rolls=rolls, winner=leaders[0], round=round_no))
            return leaders[0], events
        events.append(event("initiative_tie", f"Initiative tie ({best}) between {', '.join(leaders)}: roll again.",
                            rolls=rolls, round=round_no))
        sides = leaders
    raise MoveError(f"initiative still tied after {max_rounds} rolls")


def roll_groups(side: str, dice: Dice, max_groups: int = 6) -> tuple[int, Event]:
    """"Player with initiative rolls one d6. This is the number of GROUPS of figures that player can
    move" ... "a player will never be able to move more than six (6) groups in any one turn"."""
    value = dice.roll(6, "groups to move", who=side)
    allowed = min(value, max_groups)
    return allowed, event("groups", f"{side} may move {allowed} group(s) this turn.",
                          side=side, roll=value, groups=allowed)


def check_group_count(n_groups: int, allowed: int, max_groups: int = 6) -> str | None:
    """None when fine, else the reason."""
    if n_groups > max_groups:
        return f"{n_groups} groups moved: never more than {max_groups} in one turn"
    if n_groups > allowed:
        return f"{n_groups} groups moved but the die allows {allowed}"
    return None


# ----------------------------------------------------------------- movement

def group_rate(rates: Mapping[str, int]) -> int:
    """"Groups move at the slowest movement depending on what types of figures are in the group"."""
    if not rates:
        raise MoveError("a group needs at least one figure")
    return min(rates.values())


@dataclass(frozen=True)
class Space:
    """One space (or inch) entered along a path."""
    kind: str = "clear"
    next_to_enemy: bool = False


@dataclass(frozen=True)
class MoveCheck:
    legal: bool
    cost: float
    reason: str = ""
    flew: bool = False
    stopped: bool = False           # ended on a stream or next to an enemy


def terrain_cost(kind: str, costs: Mapping[str, object]) -> float | str:
    # An unknown kind is impassable: safer than free, and the tablet names it.
    return costs[kind] if kind in costs else IMPASSABLE


def check_path(spaces: Sequence[Space], rate: int, costs: Mapping[str, object],
               stop_kinds: Sequence[str] = ("stream",), fly: int | None = None,
               fly_kinds: Sequence[str] = ("water",), started_engaged: bool = False) -> MoveCheck:
    """Is entering `spaces` in order legal for a figure (or group) with movement `rate`?

    "The space you start in never counts against you." Streams: "it takes 2 moves to move into
    the streambed ... and the figure must then stop until next turn". "once a figure moves next to
    (even corner to corner) an enemy figure, it must stop." Engaged figures "may only slide one
    unit of movement around the enemy. You may not move away from the enemy." Wizards "may fly 4
    moves ... over ponds and lakes. If 4 moves is not enough to fly over in one turn, the wizard
    can't cross the water." (`fly` is that 4 for wizards, else None.)
    """
    if not spaces:
        return MoveCheck(True, 0)
    if started_engaged:
        if len(spaces) > 1:
            return MoveCheck(False, 0, "an engaged figure may only slide one unit around the enemy")
        if not spaces[0].next_to_enemy:
            return MoveCheck(False, 0, "an engaged figure may not move away from the enemy")
    total = 0.0
    flew = False
    water_run = 0
    for i, space in enumerate(spaces):
        last = i == len(spaces) - 1
        if space.kind in fly_kinds:
            if fly is None:
                return MoveCheck(False, total, f"cannot enter {space.kind}")
            water_run += 1
            flew = True
            if water_run > fly:
                return MoveCheck(False, total, f"{fly} moves is not enough to fly over the {space.kind}", flew=True)
            if last:
                return MoveCheck(False, total, f"a flight must end beyond the {space.kind}", flew=True)
            total += 1
            continue
        water_run = 0
        cost = terrain_cost(space.kind, costs)
        if cost == IMPASSABLE:
            return MoveCheck(False, total, f"cannot enter {space.kind}")
        total += float(cost)
        budget = max(rate, fly or 0) if flew else rate
        if total > budget + 1e-9:
            return MoveCheck(False, total, f"needs {total:g} moves but the rate is {budget}", flew=flew)
        if not last and space.kind in stop_kinds:
            return MoveCheck(False, total, f"entering the {space.kind} stops the move", flew=flew)
        if not last and space.next_to_enemy and not started_engaged:
            return MoveCheck(False, total, "moving next to an enemy stops the move", flew=flew)
    stopped = spaces[-1].kind in stop_kinds or spaces[-1].next_to_enemy
    return MoveCheck(True, total, "", flew=flew, stopped=stopped)


def wizard_may_fly(turn: int, last_attack_turn: int | None, rest_turns: int = 1) -> bool:
    """"A Wizard may NOT attack the turn before or the turn after he does his fly over water"
    (missile fire comes before movement, so an attack earlier this turn also forbids the flight)."""
    return last_attack_turn is None or turn - last_attack_turn > rest_turns


def wizard_may_attack(turn: int, last_flight_turn: int | None, rest_turns: int = 1) -> bool:
    return last_flight_turn is None or turn - last_flight_turn > rest_turns


# ----------------------------------------------------------------- victory

def check_victory(start: Mapping[str, int], now: Mapping[str, int], condition: str = "A",
                  surrendered: str | None = None, kills_needed: int = 10,
                  fraction: float = 0.5) -> tuple[str | None, list[Event]]:
    """A: "Destroy all the enemy figures." B: "Destroy half the figures and the enemy surrenders."
    C: "Destroy ten of the figures (for really big battles)." Returns (winner or None, events)."""
    sides = list(start)
    lost = {s: start[s] - now.get(s, 0) for s in sides}
    events: list[Event] = []
    standing = [s for s in sides if now.get(s, 0) > 0]
    if len(standing) <= 1:
        # Whatever the condition, a side with no figure left cannot fight on.
        if standing:
            events.append(event("victory", f"{standing[0]} wins: no enemy figure is left.",
                                winner=standing[0], condition=condition, lost=lost))
            return standing[0], events
        events.append(event("draw", "No figure is left on the table: a draw.", condition=condition, lost=lost))
        return None, events
    winners = []
    for side in sides:
        enemies = [s for s in sides if s != side]
        if condition == "A":
            won = all(now.get(e, 0) == 0 for e in enemies) and now.get(side, 0) > 0
        elif condition == "B":
            won = any(e == surrendered and lost[e] >= fraction * start[e] for e in enemies)
            for e in enemies:
                if surrendered is None and start[e] and lost[e] >= fraction * start[e]:
                    events.append(event("surrender_offer", f"{e} has lost {lost[e]} of {start[e]}: "
                                        f"does {e} surrender?", side=e, lost=lost[e], start=start[e]))
        elif condition == "C":
            won = sum(lost[e] for e in enemies) >= kills_needed
        else:
            raise MoveError(f"victory condition: expected A, B or C, got {condition!r}")
        if won:
            winners.append(side)
    if len(winners) == 1:
        events.append(event("victory", f"{winners[0]} wins (condition {condition}).",
                            winner=winners[0], condition=condition, lost=lost))
        return winners[0], events
    if len(winners) > 1 or (condition == "A" and all(now.get(s, 0) == 0 for s in sides)):
        events.append(event("draw", "Both sides meet the victory condition: a draw.", condition=condition, lost=lost))
        return None, events
    events.append(event("no_victory", f"No winner yet (condition {condition}).", condition=condition, lost=lost))
    return None, events
