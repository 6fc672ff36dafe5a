"""KIMMIRIA order of play outside combat (issue 6 item 3): initiative, groups, movement, victory."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.rules import get_system
from assistant.rules.dice import ScriptedDice
from assistant.rules.kimmiria import ScenarioError
from assistant.rules.kimmiria_move import (Space, check_group_count, check_path, check_victory, group_rate,
                                           roll_groups, roll_initiative, wizard_may_attack, wizard_may_fly)
from tests.assistant.rules.scenes import grid_scene

K = get_system("kimmiria")
COSTS = K.terrain_costs()
STOPS = K.stop_kinds()
FLY = K.fly_kinds()


def test_initiative_ties_are_rerolled():
    # "2: Roll for Initiative: Each player rolls one d6. High roll goes first. Ties are re-rolled."
    dice = ScriptedDice({"red": [4, 2, 6], "blue": [4, 2, 3]})
    winner, events = roll_initiative(["red", "blue"], dice)
    assert winner == "red" and [e.kind for e in events] == ["initiative_tie", "initiative_tie", "initiative"]
    assert len(dice.rolls) == 6


@given(st.integers(1, 6))
def test_groups_to_move_never_more_than_six(value):
    # "Player with initiative rolls one d6. This is the number of GROUPS of figures that player can
    # move." "But beware, a player will never be able to move more than six (6) groups in any one turn."
    allowed, ev = roll_groups("red", ScriptedDice([value]))
    assert allowed == value and ev.data["groups"] == value
    assert check_group_count(7, 6) == "7 groups moved: never more than 6 in one turn"
    assert check_group_count(value + 1, value) is not None and check_group_count(value, value) is None


def test_group_moves_at_its_slowest_type():
    # "For example, a group of 2 Troops and 1 Giant would move at 2 units of movement."
    rate = lambda types: group_rate({f"f{i}": K.value(f"figure_types.{t}.move") for i, t in enumerate(types)})
    assert rate(["troop", "troop", "giant"]) == 2
    # "A group of 3 Troops and 1 Hero ... has a movement rate of 3, because the lowest rate is the troops' 3."
    assert rate(["troop"] * 3 + ["hero"]) == 3


def path(*kinds):
    return [Space(k) for k in kinds]


@pytest.mark.parametrize("kinds", [
    ("clear", "clear", "clear"), ("rocks",), ("clear", "woods"), ("clear", "hill"), ("clear", "stream")])
def test_example_moves_of_a_rate_three_group_are_legal(kinds):
    # "So the group could move INTO three clear spaces, or one rock space, or one clear and one tree, or
    # one clear and one hill, or one clear and one stream."
    check = check_path(path(*kinds), 3, COSTS, STOPS)
    assert check.legal and check.cost == 3


@pytest.mark.parametrize("kinds, reason", [
    (("clear", "clear", "clear", "clear"), "rate is 3"),
    (("rocks", "clear"), "rate is 3"),
    (("woods", "woods"), "rate is 3"),
    (("stream", "clear"), "stops the move"),
    (("water",), "cannot enter water"),
    (("lava",), "cannot enter lava"),
])
def test_moves_too_far_or_through_a_stop(kinds, reason):
    # "What happens when the stream is first to be moved into? The group must stop, even though there is
    # one move left, because streams cause you to stop when entering them."
    check = check_path(path(*kinds), 3, COSTS, STOPS, None, FLY)
    assert not check.legal and reason in check.reason


def test_the_start_space_never_counts():
    # "The space you start in never counts against you." Only entered spaces are costed.
    assert check_path([], 3, COSTS).cost == 0
    assert check_path(path("rocks"), 3, COSTS).legal


def test_moving_next_to_an_enemy_stops():
    # "once a figure moves next to (even corner to corner) an enemy figure, it must stop."
    assert check_path([Space("clear", True)], 3, COSTS).stopped
    check = check_path([Space("clear", True), Space("clear", True)], 3, COSTS)
    assert not check.legal and "next to an enemy" in check.reason


def test_engaged_figures_only_slide_one_unit():
    # "Until the enemy figure is destroyed you may only slide one unit of movement around the enemy.
    # You may not move away from the enemy."
    assert check_path([Space("clear", True)], 3, COSTS, started_engaged=True).legal
    assert "away" in check_path([Space("clear", False)], 3, COSTS, started_engaged=True).reason
    assert "slide one" in check_path(path("clear", "clear"), 3, COSTS, started_engaged=True).reason


@pytest.mark.parametrize("kinds, legal", [
    (("water",) * 3 + ("clear",), True),
    (("water",) * 4 + ("clear",), False),       # 4 over water + landing: more than 4 moves
    (("water",) * 5 + ("clear",), False),
    (("water", "water"), False),                # may not stop over the water
])
def test_wizards_fly_four_over_water(kinds, legal):
    # "Fly 4: a wizard may fly 4 moves (4 inches or 4 hexes) over ponds and lakes. If 4 moves is not
    # enough to fly over in one turn, the wizard can't cross the water."
    check = check_path(path(*kinds), 3, COSTS, STOPS, fly=4, fly_kinds=FLY)
    assert check.legal == legal and check.flew


def test_wizard_rest_around_a_flight():
    # "A Wizard may NOT attack the turn before or the turn after he does his fly over water."
    assert not wizard_may_fly(turn=5, last_attack_turn=4) and not wizard_may_fly(5, 5)
    assert wizard_may_fly(5, 3) and wizard_may_fly(5, None)
    assert not wizard_may_attack(turn=6, last_flight_turn=5) and wizard_may_attack(7, 5)


# ------------------------------------------------------------------ the move step on a scene

SCENE = grid_scene({"t1": (1, 1, "red"), "t2": (2, 1, "red"), "g": (1, 2, "red", "giant"),
                    "w": (1, 4, "red", "wizard"), "e": (8, 1, "blue")},
                   [{"kind": "woods", "cells": [[3, 2]]}, {"kind": "pond", "cells": [[2, 4], [3, 4]]},
                    {"kind": "river", "cells": [[3, 0]]}])


def move(moves, **opts):
    return K.resolve("move", SCENE, "red", ScriptedDice(), {"moves": moves, **opts})


def test_move_step_group_at_slowest_and_new_positions():
    out = move([{"figures": ["t1", "t2", "g"],
                 "paths": {"t1": [[2, 0], [3, 0]], "t2": [[3, 1], [4, 1]], "g": [[2, 2], [3, 2]]}}])
    by = {e.data["figure"]: e for e in out.events}
    assert by["t2"].data["rate"] == 2 and by["t2"].kind == "move_ok"
    assert by["g"].kind == "move_illegal" and "needs 3" in by["g"].data["reason"]   # clear 1 + woods 2 > 2
    assert by["t1"].kind == "move_illegal" and not out.extra["legal"] and "scene" not in out.extra
    ok = move([{"figures": ["t1", "t2"], "paths": {"t1": [[2, 0], [3, 0]], "t2": [[3, 1]]}}])
    assert ok.extra["legal"] and [e.data["stopped"] for e in ok.events] == [True, False]   # stream stops
    moved = {f["id"]: (f["x"], f["y"]) for f in ok.extra["scene"]["figures"]}
    assert moved["t1"] == (3.5, 0.5) and moved["t2"] == (3.5, 1.5) and moved["g"] == (1.5, 2.5)


def test_move_step_counts_groups():
    two = [{"figures": ["t1"], "paths": {"t1": [[1, 0]]}}, {"figures": ["g"], "paths": {"g": [[0, 2]]}}]
    assert not move(two, groups_allowed=1).extra["legal"]
    assert move(two, groups_allowed=2).extra["legal"]


def test_move_step_wizard_flight_and_its_rest():
    fly = [{"figures": ["w"], "paths": {"w": [[2, 4], [3, 4], [4, 4]]}}]
    out = move(fly, turn=3)
    assert out.extra["legal"] and out.extra["flights"] == ["w"]
    rested = move(fly, turn=3, wizard_last_attack={"w": 2})
    assert not rested.extra["legal"] and "turn after he attacks" in rested.events[0].data["reason"]


def test_a_group_is_figures_close_to_one_another():
    # "A bunch of figures, all close to one another (bases touching, or very close to each other or next
    # to each others grid or hex if playing on a gridded map sheet) is a group."
    apart = move([{"figures": ["t1", "w"], "paths": {"t1": [[2, 0]], "w": [[1, 5]]}}])
    assert not apart.extra["legal"] and apart.events[0].data["reason"] == "not one group"
    # "A player can split off figures from groups without any problem." t1 and g leave t2 behind.
    split = move([{"figures": ["t1", "g"], "paths": {"t1": [[0, 1]], "g": [[0, 2]]}}])
    assert split.extra["legal"] and split.events[0].data["rate"] == 2


def test_move_step_rejects_bad_requests():
    with pytest.raises(ScenarioError, match="not next to"):
        move([{"figures": ["t1"], "paths": {"t1": [[5, 5]]}}])
    with pytest.raises(ScenarioError, match="not on the moving side"):
        move([{"figures": ["e"], "paths": {"e": [[8, 2]]}}])
    with pytest.raises(ScenarioError, match="moves"):
        K.resolve("move", SCENE, "red", ScriptedDice(), {})


def test_open_table_move_costs_inches_through_terrain():
    # On an open table "the unit of movement is one inch (1") for 25mm figures": from x = 0.5 to 2.75 is
    # 1.5" of clear (1 a inch) and 0.75" of woods (2 a inch, from x = 2) = 3, a Troop's rate; to 3.0 is 3.5.
    scene = grid_scene({"t": (0, 0, "red"), "e": (20, 10, "blue")}, [{"kind": "woods", "cells": [[2, 0]]}],
                       width=24, depth=12, grid=False)
    ok = K.resolve("move", scene, "red", ScriptedDice(), {"moves": [{"figures": ["t"], "to": {"t": [2.75, 0.5]}}]})
    assert ok.extra["legal"] and ok.events[0].data["cost"] == pytest.approx(3.0, abs=0.06)
    far = K.resolve("move", scene, "red", ScriptedDice(), {"moves": [{"figures": ["t"], "to": {"t": [3.0, 0.5]}}]})
    assert not far.extra["legal"] and far.events[0].data["cost"] == pytest.approx(3.5, abs=0.06)


def test_open_table_move_stops_next_to_an_enemy():
    scene = grid_scene({"t": (0, 0, "red"), "e": (2, 1, "blue")}, width=24, depth=12, grid=False)
    past = K.resolve("move", scene, "red", ScriptedDice(), {"moves": [{"figures": ["t"], "to": {"t": [3.5, 0.5]}}]})
    assert not past.extra["legal"] and "next to an enemy" in past.events[0].data["reason"]
    # Ending with bases touching is the legal way in: the figure is engaged and stops there.
    up = K.resolve("move", scene, "red", ScriptedDice(), {"moves": [{"figures": ["t"], "to": {"t": [2.5, 0.5]}}]})
    assert up.extra["legal"] and up.events[0].data["stopped"] is True


# ------------------------------------------------------------------ victory

@pytest.mark.parametrize("condition, now, surrendered, winner", [
    ("A", {"red": 3, "blue": 0}, None, "red"),      # "A: Destroy all the enemy figures."
    ("A", {"red": 3, "blue": 1}, None, None),
    ("B", {"red": 3, "blue": 5}, "blue", "red"),    # "B: Destroy half the figures and the enemy surrenders."
    ("B", {"red": 3, "blue": 5}, None, None),
    ("B", {"red": 3, "blue": 6}, "blue", None),     # less than half destroyed: a surrender is not enough
    ("C", {"red": 10, "blue": 10}, None, "red"),    # "C: Destroy ten of the figures (for really big battles)."
    ("C", {"red": 10, "blue": 11}, None, None),
])
def test_victory_conditions(condition, now, surrendered, winner):
    start = {"red": 10, "blue": 20} if condition == "C" else {"red": 10, "blue": 10}
    if condition == "C":
        now = {"red": 10, "blue": now["blue"]}
    got, events = check_victory(start, now, condition, surrendered)
    assert got == winner
    if condition == "B" and surrendered is None:
        assert any(e.kind == "surrender_offer" and e.data["side"] == "blue" for e in events)


def test_victory_step_counts_the_scene():
    scene = grid_scene({"r": (0, 0, "red")})
    out = K.resolve("victory", scene, None, ScriptedDice(), {"start_counts": {"red": 2, "blue": 3}})
    assert out.extra["winner"] == "red"
    with pytest.raises(ScenarioError, match="start_counts"):
        K.resolve("victory", scene, None, ScriptedDice(), {})
    with pytest.raises(ScenarioError, match="expected one of A, B, C"):
        K.resolve("victory", scene, None, ScriptedDice(), {"start_counts": {"red": 1}, "condition": "Z"})


# ------------------------------------------------------------------ moves the camera saw

def test_cheapest_path_goes_round_rocks_and_not_through_a_stream():
    # A troop (rate 3) from (0,1) to (3,1) with rocks at (1,1) and (2,1): around them costs 3, through 6.
    from assistant.rules.kimmiria_paths import cheapest_path
    kinds = {(1, 1): "rocks", (2, 1): "rocks", (1, 0): "stream", (2, 0): "stream"}
    space = lambda c: Space(kinds.get(c, "clear"))
    path = cheapest_path((0, 1), (3, 1), space, COSTS, STOPS, FLY, can_fly=False)
    assert path == [(1, 2), (2, 2), (3, 1)]
    assert check_path([space(c) for c in path], 3, COSTS, STOPS).legal
    assert cheapest_path((0, 1), (5, 1), lambda c: Space("water" if c[0] in (2, 3) else "clear"),
                         COSTS, STOPS, FLY, can_fly=False, margin=0) is None


def test_moves_seen_between_two_scenes():
    before = grid_scene({"t1": (1, 1, "red"), "t2": (1, 2, "red"), "x": (6, 6, "red"), "e": (9, 1, "blue")},
                        [{"kind": "woods", "cells": [[2, 1], [2, 2]]}])
    after = grid_scene({"t1": (3, 0, "red"), "t2": (3, 2, "red"), "x": (6, 6, "red"), "e": (9, 1, "blue")},
                       [{"kind": "woods", "cells": [[2, 1], [2, 2]]}])
    moves = K.moves_seen(before, after)
    assert [m["figures"] for m in moves] == [["t1", "t2"]]          # one group, x did not move
    assert moves[0]["paths"]["t1"][-1] == [3, 0] and moves[0]["paths"]["t2"][-1] == [3, 2]
    out = K.resolve("move", before, "red", ScriptedDice(), {"moves": moves})
    assert out.extra["legal"], [e.text for e in out.events]


def test_seen_move_through_the_game(tmp_path):
    from assistant.rules.kimmiria_game import KimmiriaGame
    from assistant.rules.log import GameLog
    before = {"t": (1, 1, "red"), "e": (9, 1, "blue")}
    game = KimmiriaGame.start(GameLog(tmp_path / "g.db"), grid_scene(before))
    game.play("missile", ScriptedDice())
    game.play("initiative", ScriptedDice({"red": 6, "blue": 1}))
    game.play("groups", ScriptedDice([1]))
    too_far = game.play_seen_move(grid_scene({"t": (5, 1, "red"), "e": (9, 1, "blue")}))
    assert not too_far.extra["legal"] and game.state().phase == "move"
    seen = grid_scene({"t": (4, 1, "red"), "e": (9, 1, "blue")})
    assert game.play_seen_move(seen).extra["legal"]
    t = next(f for f in game.state().scene_json["figures"] if f["id"] == "t")
    assert (t["x"], t["y"]) == (4.5, 1.5) and game.state().phase == "melee"


@pytest.mark.parametrize("condition", ["A", "B", "C"])
def test_last_side_standing_wins_whatever_the_condition(condition):
    # "Check for winning victory conditions during the game": with no enemy left there is no game.
    assert check_victory({"red": 3, "blue": 2}, {"red": 1, "blue": 0}, condition)[0] == "red"
    winner, events = check_victory({"red": 3, "blue": 2}, {"red": 0, "blue": 0}, condition)
    assert winner is None and events[-1].kind == "draw"
