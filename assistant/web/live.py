"""Live mode: Server-Sent Events tell every tablet when the table or the game changed.

Each event carries the new version number; pages then fetch what they show (/api/scene,
/api/game). A comment line every SSE_HEARTBEAT_S keeps proxies and tablets from closing the
stream; `?once=1` sends the current version and ends (for scripts and tests).
"""
from __future__ import annotations

import json

from flask import Blueprint, Response, current_app, render_template, request, stream_with_context

from assistant.web import context

bp = Blueprint("live", __name__, url_prefix="/live")


def _event(version: int, source: str) -> str:
    return f"event: change\nid: {version}\ndata: {json.dumps({'version': version, 'source': source})}\n\n"


@bp.get("/")
def page():
    return render_template("table.html", live=True, area="live")


@bp.get("/events")
def events():
    table = context.table()
    heartbeat = float(current_app.config["SSE_HEARTBEAT_S"])
    once = request.args.get("once") == "1"
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
        yield "retry: 2000\n\n"
        if version != seen or once:
            seen = version
            yield _event(version, table.source)
        if once:
            return
        quiet_s = 0.0
        while not gone():
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

    return Response(stream_with_context(stream()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
