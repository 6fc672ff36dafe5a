"""Dice sources handed to every resolution function; resolution never rolls by itself.

Three sources share one protocol:
- `RandomDice(seed=None)`: fair dice (seeded for tests and replays);
- `ScriptedDice(values)`: numbers typed in by players who rolled real dice, or a test's script.
  `values` is a sequence (used in order) or a mapping `who -> value | [values]` (a melee's
  "figure id -> d6"), optionally with a sequence under the key `None` for rolls without a `who`.

Every roll is recorded as a `Roll` in `dice.rolls`, so the game log can store exactly what was
rolled, by whom and why.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from assistant.rules.errors import RulesError


class DiceError(RulesError):
    """A die value that cannot be (e.g. a 7 typed in for a d6); the message names the roll."""


class DiceExhausted(DiceError):
    """A scripted source has no value left for the roll asked for; the message names the roll."""


@dataclass(frozen=True)
class Roll:
    sides: int
    value: int                      # as it fell, before any modifier
    purpose: str                    # e.g. "missile attack", "melee", "initiative"
    who: str | None = None          # a figure id or side name

    def to_json(self) -> dict[str, Any]:
        return {"sides": self.sides, "value": self.value, "purpose": self.purpose, "who": self.who}


@runtime_checkable
class Dice(Protocol):
    rolls: list[Roll]

    def roll(self, sides: int, purpose: str, who: str | None = None) -> int: ...


def _describe(sides: int, purpose: str, who: str | None) -> str:
    return f"d{sides} for {purpose}" + (f" by {who}" if who is not None else "")


def _check_sides(sides: int) -> None:
    if isinstance(sides, bool) or not isinstance(sides, int) or sides < 2:
        raise DiceError(f"a die needs at least 2 sides, got {sides!r}")


class _Recorded:
    def __init__(self) -> None:
        self.rolls: list[Roll] = []

    def _record(self, sides: int, value: int, purpose: str, who: str | None) -> int:
        self.rolls.append(Roll(sides, value, purpose, who))
        return value


class RandomDice(_Recorded):
    """Fair dice from Python's Mersenne Twister; the same seed gives the same game."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self._rng = random.Random(seed)

    def roll(self, sides: int, purpose: str, who: str | None = None) -> int:
        _check_sides(sides)
        return self._record(sides, self._rng.randint(1, sides), purpose, who)


def _check_value(value: Any, sides: int, purpose: str, who: str | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= sides:
        raise DiceError(f"{_describe(sides, purpose, who)}: expected a whole number 1-{sides}, got {value!r}")
    return value


class ScriptedDice(_Recorded):
    """Dice whose values were given in advance (typed in by a player, or a test's script)."""

    def __init__(self, values: Iterable[int] | Mapping[Any, Any] = ()) -> None:
        super().__init__()
        if isinstance(values, Mapping):
            self._queue: list[int] = list(values.get(None, ()) or ())
            self._by_who: dict[str, list[int]] = {}
            for key, value in values.items():
                if key is None:
                    continue
                seq = list(value) if isinstance(value, (list, tuple)) else [value]
                self._by_who[str(key)] = seq
        else:
            self._queue = list(values)
            self._by_who = {}

    def roll(self, sides: int, purpose: str, who: str | None = None) -> int:
        _check_sides(sides)
        source = self._by_who.get(who) if who is not None and who in self._by_who else self._queue
        if not source:
            raise DiceExhausted(f"{_describe(sides, purpose, who)}: no die value given"
                                + (" (give one for this figure)" if who is not None else ""))
        value = _check_value(source.pop(0), sides, purpose, who)
        return self._record(sides, value, purpose, who)

    def remaining(self) -> int:
        return len(self._queue) + sum(len(v) for v in self._by_who.values())


def d3_from_d6(d6: int) -> int:
    """AnyMinis! reads a d6 as a d3: 1-3 -> 1, 4-5 -> 2, 6 -> 3."""
    if isinstance(d6, bool) or not isinstance(d6, int) or not 1 <= d6 <= 6:
        raise DiceError(f"d3 from d6: expected a d6 value 1-6, got {d6!r}")
    return 1 if d6 <= 3 else 2 if d6 <= 5 else 3


def roll_d3(dice: Dice, purpose: str, who: str | None = None) -> int:
    """Roll a d6 (recorded as such) and read it as an AnyMinis! d3."""
    return d3_from_d6(dice.roll(6, purpose, who))
