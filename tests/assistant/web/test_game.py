"""Kids' mode through the API: one prompt at a time, dice typed in or rolled, checked against the rules."""
from __future__ import annotations

import pytest

from assistant.rules import get_system
from assistant.rules.dice import ScriptedDice
from assistant.web import create_app
from measure.scene import scene_from_json

# The demo's first volley under the house ranges: Robin at Grak (Goblin 2 is nearer, behind the woods),
# Marian at Goblin 1, Goblin 3 at Ann, then the wizard: Merlin at Goblin 3 (Ann's base is in the way of
# his full ruler to Goblin 1). Snag's only enemy in range, Sir Bors, is engaged.
VOLLEY = ["Robin shoots at Grak!", "Grak tries to dodge!", "Marian shoots at Goblin 1!", "Goblin 1 tries to dodge!",
          "Goblin 3 shoots at Ann!", "Ann tries to dodge!", "Merlin shoots at Goblin 3!", "Goblin 3 tries to dodge!"]
DICE = [2, 5, 6, 2, 3, 5, 5, 1]     # Grak safe, Goblin 1 hit, Ann safe, Goblin 3 hit
MISSES = [1, 6] * 4                 # every shot misses


def prompt(client):
    return client.get("/api/game").get_json()


def roll(client, pin, value=None):
    res = client.post("/api/game/roll", json={} if value is None else {"value": value}, headers=pin)
    assert res.status_code == 200, res.get_json()
    return res.get_json()


def volley(client, pin, dice=MISSES):
    for value in dice:
        roll(client, pin, value)
    assert prompt(client)["kind"] == "outcome"


def test_before_a_game_the_prompt_offers_one(client):
    p = prompt(client)
    assert p["kind"] == "start" and p["game"] is None and "New game" in p["button"]


def test_missile_step_prompts_use_names_and_match_the_rules(client, pin):
    scene_json = client.get("/api/scene").get_json()["scene"]
    assert client.post("/api/game/new", headers=pin).status_code == 200
    seen = []
    for value in DICE:
        p = prompt(client)
        assert p["kind"] == "roll" and p["sides"] == 6
        seen.append((p["title"], p["text"], p["highlight"]))
        roll(client, pin, value)
    assert [title for title, _, _ in seen] == VOLLEY
    assert seen[0][1] == "Red player: roll a die for Robin."
    assert seen[0][2] == {"from": "m10", "to": ["m23"], "kind": "shot"}
    assert seen[2][1] == "Red player: roll a die for Marian."
    assert seen[2][2] == {"from": "m11", "to": ["m20"], "kind": "shot"}
    assert seen[3][1].startswith("Marian rolled 6. Blue player")
    assert seen[6][2] == {"from": "m12", "to": ["m22"], "kind": "shot"}
    # The same dice through the rules directly give the same fallen figures.
    system = get_system("kimmiria")
    expected = system.resolve("missile", scene_from_json(scene_json), None, ScriptedDice(DICE), {})
    out = prompt(client)
    assert out["kind"] == "outcome" and out["step"] == "missile"
    assert out["remove"] == list(expected.removed) == ["m20", "m22"]
    assert out["title"] == "Take Goblin 1 and Goblin 3 off the table after all the arrows and magic."
    assert "Robin rolled 2, Grak rolled 5 +2 armour = 7: Grak is safe." in out["lines"]
    assert "Marian rolled 6, Goblin 1 rolled 2 +1 armour = 3: a hit! Goblin 1 falls." in out["lines"]
    assert "Goblin 3 rolled 3, Ann rolled 5 +1 armour = 6: Ann is safe." in out["lines"]
    assert "Merlin rolled 5, Goblin 3 rolled 1: a hit! Goblin 3 falls." in out["lines"]
    assert out["say"].startswith("Take Goblin 1 and Goblin 3 off the table")
    assert out["lines"][-1] == "Snag has no enemy in sight and in range."
    # The fallen leave the scene every page sees.
    scene = client.get("/api/scene").get_json()
    assert scene["removed"] == ["m20", "m22"] and not {"m20", "m22"} & {f["id"] for f in scene["scene"]["figures"]}
    # Next: initiative, one die per side.
    nxt = client.post("/api/game/next", headers=pin).get_json()
    assert nxt["kind"] == "roll" and nxt["purpose"] == "initiative" and nxt["game"]["phase"] == "initiative"


def test_virtual_die_rolls_for_the_player(client, pin):
    client.post("/api/game/new", headers=pin)
    out = roll(client, pin)
    assert 1 <= out["rolled"]["value"] <= 6 and out["rolled"]["sides"] == 6
    assert out["prompt"]["game"]["rolls"] == [out["rolled"]["value"]]


