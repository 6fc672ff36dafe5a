"""The clauses added for issue 13 as small pure functions, each test quoting the sentence it checks
(the steps themselves are checked by the oracle scenarios in tests/data/scenarios)."""
import pytest
from hypothesis import given, strategies as st

from assistant.rules import get_system
from assistant.rules.anyminis_effects import forbidden, next_turn, points_lost, smoke_left
from assistant.rules.anyminis_heroes import ability_refusal, pushed_to, straight_line
from assistant.rules.anyminis_rules import HitFacts, attacks_allowed, hit_roll
from assistant.rules.anyminis_spells import cast_refusal, healed
from assistant.rules.dice import ScriptedDice
from assistant.rules.kremlin_melee import fight_order
from assistant.rules.kremlin_moves import caught, charge_responses, woods_hits_taken
from assistant.rules.kremlin_rules import KremlinError, kill_on_bases
from assistant.rules.smart_rules import fire_order
from measure.scene import scene_from_json

BONUS = {"from_behind": 2, "difficult_ranged": 1, "attacking": 1, "defending": 1, "aiming": 1, "dodging": 2}


# ----------------------------------------------------------------- AnyMinis!

@pytest.mark.parametrize("weapons, special, allowed", [(1, False, 1), (2, False, 2), (0, False, 1), (1, True, None)])
def test_attacks_allowed(weapons, special, allowed):
    """"Only minis wielding 2 weapons are allowed 2 attacks in a single turn, unless a special ability is used."""
    assert attacks_allowed(weapons, special_ability=special) == allowed


@pytest.mark.parametrize("path, reason", [
    ([(2, 1), (3, 1), (4, 1), (5, 1)], None), ([(2, 2), (3, 3)], None),
    ([(2, 1), (3, 1), (4, 1), (5, 1), (6, 1)], "5 spaces; a charge moves up to 4"),
    ([(2, 1), (3, 2)], "the spaces are not all in one direction"), ([(3, 1)], "[3, 1] is not next to [1, 1]"),
    ([], "a charge moves at least one space")])
def test_charge_moves_up_to_4_in_one_direction(path, reason):
    """"Charge: Move up to 4 spaces, all in one direction and ending adjacent to an enemy"."""
    assert straight_line((1, 1), path, 4) == reason


@pytest.mark.parametrize("other, to", [((4, 3), (5, 3)), ((2, 2), (1, 1)), ((3, 4), (3, 5))])
def test_whirlwind_pushes_one_space_away(other, to):
    """"Whirlwind: Push every adjacent figure 1 space away"."""
    assert pushed_to((3, 3), other) == to


def test_abilities_picked_once_per_battle_and_by_heroes_and_the_leader():
    """"Heroes ... may pick any two of the following. They may use each one once during the battle"; "Leader -
    ... 1 special ability"; "Squad Members - no extra actions points"."""
    assert ability_refusal("charge", "hero", ["charge", "whirlwind"], 2, []) is None
    assert "not one of its abilities" in ability_refusal("dual_attack", "hero", ["charge", "whirlwind"], 2, [])
    assert "already used" in ability_refusal("charge", "hero", None, 2, ["charge"])
    assert "picks 1 special ability" in ability_refusal("charge", "leader", ["charge", "bring_it"], 1, [])
    assert "no special abilities" in ability_refusal("charge", "squad_member", None, 0, [])


def test_called_shot_ignores_shield_and_dodge_and_bring_it_turns_ganging_into_defence():
    """"Called shot: May make 1 ranged attack at +3 die roll, and may ignore any non-armor types of defense";
    "Bring it!: ... ignore the attackers' bonuses for ganging up on the hero, and instead add +1 to the defense for
    each additional attacker"."""
    called = hit_roll(2, 1, HitFacts(weapon_kind="launched", armour=3, shield=2, defender_stance="dodging",
                                     defence_points=1, ability_bonus=3, ignore_non_armour=True), BONUS)
    assert (called.attack_total, called.defence_total) == (5, 4)
    brought = hit_roll(3, 2, HitFacts(prior_attackers=2, bring_it=True), BONUS)
    assert (brought.attack_total, brought.defence_total) == (3, 4)


