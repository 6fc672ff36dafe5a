"""A whole KIMMIRIA game through the log, start to finish, with fair seeded dice.

Each turn follows the order of play; the attacker steps up to its groups-roll of figures one space
toward the nearest enemy (what the camera would see), melee is fought, and victory A is checked,
until one side is destroyed. The log is reopened every turn, as after a restart.
"""
import math

import pytest

from assistant.rules.dice import RandomDice
from assistant.rules.kimmiria_game import KimmiriaGame
from assistant.rules.log import GameLog
from tests.assistant.rules.scenes import grid_scene

ARMIES = {"r1": (1, 2, "red", "troop"), "r2": (1, 3, "red", "hero"), "r3": (0, 5, "red", "archer"),
          "r4": (1, 6, "red", "giant"), "b1": (10, 2, "blue", "troop"), "b2": (10, 3, "blue", "knight"),
          "b3": (11, 5, "blue", "wizard"), "b4": (10, 6, "blue", "troop", False)}


def step_toward_enemies(scene, side, how_many):
    figures = list(scene.figures)
    taken = {(int(f.x), int(f.y)) for f in figures}
    moved = 0
    for i, f in enumerate(figures):
        if f.side != side or moved >= how_many:
            continue
        enemies = [e for e in figures if e.side != side]
        if not enemies or any(max(abs(e.x - f.x), abs(e.y - f.y)) < 1.5 for e in enemies):
            continue                                        # engaged: stays
        near = min(enemies, key=lambda e: math.dist(e.xy, f.xy))
        c, r = int(f.x), int(f.y)
        nc, nr = c + (near.x > f.x + 0.5) - (near.x < f.x - 0.5), r + (near.y > f.y + 0.5) - (near.y < f.y - 0.5)
        if (nc, nr) in taken:
            continue
        taken.discard((c, r))
        taken.add((nc, nr))
        figures[i] = type(f)(**{**f.__dict__, "x": nc + 0.5, "y": nr + 0.5, "cell": None})
        moved += 1
    return scene.with_figures(figures)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_game_to_the_end(tmp_path, seed):
    path = tmp_path / "game.db"
    KimmiriaGame.start(GameLog(path), grid_scene(ARMIES, width=12, depth=8)).log.close()
    dice = RandomDice(seed)
    for _ in range(80):
        with GameLog(path) as log:                          # a restart every turn
            game = KimmiriaGame(log)
            st = game.state()
            if st.phase == "over":
                break
            assert st.phase == "missile"
            game.play("missile", dice)
            if game.state().phase == "victory":             # the missiles left a side with nobody
                game.play("victory", dice)
                continue
            game.play("initiative", dice)
            allowed = game.play("groups", dice).extra["groups_allowed"]
            st = game.state()
            seen = step_toward_enemies(st.scene, st.attacker, allowed)
            game.play_seen_move(seen)
            if game.state().phase == "move":                # the stepping plan broke a rule: move nobody
                game.play("move", dice, moves=[])
            game.play("melee", dice)
            if game.state().phase == "free_move":
                game.free_move({})
            game.play("victory", dice)
    with GameLog(path) as log:
        game = KimmiriaGame(log)
        st = game.state()
        assert st.phase == "over", f"no winner after {st.turn} turns"
        sides_left = {f["side"] for f in st.scene_json["figures"]}
        assert sides_left == ({st.winner} if st.winner else set())
        # Every roll of the game is in the log.
        rolls = sum(len(r.payload["result"]["rolls"]) for r in log.live_records() if r.kind == "step")
        assert rolls == len(dice.rolls)