def test_undo_takes_back_the_last_die_even_after_the_step_finished(client, pin):
    client.post("/api/game/new", headers=pin)
    first = prompt(client)
    roll(client, pin, 4)
    after = client.post("/api/game/undo", headers=pin).get_json()
    assert after["title"] == first["title"] and after["game"]["rolls"] == [] and not after["game"]["can_undo"]
    for v in DICE:
        roll(client, pin, v)
    assert prompt(client)["kind"] == "outcome"
    back = client.post("/api/game/undo", headers=pin).get_json()
    assert back["kind"] == "roll" and back["title"] == "Goblin 3 tries to dodge!" and back["game"]["rolls"] == DICE[:-1]
    roll(client, pin, 6)                                              # Goblin 3 dodges Merlin's spell this time
    assert prompt(client)["remove"] == ["m20"]


@pytest.mark.parametrize("value, status, words", [(7, 400, "1 to 6"), (0, 400, "1 to 6"), ("six", 400, "1 to 6"),
                                                  (True, 400, "1 to 6")])
def test_impossible_dice_are_400(client, pin, value, status, words):
    client.post("/api/game/new", headers=pin)
    res = client.post("/api/game/roll", json={"value": value}, headers=pin)
    assert res.status_code == status and words in res.get_json()["error"]


def test_actions_out_of_turn_are_409(client, pin):
    assert client.post("/api/game/roll", json={"value": 3}, headers=pin).status_code == 409      # no game
    assert client.post("/api/game/next", headers=pin).status_code == 409
    assert client.post("/api/game/undo", headers=pin).status_code == 409
    client.post("/api/game/new", headers=pin)
    # The first volley wants a die: nothing to undo yet, and no going on without it.
    assert client.post("/api/game/undo", headers=pin).status_code == 409
    res = client.post("/api/game/next", headers=pin)
    assert res.status_code == 409 and "waiting for a die" in res.get_json()["error"]
    volley(client, pin)
    # Every shot missed: the missile outcome shows, no die is wanted.
    p = prompt(client)
    assert p["kind"] == "outcome" and p["title"] == "Nobody was hit." and p["remove"] == []
    res = client.post("/api/game/roll", json={"value": 3}, headers=pin)
    assert res.status_code == 409 and "no die" in res.get_json()["error"]


def test_a_whole_turn_reaches_the_next_missile_fire(client, pin):
    from assistant.web.words import FORBIDDEN_IN_PROMPTS
    seen = []

    def prompt_now():
        p = prompt(client)
        seen.append(p)
        return p

    client.post("/api/game/new", headers=pin)
    volley(client, pin)                                              # every arrow and spell misses
    client.post("/api/game/next", headers=pin)                       # missile outcome read
    roll(client, pin, 5)                                             # red initiative
    roll(client, pin, 2)                                             # blue initiative
    p = prompt_now()
    assert p["kind"] == "outcome" and p["title"] == "Red goes first!"
    assert p["lines"] == ["Red rolled 5, Blue rolled 2: Red goes first and moves."]
    client.post("/api/game/next", headers=pin)
    p = prompt_now()
    assert p["purpose"] == "groups to move" and p["title"] == "Red moves this turn!"
    red = {f["id"] for f in client.get("/api/scene").get_json()["scene"]["figures"] if f["side"] == "red"}
    assert {f for g in p["groups"] for f in g} == red                # every red figure in one drawn group
    roll(client, pin, 3)
    p = prompt_now()
    assert p["title"] == "Red may move 3 groups."
    client.post("/api/game/next", headers=pin)
    p = prompt_now()
    assert p["kind"] == "do" and p["title"] == "Red side: move!" and "up to 3 groups" in p["text"]
    assert p["groups"]
    client.post("/api/game/next", headers=pin)                       # nobody moved on the demo photo
    # Sir Bors and Goblin 4 touch: melee, one die each, in scene order; both named and ringed.
    p = prompt_now()
    assert p["purpose"] == "melee" and {p["who"]} <= {"m13", "m24"}
    assert p["title"] in ("Sir Bors fights Goblin 4!", "Goblin 4 fights Sir Bors!")
    assert {p["highlight"]["from"], *p["highlight"]["to"]} == {"m13", "m24"}
    first = p["who"]
    roll(client, pin, 6)
    p = prompt_now()
    assert p["dice"] == {first: 6}                                   # the die shown by its figure
    roll(client, pin, 1)
    p = prompt_now()
    assert p["kind"] == "outcome" and p["step"] == "melee" and len(p["remove"]) == 1
    assert sorted(p["dice"].values()) == [1, 6]
    assert any("fights" in line and "falls" in line for line in p["lines"])
    client.post("/api/game/next", headers=pin)
    # The winner may step into the fallen figure's space.
    p = prompt_now()
    assert p["kind"] == "do" and p["title"] == "Free moves" and "into Goblin 4's empty space" in p["lines"][0]
    client.post("/api/game/next", headers=pin)
    p = prompt_now()
    assert p["step"] == "victory" and p["kind"] == "outcome" and p["title"] == "No winner yet: on to the next turn!"
    assert p["game"]["turn"] == 1                                    # turn 1's verdict is headed turn 1
    client.post("/api/game/next", headers=pin)
    assert prompt_now()["game"]["turn"] == 2
    for p in seen:
        words = " ".join([p.get("title", ""), p.get("text", ""), *p.get("lines", []), p.get("say", "")])
        assert not FORBIDDEN_IN_PROMPTS.search(words), words


