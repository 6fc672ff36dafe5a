"""The guided turn of SMART, KremlinMiniatures and AnyMinis! through the API, dice typed in.

Each expected outcome is written from the rule text (quoted); the demo table's figures are read in
each system through assistant/rules/type_map.toml (Robin and Marian archers, Sir Bors a knight in
contact with Goblin 4, ...).
"""
from __future__ import annotations

import io
import re


from tests.assistant.web.moved_photos import demo_photo_with

FORBIDDEN = re.compile(r"\b(initiative|attacker|groups?\b|group\(s\)|condition [AB]\b|fv)\b", re.IGNORECASE)


def prompt(client):
    return client.get("/api/game").get_json()


def words_of(p) -> str:
    return " ".join([str(p.get("title") or ""), str(p.get("text") or "")] + [str(x) for x in p.get("lines") or []])


def start(client, pin, system):
    assert client.post("/api/setup/system", json={"name": system}, headers=pin).status_code == 200
    res = client.post("/api/game/new", headers=pin)
    assert res.status_code == 200, res.get_json()
    return res.get_json()


def roll(client, pin, value):
    res = client.post("/api/game/roll", json={"value": value}, headers=pin)
    assert res.status_code == 200, res.get_json()
    return res.get_json()["prompt"]


def nxt(client, pin):
    res = client.post("/api/game/next", headers=pin)
    assert res.status_code == 200, res.get_json()
    return res.get_json()


def upload(client, pin, jpeg: bytes):
    res = client.post("/api/photo", data={"photo": (io.BytesIO(jpeg), "table.jpg")}, headers=pin,
                      content_type="multipart/form-data")
    assert res.status_code == 200, res.get_json()


def play_until(client, pin, phase, dice, seen):
    """Tap what each prompt offers (dice from `dice` in order) until the game reaches `phase`'s first roll."""
    for _ in range(60):
        p = prompt(client)
        seen.append(p)
        if p["kind"] == "roll" and p["game"]["phase"] == phase:
            return p
        if p["kind"] == "roll":
            roll(client, pin, dice.pop(0))
        else:
            nxt(client, pin)
    raise AssertionError(f"never reached {phase}")


def test_smart_turn_with_typed_dice(client, pin):
    seen = [start(client, pin, "smart")]
    # "Each player rolls a d20. The highest number moves their miniatures first".
    p = prompt(client)
    assert p["kind"] == "roll" and p["sides"] == 20 and p["game"]["phase"] == "initiative"
    roll(client, pin, 5)                        # blue (sides in name order)
    out = roll(client, pin, 19)                 # red
    assert out["kind"] == "outcome" and out["lines"] == ["Blue rolled 5, Red rolled 19: Red goes first."]
    assert nxt(client, pin)["title"] == "Red side: move!"
    # Robin (archer, foot) at 14.5, 21.5 on the demo table: the closest enemy is Goblin 2, behind the woods.
    # "If there is intervening terrain ... If one rolls a 1-10, the arrow or bolt hits that obstacle
    # instead": the woods are a risk, never a block (SMART's target policy).
    p = play_until(client, pin, "missile", [], seen)
    assert p["title"].startswith("Robin shoots at Goblin 2: the closest enemy it can see and reach")
    assert p["sides"] == 20 and p["highlight"] == {"from": "m10", "to": ["m21"], "kind": "shot"}
    assert p["lines"] == ["In the way: the woods. A die says if it stops the shot."]     # who may shoot whom, and why
    # "The base chance to hit an opponent is a roll of 11 or higher" (Grak is inside the 30" effective range).
    out = roll(client, pin, 10)
    assert out["kind"] == "outcome" and any("10, needs 11: miss" in line for line in out["lines"])
    p = nxt(client, pin)
    assert p["title"].startswith("Marian shoots at Goblin 1")
    out = roll(client, pin, 11)
    assert any("11, needs 11: hit" in line for line in out["lines"])
    seen += [p, out]
    # Hand-to-hand: Sir Bors and Goblin 4 are in base contact; "If one hits, then they score 1 point of damage".
    p = play_until(client, pin, "melee", [1, 1, 1, 1], seen)
    assert "Sir Bors and Goblin 4 fight" in p["title"]
    for _ in range(2):
        out = roll(client, pin, 20)
    assert out["kind"] == "outcome"
    assert any("Sir Bors (lance) strikes at Goblin 4: 20, hit." == line for line in out["lines"])
    seen.append(out)
    assert nxt(client, pin)["game"]["turn"] == 2
    assert not [words_of(s) for s in seen if FORBIDDEN.search(words_of(s))]


