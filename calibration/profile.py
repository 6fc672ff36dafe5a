"""Table profiles: the TOML contract of DESIGN.md, loaded into frozen values and validated.

Every problem raises `ProfileError` with one line naming the key and what is wrong with it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import cv2

from calibration.textfile import read_toml


class ProfileError(ValueError):
    """A table profile that cannot be used; the message names the key."""


@dataclass(frozen=True)
class Anchor:
    id: int
    x_in: float          # marker centre, table inches
    y_in: float
    size_in: float       # printed side of the black square

    def corners_in(self):
        """The four corners in table inches, in OpenCV's order TL, TR, BR, BL.

        Anchors lie square to the table with their printed top edge toward y = 0.
        """
        h = self.size_in / 2.0
        return ((self.x_in - h, self.y_in - h), (self.x_in + h, self.y_in - h),
                (self.x_in + h, self.y_in + h), (self.x_in - h, self.y_in + h))


@dataclass(frozen=True)
class GridSpec:
    kind: str                   # "square" or "hex"
    pitch_in: float
    orientation: str | None = None   # hex: "flat" or "pointy"; None = find out


@dataclass(frozen=True)
class ColourSpec:
    name: str                   # a side's name, or a terrain kind
    rgb: tuple[int, int, int]   # the profile's colour: the starting guess
    learned_rgb: tuple[int, int, int] | None = None   # a side's rim as a photo of this table showed it
    base_in: float | None = None   # a side's colour bases' diameter; None: measured from the photo

    @property
    def seen_rgb(self) -> tuple[int, int, int]:
        """The colour to look for: the learned one when there is one, else the profile's."""
        return self.learned_rgb if self.learned_rgb is not None else self.rgb


@dataclass(frozen=True)
class RosterEntry:
    """What the camera cannot know about one figure: given by the players."""
    figure: str                 # scene id: "m12" for marker 12, or a colour figure's id
    name: str | None = None
    side: str | None = None
    type: str | None = None
    painted: bool = True
    base_in: float | None = None

    def as_dict(self) -> dict:
        out = {"name": self.name, "side": self.side, "type": self.type, "painted": self.painted}
        if self.base_in is not None:
            out["base"] = self.base_in
        return {k: v for k, v in out.items() if v is not None}


@dataclass(frozen=True)
class RulesSettings:
    """Measuring numbers the rule texts do not give: visible, editable house defaults."""
    ruler_edge_in: float = 0.125        # the ruler laid on its side
    ruler_width_in: float = 1.25        # the ruler's full width
    engage_gap_in: float = 0.1          # bases this close count as touching on an open table
    tie_in: float = 0.25                # targets this close in distance tie


@dataclass(frozen=True)
class TableProfile:
    name: str
    width_in: float
    depth_in: float
    dictionary: str = "DICT_4X4_50"
    figure_marker_size_in: float = 1.0
    figure_marker_height_in: float = 0.0   # marker above the table (on a base); used with intrinsics
    anchors: tuple[Anchor, ...] = ()
    grid: GridSpec | None = None
    sides: tuple[ColourSpec, ...] = ()
    terrain: tuple[ColourSpec, ...] = ()
    rules: RulesSettings = field(default_factory=RulesSettings)
    roster: tuple[RosterEntry, ...] = ()

    def roster_by_figure(self) -> dict[str, dict]:
        return {entry.figure: entry.as_dict() for entry in self.roster}

    @property
    def anchor_ids(self) -> frozenset[int]:
        return frozenset(a.id for a in self.anchors)

    def anchor(self, marker_id: int) -> Anchor | None:
        for a in self.anchors:
            if a.id == marker_id:
                return a
        return None


def aruco_dictionary(name: str):
    """The cv2.aruco predefined dictionary called `name` (e.g. "DICT_4X4_50")."""
    code = getattr(cv2.aruco, name, None) if name.startswith("DICT_") else None
    if not isinstance(code, int):
        raise ProfileError(f"markers.dictionary: unknown dictionary {name!r} "
                           "(use a cv2.aruco name such as DICT_4X4_50 or DICT_APRILTAG_36h11)")
    return cv2.aruco.getPredefinedDictionary(code)


