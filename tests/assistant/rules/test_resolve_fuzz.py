"""`tablesight resolve` on malformed scenarios (issue 13, issue 12 row 5): one line, exit status 2, the key
path and what was expected; never a traceback, never Python's own words."""
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from assistant.cli import main
from assistant.cli.resolve import resolve_scenario
from assistant.rules.inputs import MAX_NESTING

SCENARIOS = Path(__file__).parent.parent.parent / "data" / "scenarios"
CASES = sorted(SCENARIOS.glob("*/*.json"))
GOLDEN = {f"{p.parent.name}/{p.stem}": json.loads(p.read_text()) for p in CASES}
PYTHON_WORDS = ("invalid literal", "not enough values", "object is not", "unhashable", "has no attribute",
                "unsupported operand", "index out of range", "too many values", "argument must be",
                "could not convert", "not supported between", "object of type", "Traceback")


def paths(node, pre=()):
    yield pre
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, pre + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, pre + (i,))


def deep(n):
    v = 1
    for _ in range(n):
        v = [v]
    return v


BAD_VALUES = st.sampled_from(["x", "s", "zz", 5, -1, 0, 2.5, 1e308, True, None, {}, [], ["x"], {"zz": 1}, [[1]],
                              deep(MAX_NESTING - 8)])


def run(capsys, doc, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    code = main(["resolve", str(path), "--json"])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_clean_line(code, out, err):
    if code == 0:
        return
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("tablesight: error: "), err
    assert not any(w in err for w in PYTHON_WORDS), err


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(GOLDEN)), data=st.data(), value=BAD_VALUES, delete=st.booleans())
def test_mutated_golden_scenarios_never_traceback(name, data, value, delete, capsys, tmp_path):
    doc = json.loads(json.dumps(GOLDEN[name]))
    doc.pop("expect", None)
    path = data.draw(st.sampled_from(list(paths(doc))[1:]))
    node = doc
    for p in path[:-1]:
        node = node[p]
    if delete and isinstance(node, dict):
        del node[path[-1]]
    else:
        node[path[-1]] = value
    assert_one_clean_line(*run(capsys, doc, tmp_path))


KIM = GOLDEN["kimmiria/melee_locked_next_turn"]
SMART = GOLDEN["smart/missile_worked_example"]
AM = GOLDEN["anyminis/attack_behind_ganging_up"]


@pytest.mark.parametrize("doc, message", [
    ({**KIM, "system": 5}, "system: expected one of kimmiria, anyminis, smart, kremlin, got 5"),
    ({**KIM, "step": "move", "moves": [], "turn": {}}, "turn: expected a whole number >= 1, got {}"),
    ({**SMART, "shots": 5}, "shots: expected a list of objects with shooter, target, got 5"),
    ({**SMART, "shots": [{"shooter": "A", "target": "T", }], "dice": {"A": ["x"]}},
     "dice: expected a list of whole numbers 1-100 or an object"),
    ({**KIM, "locked": [["G", "Q"]]}, "locked[0][1]: unknown figure 'Q'; figures:"),
    ({**KIM, "locked": [["G"]]}, "locked[0]: expected [a figure id, a figure id], got [\"G\"]"),
    ({**AM, "scene": {**AM["scene"], "figures": [{**AM["scene"]["figures"][0], "weapons": "sword"}]
                      + AM["scene"]["figures"][1:]}},
     "scene.figures[0].weapons: expected a list of strings, got \"sword\""),
    ({**AM, "attacks": [{"attacker": "A1"}]}, "attacks[0]: missing key 'target'"),
])
def test_the_message_names_the_key_path(doc, message, capsys, tmp_path):
    code, out, err = run(capsys, doc, tmp_path)
    assert code == 2 and message in err, err
    assert_one_clean_line(code, out, err)


def test_deep_nesting_is_refused_before_parsing(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text('{"scene": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code = main(["resolve", str(path)])
    _, err = capsys.readouterr()
    assert code == 2 and f"nests at most {MAX_NESTING} deep" in err and err.count("\n") == 1


def test_a_huge_file_is_refused(tmp_path, capsys):
    path = tmp_path / "big.json"
    path.write_text('{"note": "' + "x" * (5 * 1024 * 1024) + '"}')
    code = main(["resolve", str(path)])
    _, err = capsys.readouterr()
    assert code == 2 and "a scenario is at most" in err


def test_every_golden_still_resolves():
    for name, doc in GOLDEN.items():
        assert resolve_scenario(doc)["step"] == doc["step"], name
