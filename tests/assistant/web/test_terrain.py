"""Terrain drawn on a tablet: the /api/terrain routes, their checks, the settings log, and the Scene they change."""
from __future__ import annotations

import json

import pytest
import shapely

from assistant.web import create_app

from .conftest import PIN

# A short wall across the line from Marian (m11, about 13.0, 13.5) to Goblin 1 (m20, about 22.5, 11.5),
# which is clear on the demo table.
WALL = [[17.5, 10.5], [18.0, 10.5], [18.0, 14.5], [17.5, 14.5]]
SQUARE = [[2.0, 2.0], [5.0, 2.0], [5.0, 5.0], [2.0, 5.0]]


def drawn(client) -> dict[str, dict]:
    return {t["id"]: t for t in client.get("/api/terrain").get_json()["terrain"] if t["source"] == "drawn"}


def test_terrain_lists_the_pieces_the_camera_found_with_their_source(client):
    data = client.get("/api/terrain").get_json()
    scene_terrain = client.get("/api/scene").get_json()["scene"]["terrain"]
    assert [t["id"] for t in data["terrain"]] == [t["id"] for t in scene_terrain]
    assert {t["source"] for t in data["terrain"]} == {"found"}
    assert sorted(t["kind"] for t in data["terrain"]) == ["hill", "rocks", "water", "woods"]
    # The kinds offered: the design's six first, then KIMMIRIA's own (streams), no aliases.
    assert data["kinds"][:6] == ["woods", "rocks", "hill", "water", "wall", "building"]
    assert "stream" in data["kinds"] and "trees" not in data["kinds"]
    assert data["table"] == {"width": 48.0, "depth": 36.0}


def test_a_drawn_wall_blocks_a_clear_line_of_sight(client, pin):
    before = client.get("/api/los?a=m11&b=m20").get_json()
    assert before["clear"] is True
    res = client.post("/api/terrain", json={"kind": "wall", "polygon": WALL}, headers=pin)
    assert res.status_code == 201
    piece_id = res.get_json()["id"]
    after = client.get("/api/los?a=m11&b=m20").get_json()
    assert after["clear"] is False
    assert after["blocked_by"] == [{"id": piece_id, "name": "the wall"}]
    assert "Marian cannot see Goblin 1: blocked by the wall." == after["words"]
    # The same piece in the Scene every page reads, marked as drawn, and in the targets ranking.
    scene = client.get("/api/scene").get_json()["scene"]
    mine = [t for t in scene["terrain"] if t["id"] == piece_id]
    assert mine == [{"id": piece_id, "kind": "wall", "polygon": WALL, "source": "drawn"}]
    marian = client.get("/api/targets?shooter=m11").get_json()["shooters"][0]
    goblin1 = next(e for e in marian["enemies"] if e["id"] == "m20")
    assert goblin1["blocked_by"] == [{"id": piece_id, "name": "the wall"}]
    assert marian["target"] != "m20"
    # Deleting it gives the clear line back.
    assert client.delete(f"/api/terrain/{piece_id}", headers=pin).status_code == 200
    assert client.get("/api/los?a=m11&b=m20").get_json()["clear"] is True
    assert drawn(client) == {}


def test_a_drawn_piece_is_in_a_new_game_the_play_page_starts(client, pin):
    piece_id = client.post("/api/terrain", json={"kind": "wall", "polygon": WALL}, headers=pin).get_json()["id"]
    client.post("/api/game/new", headers=pin)
    games = client.application.extensions["tablesight"]["games"]
    from assistant.rules.kimmiria_game import KimmiriaGame
    log = games.open_current()
    try:
        kept = KimmiriaGame(log).state().scene_json["terrain"]
    finally:
        log.close()
    assert piece_id in {t["id"] for t in kept}


def test_ids_are_never_reused_and_pieces_survive_a_restart(tmp_path):
    config = {"DEMO": True, "INSTANCE_PATH": str(tmp_path / "instance"), "TABLE_PIN": PIN, "SECRET_KEY": "k"}
    pin = {"X-Table-PIN": PIN}
    client = create_app(config).test_client()
    first = client.post("/api/terrain", json={"kind": "woods", "polygon": SQUARE}, headers=pin).get_json()["id"]
    second = client.post("/api/terrain", json={"kind": "wall", "polygon": WALL}, headers=pin).get_json()["id"]
    assert client.delete(f"/api/terrain/{first}", headers=pin).status_code == 200
    # A new app on the same instance folder (a restart) reads the settings log back.
    again = create_app(config).test_client()
    assert list(drawn(again)) == [second]
    assert drawn(again)[second]["polygon"] == WALL
    assert again.get("/api/los?a=m11&b=m20").get_json()["blocked_by"][0]["id"] == second
    third = again.post("/api/terrain", json={"kind": "hill", "polygon": SQUARE}, headers=pin).get_json()["id"]
    assert len({first, second, third}) == 3


def test_every_tablet_hears_of_a_drawn_piece(client, pin):
    def version() -> int:
        body = client.get("/live/events?once=1").data.decode()
        return json.loads(body.split("data: ", 1)[1].split("\n", 1)[0])["version"]

    v0 = version()
    piece_id = client.post("/api/terrain", json={"kind": "rocks", "polygon": SQUARE}, headers=pin).get_json()["id"]
    v1 = version()
    client.delete(f"/api/terrain/{piece_id}", headers=pin)
    assert v0 < v1 < version()


