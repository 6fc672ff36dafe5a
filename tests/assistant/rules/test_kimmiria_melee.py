"""KIMMIRIA melee (issue 6 item 3), each test quoting the sentence it checks.

The text's worked example, laid out on a 1" square grid (columns 0-8, rows 0-1). Attackers A-G
(side "red") in row 0, defenders T-Y (side "blue") in row 1; "across" is a shared side,
"a-corner" a diagonal:

    col:   0  1  2  3  4  5  6  7  8
    row 0: A  B  .  .  C  D  E  F  G        attackers
    row 1: T  .  .  U  V  W  X  Y  .        defenders

Dice: V 6; A, E 5; B, G, U, Y 4; T, D 3; C, W, F 2; X 1. Every sentence of the example holds:
V is across from C and a-corner from D; A and B touch only T (A across, B a-corner); E touches
W, X, Y with X across; U touches only C, a-corner; D is across from W; F is across from Y and
G a-corner from Y, with nothing across from G.
"""
import json
from pathlib import Path

import pytest

from assistant.rules import get_system
from assistant.rules.dice import ScriptedDice
from assistant.rules.kimmiria_board import Fighter, enemy_contacts
from assistant.rules.kimmiria_combat import CombatRules, MeleeChoiceError, resolve_melee
from measure.scene import scene_from_json
from tests.assistant.rules.scenes import grid_scene

DATA = Path(__file__).parent.parent.parent / "data" / "scenarios" / "kimmiria"
K = get_system("kimmiria")

LAYOUT = {"A": (0, 0, "red"), "B": (1, 0, "red"), "C": (4, 0, "red"), "D": (5, 0, "red"), "E": (6, 0, "red"),
          "F": (7, 0, "red"), "G": (8, 0, "red"),
          "T": (0, 1, "blue"), "U": (3, 1, "blue"), "V": (4, 1, "blue"), "W": (5, 1, "blue"),
          "X": (6, 1, "blue"), "Y": (7, 1, "blue")}
DICE = {"V": 6, "A": 5, "E": 5, "B": 4, "G": 4, "U": 4, "Y": 4, "T": 3, "D": 3, "C": 2, "W": 2, "F": 2, "X": 1}


@pytest.fixture(scope="module")
def example():
    scene = grid_scene(LAYOUT, width=10, depth=3)
    result = K.resolve("melee", scene, "red", ScriptedDice(DICE), {})
    attacks = {e.data["figure"]: e for e in result.events
               if e.kind in ("melee_kill", "melee_tie", "melee_repulsed", "melee_no_target")}
    return scene, result, attacks, enemy_contacts(scene)


def test_worked_example_layout_matches_every_sentence(example):
    _, _, _, foes = example
    # "It must go against C, because C is across, even though V could attack D, but D is only a corner."
    assert foes["V"]["C"] == "across" and foes["V"]["D"] == "corner"
    # "A has only one target (T, a 3)"; "B has no target anymore, it was killed by A."
    assert set(foes["A"]) == {"T"} and set(foes["B"]) == {"T"}
    # "E has three targets (W, X and Y) and must go against X, who is across."
    assert foes["E"] == {"W": "corner", "X": "across", "Y": "corner"}
    # "G is a-corner from Y"; "U was a corner from C"; "D is across from W"; "F, it is engaged by Y".
    assert foes["G"] == {"Y": "corner"} and foes["U"] == {"C": "corner"}
    assert foes["D"]["W"] == "across" and foes["Y"]["F"] == "across"
    # "Every figure in combat has had a d6 die roll done and placed next to it."
    assert {f for f, t in foes.items() if t} == set(DICE)


