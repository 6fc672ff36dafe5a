"""A new table without writing a file: the Setup wizard's answers become a profile TOML the CLI reads too."""
from __future__ import annotations

from pathlib import Path

import pytest

from calibration.profile import load_profile

KITCHEN = {"name": "Kitchen table", "width": 60, "depth": 40, "grid": {"kind": "square", "pitch": 1},
           "sides": [{"name": "red", "colour": "#c82828"}, {"name": "Blue", "colour": "#2850c8"}],
           "terrain": ["woods", "hill"]}


def test_saving_a_table_writes_a_profile_the_cli_reads(client, pin, app):
    res = client.post("/api/tables", json=KITCHEN, headers=pin)
    assert res.status_code == 201
    out = res.get_json()
    assert out["file"] == "kitchen-table.toml" and out["current"] is True
    path = Path(app.config["TABLES_DIR"]) / "kitchen-table.toml"
    profile = load_profile(path)                        # the reader every command uses
    assert (profile.name, profile.width_in, profile.depth_in) == ("Kitchen table", 60.0, 40.0)
    assert profile.grid.kind == "square" and profile.grid.pitch_in == 1.0
    assert [(s.name, s.rgb) for s in profile.sides] == [("red", (200, 40, 40)), ("Blue", (40, 80, 200))]
    assert [t.name for t in profile.terrain] == ["woods", "hill"]
    # The four printed corner markers, 1/4 in in from the edges (docs/setup.md step 2).
    assert [(a.id, a.x_in, a.y_in, a.size_in) for a in profile.anchors] == [
        (0, 1.25, 1.25, 2.0), (1, 58.75, 1.25, 2.0), (2, 58.75, 38.75, 2.0), (3, 1.25, 38.75, 2.0)]
    # The tablet now uses it: no picture yet, the new size.
    st = client.get("/api/status").get_json()
    assert st["table"] == {"name": "Kitchen table", "width": 60.0, "depth": 40.0} and st["source"] == "none"
    assert client.get("/api/scene").get_json()["scene"] is None


def test_the_cli_serves_a_saved_table(client, pin, app, tmp_path):
    from assistant.web import create_app
    client.post("/api/tables", json=KITCHEN, headers=pin)
    again = create_app({"TABLE": str(Path(app.config["TABLES_DIR"]) / "kitchen-table.toml"),
                        "INSTANCE_PATH": str(tmp_path / "other"), "TABLE_PIN": "1357", "SECRET_KEY": "s"})
    assert again.test_client().get("/api/status").get_json()["table"]["name"] == "Kitchen table"


def test_switching_between_saved_tables(client, pin):
    client.post("/api/tables", json=KITCHEN, headers=pin)
    client.post("/api/tables", json={**KITCHEN, "name": "Club table", "width": 72, "depth": 48, "grid": None},
                headers=pin)
    listed = client.get("/api/tables").get_json()
    assert [(t["file"], t["current"]) for t in listed["tables"]] == [(None, False), ("club-table.toml", True),
                                                                     ("kitchen-table.toml", False)]
    res = client.post("/api/tables/use", json={"file": "kitchen-table.toml"}, headers=pin)
    assert res.status_code == 200 and res.get_json()["current"] is True
    assert client.get("/api/status").get_json()["table"]["width"] == 60.0
    assert client.get("/setup/").status_code == 200


def test_a_side_may_give_its_bases_size_or_leave_it_to_the_photo(client, pin, app):
    body = {**KITCHEN, "sides": [{"name": "red", "colour": "#c82828", "base": 1.26},
                                 {"name": "Blue", "colour": "#2850c8", "base": None}]}
    assert client.post("/api/tables", json=body, headers=pin).status_code == 201
    profile = load_profile(Path(app.config["TABLES_DIR"]) / "kitchen-table.toml")
    assert [s.base_in for s in profile.sides] == [1.26, None]


def test_saving_and_switching_need_the_pin(client):
    assert client.post("/api/tables", json=KITCHEN).status_code == 401
    assert client.post("/api/tables/use", json={"file": "kitchen-table.toml"}).status_code == 401


