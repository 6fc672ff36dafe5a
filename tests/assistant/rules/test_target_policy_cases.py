"""Issue 14's six cases: `targets` (the ranking), and each system's own step, read one policy.

Each test quotes the sentence it rests on and checks both sides: what the ranking calls the pair,
and what the system's step does with the same shot.
"""
from __future__ import annotations

import pytest

from assistant.cli.targets import describe
from assistant.rules import get_system
from assistant.rules.dice import RandomDice, ScriptedDice
from measure.scene import scene_from_json
from measure.targets import closest_targets

KIM, SMART, ANY, KREM = (get_system(n) for n in ("kimmiria", "smart", "anyminis", "kremlin"))


def scene(figs, terrain=(), grid=None, w=48, d=36):
    """figs: (id, x, y, side, type, extra)."""
    figures = [{"id": i, "side": s, "type": t, "x": x, "y": y, **extra} for i, x, y, s, t, extra in figs]
    return scene_from_json({"units": "in", "table": {"width": w, "depth": d}, "grid": grid, "figures": figures,
                            "terrain": list(terrain)})


def poly(tid, kind, *points):
    return {"id": tid, "kind": kind, "polygon": [list(p) for p in points]}


def rect(tid, kind, x0, y0, x1, y1):
    return poly(tid, kind, (x0, y0), (x1, y0), (x1, y1), (x0, y1))


def ranking(system, s):
    return {r.shooter: r for r in closest_targets(s, system.shooter_specs(s), system.target_policy())}


# ----------------------------------------------------------------- 1 SMART, a wall between

def test_smart_a_wall_between_is_an_obstacle_roll_not_a_block():
    """"If there is intervening terrain in the way ... roll a d20 if the combat roll is successful. If one
    rolls a 1-10, the arrow or bolt hits that obstacle instead": the shot is legal, at a risk."""
    s = scene([("A", 5, 5, "blue", "archer", {}), ("near", 15, 5, "red", "infantry", {}),
               ("far", 5, 20, "red", "infantry", {})], [rect("w", "wall", 9.5, 3, 10.5, 7)])
    r = ranking(SMART, s)["A"]
    near = r.enemy("near")
    assert r.target == "near" and near.legal and near.blocked_by == ()
    assert near.risks == ("obstacle_roll",) and near.in_the_way == ("w",) and near.needs == 11
    assert r.enemy("far").reason == "farther"
    shot = {"shots": [{"shooter": "A", "target": "near"}]}
    hit = SMART.resolve("missile", s, "blue", ScriptedDice({"A": [15, 12]}), shot)
    assert [e.kind for e in hit.events][:1] == ["missile_hit"]
    diverted = SMART.resolve("missile", s, "blue", ScriptedDice({"A": [15, 4]}), shot)
    assert diverted.events[0].kind == "missile_obstacle" and diverted.events[0].data["obstacles"] == ["w"]


def test_smart_range_penalty_is_shown_as_the_roll_needed():
    """"So an archer aiming at a target 50 inches away must roll a 12 or higher in order to hit"."""
    s = scene([("A", 2, 5, "blue", "archer", {}), ("T", 52, 5, "red", "infantry", {})], w=60)
    r = ranking(SMART, s)["A"]
    assert r.enemy("T").needs == 12 and r.target == "T"
    assert "needs 12" in describe(s, r, 0.25, SMART.must_shoot_closest)
    assert SMART.resolve("missile", s, "blue", ScriptedDice({"A": [11]}),
                         {"shots": [{"shooter": "A", "target": "T"}]}).events[0].data["needs"] == 12


# ----------------------------------------------------------------- 2 engaged targets

def test_smart_firing_into_hand_to_hand_is_legal_with_a_risk():
    """"If one is firing into hand-to-hand combat, the same roll is made. On a roll of 1-10 one hits their
    own unit instead of the target"."""
    s = scene([("A", 5, 5, "blue", "archer", {}), ("T", 12, 5, "red", "infantry", {}),
               ("F", 13, 5, "blue", "infantry", {}), ("far", 5, 25, "red", "infantry", {})])
    r = ranking(SMART, s)["A"]
    assert r.target == "T" and r.enemy("T").risks == ("friendly_fire",)
    own = SMART.resolve("missile", s, "blue", ScriptedDice({"A": [15, 10]}),
                        {"shots": [{"shooter": "A", "target": "T"}]})
    assert any(e.kind == "missile_own_unit" for e in own.events)


