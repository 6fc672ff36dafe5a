"""The table's own settings, kept in an append-only log too: the rule system and the roster edits.

A roster edit gives a detected figure (by scene id) a name, side, type and painted flag; it is laid
over whatever vision or the profile's [[roster]] said, so the tablet always has the last word.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from measure.scene import Scene

from assistant.rules import get_system, system_names
from assistant.rules.log import GameLog

DRAWN_PREFIX = "d"          # drawn terrain ids: d1, d2, ... (vision numbers its felt t1, t2, ...)
ROSTER_FIELDS = {"name": str, "side": str, "type": str, "painted": bool}


class SettingsError(ValueError):
    """A setting the tablet sent that cannot be used; the message names the field."""


@dataclass(frozen=True)
class Settings:
    system: str
    roster: dict[str, dict[str, Any]] = field(default_factory=dict)
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)    # system -> {key: players' number}
    drawn: dict[str, dict[str, Any]] = field(default_factory=dict)        # id -> terrain drawn on a tablet (Scene JSON)

    def system_overrides(self, name: str | None = None) -> dict[str, Any]:
        return dict(self.overrides.get(name or self.system, {}))


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
                raise SettingsError(f"roster.{key}: expected true or false, got {value!r}")
            out[key] = value
        else:
            if value is None or (isinstance(value, str) and not value.strip()):
                out[key] = None
                continue
            if not isinstance(value, str) or len(value) > 40:
                raise SettingsError(f"roster.{key}: expected a short text (at most 40 letters), got {value!r}")
            out[key] = value.strip()
    return out


class TableSettings:
    def __init__(self, path: str | Path, default_system: str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.default_system = default_system
        self._lock = threading.Lock()

    def read(self) -> Settings:
        with self._lock, GameLog(self.path) as log:
            records = log.live_records()
        system = self.default_system
        roster: dict[str, dict[str, Any]] = {}
        overrides: dict[str, dict[str, Any]] = {}
        drawn: dict[str, dict[str, Any]] = {}
        for rec in records:
            if rec.kind == "system":
                system = rec.payload["name"]
            elif rec.kind == "roster":
                fid = rec.payload["figure"]
                roster[fid] = {**roster.get(fid, {}), **rec.payload["fields"]}
            elif rec.kind == "roster_clear":
                roster.pop(rec.payload["figure"], None)
            elif rec.kind == "house":
                mine = overrides.setdefault(rec.payload["system"], {})
                if rec.payload.get("value") is None:
                    mine.pop(rec.payload["key"], None)
                else:
                    mine[rec.payload["key"]] = rec.payload["value"]
            elif rec.kind == "terrain_drawn":
                drawn[rec.payload["id"]] = {"id": rec.payload["id"], "kind": rec.payload["kind"],
                                            "polygon": rec.payload["polygon"]}
            elif rec.kind == "terrain_deleted":
                drawn.pop(rec.payload["id"], None)
        return Settings(system, roster, overrides, drawn)

    def set_house(self, key: Any, value: Any) -> dict[str, Any]:
        """The players' own number for a house default (value None: back to the default)."""
        current = self.read()
        if not isinstance(key, str) or not key:
            raise SettingsError("house: expected a setting key such as figure_types.archer.range")
        mine = current.system_overrides()
        if value is None:
            mine.pop(key, None)
        else:
            mine[key] = value
        get_system(current.system, overrides=mine)      # RulesDataError names a bad key or value
        with self._lock, GameLog(self.path) as log:
            log.append("house", {"system": current.system, "key": key, "value": value})
        return mine

    def set_system(self, name: Any) -> str:
        if not isinstance(name, str):
            raise SettingsError(f"system: expected one of {', '.join(system_names())}, got {name!r}")
        system = get_system(name)           # UnknownSystem (a ValueError) lists the known ones
        with self._lock, GameLog(self.path) as log:
            log.append("system", {"name": system.name})
        return system.name

    def set_roster(self, figure_id: str, data: Any) -> dict[str, Any]:
        fields = clean_roster_fields(data)
        with self._lock, GameLog(self.path) as log:
            log.append("roster", {"figure": figure_id, "fields": fields})
        return fields

    def clear_roster(self, figure_id: str) -> None:
        with self._lock, GameLog(self.path) as log:
            log.append("roster_clear", {"figure": figure_id})


    def add_terrain(self, kind: str, polygon: list[list[float]]) -> str:
        """Append a drawn terrain piece (already validated); returns its new id, never one used before."""
        with self._lock, GameLog(self.path) as log:
            used = [int(rec.payload["id"][1:]) for rec in log.records() if rec.kind == "terrain_drawn"]
            piece_id = f"{DRAWN_PREFIX}{max(used, default=0) + 1}"
            log.append("terrain_drawn", {"id": piece_id, "kind": kind, "polygon": polygon})
        return piece_id

    def delete_terrain(self, piece_id: str) -> None:
        with self._lock, GameLog(self.path) as log:
            log.append("terrain_deleted", {"id": piece_id})


def apply_roster(scene: Scene, roster: dict[str, dict[str, Any]]) -> Scene:
    """The scene with the tablet's roster edits laid over each figure (step 3 of the one precedence)."""
    from assistant.rules.roster import merge_roster
    return merge_roster(scene, None, roster, None)
