"""KIMMIRIA missile fire (issue 6 item 3), each test quoting the sentence it checks."""
import pytest

from assistant.rules import get_system
from assistant.rules.dice import ScriptedDice
from assistant.rules.kimmiria import ScenarioError
from assistant.rules.kimmiria_board import Fighter
from assistant.rules.kimmiria_combat import (CombatRules, MissileTargetError, MissileType, Shot, check_blast,
                                             resolve_missiles)
from tests.assistant.rules.scenes import grid_scene

K = get_system("kimmiria")
TYPES = K.missile_types()


def F(fid, side, type_="troop", armor=0, painted=True, terrain="clear"):
    t = K.values["figure_types"][type_]
    return Fighter(fid, side, type_, t["class"], t["fv"], armor, painted, terrain)


def fire(shots, fighters, dice, rules=None, **kw):
    return resolve_missiles(shots, fighters, TYPES, ScriptedDice(dice), rules or K.combat_rules(), **kw)


@pytest.mark.parametrize("attack, defence, armor, hit", [
    (5, 4, 0, True), (4, 4, 0, False), (3, 4, 0, False), (6, 4, 1, True), (5, 4, 1, False), (6, 6, 0, False)])
def test_attacker_must_beat_defender_plus_armor(attack, defence, armor, hit):
    # "The attacker rolls one die, the defender rolls one die for each figure and adds his Armor Plus
    # number to the number he rolled. The attackers wins when his number is larger than the defenders.
    # Ties go to the defender"
    fs = {"a": F("a", "red", "archer"), "t": F("t", "blue", armor=armor)}
    out = fire([Shot("a", ("t",))], fs, {"a": attack, "t": defence})
    assert (out.fallen == ("t",)) == hit
    assert out.events[0].data["defence_total"] == defence + armor


def test_wizards_win_ties():
    # "Ties go to the defender, except with magic attacks by WIZARDS, who win all ties."
    fs = {"w": F("w", "red", "wizard"), "t": F("t", "blue", armor=1)}
    assert fire([Shot("w", ("t",))], fs, {"w": 5, "t": 4}).fallen == ("t",)
    assert fire([Shot("w", ("t",))], fs, {"w": 4, "t": 4}).fallen == ()


def test_artillery_ignores_armor():
    # "ARTILLERY attacks are not effected by Armor Plus."
    fs = {"g": F("g", "red", "artillery"), "t": F("t", "blue", armor=2)}
    out = fire([Shot("g", ("t",))], fs, {"g": 4, "t": 3})
    assert out.fallen == ("t",) and out.events[0].data["defence_mods"] == {}


def test_unpainted_minus_one_on_missile_rolls():
    # "at a -1 penalty to any and all die rolls that the unpainted figure makes"
    fs = {"a": F("a", "red", "archer", painted=False), "t": F("t", "blue", painted=False)}
    out = fire([Shot("a", ("t",))], fs, {"a": 5, "t": 5})
    e = out.events[0]
    assert (e.data["attack_total"], e.data["defence_total"]) == (4, 4) and out.fallen == ()


def test_fallen_removed_after_all_missiles():
    # "Remove the figures that lost against the missiles AFTER everyone has fired their missiles. This
    # includes other missile firing figures." Two archers shoot each other; both fire and both fall.
    fs = {"a": F("a", "red", "archer"), "b": F("b", "blue", "archer")}
    out = fire([Shot("a", ("b",)), Shot("b", ("a",))], fs, {"a": [6, 1], "b": [1, 6]})
    assert out.fallen == ("b", "a")
    assert [e.kind for e in out.events] == ["missile_hit", "missile_hit", "removed"]
    assert out.events[-1].data["figures"] == ["b", "a"]


def test_wizard_hits_up_to_two_next_to_one_another():
    # "WIZARD magic attacks effect up to two enemy figures that are next to one another"
    fs = {"w": F("w", "red", "wizard"), "x": F("x", "blue"), "y": F("y", "blue"), "z": F("z", "blue")}
    touching = {"x": {"y": "across"}, "y": {"x": "across", "z": "across"}, "z": {"y": "across"}}
    check_blast(Shot("w", ("x", "y")), fs, TYPES["wizard"], touching)
    with pytest.raises(MissileTargetError, match="at most 2"):
        check_blast(Shot("w", ("x", "y", "z")), fs, TYPES["wizard"], touching)
    with pytest.raises(MissileTargetError, match="z does not touch x"):
        check_blast(Shot("w", ("x", "z")), fs, TYPES["wizard"], touching)
    # One attacker die against each defender's die: "the defender rolls one die for each figure".
    out = fire([Shot("w", ("x", "y"))], fs, {"w": 4, "x": 3, "y": 5})
    assert out.fallen == ("x",) and [e.data["attack_die"] for e in out.events[:2]] == [4, 4]