def test_kremlin_turn_with_typed_dice(client, pin):
    seen = [start(client, pin, "kremlin")]
    # "CinCs roll 1d6, highest score wins (re-roll ties)".
    roll(client, pin, 3)
    out = roll(client, pin, 3)
    assert out["kind"] == "roll" and out["sides"] == 6          # a tie: both roll again
    roll(client, pin, 2)
    out = roll(client, pin, 5)
    assert out["kind"] == "outcome" and out["lines"][-1].endswith("Red goes first.")
    p = play_until(client, pin, "melee", [], seen)
    # Sir Bors (heavy cavalry) touches Goblin 4 (light infantry): "Roll 1d6 per base in the unit to determine
    # the number of hits on the target", then the target "rolls it's armour save".
    assert p["title"] == "Sir Bors and Goblin 4 are in contact: they fight."
    dice = [6, 1, 1]                # Sir Bors hits, Goblin 4 fails its save; Goblin 4 misses
    while p["kind"] == "roll":
        p = roll(client, pin, dice.pop(0) if dice else 1)
    assert p["kind"] == "outcome"
    assert any(line.startswith("Sir Bors rolls 1 dice [6]: 1 hit(s)") for line in p["lines"])
    assert "m24" in p["remove"] and p["title"] == "Take Goblin 4 off the table."
    seen.append(p)
    assert not [words_of(s) for s in seen if FORBIDDEN.search(words_of(s))]


def test_anyminis_turn_with_typed_dice(client, pin):
    seen = [start(client, pin, "anyminis")]
    # "each team rolls 1d6"; "If there's a tie, then whoever had initiative last turn keeps it" - nobody
    # had it on turn 1, so the tie is rolled again.
    roll(client, pin, 4)
    assert roll(client, pin, 4)["kind"] == "roll"
    roll(client, pin, 6)
    out = roll(client, pin, 1)
    assert out["lines"][-1].endswith("Blue goes first.")
    assert out["title"] == "Blue goes first."
    assert out["lines"][0] == "Blue rolled 4, Red rolled 4: a tie, roll again."
    p = play_until(client, pin, "attack", [], seen)
    # Blue acts first. Goblin 3's bow ("ranged launched, small - range 10, 1d3+1 damage") at Ann: 10.4 inches
    # centre to centre, within 10 spaces as AnyMinis! counts range (its target policy: spaces, diagonals one).
    assert p["title"] == "Goblin 3 shoots at Ann: the closest enemy it can see and reach (10.4 in)."
    assert p["purpose"] == "hit roll" and p["sides"] == 6
    p = roll(client, pin, 2)
    assert p["purpose"] == "defence roll"
    # "The defender rolls 1d3" (a d6 read as 1-3: 1, 4-5: 2, 6: 3); "Ties go to the defender".
    out = roll(client, pin, 4)
    assert out["kind"] == "outcome" and out["lines"] == ["Goblin 3 rolls 2 (2) against Ann's 2 (d3 2): "
                                                         "a tie goes to the defender."]
    seen.append(out)
    assert not [words_of(s) for s in seen if FORBIDDEN.search(words_of(s))]


