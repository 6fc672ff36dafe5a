"""AnyMinis! (issue 6 item 4), each test quoting the sentence of the AnyMinis! text it checks."""
import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from assistant.rules import get_system
from assistant.rules.anyminis_rules import (AssessmentError, HitFacts, MoveError, SquadError, Step, assess,
                                            check_assignment, check_spend_order, check_squad, damage_taken,
                                            defence_die, hit_roll, initiative_winner, move_cost, squad_roles)
from assistant.rules.dice import ScriptedDice
from measure.scene import scene_from_json

AM = get_system("anyminis")
DATA = AM.assessment_data()
BONUS = {"from_behind": 2, "difficult_ranged": 1, "attacking": 1, "defending": 1, "aiming": 1, "dodging": 2}
SCENARIOS = Path(__file__).parent.parent.parent / "data" / "scenarios" / "anyminis"


def scene(figs, terrain=(), w=12, d=8):
    """figs: (id, col, row, side, role, extra) on a 1" square grid; terrain: (id, kind, [(col, row), ...])."""
    figures = [{"id": i, "side": s, "type": t, "x": c + 0.5, "y": r + 0.5, **extra} for i, c, r, s, t, extra in figs]
    pieces = [{"id": f"{tid}{j}", "kind": kind, "polygon": [[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]]}
              for tid, kind, cells in terrain for j, (c, r) in enumerate(cells)]
    return scene_from_json({"units": "in", "table": {"width": w, "depth": d},
                            "grid": {"kind": "square", "pitch": 1.0}, "figures": figures, "terrain": pieces})


# ----------------------------------------------------------------- assessing a figure

@pytest.mark.parametrize("weapon, kind, rng, die, plus", [
    ("melee_unarmed", "melee", 1, None, 1),          # "1-handed, melee, unarmed - adjacent spaces only, 1 damage"
    ("melee_small", "melee", 1, "d3", 0),            # "1-handed, melee, small - adjacent spaces only, 1d3 damage"
    ("two_handed_melee_large", "melee", 1, "d6", 1),  # "2-handed, melee, large - adjacent spaces only, 1d6+1 damage"
    ("thrown_large", "thrown", 4, "d6", 0),          # "1-handed, ranged thrown, large - range 4, 1d6 damage"
    ("launched_large", "launched", 15, "d3", 1),     # "1-handed, ranged launched, large - range 15, 1d3+1 damage"
    ("two_handed_launched_large", "launched", 40, "d6", 0),  # "2-handed, ranged launched, large - range 40, 1d6 damage"
])
def test_weapons_assessed(weapon, kind, rng, die, plus):
    w = assess("f", "squad_member", {"weapons": [weapon]}, DATA).weapons[0]
    assert (w.kind, w.range_spaces, w.damage_die, w.damage_plus) == (kind, rng, die, plus)


def test_armour_shield_cape_assessed():
    """"Torso Full +3, Partial +2 / Arms Full +1, Partial +0 / Legs Full +2, Partial +1 / Head Full +1,
    Partial +0 / Shield, small +1 / Shield, large +2 / Cape +1"."""
    a = assess("f", "squad_member", {"armor": {"torso": "full", "arms": "partial", "legs": "partial", "head": "full"},
                                     "shield": "large", "cape": True}, DATA)
    assert (a.armour, a.shield) == (3 + 0 + 1 + 1 + 1, 2)
    assert assess("g", "squad_member", {"armor": {"torso": "partial"}, "shield": "small"}, DATA).armour == 2
    assert assess("g", "squad_member", {"shield": "small"}, DATA).shield == 1


def test_unknown_assessment_names_the_figure():
    with pytest.raises(AssessmentError, match="figure 'f'.*unknown weapon 'wand'"):
        assess("f", "squad_member", {"weapons": ["wand"]}, DATA)
    with pytest.raises(AssessmentError, match="figure 'f'.*unknown armour torso='heavy'"):
        assess("f", "squad_member", {"armor": {"torso": "heavy"}}, DATA)
    with pytest.raises(AssessmentError, match="unknown stance 'sleeping'"):
        assess("f", "squad_member", {"stance": "sleeping"}, DATA)


# ----------------------------------------------------------------- squads

