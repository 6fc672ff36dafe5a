"""Accessors for the app's resources (tests swap them through app.extensions)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Hashable

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


def answers():
    """The answers kept for the current table state (assistant.web.answers)."""
    ext = current_app.extensions["tablesight"]
    if "answers" not in ext:
        from assistant.web.answers import Answers
        ext["answers"] = Answers()
    return ext["answers"]


def state_key() -> tuple:
    """What every answer depends on: the table version, the settings revision and the current game's file.

    Every change through the API bumps the table version; the game file's stamp (with its WAL
    journal) also catches a game log changed some other way."""
    g = games()
    path = g.current_path()
    stamp = None
    if path is not None:
        stamp = (path.name,) + tuple(_stat(p) for p in (path, path.with_name(path.name + "-wal")))
    return table().version, settings_store().revision, stamp


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
        return st.st_mtime_ns, st.st_size
    except OSError:
        return None


def system() -> RuleSystem:
    """The chosen rule system with the players' own house numbers (built once per settings revision)."""
    store = settings_store()
    ext = current_app.extensions["tablesight"]
    kept = ext.get("system_for")
    if kept is not None and kept[0] == store.revision:
        return kept[1]
    revision = store.revision
    s = store.read()
    built = _get_system(s.system, overrides=s.system_overrides())
    ext["system_for"] = (revision, built)
    return built


class GameUnreadable(ValueError):
    """The current game's log cannot be read: said as such, never taken for "nobody removed"."""
    status = 500

    def __init__(self, path, cause: Exception):
        super().__init__(f"the current game ({Path(str(path)).name}) cannot be read: {cause}; "
                         "start a new game on the Play page")


def removed_ids() -> frozenset[str]:
    """Figures taken off the table in the current game (a still photo keeps showing them)."""
    return _kept("removed", _removed_ids)


def _removed_ids() -> frozenset[str]:
    from assistant.web.game import removed_in
    g = games()
    try:
        return frozenset(removed_in(g))
    except ValueError as exc:
        raise GameUnreadable(g.current_path(), exc) from exc


def drawn_terrain(current: Settings | None = None):
    """The terrain pieces drawn on the tablets, as Terrain values."""
    return _drawn_terrain((current or settings()).drawn.values(), table().table_size)


def _kept(name: Hashable, compute: Callable[[], Any]) -> Any:
    """`compute()` once per table state (errors are not kept): the scene and the fallen are asked
    for by several answers after each change."""
    key = state_key()
    ext = current_app.extensions["tablesight"]
    kept = ext.get("kept")
    if kept is None or kept[0] != key:
        kept = ext["kept"] = (key, {})
    if name not in kept[1]:
        kept[1][name] = compute()
    return kept[1][name]


def scene(*, with_removed: bool = False) -> Scene | None:
    """The latest Scene with the roster edits and the drawn terrain, the fallen of the current game left out."""
    return _kept(("scene", with_removed), lambda: _scene(with_removed))


def _scene(with_removed: bool) -> Scene | None:
    _, current, _, _ = table().snapshot()
    if current is None:
        return None
    s = settings()
    # One precedence for the roster (assistant/rules/roster.py): picture, profile, tablet edits, then the
    # chosen system's reading of each type (so switching systems never leaves an unknown type).
    # A figure with no known place (under a hand in a still photo) is said in words, never measured or drawn.
    current = with_drawn(merge_roster(current.placed(), table().profile.roster_by_figure(), s.roster, system()),
                         drawn_terrain(s))
    if not with_removed:
        gone = removed_ids()
        if gone:
            current = current.with_figures([f for f in current.figures if f.id not in gone])
    return current
