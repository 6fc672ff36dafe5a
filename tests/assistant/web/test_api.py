"""The JSON API on the demo table: scene, picture, line of sight, targets, systems, roster, house numbers."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
import shapely

from assistant.demo import DEMO_TRUTH

TRUTH = json.loads(DEMO_TRUTH.read_text(encoding="utf-8"))
TRUTH_XY = {f["id"]: (f["x"], f["y"]) for f in TRUTH["figures"]}
TRUTH_TERRAIN = {t["kind"]: shapely.Polygon(t["polygon"]) for t in TRUTH["terrain"]}


def kinds(client) -> dict[str, str]:
    """Terrain id -> kind in the served scene (vision numbers the pieces its own way)."""
    return {t["id"]: t["kind"] for t in client.get("/api/scene").get_json()["scene"]["terrain"]}


def test_scene_has_every_demo_figure_near_its_true_place(client):
    data = client.get("/api/scene").get_json()
    figures = {f["id"]: f for f in data["scene"]["figures"]}
    assert set(figures) == set(TRUTH_XY)
    for fid, (x, y) in TRUTH_XY.items():
        assert np.hypot(figures[fid]["x"] - x, figures[fid]["y"] - y) < 0.15, fid
    assert figures["m10"]["name"] == "Robin" and figures["m22"]["name"] == "Goblin 3"
    assert data["source"] == "demo" and data["removed"] == []


def test_picture_matrix_maps_table_inches_onto_the_served_jpeg(client):
    data = client.get("/api/scene").get_json()
    pic = data["picture"]
    with client.get("/api/frame.jpg") as res:
        assert res.mimetype == "image/jpeg"
        image = cv2.imdecode(np.frombuffer(res.data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[:2] == (pic["height"], pic["width"])
    assert max(image.shape[:2]) <= 1600
    H = np.array(pic["H_in_to_px"])
    # Every figure lands inside the picture, and the table's corners too (the picture is cropped to it).
    for x, y in list(TRUTH_XY.values()) + [(0, 0), (48, 0), (48, 36), (0, 36)]:
        u, v, w = H @ [x, y, 1.0]
        assert 0 <= u / w <= pic["width"] and 0 <= v / w <= pic["height"]


def test_los_blocked_by_the_woods_between_robin_and_goblin_2(client):
    r = client.get("/api/los?a=m10&b=m21").get_json()
    segment = shapely.LineString([TRUTH_XY["m10"], TRUTH_XY["m21"]])
    assert segment.crosses(TRUTH_TERRAIN["woods"])          # the woods lie across the line
    assert r["clear"] is False
    assert [kinds(client)[b["id"]] for b in r["blocked_by"]] == ["woods"]
    assert r["blocked_by"][0]["name"] == "the woods"
    assert r["distance_in"] == pytest.approx(segment.length, abs=0.15)
    assert r["edge_distance_in"] == pytest.approx(segment.length - 1.0, abs=0.15)     # two 1" bases
    assert r["width_in"] == 0.125                            # archers shoot with the ruler's edge
    assert "Robin cannot see Goblin 2" in r["words"]
    assert len(r["corridor"]) == 4


def test_los_clear_across_open_ground(client):
    r = client.get("/api/los?a=m11&b=m20").get_json()
    segment = shapely.LineString([TRUTH_XY["m11"], TRUTH_XY["m20"]])
    assert not any(segment.intersects(p) for p in TRUTH_TERRAIN.values())
    assert r["clear"] is True and r["blocked_by"] == []
    assert r["distance_in"] == pytest.approx(segment.length, abs=0.15)


@pytest.mark.parametrize("width, expected", [("edge", 0.125), ("ruler", 1.25), ("2.5", 2.5), ("rules", 1.25)])
def test_los_widths(client, width, expected):
    # Merlin is a wizard: "as the rules say" is the full ruler.
    r = client.get(f"/api/los?a=m12&b=m21&width={width}").get_json()
    assert r["width_in"] == expected
    corners = np.array(r["corridor"])
    assert np.linalg.norm(corners[0] - corners[3]) == pytest.approx(expected, abs=1e-3)


def test_wizard_full_ruler_is_blocked_where_the_edge_is_clear(client):
    # Ann's base lies beside the line from Merlin to Goblin 1: inside the full ruler, outside its edge.
    edge = client.get("/api/los?a=m12&b=m20&width=edge").get_json()
    ruler = client.get("/api/los?a=m12&b=m20").get_json()
    assert edge["clear"] is True and ruler["width_in"] == 1.25
    assert ruler["clear"] is False and [b["id"] for b in ruler["blocked_by"]] == ["m15"]
    merlin = client.get("/api/targets?shooter=m12").get_json()["shooters"][0]
    goblin1 = next(e for e in merlin["enemies"] if e["id"] == "m20")
    assert merlin["target"] == "m22" and goblin1["reason"] == "blocked" and goblin1["blocked_by"][0]["id"] == "m15"


def test_los_of_a_figure_that_does_not_shoot_uses_the_edge(client):
    r = client.get("/api/los?a=m14&b=m21").get_json()
    assert r["width_in"] == 0.125 and "does not shoot" in r["width_words"]


@pytest.mark.parametrize("query, words", [
    ("", "give two figures"), ("?a=m10", "give two figures"), ("?a=m10&b=m10", "two different"),
    ("?a=m10&b=zz", "unknown figure id 'zz'"), ("?a=m10&b=m21&width=wide", "width"),
    ("?a=m10&b=m21&width=-1", "width"), ("?a=m10&b=m21&width=nan", "width")])
def test_los_bad_questions_are_400(client, query, words):
    res = client.get("/api/los" + query)
    assert res.status_code == 400
    assert words in res.get_json()["error"]


def test_targets_rank_every_enemy_with_a_reason(client):
    data = client.get("/api/targets").get_json()
    shooters = {s["shooter"]: s for s in data["shooters"]}
    assert set(shooters) == {"m10", "m11", "m12", "m22", "m25"}      # archers, wizard, horse archer
    for s in shooters.values():
        enemies = s["enemies"]
        assert [e["distance_in"] for e in enemies] == sorted(e["distance_in"] for e in enemies)
        assert all(e["reason_words"] for e in enemies)
    # With the house ranges (archers 12"): Goblin 2 is Robin's nearest enemy, but behind the woods,
    # so Robin must shoot the next one, Grak.
    robin = shooters["m10"]
    assert robin["target"] == "m23" and robin["range_in"] == 12.0
    goblin2 = next(e for e in robin["enemies"] if e["id"] == "m21")
    assert goblin2["reason"] == "blocked" and goblin2["distance_in"] < robin["distance_in"]
    assert [kinds(client)[b["id"]] for b in goblin2["blocked_by"]] == ["woods"]


def test_targets_for_one_shooter_and_for_one_that_cannot_shoot(client):
    data = client.get("/api/targets?shooter=m12").get_json()
    assert [s["shooter"] for s in data["shooters"]] == ["m12"]
    data = client.get("/api/targets?shooter=m14").get_json()
    assert data["shooters"] == [] and "does not shoot" in data["note"]
    assert client.get("/api/targets?shooter=nobody").status_code == 400


def test_house_range_changes_the_targets(client, pin):
    res = client.put("/api/setup/house", json={"key": "figure_types.archer.range", "value": 9.0}, headers=pin)
    assert res.status_code == 200
    shooters = {s["shooter"]: s for s in client.get("/api/targets").get_json()["shooters"]}
    # Shorter bows: Goblin 1, Marian's nearest enemy with a clear line (9.7"), is now out of reach.
    assert shooters["m11"]["target"] is None
    near = next(e for e in shooters["m11"]["enemies"] if e["id"] == "m20")
    assert near["reason"] == "out_of_range" and near["distance_in"] > 9.0
    systems = client.get("/api/systems").get_json()
    kim = next(s for s in systems["systems"] if s["name"] == "kimmiria")
    changed = {h["key"]: h for h in kim["house_defaults"]}["figure_types.archer.range"]
    assert changed["value"] == 9.0 and changed["changed"] is True
    # Back to the default.
    client.put("/api/setup/house", json={"key": "figure_types.archer.range", "value": None}, headers=pin)
    shooters = {s["shooter"]: s for s in client.get("/api/targets").get_json()["shooters"]}
    assert shooters["m11"]["target"] == "m20"


@pytest.mark.parametrize("body, words", [
    ({"key": "figure_types.archer.nothing", "value": 1}, "no such setting"),
    ({"key": "figure_types.archer.range", "value": "far"}, "expected float"),
    ({"value": 3}, "setting key")])
def test_bad_house_numbers_are_400(client, pin, body, words):
    res = client.put("/api/setup/house", json=body, headers=pin)
    assert res.status_code == 400 and words in res.get_json()["error"]


def test_status_in_plain_words(client):
    st = client.get("/api/status").get_json()
    assert st["calibration"]["anchors_seen"] == [0, 1, 2, 3]
    assert st["calibration_words"][0] == "All 4 corner markers are in view."
    assert st["figures"] == 12 and st["system"] == "kimmiria" and st["live_available"] is False


def test_systems_list_and_choice(client, pin):
    data = client.get("/api/systems").get_json()
    assert data["current"] == "kimmiria"
    kim = next(s for s in data["systems"] if s["name"] == "kimmiria")
    assert "archer" in kim["types"] and kim["house_defaults"]
    res = client.post("/api/setup/system", json={"name": "nonsense"}, headers=pin)
    assert res.status_code == 400 and "unknown rule system" in res.get_json()["error"]
    res = client.post("/api/setup/system", json={"name": 7}, headers=pin)
    assert res.status_code == 400
    res = client.post("/api/setup/system", json={"name": "KIMMIRIA"}, headers=pin)
    assert res.status_code == 200 and res.get_json()["system"] == "kimmiria"


def test_roster_edit_is_laid_over_the_scene_and_can_be_cleared(client, pin):
    res = client.put("/api/roster/m20", json={"name": "Gob", "type": "archer", "painted": False}, headers=pin)
    assert res.status_code == 200
    fig = next(f for f in client.get("/api/scene").get_json()["scene"]["figures"] if f["id"] == "m20")
    assert (fig["name"], fig["type"], fig["painted"], fig["side"]) == ("Gob", "archer", False, "blue")
    shooters = {s["shooter"] for s in client.get("/api/targets").get_json()["shooters"]}
    assert "m20" in shooters                                  # an archer now
    assert client.delete("/api/roster/m20", headers=pin).status_code == 200
    fig = next(f for f in client.get("/api/roster").get_json()["figures"] if f["id"] == "m20")
    assert (fig["name"], fig["type"], fig["edited"]) == ("Goblin 1", "troop", False)


@pytest.mark.parametrize("body, words", [
    ({"colour": "red"}, "unknown field"), ({"painted": "yes"}, "true or false"),
    ({"name": "x" * 41}, "short text"), ({"name": 5}, "short text")])
def test_bad_roster_edits_are_400(client, pin, body, words):
    res = client.put("/api/roster/m10", json=body, headers=pin)
    assert res.status_code == 400 and words in res.get_json()["error"]


def test_roster_edit_of_an_unknown_figure_is_404(client, pin):
    res = client.put("/api/roster/m99", json={"name": "Nobody"}, headers=pin)
    assert res.status_code == 404 and "m99" in res.get_json()["error"]


def test_non_json_body_is_400(client, pin):
    res = client.put("/api/roster/m10", data="not json", headers={**pin, "Content-Type": "application/json"})
    assert res.status_code == 400


def test_live_without_a_camera_is_409(client, pin):
    res = client.post("/api/live", json={"on": True}, headers=pin)
    assert res.status_code == 409 and "--camera" in res.get_json()["error"]


def test_overlay_picture_is_drawn_by_vision(client):
    pytest.importorskip("vision.overlay")
    with client.get("/api/overlay.jpg?a=m10&b=m21") as res:
        assert res.status_code == 200 and res.mimetype == "image/jpeg"
        drawn = cv2.imdecode(np.frombuffer(res.data, np.uint8), cv2.IMREAD_COLOR)
    with client.get("/api/frame.jpg") as res:
        plain = cv2.imdecode(np.frombuffer(res.data, np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == plain.shape
    changed = np.abs(drawn.astype(int) - plain.astype(int)).max(axis=2) > 40
    assert changed.mean() > 0.002                                           # rings, outlines, the ruler
    assert client.get("/api/overlay.jpg?a=m10").status_code == 400


# ------------------------------------------------------------ errors are reported, not dressed as absence

def test_an_overlay_that_fails_to_import_is_a_500_that_says_so(client, monkeypatch):
    """An ImportError in the overlay once became 404 "not available"."""
    import sys
    monkeypatch.setitem(sys.modules, "vision.overlay", None)          # import fails as a broken install would
    res = client.get("/api/overlay.jpg")
    assert res.status_code == 500
    message = res.get_json()["error"]
    assert "Error" in message and "vision.overlay" in message and "\n" not in message


def test_a_rule_system_that_fails_to_load_is_listed_with_its_error(client, monkeypatch):
    """A rule system that failed to load dropped out of /api/systems silently."""
    from assistant import rules
    monkeypatch.setitem(rules.SYSTEMS, "smart", "assistant.rules.no_such_module:Smart")
    systems = {s["name"]: s for s in client.get("/api/systems").get_json()["systems"]}
    assert set(systems) == set(rules.SYSTEMS)
    assert systems["smart"]["available"] is False and "No module named" in systems["smart"]["error"]
    assert systems["kimmiria"]["available"] is True


def test_a_broken_game_log_is_said_not_read_as_nobody_removed(client, pin, app):
    """A broken game log read as 'nobody removed'."""
    assert client.post("/api/game/new", headers=pin).status_code == 200
    path = app.extensions["tablesight"]["games"].current_path()
    path.write_bytes(b"this is not a game log" * 100)
    for p in ("/api/scene", "/api/targets"):
        res = client.get(p)
        assert res.status_code == 500 and "cannot be read" in res.get_json()["error"], p
    # The way out still works: a new game starts from the table.
    assert client.post("/api/game/new", headers=pin).status_code == 200
    assert client.get("/api/scene").status_code == 200