@pytest.mark.parametrize("role, ap, hp", [("leader", 6, 10), ("hero", 5, 12), ("squad_member", 4, 8)])
def test_roles_action_and_hit_points(role, ap, hp):
    """"Squad members have 4 action points per turn. Heroes have 5 action points. Leaders have 6 action
    points." / "Leader - ... 10 hit points / Hero - ... 12 hit points / Squad Members - ... 8 hit points"."""
    a = assess("f", role, {}, DATA)
    assert (a.action_points, a.hit_points) == (ap, hp)


@pytest.mark.parametrize("size, leader, hero, member", [
    (3, 1, 0, 2), (4, 1, 0, 3), (5, 1, 0, 4), (6, 1, 1, 4), (7, 1, 1, 5), (8, 1, 1, 6), (9, 1, 2, 6), (10, 1, 2, 7)])
def test_squad_roles_by_size(size, leader, hero, member):
    """"3 figures - 1 leader, 2 squaddies ... 6 figures - 1 leader, 1 hero, 4 squaddies ... 10 figures -
    1 leader, 2 heroes, 7 squaddies"; "Every squad has 1 leader"."""
    assert squad_roles(size, AM.values["squads"]) == {"leader": leader, "hero": hero, "squad_member": member}


@pytest.mark.parametrize("size", [2, 11])
def test_squad_size_limits(size):
    """"Build your squad, minimum 3 figures"; "If there are more than 10, you're not really playing a
    skirmish game anymore"."""
    with pytest.raises(SquadError, match=f"squad 'reds': {size} figures"):
        squad_roles(size, AM.values["squads"], "reds")


def test_squad_with_wrong_roles_is_refused():
    with pytest.raises(SquadError, match="need 1 leader, 1 hero"):
        check_squad(["leader"] + ["squad_member"] * 5, AM.values["squads"])
    assert check_squad(["leader", "hero"] + ["squad_member"] * 4, AM.values["squads"])["hero"] == 1


# ----------------------------------------------------------------- action points

def test_assignment_within_points_and_guarding_reserve():
    """"You assign action points movement, attacks, or skills, or hold them in reserve"; guarding:
    "Automatically has 1 action point in reserve each turn"."""
    assert check_assignment("f", {"move": 2, "attack": 1}, 4) == 1
    with pytest.raises(AssessmentError, match="assigns 5 action points but has 4"):
        check_assignment("f", {"move": 3, "attack": 2}, 4)
    with pytest.raises(AssessmentError, match="guarding figure keeps 1"):
        check_assignment("f", {"move": 2, "attack": 2}, 4, guarding=True)


def test_spend_one_kind_before_the_next():
    """"you cannot spend 1 to move, then attack, then spend the other movement point. You must attack and
    then move, or move and then attack, all at once"."""
    check_spend_order("f", ["move", "move", "attack", "attack"])
    check_spend_order("f", ["attack", "move", "move"])
    with pytest.raises(AssessmentError, match="spends move points again after attack"):
        check_spend_order("f", ["move", "attack", "move"])


def test_plan_step_counts_points_a_leader_gave():
    """"The action point assigned to the squaddie may be used by the recipient just as any other action point"."""
    s = scene([("m", 1, 1, "red", "squad_member", {})])
    plan = {"plans": {"m": {"move": 3, "attack": 2}}}
    assert AM.resolve("plan", s, None, ScriptedDice(), plan).events[0].kind == "plan_illegal"
    ok = AM.resolve("plan", s, None, ScriptedDice(), {**plan, "given": {"m": 1}}).events[0]
    assert ok.kind == "plan_ok" and ok.data["available"] == 5 and ok.data["reserve"] == 0


# ----------------------------------------------------------------- movement costs

def test_worked_movement_example():
    """"allocating all 4 action points to movement would allow a squad member to move 2 spaces diagonally,
    plus an additional space to the left, using 3 action points for the 3 spaces moved, plus 1 additional
    one to allow diagonal movement"."""
    cost = move_cost("f", [Step((3, 3), diagonal=True), Step((4, 4), diagonal=True), Step((3, 4))])
    assert (cost.spaces, cost.diagonal_enable, cost.total) == (3, 1, 4)


def test_orthogonal_moves_cost_one_each():
    """"Moving 1 space orthogonally costs 1 action point"."""
    assert move_cost("f", [Step((1, 0)), Step((2, 0)), Step((2, 1))]).total == 3


