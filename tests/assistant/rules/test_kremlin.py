"""KremlinMiniatures (issue 6 item 6), each test quoting the sentence of the KremlinMiniatures text it checks.

Units are sets of round bases on an open table (1.5" bases unless said otherwise); `facing` in degrees
from table +x toward +y (y points down) or a compass word.
"""
import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from assistant.rules import get_system
from assistant.rules.dice import ScriptedDice
from assistant.rules.kremlin_rules import (KremlinError, MoveDice, apply_kills, arc_of_fire, count_kills, heavy_fire,
                                           hit_dice, hit_needed, in_arc, melee_result, morale_allowance, morale_passes,
                                           movement_dice, recovery_passes, woods_hostile, woods_nature)
from assistant.rules.kremlin_units import build_units
from measure.scene import scene_from_json

KR = get_system("kremlin")
SCENARIOS = Path(__file__).parent.parent.parent / "data" / "scenarios" / "kremlin"


def unit(uid, side, utype, xs, ys, base=1.5, **first):
    """Bases `<uid>1..n` of one unit; `first` holds the unit's own keys (set on its first base)."""
    return [{"id": f"{uid}{i + 1}", "side": side, "type": utype, "x": x, "y": y, "base": base, "unit": uid,
             **(first if i == 0 else {})} for i, (x, y) in enumerate(zip(xs, ys))]


def row(x0, n, step=1.5):
    return [x0 + i * step for i in range(n)]


def scene(*bases, terrain=()):
    figs = [b for group in bases for b in group]
    return scene_from_json({"units": "in", "table": {"width": 48, "depth": 36}, "figures": figs,
                            "terrain": list(terrain)})


def rect(tid, kind, x0, y0, x1, y1, **extra):
    return {"id": tid, "kind": kind, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], **extra}


# ----------------------------------------------------------------- units of bases

def test_units_are_the_bases_the_players_name():
    """"The maximum size of a unit is 6 bases"; a unit is the set of bases the players name."""
    s = scene(unit("A", "red", "heavy_infantry", row(10, 3), [10] * 3),
              [{"id": "k", "side": "red", "type": "king", "x": 11, "y": 11.5, "base": 1.0, "unit": "A"}])
    a = build_units(s, KR)["A"]
    assert a.bases == ("A1", "A2", "A3") and a.generals == ("k",) and a.size == 3
    given = build_units(s, KR, {"X": {"bases": ["A1", "A2"], "hit": "excellent", "save": 3, "range": "long"}})
    assert (given["X"].hit, given["X"].save, given["X"].range_in) == (3, 3, 12.0) and given["A"].bases == ("A3",)
    with pytest.raises(KremlinError, match="unit 'B': 7 bases"):
        build_units(scene(unit("B", "red", "heavy_infantry", row(1, 7), [5] * 7)), KR)
    with pytest.raises(KremlinError, match="unit 'X': bases of different types"):
        build_units(scene(unit("A", "red", "heavy_infantry", [1], [1]), unit("B", "red", "light_infantry", [3], [1])),
                    KR, {"X": {"bases": ["A1", "B1"]}})


@pytest.mark.parametrize("rating, dice, plus", [("slow", 1, 0), ("infantry", 2, 0), ("light_infantry", 2, 2),
                                                ("heavy_cavalry", 3, 0), ("light_cavalry", 3, 2), ("flying", 4, 0),
                                                ("2d6+2", 2, 2)])
def test_movement_ratings(rating, dice, plus):
    """"1d6 Slow / 2d6 Infantry speed / 2d6 + 2 Light Infantry speed / 3d6 Heavy Cavalry speed / 3d6 + 2 Light
    Cavalry speed / 4d6 Flying"."""
    u = build_units(scene(unit("A", "red", "heavy_infantry", [5], [5])), KR, {"A": {"bases": ["A1"], "rating": rating}})
    assert (u["A"].move.dice, u["A"].move.plus) == (dice, plus)


@pytest.mark.parametrize("name, value", [("thrown", 1), ("short", 6), ("medium", 8), ("long", 12), ("extreme", 24)])
def test_missile_ranges(name, value):
    """"1" Thrown / 6" Short / 8" Medium / 12" Long / 24" Extreme"."""
    assert KR.values["missile_ranges"][name] == value


