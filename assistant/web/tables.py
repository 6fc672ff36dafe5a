"""Tables made on the tablet: the Setup wizard saves an ordinary profile TOML in the tables folder, the
tablet switches between saved tables, and the printable sheets are served from here.

A saved table is the same file `tablesight serve --table FILE` reads (calibration.profile_toml writes
it, calibration.profile reads it). Saving and switching are changes, so they need the PIN like every
other write (security.guard_changes).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Mapping

from flask import Blueprint, Response, current_app, jsonify, request

from calibration.profile import (SIDE_BASE_RANGE_IN, ProfileError, TableProfile, learned_colours_path, load_profile,
                                 profile_from_dict, standard_anchors)
from calibration.profile_toml import profile_to_toml
from calibration.sheet_output import to_pdf
from calibration.sheets import PAPERS_IN, anchors_sheet, grid_sheet, markers_sheet

from assistant.web import context

bp = Blueprint("tables", __name__, url_prefix="/api")

# The colours offered for a side and for terrain felt (the player may pick any other).
SIDE_COLOURS = {"red": "#c82828", "blue": "#2850c8", "green": "#28a03c", "yellow": "#e6c81e",
                "orange": "#e67814", "purple": "#7832a0", "black": "#000000", "white": "#ffffff"}
TERRAIN_COLOURS = {"woods": "#23461e", "rocks": "#78787d", "hill": "#967d50", "water": "#3c78aa",
                   "wall": "#6b4f3a", "building": "#7a5c48"}
ANCHOR_SIZE_IN = 2.0            # the anchors sheet as `tablesight print anchors` makes it
MARKER_SIZE_IN = 1.0            # figure markers as docs/setup.md prints them
FIGURE_IDS = {0: (10, 25), 1: (26, 41), 2: (42, 49)}     # marker ids printed for the first, second, third side
MAX_TABLE_IN = 240.0


class TableFileError(ValueError):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def tables_dir() -> Path:
    folder = Path(current_app.config.get("TABLES_DIR") or Path(current_app.instance_path) / "tables")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40].strip("-")
    return slug or "table"


def _number(body: Mapping, key: str, words: str, lo: float, hi: float) -> float:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise TableFileError(f"{words}: give a number of inches from {lo:g} to {hi:g}")
    return float(value)


def profile_data(body: Mapping[str, Any]) -> dict[str, Any]:
    """The wizard's answers -> a profile dict for calibration.profile (checked there too)."""
    name = body.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 60:
        raise TableFileError("name: give the table a name (at most 60 letters)")
    width = _number(body, "width", "width", 2 * ANCHOR_SIZE_IN + 1, MAX_TABLE_IN)
    depth = _number(body, "depth", "depth", 2 * ANCHOR_SIZE_IN + 1, MAX_TABLE_IN)
    data: dict[str, Any] = {
        "name": name.strip(), "width": width, "depth": depth,
        "markers": {"dictionary": "DICT_4X4_50",
                    "figure_marker_size": _number(body, "marker_size", "figure marker size", 0.5, 2.0)
                    if "marker_size" in body else MARKER_SIZE_IN},
        "anchors": [{"id": a.id, "x": a.x_in, "y": a.y_in, "size": a.size_in}
                    for a in standard_anchors(width, depth, ANCHOR_SIZE_IN)]}
    grid = body.get("grid")
    if grid:
        if not isinstance(grid, Mapping) or grid.get("kind") not in ("square", "hex"):
            raise TableFileError('grid: "square" or "hex", or none')
        data["grid"] = {"kind": grid["kind"], "pitch": _number(grid, "pitch", "grid size", 0.25, 12)}
    sides = body.get("sides") or []
    if not isinstance(sides, list) or len(sides) > 6:
        raise TableFileError("sides: at most six sides")
    data["sides"] = []
    for side in sides:
        if not isinstance(side, Mapping) or not isinstance(side.get("name"), str) or not side["name"].strip():
            raise TableFileError("sides: each side needs a name")
        colour = side.get("colour") or SIDE_COLOURS.get(side["name"].strip().lower())
        data["sides"].append({"name": side["name"].strip()[:30], "colour": colour})
        if side.get("base") is not None:       # left out: read from the photo (vision.base_size)
            words = f"{side['name'].strip()[:30]}'s bases"
            data["sides"][-1]["base"] = _number(side, "base", words, *SIDE_BASE_RANGE_IN)
    if len({s["name"].lower() for s in data["sides"]}) != len(data["sides"]):
        raise TableFileError("sides: two sides have the same name")
    kinds = body.get("terrain") or []
    if not isinstance(kinds, list) or any(k not in TERRAIN_COLOURS for k in kinds):
        raise TableFileError(f"terrain: pick from {', '.join(TERRAIN_COLOURS)}")
    data["terrain"] = [{"kind": k, "colour": TERRAIN_COLOURS[k]} for k in dict.fromkeys(kinds)]
    return data