def test_worked_example_order_and_outcomes(example):
    _, result, attacks, _ = example
    order = [e.data["figure"] for e in result.events if "figure" in e.data and e.kind != "melee_skipped"]
    # "the highest number rolled (usually sixes) goes and attacks first": V, then the 5's, the 4's, D's 3.
    assert order == ["V", "A", "E", "B", "G", "U", "Y", "D"]
    # "V's 6 kills C and C is removed."
    assert (attacks["V"].data["target"], attacks["V"].data["loser"]) == ("C", "C")
    # "A has only one target (T, a 3) which it kills."
    assert attacks["A"].data["loser"] == "T"
    # "E (5) kills X (1)."
    assert (attacks["E"].data["target"], attacks["E"].data["contact"], attacks["E"].data["loser"]) == ("X", "across", "X")
    # "B has no target anymore, it was killed by A." / "U was a corner from C (a 2) but it was killed by V."
    assert attacks["B"].kind == "melee_no_target" and attacks["U"].kind == "melee_no_target"
    # "G is a-corner from Y, which is also a 4. A tie results, and nobody dies."
    assert attacks["G"].kind == "melee_tie" and attacks["G"].data["contact"] == "corner"
    # "D is across from W (a 2) and kills it."
    assert attacks["D"].data["loser"] == "W"
    # "even though Y and G are locked in melee for next round, Y and its 4 kills the lowly F."
    assert attacks["Y"].data["loser"] == "F"
    assert set(result.removed) == {"C", "T", "X", "W", "F"}
    assert result.extra["locked"] == [["G", "Y"]]


def test_worked_example_free_moves(example):
    _, result, _, _ = example
    # "D, A and E may move one space into the spaces of the enemy they killed because they were the
    # attackers and won their combats." (V won too, but V is a defender.)
    offers = {p.data["into"]: p for p in result.prompts}
    assert {into: p.data["killer"] for into, p in offers.items()} == {"T": "A", "X": "E", "W": "D"}
    assert all(p.options[0] == p.data["killer"] for p in offers.values())
    assert offers["W"].data["at"] == {"cell": [5, 1], "x": 5.5, "y": 1.5}


def test_worked_example_golden_scenario_is_the_same_layout():
    scenario = json.loads((DATA / "melee_worked_example.json").read_text())
    scene = scene_from_json(scenario["scene"])
    assert {f.id: (f.x, f.y, f.side) for f in scene.figures} == {
        k: (c + 0.5, r + 0.5, s) for k, (c, r, s) in LAYOUT.items()}
    assert scenario["dice"] == DICE and scenario["attacker_side"] == "red"


# ------------------------------------------------------------------ rules one by one

def fighters(**kw):
    out = {}
    for fid, spec in kw.items():
        side, cls, fv = spec[:3]
        rest = spec[3] if len(spec) > 3 else {}
        out[fid] = Fighter(fid, side, rest.get("type", cls), cls, fv, 0, rest.get("painted", True),
                           rest.get("terrain", "clear"))
    return out


def duel(a, b, dice, rules=CombatRules(), attacker="red", **kw):
    fs = {"a": a, "b": b}
    contacts = {"a": {"b": "across"}, "b": {"a": "across"}}
    return resolve_melee(fs, contacts, attacker, ScriptedDice(dice), rules, ["a", "b"], **kw)


def F(fid, side, cls="troop", fv=1, **rest):
    return Fighter(fid, side, rest.pop("type", cls), cls, fv, 0, rest.pop("painted", True), rest.pop("terrain", "clear"))


def test_d6_plus_fv_highest_wins():
    # "Add the die roll to the Fighting Value for each figure. Compare the two numbers. Highest number wins."
    out = duel(F("a", "red", "troop", 1), F("b", "blue", "hero", 3), {"a": 5, "b": 4})
    kill = next(e for e in out.events if e.kind == "melee_kill")
    assert (kill.data["total"], kill.data["target_total"]) == (6, 7)
    # a goes first (5 > 4) but b's 4 + 3 beats a's 5 + 1: "When a figures loses a melee combat, remove it".
    assert out.removed == ("a",)


def test_tie_locks_both_for_next_turn():
    # "A tie results, and nobody dies. Both figures must stay in place and fight it out again next turn."
    out = duel(F("a", "red"), F("b", "blue"), {"a": 3, "b": 3})
    assert out.removed == () and out.locked == (("a", "b"),)
    # b does not attack a again this turn: they "fight it out again next turn".
    assert [e.kind for e in out.events[1:]] == ["melee_tie", "melee_locked"]
    assert out.prompts == ()