# ----------------------------------------------------------------- movement

def test_movement_dice_modifiers():
    """"Units that declare a charge, are routing, or are pursuing routers, add one movement die"; "Difficult
    going - Units lose one movement die (minimum is always 1d6)"."""
    two = MoveDice(2, 0)
    assert movement_dice(two, charge=True).dice == 3
    assert movement_dice(two, routing=True).dice == 3 and movement_dice(two, pursuing=True).dice == 3
    assert movement_dice(two, difficult=True).dice == 1
    assert movement_dice(MoveDice(1, 0), difficult=True).dice == 1


def test_failed_charge_disorders():
    """"A unit that declares a charge and fails to contact the enemy becomes disordered"."""
    s = scene(unit("A", "red", "heavy_infantry", row(10, 3), [10] * 3),
              unit("B", "blue", "heavy_infantry", row(10, 3), [20] * 3))
    opts = {"unit": "A", "charge": True, "target": "B"}            # gap 8.5"
    short = KR.resolve("move", s, "red", ScriptedDice({"A": [3, 3, 2]}), opts)
    assert short.extra["disordered"] and short.events[-1].kind == "charge_failed"
    home = KR.resolve("move", s, "red", ScriptedDice({"A": [3, 3, 3]}), opts)
    assert not home.extra["disordered"] and home.events[-1].kind == "charge_contact"


def test_difficult_going_from_the_scene():
    """"Difficult going - Units lose one movement die"; "Heavy rated units in difficult going" are disordered."""
    s = scene(unit("A", "red", "heavy_infantry", row(10, 2), [10] * 2), terrain=[rect("w", "woods", 9, 9, 12, 11)])
    r = KR.resolve("move", s, "red", ScriptedDice({"A": [4]}), {"unit": "A"})
    assert r.events[0].data["dice"] == 1 and r.extra["disordered"]


# ----------------------------------------------------------------- shooting

def test_hits_and_saves():
    """"Roll 1d6 per base in the unit to determine the number of hits"; "Target rolls it's armour save against
    each hit"; "5 - 6 Average chance"; "5 - 6 Chainmail"."""
    assert hit_needed(KR.values["hit_chances"]["average"]) == 5
    assert count_kills([5, 6, 4, 1], KR.values["armour_saves"]["chainmail"]) == 2
    assert count_kills([6, 6], None) == 2


@pytest.mark.parametrize("bases, fpb, before, kills, lost, left, gone", [
    (3, 3, 0, 2, 0, 2, False), (3, 3, 0, 3, 1, 0, False), (3, 3, 2, 1, 1, 0, False), (2, 2, 0, 5, 2, 0, True)])
def test_each_kill_is_a_figure_and_whole_bases_go(bases, fpb, before, kills, lost, left, gone):
    """"Each successful hit kills one figure - If all the figures on a base are killed remove the base"."""
    c = apply_kills(bases, fpb, before, kills)
    assert (c.bases_lost, c.figures_left_on_partial, c.destroyed) == (lost, left, gone)


@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 30), st.data())
def test_kills_are_all_accounted_for(bases, fpb, kills, data):
    """Every kill lands on a figure: whole bases lost plus the next base's dead make up all the dead."""
    before = data.draw(st.integers(0, fpb - 1))
    c = apply_kills(bases, fpb, before, kills)
    if c.destroyed:
        assert before + kills >= bases * fpb and c.bases_lost == bases
    else:
        assert c.bases_lost * fpb + c.figures_left_on_partial == before + kills


def test_disorder_halves_hit_dice():
    """"Effect - unit shoots and fights with half (round down) it's hit dice"."""
    assert (hit_dice(5, False), hit_dice(5, True), hit_dice(1, True)) == (5, 2, 0)


def test_arc_of_fire_45_degrees_from_the_flank_line():
    """"Arc of fire - 45 degrees measured from the unit's flank line"."""
    arc = arc_of_fire((0.0, 0.0), (4.0, 0.0), 270.0, 12.0)       # front from (0,0) to (4,0), facing north (-y)
    inside = [(2, -5), (-4.5, -5), (8.5, -5)]
    outside = [(-5.5, -5), (9.5, -5), (2, 3)]
    assert all(in_arc(arc, [p], [0.1]) for p in inside)
    assert not any(in_arc(arc, [p], [0.1]) for p in outside)


