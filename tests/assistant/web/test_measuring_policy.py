"""The tablet's ranking reads the rule system's own policy (issue 14): SMART's obstacle roll is a
risk with words, not a block."""
from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from assistant.rules import get_system
from assistant.web.measuring import targets_json
from measure.scene import scene_from_json

PROFILE = SimpleNamespace(rules=SimpleNamespace(ruler_edge_in=0.125, ruler_width_in=1.25, engage_gap_in=0.1,
                                                tie_in=0.25))


def test_smart_wall_is_an_obstacle_roll_on_the_tablet():
    """"If there is intervening terrain in the way ... If one rolls a 1-10, the arrow or bolt hits that
    obstacle instead"."""
    scene = scene_from_json({"units": "in", "table": {"width": 48, "depth": 36}, "figures": [
        {"id": "A", "side": "blue", "type": "archer", "x": 5, "y": 5},
        {"id": "T", "side": "red", "type": "infantry", "x": 15, "y": 5}],
        "terrain": [{"id": "w", "kind": "wall", "polygon": [[9.5, 3], [10.5, 3], [10.5, 7], [9.5, 7]]}]})
    (shooter,) = targets_json(scene, get_system("smart"), PROFILE)["shooters"]
    (enemy,) = shooter["enemies"]
    assert shooter["target"] == "T" and enemy["reason"] == "target" and enemy["needs"] == 11
    assert enemy["risks"] == ["obstacle_roll"] and [x["id"] for x in enemy["in_the_way"]] == ["w"]
    assert "a die says" in enemy["risk_words"][0]
    troop = scene.with_figures([scene.figures[0], replace(scene.figures[1], type="troop")])
    kim = targets_json(troop, get_system("kimmiria"), PROFILE)      # KIMMIRIA: a wall blocks
    assert kim["shooters"][0]["target"] is None and kim["shooters"][0]["enemies"][0]["reason"] == "blocked"
