"""Writing a table profile back to the TOML of DESIGN.md, so `load_profile` reads exactly the same value.

The tablet's Setup makes tables this way; the file is an ordinary profile that `tablesight serve
--table FILE` (and every other command) reads too. Default values are written out as well, so a
person opening the file sees every number that is used.
"""
from __future__ import annotations

import json
import math
import re

from calibration.profile import ColourSpec, TableProfile


def _str(value: str) -> str:
    # A JSON string is a valid TOML basic string (same escapes, \uXXXX included); TOML also wants DEL escaped.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _num(value: float) -> str:
    if not math.isfinite(value):
        raise ValueError(f"cannot write {value!r} in a table profile")
    return repr(float(value))


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _colours(key: str, name_key: str, items: tuple[ColourSpec, ...]) -> list[str]:
    out = []
    for c in items:
        out += ["", f"[[{key}]]", f"{name_key} = {_str(c.name)}", f"colour = {_str(_hex(c.rgb))}"]
        if c.base_in is not None:
            out.append(f"base = {_num(c.base_in)}              # colour bases' diameter, inches")
    return out


def profile_to_toml(profile: TableProfile) -> str:
    """The profile as TOML text; `profile_from_dict(tomllib.loads(text)) == profile`."""
    p = profile
    lines = [f"name = {_str(p.name)}",
             f"width = {_num(p.width_in)}            # inches along x (anchor 0 -> anchor 1)",
             f"depth = {_num(p.depth_in)}            # inches along y (anchor 0 -> anchor 3)",
             "", "[markers]", f"dictionary = {_str(p.dictionary)}",
             f"figure_marker_size = {_num(p.figure_marker_size_in)}",
             f"figure_marker_height = {_num(p.figure_marker_height_in)}"]
    if p.grid is not None:
        lines += ["", "[grid]", f"kind = {_str(p.grid.kind)}", f"pitch = {_num(p.grid.pitch_in)}"]
        if p.grid.orientation is not None:
            lines.append(f"orientation = {_str(p.grid.orientation)}")
    r = p.rules
    lines += ["", "[rules]", f"ruler_edge = {_num(r.ruler_edge_in)}", f"ruler_width = {_num(r.ruler_width_in)}",
              f"engage_gap = {_num(r.engage_gap_in)}", f"tie = {_num(r.tie_in)}"]
    for a in p.anchors:
        lines += ["", "[[anchors]]", f"id = {a.id}", f"x = {_num(a.x_in)}", f"y = {_num(a.y_in)}",
                  f"size = {_num(a.size_in)}"]
    lines += _colours("sides", "name", p.sides)
    lines += _colours("terrain", "kind", p.terrain)
    for e in p.roster:
        lines += ["", "[[roster]]"]
        marker = re.fullmatch(r"m(\d+)", e.figure)
        lines.append(f"marker = {int(marker.group(1))}" if marker and str(int(marker.group(1))) == marker.group(1)
                     else f"figure = {_str(e.figure)}")
        for key, value in (("name", e.name), ("side", e.side), ("type", e.type)):
            if value is not None:
                lines.append(f"{key} = {_str(value)}")
        lines.append(f"painted = {'true' if e.painted else 'false'}")
        if e.base_in is not None:
            lines.append(f"base = {_num(e.base_in)}")
    return "\n".join(lines) + "\n"
