"""AnyMinis! lasting effects (spells, abilities, smoke) as plain values, and the clean-up that ends them.

"Clean up the battlefield - remove dead figures, update any duration effects (like smoke screens or
spell effects)". An effect is `{"figure", "effect", "when", "from"}`: `when` is "this" (it holds
this turn) or "next" (it holds next turn); clean-up drops the "this" ones and makes "next" ones
"this". A smoke cloud is a terrain piece of kind "smoke" with `turns_left`.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# what each effect forbids ("move", "attack") or takes away
FORBIDS = {"no_move": ("move",), "no_attack": ("attack",), "frozen": ("move", "attack"),
           "lose_action_point": ()}
EFFECTS = tuple(FORBIDS)


def effect(figure: str, kind: str, when: str, source: str) -> dict[str, str]:
    return {"figure": figure, "effect": kind, "when": when, "from": source}


def forbidden(figure: str, action: str, effects: Iterable[Mapping[str, Any]]) -> str | None:
    """The effect that forbids `figure` to `action` ("move" or "attack") this turn, if any."""
    for e in effects:
        if e["figure"] == figure and e.get("when", "this") == "this" and action in FORBIDS.get(e["effect"], ()):
            return f"{e['effect'].replace('_', ' ')} ({e.get('from', 'an effect')})"
    return None


def points_lost(figure: str, effects: Iterable[Mapping[str, Any]]) -> int:
    """"Slow: target figure loses 1 action point next turn" (counted in the turn it holds)."""
    return sum(1 for e in effects if e["figure"] == figure and e["effect"] == "lose_action_point"
               and e.get("when", "this") == "this")


def next_turn(effects: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Clean-up: (effects that carry on into the next turn, effects that end)."""
    keep, ended = [], []
    for e in effects:
        if e.get("when", "this") == "next":
            keep.append({**e, "when": "this"})
        else:
            ended.append(dict(e))
    return keep, ended


def smoke_left(turns_left: int) -> int:
    """"lasts for 4 turns": each clean-up takes one; at 0 the cloud is gone."""
    return max(0, int(turns_left) - 1)