def test_the_game_survives_a_restart(tmp_path, pin):
    config = {"DEMO": True, "INSTANCE_PATH": str(tmp_path), "TABLE_PIN": "2468", "SECRET_KEY": "k"}
    c1 = create_app(config).test_client()
    c1.post("/api/game/new", headers=pin)
    roll(c1, pin, 6)
    roll(c1, pin, 2)
    before = prompt(c1)
    c2 = create_app(config).test_client()               # the plug was pulled; same instance folder
    after = prompt(c2)
    assert after == before and after["title"] == "Marian shoots at Goblin 1!"


def test_a_changed_house_range_reaches_the_next_game(client, pin):
    """Shorter bows (10", a house number): Grak (11.4" from Robin) is out of reach, so Marian shoots first."""
    res = client.put("/api/setup/house", json={"key": "figure_types.archer.range", "value": 10.0}, headers=pin)
    assert res.status_code == 200
    client.post("/api/game/new", headers=pin)
    assert prompt(client)["title"] == "Marian shoots at Goblin 1!"


def test_new_game_starts_a_new_log_file(client, pin):
    client.post("/api/game/new", headers=pin)
    first = prompt(client)["game"]["file"]
    client.post("/api/game/new", headers=pin)
    assert prompt(client)["game"]["file"] != first


def test_new_game_with_a_figure_of_unknown_type_is_400(app, client, pin):
    assert client.put("/api/roster/m14", json={"type": "dragon"}, headers=pin).status_code == 400
    # A type already in the settings log (written by an older version) still gives a 400, no broken game.
    store = app.extensions["tablesight"]["settings"]
    with store._lock:
        store._append("roster", {"figure": "m14", "fields": {"type": "dragon"}})
    res = client.post("/api/game/new", headers=pin)
    assert res.status_code == 400 and "dragon" in res.get_json()["error"]
    assert prompt(client)["kind"] == "start"                          # no broken game left behind


def test_new_game_needs_a_picture(tmp_path, pin):
    from assistant.demo import DEMO_TABLE
    c = create_app({"TABLE": str(DEMO_TABLE), "INSTANCE_PATH": str(tmp_path), "TABLE_PIN": "2468"}).test_client()
    res = c.post("/api/game/new", headers=pin)
    assert res.status_code == 409 and "photo" in res.get_json()["error"]


def _to_move_phase(client, pin):
    client.post("/api/game/new", headers=pin)
    volley(client, pin)                                              # every shot missed
    client.post("/api/game/next", headers=pin)
    roll(client, pin, 6)                                             # red wins the initiative
    roll(client, pin, 1)
    client.post("/api/game/next", headers=pin)
    roll(client, pin, 2)                                             # groups
    client.post("/api/game/next", headers=pin)
    assert prompt(client)["kind"] == "do"


@pytest.mark.parametrize("dx_in, legal", [(2.0, True), (9.0, False)])
def test_moves_seen_in_the_new_picture_are_checked_by_the_rules(app, client, pin, dx_in, legal):
    """Tom (a troop, 3" a turn) moves on the real table; the next picture shows where he went."""
    from dataclasses import replace

    from assistant.web import context, game
    _to_move_phase(client, pin)
    with app.app_context():
        scene = context.scene(with_removed=True)
        tom = scene.figure("m14")
        moved = scene.with_figures([replace(f, x=f.x + dx_in) if f.id == "m14" else f for f in scene.figures])
        game.acknowledge(context.games(), moved)
    p = prompt(client)
    if legal:
        from assistant.rules.kimmiria_game import KimmiriaGame
        assert p["kind"] != "do" and p["game"]["phase"] != "move"
        with app.app_context():
            log = context.games().open_current()
            try:
                where = {f["id"]: f["x"] for f in KimmiriaGame(log).state().scene["figures"]}
            finally:
                log.close()
        assert where["m14"] == pytest.approx(tom.x + dx_in, abs=1e-3)     # the game follows the table
    else:
        assert p["kind"] == "outcome" and p["title"].startswith("That move is not allowed")
        assert any("Tom cannot move there" in line for line in p["lines"])
        client.post("/api/game/next", headers=pin)
        assert prompt(client)["kind"] == "do"                          # put him back and try again


def test_a_new_game_brings_back_the_fallen_of_the_last_one(client, pin):
    client.post("/api/game/new", headers=pin)
    for value in (2, 5, 6, 2, 3, 5, 5, 1):          # Goblin 1 and Goblin 3 fall to the first volley
        roll(client, pin, value)
    assert prompt(client)["remove"] == ["m20", "m22"]
    client.post("/api/game/next", headers=pin)
    assert len(client.get("/api/scene").get_json()["scene"]["figures"]) == 10
    client.post("/api/game/new", headers=pin)
    assert len(client.get("/api/scene").get_json()["scene"]["figures"]) == 12
    assert prompt(client)["title"] == "Robin shoots at Grak!"
