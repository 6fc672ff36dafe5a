"""`tablesight los` and `tablesight targets` against the golden scenes, in words and JSON, and bad input."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import assistant.cli as cli

SCENES = Path(__file__).parent.parent / "data" / "scenes"


def golden(name: str) -> dict:
    return json.loads((SCENES / f"{name}.json").read_text())


def golden_cases(section: str):
    for path in sorted(SCENES.glob("*.json")):
        for item in json.loads(path.read_text())["expected"].get(section, []):
            yield pytest.param(path, item, id=f"{path.stem}:{item.get('a', item.get('shooter'))}"
                                                f"{'->' + item['b'] + '@' + str(item['width']) if 'b' in item else ''}")


@pytest.fixture
def run(monkeypatch, capsys):
    """Run the real `main` with only these two commands registered (others' modules may be mid-work)."""
    monkeypatch.setattr(cli, "COMMANDS", ("los", "targets"))

    def _run(*argv):
        code = cli.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err
    return _run


@pytest.mark.parametrize("path,item", list(golden_cases("los")))
def test_los_json_matches_golden(run, path, item):
    code, out, err = run("los", path, item["a"], item["b"], "--width", item["width"], "--json")
    assert code == 0, err
    got = json.loads(out)
    assert set(got) >= {"clear", "width", "distance", "edge_distance", "blocked_by"}
    assert (got["clear"], got["blocked_by"]) == (item["clear"], item["blocked_by"])


@pytest.mark.parametrize("path,item", list(golden_cases("targets")))
def test_targets_json_matches_golden(run, path, item):
    code, out, err = run("targets", path, "--json")
    assert code == 0, err
    shooters = {s["shooter"]: s for s in json.loads(out)["shooters"]}
    got = shooters[item["shooter"]]
    assert set(got) >= {"shooter", "target", "distance", "ties", "others"}
    assert (got["target"], got["ties"]) == (item["target"], item["ties"])
    assert [{k: o[k] for k in ("id", "reason", "blocked_by")} for o in got["others"]] == item["others"]
    assert all(set(o) >= {"id", "distance", "reason", "blocked_by"} for o in got["others"])


def test_los_distances_and_default_width(run):
    path = SCENES / "ruler_vs_edge.json"
    code, out, _ = run("los", path, "w1", "t2", "--json")        # a wizard needs the full ruler
    got = json.loads(out)
    assert got["width"] == 1.25 and got["blocked_by"] == ["b2"]
    assert got["distance"] == pytest.approx(8.0) and got["edge_distance"] == pytest.approx(7.0)
    code, out, _ = run("los", path, "a1", "t1", "--json")        # an archer the edge
    assert json.loads(out)["width"] == 0.125 and json.loads(out)["clear"]


def test_los_text_names_what_blocks(run):
    code, out, _ = run("los", SCENES / "woods_target_depth.json", "a2", "t2")
    assert code == 0
    assert "blocked by woods w1" in out and "in centre to centre" in out


def test_targets_text_reads_like_a_referee(run):
    _, out, _ = run("targets", SCENES / "tie.json")
    assert "Archer a1 must shoot e1 (6.00 in) or e2 (6.20 in) or e3 (6.25 in)" in out
    assert "roll a die" in out and "e4 is farther (6.3 in)" in out
    _, out, _ = run("targets", SCENES / "engaged_skipped.json")
    assert "Archer a1 must shoot e2 (6.3 in); e3 is in an engaged group" in out
    _, out, _ = run("targets", SCENES / "shooter_in_woods.json")
    assert "Archer s2 has no legal target; t2 is blocked by woods w1; t1 is blocked by woods w1." in out


def test_targets_repeat_times_on_stderr_and_prints_once(run):
    code, out, err = run("targets", SCENES / "tie.json", "--json", "--repeat", "3")
    assert code == 0 and "3 runs" in err and "ms per run" in err
    assert len(out.strip().splitlines()) == 1


def test_table_profile_sets_the_ruler_width(run, tmp_path):
    table = tmp_path / "table.toml"
    table.write_text('width = 48.0\ndepth = 36.0\n[[anchors]]\nid = 0\nx = 1.25\ny = 1.25\nsize = 2.0\n'
                     '[rules]\nruler_width = 0.5\n')
    path = SCENES / "ruler_vs_edge.json"
    _, out, _ = run("los", path, "a1", "t1", "--width", "ruler", "--json")
    assert not json.loads(out)["clear"]
    _, out, _ = run("los", path, "a1", "t1", "--width", "ruler", "--json", "--table", table)
    assert json.loads(out)["clear"] and json.loads(out)["width"] == 0.5


def test_table_roster_names_and_types_the_figures(run, tmp_path):
    doc = golden("tie")
    for fig in doc["figures"]:
        fig["type"] = None
    doc["figures"][0]["side"] = None
    scene = tmp_path / "scene.json"
    scene.write_text(json.dumps(doc))
    table = tmp_path / "table.toml"
    table.write_text('width = 48.0\ndepth = 36.0\n[[anchors]]\nid = 0\nx = 1.25\ny = 1.25\nsize = 2.0\n'
                     '[[roster]]\nfigure = "a1"\nname = "Robin"\nside = "blue"\ntype = "archer"\n'
                     '[[roster]]\nfigure = "e1"\nname = "Goblin 1"\ntype = "troop"\n')
    _, out, _ = run("targets", scene, "--table", table)
    assert "Archer Robin (a1) must shoot Goblin 1 (e1) (6.00 in)" in out


def test_only_kimmiria_obliges_the_closest_target(run, tmp_path):
    # KIMMIRIA: "Rule number one is that you have to shoot at the closest enemy target."
    _, out, _ = run("targets", SCENES / "tie.json")
    assert "must shoot e1" in out and "roll a die between them" in out
    # SMART has no such rule: the closest legal target is reported, not ordered.
    doc = {"units": "in", "table": {"width": 48, "depth": 36}, "grid": None, "terrain": [],
           "figures": [{"id": "a", "x": 5, "y": 5, "side": "red", "type": "archer"},
                       {"id": "b", "x": 15, "y": 5, "side": "blue", "type": "footman"}]}
    path = tmp_path / "smart.json"
    path.write_text(json.dumps(doc))
    code, out, _ = run("targets", path, "--system", "smart")
    assert code == 0 and "may shoot; the closest legal target is" in out and "must shoot" not in out


def write(tmp_path, doc) -> Path:
    path = tmp_path / "scene.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def broken(**changes):
    doc = golden("tie")
    doc.update(changes)
    return doc


def bad_figure(key, value):
    doc = golden("tie")
    if value is ...:
        del doc["figures"][1][key]
    else:
        doc["figures"][1][key] = value
    return doc


@pytest.mark.parametrize("argv_tail,doc,needle", [
    (["los", "{p}", "a1", "zz"], golden("tie"), "unknown figure id 'zz'"),
    (["targets", "{p}"], bad_figure("x", ...), "figure 'e1': missing key 'x'"),
    (["targets", "{p}"], bad_figure("y", float("nan")), "figure 'e1'.y: must be a finite number"),
    (["targets", "{p}"], broken(table={"width": 48}), "table: missing key 'depth'"),
    (["targets", "{p}"], broken(terrain=[{"id": "t9", "kind": "woods",
                                          "polygon": [[0, 0], [2, 2], [2, 0], [0, 2]]}]),
     "terrain 't9'.polygon: invalid polygon"),
    (["targets", "{p}"], '{"table": {"width": 48, ', "not valid JSON"),
    (["los", "{p}", "a1", "e1", "--width", "wide"], golden("tie"), "--width"),
    (["los", "{p}", "a1", "e1", "--width", "-1"], golden("tie"), "--width"),
    (["targets", "{p}", "--repeat", "0"], golden("tie"), "--repeat"),
    (["targets", "{p}", "--system", "no-such-rules"], golden("tie"), "no-such-rules"),
])
def test_bad_input_is_one_line_and_exit_2(run, tmp_path, argv_tail, doc, needle):
    path = write(tmp_path, doc)
    code, out, err = run(*[a.format(p=path) for a in argv_tail])
    assert code == 2 and out == ""
    assert err.startswith("tablesight: error: ") and err.count("\n") == 1
    assert needle in err


def test_missing_scene_file(run, tmp_path):
    code, _, err = run("targets", tmp_path / "nope.json")
    assert code == 2 and "nope.json" in err and err.count("\n") == 1


def test_los_to_a_point_and_a_grid_space(run):
    """A point target, for spells such as Teleport: "target square must be in line of sight"."""
    path = SCENES / "grid_square_diagonal.json"
    code, out, err = run("los", path, "a1", "--cell", "5,5", "--json")
    assert code == 0, err
    got = json.loads(out)
    assert got["point"] == [5.5, 5.5] and got["b"] is None and "clear" in got
    code, out, _ = run("los", path, "a1", "--to", "5.5,5.5", "--json")
    assert json.loads(out)["blocked_by"] == got["blocked_by"]
    for argv, words in ((("a1",), "give one target"), (("a1", "--to", "1"), "two numbers"),
                        (("a1", "--to", "1,2", "--cell", "1,2"), "give one target")):
        code, _, err = run("los", path, *argv)
        assert code == 2 and words in err and err.count("\n") == 1, err
    code, _, err = run("los", SCENES / "hills.json", "a1", "--cell", "1,1")
    assert code == 2 and "no grid" in err


def test_a_figure_with_no_known_place_is_never_a_target(run, tmp_path):
    """A still photo with a hand over a roster marker reports it hidden with `"place_known": false`
    (it stands at a point of the hand, not a measured place): `targets` must not rank it."""
    scene = {"units": "in", "table": {"width": 24.0, "depth": 24.0}, "grid": None, "terrain": [],
             "figures": [
                 {"id": "m10", "marker": 10, "side": "red", "type": "archer", "x": 4.0, "y": 4.0, "base": 1.0},
                 {"id": "m11", "marker": 11, "side": "blue", "type": "troop", "x": 6.0, "y": 4.0, "base": 1.0,
                  "hidden": True, "place_known": False},
                 {"id": "m12", "marker": 12, "side": "blue", "type": "troop", "x": 10.0, "y": 4.0, "base": 1.0}]}
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(scene))
    code, out, err = run("targets", path, "--json")
    assert code == 0, err
    archer = {s["shooter"]: s for s in json.loads(out)["shooters"]}["m10"]
    assert archer["target"] == "m12"
    assert "m11" not in [o["id"] for o in archer["others"]]
    code, _, err = run("los", path, "m10", "m11")
    assert code == 2 and "m11" in err
