"""The table's own settings, kept in an append-only log too: the rule system and the roster edits.

A roster edit gives a detected figure (by scene id) a name, side, type and painted flag; it is laid
over whatever vision or the profile's [[roster]] said, so the tablet always has the last word.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from measure.scene import Scene

from assistant.rules import get_system, system_names
from assistant.rules.log import GameLog
from assistant.web.inputs import quote

DRAWN_PREFIX = "d"          # drawn terrain ids: d1, d2, ... (vision numbers its felt t1, t2, ...)
ROSTER_FIELDS = {"name": str, "side": str, "type": str, "painted": bool}


class SettingsError(ValueError):
    """A setting the tablet sent that cannot be used; the message names the field, `status` the HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Settings:
    system: str
    roster: dict[str, dict[str, Any]] = field(default_factory=dict)
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)    # system -> {key: players' number}
    drawn: dict[str, dict[str, Any]] = field(default_factory=dict)        # id -> terrain drawn on a tablet (Scene JSON)

    def system_overrides(self, name: str | None = None) -> dict[str, Any]:
        return dict(self.overrides.get(name or self.system, {}))


HOUSE_MAX = 1000            # no house number of any of the four systems comes near this


def check_house_value(system_name: str, key: str, value: Any) -> Any:
    """A players' number checked as reads will use it: a house default the system lists, of the same
    kind as the text's value, finite, never negative, above zero where the default is, at most HOUSE_MAX,
    and whole where the default is whole."""
    plain = get_system(system_name)
    defaults = {h.key: h.value for h in plain.house_defaults()}
    if key not in defaults:
        raise SettingsError(f"house: no such setting {quote(key)} among the house defaults of {plain.title} "
                            "(GET /api/systems lists them)")
    default = defaults[key]
    if isinstance(default, bool) or isinstance(value, bool):
        if not (isinstance(default, bool) and isinstance(value, bool)):
            raise SettingsError(f"house.{key}: expected true or false, got {quote(value)}")
        return value
    if isinstance(default, (int, float)):
        if not isinstance(value, (int, float)) or not math.isfinite(value):
            raise SettingsError(f"house.{key}: expected {type(default).__name__} (a number), got {quote(value)}")
        if value < 0 or value > HOUSE_MAX or (default > 0 and value <= 0):
            low = "above 0" if default > 0 else "0 or more"
            raise SettingsError(f"house.{key}: expected a number {low} and at most {HOUSE_MAX}, got {quote(value)}")
        if isinstance(default, int):
            if value != int(value):
                raise SettingsError(f"house.{key}: expected a whole number, got {quote(value)}")
            return int(value)
        return float(value)
    if isinstance(default, str):
        if not isinstance(value, str) or not value.strip() or len(value) > 40:
            raise SettingsError(f"house.{key}: expected a short word such as {default!r}, got {quote(value)}")
        return value.strip()
    raise SettingsError(f"house.{key}: this setting cannot be changed on the tablet")