@pytest.mark.parametrize("method, path", [("POST", "/api/terrain"), ("DELETE", "/api/terrain/d1")])
def test_changing_terrain_needs_the_pin(client, pin, method, path):
    client.post("/api/terrain", json={"kind": "wall", "polygon": WALL}, headers=pin)
    body = {"kind": "wall", "polygon": SQUARE}
    assert client.open(path, method=method, json=body).status_code == 401
    assert client.open(path, method=method, json=body, headers={"X-Table-PIN": "0000"}).status_code == 403
    assert list(drawn(client)) == ["d1"]            # nothing changed


def test_a_joined_tablet_draws_with_its_csrf_token(joined):
    client, token = joined
    body = {"kind": "water", "polygon": SQUARE}
    assert client.post("/api/terrain", json=body).status_code == 403          # no CSRF token
    assert client.post("/api/terrain", json=body, headers={"X-CSRF-Token": token}).status_code == 201


BAD = [
    ({"kind": "lava", "polygon": SQUARE}, "unknown terrain kind 'lava'"),
    ({"kind": "", "polygon": SQUARE}, "kind: expected one of woods"),
    ({"kind": 3, "polygon": SQUARE}, "kind: expected one of"),
    ({"polygon": SQUARE}, "kind: expected one of"),
    ({"kind": "wall"}, "polygon: missing"),
    ({"kind": "wall", "polygon": [[1, 1], [2, 2]]}, "at least 3 corners, got 2"),
    ({"kind": "wall", "polygon": []}, "at least 3 corners, got 0"),
    ({"kind": "wall", "polygon": "square"}, "polygon: expected a list of at least 3"),
    ({"kind": "wall", "polygon": [[0, 0], [4, 4], [4, 0], [0, 2]]}, "crosses itself near (1.3, 1.3)"),
    ({"kind": "wall", "polygon": [[0, 0], [2, 2], [2, 0], [0, 2]]}, "crosses itself"),
    ({"kind": "wall", "polygon": [[1, 1], [2, 2], [3, 3]]}, "enclose no area"),
    ({"kind": "wall", "polygon": [[40, 30], [50, 30], [45, 35]]}, "polygon[1]: the corner (50, 30) is off the table"),
    ({"kind": "wall", "polygon": [[1, -0.5], [3, 1], [1, 3]]}, "polygon[0]: the corner (1, -0.5) is off the table"),
    ({"kind": "wall", "polygon": [[1, 1], [3, 1], "x"]}, "polygon[2]: expected [x, y]"),
    ({"kind": "wall", "polygon": [[1, 1], [3, 1], [2, True]]}, "polygon[2][1]: expected a number"),
    ({"kind": "wall", "polygon": [[1, 1], [3, 1], [2, "4"]]}, "polygon[2][1]: expected a number"),
    ({"kind": "wall", "polygon": [[1, 1]] * 101}, "at most 100 corners"),
    ({"kind": "wall", "polygon": [[1, 1], [9, 1.0001], [5, 1.0002]]}, "too thin to keep"),
    ({"kind": "wall", "polygon": SQUARE, "id": "t1"}, "unknown field(s) id"),
    ([["kind", "wall"]], "expected a JSON object"),
]


@pytest.mark.parametrize("body, words", BAD, ids=[w for _, w in BAD])
def test_bad_pieces_get_a_400_naming_the_problem(client, pin, body, words):
    res = client.post("/api/terrain", json=body, headers=pin)
    assert res.status_code == 400
    assert words in res.get_json()["error"]
    assert drawn(client) == {}


@pytest.mark.parametrize("raw, words", [
    ('{"kind": "wall", "polygon": [[NaN, 1], [3, 1], [2, 3]]}', "polygon[0][0]: must be a finite number"),
    ('{"kind": "wall", "polygon": [[1, 1], [Infinity, 1], [2, 3]]}', "polygon[1][0]: must be a finite number"),
    ('{"kind": "wall", "polygon": ', "expected a JSON object"),
    ('', "expected a JSON object"),
])
def test_not_a_number_or_not_json_gets_a_400(client, pin, raw, words):
    res = client.post("/api/terrain", data=raw, headers={**pin, "Content-Type": "application/json"})
    assert res.status_code == 400
    assert words in res.get_json()["error"]


def test_a_piece_on_the_table_edge_and_an_alias_kind_are_fine(client, pin):
    edge = [[0.0, 0.0], [48.0, 0.0], [48.0, 0.5]]
    res = client.post("/api/terrain", json={"kind": "Trees", "polygon": edge}, headers=pin)
    assert res.status_code == 201 and res.get_json()["kind"] == "trees"
    assert shapely.Polygon(drawn(client)[res.get_json()["id"]]["polygon"]).area == pytest.approx(12.0)


def test_deleting_what_was_not_drawn(client, pin):
    res = client.delete("/api/terrain/t1", headers=pin)
    assert res.status_code == 409 and "found by the camera" in res.get_json()["error"]
    res = client.delete("/api/terrain/d7", headers=pin)
    assert res.status_code == 404 and "d7" in res.get_json()["error"]


def test_drawn_pieces_are_listed_before_the_first_picture(tmp_path):
    from assistant.demo import DEMO_TABLE
    client = create_app({"TABLE": str(DEMO_TABLE), "INSTANCE_PATH": str(tmp_path / "i"), "TABLE_PIN": PIN,
                         "SECRET_KEY": "k"}).test_client()
    res = client.post("/api/terrain", json={"kind": "hill", "polygon": SQUARE}, headers={"X-Table-PIN": PIN})
    assert res.status_code == 201
    assert [(t["id"], t["source"]) for t in client.get("/api/terrain").get_json()["terrain"]] == [("d1", "drawn")]
    assert client.get("/api/scene").get_json()["scene"] is None
