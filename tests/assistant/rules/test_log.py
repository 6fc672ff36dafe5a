"""The game log (issue 6 item 7): append-only SQLite (WAL), state is a fold, restart resumes, undo."""
import sqlite3

import pytest

from assistant.rules.dice import ScriptedDice
from assistant.rules.kimmiria_game import GameError, KimmiriaGame
from assistant.rules.log import GameLog, GameLogError, NothingToUndo
from tests.assistant.rules.scenes import grid_scene


def test_append_only_wal_and_steps(tmp_path):
    path = tmp_path / "game.db"
    with GameLog(path) as log:
        assert log.append_step([("a", {"n": 1}), ("b", {"n": 2})]) == 1
        assert log.append("c", {"n": 3}) == 2
        assert log._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            log._db.execute("UPDATE events SET kind = 'x'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            log._db.execute("DELETE FROM events")
        with pytest.raises(GameLogError, match="JSON"):
            log.append("bad", {"x": object()})
        assert [(r.step, r.kind) for r in log.records()] == [(1, "a"), (1, "b"), (2, "c")]


def test_undo_is_an_appended_record(tmp_path):
    with GameLog(tmp_path / "g.db") as log:
        for i in range(3):
            log.append("e", {"i": i})
        assert log.undo() == 3 and log.undo() == 2
        assert [r.payload["i"] for r in log.live_records()] == [0]
        assert len(log.records()) == 5                      # nothing was deleted
        log.append("e", {"i": 9})
        assert log.undo() == 6 and log.undo() == 1
        with pytest.raises(NothingToUndo):
            log.undo()


def test_not_a_log(tmp_path):
    bad = tmp_path / "x.db"
    bad.write_bytes(b"this is not sqlite at all, just some bytes" * 20)
    with pytest.raises(GameLogError, match="not a tablesight game log"):
        GameLog(bad)


# ------------------------------------------------------------------ a KIMMIRIA game through the log

LAYOUT = {"a": (0, 0, "red", "archer"), "r1": (3, 3, "red"), "b1": (6, 3, "blue")}


def start(path):
    return KimmiriaGame.start(GameLog(path), grid_scene(LAYOUT, width=10, depth=6), condition="A")


def test_a_game_start_to_finish_with_restart_and_undo(tmp_path):
    path = tmp_path / "game.db"
    game = start(path)
    first = game.prompt()
    assert first["phase"] == "missile" and first["turn"] == 1
    assert [(p["shooter"], p["target"]) for p in first["plan"]] == [("a", "b1")]
    # 1 Missile fire: the archer misses b1.
    out = game.play("missile", ScriptedDice({"a": 1, "b1": 6}))
    assert out.extra["shots"] == {"a": ["b1"]} and out.removed == ()
    with pytest.raises(GameError, match="initiative phase of turn 1, not melee"):
        game.play("melee", ScriptedDice())
    # 2 Initiative, with a tie re-rolled; 3 groups to move.
    game.play("initiative", ScriptedDice({"red": [3, 5], "blue": [3, 2]}))
    game.play("groups", ScriptedDice([1]))
    assert game.prompt() == {"turn": 1, "phase": "move", "text": game.prompt()["text"], "attacker": "red",
                             "groups_allowed": 1}

    # The table is switched off mid-turn: a new process resumes from the file.
    game.log.close()
    game = KimmiriaGame(GameLog(path))
    assert game.state().phase == "move" and game.state().attacker == "red"

    # 4 Move: r1 walks up to b1 and stops next to it.
    bad = game.play("move", ScriptedDice(), moves=[{"figures": ["r1"], "paths": {"r1": [[4, 3], [5, 3], [5, 4]]}}])
    assert not bad.extra["legal"] and game.state().phase == "move"          # a rejected plan changes nothing
    game.play("move", ScriptedDice(), moves=[{"figures": ["r1"], "paths": {"r1": [[4, 3], [5, 3]]}}])
    assert game.state().phase == "melee"
    assert game.prompt()["engaged"] == {"r1": {"b1": "across"}, "b1": {"r1": "across"}}

    # 5 Melee: a tie first ... which the referee undoes (wrong dice typed in) and plays again.
    tie = game.play("melee", ScriptedDice({"r1": 3, "b1": 3}))
    assert tie.extra["locked"] == [["r1", "b1"]] and game.state().phase == "victory"
    game.undo()
    assert game.state().phase == "melee" and game.state().locked == ()
    won = game.play("melee", ScriptedDice({"r1": 5, "b1": 2}))
    assert won.removed == ("b1",) and game.state().phase == "free_move"
    assert [f["id"] for f in game.state().scene_json["figures"]] == ["a", "r1"]

    # The attacker's free move into b1's space.
    with pytest.raises(GameError, match="only r1 may move there"):
        game.free_move({"a": "b1"})
    game.free_move({"r1": "b1"})
    r1 = next(f for f in game.state().scene_json["figures"] if f["id"] == "r1")
    assert (r1["x"], r1["y"], r1["cell"]) == (6.5, 3.5, [6, 3])

    # 6 Victory A: "Destroy all the enemy figures."
    out = game.play("victory", ScriptedDice())
    assert out.extra["winner"] == "red"
    assert game.prompt()["phase"] == "over" and game.prompt()["winner"] == "red"

    story = [e["kind"] for e in game.history()]
    assert story[0] == "game_started" and "melee_tie" not in story and story[-1] == "victory"
    # Everything is still in the file, the undone melee included.
    game.log.close()
    with GameLog(path) as log:
        kinds = [r.kind for r in log.records()]
        assert kinds.count("undo") == 1 and kinds.count("step") == 8
        assert KimmiriaGame(log).state().winner == "red"


def test_next_turn_and_wizard_rest(tmp_path):
    layout = {"w": (0, 4, "red", "wizard"), "b": (9, 0, "blue")}
    terrain = [{"kind": "water", "cells": [[1, 4], [2, 4]]}]
    game = KimmiriaGame.start(GameLog(tmp_path / "w.db"), grid_scene(layout, terrain, width=10, depth=6))
    game.play("missile", ScriptedDice({"w": 1, "b": 6}))                 # the wizard attacks in turn 1
    game.play("initiative", ScriptedDice({"red": 6, "blue": 1}))
    game.play("groups", ScriptedDice([2]))
    fly = [{"figures": ["w"], "paths": {"w": [[1, 4], [2, 4], [3, 4]]}}]
    out = game.play("move", ScriptedDice(), moves=fly)
    assert not out.extra["legal"]                                         # attacked this turn: no flight
    game.play("move", ScriptedDice(), moves=[])
    game.play("melee", ScriptedDice())
    game.play("victory", ScriptedDice())
    assert game.prompt()["turn"] == 2 and game.prompt()["phase"] == "missile"
    game.play("missile", ScriptedDice({"w": 1, "b": 6}))
    game.play("initiative", ScriptedDice({"red": 6, "blue": 1}))
    game.play("groups", ScriptedDice([2]))
    assert not game.play("move", ScriptedDice(), moves=fly).extra["legal"]   # attacked the turn before
    game.play("move", ScriptedDice(), moves=[])
    game.play("melee", ScriptedDice())
    game.play("victory", ScriptedDice())
    # "A Wizard may NOT attack the turn before or the turn after he does his fly over water": it
    # attacked in turn 2, so it holds its fire in turn 3 (the players name no target for it) and may
    # fly in turn 4, holding its fire that turn too.
    for turn in (3, 4):
        game.play("missile", ScriptedDice(), targets={})
        game.play("initiative", ScriptedDice({"red": 6, "blue": 1}))
        game.play("groups", ScriptedDice([2]))
        out = game.play("move", ScriptedDice(), moves=fly)
        assert out.extra["legal"] == (turn == 4)
        if turn == 3:
            game.play("move", ScriptedDice(), moves=[])
        game.play("melee", ScriptedDice())
        game.play("victory", ScriptedDice())
    assert game.state().wizard_last_flight == {"w": 4}
    # Turn 5: no attack the turn after the flight.
    out = game.play("missile", ScriptedDice())
    assert [e.kind for e in out.events] == ["missile_skipped"] and out.extra["fired"] == []


def test_start_checks(tmp_path):
    log = GameLog(tmp_path / "s.db")
    with pytest.raises(ValueError, match="unknown figure type 'cavalry'"):
        KimmiriaGame.start(log, grid_scene({"c": (0, 0, "red", "cavalry")}))
    KimmiriaGame.start(log, grid_scene(LAYOUT))
    with pytest.raises(GameError, match="already holds a game"):
        KimmiriaGame.start(log, grid_scene(LAYOUT))
    log.close()


def test_house_defaults_changed_mid_game_are_logged(tmp_path):
    game = start(tmp_path / "h.db")
    assert game.system.value("figure_types.troop.fv") == 1
    game.set_overrides({"figure_types.troop.fv": 2})
    assert game.system.value("figure_types.troop.fv") == 2
    with pytest.raises(ValueError, match="no such setting"):
        game.set_overrides({"figure_types.troop.speed": 9})
    game.undo()
    assert game.system.value("figure_types.troop.fv") == 1


def test_threads_share_one_log(tmp_path):
    # The tablet app serves from several threads; appends and undos must not interleave.
    from concurrent.futures import ThreadPoolExecutor
    with GameLog(tmp_path / "t.db") as log:
        with ThreadPoolExecutor(4) as pool:
            steps = list(pool.map(lambda i: log.append("e", {"i": i}), range(40)))
        assert sorted(steps) == list(range(1, 41))
        with ThreadPoolExecutor(4) as pool:
            undone = list(pool.map(lambda _: log.undo(), range(10)))
        assert len(set(undone)) == 10 and len(log.live_records()) == 30


def test_missiles_that_leave_a_side_with_nobody_end_the_game(tmp_path):
    # "Check for winning victory conditions during the game": no initiative with one side left.
    game = KimmiriaGame.start(GameLog(tmp_path / "m.db"),
                              grid_scene({"a": (0, 0, "red", "archer"), "b": (5, 0, "blue")}), condition="C")
    game.play("missile", ScriptedDice({"a": 6, "b": 1}))
    assert game.prompt()["phase"] == "victory"
    assert game.play("victory", ScriptedDice()).extra["winner"] == "red"
    assert game.prompt()["phase"] == "over"


def test_a_step_is_told_only_of_figures_still_on_the_table(tmp_path):
    """The melee step refuses a locked pair naming a figure that is not on the table; a pair broken by
    missile fire (or a wizard who flew and then fell) is left out of what the log hands the step."""
    from assistant.rules import get_system
    from assistant.rules.kimmiria_game import GameState
    game = KimmiriaGame(GameLog(tmp_path / "g.jsonl"))
    st = GameState(turn=3, scene_json={"figures": [{"id": "G"}, {"id": "F"}]}, locked=(("G", "Y"), ("G", "F")),
                   wizard_last_flight={"W": 3, "F": 3})
    system = get_system("kimmiria")
    assert game.options_for("melee", st, system)["locked"] == [["G", "F"]]
    assert game.options_for("missile", st, system)["resting"] == ["F"]
