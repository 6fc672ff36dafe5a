"""KIMMIRIA's table facts from a Scene: who touches whom (across or a-corner), where terrain is.

Contact itself comes from measure.engage (bases touching within the engage gap, or neighbouring
grid spaces, corners included). KIMMIRIA adds one distinction measure does not make: a neighbour
is *across* (a shared side on a square grid; every neighbour on a hex grid or an open table)
or *a-corner* (diagonal on a square grid): "you attack the figure across from you first. If there
is no figure across, you may attack one a-corner."
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import shapely
from measure.engage import contact_matrix
from measure.grid import cell_of
from measure.scene import Scene

ACROSS = "across"
CORNER = "corner"


@dataclass(frozen=True)
class Fighter:
    """One figure as KIMMIRIA's combat rules see it (numbers already read from the data)."""
    id: str
    side: str
    type: str                   # the data's type name: "troop", "hero", ...
    cls: str                    # "troop", "giant", "cavalry", "artillery", "hero", "wizard", "archer"
    fv: int
    armor_plus: int
    painted: bool = True
    terrain: str = "clear"      # the kind of ground its centre stands on


def figure_cells(scene: Scene) -> dict[str, tuple[int, int] | None]:
    """Each figure's grid space (its `cell`, else the cell under its centre); None without a grid."""
    if scene.grid is None:
        return {f.id: f.cell for f in scene.figures}
    xy = np.array([f.xy for f in scene.figures], dtype=float).reshape(-1, 2)
    cells = cell_of(scene.grid, xy) if len(xy) else np.zeros((0, 2), np.int64)
    return {f.id: (f.cell if f.cell is not None else (int(c[0]), int(c[1])))
            for f, c in zip(scene.figures, cells.tolist())}


def contacts(scene: Scene, gap_in: float = 0.1) -> dict[str, dict[str, str]]:
    """figure id -> {touching figure id -> "across" | "corner"}, friends and foes alike."""
    touch = contact_matrix(scene, gap_in)
    ids = [f.id for f in scene.figures]
    square = scene.grid is not None and scene.grid.kind == "square"
    cells = figure_cells(scene) if square else {}
    out: dict[str, dict[str, str]] = {i: {} for i in ids}
    for a, b in zip(*np.nonzero(touch)):
        kind = ACROSS
        if square:
            ca, cb = cells[ids[a]], cells[ids[b]]
            if ca is not None and cb is not None and ca[0] != cb[0] and ca[1] != cb[1]:
                kind = CORNER
        out[ids[a]][ids[b]] = kind
    return out


def enemy_contacts(scene: Scene, gap_in: float = 0.1) -> dict[str, dict[str, str]]:
    """Like `contacts`, keeping only enemies (both sides known and different)."""
    side = {f.id: f.side for f in scene.figures}
    return {a: {b: k for b, k in touching.items()
                if side[a] is not None and side[b] is not None and side[a] != side[b]}
            for a, touching in contacts(scene, gap_in).items()}


def terrain_kind(kind: str, aliases: Mapping[str, str]) -> str:
    key = kind.strip().lower()
    return aliases.get(key, key)


def terrain_at(scene: Scene, aliases: Mapping[str, str] | None = None) -> dict[str, str]:
    """figure id -> the terrain kind under its centre ("clear" when none; the last piece listed wins)."""
    aliases = aliases or {}
    out = {f.id: "clear" for f in scene.figures}
    if not scene.terrain or not scene.figures:
        return out
    points = shapely.points([f.xy for f in scene.figures])
    for piece in scene.terrain:
        inside = shapely.covers(piece.polygon, points)
        for fig, hit in zip(scene.figures, inside.tolist()):
            if hit:
                out[fig.id] = terrain_kind(piece.kind, aliases)
    return out
