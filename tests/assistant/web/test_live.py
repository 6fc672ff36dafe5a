"""Live mode: Server-Sent Events announce every change; a camera (here a photo file) feeds the table."""
from __future__ import annotations

import threading
import time

import pytest

from assistant.demo import DEMO_PHOTO
from assistant.web import create_app


def test_events_once_sends_the_current_version(client):
    version = client.get("/api/scene").get_json()["version"]
    res = client.get("/live/events?once=1")
    assert res.status_code == 200 and res.mimetype == "text/event-stream"
    text = res.get_data(as_text=True)
    assert "retry: 2000" in text
    assert f"event: change\nid: {version}\ndata: " in text and '"source": "demo"' in text


def test_event_stream_announces_a_change_made_elsewhere(app, client, pin):
    res = client.get("/live/events", buffered=False)
    chunks = iter(res.response)
    assert next(chunks).startswith(b"retry")
    first = next(chunks)
    assert first.startswith(b"event: change")
    # Another tablet renames a figure: every stream hears of it.
    timer = threading.Timer(0.1, lambda: app.test_client().put("/api/roster/m10", json={"name": "R"}, headers=pin))
    timer.start()
    later = next(chunks)
    while later.startswith(b":"):               # heartbeats while waiting
        later = next(chunks)
    timer.join()
    res.close()
    old = int(first.split(b"id: ")[1].split(b"\n")[0])
    new = int(later.split(b"id: ")[1].split(b"\n")[0])
    assert new > old


def test_event_stream_sends_heartbeats(client):
    res = client.get("/live/events", buffered=False)
    chunks = iter(res.response)
    next(chunks), next(chunks)
    assert next(chunks) == b": still here\n\n"          # SSE_HEARTBEAT_S is 0.2 s in the tests
    res.close()


def test_live_page_renders(client):
    assert b"Live camera" in client.get("/live/").data


@pytest.fixture
def camera_app(tmp_path):
    app = create_app({"TABLE": None, "DEMO": True, "CAMERA": str(DEMO_PHOTO), "INSTANCE_PATH": str(tmp_path),
                      "TABLE_PIN": "2468"})
    yield app
    table = app.extensions["tablesight"]["table"]
    if table.live is not None:
        table.stop_live()


def test_camera_feeds_the_table_and_stops(camera_app, pin):
    c = camera_app.test_client()
    table = camera_app.extensions["tablesight"]["table"]
    assert c.get("/api/status").get_json()["live_available"] is True
    version = table.version
    res = c.post("/api/live", json={"on": True}, headers=pin)
    assert res.status_code == 200 and res.get_json()["live_running"] is True
    deadline = time.monotonic() + 20
    while table.source != "live" and time.monotonic() < deadline:
        table.wait_change(version, 0.5)
        version = table.version
    st = c.get("/api/status").get_json()
    assert st["source"] == "live" and st["live_running"] is True and st["figures"] == 12
    # The stream runs a tracking pipeline of its own; photos keep the one-shot pipeline.
    assert table.live.process.__self__.track is True and table.pipeline.track is False
    res = c.post("/api/live", json={"on": False}, headers=pin)
    assert res.status_code == 200 and res.get_json()["live_running"] is False
    assert table.live is None