def _num(table: Mapping, key: str, where: str, default: Any = None, *,
         positive: bool = False, nonneg: bool = False) -> float:
    if key not in table:
        if default is None:
            raise ProfileError(f"{where}{key}: missing")
        return default
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ProfileError(f"{where}{key}: expected a number, got {value!r}")
    if positive and value <= 0:
        raise ProfileError(f"{where}{key}: must be greater than 0, got {value!r}")
    if nonneg and value < 0:
        raise ProfileError(f"{where}{key}: must not be negative, got {value!r}")
    return float(value)


def _check_keys(table: Mapping, allowed: set[str], where: str) -> None:
    for key in table:
        if key not in allowed:
            raise ProfileError(f"{where}{key}: unknown key (expected one of {', '.join(sorted(allowed))})")


def parse_colour(value: Any, where: str) -> tuple[int, int, int]:
    """'#c82828' -> (200, 40, 40)."""
    if not isinstance(value, str) or len(value) != 7 or value[0] != "#":
        raise ProfileError(f"{where}: expected a colour like \"#c82828\", got {value!r}")
    try:
        return (int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16))
    except ValueError:
        raise ProfileError(f"{where}: expected a colour like \"#c82828\", got {value!r}") from None


def _tables(items: Any, key: str, allowed: set[str]):
    """(where, item) for each table of an array of tables `[[key]]`, each checked for unknown keys."""
    if not isinstance(items, list):
        raise ProfileError(f"{key}: expected [[{key}]] tables")
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ProfileError(f"{key}[{i}]: expected a table")
        where = f"{key}[{i}]."
        _check_keys(item, allowed, where)
        yield where, item


# A side's colour bases: from the smallest (20 mm) to the largest (60 mm) a rim is looked for on.
SIDE_BASE_RANGE_IN = (0.75, 2.5)


def _colours(items: Any, key: str, name_key: str, learned: bool = False) -> tuple[ColourSpec, ...]:
    """[[sides]] (`learned`: with a learned colour and a base size allowed) or [[terrain]]."""
    out = []
    allowed = {name_key, "colour"} | ({"learned_colour", "base"} if learned else set())
    for where, item in _tables(items, key, allowed):
        name = item.get(name_key)
        if not isinstance(name, str) or not name:
            raise ProfileError(f"{where}{name_key}: expected a non-empty string, got {name!r}")
        seen = parse_colour(item["learned_colour"], f"{where}learned_colour") if "learned_colour" in item else None
        base = _num(item, "base", where, None, positive=True) if "base" in item else None
        if base is not None and not SIDE_BASE_RANGE_IN[0] <= base <= SIDE_BASE_RANGE_IN[1]:
            lo, hi = SIDE_BASE_RANGE_IN
            raise ProfileError(f"{where}base: a colour base's diameter in inches, {lo:g} to {hi:g} "
                               f"(1.26 for 32 mm), got {base!r}")
        out.append(ColourSpec(name=name, rgb=parse_colour(item.get("colour"), f"{where}colour"), learned_rgb=seen,
                              base_in=base))
    return tuple(out)


def _roster(items: Any) -> tuple[RosterEntry, ...]:
    out = []
    for where, item in _tables(items, "roster", {"marker", "figure", "name", "side", "type", "painted", "base"}):
        if "marker" in item:
            marker = item["marker"]
            if isinstance(marker, bool) or not isinstance(marker, int) or marker < 0:
                raise ProfileError(f"{where}marker: expected a marker id, got {marker!r}")
            figure = f"m{marker}"
        elif isinstance(item.get("figure"), str) and item["figure"]:
            figure = item["figure"]
        else:
            raise ProfileError(f"{where}marker: each roster entry names a marker id (or a figure id)")
        for key in ("name", "side", "type"):
            if key in item and not isinstance(item[key], str):
                raise ProfileError(f"{where}{key}: expected a string, got {item[key]!r}")
        painted = item.get("painted", True)
        if not isinstance(painted, bool):
            raise ProfileError(f"{where}painted: expected true or false, got {painted!r}")
        out.append(RosterEntry(figure=figure, name=item.get("name"), side=item.get("side"),
                               type=item.get("type"), painted=painted,
                               base_in=_num(item, "base", where, None, positive=True) if "base" in item else None))
    return tuple(out)