def test_anyminis_has_no_rule_against_attacking_an_engaged_figure():
    """AnyMinis! names no such rule: "Concealing: cannot see through (hedgerow, smoke); blocks line of
    sight" is all that stops a ranged attack besides range, so an engaged target is legal."""
    s = scene([("A", 0.5, 0.5, "blue", "squad_member", {"weapons": ["pistol"]}),
               ("T", 5.5, 0.5, "red", "squad_member", {"weapons": ["sword"]}),
               ("F", 6.5, 0.5, "blue", "squad_member", {"weapons": ["sword"]})], w=12, d=8)
    r = ranking(ANY, s)["A"]
    assert r.target == "T" and r.enemy("T").risks == ()
    step = ANY.resolve("attack", s, "blue", RandomDice(3), {"attacks": [{"attacker": "A", "target": "T"}]})
    assert step.events[0].kind != "attack_illegal"


# ----------------------------------------------------------------- 3 AnyMinis!, ranges on a grid

@pytest.mark.parametrize("grid", [None, {"kind": "square", "pitch": 1.0}])
def test_anyminis_pistol_reaches_eight_diagonal_spaces(grid):
    """"1-handed, ranged launched, small - range 10": ten spaces; eight diagonal spaces are 11.3" centre to
    centre but in range (a diagonal space counts 1, the house default combat.range_metric)."""
    s = scene([("A", 0.5, 0.5, "blue", "squad_member", {"weapons": ["pistol"]}),
               ("T", 8.5, 8.5, "red", "squad_member", {"weapons": ["sword"]}),
               ("U", 11.5, 12.5, "red", "squad_member", {"weapons": ["sword"]})], grid=grid, w=14, d=14)
    r = ranking(ANY, s)["A"]
    t = r.enemy("T")
    assert t.distance_in == pytest.approx(11.314, abs=1e-3) and t.measured == 8 and t.legal
    assert r.range_unit == "spaces" and r.range_in == 10
    assert r.enemy("U").reason == "out_of_range" and r.enemy("U").measured == 12
    assert "8 spaces" in describe(s, r, 0.25, False)
    ok = ANY.resolve("attack", s, "blue", RandomDice(1), {"attacks": [{"attacker": "A", "target": "T"}]})
    assert ok.events[0].kind != "attack_illegal"
    far = ANY.resolve("attack", s, "blue", RandomDice(1), {"attacks": [{"attacker": "A", "target": "U"}]})
    assert far.events[0].data["reason"] == "out_of_range" and far.events[0].data["spaces"] == 12


def test_anyminis_counts_hexes_on_a_hex_grid():
    """Ranges are spaces on "a one inch grid (hex or square)": hex distance on hexes."""
    grid = {"kind": "hex", "pitch": 1.0, "orientation": "flat"}
    s = scene([("A", 0, 0, "blue", "squad_member", {"weapons": ["knife"], "cell": [0, 0]}),
               ("T", 0, 0, "red", "squad_member", {"weapons": ["sword"], "cell": [3, -1]}),
               ("U", 0, 0, "red", "squad_member", {"weapons": ["sword"], "cell": [4, 0]})], grid=grid)
    r = ranking(ANY, s)["A"]                  # "ranged thrown, small - range 3"
    assert r.enemy("T").measured == 3 and r.enemy("T").legal
    assert r.enemy("U").measured == 4 and r.enemy("U").reason == "out_of_range"


# ----------------------------------------------------------------- 4 KremlinMiniatures, fire over

def _kremlin_shot(s, target):
    return KREM.resolve("shoot", s, "red", RandomDice(5), {"shooter": "S", "target": target}).events[0]


def test_kremlin_units_on_a_hill_fire_over_friends_not_on_the_hill():
    """"Units on a hill may fire over the heads of friendly units not on the hill.\""""
    figs = [("S", 10, 10, "red", "light_infantry", {"facing": "east"}),
            ("F", 12.5, 10, "red", "heavy_infantry", {}), ("T", 15, 10, "blue", "heavy_infantry", {})]
    hill = rect("h", "hill", 8, 8, 11, 12)
    on_hill = scene(figs, [hill])
    r = ranking(KREM, on_hill)["S"]
    assert r.target == "T" and r.enemy("T").blocked_by == ()
    assert _kremlin_shot(on_hill, "T").kind == "shooting"
    flat = scene(figs)
    assert ranking(KREM, flat)["S"].enemy("T").blocked_by == ("F",)
    assert _kremlin_shot(flat, "T").kind == "no_line_of_sight"
    # an enemy in between is no friend: it still blocks from the hill
    foe = scene([*figs[:1], ("E", 12.5, 10, "blue", "heavy_infantry", {}), figs[2]], [hill])
    assert ranking(KREM, foe)["S"].enemy("T").reason == "blocked"