def test_shooting_step_range_and_arc():
    """"Declare the target and measure range"; the arc of fire."""
    shooter = unit("S", "red", "light_infantry", row(10, 3), [10] * 3, facing="north", range="short")
    ahead = scene(shooter, unit("T", "blue", "heavy_infantry", row(10, 2), [3] * 2))
    far = scene(shooter, unit("T", "blue", "heavy_infantry", row(10, 2), [1] * 2))
    side = scene(shooter, unit("T", "blue", "heavy_infantry", [19, 19], [9, 10.5]))
    opts = {"shooter": "S", "target": "T"}
    assert KR.resolve("shoot", far, "red", ScriptedDice(), opts).events[0].kind == "out_of_range"
    assert KR.resolve("shoot", side, "red", ScriptedDice(), opts).events[0].kind == "out_of_arc"
    r = KR.resolve("shoot", ahead, "red", ScriptedDice({"S": [5, 1, 6], "T": [6, 1]}), opts)
    assert r.events[0].data["kills"] == 1 and r.events[0].data["hits"] == 2


def test_heavy_fire_disorders():
    """"Heavy fire - if a unit receives more figure casualties than the number of stands in it's front rank it is
    disordered"."""
    assert heavy_fire(3, 2) and not heavy_fire(2, 2)
    s = scene(unit("S", "red", "light_infantry", [10] * 3, row(10, 3), facing="east"),
              unit("T", "blue", "heavy_infantry", [15, 15, 16.5, 16.5], [10, 11.5, 10, 11.5], facing="west"))
    r = KR.resolve("shoot", s, "red", ScriptedDice({"S": [6, 6, 6], "T": [1, 1, 1]}), {"shooter": "S", "target": "T"})
    assert r.events[-1].kind == "disordered" and r.events[-1].data["reason"] == "heavy_fire"   # 3 kills, 2 in front


# ----------------------------------------------------------------- melee

@pytest.mark.parametrize("a, b, out", [(3, 1, "a"), (1, 2, "b"), (2, 2, "draw")])
def test_most_kills_wins(a, b, out):
    """"Whichever unit scores the most kills is the victor. Otherwise the melee is a draw"."""
    assert melee_result(a, b) == out


def melee_scene(a_type="heavy_infantry", b_type="heavy_infantry", a_keys=None, b_keys=None, extra=()):
    return scene(unit("A", "red", a_type, row(10, 2), [10] * 2, **(a_keys or {})),
                 unit("B", "blue", b_type, row(10, 2), [11.5] * 2, **(b_keys or {})), *extra)


def test_loser_recoils_3_victor_follows_up_3():
    """"The loser recoils 3" and the victor follows up 3". A draw = no recoil or follow up"."""
    s = melee_scene("light_infantry", "light_infantry")
    r = KR.resolve("melee", s, "red", ScriptedDice({"A": [6, 1], "B": [1, 1, 1]}), {"melee": ["A", "B"]})
    recoil = next(e for e in r.events if e.kind == "recoil")
    assert recoil.data["to"]["B1"] == [10.0, 14.5]
    follow = next(e for e in r.events if e.kind == "follow_up")
    assert follow.data["to"]["A1"] == [10.0, 13.0]
    draw = KR.resolve("melee", s, "red", ScriptedDice({"A": [1, 1], "B": [1, 1]}), {"melee": ["A", "B"]})
    assert draw.extra["result"] == "draw" and not any(e.kind == "recoil" for e in draw.events)


def test_charge_and_second_turn_of_drawn_melee_add_one():
    """"A unit that is charging increases it's chance of scoring a hit by +1"; "On the second turn of a drawn
    melee all units that drew increase their chance of scoring a hit by +1"."""
    assert hit_needed(5, 1) == 4 and hit_needed(3, 2) == 2
    s = melee_scene("light_infantry", "light_infantry")
    r = KR.resolve("melee", s, "red", ScriptedDice({"A": [4, 4], "B": [1, 1, 1, 1]}),
                   {"melee": ["A", "B"], "charging": ["A"]})
    assert r.events[0].data["hits"] == 2 and r.events[0].data["needs"] == 4 and r.events[1].data["needs"] == 5
    d = KR.resolve("melee", s, "red", ScriptedDice({"A": [4, 4, 1], "B": [1, 1, 4, 1]}),
                   {"melee": ["A", "B"], "drawn_before": True})
    assert d.events[1].data["needs"] == 4