def profile_from_dict(data: Mapping[str, Any]) -> TableProfile:
    """Validate a parsed profile; raises ProfileError naming the key."""
    _check_keys(data, {"name", "width", "depth", "markers", "anchors", "grid", "sides", "terrain", "rules",
                       "roster"}, "")
    width = _num(data, "width", "", positive=True)
    depth = _num(data, "depth", "", positive=True)
    name = data.get("name", "Table")
    if not isinstance(name, str):
        raise ProfileError(f"name: expected a string, got {name!r}")

    markers = data.get("markers", {})
    if not isinstance(markers, Mapping):
        raise ProfileError("markers: expected a table")
    _check_keys(markers, {"dictionary", "figure_marker_size", "figure_marker_height"}, "markers.")
    dictionary = markers.get("dictionary", "DICT_4X4_50")
    if not isinstance(dictionary, str):
        raise ProfileError(f"markers.dictionary: expected a string, got {dictionary!r}")
    aruco_dictionary(dictionary)
    marker_size = _num(markers, "figure_marker_size", "markers.", 1.0, positive=True)
    marker_height = _num(markers, "figure_marker_height", "markers.", 0.0, nonneg=True)

    anchors_json = data.get("anchors", [])
    if not isinstance(anchors_json, list) or not anchors_json:
        raise ProfileError("anchors: at least one [[anchors]] table is needed")
    anchors = []
    for where, item in _tables(anchors_json, "anchors", {"id", "x", "y", "size"}):
        marker_id = item.get("id")
        if isinstance(marker_id, bool) or not isinstance(marker_id, int) or marker_id < 0:
            raise ProfileError(f"{where}id: expected a marker id (a whole number >= 0), got {marker_id!r}")
        anchor = Anchor(id=marker_id, x_in=_num(item, "x", where), y_in=_num(item, "y", where),
                        size_in=_num(item, "size", where, positive=True))
        for cx, cy in anchor.corners_in():
            if not (0 <= cx <= width and 0 <= cy <= depth):
                raise ProfileError(f"{where}x/y: anchor {marker_id} at ({anchor.x_in}, {anchor.y_in}) "
                                   f"lies partly outside the {width} x {depth} in table")
        if any(a.id == marker_id for a in anchors):
            raise ProfileError(f"{where}id: anchor id {marker_id} is listed twice")
        anchors.append(anchor)

    grid = None
    if "grid" in data:
        g = data["grid"]
        if not isinstance(g, Mapping):
            raise ProfileError("grid: expected a table")
        _check_keys(g, {"kind", "pitch", "orientation"}, "grid.")
        kind = g.get("kind")
        if kind not in ("square", "hex"):
            raise ProfileError(f"grid.kind: expected \"square\" or \"hex\", got {kind!r}")
        orientation = g.get("orientation")
        if orientation is not None and (kind != "hex" or orientation not in ("flat", "pointy")):
            raise ProfileError(f"grid.orientation: expected \"flat\" or \"pointy\" for a hex grid, got {orientation!r}")
        grid = GridSpec(kind=kind, pitch_in=_num(g, "pitch", "grid.", positive=True), orientation=orientation)

    rules = RulesSettings()
    if "rules" in data:
        r = data["rules"]
        if not isinstance(r, Mapping):
            raise ProfileError("rules: expected a table")
        _check_keys(r, {"ruler_edge", "ruler_width", "engage_gap", "tie"}, "rules.")
        rules = RulesSettings(
            ruler_edge_in=_num(r, "ruler_edge", "rules.", rules.ruler_edge_in, positive=True),
            ruler_width_in=_num(r, "ruler_width", "rules.", rules.ruler_width_in, positive=True),
            engage_gap_in=_num(r, "engage_gap", "rules.", rules.engage_gap_in, nonneg=True),
            tie_in=_num(r, "tie", "rules.", rules.tie_in, nonneg=True),
        )

    return TableProfile(
        roster=_roster(data.get("roster", [])),
        name=name, width_in=width, depth_in=depth, dictionary=dictionary,
        figure_marker_size_in=marker_size, figure_marker_height_in=marker_height,
        anchors=tuple(anchors), grid=grid,
        sides=_colours(data.get("sides", []), "sides", "name", learned=True),
        terrain=_colours(data.get("terrain", []), "terrain", "kind"),
        rules=rules,
    )