def test_a_move_too_far_on_the_new_picture_is_said_and_can_be_accepted(client, pin):
    start(client, pin, "smart")
    roll(client, pin, 5)
    roll(client, pin, 19)                       # red moves first
    p = nxt(client, pin)
    assert p["kind"] == "do" and p["photo"] is True
    # "FOOT SOLDIERS ... move 6 inches in one turn": Robin the archer moved 9 inches.
    upload(client, pin, demo_photo_with(((10, 5.5, 21.5),)))
    p = nxt(client, pin)
    assert p["kind"] == "check" and p["title"] == "Robin moved 9.0 inches, but may move only 6."
    assert p["ring"] == ["m10"] and p["accept"] == "Accept anyway"
    # Tried again with the same picture: still too far.
    assert nxt(client, pin)["kind"] == "check"
    res = client.post("/api/game/accept", headers=pin)
    assert res.status_code == 200
    p = res.get_json()
    assert p["kind"] == "outcome" and p["title"] == "Red side has moved (accepted as it is)."
    with_log = client.get("/api/game").get_json()["game"]["file"]
    assert with_log


def test_a_move_within_the_allowance_is_measured(client, pin):
    start(client, pin, "smart")
    roll(client, pin, 5)
    roll(client, pin, 19)
    nxt(client, pin)
    upload(client, pin, demo_photo_with(((10, 10.5, 21.5),)))      # Robin 4 inches west
    p = nxt(client, pin)
    assert p["kind"] == "outcome" and p["lines"] == ["Robin moved 4.0 inches (may move 6)."]


def test_the_wrong_figure_taken_off_is_said(client, pin):
    start(client, pin, "kremlin")
    for v in (2, 5):
        roll(client, pin, v)
    p = play_until(client, pin, "melee", [], [])
    for v in (6, 1, 1):
        p = roll(client, pin, v)
    assert p["remove"] == ["m24"]
    # Goblin 1 (m20) taken off instead of Goblin 4 (m24).
    upload(client, pin, demo_photo_with((), (20,)))
    p = nxt(client, pin)
    assert p["kind"] == "check"
    lines = [p["title"], *p["lines"]]
    assert "Goblin 4 should be off the table, but I can still see it." in lines
    assert "I can't see Goblin 1 any more. Is it still on the table?" in lines
    assert set(p["ring"]) == {"m20", "m24"}


def test_switching_system_mid_game_asks_first_and_types_follow_the_system(client, pin):
    client.post("/api/game/new", headers=pin)                   # KIMMIRIA
    res = client.post("/api/setup/system", json={"name": "smart"}, headers=pin)
    assert res.status_code == 409 and res.get_json()["confirm"] is True
    assert client.get("/api/systems").get_json()["current"] == "kimmiria"
    res = client.post("/api/setup/system", json={"name": "smart", "confirm": True}, headers=pin)
    assert res.status_code == 200
    assert prompt(client)["kind"] == "start"
    # The referee's targets: no "unknown figure type 'wizard'" under SMART (Merlin reads as infantry).
    res = client.get("/api/targets")
    assert res.status_code == 200, res.get_json()
    merlin = next(f for f in client.get("/api/scene").get_json()["scene"]["figures"] if f["id"] == "m12")
    assert merlin["type"] == "infantry"


def test_undo_takes_back_the_last_die_of_a_guided_turn(client, pin):
    start(client, pin, "smart")
    roll(client, pin, 5)
    out = roll(client, pin, 19)                 # finishes who goes first
    assert out["kind"] == "outcome"
    res = client.post("/api/game/undo", headers=pin)
    assert res.status_code == 200
    p = res.get_json()
    assert p["kind"] == "roll" and p["game"]["rolls"] == [5] and p["side"] == "red"
    assert roll(client, pin, 2)["lines"] == ["Blue rolled 5, Red rolled 2: Blue goes first."]