def test_diagonal_into_difficult_costs_three():
    """"To move diagonally into a difficult terrain space costs 3 action points: 1 for the move, 1 for the
    difficult terrain, and 1 for the diagonal movement"."""
    assert move_cost("f", [Step((1, 1), diagonal=True, difficult=True)]).total == 3


def test_difficult_terrain_per_space_and_walking_stance():
    """"pay 1 additional action point per space of difficult terrain"; walking "Moves through 1 space of
    difficult terrain at no extra cost"."""
    path = [Step((1, 0), difficult=True), Step((2, 0), difficult=True)]
    assert move_cost("f", path).total == 4
    assert move_cost("f", path, stance="walking").total == 3


def test_elevation_is_a_diagonal_move_and_charging_is_free():
    """"treat elevation moves (up- or down-hill) as diagonal moves (1 action point to enable)"; charging
    "Moves diagonally at no extra cost"."""
    assert move_cost("f", [Step((1, 0), elevation=True), Step((2, 0))]).total == 3
    assert move_cost("f", [Step((1, 0), elevation=True), Step((2, 1), diagonal=True)]).total == 3
    assert move_cost("f", [Step((1, 1), diagonal=True)], stance="charging").total == 1


@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=8),
       st.sampled_from([None, "charging", "walking"]))
def test_move_cost_bounds(flags, stance):
    """Each space costs 1, at most 1 more to enable diagonals and elevation, at most 1 more per difficult space."""
    steps = [Step((i, 0), diagonal=d, difficult=f, elevation=e) for i, (d, f, e) in enumerate(flags)]
    cost = move_cost("f", steps, stance)
    n_difficult = sum(f for _, f, _ in flags)
    assert len(steps) <= cost.total <= 2 * len(steps) + 1
    assert cost.difficult_extra == (max(0, n_difficult - 1) if stance == "walking" else n_difficult)
    assert cost.diagonal_enable == (0 if stance == "charging" else int(any(d or e for d, _, e in flags)))


def test_hex_grid_moves_one_wherever():
    """"if on a hex grid, move 1 wherever"."""
    s = scene_from_json({"units": "in", "table": {"width": 12, "depth": 8},
                         "grid": {"kind": "hex", "pitch": 1.0, "origin": [1.0, 1.0]},
                         "figures": [{"id": "m", "side": "red", "type": "squad_member", "x": 1.0, "y": 1.0,
                                      "cell": [0, 0]}]})
    r = AM.resolve("move", s, None, ScriptedDice(), {"figure": "m", "path": [[1, 0], [1, 1], [0, 2]]})
    assert (r.events[0].data["cost"], r.events[0].data["diagonal_enable"]) == (3, 0)


def test_blocking_terrain_cannot_be_entered():
    """"Blocking: cannot move through (water, lava); block movement but not line of sight"."""
    with pytest.raises(MoveError, match="step 2 into \\[2, 0\\] enters blocking terrain"):
        move_cost("f", [Step((1, 0)), Step((2, 0), blocking=True)])


def test_move_step_reads_terrain_and_hills_from_the_scene():
    s = scene([("m", 1, 1, "red", "squad_member", {})], terrain=[("mud", "mud", [(2, 1)]), ("h", "hill", [(3, 1)]),
                                                                   ("water", "water", [(1, 2)])])
    r = AM.resolve("move", s, None, ScriptedDice(), {"figure": "m", "path": [[2, 1], [3, 1]]})
    e = r.events[0]
    assert (e.data["difficult_extra"], e.data["diagonal_enable"], e.data["cost"]) == (1, 1, 4)
    r = AM.resolve("move", s, None, ScriptedDice(), {"figure": "m", "path": [[1, 2]]})
    assert r.events[0].kind == "move_illegal"
    r = AM.resolve("move", s, None, ScriptedDice(), {"figure": "m", "path": [[3, 3]]})
    assert r.events[0].kind == "move_illegal" and "is not next to [1, 1]" in r.events[0].text


# ----------------------------------------------------------------- the hit roll

