"""`tablesight resolve SCENARIO [--json]` (issue 6 item 8) and the golden scenarios (item 9).

Each tests/data/scenarios/<system>/<name>.json is resolved and compared with <name>.expected.json.
After a deliberate change, rewrite the expected files with TABLESIGHT_UPDATE_GOLDEN=1 and review the diff.
"""
import json
import os
from pathlib import Path

import pytest

from assistant.cli import main

SCENARIOS = Path(__file__).parent.parent.parent / "data" / "scenarios"
CASES = sorted(p for p in SCENARIOS.glob("*/*.json") if not p.name.endswith(".expected.json"))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_scenario(path, capsys):
    code, out, err = run(capsys, "resolve", str(path), "--json")
    assert code == 0, err
    got = json.loads(out)
    expected_path = path.with_suffix(".expected.json")
    if os.environ.get("TABLESIGHT_UPDATE_GOLDEN"):
        expected_path.write_text(json.dumps(got, indent=1) + "\n")
    expected = json.loads(expected_path.read_text())
    assert got == expected
    assert got["unused_dice"] == 0                    # every die a scenario gives is used


def test_kimmiria_has_a_golden_file_per_step():
    steps = {json.loads(p.read_text())["step"] for p in CASES if p.parent.name == "kimmiria"}
    assert steps == {"missile", "initiative", "groups", "move", "melee", "victory"}


def test_worked_example_text_output(capsys):
    code, out, _ = run(capsys, "resolve", str(SCENARIOS / "kimmiria" / "melee_worked_example.json"))
    assert code == 0
    assert "V (7) attacks C (3) across: V kills C." in out
    assert "Removed: C, T, X, F, W" in out


BASE = {"system": "kimmiria", "step": "melee", "attacker_side": "red",
        "scene": {"units": "in", "table": {"width": 10, "depth": 10}, "figures": [
            {"id": "a", "side": "red", "type": "troop", "x": 1.0, "y": 1.0},
            {"id": "b", "side": "blue", "type": "troop", "x": 2.0, "y": 1.0}]},
        "dice": {"a": 3, "b": 4}}


@pytest.mark.parametrize("change, message", [
    ({"system": "chess"}, "unknown rule system 'chess'"),
    ({"step": "dance"}, "unknown step 'dance'"),
    ({"dice": {"a": 3}}, "dice: d6 for melee by b: no die value given"),
    ({"dice": {"a": 7, "b": 1}}, "d6 for melee by a: expected a whole number 1-6, got 7"),
    ({"dice": "six"}, "dice: expected a list"),
    ({"scene": {"table": {"width": 1}}}, "table: missing key 'depth'"),
    ({"overrides": {"figure_types.troop.fv": "high"}}, "override 'figure_types.troop.fv'"),
    ({"attacker_side": 3}, "attacker_side"),
    ({"choices": {"a": "zz"}}, "choices.a: unknown figure 'zz'; figures: a, b"),
    ({"scene": {**BASE["scene"], "figures": [{**BASE["scene"]["figures"][0], "type": "dragonfly"},
                                             BASE["scene"]["figures"][1]]}}, "unknown figure type 'dragonfly'"),
    ({"step": "victory"}, "start_counts"),
    ({"step": "move"}, "moves: expected a list"),
    ({"step": "groups", "attacker_side": None}, "attacker_side is required"),
])
def test_bad_scenario_one_line_exit_2(tmp_path, capsys, change, message):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({**BASE, **change}))
    code, out, err = run(capsys, "resolve", str(path), "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("tablesight: error: ") and message in err, err


@pytest.mark.parametrize("content, message", [("{not json", "not valid JSON"), ("[1, 2]", "expected a JSON object"),
                                              ('{"step": "melee"}', "missing key 'scene'")])
def test_bad_file(tmp_path, capsys, content, message):
    path = tmp_path / "s.json"
    path.write_text(content)
    code, _, err = run(capsys, "resolve", str(path))
    assert code == 2 and message in err and err.count("\n") == 1


def test_missing_file(tmp_path, capsys):
    code, _, err = run(capsys, "resolve", str(tmp_path / "nope.json"))
    assert code == 2 and "nope.json" in err
