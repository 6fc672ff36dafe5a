"""Fixtures for the tablet app: a demo app in a temporary instance folder, clients with and without the PIN."""
from __future__ import annotations

import re

import pytest

from assistant.web import create_app

PIN = "2468"


@pytest.fixture
def app(tmp_path):
    return create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path / "instance"), "TABLE_PIN": PIN,
                       "SECRET_KEY": "test-secret", "SSE_HEARTBEAT_S": 0.2})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def pin():
    return {"X-Table-PIN": PIN}


def csrf_of(html: bytes) -> str:
    match = re.search(rb'name="csrf-token" content="([^"]+)"', html)
    assert match, "every page carries its CSRF token"
    return match.group(1).decode()


@pytest.fixture
def joined(client):
    """A client that joined with the PIN through the Join form; returns (client, csrf token)."""
    token = csrf_of(client.get("/join").data)
    res = client.post("/join", data={"pin": PIN, "csrf_token": token, "next": "/play/"})
    assert res.status_code == 302 and res.headers["Location"].endswith("/play/")
    return client, token