@pytest.mark.parametrize("victor, casualties", [("heavy_infantry", 1), ("heavy_cavalry", 2), ("light_infantry", 0)])
def test_recoil_casualties(victor, casualties):
    """"A unit that is recoiled by heavy infantry receives 1 casualty. A unit that is recoiled by heavy cavalry or
    monsters receives 2 figure casualties"."""
    s = melee_scene(victor, "light_infantry", a_keys={"save": "none", "hit": 2})
    r = KR.resolve("melee", s, "red", ScriptedDice({"A": [2, 1], "B": [1, 1, 1]}), {"melee": ["A", "B"]})
    recoil = [e for e in r.events if e.kind == "casualties" and "recoiled" in e.text]
    assert (recoil[0].data["figures"] if recoil else 0) == casualties


def test_recoil_into_friends_disorders_into_enemy_destroys():
    """"A unit that is recoiled into friends disorders them. A unit that is recoiled into the enemy is destroyed"."""
    friends = melee_scene("light_infantry", "light_infantry",
                          extra=[unit("C", "blue", "light_infantry", [10], [14.5])])
    r = KR.resolve("melee", friends, "red", ScriptedDice({"A": [6, 1], "B": [1, 1, 1]}), {"melee": ["A", "B"]})
    assert any(e.kind == "disordered" and e.data["unit"] == "C" for e in r.events)
    enemy = melee_scene("light_infantry", "light_infantry", extra=[unit("E", "red", "light_infantry", [10], [14.5])])
    r = KR.resolve("melee", enemy, "red", ScriptedDice({"A": [6, 1], "B": [1, 1, 1]}), {"melee": ["A", "B"]})
    assert set(r.removed) == {"B1", "B2"}


def test_heavy_infantry_may_stand_firm():
    """"Heavy Infantry may elect to “stand firm” and take an extra figure casualty rather than be recoiled"."""
    s = melee_scene("light_infantry", "heavy_infantry")
    r = KR.resolve("melee", s, "red", ScriptedDice({"A": [6, 6], "B": [1, 1, 1, 1]}),
                   {"melee": ["A", "B"], "stand_firm": True})
    kinds = [e.kind for e in r.events]
    assert "stand_firm" in kinds and "recoil" not in kinds


def test_pikes_strike_first():
    """"Pike Armed Units - Inflict damage before their opponent (if not pike armed)"."""
    s = scene(unit("P", "red", "heavy_infantry", row(10, 2), [10] * 2, pike=True, hit=2),
              unit("H", "blue", "light_infantry", row(10, 2), [11.5] * 2))
    r = KR.resolve("melee", s, "red", ScriptedDice({"P": [6, 6, 1], "H": [1, 1, 6]}), {"melee": ["P", "H"]})
    # H lost one base of two figures to the pikes before it struck: it rolls one die, not two.
    assert r.events[0].data["unit"] == "P" and r.events[2].data["unit"] == "H" and r.events[2].data["dice"] == 1


def captain_scene(b_bases=6):
    """A: two 3-figure heavy infantry bases with captain `cap` attached (no save); B: light infantry hitting on 2+."""
    return scene(unit("A", "red", "heavy_infantry", row(10, 2), [10] * 2, save="none"),
                 [{"id": "cap", "side": "red", "type": "captain", "x": 10.75, "y": 8.75, "base": 1.0, "unit": "A"}],
                 unit("B", "blue", "light_infantry", row(8, b_bases), [11.5] * b_bases, hit=2))


