"""The rule-system interface and registry (issue 6 item 1) and KIMMIRIA's data file."""
from dataclasses import fields

import pytest

from assistant.rules import DEFAULT_SYSTEM, UnknownSystem, get_system, system_names
from assistant.rules.dice import ScriptedDice
from assistant.rules.events import StepResult, event
from assistant.rules.system import RuleSystem, RulesDataError, UnknownFigureType, UnknownStep, unwrap
from measure.scene import Figure, Scene, Table
from measure.sight import ShooterSpec, SightPolicy


def test_registry_default_and_unknown():
    assert "kimmiria" in system_names()
    assert DEFAULT_SYSTEM == "kimmiria"
    assert get_system().name == "kimmiria" and get_system(" KIMMIRIA ").name == "kimmiria"
    with pytest.raises(UnknownSystem, match="known: kimmiria"):
        get_system("chess")


class Toy(RuleSystem):
    name = "toy"
    title = "Toy"
    steps = ("shoot",)

    def step_shoot(self, scene, attacker_side, dice, options):
        value = dice.roll(6, "shoot", who="a")
        return StepResult("shoot", (event("shot", f"rolled {value}", value=value),),
                          removed=("b",) if value > self.value("figure_types.gun.need") else ())


TOY_DATA = {
    "aliases": {"cannon": "gun"},
    "sight": {"soft_depth_in": 1.0, "soft_kinds": ["bush"]},
    "figure_types": {
        "gun": {"shoots": "ruler", "range": {"value": 24.0, "house_default": True, "note": "lost"},
                "need": {"value": 3, "house_default": True, "note": "guessed"}},
        "man": {"shoots": "none", "move": 6},
    },
}


def test_a_system_is_data_plus_steps():
    toy = Toy(TOY_DATA)
    scene = Scene(Table(10, 10), (Figure("a", 1, 1, type="cannon"), Figure("b", 5, 5, type="man")))
    result = toy.resolve("shoot", scene, None, ScriptedDice([5]), {})
    assert result.removed == ("b",) and [r.value for r in result.rolls] == [5]
    assert result.to_json()["events"] == [{"kind": "shot", "value": 5, "text": "rolled 5"}]
    with pytest.raises(UnknownStep, match="steps: shoot"):
        toy.resolve("melee", scene, None, ScriptedDice(), {})
    assert toy.shooter_specs(scene) == {"a": ShooterSpec("ruler", 24.0)}
    policy = toy.sight_policy()
    assert policy.soft_depth_in == 1.0 and policy.soft_kinds == ("bush",)
    assert policy.hill_kinds == SightPolicy().hill_kinds        # missing keys keep measure's defaults


def test_house_defaults_listed_and_overridden():
    toy = Toy(TOY_DATA)
    assert {(h.key, h.value, h.note) for h in toy.house_defaults()} == {
        ("figure_types.gun.range", 24.0, "lost"), ("figure_types.gun.need", 3, "guessed")}
    mine = toy.with_overrides({"figure_types.gun.need": 5, "figure_types.man.move": 4})
    assert mine.value("figure_types.gun.need") == 5 and toy.value("figure_types.gun.need") == 3
    changed = {h.key: h for h in mine.house_defaults() if h.changed}
    assert set(changed) == {"figure_types.gun.need", "figure_types.man.move"}
    assert "the text gives 6" in changed["figure_types.man.move"].note
    for bad, match in [({"figure_types.gun.nope": 1}, "no such setting"),
                       ({"figure_types.gun.need": "five"}, "expected int"),
                       ({"figure_types.gun": 3}, "expected dict"),
                       ({"nope.x": 1}, "no such setting")]:
        with pytest.raises(RulesDataError, match=match):
            toy.with_overrides(bad)


def test_house_default_unpacks_as_key_value_note():
    key, value, note = Toy(TOY_DATA).house_defaults()[0]
    assert (key, value, note) == ("figure_types.gun.range", 24.0, "lost")


def test_unknown_sight_key_is_named():
    with pytest.raises(RulesDataError, match="soft_dept"):
        Toy({**TOY_DATA, "sight": {"soft_dept": 1}}).sight_policy()


