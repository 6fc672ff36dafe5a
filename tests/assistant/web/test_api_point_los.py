"""Sight to a point on the tablet: `/api/los?a=ID&to=X,Y` (or `&cell=COL,ROW` on a grid), for spells
such as AnyMinis!' Teleport: "target square must be in line of sight"."""
from __future__ import annotations

import json

import pytest
import shapely

from assistant.demo import DEMO_TRUTH

TRUTH = json.loads(DEMO_TRUTH.read_text(encoding="utf-8"))
TRUTH_XY = {f["id"]: (f["x"], f["y"]) for f in TRUTH["figures"]}
WOODS = next(shapely.Polygon(t["polygon"]) for t in TRUTH["terrain"] if t["kind"] == "woods")


def test_a_point_behind_the_woods_is_not_seen(client):
    x, y = TRUTH_XY["m21"]                     # where Goblin 2 stands, behind the woods from Robin
    r = client.get(f"/api/los?a=m10&to={x},{y}").get_json()
    assert shapely.LineString([TRUTH_XY["m10"], (x, y)]).crosses(WOODS)
    assert r["clear"] is False and r["point"] == [pytest.approx(x), pytest.approx(y)]
    assert r["blocked_by"] and "Robin cannot see the point" in r["words"]




def test_a_point_next_to_the_shooter_is_seen(client):
    x, y = TRUTH_XY["m10"]
    r = client.get(f"/api/los?a=m10&to={x + 0.8},{y}").get_json()
    assert r["clear"] is True and r["distance_in"] == pytest.approx(0.8, abs=0.2)


@pytest.mark.parametrize("query, words", [
    ("?a=m10&to=1", "two numbers"), ("?a=m10&to=a,b", "two numbers"), ("?a=m10&to=nan,1", "finite"),
    ("?a=m10&cell=3,4", "no grid"), ("?a=m10&to=1,2&cell=3,4", "either"), ("?a=zz&to=1,2", "unknown figure id")])
def test_bad_points_are_400(client, query, words):
    res = client.get("/api/los" + query)
    assert res.status_code == 400
    assert words in res.get_json()["error"]