def test_attached_general_is_the_last_base_and_takes_a_hit_of_his_own():
    """"Each successful hit kills one figure - If all the figures on a base are killed remove the base"; kings and
    captains "Are always the last base to be destroyed when attached to a unit"."""
    six = KR.resolve("melee", captain_scene(), "blue", ScriptedDice({"B": [6] * 6, "A": [1, 1, 1]}),
                     {"melee": ["B", "A"]})
    hit_a = next(e for e in six.events if e.kind == "casualties" and e.data["unit"] == "A")
    # six hits kill the six figures on A1 and A2; the captain has not been hit and stays on the table
    assert hit_a.data["bases_removed"] == ["A1", "A2"] and not hit_a.data["destroyed"]
    assert "cap" not in six.removed
    seven = KR.resolve("shoot", scene(unit("A", "red", "heavy_infantry", row(10, 2), [10] * 2, save="none"),
                                      [{"id": "cap", "side": "red", "type": "captain", "x": 10.75, "y": 8.75,
                                        "base": 1.0, "unit": "A"}],
                                      unit("S", "blue", "light_infantry", row(6, 6), [13] * 6, hit=2, facing="north")),
                       "blue", ScriptedDice({"S": [6] * 6, "A": []}), {"shooter": "S", "target": "A"})
    assert "cap" not in seven.removed          # six kills, six figures: the captain is the seventh
    hit = next(e for e in seven.events if e.kind == "casualties")
    assert hit.data["bases_removed"] == ["A1", "A2"] and not hit.data["destroyed"]


def test_attached_general_adds_a_fighting_die():
    """Kings and captains "While attached they fight with the same stats as the unit they are attached to"; they
    "Do not count as an extra base for morale/disorder purposes" only; melee: "Roll 1d6 per base in the unit"."""
    r = KR.resolve("melee", captain_scene(b_bases=2), "red", ScriptedDice({"A": [1, 1, 1], "B": [1, 1]}),
                   {"melee": ["A", "B"]})
    a_hits = next(e for e in r.events if e.kind == "melee_hits" and e.data["unit"] == "A")
    assert a_hits.data["dice"] == 3                # two bases and the captain
    assert build_units(captain_scene(), KR)["A"].size == 2      # but still two bases for morale


def test_an_attached_general_adds_no_shooting_die_unless_the_players_say_so():
    """The actions are "Move, Shoot, Fight in melee"; attached generals "fight with the same stats as the unit";
    shooting: "Roll 1d6 per base in the unit" (house default play.general_shoots_with_unit)."""
    s = scene(unit("S", "red", "light_infantry", row(10, 2), [10] * 2, facing="south"),
              [{"id": "cap", "side": "red", "type": "captain", "x": 13.0, "y": 10, "base": 1.5, "unit": "S"}],
              unit("T", "blue", "heavy_infantry", row(10, 2), [14] * 2, facing="north"))
    plain = KR.resolve("shoot", s, "red", ScriptedDice({"S": [1, 1]}), {"shooter": "S", "target": "T"})
    assert plain.events[0].data["dice"] == 2
    told = KR.with_overrides({"play.general_shoots_with_unit": True})
    assert told.resolve("shoot", s, "red", ScriptedDice({"S": [1, 1, 1]}),
                        {"shooter": "S", "target": "T"}).events[0].data["dice"] == 3


def test_an_attached_general_is_no_stand_for_heavy_fire():
    """Kings and captains "Do not count as an extra base for morale/disorder purposes"; "Heavy fire - if a unit
    receives more figure casualties than the number of stands in it's front rank it is disordered"."""
    s = scene(unit("T", "blue", "heavy_infantry", row(10, 2), [10] * 2, facing="north", save="none"),
              [{"id": "cap", "side": "blue", "type": "captain", "x": 13.0, "y": 10, "base": 1.5, "unit": "T"}],
              unit("S", "red", "light_infantry", row(10, 3), [5] * 3, facing="south", hit=2))
    r = KR.resolve("shoot", s, "red", ScriptedDice({"S": [6, 6, 6], "T": []}), {"shooter": "S", "target": "T"})
    # three kills against a front rank of two stands (the captain beside them is not one): disordered
    assert any(e.kind == "disordered" and e.data["reason"] == "heavy_fire" for e in r.events)


def test_routing_units_lose_a_base_per_hit():
    """"Routing Units - Lose one base per hit scored on them and are disordered"."""
    s = melee_scene("light_infantry", "heavy_infantry", b_keys={"routing": True})
    r = KR.resolve("melee", s, "red", ScriptedDice({"A": [6, 1], "B": [1]}), {"melee": ["A", "B"]})
    assert r.events[0].data["hits"] == 1 and len([b for b in r.removed if b.startswith("B")]) == 1


