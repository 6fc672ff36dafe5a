"""Issue 12 row 5: `los` and `targets` never traceback on a malformed Scene: one line on stderr, exit 2.

Every key of a valid scene is replaced by values of the wrong type (and out-of-bounds numbers);
deeply nested JSON is refused before it can exhaust the stack.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import assistant.cli as cli

SCENE = Path(__file__).parent.parent / "data" / "scenes" / "hills.json"
WRONG = {"int": 5, "text": "x", "null": None, "list": [], "object": {}, "bool": True, "huge": 1e308,
         "bigint": 2 ** 10000, "nested": [[1]], "negative": -1}


def base_scene() -> dict:
    doc = json.loads(SCENE.read_text())
    doc.pop("expected", None)
    return doc


def key_paths(node, prefix=()):
    """Every key path of the scene (the first two items of each list)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield prefix + (key,)
            yield from key_paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node[:2]):
            yield prefix + (i,)
            yield from key_paths(value, prefix + (i,))


def mutated(path, value) -> dict:
    doc = base_scene()
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = copy.deepcopy(value)
    return doc


@pytest.fixture
def run(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(cli, "COMMANDS", ("los", "targets"))

    def _run(text: str, command: str, *extra: str):
        path = tmp_path / "scene.json"
        path.write_text(text)
        a, b = (f["id"] for f in base_scene()["figures"][:2])
        argv = ["los", str(path), a, b] if command == "los" else ["targets", str(path)]
        code = cli.main([*argv, *extra])
        out, err = capsys.readouterr()
        return code, err
    return _run


def assert_one_line_or_ok(code: int, err: str) -> None:
    assert code in (0, 2), err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("tablesight: error: "), err
        assert "Traceback" not in err and len(err) < 400
    else:
        assert err == ""


CASES = [pytest.param(path, value, id=f"{'.'.join(map(str, path))}={name}")
         for path in key_paths(base_scene()) for name, value in WRONG.items()]


@pytest.mark.parametrize("command", ["los", "targets"])
@pytest.mark.parametrize("path,value", CASES)
def test_wrong_type_at_each_key_is_one_line(run, command, path, value):
    code, err = run(json.dumps(mutated(path, value)), command)
    assert_one_line_or_ok(code, err)


@pytest.mark.parametrize("command", ["los", "targets"])
@pytest.mark.parametrize("text", [
    pytest.param("[" * 100_000 + "]" * 100_000, id="arrays"),
    pytest.param('{"a":' * 50_000 + "1" + "}" * 50_000, id="objects"),
    pytest.param('{"units": "in", "table": ' + "[" * 20_000 + "]" * 20_000 + "}", id="inside-a-key"),
])
def test_deep_nesting_is_one_line(run, command, text):
    code, err = run(text, command)
    assert code == 2 and "nested too deeply" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("command", ["los", "targets"])
def test_a_huge_coordinate_is_refused_by_name(run, command):
    doc = mutated(("terrain", 0, "polygon", 0, 0), 1e300)
    code, err = run(json.dumps(doc), command)
    assert code == 2 and "polygon[0][0]" in err, err