def test_artillery_hits_up_to_three_touching_in_one_group():
    # "ARTILLERY attacks effect up to three enemy figures that are all in the same group, and all
    # touching each other."
    fs = {"g": F("g", "red", "artillery")} | {k: F(k, "blue") for k in "pqrs"} | {"m": F("m", "red")}
    touching = {"p": {"q": "across"}, "q": {"p": "across", "r": "corner"}, "r": {"q": "corner", "s": "across"},
                "s": {"r": "across"}}
    check_blast(Shot("g", ("p", "q", "r")), fs, TYPES["artillery"], touching)
    with pytest.raises(MissileTargetError, match="at most 3"):
        check_blast(Shot("g", ("p", "q", "r", "s")), fs, TYPES["artillery"], touching)
    with pytest.raises(MissileTargetError, match="own side"):
        check_blast(Shot("g", ("m",)), fs, TYPES["artillery"], touching)
    with pytest.raises(MissileTargetError, match="troop hits at most 1|at most 1"):
        check_blast(Shot("m", ("p", "q")), fs, MissileType(), touching)


def test_resting_wizard_does_not_attack():
    # "A Wizard may NOT attack the turn before or the turn after he does his fly over water."
    fs = {"w": F("w", "red", "wizard"), "t": F("t", "blue")}
    out = fire([Shot("w", ("t",))], fs, {}, resting=["w"])
    assert [e.kind for e in out.events] == ["missile_skipped"] and out.fallen == ()


# ------------------------------------------------------------------ the step on a scene

def test_missile_order_archers_then_wizards_then_artillery():
    # "Missiles are defined as arrows ... (in other words stuff ARCHERS use), then magic from WIZARDS,
    # last weapons from ARTILLERY." Both sides fire: "BOTH sides may fire at missiles at each other."
    scene = grid_scene({"g": (0, 0, "red", "artillery"), "w": (0, 2, "red", "wizard"), "a": (0, 4, "blue", "archer"),
                        "t1": (6, 0, "blue"), "t2": (6, 2, "blue"), "t3": (6, 4, "red")}, width=12, depth=6)
    out = K.resolve("missile", scene, "red", ScriptedDice([6] * 12),
                    {"targets": {"g": "t1", "w": "t2", "a": "t3"}})
    assert [e.data["shooter"] for e in out.events if e.kind.startswith("missile_")] == ["a", "w", "g"]
    assert out.extra["fired"] == ["a", "w", "g"]


def test_closest_target_from_measure():
    # "Rule number one is that you have to shoot at the closest enemy target. Use a ruler."
    scene = grid_scene({"a": (0, 0, "red", "archer"), "near": (4, 0, "blue"), "far": (8, 0, "blue")}, width=12)
    out = K.resolve("missile", scene, "red", ScriptedDice({"a": 6, "near": 1}), {})
    assert out.removed == ("near",) and out.extra["shots"] == {"a": ["near"]}


def test_no_shooting_into_an_engaged_group():
    # "You cannot shoot into a group of engaged figures." The nearer blue figure touches a red one.
    scene = grid_scene({"a": (0, 0, "red", "archer"), "e": (3, 2, "blue"), "f": (4, 2, "red"),
                        "far": (8, 0, "blue")}, width=12)
    out = K.resolve("missile", scene, "red", ScriptedDice({"a": 6, "far": 1}), {})
    assert out.extra["shots"] == {"a": ["far"]}


def test_tied_targets_picked_by_a_die():
    # "If two targets are really close to the same distance, choose with a die roll which one is closer."
    scene = grid_scene({"a": (4, 0, "red", "archer"), "l": (0, 4, "blue"), "r": (8, 4, "blue")}, width=12)
    low = K.resolve("missile", scene, "red", ScriptedDice({"a": [2, 1], "l": 6, "r": 6}), {})
    high = K.resolve("missile", scene, "red", ScriptedDice({"a": [5, 1], "l": 6, "r": 6}), {})
    assert low.events[0].kind == "target_tie" and low.extra["shots"]["a"] == ["l"]
    assert high.extra["shots"]["a"] == ["r"]


def test_blocked_by_trees_beyond_half_an_inch():
    # "Missiles will go into (and out of) trees and rocks, but only a half inch or half hex." A wood
    # three spaces deep stands between the archer and the near target.
    scene = grid_scene({"a": (0, 1, "red", "archer"), "hidden": (6, 1, "blue"), "open": (0, 8, "blue")},
                       [{"kind": "woods", "cells": [[2, 0], [2, 1], [2, 2], [3, 0], [3, 1], [3, 2], [4, 0], [4, 1], [4, 2]]}],
                       width=12, depth=10)
    out = K.resolve("missile", scene, "red", ScriptedDice({"a": 6, "open": 1}), {})
    assert out.extra["shots"] == {"a": ["open"]}