# ----------------------------------------------------------------- morale

@pytest.mark.parametrize("d6, allowance", [(1, 3), (2, 4), (3, 4), (4, 5), (5, 5), (6, 6)])
def test_morale_allowance(d6, allowance):
    """"Each player rolls one average die and adds +1 to the score, before play begins"."""
    assert morale_allowance(d6) == allowance


@pytest.mark.parametrize("roll, mods, size, ok", [(3, {}, 4, True), (4, {}, 4, False), (2, {"disordered": 1}, 4, True),
                                                  (4, {"king_attached": -3}, 2, True)])
def test_pass_below_the_base_count(roll, mods, size, ok):
    """"To pass a test the unit must roll less than the number of bases in the unit (or hits remaining)"."""
    assert morale_passes(roll, mods, size) is ok


def morale(s, dice, **opts):
    return KR.resolve("morale", s, "blue", ScriptedDice({"U": [dice]}), {"unit": "U", **opts})


def test_morale_modifiers():
    """"+1 Unit is disordered / +3 Unit is in melee with enemy to it's flank/rear / -3 King attached / -2 Captain
    attached"; "Do not count as an extra base for morale/disorder purposes when attached to a unit"."""
    base = unit("U", "red", "heavy_infantry", row(10, 3), [10] * 3, disordered=True)
    king = [{"id": "k", "side": "red", "type": "king", "x": 11.5, "y": 11.5, "base": 1.0, "unit": "U"}]
    r = morale(scene(base), 2, flank_rear=True)
    assert r.events[0].data["mods"] == {"disordered": 1, "flank_rear": 3} and r.removed == ("U1", "U2", "U3")
    r = morale(scene(base, king), 4)
    assert r.events[0].data["mods"] == {"disordered": 1, "king_attached": -3} and r.events[0].data["size"] == 3
    assert r.extra["passed"]


def test_king_or_captain_within_6_inches_from_the_scene():
    """"-1 King or Captain nearby I.E. within 6" of the unit. Do not count if a king/captain is attached"."""
    u = unit("U", "red", "heavy_infantry", row(10, 3), [10] * 3)
    near = [{"id": "cap", "side": "red", "type": "captain", "x": 13, "y": 16.5, "base": 1.0}]   # 5.25" edge to edge
    far = [{"id": "cap", "side": "red", "type": "captain", "x": 13, "y": 17.5, "base": 1.0}]    # 6.25"
    foe = [{"id": "cap", "side": "blue", "type": "captain", "x": 13, "y": 16.5, "base": 1.0}]
    assert morale(scene(u, near), 3).events[0].data["mods"] == {"general_nearby": -1}
    assert morale(scene(u, far), 3).events[0].data["mods"] == {}
    assert morale(scene(u, foe), 3).events[0].data["mods"] == {}


def test_ally_kings_count_for_their_own_units_only():
    """"Ally Kings are treated as CinCs by their own units only ... Units belonging to an ally king are not
    effected, for morale/disorder purposes, by other kings/captains"."""
    ally = [{"id": "ak", "side": "red", "type": "ally_king", "x": 13, "y": 14, "base": 1.0}]
    cap = [{"id": "cap", "side": "red", "type": "captain", "x": 10, "y": 14, "base": 1.0}]
    mine = unit("U", "red", "heavy_infantry", row(10, 3), [10] * 3, commander="ak")
    other = unit("U", "red", "heavy_infantry", row(10, 3), [10] * 3)
    assert morale(scene(mine, ally, cap), 3).events[0].data["generals_near"] == ["ak"]
    assert morale(scene(other, ally, cap), 3).events[0].data["generals_near"] == ["cap"]


def test_failed_morale_routs_or_rallies_and_lone_generals_are_immune():
    """"Fail morale test = the unit routs off table (counts as destroyed). If a king or captain is attached he may
    have one attempt to rally them"; kings and captains "Are immune from morale/disorder when acting alone"."""
    cap = [{"id": "cap", "side": "red", "type": "captain", "x": 11.5, "y": 11.5, "base": 1.0, "unit": "U"}]
    r = morale(scene(unit("U", "red", "heavy_infantry", row(10, 2), [10] * 2), cap), 6)
    assert r.removed == () and r.prompts[0].kind == "rally"
    alone = scene([{"id": "U", "side": "red", "type": "king", "x": 5, "y": 5, "base": 1.0}])
    assert morale(alone, 6).events[0].kind == "immune"


