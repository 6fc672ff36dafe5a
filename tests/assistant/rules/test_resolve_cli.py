"""`tablesight resolve SCENARIO [--json]` (issue 6 item 8) and the golden scenarios (issue 13).

Each tests/data/scenarios/<system>/<name>.json carries its `expect`ed outcome, written by hand from
the rule text, and `because`, the sentence it rests on (docs/scenarios.md). The test compares the
program with it; nothing rewrites an expectation from the program's output.
"""
import json
from pathlib import Path

import pytest

from assistant.cli import main

SCENARIOS = Path(__file__).parent.parent.parent / "data" / "scenarios"
CASES = sorted(SCENARIOS.glob("*/*.json"))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def matches(want, got) -> bool:
    """`got` holds everything `want` says: objects by their given keys, lists item by item."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and matches(v, got[k]) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(map(matches, want, got))
    return want == got


def unmet(expect: dict, got: dict) -> list[str]:
    """What the program's output lacks of the expected outcome (empty when it agrees)."""
    problems = []
    if "removed" in expect and sorted(expect["removed"]) != sorted(got["removed"]):
        problems.append(f"removed {got['removed']}, expected {expect['removed']}")
    if "prompts" in expect and expect["prompts"] != [p["kind"] for p in got["prompts"]]:
        problems.append(f"prompts {[p['kind'] for p in got['prompts']]}, expected {expect['prompts']}")
    for key, want in expect.get("result", {}).items():
        if not matches(want, got.get(key)):
            problems.append(f"{key} {got.get(key)!r}, expected {want!r}")
    events = iter(got["events"])                      # expected events appear in this order
    for want in expect.get("events", []):
        if not any(matches(want, e) for e in events):
            problems.append(f"no event {want} (in order)")
            break
    return problems


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_scenario(path, capsys):
    scenario = json.loads(path.read_text())
    assert scenario.get("expect") and scenario.get("because"), "each golden carries its expected outcome and sentence"
    code, out, err = run(capsys, "resolve", str(path), "--json")
    assert code == 0, err
    got = json.loads(out)
    assert unmet(scenario["expect"], got) == []
    assert got["unused_dice"] == 0                    # every die a scenario gives is used


@pytest.mark.parametrize("want, got, ok", [
    ({"a": 1}, {"a": 1, "b": 2}, True), ({"a": 1}, {"a": 2}, False), ([1, 2], [1, 2], True), ([1], [1, 2], False),
    ({"hp": {"T": 3}}, {"hp": {"T": 3, "A": 8}}, True), ({"hp": {"T": 3}}, {"hp": {"A": 8}}, False)])
def test_expectations_match_by_the_keys_they_give(want, got, ok):
    assert matches(want, got) is ok


def test_an_unmet_expectation_is_reported():
    got = {"removed": ["C"], "prompts": [], "events": [{"kind": "b"}, {"kind": "a"}], "winner": "red"}
    assert unmet({"removed": ["C"], "events": [{"kind": "b"}, {"kind": "a"}], "result": {"winner": "red"}}, got) == []
    assert len(unmet({"removed": [], "events": [{"kind": "a"}, {"kind": "b"}], "result": {"winner": "blue"}}, got)) == 3


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