@pytest.mark.parametrize("change, words", [
    ({"name": ""}, "name"),
    ({"width": 2}, "width"),
    ({"depth": "big"}, "depth"),
    ({"grid": {"kind": "triangle", "pitch": 1}}, "grid"),
    ({"sides": [{"name": "red"}, {"name": "Red"}]}, "same name"),
    ({"sides": [{"name": "red", "colour": "crimson"}]}, "colour"),
    ({"sides": [{"name": "red", "base": 32}]}, "red's bases"),        # millimetres where inches are asked
    ({"terrain": ["lava"]}, "terrain"),
])
def test_a_wrong_answer_is_one_clear_400_and_nothing_is_written(client, pin, app, change, words):
    res = client.post("/api/tables", json={**KITCHEN, **change}, headers=pin)
    assert res.status_code == 400 and words in res.get_json()["error"]
    assert not list(Path(app.config["TABLES_DIR"]).glob("*.toml"))
    assert client.get("/api/status").get_json()["table"]["name"].startswith("Demo table")


@pytest.mark.parametrize("file", ["../secret_key", "nothing.toml", "kitchen"])
def test_only_saved_tables_can_be_used(client, pin, file):
    res = client.post("/api/tables/use", json={"file": file}, headers=pin)
    assert res.status_code in (400, 404)


@pytest.mark.parametrize("url", ["/api/sheets/anchors.pdf", "/api/sheets/anchors.pdf?paper=letter",
                                 "/api/sheets/markers-0.pdf?colour=%23c82828", "/api/sheets/markers-1.pdf",
                                 "/api/sheets/grid.pdf?kind=hex&pitch=1"])
def test_the_printable_sheets_are_served(client, url):
    res = client.get(url)
    assert res.status_code == 200 and res.mimetype == "application/pdf" and res.data.startswith(b"%PDF-1.4")


def test_a_wrong_sheet_is_a_4xx(client):
    assert client.get("/api/sheets/grid.pdf?pitch=99").status_code == 400
    assert client.get("/api/sheets/markers-7.pdf").status_code == 404


# ------------------------------------------------------------ the table in use, after a restart

def _restart(app, **extra):
    from assistant.web import create_app
    return create_app({"DEMO": True, "INSTANCE_PATH": app.instance_path, "TABLE_PIN": "2468",
                       "SECRET_KEY": "test-secret", **extra}).test_client()


def test_a_restart_comes_back_to_the_saved_table_in_use(client, pin, app):
    client.post("/api/tables", json=KITCHEN, headers=pin)          # saved and in use
    again = _restart(app)
    st = again.get("/api/status").get_json()
    assert st["table"] == {"name": "Kitchen table", "width": 60.0, "depth": 40.0}
    assert st["source"] == "none"          # the demo photo is not measured against the kitchen table
    listed = again.get("/api/tables").get_json()["tables"]
    assert [(t["file"], t["current"]) for t in listed] == [(None, False), ("kitchen-table.toml", True)]
    assert listed[0]["started"] is True    # the demo table: always a way back to it


def test_going_back_to_the_started_table_is_remembered_too(client, pin, app):
    client.post("/api/tables", json=KITCHEN, headers=pin)
    res = client.post("/api/tables/use", json={"started": True}, headers=pin)
    assert res.status_code == 200 and res.get_json()["current"] is True
    st = client.get("/api/status").get_json()
    assert st["table"]["name"] != "Kitchen table" and st["source"] == "demo"   # the demo photo again
    assert client.get("/api/scene").get_json()["scene"]["terrain"], "the demo's known terrain is back"
    assert _restart(app).get("/api/status").get_json()["table"]["name"] == st["table"]["name"]


def test_a_saved_table_broken_since_is_not_used_after_a_restart(client, pin, app):
    client.post("/api/tables", json=KITCHEN, headers=pin)
    (Path(app.config["TABLES_DIR"]) / "kitchen-table.toml").write_text("width = [", encoding="utf-8")
    assert _restart(app).get("/api/status").get_json()["table"]["name"] != "Kitchen table"


def test_started_with_another_table_means_that_table(client, pin, app, tmp_path):
    client.post("/api/tables", json=KITCHEN, headers=pin)
    other = tmp_path / "club.toml"
    client.post("/api/tables", json={**KITCHEN, "name": "Club", "width": 72, "depth": 48, "use": False},
                headers=pin)
    other.write_bytes((Path(app.config["TABLES_DIR"]) / "club.toml").read_bytes())
    st = _restart(app, TABLE=str(other)).get("/api/status").get_json()
    assert st["table"]["name"] == "Club"


def test_colours_taught_after_a_switch_belong_to_the_new_table(client, pin, app):
    client.post("/api/tables", json=KITCHEN, headers=pin)
    ext = app.extensions["tablesight"]
    assert Path(ext["learned_path"]) == Path(app.config["TABLES_DIR"]) / "kitchen-table.learned.toml"
