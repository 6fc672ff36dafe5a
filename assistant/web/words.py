"""Plain words for the tablet: figure names instead of ids, calibration status, target reasons."""
from __future__ import annotations

import re
from collections.abc import Mapping

from measure.scene import Scene

from assistant.web.table import Calibration

REASON_WORDS = {
    "target": "closest one it can see: shoot this one",
    "tie": "just as close: a die picks between them",
    "engaged": "is fighting in a melee: you cannot shoot into a fight",
    "out_of_range": "too far away",
    "blocked": "cannot be seen",
    "farther": "can be seen, but another enemy is closer",
}

TERRAIN_WORDS = {"woods": "the woods", "rocks": "the rocks", "hill": "the hill", "water": "the water",
                 "wall": "the wall", "building": "the building"}


def side_word(side: str | None) -> str:
    return (side or "no side").replace("_", " ").title()


def figure_names(scene: Scene | Mapping | None) -> dict[str, str]:
    """Figure id -> the name players use (the roster's name, else the id)."""
    if scene is None:
        return {}
    if isinstance(scene, Scene):
        return {f.id: f.name or f.id for f in scene.figures}
    return {f["id"]: f.get("name") or f["id"] for f in scene.get("figures", [])}


def thing_names(scene: Scene | None) -> dict[str, str]:
    """Figure and terrain ids -> plain names ("Goblin 2", "the woods")."""
    names = figure_names(scene)
    if scene is not None:
        for t in scene.terrain:
            names[t.id] = TERRAIN_WORDS.get(t.kind, f"the {t.kind}")
    return names


def name_list(names: list[str]) -> str:
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def with_names(text: str, names: Mapping[str, str]) -> str:
    """Replace figure ids in a rules sentence by the figures' names ("m22 falls" -> "Goblin 3 falls")."""
    if not names:
        return text
    ids = sorted((i for i in names if names[i] != i), key=len, reverse=True)
    if not ids:
        return text
    pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(i) for i in ids) + r")(?![\w-])")
    return pattern.sub(lambda m: names[m.group(1)], text)


def _sentence(text: str) -> str:
    return text if text.rstrip()[-1:] in (".", "!", "?") else text + "."


def calibration_words(cal: Calibration, source: str, profile=None) -> list[str]:
    """The calibration status as short sentences a grown-up can act on.

    With the table profile, markers are named by their corner ("the top-left one"), not their number.
    """
    def where(ids) -> str:
        if profile is None or any(profile.anchor(i) is None for i in ids):
            return "marker " + ", ".join(map(str, ids))
        from assistant.web.hints import corner_words
        return name_list([f"the {corner_words(profile, profile.anchor(i).x_in, profile.anchor(i).y_in)} one"
                          for i in ids])

    lines = []
    if source == "none":
        return ["No picture yet: take a photo of the table or start the camera."]
    n_exp, n_seen = len(cal.anchors_expected), len(cal.anchors_seen)
    if cal.problem and n_seen == 0:
        lines.append(_sentence(f"The last picture could not be measured: {cal.problem}"))
        return lines
    if n_seen == n_exp:
        lines.append(f"All {n_exp} corner markers are in view.")
    else:
        missing = [a for a in cal.anchors_expected if a not in cal.anchors_seen]
        lines.append(f"{n_seen} of {n_exp} corner markers are in view (missing: {where(missing)}). "
                     "Measurements still work, but check nothing covers them.")
    if cal.anchors_rejected:
        moved = where(list(cal.anchors_rejected))
        lines.append(f"{moved[0].upper()}{moved[1:]} seems to have moved: put it back in its place.")
    if cal.rms_px is not None:
        quality = ("very well" if cal.rms_px < 1.0 else "well" if cal.rms_px < 2.5 else
                   "poorly: check the markers lie flat")
        lines.append(f"The picture fits the table {quality} (the markers agree within {cal.rms_px:.1f} pixels).")
    if cal.grid_expected:
        lines.append("The printed grid was found." if cal.grid_found else
                     "The table profile has a grid, but it was not found in the picture.")
    else:
        lines.append("No grid on this table: distances are measured in inches.")
    if cal.problem:
        lines.append(_sentence(f"Note: {cal.problem}"))
    return lines