def test_wizard_default_blast_takes_a_touching_friend_of_the_target():
    scene = grid_scene({"w": (0, 0, "red", "wizard"), "x": (5, 0, "blue"), "y": (6, 0, "blue"), "z": (9, 5, "blue")},
                       width=12)
    out = K.resolve("missile", scene, "red", ScriptedDice({"w": 6, "x": 1, "y": 1}), {})
    assert out.extra["shots"] == {"w": ["x", "y"]} and set(out.removed) == {"x", "y"}


def test_scenario_targets_checked():
    scene = grid_scene({"a": (0, 0, "red", "archer"), "t": (5, 0, "blue"), "m": (2, 2, "red")})
    with pytest.raises(ScenarioError, match="m \\(troop\\) cannot shoot"):
        K.resolve("missile", scene, "red", ScriptedDice([6, 6]), {"targets": {"m": "t"}})
    with pytest.raises(ScenarioError, match="own side"):
        K.resolve("missile", scene, "red", ScriptedDice([6, 6]), {"targets": {"a": "m"}})


def test_defence_bonus_against_missiles_is_a_house_default():
    rules = get_system("kimmiria", overrides={"play.defence_bonus_in": ["melee", "missile"]}).combat_rules()
    fs = {"a": F("a", "red", "archer"), "t": F("t", "blue", terrain="woods")}
    assert fire([Shot("a", ("t",))], fs, {"a": 5, "t": 4}, rules).fallen == ()
    assert fire([Shot("a", ("t",))], fs, {"a": 5, "t": 4}, CombatRules()).fallen == ("t",)


def test_named_targets_are_used_but_checked_against_the_ruler():
    # "Rule number one is that you have to shoot at the closest enemy target." Players may name a
    # target (the tablet lets them); tablesight resolves it and says where the ruler disagrees.
    scene = grid_scene({"a": (0, 0, "red", "archer"), "near": (4, 0, "blue"), "far": (0, 7, "blue")}, width=12)
    out = K.resolve("missile", scene, "red", ScriptedDice({"a": 6, "far": 1}), {"targets": {"a": "far"}})
    warning = out.events[0]
    assert warning.kind == "target_warning" and warning.data["reason"] == "farther"
    assert warning.data["closest"] == ["near"] and out.removed == ("far",)
    ok = K.resolve("missile", scene, "red", ScriptedDice({"a": 6, "near": 1}), {"targets": {"a": "near"}})
    assert [e.kind for e in ok.events][0] == "missile_hit"


def test_missile_plan_before_the_dice():
    # What the tablet shows before anyone rolls: archers first, then wizards ("then magic from
    # WIZARDS"), each with its target, a wizard's second figure, and an engaged archer holding fire.
    scene = grid_scene({"w": (0, 0, "red", "wizard"), "a": (0, 6, "red", "archer"), "x": (5, 0, "blue"),
                        "y": (6, 0, "blue"), "e": (1, 6, "blue")}, width=12)
    plan = K.missile_plan(scene)
    assert [p["shooter"] for p in plan] == ["a", "w"]
    assert plan[0]["target"] is None and plan[0]["reason"] == "engaged"
    assert (plan[1]["target"], plan[1]["blast"]) == ("x", ["y"])
    assert K.missile_plan(scene, {"resting": ["w"]})[1]["reason"] == "wizard_flight"
    assert K.melee_plan(scene) == {"a": {"e": "across"}, "e": {"a": "across"}}


@pytest.mark.parametrize("kind", ["trees", "forest", "rock"])
@pytest.mark.parametrize("target_x, clear", [(25.0, False), (12.4, True)])
def test_terrain_called_by_another_name_is_read_as_woods_or_rocks(kind, target_x, clear):
    # "Missiles will go into (and out of) trees and rocks, but only a half inch or half hex. ...
    # So if an enemy is behind a group of trees or rocks or hills, you cannot see it or shoot at it."
    from measure.los import line_of_sight
    from measure.scene import scene_from_json

    scene = scene_from_json({"units": "in", "table": {"width": 30, "depth": 20}, "grid": None,
                             "figures": [{"id": "a", "x": 5, "y": 10, "side": "red", "type": "archer"},
                                         {"id": "b", "x": target_x, "y": 10, "side": "blue", "type": "troop"}],
                             "terrain": [{"id": "t1", "kind": kind,
                                          "polygon": [[12, 8], [18, 8], [18, 12], [12, 12]]}]})
    result = line_of_sight(scene, "a", "b", "edge", K.sight_policy())
    assert result.clear is clear and result.blocked_by == (() if clear else ("t1",))
