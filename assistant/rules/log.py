"""The game log: an append-only SQLite (WAL) table of events; game state is a fold over it.

Every roll, choice and outcome is appended, never changed: triggers refuse UPDATE and DELETE.
Events are appended in *steps* (one rules step's records land together in one transaction), and
an undo is itself an appended record naming the step it takes back, so the log keeps the whole
story and a restart (or a pulled plug) resumes exactly where the table was.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

UNDO = "undo"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    step    INTEGER NOT NULL,
    kind    TEXT    NOT NULL,
    payload TEXT    NOT NULL,
    at      TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS events_step ON events(step);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END;
"""


class GameLogError(ValueError):
    """A log that cannot be opened or an append that cannot be made; the message says which."""


class NothingToUndo(GameLogError):
    pass


@dataclass(frozen=True)
class Record:
    seq: int
    step: int
    kind: str
    payload: Mapping[str, Any]
    at: str


class GameLog:
    """One game's event log in one SQLite file (":memory:" for tests)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.RLock()      # one connection shared by the web app's threads
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")     # a pulled plug keeps every committed step
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise GameLogError(f"{self.path}: not a tablesight game log ({exc})") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "GameLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ writing
    def append_step(self, records: Sequence[tuple[str, Mapping[str, Any]]]) -> int:
        """Append records as one step (all or nothing); returns the step number."""
        if not records:
            raise GameLogError("a step needs at least one record")
        at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        try:
            payloads = [(kind, json.dumps(dict(payload), sort_keys=True, allow_nan=False))
                        for kind, payload in records]
        except (TypeError, ValueError) as exc:
            raise GameLogError(f"a record cannot be stored as JSON: {exc}") from None
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                step = cur.execute("SELECT COALESCE(MAX(step), 0) + 1 FROM events").fetchone()[0]
                cur.executemany("INSERT INTO events(step, kind, payload, at) VALUES (?, ?, ?, ?)",
                                [(step, kind, payload, at) for kind, payload in payloads])
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        return step

    def append(self, kind: str, payload: Mapping[str, Any]) -> int:
        return self.append_step([(kind, payload)])

    def undo(self, note: str = "") -> int:
        """Take back the last step still in force; returns the step undone."""
        with self._lock:                    # two referees pressing undo at once undo two steps, not one twice
            live = self.live_steps()
            if not live:
                raise NothingToUndo("nothing to undo")
            target = live[-1]
            self.append(UNDO, {"undoes": target, "note": note})
        return target

    # ------------------------------------------------------------ reading
    def records(self) -> list[Record]:
        with self._lock:
            rows = self._db.execute("SELECT seq, step, kind, payload, at FROM events ORDER BY seq").fetchall()
        return [Record(seq, step, kind, json.loads(payload), at) for seq, step, kind, payload, at in rows]

    def undone_steps(self, records: Iterable[Record] | None = None) -> set[int]:
        undone: set[int] = set()
        for rec in records if records is not None else self.records():
            if rec.kind == UNDO:
                undone.add(int(rec.payload["undoes"]))
        return undone

    def live_steps(self) -> list[int]:
        records = self.records()
        undone = self.undone_steps(records)
        steps = []
        for rec in records:
            if rec.kind != UNDO and rec.step not in undone and (not steps or steps[-1] != rec.step):
                steps.append(rec.step)
        return steps

    def live_records(self, records: list[Record] | None = None) -> list[Record]:
        """The records in force: undo markers and the steps they took back are left out (of `records`
        when given, read once by the caller; else of the whole log)."""
        records = self.records() if records is None else records
        undone = self.undone_steps(records)
        return [r for r in records if r.kind != UNDO and r.step not in undone]
