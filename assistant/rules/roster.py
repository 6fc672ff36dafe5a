"""The one place a scene's figures get their names, sides and types, with one precedence.

From weakest to strongest:
1. what the picture says (vision: marker id, position, a colour's side);
2. the table profile's [[roster]] (by marker or figure id) sets every field it names (a written roster
   knows better than a colour's guess, and vision's default 1" base);
3. the tablet's roster edits (Setup page) replace any field they set;
4. the chosen system reads the type: a type it knows is kept, any other is read through
   assistant/rules/type_map.toml (documented in docs/formats.md, "Figure types and systems").
"""
from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from measure.scene import Figure, Scene

from assistant.rules.system import RuleSystem

TYPE_MAP = Path(__file__).with_name("type_map.toml")


@lru_cache(maxsize=1)
def type_map() -> dict[str, dict[str, Any]]:
    with TYPE_MAP.open("rb") as fh:
        return tomllib.load(fh)


def _knows(system: RuleSystem, figure_type: str | None) -> bool:
    try:
        system.type_name(figure_type)
        return True
    except ValueError:
        return False


def check_type(system: RuleSystem, figure_type: str) -> None:
    """A type the roster may keep on `system`: its own, or one the type map reads for it;
    otherwise the system's UnknownFigureType, which lists the types it knows."""
    key = figure_type.strip().lower().replace(" ", "_").replace("-", "_")
    if not _knows(system, figure_type) and key not in type_map().get(system.name, {}):
        system.type_name(figure_type)


def type_for(system: RuleSystem, fig: Figure) -> Figure:
    """The figure as `system` reads it: its own type if the system knows it, else the mapped one."""
    if fig.type is None or _knows(system, fig.type):
        return fig
    key = fig.type.strip().lower().replace(" ", "_").replace("-", "_")
    mapped = type_map().get(system.name, {}).get(key)
    if mapped is None:
        return fig
    if isinstance(mapped, str):
        return replace(fig, type=mapped)
    extra = {**{k: v for k, v in mapped.items() if k != "type"}, **dict(fig.extra)}   # the figure's own keys win
    return replace(fig, type=mapped["type"], extra=extra)


def merge_roster(scene: Scene, profile_roster: Mapping[str, Mapping[str, Any]] | None,
                 edits: Mapping[str, Mapping[str, Any]] | None, system: RuleSystem | None) -> Scene:
    """The scene with steps 2-4 above applied (each may be empty)."""
    fields = ("name", "side", "type", "painted", "base_in")
    figures = []
    for fig in scene.figures:
        entry = dict((profile_roster or {}).get(fig.id, {}))
        if "base" in entry:
            entry["base_in"] = entry.pop("base")
        named = {k: entry[k] for k in fields if entry.get(k) is not None}
        if named:
            fig = replace(fig, **named)
        edit = (edits or {}).get(fig.id)
        if edit:
            fig = replace(fig, **{k: v for k, v in edit.items() if k in fields})
        if system is not None:
            fig = type_for(system, fig)
        figures.append(fig)
    return scene.with_figures(figures)