def _summary(path: Path, current: str) -> dict[str, Any]:
    p = load_profile(path)
    return {"file": path.name, "name": p.name, "width": p.width_in, "depth": p.depth_in,
            "grid": None if p.grid is None else {"kind": p.grid.kind, "pitch": p.grid.pitch_in},
            "marker_size": p.figure_marker_size_in,
            "sides": [{"name": s.name, "colour": "#%02x%02x%02x" % s.rgb} for s in p.sides],
            "terrain": [t.name for t in p.terrain], "current": str(path.resolve()) == current}


def _current_path() -> str:
    return str(Path(current_app.extensions["tablesight"]["table_path"]).resolve())


@bp.get("/tables")
def list_tables():
    current = _current_path()
    out = []
    for path in sorted(tables_dir().glob("*.toml")):
        try:
            out.append(_summary(path, current))
        except ProfileError:
            continue            # a file someone broke by hand is not offered; the CLI names the problem
    start = current_app.extensions["tablesight"]["start"]
    if Path(start["path"]).parent.resolve() != tables_dir().resolve():     # not listed above already
        try:                                # the table the server started with: always a way back to it
            first = _summary(Path(start["path"]), current)
            out.insert(0, {**first, "file": None, "started": True})
        except ProfileError:
            pass
    t = context.table()
    return jsonify({"tables": out, "current": {"name": t.profile.name, "file": Path(current).name},
                    "side_colours": SIDE_COLOURS, "terrain_kinds": list(TERRAIN_COLOURS)})


# ------------------------------------------------------------ the table in use, remembered across a restart

CURRENT_FILE = "current-table.json"


def remember_table(instance: Path, started_with: str, file: str | None) -> None:
    """Keep which saved table is in use (None: the one the server started with), so a restart (a pulled
    plug, a new day) comes back to it. Tied to what the server was started with: starting it with
    another --table means that table."""
    path = instance / CURRENT_FILE
    if file is None:
        path.unlink(missing_ok=True)
        return
    tmp = path.with_name("." + CURRENT_FILE)
    tmp.write_text(json.dumps({"started_with": started_with, "file": file}), encoding="utf-8")
    os.replace(tmp, path)                   # whole or not at all


def remembered_table(instance: Path, started_with: str, tables: Path) -> tuple[Path, TableProfile] | None:
    """The saved table in use before the restart and its profile (with its learned colours), if the
    server was started the same way and the file still reads as a table; else None (start with what
    was given)."""
    try:
        data = json.loads((instance / CURRENT_FILE).read_text(encoding="utf-8"))
        file = data["file"]
        if data["started_with"] != started_with or not isinstance(file, str) or "/" in file or "\\" in file:
            return None
        path = tables / file
        return path, load_profile(path)     # a file broken or removed since is not used
    except (OSError, ValueError, KeyError, TypeError, ProfileError):
        return None


