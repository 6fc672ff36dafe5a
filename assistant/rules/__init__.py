"""Rule systems: data (TOML) plus small pure functions handed their dice.

`get_system(name)` returns a RuleSystem; `system_names()` lists the registered ones. A system
adds itself with ONE line in SYSTEMS below: name -> "module:Class" (imported on first use, so a
broken or slow system never slows the others down). See docs/rules-framework.md.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from assistant.rules.errors import ScenarioError
from assistant.rules.system import RuleSystem

DEFAULT_SYSTEM = "kimmiria"

SYSTEMS: dict[str, str] = {
    "kimmiria": "assistant.rules.kimmiria:Kimmiria",
    "anyminis": "assistant.rules.anyminis:AnyMinis",
    "smart": "assistant.rules.smart:Smart",
    "kremlin": "assistant.rules.kremlin:Kremlin",
}


class UnknownSystem(ScenarioError):
    """A rule system name that is not registered; the message lists the known ones."""


def system_names() -> list[str]:
    return list(SYSTEMS)


def get_system(name: str | None = None, overrides: Mapping[str, Any] | None = None) -> RuleSystem:
    """The rule system called `name` (None: KIMMIRIA), with the players' `overrides` of its numbers."""
    key = (name or DEFAULT_SYSTEM).strip().lower()
    if key not in SYSTEMS:
        raise UnknownSystem(f"unknown rule system {name!r}; known: {', '.join(SYSTEMS)}")
    module_name, _, class_name = SYSTEMS[key].partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls(overrides=overrides)


__all__ = ["DEFAULT_SYSTEM", "SYSTEMS", "RuleSystem", "UnknownSystem", "get_system", "system_names"]