def test_morale_tests_are_limited_by_the_allowance():
    """"This is the number of morale tests he can call upon his opponent's units during the course of the battle"."""
    s = scene(unit("U", "red", "heavy_infantry", row(10, 3), [10] * 3))
    assert morale(s, 1, tests_left=2).extra["tests_left"] == 1
    with pytest.raises(KremlinError, match="no morale tests left"):
        morale(s, 1, tests_left=0)


# ----------------------------------------------------------------- disorder recovery

def recover(s, d6, **opts):
    return KR.resolve("recover", s, "red", ScriptedDice({"W": [d6]}), {"unit": "W", **opts})


def test_recovery_roll_and_modifiers():
    """"Recovery - Roll 1d6 score greater than the number of bases in the unit to recover. Modified by: +2 King
    attached / +1 Captain attached / +1 Each previously unsuccessful attempt / +3 No enemy within 12""."""
    assert recovery_passes(4, {}, 3) and not recovery_passes(3, {}, 3)
    w = unit("W", "red", "heavy_infantry", row(10, 3), [10] * 3, disordered=True)
    enemy_near = unit("E", "blue", "heavy_infantry", [10], [22])        # 10.5" edge to edge
    enemy_far = unit("E", "blue", "heavy_infantry", [10], [24])         # 12.5"
    king = [{"id": "k", "side": "red", "type": "king", "x": 11.5, "y": 11.5, "base": 1.0, "unit": "W"}]
    assert recover(scene(w, enemy_near), 3).events[0].data["mods"] == {}
    assert recover(scene(w, enemy_far), 1).events[0].data["mods"] == {"no_enemy_near": 3}
    r = recover(scene(w, enemy_near, king), 1, failed_attempts=2)
    assert r.events[0].data["mods"] == {"king_attached": 2, "failed_attempts": 2} and r.extra["recovered"]


def test_no_recovery_in_contact_or_routing():
    """"Units in contact with the enemy and those that are routing cannot recover from disorder"."""
    w = unit("W", "red", "heavy_infantry", row(10, 2), [10] * 2, disordered=True)
    touching = unit("E", "blue", "heavy_infantry", [10], [11.5])
    assert recover(scene(w, touching), 6).events[0].kind == "cannot_recover"
    routing = unit("W", "red", "heavy_infantry", row(10, 2), [10] * 2, disordered=True, routing=True)
    assert recover(scene(routing), 6).events[0].data["reason"] == "routing"


# ----------------------------------------------------------------- woods and initiative

@pytest.mark.parametrize("d6, nature", [(1, "evil"), (2, "good"), (3, "neutral"), (4, "neutral"), (5, "evil"),
                                        (6, "good")])
def test_unknown_woods_table(d6, nature):
    """"Unknown woods must be rolled for if a unit enters/touches them: 1 = evil, 2 = good, 3 or 4 = neutral,
    5 = evil, 6 = good"."""
    assert woods_nature(d6, KR.values["woods"]["table"]) == nature


def test_hostile_woods_attack_3d6_hitting_on_6():
    """"Good woods - evil units lose one movement die and are attacked each turn"; "Good/Evil woods attack with
    3d6 and hit on a 6. Each hit destroys 1 base from the unit"."""
    assert woods_hostile("good", "evil") and woods_hostile("evil", "good") and not woods_hostile("neutral", "evil")
    s = scene(unit("V", "blue", "heavy_infantry", row(10, 3), [10] * 3, alignment="evil"),
              terrain=[rect("wd", "woods", 9, 10.5, 14, 14, nature="good")])
    r = KR.resolve("woods", s, None, ScriptedDice({"wd": [6, 3, 6]}), {"woods": "wd"})
    assert r.events[0].data["hits"] == 2 and len(r.removed) == 2 and r.extra["nature"] == "good"