# ------------------------------------------------------------------ KIMMIRIA's data

K = get_system("kimmiria")
TYPES = K.values["figure_types"]


def test_kimmiria_has_every_figure_type_of_the_text():
    # "There are six different types of figures the rules use: GIANTS, HERO'S (or HEROINES) ARCHERS,
    # TROOPS, CAVALRY and WIZARDS/ARTILLERY." Cavalry has two numbers: "Troop type (Knights) and
    # Archer type (Horse Archers)".
    assert set(TYPES) == {"giant", "hero", "archer", "troop", "knight", "horse_archer", "wizard", "artillery"}
    for name, t in TYPES.items():
        for key in ("class", "move", "fv", "armor_plus", "shoots"):
            assert key in t, (name, key)
    assert K.type_name("Heroine") == "hero" and K.type_name("horse archers") == "horse_archer"
    with pytest.raises(UnknownFigureType, match="knight or horse_archer"):
        K.type_name("cavalry")
    with pytest.raises(UnknownFigureType, match="has no type"):
        K.type_name(None)


def test_numbers_the_text_gives_are_not_house_defaults():
    defaults = {h.key for h in K.house_defaults()}
    # "the lowest rate is the troops' 3"; "a group of 2 Troops and 1 Giant would move at 2 units".
    assert K.value("figure_types.troop.move") == 3 and "figure_types.troop.move" not in defaults
    assert K.value("figure_types.giant.move") == 2 and "figure_types.giant.move" not in defaults
    # "three clear spaces, or one rock space, or one clear and one tree, or one clear and one hill".
    assert {k: K.value(f"terrain.{k}.cost") for k in ("clear", "rocks", "woods", "hill", "stream")} == {
        "clear": 1, "rocks": 3, "woods": 2, "hill": 2, "stream": 2}
    assert not any(k.startswith("terrain.") and k.endswith(".cost") and "water" not in k
                   and "wall" not in k and "building" not in k for k in defaults)
    # "Missiles will go into (and out of) trees and rocks, but only a half inch or half hex."
    assert K.sight_policy().soft_depth_in == 0.5 and "sight.soft_depth_in" not in defaults


def test_numbers_the_text_lost_are_house_defaults_with_notes():
    defaults = {h.key: h for h in K.house_defaults()}
    for name in TYPES:
        assert f"figure_types.{name}.fv" in defaults            # the figure table was lost
        assert f"figure_types.{name}.armor_plus" in defaults
    assert "figure_types.hero.move" in defaults and K.value("figure_types.hero.move") > 3
    assert all(h.note for h in defaults.values())
    assert not any(h.changed for h in defaults.values())


def test_kimmiria_rulers():
    # "With arrows, bolts and rocks (ARCHER stuff), you only need a thin clear path ... Turn your ruler
    # on its side." "WIZARDS and ARTILLERY ... need a path the size of the full width of the ruler."
    spec = lambda t: K.shooter_spec(Figure("f", 0, 0, type=t))
    assert spec("archer").width == "edge" and spec("horse_archer").width == "edge"
    assert spec("wizard").width == "ruler" and spec("artillery").width == "ruler"
    assert spec("troop") is None and spec("knight") is None and spec("hero") is None
    assert {f.name for f in fields(SightPolicy)} >= set(K.values["sight"])


def test_unwrap_leaves_plain_values():
    data = {"a": {"value": 1, "house_default": True, "note": "n"}, "b": [{"value": "x", "source": "s"}], "c": 2}
    assert unwrap(data) == {"a": 1, "b": ["x"], "c": 2}


def test_every_step_declares_its_inputs_in_words():
    """Each system's steps say what they may be told (the tablet's questions), in plain words."""
    from assistant.rules import get_system, system_names
    for name in system_names():
        system = get_system(name)
        assert set(system.step_inputs) == set(system.steps), name
        for step in system.steps:
            for q in system.step_questions(step):
                assert q["expects"] and "<" not in q["expects"], (name, step, q)
    kr = get_system("kremlin").step_questions("melee")
    assert {"key": "melee", "expects": "[unit a, unit b]"} in kr