def clean_roster_fields(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise SettingsError("roster: expected an object with name, side, type and/or painted")
    unknown = set(data) - set(ROSTER_FIELDS)
    if unknown:
        raise SettingsError(f"roster: unknown field(s) {', '.join(sorted(unknown))} "
                            f"(known: {', '.join(ROSTER_FIELDS)})")
    out: dict[str, Any] = {}
    for key, value in data.items():
        kind = ROSTER_FIELDS[key]
        if kind is bool:
            if not isinstance(value, bool):
                raise SettingsError(f"roster.{key}: expected true or false, got {quote(value)}")
            out[key] = value
        else:
            if value is None or (isinstance(value, str) and not value.strip()):
                out[key] = None
                continue
            if not isinstance(value, str) or len(value) > 40:
                raise SettingsError(f"roster.{key}: expected a short text (at most 40 letters), got {quote(value)}")
            out[key] = value.strip()
    return out


def _folded(current: Settings, kind: str, payload: dict[str, Any]) -> Settings:
    """The settings after one record of the log (records of kinds this version does not know are kept, unused)."""
    if kind == "system":
        return replace(current, system=payload["name"])
    if kind in ("roster", "roster_clear"):
        roster = dict(current.roster)
        fid = payload["figure"]
        if kind == "roster":
            roster[fid] = {**roster.get(fid, {}), **payload["fields"]}
        else:
            roster.pop(fid, None)
        return replace(current, roster=roster)
    if kind == "house":
        overrides = dict(current.overrides)
        mine = dict(overrides.get(payload["system"], {}))
        if payload.get("value") is None:
            mine.pop(payload["key"], None)
        else:
            mine[payload["key"]] = payload["value"]
        overrides[payload["system"]] = mine
        return replace(current, overrides=overrides)
    if kind in ("terrain_drawn", "terrain_deleted"):
        drawn = dict(current.drawn)
        if kind == "terrain_drawn":
            drawn[payload["id"]] = {"id": payload["id"], "kind": payload["kind"], "polygon": payload["polygon"]}
        else:
            drawn.pop(payload["id"], None)
        return replace(current, drawn=drawn)
    return current


class TableSettings:
    """The settings log, read once at start and then kept in memory: every write appends to the log
    and folds the same record into the copy in memory, so a request never re-reads the log.

    `read()` returns an immutable snapshot (a new Settings value after each write; never change its
    dicts in place); `revision` counts the writes, for caches of answers that depend on the settings.
    """

    def __init__(self, path: str | Path, default_system: str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.default_system = default_system
        self._lock = threading.Lock()
        self.revision = 0
        with GameLog(self.path) as log:
            records = log.live_records()
            self._drawn_ever = max((int(rec.payload["id"][len(DRAWN_PREFIX):]) for rec in log.records()
                                    if rec.kind == "terrain_drawn"), default=0)
        current = Settings(default_system)
        for rec in records:
            current = _folded(current, rec.kind, dict(rec.payload))
        self._current = current

    def read(self) -> Settings:
        return self._current

    def _append(self, kind: str, payload: dict[str, Any]) -> None:
        """Under self._lock: write the record, then fold it into the copy in memory."""
        with GameLog(self.path) as log:
            log.append(kind, payload)
        self._current = _folded(self._current, kind, payload)
        self.revision += 1

    def set_house(self, key: Any, value: Any, check=None) -> dict[str, Any]:
        """The players' own number for a house default (value None: back to the default).

        `check(overrides)`, when given, sees the new numbers before they are written and may refuse them."""
        current = self.read()
        if not isinstance(key, str) or not key or len(key) > 80:
            raise SettingsError(f"house: expected a setting key such as figure_types.archer.range, got {quote(key)}")
        mine = current.system_overrides()
        if value is None:
            mine.pop(key, None)
        else:
            mine[key] = check_house_value(current.system, key, value)
        get_system(current.system, overrides=mine)      # RulesDataError names a bad key or value
        if check is not None:
            check(mine)
        with self._lock:
            self._append("house", {"system": current.system, "key": key, "value": mine.get(key)})
        return mine

    def set_system(self, name: Any) -> str:
        if not isinstance(name, str) or len(name) > 40:
            raise SettingsError(f"system: expected one of {', '.join(system_names())}, got {quote(name)}")
        system = get_system(name)           # UnknownSystem (a ValueError) lists the known ones
        with self._lock:
            self._append("system", {"name": system.name})
        return system.name

    def set_roster(self, figure_id: str, data: Any) -> dict[str, Any]:
        fields = clean_roster_fields(data)
        if "type" in fields:
            system = get_system(self.read().system)
            if fields["type"] is None:
                raise SettingsError(f"roster.type: pick one of the {system.title} types "
                                    f"({', '.join(system.values.get('figure_types', {}))}); a figure needs one")
            system.type_name(fields["type"])            # UnknownFigureType lists the known ones
        with self._lock:
            self._append("roster", {"figure": figure_id, "fields": fields})
        return fields

    def clear_roster(self, figure_id: str) -> None:
        with self._lock:
            self._append("roster_clear", {"figure": figure_id})

    def add_terrain(self, kind: str, polygon: list[list[float]]) -> str:
        """Append a drawn terrain piece (already validated); returns its new id, never one used before."""
        with self._lock:
            self._drawn_ever += 1
            piece_id = f"{DRAWN_PREFIX}{self._drawn_ever}"
            self._append("terrain_drawn", {"id": piece_id, "kind": kind, "polygon": polygon})
        return piece_id

    def delete_terrain(self, piece_id: str) -> None:
        with self._lock:
            self._append("terrain_deleted", {"id": piece_id})


def apply_roster(scene: Scene, roster: dict[str, dict[str, Any]]) -> Scene:
    """The scene with the tablet's roster edits laid over each figure."""
    if not roster:
        return scene
    figures = [replace(f, **{k: v for k, v in roster[f.id].items()}) if f.id in roster else f
               for f in scene.figures]
    return scene.with_figures(figures)
