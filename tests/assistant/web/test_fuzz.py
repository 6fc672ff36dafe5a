"""Every endpoint, fuzzed: whatever a tablet or a stranger sends, no answer is a 5xx or a traceback,
and every error is one line.

Each route of the app (found from its URL map, so a new endpoint is fuzzed too) gets path values,
query strings, headers (the PIN or not, content types) and bodies (JSON of any shape, JSON nested
thousands deep, the fields the API knows with odd values, raw bytes, forms) from hypothesis. Runs
through Flask's test client with a bounded number of examples per route, so it stays fast.
"""
from __future__ import annotations

import json
import os
import re
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from assistant.web import create_app

PIN = "2468"
EXAMPLES = int(os.environ.get("TABLESIGHT_FUZZ_EXAMPLES", "30"))    # more for a long hunt
FIELDS = ["name", "key", "value", "on", "kind", "polygon", "condition", "type", "side", "painted", "figure",
          "pin", "next", "csrf_token", "photo", "a", "b", "width", "shooter", "once"]
KNOWN_WORDS = ["kimmiria", "anyminis", "smart", "kremlin", "m10", "m11", "m20", "d1", "t1", "archer", "wall",
               "woods", "figure_types.archer.range", "edge", "ruler", "rules", "1", "0", "-1", "nan", "inf",
               "1e309", "", " ", "\x00", "../../etc/passwd", "%2F%2Fevil", "<script>", "\u202e", "9" * 400]

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2 ** 70, max_value=2 ** 70),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                    st.sampled_from(KNOWN_WORDS))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), inner, max_size=5),
                           max_leaves=25)
known_objects = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=4)
polygons = st.lists(st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-100, 100),
                             min_size=0, max_size=3), max_size=8)


@st.composite
def bodies(draw):
    """(body bytes or None, content type or None)."""
    kind = draw(st.sampled_from(["none", "json", "known", "deep", "bytes", "form", "terrain", "broken"]))
    if kind == "none":
        return None, None
    if kind == "json":
        return json.dumps(draw(json_values)).encode(), "application/json"
    if kind == "known":
        return json.dumps(draw(known_objects)).encode(), draw(st.sampled_from(["application/json", "text/plain"]))
    if kind == "terrain":
        body = {"kind": draw(st.sampled_from(["wall", "woods", "lava"]) | st.text(max_size=5)),
                "polygon": draw(polygons)}
        return json.dumps(body).encode(), "application/json"
    if kind == "deep":
        depth = draw(st.integers(min_value=10, max_value=5000))
        opening = draw(st.sampled_from(["[", '{"a":']))
        closing = "]" if opening == "[" else "}"
        return (opening * depth + "1" + closing * depth).encode(), "application/json"
    if kind == "bytes":
        return draw(st.binary(max_size=300)), draw(st.sampled_from([None, "application/json", "image/jpeg",
                                                                     "application/octet-stream"]))
    if kind == "form":
        form = draw(st.dictionaries(st.sampled_from(FIELDS), st.text(max_size=20) | st.sampled_from(KNOWN_WORDS),
                                    max_size=4))
        return "&".join(f"{quote(k)}={quote(v)}" for k, v in form.items()).encode(), \
            "application/x-www-form-urlencoded"
    return draw(st.sampled_from([b'{"name": ', b"{'a': 1}", b'{"a": NaN}', b"\xff\xfe{", b"[]", b"5",
                                 b'"text"', b"null"])), "application/json"


@st.composite
def requests(draw, rule: str):
    path = rule
    for name in re.findall(r"<(?:[^:<>]+:)?([^<>]+)>", rule):
        value = draw(st.sampled_from(KNOWN_WORDS) | st.text(min_size=1, max_size=40))
        path = re.sub(r"<(?:[^:<>]+:)?" + re.escape(name) + ">", quote(value, safe=""), path)
    query = draw(st.dictionaries(st.sampled_from(FIELDS), st.sampled_from(KNOWN_WORDS) | st.text(max_size=20),
                                 max_size=4))
    if path.startswith("/live/events"):
        query["once"] = draw(st.sampled_from(["1", "0"]))
    headers = {}
    if draw(st.booleans()):
        headers["X-Table-PIN"] = draw(st.sampled_from([PIN, PIN, "0000", "", "2468 ", "x" * 50]))
    if draw(st.booleans()):
        headers["Last-Event-ID"] = draw(st.sampled_from(["1", "-5", "x", "99999999999999999999"]))
    body, ctype = draw(bodies())
    if ctype:
        headers["Content-Type"] = ctype
    return path, query, headers, body


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory):
    app = create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path_factory.mktemp("fuzz")), "TABLE_PIN": PIN,
                      "SECRET_KEY": "fuzz", "SSE_HEARTBEAT_S": 0.05, "LIVE_STREAM_MAX_S": 0.1})
    # Wrong PINs are part of the fuzz: the back-off must not turn the right PIN away for long.
    app.extensions["tablesight_failures"].MAX_WAIT_S = 0.0
    app.extensions["tablesight_failures"].FIRST_WAIT_S = 0.0
    app.extensions["tablesight_failures"].ADDRESS_BUDGET = 10 ** 9
    return app


def _routes():
    app = create_app({"DEMO": True, "INSTANCE_PATH": "/tmp/tablesight-fuzz-routes", "TABLE_PIN": PIN,
                      "SECRET_KEY": "fuzz"})
    out = []
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            out.append((method, rule.rule))
    return out


ROUTES = _routes()


def check_answer(res) -> None:
    assert res.status_code < 500, (res.status_code, res.get_data()[:300])
    data = res.get_data()
    assert b"Traceback" not in data
    if res.status_code >= 400:
        if res.mimetype == "application/json":
            message = res.get_json()["error"]
            assert isinstance(message, str) and message and "\n" not in message and len(message) <= 300
        else:
            assert len(data) < 20_000


@pytest.mark.parametrize("method, rule", ROUTES, ids=[f"{m} {r}" for m, r in ROUTES])
def test_no_request_breaks_an_endpoint(fuzz_app, method, rule):
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(req=requests(rule))
    def run(req):
        path, query, headers, body = req
        client = fuzz_app.test_client()
        res = client.open(path, method=method, query_string=query, headers=headers, data=body)
        try:
            check_answer(res)
        finally:
            res.close()
    run()


def test_every_route_is_fuzzed():
    assert {("GET", "/api/scene"), ("PUT", "/api/setup/house"), ("DELETE", "/api/roster/<figure_id>"),
            ("POST", "/api/photo"), ("POST", "/join"), ("GET", "/live/events")} <= set(ROUTES)
