"""Bodies are bounded and JSON is checked before it is parsed; bad input is quoted back only in part."""
from __future__ import annotations

import json

import pytest

from assistant.web import inputs

JSON_ENDPOINTS = [("post", "/api/setup/system"), ("put", "/api/setup/house"), ("put", "/api/roster/m10"),
                  ("post", "/api/terrain"), ("post", "/api/live"), ("post", "/api/game/new"),
                  ("post", "/api/game/roll")]
ANY_CHANGE = JSON_ENDPOINTS + [("post", "/api/game/next"), ("post", "/api/game/undo"), ("delete", "/api/roster/m10")]


@pytest.mark.parametrize("method, path", JSON_ENDPOINTS)
@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_json_nested_a_thousand_deep_is_one_clear_400(client, pin, method, path, opening):
    """JSON nested about 1,000 deep once gave HTTP 500 (a RecursionError in the parser) on 7 endpoints."""
    closing = "]" if opening == "[" else "}"
    body = opening * 1000 + "1" + closing * 1000
    res = getattr(client, method)(path, data=body, headers={**pin, "Content-Type": "application/json"})
    assert res.status_code == 400
    message = res.get_json()["error"]
    assert "deeper than" in message and "\n" not in message


@pytest.mark.parametrize("method, path", ANY_CHANGE)
def test_a_big_body_is_413_before_it_is_read(client, pin, method, path):
    body = json.dumps({"name": "x" * (inputs.JSON_MAX_BYTES + 1)})
    res = getattr(client, method)(path, data=body, headers={**pin, "Content-Type": "application/json"})
    assert res.status_code == 413
    assert len(res.data) < 500 and "kB" in res.get_json()["error"]


def test_a_twenty_megabyte_system_name_is_not_echoed(client, pin):
    """A 20 MB system name once came back in a 20 MB 400 (and the server kept the memory)."""
    res = client.post("/api/setup/system", data=json.dumps({"name": "x" * 20_000_000}),
                      headers={**pin, "Content-Type": "application/json"})
    assert res.status_code == 413 and len(res.data) < 500


@pytest.mark.parametrize("method, path, body", [
    ("post", "/api/setup/system", {"name": "q" * 30_000}),
    ("post", "/api/setup/system", {"name": ["q" * 30_000]}),
    ("put", "/api/roster/m10", {"name": "q" * 30_000}),
    ("put", "/api/roster/m10", {"side": ["q"] * 5_000}),
    ("put", "/api/setup/house", {"key": "q" * 30_000, "value": 3}),
    ("post", "/api/terrain", {"kind": "q" * 30_000, "polygon": [[1, 1], [3, 1], [2, 3]]}),
    ("post", "/api/game/roll", {"value": "q" * 30_000}),
])
def test_errors_quote_only_a_short_prefix(client, pin, method, path, body):
    res = getattr(client, method)(path, json=body, headers=pin)
    assert 400 <= res.status_code < 500
    message = res.get_json()["error"]
    assert len(message) <= inputs.MESSAGE_MAX_CHARS and "q" * (inputs.QUOTE_CHARS + 1) not in message


def test_long_query_values_are_quoted_short(client):
    res = client.get("/api/los?a=m10&b=" + "z" * 20_000)
    assert res.status_code == 400 and len(res.get_json()["error"]) <= inputs.MESSAGE_MAX_CHARS


def test_a_form_body_still_works_where_a_form_is_expected(client, pin):
    res = client.post("/api/setup/system", data={"name": "kimmiria"}, headers=pin)
    assert res.status_code == 200


@pytest.mark.parametrize("value, shown", [
    ("short", "'short'"), (5, "5"), ("y" * 100, "'" + "y" * 40 + "'... (100 characters)"),
    (["a"] * 100, "['a', 'a', 'a', 'a', 'a', 'a', 'a', 'a',... (500 characters)"),
])
def test_quote(value, shown):
    assert inputs.quote(value) == shown


@pytest.mark.parametrize("text, depth", [("1", 0), ("[]", 1), ('{"a": [1, {"b": 2}]}', 3),
                                          ('["[[[[", "]]"]', 1), ('"\\"[[["', 0), ("[" * 50 + "]" * 50, 50)])
def test_json_depth_counts_outside_strings(text, depth):
    assert inputs.json_depth(text) == depth


def test_one_line():
    assert inputs.one_line("a\nb\tc") == "a b c"
    assert len(inputs.one_line("w" * 10_000)) == inputs.MESSAGE_MAX_CHARS
