"""Terrain drawn on a tablet: the kinds a grown-up may pick, checking a drawn piece, merging it into the Scene.

A drawn piece is checked by measure.scene.scene_from_json, so the rules are exactly those of a Scene
JSON file (finite numbers, at least three corners, an outline that does not cross itself), and then
against the table (every corner on it) and the rule system (a kind it knows). Drawn pieces are kept
in the settings log and laid over whatever the camera found; their Scene JSON carries
`"source": "drawn"` so every page can draw them differently.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Iterable, Mapping

from measure.scene import Scene, SceneError, Table, Terrain, scene_from_json, scene_to_json

from assistant.rules.system import RuleSystem
from assistant.web.inputs import quote

# The felt kinds of the design (DESIGN.md); a rule system may know more.
BASE_KINDS = ("woods", "rocks", "hill", "water", "wall", "building")
MAX_CORNERS = 100           # a hand-drawn piece needs far fewer; keeps one request small
DRAWN = "drawn"


class TerrainError(ValueError):
    """A drawn terrain piece that cannot be used; the message names the problem, `status` is the HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def terrain_kinds(system: RuleSystem) -> tuple[str, ...]:
    """The kinds a tablet offers: the design's six, then every other kind the rule system names.

    Aliases ("trees" for "woods") are accepted when posted but not offered twice.
    """
    policy = system.sight_policy()
    named = set(policy.soft_kinds + policy.hill_kinds + policy.blocking_kinds + policy.clear_kinds)
    table = system.values.get("terrain", {})
    if isinstance(table, Mapping):
        named |= {k for k, v in table.items() if isinstance(v, Mapping) and k != "clear"}
    aliases = system.values.get("terrain_aliases", {})
    extra = sorted(k for k in named - set(BASE_KINDS) if k not in aliases)
    return BASE_KINDS + tuple(extra)


def accepted_kinds(system: RuleSystem) -> set[str]:
    return set(terrain_kinds(system)) | set(system.values.get("terrain_aliases", {}))


def _plain(message: str) -> str:
    """scene_from_json's words for a drawn piece: say 'polygon', and what a self-crossing means."""
    message = re.sub(r"^terrain 'new'\.", "", message)
    crossing = re.search(r"Self-intersection\[([-\d.e]+) ([-\d.e]+)\]", message)
    if crossing:
        x, y = float(crossing.group(1)), float(crossing.group(2))
        return (f"polygon: the outline crosses itself near ({x:.1f}, {y:.1f}); "
                "tap the corners in order around the piece")
    if message.endswith("(zero area)"):
        return ("polygon: the corners enclose no area (they lie in a line, or the outline crosses itself); "
                "tap the corners in order around the piece")
    return message


def check_piece(body: Any, table: Table, system: RuleSystem) -> dict[str, Any]:
    """A posted {"kind", "polygon"} -> the piece to keep ({"kind", "polygon"}); TerrainError names a problem."""
    if not isinstance(body, Mapping):
        raise TerrainError('terrain: expected a JSON object {"kind": ..., "polygon": [[x, y], ...]}')
    unknown = set(body) - {"kind", "polygon"}
    if unknown:
        raise TerrainError(f"terrain: unknown field(s) {', '.join(sorted(unknown))} (send kind and polygon)")
    kind = body.get("kind")
    known = terrain_kinds(system)
    if not isinstance(kind, str) or not kind.strip():
        raise TerrainError(f"kind: expected one of {', '.join(known)}, got {quote(kind)}")
    kind = kind.strip().lower()
    if kind not in accepted_kinds(system):
        raise TerrainError(f"kind: unknown terrain kind {quote(kind)} for {system.title}; known: {', '.join(known)}")
    polygon = body.get("polygon")
    if polygon is None:
        raise TerrainError("polygon: missing; send the corners as [[x, y], ...] in table inches")
    if isinstance(polygon, list) and len(polygon) > MAX_CORNERS:
        raise TerrainError(f"polygon: at most {MAX_CORNERS} corners, got {len(polygon)}")
    if isinstance(polygon, list) and len(polygon) < 3:
        raise TerrainError(f"polygon: a piece needs at least 3 corners, got {len(polygon)}")
    doc = {"units": "in", "table": {"width": table.width_in, "depth": table.depth_in}, "grid": None,
           "figures": [], "terrain": [{"id": "new", "kind": kind, "polygon": polygon}]}
    try:
        scene_from_json(doc)
    except SceneError as exc:
        raise TerrainError(_plain(str(exc))) from None
    corners = [[float(x), float(y)] for x, y in polygon]
    for i, (x, y) in enumerate(corners):
        if not (0.0 <= x <= table.width_in and 0.0 <= y <= table.depth_in):
            raise TerrainError(f"polygon[{i}]: the corner ({x:g}, {y:g}) is off the table "
                               f"(0 to {table.width_in:g} across, 0 to {table.depth_in:g} deep)")
    # What is kept is rounded to a thousandth of an inch: check that shape too, so a kept piece always reads back.
    kept = [[round(x, 3), round(y, 3)] for x, y in corners]
    doc["terrain"][0]["polygon"] = kept
    try:
        scene_from_json(doc)
    except SceneError:
        raise TerrainError("polygon: the piece is too thin to keep; tap corners farther apart") from None
    return {"kind": kind, "polygon": kept}


def drawn_terrain(pieces: Iterable[Mapping[str, Any]], table: Table) -> tuple[Terrain, ...]:
    """Kept pieces (id, kind, polygon) -> Terrain values marked as drawn, through scene_from_json again."""
    items = [{"id": p["id"], "kind": p["kind"], "polygon": p["polygon"], "source": DRAWN} for p in pieces]
    if not items:
        return ()
    doc = {"units": "in", "table": {"width": table.width_in, "depth": table.depth_in}, "grid": None,
           "figures": [], "terrain": items}
    return scene_from_json(doc).terrain


def with_drawn(scene: Scene, drawn: tuple[Terrain, ...]) -> Scene:
    """The scene with the drawn pieces laid over what the camera found (ids never clash: d1 vs t1)."""
    if not drawn:
        return scene
    taken = {t.id for t in scene.terrain}
    return replace(scene, terrain=scene.terrain + tuple(t for t in drawn if t.id not in taken))


def piece_json(piece: Terrain, table: Table) -> dict[str, Any]:
    """One piece in its Scene JSON form (id, kind, polygon, crest and extra keys)."""
    return scene_to_json(Scene(table=table, terrain=(piece,)))["terrain"][0]


def source_of(piece: Terrain, fallback: tuple[Terrain, ...]) -> str:
    """'drawn' on a tablet, 'known' (the table's known layout, used when the camera finds none) or 'found'."""
    if piece.extra.get("source") == DRAWN:
        return DRAWN
    if any(piece is f for f in fallback):
        return "known"
    return "found"