def test_initiative_reroll_ties():
    """"CinCs roll 1d6, highest score wins (re-roll ties) and chooses to seize or relinquish"."""
    s = scene(unit("R", "red", "heavy_infantry", [5], [5]), unit("B", "blue", "heavy_infantry", [9], [5]))
    r = KR.resolve("initiative", s, None, ScriptedDice({"red": [4, 1], "blue": [4, 2]}), {})
    assert r.extra["initiative"] == "blue" and r.prompts[0].options == ("seize", "relinquish")
    # The choice is put in plain words: no "initiative" in what the players read.
    assert r.prompts[0].text == "blue rolled highest: go first, or let the other side go first?"
    assert "initiative" not in r.prompts[0].text.lower()


def test_house_defaults_are_listed():
    keys = {h.key for h in KR.house_defaults()}
    assert {"play.measure_from", "figure_types.heavy_infantry.hit", "play.difficult_kinds"} <= keys


def test_a_golden_scenario_per_step():
    steps = {json.loads(p.read_text())["step"] for p in SCENARIOS.glob("*.json")
             if not p.name.endswith(".expected.json")}
    assert steps == set(KR.steps)


@pytest.mark.parametrize("change, message", [
    ({"shooter": "T", "target": "S", "units": {"T": {"bases": ["T1", "T2", "T3"], "range": "none"}}},
     "shooter: T has no missile weapon"),
    ({"target": "S"}, "target: S is on S's own side"),
    ({"step": "melee", "melee": ["S", "S"]}, "melee: S and S are on the same side"),
    ({"target": "Z"}, "target: unknown unit 'Z'"),
    ({"units": {"S": {"bases": ["S1"], "hit": "superb"}}}, "unit 'S': unknown hit chance 'superb'"),
    ({"step": "melee", "melee": ["S"]}, "melee: expected [unit a, unit b]"),
])
def test_bad_scenarios_give_one_line(tmp_path, capsys, change, message):
    from assistant.cli import main
    base = json.loads((SCENARIOS / "shoot_heavy_fire.json").read_text())
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**base, **change}))
    assert main(["resolve", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_shooting_needs_a_facing():
    s = scene(unit("S", "red", "light_infantry", [10], [10]), unit("T", "blue", "heavy_infantry", [12], [10]))
    with pytest.raises(KremlinError, match="unit 'S': give its facing"):
        KR.resolve("shoot", s, "red", ScriptedDice(), {"shooter": "S", "target": "T"})


def test_flank_or_rear_melee_from_the_scene():
    """"+3 Unit is in melee with enemy to it's flank/rear" (read from the bases when the unit has a facing)."""
    u = unit("U", "red", "heavy_infantry", row(10, 3), [10] * 3, facing="north")
    front = unit("E", "blue", "heavy_infantry", [11.5], [8.5])          # touching its front
    flank = unit("E", "blue", "heavy_infantry", [14.5], [10])           # touching its right flank
    rear = unit("E", "blue", "heavy_infantry", [10], [11.5])            # touching its rear
    assert morale(scene(u, front), 1).events[0].data["mods"] == {}
    assert morale(scene(u, flank), 1).events[0].data["mods"] == {"flank_rear": 3}
    assert morale(scene(u, rear), 1).events[0].data["mods"] == {"flank_rear": 3}
    assert morale(scene(u, rear), 1, flank_rear=False).events[0].data["mods"] == {}


def test_charged_in_the_flank_or_rear_disorders():
    """Disorder "Reasons: Unit is charged in the flank or rear"."""
    target = unit("B", "blue", "heavy_infantry", row(10, 3), [20] * 3, facing="north")
    ahead = unit("A", "red", "heavy_cavalry", row(10, 2), [14] * 2)
    behind = unit("A", "red", "heavy_cavalry", row(10, 2), [26] * 2)
    opts = {"unit": "A", "charge": True, "target": "B"}
    front = KR.resolve("move", scene(ahead, target), "red", ScriptedDice({"A": [6, 6, 6, 6]}), opts)
    rear = KR.resolve("move", scene(behind, target), "red", ScriptedDice({"A": [6, 6, 6, 6]}), opts)
    assert [e.kind for e in front.events] == ["movement", "charge_contact"]
    assert rear.events[-1].kind == "disordered" and rear.events[-1].data["reason"] == "charged_in_flank_or_rear"