def test_effects_hold_for_their_turn_and_end_at_clean_up():
    """"Stun: target figure may not move next turn"; "Daze: target figure may not attack next turn"; "Freeze: target
    character can't move or attack that turn"; "Clean up the battlefield - ... update any duration effects"."""
    effects = [{"figure": "a", "effect": "no_move", "when": "next"}, {"figure": "b", "effect": "frozen", "when": "this"},
               {"figure": "c", "effect": "lose_action_point", "when": "this"}]
    assert forbidden("a", "move", effects) is None and forbidden("b", "attack", effects)
    assert points_lost("c", effects) == 1
    keep, ended = next_turn(effects)
    assert keep == [{"figure": "a", "effect": "no_move", "when": "this"}] and len(ended) == 2
    assert forbidden("a", "move", keep) and not forbidden("a", "attack", keep)


def test_smoke_lasts_four_turns():
    """"Smoke: create a smoke cloud that's 4x4 spaces and lasts for 4 turns"."""
    left, turns = 4, 0
    while left:
        left, turns = smoke_left(left), turns + 1
    assert turns == 4


@pytest.mark.parametrize("moved, stance, ok", [(False, None, True), (True, None, False), (True, "casting", True)])
def test_cast_and_move_only_in_the_casting_stance(moved, stance, ok):
    """"Figures can't cast a spell at move in the same turn (unless tagged as such)"; "Casting Cast and move in the
    same turn"."""
    assert (cast_refusal("stun", None, 3, moved, stance) is None) is ok


def test_three_spells_and_healing():
    """"Pick 3 spells that the squaddie gets to use"; "Healing: target character gains 1d3+2 hit points"."""
    assert "picks 3 spells" in cast_refusal("slow", ["slow", "stun", "daze", "freeze"], 3, False, None)
    assert healed(3, 8, 5, False) == 8 and healed(3, 8, 4, False) == 7 and healed(6, 8, 5, True) == 11


# ----------------------------------------------------------------- KremlinMiniatures

@given(st.lists(st.integers(1, 4), min_size=1, max_size=7), st.integers(0, 3), st.integers(0, 30))
def test_kills_go_base_by_base_and_the_general_last(figures, before, kills):
    """"Each successful hit kills one figure - If all the figures on a base are killed remove the base"; generals
    "Are always the last base to be destroyed when attached to a unit"."""
    before = min(before, figures[0] - 1)
    c = kill_on_bases(figures, before, kills)
    assert c.destroyed == (before + kills >= sum(figures))
    if not c.destroyed:
        assert sum(figures[:c.bases_lost]) + c.figures_left_on_partial == before + kills
        assert c.figures_left_on_partial < figures[c.bases_lost]


def test_two_bases_and_a_captain_need_seven_kills():
    """Six hits on two 3-figure bases plus an attached captain leave the captain."""
    assert kill_on_bases([3, 3, 1], 0, 6).bases_lost == 2 and not kill_on_bases([3, 3, 1], 0, 6).destroyed
    assert kill_on_bases([3, 3, 1], 0, 7).destroyed


@pytest.mark.parametrize("cav, light, missiles, by_cav, out", [
    (True, True, True, False, ("counter_charge",)), (False, True, True, False, ("evade",)),
    (False, False, True, False, ("shoot_then_stand",)), (False, False, False, True, ("stand",)),
    (False, False, False, False, ("counter_charge", "stand"))])
