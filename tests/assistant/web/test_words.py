"""Plain words: names instead of ids, calibration status a grown-up can act on, dice with modifiers."""
from __future__ import annotations

import pytest

from assistant.web.game import _die_words, _say
from assistant.web.table import Calibration
from assistant.web.words import calibration_words, name_list, with_names

NAMES = {"m1": "Ann", "m10": "Robin", "m12": "Merlin", "red": "Red"}


@pytest.mark.parametrize("text, expected", [
    ("m10 shoots m1.", "Robin shoots Ann."),
    ("m1, m10 and m12", "Ann, Robin and Merlin"),
    ("m100 is not m10", "m100 is not Robin"),                 # whole ids only
    ("red wins (6)", "Red wins (6)"),
    ("tired troops", "tired troops"),                           # not inside a word
    ("m10's arrow", "Robin's arrow"),
])
def test_with_names(text, expected):
    assert with_names(text, NAMES) == expected


@pytest.mark.parametrize("names, expected", [([], ""), (["A"], "A"), (["A", "B"], "A and B"),
                                             (["A", "B", "C"], "A, B and C")])
def test_name_list(names, expected):
    assert name_list(names) == expected


def _cal(**kw):
    base = dict(anchors_expected=(0, 1, 2, 3), anchors_seen=(0, 1, 2, 3), anchors_rejected=(), rms_px=0.4,
                grid_expected=False, grid_found=False)
    return Calibration(**{**base, **kw})


@pytest.mark.parametrize("cal, source, expected", [
    (_cal(), "none", "No picture yet"),
    (_cal(), "photo", "All 4 corner markers are in view."),
    (_cal(anchors_seen=(0, 2)), "photo", "2 of 4 corner markers are in view (missing: marker 1, 3)"),
    (_cal(anchors_rejected=(2,)), "live", "Marker 2 seems to have moved"),
    (_cal(rms_px=0.4), "photo", "fits the table very well"),
    (_cal(rms_px=3.2), "photo", "poorly: check the markers lie flat"),
    (_cal(grid_expected=True, grid_found=True), "photo", "The printed grid was found."),
    (_cal(grid_expected=True), "photo", "it was not found"),
    (_cal(anchors_seen=(), rms_px=None, problem="no anchor in view"), "photo", "could not be measured: no anchor"),
])
def test_calibration_words(cal, source, expected):
    assert any(expected in line for line in calibration_words(cal, source))


def test_calibration_words_name_markers_by_their_corner():
    from assistant.demo import DEMO_TABLE
    from calibration.profile import load_profile
    profile = load_profile(DEMO_TABLE)
    lines = calibration_words(_cal(anchors_seen=(0, 2), anchors_rejected=(2,)), "photo", profile)
    assert "missing: the top-right one and the bottom-left one" in lines[0]
    assert lines[1].startswith("The bottom-right one seems to have moved")
    problem = calibration_words(_cal(anchors_seen=(), rms_px=None, problem="I can't see it: is it there?"), "photo")
    assert problem == ["The last picture could not be measured: I can't see it: is it there?"]


@pytest.mark.parametrize("die, mods, total, expected", [
    (4, {}, 4, "4"), (2, {"armor_plus": 1}, 3, "2 +1 armour = 3"),
    (5, {"armor_plus": 2, "terrain": 1, "unpainted": -1}, 7, "5 +2 armour +1 cover -1 unpainted = 7")])
def test_die_words(die, mods, total, expected):
    assert _die_words(die, mods, total) == expected


def test_say_reads_title_text_and_lines_as_sentences():
    assert _say({"title": "Free moves", "text": "Tap Done.", "lines": ["Robin may move"]}) == \
        "Free moves. Tap Done. Robin may move."


@pytest.mark.parametrize("key, label", [
    ("figure_types.giant.fv", "Giant's fighting value"),
    ("figure_types.giant.armor_plus", "Giant's armour bonus"),
    ("figure_types.horse_archer.range", "Horse archer's shooting range (inches)"),
    ("terrain.water.cost", "Water: cost to cross"),
    ("play.group_gap_in", "A group: figures at most this far apart (inches)"),
    ("weapon_length.pike", "Length of a pike"),
])
def test_house_numbers_are_labelled_in_words(key, label):
    from assistant.web.words import house_label
    assert house_label(key) == label


def test_every_house_number_of_every_system_has_a_label_without_code_words():
    from assistant.rules import get_system, system_names
    from assistant.web.words import FORBIDDEN_IN_PROMPTS, house_label
    for name in system_names():
        for h in get_system(name).house_defaults():
            label = house_label(h.key)
            assert "_" not in label and "." not in label and not FORBIDDEN_IN_PROMPTS.search(label), (h.key, label)


@pytest.mark.parametrize("event, line", [
    ({"kind": "initiative", "text": "red wins the initiative (4) and is the attacker.", "rolls": {"blue": 2, "red": 4},
      "winner": "red"},
     "Red rolled 4, Blue rolled 2: Red goes first and moves."),
    ({"kind": "groups", "side": "blue", "roll": 1, "groups": 1}, "Blue rolled 1: move up to 1 group."),
    ({"kind": "initiative", "text": "red has the initiative (7) and chooses to go first or second.",
      "totals": {"red": 7, "blue": 3}, "winner": "red"}, "Red rolled 7, Blue rolled 3: Red wins the roll and chooses "
                                                         "to go first or second."),
    ({"kind": "initiative", "text": "blue wins the initiative (5).", "rolls": {"red": 2, "blue": 5}, "winner": "blue"},
     "Blue rolled 5, Red rolled 2: Blue goes first."),
    ({"kind": "initiative_tie", "rolls": {"red": 4, "blue": 4}}, "Red rolled 4, Blue rolled 4: the same! Roll again."),
    ({"kind": "initiative", "text": "Order of movement: blue, red.", "order": ["blue", "red"]},
     "Who moves first: Blue, then Red."),
    ({"kind": "melee_dice", "dice": {"m13": 5, "m24": 4}}, "Sir Bors rolled 5, Goblin 4 rolled 4."),
    ({"kind": "melee_kill", "figure": "m13", "target": "m24", "die": 5, "mods": {"fv": 3}, "total": 8,
      "target_die": 4, "target_mods": {"fv": 1, "terrain": 0}, "target_total": 5, "winner": "m13", "loser": "m24"},
     "Sir Bors (5 +3 fighting value = 8) fights Goblin 4 (4 +1 fighting value = 5): Sir Bors wins, Goblin 4 falls."),
    ({"kind": "no_victory", "condition": "A"}, ""),                  # the heading says it
    ({"kind": "victory", "winner": "blue", "condition": "B"}, ""),
])
def test_game_events_in_a_childs_words(event, line):
    from assistant.web.words import FORBIDDEN_IN_PROMPTS, event_line
    names = {"m13": "Sir Bors", "m24": "Goblin 4", "red": "Red", "blue": "Blue"}
    assert event_line(event, names) == line
    assert not FORBIDDEN_IN_PROMPTS.search(line)


@pytest.mark.parametrize("text", ["Blue wins the initiative (4) and is the attacker", "Move up to 3 group(s)",
                                  "No winner yet (condition A)", "giant fv"])
def test_the_forbidden_phrasings_are_caught(text):
    from assistant.web.words import FORBIDDEN_IN_PROMPTS
    assert FORBIDDEN_IN_PROMPTS.search(text)
