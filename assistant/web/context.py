"""Accessors for the app's resources (tests swap them through app.extensions)."""
from __future__ import annotations

from flask import current_app

from measure.scene import Scene

from assistant.rules import get_system as _get_system
from assistant.rules.system import RuleSystem
from assistant.web.game import Games
from assistant.rules.roster import merge_roster
from assistant.web.settings import Settings, TableSettings
from assistant.web.table import TableState
from assistant.web.terrain import drawn_terrain as _drawn_terrain, with_drawn


def table() -> TableState:
    return current_app.extensions["tablesight"]["table"]


def settings_store() -> TableSettings:
    return current_app.extensions["tablesight"]["settings"]


def games() -> Games:
    return current_app.extensions["tablesight"]["games"]


def settings() -> Settings:
    return settings_store().read()


def system() -> RuleSystem:
    """The chosen rule system with the players' own house numbers."""
    s = settings()
    return _get_system(s.system, overrides=s.system_overrides())


def removed_ids() -> set[str]:
    """Figures taken off the table in the current game (a still photo keeps showing them)."""
    from assistant.web.game import removed_in
    return removed_in(games())


def drawn_terrain(current: Settings | None = None):
    """The terrain pieces drawn on the tablets, as Terrain values."""
    return _drawn_terrain((current or settings()).drawn.values(), table().table_size)


def scene(*, with_removed: bool = False) -> Scene | None:
    """The latest Scene with the roster edits and the drawn terrain, the fallen of the current game left out."""
    _, current, _, _ = table().snapshot()
    if current is None:
        return None
    s = settings()
    # One precedence for the roster (assistant/rules/roster.py): picture, profile, tablet edits, then the
    # chosen system's reading of each type (so switching systems never leaves an unknown type).
    current = with_drawn(merge_roster(current, table().profile.roster_by_figure(), s.roster, system()),
                         drawn_terrain(s))
    if not with_removed:
        gone = removed_ids()
        if gone:
            current = current.with_figures([f for f in current.figures if f.id not in gone])
    return current