def test_kremlin_units_on_walls_and_towers_fire_over_other_units():
    """"Units on walls/towers may fire down onto targets/over other units as they please.\""""
    figs = [("S", 10, 10, "red", "light_infantry", {"facing": "east"}),
            ("E", 12.5, 10, "blue", "heavy_infantry", {}), ("T", 15, 10, "blue", "heavy_infantry", {})]
    tower = rect("tw", "tower", 9, 9, 11, 11)
    s = scene(figs, [tower])
    r = ranking(KREM, s)["S"]
    assert r.enemy("E").legal and r.enemy("T").legal and r.enemy("T").blocked_by == ()
    assert _kremlin_shot(s, "T").kind == "shooting"
    # on the ground the tower's own piece and the unit in between block
    ground = scene([("S", 7, 10, "red", "light_infantry", {"facing": "east"}), *figs[1:]], [tower])
    assert ranking(KREM, ground)["S"].enemy("T").blocked_by == ("E", "tw")


def test_kremlin_arc_of_fire_and_edge_to_edge_ranges():
    """"Arc of fire - 45 degrees measured from the unit's flank line"; ranges between the nearest bases,
    edge to edge (house default play.measure_from); "6" Short"."""
    s = scene([("S", 10, 10, "red", "light_infantry", {"facing": "east"}),
               ("edge", 16.8, 10, "blue", "heavy_infantry", {}),     # 6.8" centre to centre, 5.8" edge to edge
               ("side", 10, 14, "blue", "heavy_infantry", {}),       # straight to the flank
               ("past", 19, 10, "red", "heavy_infantry", {})])       # a friend, not ranked
    r = ranking(KREM, s)["S"]
    assert r.measure == "edge" and r.enemy("edge").measured == pytest.approx(5.8) and r.target == "edge"
    assert r.enemy("side").reason == "out_of_arc"
    assert "5.8 in edge to edge" in describe(s, r, 0.25, False)
    assert _kremlin_shot(s, "edge").kind == "shooting"
    assert _kremlin_shot(s, "side").kind == "out_of_arc"


# ----------------------------------------------------------------- 5 KIMMIRIA, a concave wood

def test_kimmiria_a_concave_wood_is_judged_one_stretch_at_a_time():
    """"Missiles will go into (and out of) trees and rocks, but only a half inch": shooter 0.3 in inside one
    arm of a U-shaped wood, target 0.3 in inside the other, as clear as the same trees cut in two."""
    figs = [("a", 2, 5, "blue", "archer", {}), ("t", 10, 5, "red", "troop", {})]
    u = poly("u", "woods", (1.7, 2), (10.3, 2), (10.3, 8), (9.7, 8), (9.7, 3), (2.3, 3), (2.3, 8), (1.7, 8))
    two = [rect("a1", "woods", 1.7, 2, 2.3, 8), rect("a2", "woods", 9.7, 2, 10.3, 8)]
    for terrain in ([u], two):
        s = scene(figs, terrain)
        assert ranking(KIM, s)["a"].target == "t"
        assert KIM.resolve("missile", s, "blue", RandomDice(2), {}).extra["shots"] == {"a": ["t"]}


# ----------------------------------------------------------------- 6 KIMMIRIA, engaged shooters

def test_kimmiria_an_engaged_archer_does_not_shoot():
    """"A figure that is next to an enemy figure ... is considered engaged"; the agreed reading
    (play.engaged_may_shoot = false) is that it does not shoot, so `targets` never says "must shoot"."""
    s = scene([("a", 5, 5, "blue", "archer", {}), ("e", 6, 5, "red", "troop", {}),
               ("far", 5, 15, "red", "troop", {})])
    r = ranking(KIM, s)["a"]
    assert r.engaged and r.target is None and {e.reason for e in r.enemies} == {"shooter_engaged"}
    text = describe(s, r, 0.25, KIM.must_shoot_closest)
    assert "must shoot" not in text and "does not shoot" in text
    step = KIM.resolve("missile", s, "blue", RandomDice(4), {})
    assert "a" not in step.extra["shots"] and "a" not in step.extra["fired"]
