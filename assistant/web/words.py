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


def calibration_words(cal: Calibration, source: str) -> list[str]:
    """The calibration status as short sentences a grown-up can act on."""
    lines = []
    if source == "none":
        return ["No picture yet: take a photo of the table or start the camera."]
    n_exp, n_seen = len(cal.anchors_expected), len(cal.anchors_seen)
    if cal.problem and n_seen == 0:
        lines.append(f"The last picture could not be measured: {cal.problem}.")
        return lines
    if n_seen == n_exp:
        lines.append(f"All {n_exp} corner markers are in view.")
    else:
        missing = [str(a) for a in cal.anchors_expected if a not in cal.anchors_seen]
        lines.append(f"{n_seen} of {n_exp} corner markers are in view (missing: {', '.join(missing)}). "
                     "Measurements still work, but check nothing covers them.")
    if cal.anchors_rejected:
        lines.append(f"Marker {', '.join(map(str, cal.anchors_rejected))} seems to have moved: put it back in its place.")
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
        lines.append(f"Note: {cal.problem}.")
    return lines