def test_response_to_a_charge(cav, light, missiles, by_cav, out):
    """"1. Cavalry and monsters counter-charge (this over rides all other possible responses). 2. Light units may
    fire ... then declare an evade. 3. Missile armed units must shoot at chargers then stand to receive. 4. Others
    units may opt to counter-charge if being charged by infantry, or stand to receive them. But they must stand to
    receive cavalry/monsters"."""
    assert charge_responses(cav, light, missiles, by_cav) == out


def test_pursuers_catch_when_their_roll_covers_the_gap_and_the_flight():
    """"The chargers may roll to pursue. If the evaders are caught they are attacked in the rear"."""
    assert caught(7, 2.5, 4) and not caught(6, 2.5, 4) and caught(5, 0, 5)


def test_woods_take_double_damage_from_flame():
    """"Woods take double damage from flame attacks"."""
    assert woods_hits_taken(3, True) == 6 and woods_hits_taken(3, False) == 3


def test_who_fights_whom_first_when_reinforced():
    """"Two onto one - The outnumbered unit fights the reinforcing (supporting) enemy unit first"; "Two on two - The
    reinforcing (supporting) units fight each other first"."""
    class U:
        def __init__(self, uid):
            self.id = uid
    a, b, ra, rb = U("a"), U("b"), U("ra"), U("rb")
    assert [(x.id, y.id) for x, y in fight_order(a, b, {"a": ra})] == [("b", "ra"), ("a", "b")]
    assert [(x.id, y.id) for x, y in fight_order(a, b, {"b": rb})] == [("a", "rb"), ("a", "b")]
    assert [(x.id, y.id) for x, y in fight_order(a, b, {"a": ra, "b": rb})] == [("ra", "rb"), ("a", "b")]


def test_no_reinforcement_on_the_first_turn():
    """"One unit only may reinforce a melee (a melee cannot be reinforced on the first turn it is fought)"."""
    kr = get_system("kremlin")
    figs = [{"id": f"{u}{i}", "side": s, "type": "heavy_infantry", "x": 10 + 1.5 * i, "y": y, "base": 1.5, "unit": u}
            for u, s, y in (("A", "red", 10), ("B", "blue", 11.5), ("C", "red", 8.5)) for i in range(2)]
    scene = scene_from_json({"units": "in", "table": {"width": 48, "depth": 36}, "figures": figs})
    with pytest.raises(KremlinError, match="cannot be reinforced on the first turn"):
        kr.resolve("melee", scene, "red", ScriptedDice({}), {"melee": ["A", "B"], "reinforce": {"A": "C"}})


# ----------------------------------------------------------------- SMART

def test_players_fire_in_the_order_they_moved():
    """"The highest number moves their miniatures first, then the next highest roll, and so on"; "... on till each
    player has a chance to fire their bows or crossbows"."""
    assert fire_order(["red", "blue", "red", "green"], ["green", "red", "blue"]) == [3, 0, 2, 1]


def test_a_wall_collapses_when_its_hits_are_gone_and_rams_work_on_gates():
    """"Walls should be rated in hits. When it's hits are gone the wall collapses"; "Battering Rams act on gates as
    war machines do on walls. Monsters can act as battering rams"."""
    from assistant.rules.kremlin_scenery import wall_left
    assert wall_left(4, 2, 1) == 1 and wall_left(4, 3, 5) == 0
    kr = get_system("kremlin")
    scene = scene_from_json({"units": "in", "table": {"width": 48, "depth": 36},
                             "figures": [{"id": "ogre", "side": "red", "type": "monster", "x": 10, "y": 10, "base": 2.0}],
                             "terrain": [{"id": "g", "kind": "gate", "polygon": [[8, 12], [12, 12], [12, 13], [8, 13]],
                                          "hits": 2}]})
    r = kr.resolve("siege", scene, "red", ScriptedDice({"ogre": [6, 6, 1, 1, 1]}), {"unit": "ogre", "wall": "g"})
    assert r.extra["breached"] and r.events[0].data["rolls"] == [6, 6, 1, 1, 1]    # a monster's 5d6 (house default)