def test_attack_total_adds_points_ganging_up_and_behind():
    """"For each additional action point spent on combat, add +1 to the die. For each figure that attacked
    the target already this turn, add +1 to the die ... If attacking from behind the figure, based on its
    facing, add +2 to the die roll"."""
    out = hit_roll(3, 1, HitFacts(extra_points=2, prior_attackers=1, from_behind=True), BONUS)
    assert out.attack_total == 3 + 2 + 1 + 2
    assert dict(out.attack_mods) == {"points": 2, "ganging_up": 1, "from_behind": 2}


def test_defence_d3_or_d6_when_a_point_was_spent():
    """"The defender rolls 1d3 and adds any armor value. If the defender allocated an action point to
    defense, roll 1d6 instead. For any additional action points allocated to defense, add +1"."""
    assert defence_die(HitFacts()) == 3
    assert defence_die(HitFacts(defence_points=1)) == 6
    out = hit_roll(6, 4, HitFacts(defence_points=3, armour=2), BONUS)
    assert out.defence_total == 4 + 2 + 2


def test_difficult_terrain_against_ranged_attacks_only():
    """"If the defender is in difficult terrain, and it is a ranged attack, add +1 to the defense"."""
    assert hit_roll(4, 2, HitFacts(defender_in_difficult=True, weapon_kind="launched"), BONUS).defence_total == 3
    assert hit_roll(4, 2, HitFacts(defender_in_difficult=True, weapon_kind="melee"), BONUS).defence_total == 2


def test_shields_do_not_count_from_behind():
    """"Shields do not add their defense value to attacks from behind"."""
    front = hit_roll(4, 1, HitFacts(armour=2, shield=2), BONUS)
    behind = hit_roll(4, 1, HitFacts(armour=2, shield=2, from_behind=True), BONUS)
    assert (front.defence_total, behind.defence_total) == (5, 3)


@pytest.mark.parametrize("attack, defence, hit", [(5, 4, True), (4, 4, False), (3, 4, False)])
def test_attacker_must_exceed_ties_to_defender(attack, defence, hit):
    """"The attacker must exceed the defender's total defense of armor + dice + terrain modifiers. Ties go
    to the defender"."""
    out = hit_roll(attack, defence, HitFacts(), BONUS)
    assert out.hit is hit and out.tie is (attack == defence)


def test_stances_in_the_hit_roll():
    """"Attacking +1 to attack rolls / Defending +1 to defense rolls / Aiming +1 to ranged launched attack rolls"."""
    assert hit_roll(3, 1, HitFacts(attacker_stance="attacking"), BONUS).attack_total == 4
    assert hit_roll(3, 1, HitFacts(attacker_stance="aiming", weapon_kind="launched"), BONUS).attack_total == 4
    assert hit_roll(3, 1, HitFacts(attacker_stance="aiming", weapon_kind="thrown"), BONUS).attack_total == 3
    assert hit_roll(3, 1, HitFacts(defender_stance="defending"), BONUS).defence_total == 2


def test_behind_from_facing_in_the_scene():
    """"If attacking from behind the figure, based on its facing, add +2"; the d3 reads 1-3 as 1."""
    s = scene([("T", 5, 3, "blue", "squad_member", {"facing": "north"}),
               ("A", 5, 4, "red", "squad_member", {"weapons": ["sword"]})])
    r = AM.resolve("attack", s, "red", ScriptedDice({"A": [1, 1], "T": [3]}),
                   {"attacks": [{"attacker": "A", "target": "T"}]})
    hit = r.events[0]
    assert hit.data["from_behind"] is True and hit.data["attack_total"] == 3 and hit.data["defence_total"] == 1


# ----------------------------------------------------------------- damage

def test_damage_less_one_per_defence_type():
    """"an attack hits a figure with both armor and a shield for 7 points of damage. Two types of defense
    reduce the damage by 2 points, for a total of 5 points"."""
    a = assess("f", "squad_member", {"armor": {"torso": "full"}, "shield": "small"}, DATA)
    assert a.defence_types(False) == ("armor", "shield")
    assert damage_taken(7, a.defence_types(False)) == 5
    assert damage_taken(1, ("armor", "shield")) == 0