def _use(path: Path | None) -> None:
    """Switch to the saved table at `path`, or back to the table the server started with (None)."""
    ext = current_app.extensions["tablesight"]
    start = ext["start"]
    if path is None:
        profile = load_profile(start["path"], start["learned"])
        learned = start["learned"]
    else:
        profile = load_profile(path)
        learned = str(learned_colours_path(path))       # colours taught from now on belong to this table
    t = context.table()
    was_live = t.live is not None
    if path is None and start["picture"] is not None:   # the demo again: its photo and its known terrain
        t.use_profile(profile, fallback_terrain=start["fallback"], fallback_picture=start["picture"])
        t.analyze(start["picture"], source="demo")
    else:
        t.use_profile(profile)
    ext["table_path"] = str(start["path"] if path is None else path)
    ext["learned_path"] = learned
    remember_table(Path(current_app.instance_path), start["key"], None if path is None else path.name)
    if was_live:                        # the camera keeps watching, now with the new table's markers
        t.start_live(current_app.config["CAMERA"])


@bp.post("/tables")
def save_table():
    body = request.get_json(silent=True) if request.data else None
    if not isinstance(body, Mapping):
        raise TableFileError("expected the table's answers as a JSON object")
    profile = profile_from_dict(profile_data(body))     # ProfileError names the key: a 400
    path = tables_dir() / f"{_slug(profile.name)}.toml"
    path.write_text(profile_to_toml(profile), encoding="utf-8")
    if load_profile(path) != profile:                   # what the CLI will read is what was meant
        raise TableFileError("the table file could not be written faithfully", 500)
    if body.get("use", True):
        _use(path)
    return jsonify(_summary(path, _current_path())), 201


@bp.post("/tables/use")
def use_table():
    body = request.get_json(silent=True) if request.data else None
    if isinstance(body, Mapping) and body.get("started") is True:
        _use(None)
        start = Path(current_app.extensions["tablesight"]["start"]["path"])
        return jsonify({**_summary(start, _current_path()), "file": None, "started": True})
    name = body.get("file") if isinstance(body, Mapping) else None
    if not isinstance(name, str) or "/" in name or "\\" in name or not name.endswith(".toml"):
        raise TableFileError("file: name a saved table, like kitchen-table.toml (or started: true)")
    path = tables_dir() / name
    if not path.is_file():
        raise TableFileError(f"no saved table called {name}", 404)
    _use(path)
    return jsonify(_summary(path, _current_path()))


# ------------------------------------------------------------ printable sheets (as `tablesight print` makes them)

def _paper() -> str:
    paper = request.args.get("paper", "a4")
    if paper not in PAPERS_IN:
        raise TableFileError(f"paper: {' or '.join(PAPERS_IN)}")
    return paper


def _pdf(page, filename: str) -> Response:
    return Response(to_pdf(page), mimetype="application/pdf",
                    headers={"Content-Disposition": f'inline; filename="{filename}"', "Cache-Control": "no-store"})


@bp.get("/sheets/anchors.pdf")
def anchors_pdf():
    return _pdf(anchors_sheet(_paper(), (0, 1, 2, 3), ANCHOR_SIZE_IN, "DICT_4X4_50"), "corner-markers.pdf")


@bp.get("/sheets/markers-<int:side>.pdf")
def markers_pdf(side: int):
    if side not in FIGURE_IDS:
        raise TableFileError("markers: sheets for the first three sides only", 404)
    colour = request.args.get("colour", "")
    rgb = None
    if re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
        rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    try:
        size = float(request.args.get("size", MARKER_SIZE_IN))
    except ValueError:
        raise TableFileError("size: a number of inches") from None
    if not 0.5 <= size <= 2.0:
        raise TableFileError("size: from 0.5 to 2 inches")
    lo, hi = FIGURE_IDS[side]
    return _pdf(markers_sheet(list(range(lo, hi + 1)), _paper(), size, "DICT_4X4_50", rgb),
                f"figure-markers-{side + 1}.pdf")


@bp.get("/sheets/grid.pdf")
def grid_pdf():
    kind = request.args.get("kind", "square")
    if kind not in ("square", "hex"):
        raise TableFileError('kind: "square" or "hex"')
    try:
        pitch = float(request.args.get("pitch", "1"))
    except ValueError:
        raise TableFileError("pitch: a number of inches") from None
    if not 0.25 <= pitch <= 4:
        raise TableFileError("pitch: from 0.25 to 4 inches")
    return _pdf(grid_sheet(_paper(), kind, pitch, "flat"), "grid.pdf")