def test_locked_partner_is_fought_again_first():
    # "Both figures must stay in place and fight it out again next turn." x touches y (across) and z
    # (across); locked with z last turn, x must fight z even though y is the easier fight.
    fs = {"x": F("x", "red"), "y": F("y", "blue"), "z": F("z", "blue")}
    contacts = {"x": {"y": "across", "z": "across"}, "y": {"x": "across"}, "z": {"x": "across"}}
    out = resolve_melee(fs, contacts, "red", ScriptedDice({"x": 6, "y": 1, "z": 2}), CombatRules(),
                        ["x", "y", "z"], locked=[["x", "z"]])
    first = next(e for e in out.events if e.kind == "melee_kill")
    assert (first.data["figure"], first.data["target"]) == ("x", "z")


def test_fallen_do_not_strike_back():
    # "What all this means is ... the highest number ... goes and attacks first": a figure killed
    # before its turn never attacks (C, T, W, F, X in the worked example).
    out = duel(F("a", "red"), F("b", "blue"), {"a": 6, "b": 5})
    assert out.removed == ("b",)
    skipped = [e for e in out.events if e.kind == "melee_skipped"]
    assert [(e.data["figure"], e.data["reason"]) for e in skipped] == [("b", "fallen")]


def test_one_figure_kills_only_one():
    # "One figure may engage many figures but can only kill one figure." A strong hero h is attacked by
    # two weak troops in turn; it kills the first, the second is only repulsed.
    fs = {"h": F("h", "blue", "hero", 9), "p": F("p", "red"), "q": F("q", "red")}
    contacts = {"h": {"p": "across", "q": "across"}, "p": {"h": "across"}, "q": {"h": "across"}}
    out = resolve_melee(fs, contacts, "red", ScriptedDice({"p": 6, "q": 6, "h": 1}), CombatRules(), ["p", "q", "h"])
    assert out.removed == ("p",)
    assert [e.kind for e in out.events if "figure" in e.data][1:] == ["melee_repulsed", "melee_skipped"]


def test_across_before_corner_and_choice_checked():
    # "you attack the figure across from you first. If there is no figure across, you may attack one a-corner."
    fs = {"a": F("a", "red"), "x": F("x", "blue"), "c": F("c", "blue")}
    contacts = {"a": {"x": "across", "c": "corner"}, "x": {"a": "across"}, "c": {"a": "corner"}}
    with pytest.raises(MeleeChoiceError, match="a -> c: allowed x"):
        resolve_melee(fs, contacts, "red", ScriptedDice({"a": 6, "x": 1, "c": 1}), CombatRules(),
                      ["a", "x", "c"], choices={"a": "c"})
    out = resolve_melee(fs, contacts, "red", ScriptedDice({"a": 6, "x": 1, "c": 1}), CombatRules(), ["a", "x", "c"])
    assert out.events[1].data["target"] == "x"


def test_attacker_chooses_among_across_targets():
    # "The moving player is the attacker. Sometimes he chooses who is attacking whom."
    fs = {"a": F("a", "red"), "x": F("x", "blue"), "y": F("y", "blue")}
    contacts = {"a": {"x": "across", "y": "across"}, "x": {"a": "across"}, "y": {"a": "across"}}
    dice = {"a": 6, "x": 2, "y": 1}
    default = resolve_melee(fs, contacts, "red", ScriptedDice(dice), CombatRules(), ["a", "x", "y"])
    chosen = resolve_melee(fs, contacts, "red", ScriptedDice(dice), CombatRules(), ["a", "x", "y"],
                           choices={"a": "x"})
    assert default.events[1].data["target"] == "y"          # default: the easiest fight
    assert chosen.events[1].data["target"] == "x"


