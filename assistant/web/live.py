"""Live mode: Server-Sent Events tell every tablet when the table or the game changed.

Each event carries the new version number; pages then fetch what they show (/api/scene,
/api/game). A comment line every SSE_HEARTBEAT_S keeps proxies and tablets from closing the
stream; `?once=1` sends the current version and ends (for scripts and tests).

An open stream keeps one server thread, so streams are bounded: at most LIVE_MAX_STREAMS are held
open at once, each for at most LIVE_STREAM_MAX_S. A tablet beyond that gets the current version at
once and a `retry:` hint, and its EventSource asks again a few seconds later (a short poll that
holds no thread), so forty idle tablets never starve the pages of threads.
"""
from __future__ import annotations

import json
import threading
import time

from flask import Blueprint, Response, current_app, render_template, request, stream_with_context

from assistant.web import context

bp = Blueprint("live", __name__, url_prefix="/live")


def _event(version: int, source: str) -> str:
    return f"event: change\nid: {version}\ndata: {json.dumps({'version': version, 'source': source})}\n\n"


@bp.get("/")
def page():
    return render_template("table.html", live=True, area="live")


class StreamSlots:
    """A bounded number of held streams (a counter under a lock; never blocks)."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, int(limit))
        self._held = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self._held >= self.limit:
                return False
            self._held += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self._held -= 1

    @property
    def held(self) -> int:
        with self._lock:
            return self._held


def slots() -> StreamSlots:
    ext = current_app.extensions
    if "tablesight_streams" not in ext:
        ext["tablesight_streams"] = StreamSlots(current_app.config["LIVE_MAX_STREAMS"])
    return ext["tablesight_streams"]


@bp.get("/events")
def events():
    table = context.table()
    heartbeat = float(current_app.config["SSE_HEARTBEAT_S"])
    longest = float(current_app.config["LIVE_STREAM_MAX_S"])
    poll_ms = int(current_app.config["LIVE_POLL_MS"])
    once = request.args.get("once") == "1"
    held = slots()
    held.limit = max(0, int(current_app.config["LIVE_MAX_STREAMS"]))     # the config has the last word
    try:
        seen = int(request.headers.get("Last-Event-ID", "0"))
    except ValueError:
        seen = 0

    # waitress (with channel_request_lookahead) tells us when a tablet went away, so a closed page
    # gives its thread back at once instead of at the next heartbeat.
    gone = request.environ.get("waitress.client_disconnected", lambda: False)

    def stream():
        nonlocal seen
        version = table.version
        # A slot is taken only once the stream is really being sent, and given back however it ends.
        holding = not once and held.take()
        try:
            yield f"retry: {2000 if holding or once else poll_ms}\n\n"
            if version != seen or once:
                seen = version
                yield _event(version, table.source)
            if not holding:
                return                  # no slot (or ?once=1): the tablet asks again after `retry`
            quiet_s = 0.0
            ends = time.monotonic() + longest
            while not gone() and time.monotonic() < ends:
                version = table.wait_change(seen, 1.0)
                if version > seen:
                    seen = version
                    quiet_s = 0.0
                    yield _event(version, table.source)
                else:
                    quiet_s += 1.0
                    if quiet_s >= heartbeat:
                        quiet_s = 0.0
                        yield ": still here\n\n"
        finally:
            if holding:
                held.give_back()

    return Response(stream_with_context(stream()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