def load_profile(path: str | Path, learned_path: str | Path | None = None) -> TableProfile:
    """Read and validate a table profile TOML file; raises ProfileError.

    The rim colours learned from photos of this table (`learned_colours_path(path)`, or
    `learned_path`) are laid over its sides when that file exists."""
    path = Path(path)
    data = read_toml(path, "table profile", ProfileError)
    try:
        profile = profile_from_dict(data)
    except ProfileError as exc:
        raise ProfileError(f"{path}: {exc}") from None
    learned = Path(learned_path) if learned_path is not None else learned_colours_path(path)
    return with_learned_colours(profile, read_learned_colours(learned)) if learned.exists() else profile


# ------------------------------------------------------------ learned rim colours (a sidecar file)
# The profile is the players' own file, often with their comments: learning a colour never rewrites
# it. What a photo taught is kept beside it, in `<profile>.learned.toml`, and laid over the
# profile's sides when it is read; deleting that file goes back to the profile's colours.

def learned_colours_path(profile_path: str | Path) -> Path:
    path = Path(profile_path)
    return path.with_name(path.stem + ".learned.toml")


def read_learned_colours(path: str | Path) -> dict[str, tuple[int, int, int]]:
    """side name -> learned rim colour, from a sidecar file; raises ProfileError naming the key."""
    path = Path(path)
    data = read_toml(path, "learned colours", ProfileError)
    try:
        _check_keys(data, {"sides"}, "")
        out = {}
        for where, item in _tables(data.get("sides", []), "sides", {"name", "learned_colour"}):
            name = item.get("name")
            if not isinstance(name, str) or not name:
                raise ProfileError(f"{where}name: expected a non-empty string, got {name!r}")
            out[name] = parse_colour(item.get("learned_colour"), f"{where}learned_colour")
        return out
    except ProfileError as exc:
        raise ProfileError(f"{path}: {exc}") from None


def with_learned_colours(profile: TableProfile, learned: Mapping[str, tuple[int, int, int]]) -> TableProfile:
    """The profile with these sides' learned colours set (sides it does not have are ignored)."""
    from dataclasses import replace
    sides = tuple(replace(s, learned_rgb=tuple(int(c) for c in learned[s.name])) if s.name in learned else s
                  for s in profile.sides)
    return replace(profile, sides=sides)


def colour_hex(rgb) -> str:
    return "#" + "".join(f"{int(c):02x}" for c in rgb)


def save_learned_colours(path: str | Path, learned: Mapping[str, tuple[int, int, int]],
                         profile_name: str = "this table") -> Path:
    """Write (merging with what the file already holds) side -> learned colour; atomically."""
    path = Path(path)
    merged = dict(read_learned_colours(path)) if path.exists() else {}
    merged.update(learned)
    lines = [f"# Rim colours tablesight learned from photos of {profile_name}, after white balance.",
             "# The profile's own colours stay the starting guess: delete this file to go back to them.", ""]
    for name in sorted(merged):
        lines += ["[[sides]]", f"name = {_toml_string(name)}", f'learned_colour = "{colour_hex(merged[name])}"', ""]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines), encoding="utf-8")
    tmp.replace(path)
    return path


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'



def standard_anchors(width_in: float, depth_in: float, size_in: float = 2.0,
                     inset_in: float = 0.25) -> tuple[Anchor, ...]:
    """Anchors 0-3 in the four corners: 0 at the origin, 1 along x, 2 opposite, 3 along y."""
    c = inset_in + size_in / 2
    return (Anchor(0, c, c, size_in), Anchor(1, width_in - c, c, size_in),
            Anchor(2, width_in - c, depth_in - c, size_in), Anchor(3, c, depth_in - c, size_in))
