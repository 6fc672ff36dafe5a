"""Melee invariants on random little battles (hypothesis): the text's rules hold for any layout."""
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.rules import get_system
from assistant.rules.dice import ScriptedDice
from assistant.rules.kimmiria_board import enemy_contacts
from tests.assistant.rules.scenes import grid_scene

K = get_system("kimmiria")
TYPES = ["troop", "hero", "giant", "archer", "knight", "wizard"]


@st.composite
def battles(draw):
    cells = draw(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=2, max_size=10, unique=True))
    layout = {}
    for i, (c, r) in enumerate(cells):
        layout[f"f{i}"] = (c, r, draw(st.sampled_from(["red", "blue"])), draw(st.sampled_from(TYPES)),
                           draw(st.booleans()))
    dice = {fid: draw(st.integers(1, 6)) for fid in layout}
    attacker = draw(st.sampled_from(["red", "blue"]))
    return layout, dice, attacker


@settings(max_examples=120, deadline=None)
@given(battles())
def test_melee_invariants(battle):
    layout, dice, attacker = battle
    scene = grid_scene(layout, width=6, depth=5)
    foes = enemy_contacts(scene)
    out = K.resolve("melee", scene, attacker, ScriptedDice(dice), {})
    engaged = {f for f, t in foes.items() if t}
    # "Roll one die for each figure involved in the fight."
    assert Counter(r.who for r in out.rolls) == Counter(engaged)
    attacks = [e for e in out.events if e.kind in ("melee_kill", "melee_tie", "melee_repulsed")]
    # "the highest number rolled (usually sixes) goes and attacks first"
    assert [e.data["die"] for e in attacks] == sorted((e.data["die"] for e in attacks), reverse=True)
    fallen: set[str] = set()
    tied: list[tuple[str, str]] = []
    gang: Counter = Counter()
    for e in out.events:
        if e.kind in ("melee_kill", "melee_tie", "melee_repulsed"):
            # Fallen figures do not strike back, and are not struck again.
            assert e.data["figure"] not in fallen and e.data["target"] not in fallen
            # "You must be next to (across or corner to corner) the figure you are going to attack"
            assert e.data["target"] in foes[e.data["figure"]]
            # "you attack the figure across from you first" (a figure it tied with earlier this turn waits
            # for next turn, "Y and G are locked in melee for next round", so it does not count).
            if e.data["contact"] == "corner":
                me = e.data["figure"]
                waiting = {t for a, t in tied if a == me} | {a for a, t in tied if t == me}
                full = {t for t, n in gang.items() if n >= 6}     # "Up to six figures may attack a single enemy"
                assert "across" not in {foes[me][t] for t in foes[me]
                                        if t not in fallen and t not in waiting and t not in full}
            gang[e.data["target"]] += 1
        if e.kind == "melee_tie":
            tied.append((e.data["figure"], e.data["target"]))
        if e.kind == "melee_kill":
            winner_total = max(e.data["total"], e.data["target_total"])
            assert winner_total > min(e.data["total"], e.data["target_total"])   # "Highest number wins."
            fallen.add(e.data["loser"])
    assert fallen == set(out.removed)
    # "One figure may engage many figures but can only kill one figure."
    assert max(Counter(e.data["winner"] for e in out.events if e.kind == "melee_kill").values(), default=0) <= 1
    # Ties lock two living figures that touch.
    for a, b in out.extra["locked"]:
        assert a not in fallen and b not in fallen and b in foes[a]
    # The free moves are the attacker's, into spaces of fallen enemies.
    for p in out.prompts:
        assert p.data["into"] in fallen and all(scene.figure(f).side == attacker for f in p.options)
