"""The guided turn as a state machine over typed values: roll requests, the fold, picture checks."""
from __future__ import annotations

from dataclasses import FrozenInstanceError, replace

import pytest

from assistant.rules import get_system
from assistant.rules.log import GameLog
from assistant.rules.turn import (ACK, ROLL, Finished, RollRequest, TurnContext, check_moves, fold, get_turn,
                                  next_roll, start, step_payload)
from measure.scene import Figure, Scene, Table, Terrain, scene_to_json
from shapely.geometry import Polygon


def _scene(*figures, terrain=()):
    return Scene(table=Table(48, 36), figures=tuple(figures), terrain=tuple(terrain))


ARCHER = Figure("a", 10, 10, side="red", type="archer")
GOBLIN = Figure("g", 20, 10, side="blue", type="goblin")
KNIGHT = Figure("k", 10, 20, side="red", type="knight")


def _smart():
    return get_turn("smart"), TurnContext(get_system("smart"))


def test_initiative_asks_one_d20_per_side_then_finishes():
    """SMART: "Each player rolls a d20. The highest number moves their miniatures first"."""
    spec, ctx = _smart()
    st = start(spec, _scene(ARCHER, GOBLIN), ctx)
    need = next_roll(spec, st, ctx, ())
    assert isinstance(need, RollRequest) and (need.sides, need.purpose, need.who) == (20, "initiative", "blue")
    need = next_roll(spec, st, ctx, (3,))
    assert isinstance(need, RollRequest) and need.who == "red" and [r.value for r in need.before] == [3]
    done = next_roll(spec, st, ctx, (3, 17))
    assert isinstance(done, Finished) and done.result.extra["order"] == ["red", "blue"]
    with pytest.raises(FrozenInstanceError):
        need.sides = 6                                          # typed values, not mutable state


def test_the_fold_replays_the_log_to_the_same_state():
    spec, ctx = _smart()
    scene = _scene(ARCHER, GOBLIN)
    log = GameLog(":memory:")
    log.append("game_started", {"system": "smart", "scene": scene_to_json(scene)})
    st, tail = fold(spec, log.live_records(), ctx)
    done = next_roll(spec, st, ctx, (3, 17))
    log.append_step([(ROLL, {"value": 3}), (ROLL, {"value": 17})])
    log.append("step", step_payload(st, done))
    st, tail = fold(spec, log.live_records(), ctx)
    assert st.order == ("red", "blue") and spec.phase(st).name == "move" and st.moving_side == "red"
    assert tail.outcome is not None and tail.rolls == ()
    log.append(ACK, {})
    assert fold(spec, log.live_records(), ctx)[1].outcome is None
    log.append("moved", {"scene": scene_to_json(scene)})
    st, _ = fold(spec, log.live_records(), ctx)
    assert st.moving_side == "blue"


@pytest.mark.parametrize("moved_to, kind", [
    ((14.0, 10.0), "moved"),            # 4" of a foot soldier's 6"
    ((17.0, 10.0), "too_far"),          # "FOOT SOLDIERS ... move 6 inches in one turn"
    ((10.1, 10.0), None),               # camera jitter is not a move
])
def test_a_foot_soldiers_move_against_its_allowance(moved_to, kind):
    spec, ctx = _smart()
    before = _scene(ARCHER, GOBLIN)
    after = before.with_figures([replace(ARCHER, x=moved_to[0], y=moved_to[1]), GOBLIN])
    checks = check_moves(spec, ctx.system, before, after, "red")
    assert [c.kind for c in checks] == ([kind] if kind else [])


def test_knights_move_twelve_and_walls_stop_everyone():
    """"KNIGHTS AND LARGE MONSTERS move 12 inches"; "high walls and trees are complete barriers"."""
    spec, ctx = _smart()
    wall = Terrain("w1", "wall", Polygon([(14, 19), (15, 19), (15, 21), (14, 21)]))
    before = _scene(KNIGHT, GOBLIN, terrain=[wall])
    after = before.with_figures([replace(KNIGHT, x=21.0), GOBLIN])
    (check,) = check_moves(spec, ctx.system, before, after, "red")
    assert check.kind == "blocked" and check.crossed == ("w1",)
    after = before.with_figures([replace(KNIGHT, y=31.0), GOBLIN])
    assert [c.kind for c in check_moves(spec, ctx.system, before, after, "red")] == ["moved"]


def test_missing_hidden_wrong_side_and_still_there():
    spec, ctx = _smart()
    before = _scene(ARCHER, KNIGHT)
    hidden = replace(ARCHER, hidden=True, x=30.0)
    after = before.with_figures([hidden, GOBLIN])              # a hand over the archer; the goblin was off
    kinds = {c.figure: c.kind for c in check_moves(spec, ctx.system, before, after, "red", removed=["g"])}
    assert kinds == {"k": "missing", "g": "still_there"}
    after = before.with_figures([ARCHER, replace(KNIGHT, x=14.0)])
    assert [c.kind for c in check_moves(spec, ctx.system, before, after, "blue")] == ["wrong_side"]


