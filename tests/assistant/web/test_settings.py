"""The table's settings: read from the log once, kept in memory, every write both logged and applied."""
from __future__ import annotations

from assistant.web import settings as settings_module
from assistant.web.settings import TableSettings


def test_reads_never_open_the_log(app, client, pin, monkeypatch):
    """With 6,000 roster edits the log was re-read on every request (GET /api/scene p50 82 ms)."""
    for i in range(30):
        assert client.put("/api/roster/m10", json={"name": f"Robin {i}"}, headers=pin).status_code == 200
    opened = []
    real = settings_module.GameLog
    monkeypatch.setattr(settings_module, "GameLog", lambda path: opened.append(path) or real(path))
    for path in ("/api/scene", "/api/targets", "/api/status", "/api/roster", "/api/systems", "/api/terrain"):
        assert client.get(path).status_code == 200, path
    assert opened == []
    names = {f["id"]: f["name"] for f in client.get("/api/roster").get_json()["figures"]}
    assert names["m10"] == "Robin 29"


def test_what_is_kept_in_memory_is_what_the_log_says(app, client, pin):
    store = app.extensions["tablesight"]["settings"]
    client.put("/api/roster/m10", json={"name": "Robin", "side": "outlaws"}, headers=pin)
    client.put("/api/roster/m11", json={"name": "Marian"}, headers=pin)
    client.delete("/api/roster/m11", headers=pin)
    client.put("/api/setup/house", json={"key": "figure_types.archer.range", "value": 20}, headers=pin)
    client.post("/api/setup/system", json={"name": "anyminis"}, headers=pin)
    piece = client.post("/api/terrain", json={"kind": "wall", "polygon": [[1, 1], [3, 1], [2, 3]]}, headers=pin)
    assert piece.status_code == 201
    again = TableSettings(store.path, "kimmiria").read()
    assert again == store.read()
    assert again.system == "anyminis" and again.roster == {"m10": {"name": "Robin", "side": "outlaws"}}
    assert again.overrides == {"kimmiria": {"figure_types.archer.range": 20}}
    assert list(again.drawn) == [piece.get_json()["id"]]


def test_drawn_ids_are_never_reused_across_a_restart(tmp_path):
    path = tmp_path / "settings.sqlite"
    first = TableSettings(path, "kimmiria")
    a = first.add_terrain("wall", [[1, 1], [3, 1], [2, 3]])
    first.delete_terrain(a)
    b = TableSettings(path, "kimmiria").add_terrain("wall", [[1, 1], [3, 1], [2, 3]])
    assert (a, b) == ("d1", "d2")