# ---------------------------------------------------------------- house numbers in words

FIELD_WORDS = {
    "fv": "fighting value", "armor_plus": "armour bonus", "armor": "armour", "move": "move (inches)",
    "range": "shooting range (inches)", "attacks": "shots each turn", "shoots": "way of shooting", "weapon": "weapon",
    "cost": "cost to cross", "difficult": "slows figures down", "blocks_movement": "cannot be walked through",
    "conceals": "hides figures", "elevation": "height", "fight_dice": "fighting dice", "hit": "needed to hit",
    "save": "needed to save", "rating": "rating", "figures_per_base": "figures on one base",
    "group_gap_in": "a group: figures at most this far apart (inches)",
    "grid_diagonal_moves": "moves along the diagonals of the grid",
    "defence_bonus_in": "cover: this close behind terrain (inches)",
    "engaged_may_shoot": "figures in a fight may shoot", "open_table_engage_gap_in":
    "touching: bases at most this far apart (inches)", "measure_from": "measure from",
    "remove_first": "take figures off first", "difficult_kinds": "terrain that slows figures down",
    "behind_arc_deg": "behind a figure: the angle (degrees)", "range_metric": "how range is measured",
    "dodge_roll_needs_defence_point": "a dodge needs a defence point",
    "armor_type_needs_value": "armour type needs a value", "sight_width": "ruler width for sight (inches)",
    "leader_point_bonus_max": "most leader points added to the first roll",
    "tie_without_holder": "equal first rolls without a holder", "ties": "equal rolls",
    "monster_level": "monster level", "enabled": "used", "damage": "damage", "penalty_step_in":
    "a penalty every (inches)", "blocking_kinds": "terrain that blocks sight", "clear_kinds":
    "terrain that never blocks sight", "hill_kinds": "hills", "soft_kinds": "terrain you can see into",
    "soft_depth_in": "how far you can see into it (inches)", "figures_block": "figures block sight",
    "judge": "who decides about terrain",
}
GROUP_WORDS = {"figure_types": None, "terrain": None, "weapon_length": "length of a", "play": None,
               "sight": "Sight", "combat": "Fighting", "initiative": "Who goes first", "leaders": "Leaders",
               "projectiles": "Arrows and stones", "experience": "Experience", "faith": "Faith"}


def _title(word: str) -> str:
    word = word.replace("_", " ")
    return word[:1].upper() + word[1:]


def house_label(key: str) -> str:
    """A house number's key in words: "figure_types.giant.fv" -> "Giant's fighting value"."""
    parts = key.split(".")
    field = FIELD_WORDS.get(parts[-1], parts[-1].replace("_in", " (inches)").replace("_", " "))
    if len(parts) == 3 and parts[0] in ("figure_types", "terrain"):
        owner = _title(parts[1])
        return f"{owner}'s {field}" if parts[0] == "figure_types" else f"{owner}: {field}"
    if len(parts) == 2 and parts[0] == "weapon_length":
        return f"Length of a {parts[1].replace('_', ' ')}"
    if len(parts) == 2 and parts[0] == "terrain":
        return _title(field)
    if len(parts) == 2 and GROUP_WORDS.get(parts[0]):
        return f"{GROUP_WORDS[parts[0]]}: {field}"
    return _title(field)


# ---------------------------------------------------------------- the game's events, for a child

MOD_WORDS = {"fv": "fighting value", "armor_plus": "armour", "terrain": "cover", "unpainted": "unpainted"}


def die_words(die: object, mods: Mapping[str, int] | None, total: object) -> str:
    """"2" or "2 +1 armour = 3": the die as it fell, then what the rules add."""
    mods = {k: v for k, v in (mods or {}).items() if v}
    if not mods:
        return f"{die}"
    parts = " ".join(f"{v:+d} {MOD_WORDS.get(k, k.replace('_', ' '))}" for k, v in mods.items())
    return f"{die} {parts} = {total}"