def test_shields_do_not_absorb_from_behind_and_dodge_is_a_type():
    """"Shields do not absorb damage on attacks from behind"; "Subtract 1 point for each type of defense
    (armor, dodge, gadget, etc)"."""
    a = assess("f", "squad_member", {"armor": {"legs": "full"}, "shield": "large", "cape": True,
                                     "stance": "dodging"}, DATA)
    assert a.defence_types(True) == ("armor", "cape", "dodge")
    assert damage_taken(7, a.defence_types(True)) == 4


def test_the_dead_leave_at_clean_up():
    """"Clean up the battlefield - remove dead figures"."""
    s = scene([("A", 1, 1, "red", "squad_member", {"weapons": ["greatsword"]}),
               ("D", 2, 1, "blue", "squad_member", {"hp": 3})])
    r = AM.resolve("attack", s, "red", ScriptedDice({"A": [6, 3], "D": [1]}),
                   {"attacks": [{"attacker": "A", "target": "D"}]})
    assert r.removed == ("D",) and r.events[-1].kind == "dead"


def test_one_weapon_one_attack_two_weapons_two():
    """"Only minis wielding 2 weapons are allowed 2 attacks in a single turn, unless a special ability is used."
    """
    def two_attacks(weapons):
        s = scene([("A", 1, 1, "red", "squad_member", {"weapons": weapons}),
                   ("D", 2, 1, "blue", "squad_member", {})])
        return AM.resolve("attack", s, "red", ScriptedDice({"A": [1, 1], "D": [6, 6]}),
                          {"attacks": [{"attacker": "A", "target": "D"}] * 2})
    sword = two_attacks(["sword"])
    assert [e.kind for e in sword.events] == ["attack_miss", "attack_illegal"]
    assert sword.events[1].data["reason"] == "attacks_used" and len(sword.rolls) == 2
    pair = two_attacks(["sword", "dagger"])
    assert [e.kind for e in pair.events] == ["attack_miss", "attack_miss"] and len(pair.rolls) == 4
    # an attack made earlier in the turn counts too
    s = scene([("A", 1, 1, "red", "squad_member", {"weapons": ["sword"]}), ("D", 2, 1, "blue", "squad_member", {})])
    r = AM.resolve("attack", s, "red", ScriptedDice({}), {"attacks": [{"attacker": "A", "target": "D"}],
                                                          "attacks_made": {"A": 1}})
    assert r.events[0].kind == "attack_illegal" and not r.rolls


# ----------------------------------------------------------------- leaders

def test_leader_tie_break_needs_adjacency_and_a_point():
    """"If a leader is adjacent to an attacker whose roll tied with the defender, and the leader has an action
    point left, he may spend that action point for the attack to succeed"."""
    s = scene([("A", 2, 2, "red", "squad_member", {"weapons": ["dagger"]}), ("L", 1, 2, "red", "leader", {}),
               ("D", 3, 2, "blue", "squad_member", {})])
    attack = {"attacks": [{"attacker": "A", "target": "D"}]}
    with_point = AM.resolve("attack", s, "red", ScriptedDice({"A": [2, 1], "D": [4]}),
                            {**attack, "leader_points": {"L": 1}})
    assert [e.kind for e in with_point.events] == ["attack_hit", "leader_tie_break"]
    assert with_point.extra["leader_points"] == {"L": 0}
    without = AM.resolve("attack", s, "red", ScriptedDice({"A": [2], "D": [4]}), {**attack, "leader_points": {"L": 0}})
    assert without.events[0].kind == "attack_miss" and without.prompts[0].kind == "leader_tie_break"
    far = scene([("A", 2, 2, "red", "squad_member", {}), ("L", 6, 6, "red", "leader", {}),
                 ("D", 3, 2, "blue", "squad_member", {})])
    r = AM.resolve("attack", far, "red", ScriptedDice({"A": [2], "D": [4]}), {**attack, "leader_points": {"L": 3}})
    assert r.events[0].kind == "attack_miss" and not r.prompts


def test_command_costs_one_per_point_and_needs_line_of_sight():
    """"A leader may give a squad member an additional action point, at the cost of 1 for the leader" and
    "There is no range limit ... but the leader must have line-of-sight to the recipient"."""
    s = scene([("L", 0, 0, "red", "leader", {}), ("far", 11, 7, "red", "squad_member", {}),
               ("hid", 0, 4, "red", "squad_member", {})], terrain=[("smoke", "smoke", [(0, 2)])])
    r = AM.resolve("command", s, None, ScriptedDice(), {"leader": "L", "give": {"far": 2, "hid": 1}})
    assert [e.kind for e in r.events] == ["command", "command_refused"]
    assert r.extra["leader_points_left"] == 4 and r.extra["given"] == {"far": 2}
    assert r.events[1].data["reason"] == "no_line_of_sight"