def test_up_to_six_gang_up():
    # "You can gang up on figures, though. Up to six figures may attack a single enemy figure."
    ids = [f"r{i}" for i in range(7)]
    fs = {i: F(i, "red") for i in ids} | {"big": F("big", "blue", "giant", 20)}
    contacts = {i: {"big": "across"} for i in ids} | {"big": {i: "across" for i in ids}}
    out = resolve_melee(fs, contacts, "red", ScriptedDice({i: 6 for i in ids} | {"big": 1}),
                        CombatRules(kills_per_figure=99), ids + ["big"])
    attacked = [e.data["figure"] for e in out.events if e.kind in ("melee_kill", "melee_tie", "melee_repulsed")
                and e.data.get("target") == "big"]
    assert len(attacked) == 6
    assert any(e.kind == "melee_no_target" and e.data["figure"] == "r6" for e in out.events)


def test_equal_dice_attacker_first():
    # "Player A-G is the attacker, and would normally go first, but remember high die roll goes first".
    out = duel(F("a", "blue"), F("b", "red"), {"a": 4, "b": 4}, attacker="red")
    assert out.events[0].data["order"] == ["b", "a"]


@pytest.mark.parametrize("cls, bonus", [("troop", 1), ("hero", 1), ("archer", 1), ("wizard", 1),
                                        ("giant", 0), ("cavalry", 0), ("artillery", 0)])
def test_woods_defence(cls, bonus):
    # "Trees: All figures add +1 defending in woods, except GIANTS, CAVALRY and ARTILLERY"
    rules = get_system("kimmiria").combat_rules()
    out = duel(F("a", "red"), F("b", "blue", cls, 1, terrain="woods"), {"a": 6, "b": 1}, rules)
    assert out.events[1].data["target_mods"].get("terrain", 0) == bonus


@pytest.mark.parametrize("attacker_cls, bonus", [("troop", 1), ("giant", 1), ("hero", 0)])
def test_rocks_defence_unless_hero(attacker_cls, bonus):
    # "Rocks: All figures add +1 defending in rocks unless attacked by the HERO"
    rules = get_system("kimmiria").combat_rules()
    out = duel(F("a", "red", attacker_cls), F("b", "blue", terrain="rocks"), {"a": 6, "b": 1}, rules)
    assert out.events[1].data["target_mods"].get("terrain", 0) == bonus


def test_the_attacking_figure_gets_no_terrain_bonus():
    # The bonus is for "defending": the figure whose turn it is gets none in its own attack.
    rules = get_system("kimmiria").combat_rules()
    out = duel(F("a", "red", terrain="woods"), F("b", "blue"), {"a": 6, "b": 1}, rules)
    assert "terrain" not in out.events[1].data["mods"]


def test_unpainted_minus_one():
    # "Can they use unpainted miniatures? Sure, but at a -1 penalty to any and all die rolls that the
    # unpainted figure makes." 4 + 1 - 1 = 4 against 3 + 1 = 4: a tie instead of a win.
    out = duel(F("a", "red", painted=False), F("b", "blue"), {"a": 4, "b": 3})
    first = out.events[1]
    assert first.data["mods"] == {"fv": 1, "unpainted": -1} and first.kind == "melee_tie"


def test_melee_step_reads_terrain_from_the_scene():
    # b stands in woods (a square of woods felt under its space).
    scene = grid_scene({"a": (1, 1, "red"), "b": (2, 1, "blue")}, [{"kind": "trees", "cells": [[2, 1]]}])
    out = K.resolve("melee", scene, "red", ScriptedDice({"a": 4, "b": 3}), {})
    assert out.events[1].data["target_mods"] == {"fv": 1, "terrain": 1}
    assert out.extra["locked"] == [["a", "b"]]


def test_free_move_only_for_the_attacker():
    # "After all melee combats are finished, the Attacking player gets a free move into any of the
    # spaces left empty by defeated enemy figures." A defender's win offers nothing.
    out = duel(F("a", "red"), F("b", "blue"), {"a": 1, "b": 6}, attacker="red")
    assert out.removed == ("a",) and out.prompts == ()


def test_no_melee_when_nobody_touches():
    # "After movement any figure touching (in base to base contact) an enemy figure MUST fight that figure."
    scene = grid_scene({"a": (0, 0, "red"), "b": (3, 0, "blue")})
    out = K.resolve("melee", scene, "red", ScriptedDice(), {})
    assert [e.kind for e in out.events] == ["melee_none"] and out.rolls == () and out.removed == ()
