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
    assert table.live_pipeline.track is True and table.pipeline.track is False
    res = c.post("/api/live", json={"on": False}, headers=pin)
    assert res.status_code == 200 and res.get_json()["live_running"] is False
    assert table.live is None


def test_a_camera_frame_waits_while_a_photo_is_read(app):
    table = app.extensions["tablesight"]["table"]
    seen = []
    gated = table._after_photos(lambda frame: seen.append(frame) or "done")
    with table._photo_gate:
        table._photos_reading += 1                      # a photo is being read
    worker = threading.Thread(target=gated, args=("frame",))
    worker.start()
    worker.join(0.3)
    assert seen == [] and worker.is_alive()
    with table._photo_gate:
        table._photos_reading -= 1
        table._photo_gate.notify_all()
    worker.join(5)
    assert seen == ["frame"]


# ------------------------------------------------------------ many idle tablets on a real server

def _open_stream(port: int):
    import socket
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /live/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    return s


def _read_until(sock, end: bytes, after: bytes) -> bytes:
    got = b""
    while after not in got or not got.split(after, 1)[1].count(end):
        chunk = sock.recv(4096)
        if not chunk:
            break
        got += chunk
    return got


def _get(url: str, timeout: float = 10.0) -> int:
    import urllib.request
    with urllib.request.urlopen(url, timeout=timeout) as res:
        res.read()
        return res.status


def test_forty_idle_tablets_leave_the_pages_answering(app):
    """16 idle live-update connections (every page opens one) froze the whole server."""
    from assistant.cli.serve import BackgroundServer
    app.config["SSE_HEARTBEAT_S"] = 15.0
    with BackgroundServer(app, threads=16) as server:
        streams = [_open_stream(server.port) for _ in range(40)]
        try:
            firsts = [_read_until(s, b"\n\n", after=b"retry:") for s in streams]    # every tablet is answered
            assert all(b.startswith(b"HTTP/1.1 200") and b"text/event-stream" in b for b in firsts)
            for path in ("/", "/api/status", "/api/scene", "/api/targets", "/play/", "/api/game"):
                assert _get(server.url + path) == 200, path
            held = app.extensions["tablesight_streams"]
            assert held.held == held.limit == 11                    # 16 threads: 5 always for the pages
            # A tablet without a held stream was told to ask again in a few seconds, not kept waiting.
            assert sum(b"retry: 3000" in b for b in firsts) == 40 - 11
        finally:
            for s in streams:
                s.close()


def test_a_held_stream_ends_after_its_time_and_gives_its_slot_back(app, client):
    app.config["LIVE_STREAM_MAX_S"] = 1.5
    app.config["LIVE_MAX_STREAMS"] = 1
    res = client.get("/live/events", buffered=False)
    text = b"".join(res.response)                           # ends by itself
    assert text.startswith(b"retry: 2000") and b"event: change" in text
    assert app.extensions["tablesight_streams"].held == 0
    second = client.get("/live/events", buffered=False)
    chunks = iter(second.response)
    assert next(chunks) == b"retry: 2000\n\n"               # the slot was free again
    second.close()
    assert app.extensions["tablesight_streams"].held == 0


def test_a_tablet_over_the_limit_polls_and_hears_only_news(app, client):
    app.config["LIVE_MAX_STREAMS"] = 0
    version = client.get("/api/scene").get_json()["version"]
    res = client.get("/live/events", headers={"Last-Event-ID": str(version)})
    assert res.get_data() == b"retry: 3000\n\n"              # nothing new: no event, come back later
    res = client.get("/live/events", headers={"Last-Event-ID": str(version - 1)})
    assert f"id: {version}".encode() in res.get_data()
