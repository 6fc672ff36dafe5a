"""Small scenes for the rules tests: figures on a 1" square grid, at their spaces' centres."""
from __future__ import annotations

from typing import Any

from measure.scene import Scene, scene_from_json


def grid_scene_json(layout: dict[str, tuple], terrain: list[dict[str, Any]] | None = None,
                    width: float = 12.0, depth: float = 8.0, grid: bool = True) -> dict[str, Any]:
    """layout: id -> (col, row, side[, type[, painted]]); terrain: [{"kind", "cells": [[c, r], ...]}]."""
    figures = []
    for fid, spec in layout.items():
        col, row, side = spec[:3]
        ftype = spec[3] if len(spec) > 3 else "troop"
        painted = spec[4] if len(spec) > 4 else True
        figures.append({"id": fid, "side": side, "type": ftype, "x": col + 0.5, "y": row + 0.5,
                        "base": 1.0, "painted": painted})
    pieces = []
    for i, t in enumerate(terrain or []):
        for j, (c, r) in enumerate(t["cells"]):
            pieces.append({"id": f"t{i}_{j}", "kind": t["kind"],
                           "polygon": [[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]]})
    return {"units": "in", "table": {"width": width, "depth": depth},
            "grid": {"kind": "square", "pitch": 1.0, "origin": [0.0, 0.0], "angle_deg": 0.0} if grid else None,
            "figures": figures, "terrain": pieces}


def grid_scene(layout: dict[str, tuple], terrain: list[dict[str, Any]] | None = None, **kw) -> Scene:
    return scene_from_json(grid_scene_json(layout, terrain, **kw))
