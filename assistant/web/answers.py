"""Answers computed once per table version, not once per request.

Ten tablets ask for the same scene, targets and game prompt after every change. Each answer is
computed by the first request for it and kept, as ready JSON bytes, under the table's state key:
the table version (bumped by every photo, camera frame, roster edit, die and game step), the
settings revision and the current game file's stamp. A request that arrives while the answer is
being computed waits for it instead of computing it again. Errors are not kept. Only answers for
the newest state key are kept, at most MAX_ANSWERS of them (a query per shooter or pair of
figures is its own answer), and none for a query longer than MAX_QUERY_CHARS.
"""
from __future__ import annotations

import json
import threading
from typing import Any, Callable, Hashable

from flask import Response

MAX_ANSWERS = 256
MAX_QUERY_CHARS = 200           # a query is figure ids and a width: longer ones are not kept


class _Pending:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.body: bytes | None = None


class Answers:
    def __init__(self, max_answers: int = MAX_ANSWERS) -> None:
        self.max_answers = max_answers
        self._lock = threading.Lock()
        self._state: Hashable = None
        self._answers: dict[Hashable, _Pending] = {}
        self.computed = 0                   # how many answers were computed (tests, benchmarks)

    def json(self, state: Hashable, query: Hashable, compute: Callable[[], Any]) -> Response:
        """The JSON answer to `query` in table state `state`, computed at most once per state."""
        if len(repr(query)) > MAX_QUERY_CHARS:          # an odd long question is answered, not kept
            return _response(json.dumps(compute(), separators=(",", ":")).encode())
        with self._lock:
            if state != self._state:
                self._state = state
                self._answers = {}
            pending = self._answers.get(query)
            mine = pending is None
            if mine:
                if len(self._answers) >= self.max_answers:
                    self._answers.pop(next(iter(self._answers)))
                pending = self._answers[query] = _Pending()
        if not mine:
            pending.done.wait(30.0)
            if pending.body is not None:
                return _response(pending.body)
        try:
            body = json.dumps(compute(), separators=(",", ":")).encode()
            with self._lock:
                self.computed += 1
            pending.body = body
            return _response(body)
        except BaseException:
            with self._lock:                # an error is not kept: the next request tries again
                if self._answers.get(query) is pending:
                    del self._answers[query]
            raise
        finally:
            if mine:
                pending.done.set()


def _response(body: bytes) -> Response:
    return Response(body, mimetype="application/json")
