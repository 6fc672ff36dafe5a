"""SMART (issue 6 item 5), each test quoting the sentence of the SMART rules it checks."""
import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from assistant.rules import get_system
from assistant.rules.dice import ScriptedDice
from assistant.rules.smart_rules import (absorption, breath_area, combat_hit, defeated, diverted, faith_saves, in_area,
                                         initiative_order, level_for_xp, projectile_to_hit, range_penalty,
                                         strike_tiers, xp_award, xp_for_level)
from measure.scene import scene_from_json

SM = get_system("smart")
LEVELS = SM.values["armor"]
SCENARIOS = Path(__file__).parent.parent.parent / "data" / "scenarios" / "smart"


def scene(figs, terrain=(), w=72, d=36):
    """figs: (id, x, y, side, type, extra) on an open table."""
    figures = [{"id": i, "side": s, "type": t, "x": x, "y": y, **extra} for i, x, y, s, t, extra in figs]
    return scene_from_json({"units": "in", "table": {"width": w, "depth": d}, "figures": figures,
                            "terrain": list(terrain)})


def rect(tid, kind, x0, y0, x1, y1):
    return {"id": tid, "kind": kind, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


# ----------------------------------------------------------------- initiative and moves

def test_initiative_highest_first():
    """"Each player rolls a d20. The highest number moves their miniatures first, then the next highest roll,
    and so on"."""
    assert initiative_order({"a": 4, "b": 17, "c": 9}) == [["b"], ["c"], ["a"]]
    s = scene([("r", 1, 1, "red", "infantry", {}), ("b", 5, 1, "blue", "infantry", {})])
    r = SM.resolve("initiative", s, None, ScriptedDice({"red": [8, 20], "blue": [8, 2]}), {})
    assert r.extra["order"] == ["red", "blue"] and r.events[0].text.endswith("ties roll again.")


@pytest.mark.parametrize("ftype, rate", [("infantry", 6), ("goblin", 6), ("knight", 12), ("large_monster", 12)])
def test_move_rates(ftype, rate):
    """"FOOT SOLDIERS AND SMALL OR MEDIUM MONSTERS (goblins, skeletons, fairies, etc) move 6 inches in one
    turn. KNIGHTS AND LARGE MONSTERS move 12 inches"."""
    s = scene([("u", 5, 5, "red", ftype, {})])
    ok = SM.resolve("move", s, None, ScriptedDice(), {"moves": {"u": [5 + rate, 5]}})
    far = SM.resolve("move", s, None, ScriptedDice(), {"moves": {"u": [5 + rate + 0.5, 5]}})
    assert (ok.events[0].kind, far.events[0].kind) == ("move_ok", "move_too_far")


def test_high_walls_and_trees_are_barriers_bushes_go_to_the_judge():
    """"Obviously high walls and trees are complete barriers to one's path of movement"; "The Judge will have
    to decide how terrain barriers, such as bushes and low walls affect movement rates"."""
    s = scene([("a", 5, 5, "red", "infantry", {}), ("b", 5, 10, "red", "infantry", {})],
              [rect("w", "high_wall", 7, 4, 8, 6), rect("lw", "low_wall", 7, 9, 8, 11)])
    r = SM.resolve("move", s, None, ScriptedDice(), {"moves": {"a": [10, 5], "b": [10, 10]}})
    assert [e.kind for e in r.events] == ["move_blocked", "move_ok"]
    assert r.prompts[0].kind == "judge" and r.prompts[0].data["terrain"] == ["lw"]


# ----------------------------------------------------------------- projectiles

@pytest.mark.parametrize("distance, needs", [(10, 11), (30, 11), (49.9, 11), (50, 12), (69, 12), (70, 13)])
def test_range_penalty_example_reading(distance, needs):
    """"The base chance to hit an opponent is a roll of 11 or higher. Each +1 penalty for range is added to
    that base chance. So an archer aiming at a target 50 inches away must roll a 12 or higher in order to hit"
    (the default step, 20", reproduces the example)."""
    assert projectile_to_hit(distance, 11, 30, SM.value("projectiles.penalty_step_in")) == needs


@pytest.mark.parametrize("distance, penalty", [(30, 0), (30.5, 0), (31, 1), (35, 5), (50, 20)])
def test_range_penalty_text_reading(distance, penalty):
    """"The effective range for projectiles is 30 inches. For each inch past 30 inches, a +1 modifier is
    added" (the setting's other reading, step 1")."""
    assert range_penalty(distance, 30, 1) == penalty


@given(st.floats(0, 200), st.floats(0, 200), st.sampled_from([1.0, 20.0]))
def test_range_penalty_never_falls_with_distance(a, b, step):
    near, far = sorted((a, b))
    assert range_penalty(near, 30, step) <= range_penalty(far, 30, step)


def test_range_penalty_setting_changes_the_step():
    text = SM.with_overrides({"projectiles.penalty_step_in": 1.0})
    s = scene([("A", 1, 10, "red", "archer", {}), ("T", 36, 10, "blue", "infantry", {})])
    shots = {"shots": [{"shooter": "A", "target": "T"}]}
    assert text.resolve("missile", s, "red", ScriptedDice({"A": [15]}), shots).events[0].data["needs"] == 16
    assert SM.resolve("missile", s, "red", ScriptedDice({"A": [15]}), shots).events[0].data["needs"] == 11


@pytest.mark.parametrize("roll, hits_obstacle", [(1, True), (10, True), (11, False), (20, False)])
def test_obstacle_roll(roll, hits_obstacle):
    """"If there is intervening terrain in the way of the target, one must roll a d20 if the combat roll is
    successful. If one rolls a 1-10, the arrow or bolt hits that obstacle instead"."""
    assert diverted(roll) is hits_obstacle
    s = scene([("A", 1, 10, "red", "archer", {}), ("T", 21, 10, "blue", "infantry", {"armor": []})],
              [rect("hedge1", "hedge", 10, 8, 11, 12)])
    r = SM.resolve("missile", s, "red", ScriptedDice({"A": [11, roll]}), {"shots": [{"shooter": "A", "target": "T"}]})
    assert (r.events[0].kind == "missile_obstacle") is hits_obstacle
    assert (r.removed == ("T",)) is not hits_obstacle


def test_no_obstacle_roll_on_a_miss_or_a_clear_line():
    """"one must roll a d20 if the combat roll is successful"."""
    s = scene([("A", 1, 10, "red", "archer", {}), ("T", 21, 10, "blue", "infantry", {}),
               ("U", 21, 20, "blue", "infantry", {})], [rect("w", "wall", 10, 8, 11, 12)])
    r = SM.resolve("missile", s, "red", ScriptedDice({"A": [10, 12]}),
                   {"shots": [{"shooter": "A", "target": "T"}, {"shooter": "A", "target": "U"}]})
    assert [e.kind for e in r.events[:2]] == ["missile_miss", "missile_hit"] and len(r.rolls) == 2


def test_firing_into_hand_to_hand():
    """"If one is firing into hand-to-hand combat, the same roll is made. On a roll of 1-10 one hits their own
    unit instead of the target"."""
    figs = [("A", 1, 20, "red", "archer", {}), ("U", 21, 20, "blue", "infantry", {"armor": []}),
            ("F", 22, 20, "red", "infantry", {"armor": []})]
    shots = {"shots": [{"shooter": "A", "target": "U"}]}
    own = SM.resolve("missile", scene(figs), "red", ScriptedDice({"A": [15, 10]}), shots)
    assert own.removed == ("F",) and own.events[0].kind == "missile_own_unit"
    foe = SM.resolve("missile", scene(figs), "red", ScriptedDice({"A": [15, 11]}), shots)
    assert foe.removed == ("U",)


# ----------------------------------------------------------------- hand-to-hand

@pytest.mark.parametrize("roll, hit", [(10, False), (11, True), (20, True)])
def test_hand_to_hand_hits_on_11(roll, hit):
    """"The COMBAT ROLL IS RESOLVED BY ROLLING A D20. The chance to hit is a roll of 11 or higher"."""
    assert combat_hit(roll) is hit


@pytest.mark.parametrize("armour, level", [(["leather"], 1), (["padding"], 1), (["shield"], 2), (["chain"], 3),
                                           (["plate"], 4), (["chain", "shield"], 5), ([], 0)])
def test_armour_absorption_levels(armour, level):
    """"Each piece of armor may absorb one (1) point of damage for each level it has: LEATHER OR PADDING 1 /
    SHIELD 2 / CHAIN MAIL 3 / PLATE 4"."""
    assert absorption(armour, LEVELS) == level


def test_large_monsters_absorb_five():
    """"give the monster an absorption level of 5, to represent its large size and tough hide"."""
    s = scene([("M", 5, 5, "blue", "large_monster", {})])
    assert SM.absorbs(s.figure("M")) == 5


@pytest.mark.parametrize("damage, absorbs, out", [(1, 0, True), (3, 3, False), (4, 3, True)])
def test_first_point_armour_cannot_absorb_defeats(damage, absorbs, out):
    """"... receives the next point of damage, and is defeated" (the README's reading of the lost sentence)."""
    assert defeated(damage, absorbs) is out


def test_weapon_length_order_first_turn_then_reversed():
    """"For the first turn of that combat the player with the longest weapon goes first ... Combat between units
    with equal sized weapons is simultaneous. If the units continue to fight each other in subsequent turns,
    then the order is reversed: the shortest weapon goes first"."""
    lengths = {"pike": 5, "sword": 2, "sword2": 2, "dagger": 1}
    assert strike_tiers(lengths, True) == [["pike"], ["sword", "sword2"], ["dagger"]]
    assert strike_tiers(lengths, False) == [["dagger"], ["sword", "sword2"], ["pike"]]


def test_longer_weapon_kills_before_the_blow_but_equals_strike_together():
    s = scene([("P", 5.5, 5.5, "red", "infantry", {"weapon": "spear", "armor": []}),
               ("S", 6.5, 5.5, "blue", "infantry", {"weapon": "sword", "armor": []}),
               ("X", 5.5, 10.5, "red", "infantry", {"armor": []}), ("Y", 6.5, 10.5, "blue", "infantry", {"armor": []})])
    r = SM.resolve("melee", s, "red", ScriptedDice({"P": [11], "X": [12], "Y": [12]}), {})
    assert set(r.removed) == {"S", "X", "Y"}
    assert not any(e.kind == "melee_roll" and e.data["unit"] == "S" for e in r.events)


# ----------------------------------------------------------------- special rules

def test_dragon_breath_area_and_damage():
    """"Dragon breath may affect an area of 3 inches by 3 inches in front it, dealing out 5 points of damage to
    each unit in that area"."""
    area = breath_area(10, 10, 2.0, 0.0)
    assert area.bounds == pytest.approx((11, 8.5, 14, 11.5))
    assert in_area(area, [(12, 10), (15.6, 10), (12, 12.2), (9, 10)], [1, 1, 1, 1]) == [True, False, False, False]
    no_faith = SM.with_overrides({"faith.enabled": False})
    s = scene([("D", 10, 10, "green", "dragon", {"base": 2.0, "facing": "east"}),
               ("K", 12, 10, "red", "knight", {"armor": ["chain", "shield"]}), ("J", 12, 13, "red", "infantry", {})])
    r = no_faith.resolve("dragon_breath", s, None, ScriptedDice(), {"dragon": "D"})
    assert r.events[0].data["units"] == ["K"] and r.removed == () and r.extra["damage"]["K"] == 5
    south = no_faith.resolve("dragon_breath", s, None, ScriptedDice(), {"dragon": "D", "facing": "south"})
    assert south.events[0].data["units"] == ["J"] and south.removed == ("J",)


@pytest.mark.parametrize("roll, saved", [(10, False), (11, True), (20, True)])
def test_faith_roll(roll, saved):
    """"If the unit rolls 11-20 on a d20 it avoids all damage from dragon breath or magic"."""
    assert faith_saves(roll) is saved


@pytest.mark.parametrize("level, xp", [(1, 0), (2, 24), (3, 54), (4, 96)])
def test_experience_thresholds(level, xp):
    """"1st level 0 / 2nd level 24 / 3rd level 54"; "The formula for xps needed to advance in level:
    levelxlevelx6"."""
    assert xp_for_level(level) == xp
    assert level_for_xp(xp) == level and level_for_xp(xp - 1) == max(1, level - 1)


@pytest.mark.parametrize("level, xp", [(1, 1), (2, 4), (3, 9)])
def test_experience_awarded(level, xp):
    """"1st level 1 / 2nd level 4 / 3rd level 9"; "The Formula for xps awarded for defeat a unit: level squared"."""
    assert xp_award(level) == xp


def test_experience_only_for_human_units():
    """"These rules are only for human units (infantry, archers and knights). The level of monsters should be
    always at a level decided by the Judge"."""
    s = scene([("K", 5, 5, "red", "knight", {"xp": 20}), ("M", 7, 5, "blue", "troll", {"level": 2}),
               ("G", 9, 5, "blue", "goblin", {})])
    r = SM.resolve("experience", s, None, ScriptedDice(),
                   {"defeats": [{"victor": "K", "defeated": "M"}, {"victor": "G", "defeated": "K"}]})
    assert r.extra["xp"]["K"] == 24 and r.extra["levels"]["K"] == 2 and r.events[-1].kind == "no_xp"


def test_house_defaults_are_listed():
    keys = {h.key for h in SM.house_defaults()}
    assert {"projectiles.penalty_step_in", "weapon_length.pike", "faith.enabled"} <= keys


def test_a_golden_scenario_per_step():
    steps = {json.loads(p.read_text())["step"] for p in SCENARIOS.glob("*.json")
             if not p.name.endswith(".expected.json")}
    assert steps == set(SM.steps)


@pytest.mark.parametrize("change, message", [
    ({"shots": [{"shooter": "T", "target": "A"}]}, "shots[0]: T (infantry) has no projectile weapon"),
    ({"shots": [{"shooter": "A", "target": "B"}]}, "shots[0]: A and B are on the same side"),
    ({"step": "dragon_breath", "dragon": "A"}, "dragon: A (archer) has no breath attack"),
    ({"overrides": {"projectiles.penalty_step_in": "one"}}, "override 'projectiles.penalty_step_in'"),
    ({"step": "melee", "targets": {"A": "T"}, "scene": {"table": {"width": 9, "depth": 9}, "figures": [
        {"id": "A", "side": "red", "type": "infantry", "weapon": "banana", "x": 1, "y": 1},
        {"id": "T", "side": "blue", "type": "infantry", "x": 2, "y": 1}]}}, "unknown weapon 'banana'"),
])
def test_bad_scenarios_give_one_line(tmp_path, capsys, change, message):
    from assistant.cli import main
    base = json.loads((SCENARIOS / "missile_worked_example.json").read_text())
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**base, **change}))
    assert main(["resolve", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize("facing", ["up", [1, 0], True])
def test_dragon_facing_that_is_no_direction_is_one_line(tmp_path, capsys, facing):
    from assistant.cli import main
    base = json.loads((SCENARIOS / "dragon_breath_faith.json").read_text())
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**base, "facing": facing}))
    assert main(["resolve", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "facing" in err and "use degrees or east, south, west, north" in err