def groups_words(n: object) -> str:
    """"1 group" / "3 groups" (a group is drawn on the picture)."""
    return f"{n} group" if n == 1 else f"{n} groups"


def event_line(e: Mapping[str, object], names: Mapping[str, str]) -> str | None:
    """A rules event as a sentence for a child, or None to keep the rules' own words.

    Never "initiative", "attacker", "condition A", "fv": who goes first, who moves, who won.
    """
    n = lambda fid: names.get(fid, side_word(fid) if fid in ("red", "blue") else fid)   # noqa: E731
    kind = e.get("kind")
    if kind in ("initiative", "initiative_tie", "initiative_rolls"):
        rolls = sorted(dict(e.get("rolls") or e.get("totals") or {}).items(), key=lambda sv: -sv[1])
        dice = ", ".join(f"{n(s)} rolled {v}" for s, v in rolls)      # the highest first
        if e.get("order"):
            return "Who moves first: " + ", then ".join(n(s) for s in e["order"]) + "."
        if kind == "initiative_tie" or (kind == "initiative_rolls" and len({v for _, v in rolls}) < len(rolls)):
            return f"{dice}: the same! Roll again." if dice else "The same! Roll again."
        if kind == "initiative_rolls":
            return f"{dice}." if dice else None
        winner = n(e.get("winner")) if e.get("winner") else (n(rolls[0][0]) if rolls else None)
        if winner is None:
            return None
        text = str(e.get("text", ""))
        then = (" and moves" if "attacker" in text else       # KIMMIRIA: who goes first moves
                " and chooses to go first or second" if "chooses" in text else "")
        kept = " (a tie, kept by the side that had it)" if e.get("kept_on_tie") else ""
        return f"{dice}: {winner} goes first{then}{kept}." if not then.startswith(" and chooses") else \
            f"{dice}: {winner} wins the roll{kept}{then}."
    if kind == "groups":
        return f"{n(e.get('side'))} rolled {e.get('roll')}: move up to {groups_words(e.get('groups'))}."
    if kind == "melee_dice":
        return None if not e.get("dice") else ", ".join(f"{n(f)} rolled {v}" for f, v in dict(e["dice"]).items()) + "."
    if kind in ("melee_kill", "melee_tie", "melee_repulsed"):
        me = f"{n(e.get('figure'))} ({die_words(e.get('die'), e.get('mods'), e.get('total'))})"
        them = f"{n(e.get('target'))} ({die_words(e.get('target_die'), e.get('target_mods'), e.get('target_total'))})"
        if kind == "melee_tie":
            return f"{me} fights {them}: the same! Nobody falls; they fight again next turn."
        if kind == "melee_repulsed":
            return (f"{me} fights {them}: {n(e.get('winner'))} wins but has already beaten someone, "
                    f"so {n(e.get('loser'))} is safe.")
        return f"{me} fights {them}: {n(e.get('winner'))} wins, {n(e.get('loser'))} falls."
    if kind == "melee_skipped":
        if e.get("reason") == "fallen":
            return f"{n(e.get('figure'))} has fallen and cannot strike back."
        return f"{n(e.get('figure'))} has already beaten someone in this fight."
    if kind == "melee_locked":
        return f"{n(e.get('figure'))} is still fighting {name_list([n(x) for x in e.get('locked_with') or []])}: " \
               "they go on next turn."
    if kind == "melee_no_target":
        return f"{n(e.get('figure'))} has nobody left to fight."
    if kind == "melee_none":
        return "No figure touches an enemy: nobody fights."
    if kind in ("victory", "no_victory"):
        return ""                           # the heading says who won, or that nobody has yet
    if kind == "draw":
        return "Both sides have won at the same time: it's a draw!"
    if kind == "surrender_offer":
        return f"{n(e.get('side'))} has lost {e.get('lost')} of {e.get('start')} figures. Does {n(e.get('side'))} give up?"
    return None


FORBIDDEN_IN_PROMPTS = re.compile(r"\binitiative\b|\battacker\b|group\(s\)|\bcondition [A-C]\b|\bfv\b", re.I)
