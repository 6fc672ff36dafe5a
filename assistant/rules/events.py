"""What a resolution step returns: events (what happened), prompts (what to ask next), removals.

Events are frozen values with a `kind` (machine name), `text` (plain words for the tablet) and
a JSON-able `data` mapping; the game log stores `to_json()` of each, and the CLI prints them.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from assistant.rules.dice import Roll


def _frozen(data: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(data or {}))


@dataclass(frozen=True)
class Event:
    kind: str                               # e.g. "missile_hit", "melee_win", "locked"
    text: str                               # one plain sentence for the players
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", _frozen(self.data))

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **dict(self.data), "text": self.text}


def event(kind: str, text: str, **data: Any) -> Event:
    return Event(kind, text, data)


@dataclass(frozen=True)
class Prompt:
    """Something the players must decide or do before the next step (shown on the tablet)."""
    kind: str                               # e.g. "free_move", "choose_target", "roll"
    text: str
    options: tuple[Any, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", _frozen(self.data))
        object.__setattr__(self, "options", tuple(self.options))

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "options": list(self.options), **dict(self.data)}


@dataclass(frozen=True)
class StepResult:
    """The outcome of one rules step. `extra` carries step-specific results (locked pairs, ...)."""
    step: str
    events: tuple[Event, ...] = ()
    removed: tuple[str, ...] = ()           # figure ids taken off the table, in removal order
    prompts: tuple[Prompt, ...] = ()
    rolls: tuple[Roll, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", _frozen(self.extra))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "step": self.step,
            "events": [e.to_json() for e in self.events],
            "removed": list(self.removed),
            "prompts": [p.to_json() for p in self.prompts],
            "rolls": [r.to_json() for r in self.rolls],
        }
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out