def test_each_system_declares_its_turn():
    for name in ("smart", "kremlin", "anyminis"):
        spec = get_turn(name)
        assert spec.system == name and any(p.kind == "move" for p in spec.phases)
        for phase in spec.phases:
            if phase.kind == "dice":
                assert phase.calls is not None


def test_kremlin_failed_morale_with_a_general_attached_is_followed_by_his_rally():
    """"Fail morale test = the unit routs off table (counts as destroyed). If a king or captain is attached
    he may have one attempt to rally them": the rally is the next call of the phase, not a rout."""
    from assistant.rules.turn import Call, after_step
    spec, ctx = get_turn("kremlin"), TurnContext(get_system("kremlin"))
    bases = [Figure(f"U{i}", 10 + 1.5 * i, 10, side="red", type="heavy_infantry", base_in=1.5, extra={"unit": "U"})
             for i in (1, 2)]
    cap = Figure("cap", 11.5, 11.5, side="red", type="captain", base_in=1.0, extra={"unit": "U"})
    foe = Figure("F1", 40, 30, side="blue", type="heavy_infantry", base_in=1.5)
    st = start(spec, _scene(*bases, cap, foe), ctx)
    melee = next(i for i, p in enumerate(spec.phases) if p.name == "melee")
    st = replace(st, phase=melee, calls=(Call("morale", {"unit": "U"}, "U tests.", ("U1", "U2")),), call=0)
    done = next_roll(spec, st, ctx, (6,))
    assert isinstance(done, Finished) and done.result.removed == ()
    st = after_step(spec, st, done.result.to_json(), ctx)
    assert st.call == 1 and st.calls[1].step == "rally" and dict(st.calls[1].options) == {"unit": "U"}
    assert st.calls[1].words == "cap tries to rally U: one attempt."
    need = next_roll(spec, st, ctx, ())
    assert isinstance(need, RollRequest) and need.purpose == "rally"


def test_a_call_whose_target_fell_is_aimed_again_dropped_or_left_by_its_step():
    """A call aimed at a figure that has fallen since its phase began is never run at it: a shot goes to
    the shooter's closest enemy now, a fight with the fallen is not fought ("B has no target anymore, it
    was killed by A"), and a call of another step (a morale test) is left as it is."""
    from assistant.rules.turn import Call
    from assistant.rules.turn_phases import aim_again, drop_if_fallen
    spec, ctx = _smart()
    far = Figure("f", 40, 10, side="blue", type="goblin")
    st = start(spec, _scene(ARCHER, far), ctx)          # GOBLIN has fallen: it is no longer in the scene
    shot = Call("missile", {"shots": [{"shooter": "a", "target": "g"}]}, "a shoots at g", ("a", "g"))
    again = aim_again(spec.phases[2].calls, ("missile",))(st, shot, ctx)
    assert again.about == ("a", "f") and again.options["shots"] == [{"shooter": "a", "target": "f"}]
    assert again.why[0] == "g has fallen already."
    assert aim_again(spec.phases[2].calls, ("missile",))(st, replace(shot, step="morale"), ctx).step == "morale"
    fight = Call("melee", {"melee": ["a", "g"]}, "a and g fight", ("a", "g"))
    assert drop_if_fallen(("melee",))(st, fight, ctx) is None
    assert drop_if_fallen(("melee",))(st, replace(fight, about=("a", "f")), ctx) is not None


def test_a_figure_the_accepted_picture_no_longer_shows_is_named_to_no_step():
    """The damage SMART keeps between steps names every figure; once the players accept a picture without
    one of them, the next shot is still played (its damage kept for when it is back), not refused with
    "damage.h: unknown figure"."""
    spec, ctx = _smart()
    far = Figure("h", 40, 30, side="blue", type="goblin")
    scene = _scene(ARCHER, GOBLIN, far)
    log = GameLog(":memory:")
    log.append("game_started", {"system": "smart", "scene": scene_to_json(scene)})

    def play(values):
        st, _ = fold(spec, log.live_records(), ctx)
        done = next_roll(spec, st, ctx, values)
        assert isinstance(done, Finished), done
        log.append_step([(ROLL, {"value": v}) for v in values] + [("step", step_payload(st, done))])
        log.append(ACK, {})

    def moves(picture):
        for _ in range(2):
            log.append("moved", {"scene": scene_to_json(picture)})
            log.append(ACK, {})

    play((3, 17))                                   # red first
    moves(scene)
    play((1,))                                      # a misses g
    assert fold(spec, log.live_records(), ctx)[0].carry["damage"] == {"a": 0, "g": 0, "h": 0}
    play((3, 17))                                   # turn 2
    moves(scene.with_figures([ARCHER, GOBLIN]))     # the picture the players accepted: h is not on it
    st, _ = fold(spec, log.live_records(), ctx)
    need = next_roll(spec, st, ctx, ())
    assert isinstance(need, RollRequest) and (need.purpose, need.who) == ("projectile", "a")
    assert st.carry["damage"]["h"] == 0
