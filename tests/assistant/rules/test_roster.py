"""One roster precedence: picture < profile [[roster]] < tablet edits < the system's reading of the type."""
from __future__ import annotations

import pytest

from assistant.rules import get_system
from assistant.rules.roster import merge_roster, type_map
from measure.scene import Figure, Scene, Table


def _scene(**fields):
    return Scene(table=Table(48, 36), figures=(Figure("m1", 5, 5, **fields),))


@pytest.mark.parametrize("picture, profile, edits, want", [
    ({"side": "red"}, {}, {}, {"side": "red"}),                                   # the picture alone
    ({"side": "red"}, {"side": "blue"}, {}, {"side": "blue"}),                    # the written roster beats a colour
    ({"side": "red"}, {"side": "blue"}, {"side": "green"}, {"side": "green"}),    # the tablet has the last word
    ({}, {"base": 1.5, "name": "Robin"}, {}, {"base_in": 1.5, "name": "Robin"}),
    ({"name": "Rob"}, {"name": None}, {}, {"name": "Rob"}),                       # an empty roster field names nothing
])
def test_precedence(picture, profile, edits, want):
    fig = merge_roster(_scene(**picture), {"m1": profile}, {"m1": edits} if edits else None, None).figures[0]
    assert {k: getattr(fig, k) for k in want} == want


@pytest.mark.parametrize("system, kimmiria_type", [(s, t) for s in ("smart", "kremlin", "anyminis")
                                                   for t in ("wizard", "hero", "archer", "troop", "knight", "giant",
                                                             "horse_archer")])
def test_every_demo_type_reads_in_every_system(system, kimmiria_type):
    """Switching systems never leaves "unknown figure type" for the demo's KIMMIRIA types."""
    rules = get_system(system)
    fig = merge_roster(_scene(type=kimmiria_type, side="red"), None, None, rules).figures[0]
    assert rules.type_name(fig.type) in rules.values["figure_types"]


@pytest.mark.parametrize("system", ["kimmiria", "smart", "kremlin", "anyminis"])
def test_every_type_of_every_system_reads_in_every_other(system):
    """A figure typed on Setup under one system still plays after switching to any other."""
    rules = get_system(system)
    for other in ("kimmiria", "smart", "kremlin", "anyminis"):
        for own_type in get_system(other).values["figure_types"]:
            fig = merge_roster(_scene(type=own_type, side="red"), None, None, rules).figures[0]
            assert rules.type_name(fig.type) in rules.values["figure_types"], (other, own_type)
            if system == "anyminis":
                rules.assess(fig)                   # the weapons it was given exist


def test_a_type_the_system_knows_is_kept_and_extras_are_added_not_overwritten():
    smart = get_system("smart")
    assert merge_roster(_scene(type="archer"), None, None, smart).figures[0].type == "archer"
    anyminis = get_system("anyminis")
    archer = merge_roster(_scene(type="archer"), None, None, anyminis).figures[0]
    assert archer.type == "squad_member" and archer.extra["weapons"] == ["launched_small", "melee_small"]
    own = Scene(table=Table(48, 36), figures=(Figure("m1", 5, 5, type="archer", extra={"weapons": ["thrown_large"]}),))
    assert merge_roster(own, None, None, anyminis).figures[0].extra["weapons"] == ["thrown_large"]


def test_the_map_names_only_types_its_system_knows():
    for system, table in type_map().items():
        rules = get_system(system)
        for source, target in table.items():
            name = target if isinstance(target, str) else target["type"]
            assert rules.type_name(name) in rules.values["figure_types"], (system, source)


def test_one_line_of_sight_answer_for_the_command_line_and_the_tablet():
    """`tablesight los --json` and /api/los are two views of one LosAnswer: same numbers, same width rules."""
    from assistant.rules.sight_answer import WidthError, los_answer
    scene = Scene(table=Table(48, 36), figures=(Figure("w", 5, 5, side="red", type="wizard"),
                                                Figure("g", 15, 5, side="blue", type="troop")))
    answer = los_answer(scene, "w", "g", None, get_system("kimmiria"))
    web, cli = answer.to_json(), answer.cli_json()
    assert web["width"] == "ruler" and web["width_in"] == cli["width"] == 1.25    # a wizard needs the full ruler
    assert web["distance_in"] == pytest.approx(cli["distance"]) == pytest.approx(10.0)
    assert [b["id"] for b in web["blocked_by"]] == cli["blocked_by"] == []
    for bad in ("0", "-1", "nan", "wide"):
        with pytest.raises(WidthError, match="expected rules, edge, ruler or a positive number of inches"):
            los_answer(scene, "w", "g", bad, get_system("kimmiria"))


def test_the_one_answer_takes_a_point_target_too():
    """A spell's "target square must be in line of sight": `los --to X,Y` and /api/los?to=X,Y are the same
    LosAnswer, a troop standing on the line blocks it, and a figure B and a point are never both given."""
    from measure.scene import SceneError

    from assistant.rules.sight_answer import los_answer
    scene = Scene(table=Table(48, 36), figures=(Figure("w", 5, 5, side="red", type="wizard"),
                                                Figure("g", 10, 5, side="blue", type="troop")))
    answer = los_answer(scene, "w", None, "edge", get_system("kimmiria"), to="15,5")
    web, cli = answer.to_json(), answer.cli_json()
    assert answer.point == (15.0, 5.0) and web["point"] == cli["point"] == [15.0, 5.0] and cli["b"] is None
    assert [b["id"] for b in web["blocked_by"]] == cli["blocked_by"] == ["g"] and not web["clear"]
    assert web["distance_in"] == pytest.approx(10.0) and "b_name" not in web
    assert los_answer(scene, "w", None, "edge", get_system("kimmiria"), to="5,15").result.clear
    with pytest.raises(SceneError, match="either"):
        los_answer(scene, "w", None, "edge", get_system("kimmiria"), to="1,2", cell="1,2")