def _attack_prompts(client, pin, until_turn=2):
    """Every prompt of the first attack phase and its outcomes, dice of 5 typed in, Next tapped on the rest."""
    out, p = [], prompt(client)
    for _ in range(80):
        if p["game"]["turn"] >= until_turn or p["kind"] in ("over", "start"):
            return out
        if p["game"]["phase"] == "attack" or p.get("step") in ("attack", "spell"):   # the last outcome is headed by
            out.append(p)                                                    # the next turn's phase
        p = roll(client, pin, 5) if p["kind"] == "roll" else nxt(client, pin)
    raise AssertionError("the attack phase never ended")


def test_anyminis_spellcaster_casts_its_attack_spell(client, pin):
    """"Fireball: ranged thrown, large - range 6, 1d6 damage": Merlin (a wizard, read in AnyMinis! as a
    hero with the house's three spells) stands within 6 spaces of Goblin 1 and did not move this turn."""
    upload(client, pin, demo_photo_with(((12, 17.5, 12.5),)))           # Merlin, 5 spaces from Goblin 1
    start(client, pin, "anyminis")
    for value in (6, 1):                                                # blue 6, red 1: blue goes first
        roll(client, pin, value)
    attacks = _attack_prompts(client, pin)
    cast = [p for p in attacks if p["title"].startswith("Merlin casts")]
    assert cast and cast[0]["title"] == ("Merlin casts fireball at Goblin 1: the closest enemy it can see and "
                                         "reach (5 spaces).")
    assert cast[0]["purpose"] == "hit roll" and cast[0]["highlight"]["to"] == ["m20"]
    outcome = next(p for p in attacks[attacks.index(cast[-1]) + 1:] if p["kind"] == "outcome")
    assert any(line.startswith("Merlin casts fireball") for line in outcome["lines"])


def test_anyminis_caster_that_moved_does_not_cast(client, pin):
    """"Figures can't cast a spell at move in the same turn (unless tagged as such)"."""
    upload(client, pin, demo_photo_with(((12, 17.5, 12.5),)))
    start(client, pin, "anyminis")
    for value in (1, 6):                                                # red goes first and moves Merlin
        roll(client, pin, value)
    nxt(client, pin)                                                    # the outcome read
    upload(client, pin, demo_photo_with(((12, 18.5, 12.5),)))           # Merlin steps 1 inch
    assert nxt(client, pin)["title"] == "Red side has moved."                # 1 inch: within his 5 spaces
    assert not [p for p in _attack_prompts(client, pin) if p["title"].startswith("Merlin casts")]


def test_kremlin_king_killed_sends_his_units_to_a_morale_test(client, pin):
    """"When a king is killed all units under his command must take an immediate morale test"; "To pass a
    test the unit must roll less than the number of bases in the unit": a unit of one base never passes,
    and "Fail morale test = the unit routs off table (counts as destroyed)"."""
    assert client.put("/api/roster/m13", json={"type": "king"}, headers=pin).status_code == 200   # Sir Bors
    start(client, pin, "kremlin")
    for value in (2, 5):                                # red goes first
        roll(client, pin, value)
    p = play_until(client, pin, "melee", [], [])
    while p["kind"] == "roll":                          # Sir Bors misses and fails his save; Goblin 4 hits
        p = roll(client, pin, 1 if p["who"] == "m13" else 6)
    assert p["kind"] == "outcome" and p["remove"] == ["m13"]
    tests = []
    p = nxt(client, pin)
    while p["kind"] == "roll" and p["purpose"] == "morale":
        tests.append(p["title"])
        assert p["text"].endswith("to see if it stands firm.")
        out = roll(client, pin, 6)                      # a 6 is never under 1 base, with any modifier here
        assert out["kind"] == "outcome" and out["remove"] == [p["who"]] and "routs off the table" in out["lines"][0]
        p = nxt(client, pin)
    # Merlin and Ann are generals acting alone ("immune from morale"); the other red units test at once.
    assert tests == [f"{n} must take a morale test: its king has fallen." for n in ("Robin", "Marian", "Tom")]
    assert p["game"]["phase"] == "initiative" and p["game"]["turn"] == 2