# ----------------------------------------------------------------- terrain and sight

@pytest.mark.parametrize("kind, sees", [("rubble", True), ("foliage", True), ("water", True), ("lava", True),
                                        ("hedgerow", False), ("smoke", False), ("wall", False)])
def test_terrain_kinds_and_line_of_sight(kind, sees):
    """"Difficult ... does not block line of sight / Blocking ... block movement but not line of sight /
    Concealing: cannot see through (hedgerow, smoke); blocks line of sight / Blocking & Concealing (walls);
    blocks movement and line of sight"."""
    s = scene([("R", 0, 1, "red", "squad_member", {"weapons": ["bow"]}), ("S", 6, 1, "blue", "squad_member", {})],
              terrain=[("t", kind, [(3, 1)])])
    r = AM.resolve("attack", s, "red", ScriptedDice({"R": [1], "S": [6]}),
                   {"attacks": [{"attacker": "R", "target": "S"}]})
    assert (r.events[0].kind != "attack_illegal") is sees


def test_range_in_spaces():
    """"1-handed, ranged thrown, small - range 3"."""
    s = scene([("R", 0, 1, "red", "squad_member", {"weapons": ["knife"]}), ("S", 4, 1, "blue", "squad_member", {})])
    r = AM.resolve("attack", s, "red", ScriptedDice(), {"attacks": [{"attacker": "R", "target": "S"}]})
    assert r.events[0].data["reason"] == "out_of_range" and r.events[0].data["spaces"] == 4


# ----------------------------------------------------------------- initiative

def test_initiative_highest_chooses_tie_keeps_holder():
    """"Whoever has highest roll gets to choose whether they go first or second this turn. If there's a tie,
    then whoever had initiative last turn keeps it this turn"."""
    assert initiative_winner({"red": 5, "blue": 3}, "blue") == "red"
    assert initiative_winner({"red": 4, "blue": 4}, "blue") == "blue"
    assert initiative_winner({"red": 4, "blue": 4}, None) is None


def test_initiative_leader_point_and_commanding_stance():
    """"each team rolls 1d6; leaders may add +1 action point"; "Commanding +1 to initiative roll"."""
    s = scene([("L", 0, 0, "red", "leader", {"stance": "commanding"}), ("b", 5, 5, "blue", "leader", {})])
    r = AM.resolve("initiative", s, None, ScriptedDice({"red": [2], "blue": [3]}), {"leader_points": {"red": 1}})
    assert r.extra["initiative"] == "red" and r.events[-1].data["totals"] == {"blue": 3, "red": 4}


# ----------------------------------------------------------------- data and goldens

def test_house_defaults_are_listed():
    keys = {h.key for h in AM.house_defaults()}
    assert {"combat.behind_arc_deg", "combat.range_metric", "sight.figures_block", "terrain.woods.difficult"} <= keys


def test_a_golden_scenario_per_step():
    steps = {json.loads(p.read_text())["step"] for p in SCENARIOS.glob("*.json")
             if not p.name.endswith(".expected.json")}
    assert steps == set(AM.steps)


@pytest.mark.parametrize("change, message", [
    ({"attacks": [{"attacker": "A", "target": "D", "weapon": "wand"}]}, "figure 'A' does not carry 'wand'"),
    ({"attacks": [{"attacker": "A"}]}, "attacks[0]: missing key 'target'"),
    ({"attacks": [{"attacker": "A", "target": "L"}]}, "attacks[0]: A and L are on the same side"),
    ({"step": "command", "leader": "A", "give": {}}, "leader: A is a squad_member, not a leader"),
    ({"step": "move", "figure": "A", "path": [[5]]}, "path[0]: expected [col, row]"),
])
def test_bad_scenarios_give_one_line(tmp_path, capsys, change, message):
    from assistant.cli import main
    base = json.loads((SCENARIOS / "attack_leader_tie_break.json").read_text())
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**base, **change}))
    assert main(["resolve", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
