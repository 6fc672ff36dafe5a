"""The Scene: one frame of the table in table inches, as frozen values.

Everything downstream of vision/ speaks in these types. The JSON form is the
contract in DESIGN.md ("Scene JSON"); `scene_from_json` validates it and names
the offending item in a `SceneError`, so a bad file gets one clear line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import shapely
from shapely.geometry import Polygon


class SceneError(ValueError):
    """A Scene (or Scene JSON) that breaks the contract; the message names the item."""


def short(value: Any, limit: int = 60) -> str:
    """repr(value) cut to `limit` characters: an error quotes a prefix of bad input, never all of it."""
    try:
        text = repr(value)
    except ValueError:                  # an int too long to print
        text = f"<{type(value).__name__} too long to print>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


# No table is a mile across: larger numbers are typos or attacks, and overflow the geometry.
MAX_ABS_IN = 1e6


@dataclass(frozen=True)
class Table:
    width_in: float
    depth_in: float


@dataclass(frozen=True)
class Grid:
    kind: str                       # "square" or "hex"
    pitch_in: float                 # square side, or hex flat-to-flat distance
    origin: tuple[float, float] = (0.0, 0.0)   # a grid corner (square) or a hex centre
    angle_deg: float = 0.0
    orientation: str | None = None  # hex only: "flat" or "pointy" (topped)


@dataclass(frozen=True)
class Figure:
    id: str
    x: float
    y: float
    base_in: float = 1.0            # base diameter
    side: str | None = None
    type: str | None = None
    marker: int | None = None
    detected_by: str = "marker"     # "marker", "colour" or "manual"
    confidence: float = 1.0
    painted: bool = True
    name: str | None = None
    hidden: bool = False            # tracked but not seen in the latest frame
    cell: tuple[int, int] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def xy(self) -> tuple[float, float]:
        return (self.x, self.y)


@dataclass(frozen=True)
class Terrain:
    id: str
    kind: str
    polygon: Polygon
    crest: Polygon | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Scene:
    table: Table
    figures: tuple[Figure, ...] = ()
    terrain: tuple[Terrain, ...] = ()
    grid: Grid | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)   # registration, timing, ...

    def figure(self, figure_id: str) -> Figure:
        for fig in self.figures:
            if fig.id == figure_id:
                return fig
        raise SceneError(f"unknown figure id {short(figure_id)} (the scene has: "
                         f"{', '.join(f.id for f in self.figures) or 'no figures'})")

    def with_figures(self, figures) -> "Scene":
        return replace(self, figures=tuple(figures))

    def placed(self) -> "Scene":
        """The scene without figures whose place is unknown (`"place_known": false`: a figure a still
        photo knows only from the roster, hidden under a hand); nothing is measured from or to them."""
        keep = [f for f in self.figures if f.extra.get("place_known", True) is not False]
        return self if len(keep) == len(self.figures) else self.with_figures(keep)


# ---------------------------------------------------------------- JSON

_FIGURE_KEYS = {"id", "marker", "side", "type", "x", "y", "base", "detected_by",
                "confidence", "painted", "name", "hidden", "cell"}
_TERRAIN_KEYS = {"id", "kind", "polygon", "crest"}


def _number(value: Any, where: str, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SceneError(f"{where}: expected a number, got {short(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise SceneError(f"{where}: must be a finite number, got {short(value)}")
    if abs(number) > MAX_ABS_IN:
        raise SceneError(f"{where}: must be at most {MAX_ABS_IN:g} in size, got {number:g}")
    if positive and number <= 0:
        raise SceneError(f"{where}: must be greater than 0, got {short(value)}")
    return number


def _polygon(value: Any, where: str) -> Polygon:
    if not isinstance(value, list) or len(value) < 3:
        raise SceneError(f"{where}: expected a list of at least 3 [x, y] points")
    points = []
    for i, point in enumerate(value):
        if not isinstance(point, (list, tuple)) or len(point) != 2:
            raise SceneError(f"{where}[{i}]: expected [x, y], got {short(point)}")
        points.append((_number(point[0], f"{where}[{i}][0]"), _number(point[1], f"{where}[{i}][1]")))
    polygon = Polygon(points)
    if polygon.area <= 0 or not polygon.is_valid:
        reason = shapely.is_valid_reason(polygon) if polygon.area > 0 else "zero area"
        raise SceneError(f"{where}: invalid polygon ({reason})")
    return polygon


def _require(obj: Mapping, key: str, where: str) -> Any:
    if not isinstance(obj, Mapping):
        raise SceneError(f"{where}: expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise SceneError(f"{where}: missing key {short(key)}")
    return obj[key]


def _figure_from_json(obj: Any, where: str) -> Figure:
    figure_id = _require(obj, "id", where)
    if not isinstance(figure_id, str) or not figure_id:
        raise SceneError(f"{where}.id: expected a non-empty string, got {short(figure_id)}")
    where = f"figure {short(figure_id)}"
    marker = obj.get("marker")
    if marker is not None and (isinstance(marker, bool) or not isinstance(marker, int)):
        raise SceneError(f"{where}.marker: expected an integer, got {short(marker)}")
    cell = obj.get("cell")
    if cell is not None:
        if not isinstance(cell, (list, tuple)) or len(cell) != 2 or not all(isinstance(c, int) for c in cell):
            raise SceneError(f"{where}.cell: expected [col, row] integers, got {short(cell)}")
        cell = (int(cell[0]), int(cell[1]))
    for key in ("side", "type", "name"):
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise SceneError(f"{where}.{key}: expected a string, got {short(obj[key])}")
    return Figure(
        id=figure_id,
        x=_number(_require(obj, "x", where), f"{where}.x"),
        y=_number(_require(obj, "y", where), f"{where}.y"),
        base_in=_number(obj.get("base", 1.0), f"{where}.base", positive=True),
        side=obj.get("side"),
        type=obj.get("type"),
        marker=marker,
        detected_by=str(obj.get("detected_by", "manual")),
        confidence=_number(obj.get("confidence", 1.0), f"{where}.confidence"),
        painted=bool(obj.get("painted", True)),
        name=obj.get("name"),
        hidden=bool(obj.get("hidden", False)),
        cell=cell,
        extra={k: v for k, v in obj.items() if k not in _FIGURE_KEYS},
    )


def _terrain_from_json(obj: Any, index: int) -> Terrain:
    where = f"terrain[{index}]"
    terrain_id = obj.get("id", f"t{index + 1}") if isinstance(obj, Mapping) else None
    where = f"terrain {short(terrain_id)}" if terrain_id else where
    kind = _require(obj, "kind", where)
    if not isinstance(kind, str) or not kind:
        raise SceneError(f"{where}.kind: expected a non-empty string, got {short(kind)}")
    crest = obj.get("crest")
    return Terrain(
        id=str(terrain_id),
        kind=kind,
        polygon=_polygon(_require(obj, "polygon", where), f"{where}.polygon"),
        crest=_polygon(crest, f"{where}.crest") if crest is not None else None,
        extra={k: v for k, v in obj.items() if k not in _TERRAIN_KEYS},
    )


def _grid_from_json(obj: Any) -> Grid | None:
    if obj is None:
        return None
    kind = _require(obj, "kind", "grid")
    if kind not in ("square", "hex"):
        raise SceneError(f"grid.kind: expected 'square' or 'hex', got {short(kind)}")
    origin = obj.get("origin", [0.0, 0.0])
    if not isinstance(origin, (list, tuple)) or len(origin) != 2:
        raise SceneError(f"grid.origin: expected [x, y], got {short(origin)}")
    orientation = obj.get("orientation")
    if kind == "hex":
        orientation = orientation or "flat"
        if orientation not in ("flat", "pointy"):
            raise SceneError(f"grid.orientation: expected 'flat' or 'pointy', got {short(orientation)}")
    return Grid(
        kind=kind,
        pitch_in=_number(_require(obj, "pitch", "grid"), "grid.pitch", positive=True),
        origin=(_number(origin[0], "grid.origin[0]"), _number(origin[1], "grid.origin[1]")),
        angle_deg=_number(obj.get("angle_deg", 0.0), "grid.angle_deg"),
        orientation=orientation,
    )


def scene_from_json(obj: Any) -> Scene:
    """Validate a parsed Scene JSON document and build the Scene; raises SceneError."""
    if not isinstance(obj, Mapping):
        raise SceneError("scene: expected a JSON object at the top level")
    units = obj.get("units", "in")
    if units != "in":
        raise SceneError(f"units: only 'in' is supported, got {short(units)}")
    table = _require(obj, "table", "scene")
    table_value = Table(
        width_in=_number(_require(table, "width", "table"), "table.width", positive=True),
        depth_in=_number(_require(table, "depth", "table"), "table.depth", positive=True),
    )
    figures_json = obj.get("figures", [])
    if not isinstance(figures_json, list):
        raise SceneError("figures: expected a list")
    figures = tuple(_figure_from_json(f, f"figures[{i}]") for i, f in enumerate(figures_json))
    seen: set[str] = set()
    for fig in figures:
        if fig.id in seen:
            raise SceneError(f"figure {short(fig.id)}: the id appears twice")
        seen.add(fig.id)
    terrain_json = obj.get("terrain", [])
    if not isinstance(terrain_json, list):
        raise SceneError("terrain: expected a list")
    terrain = tuple(_terrain_from_json(t, i) for i, t in enumerate(terrain_json))
    known = {"units", "table", "grid", "figures", "terrain"}
    return Scene(table=table_value, figures=figures, terrain=terrain,
                 grid=_grid_from_json(obj.get("grid")),
                 extra={k: v for k, v in obj.items() if k not in known})


def _round(value: float, digits: int = 4) -> float:
    return round(float(value), digits)


def _ring(polygon: Polygon) -> list[list[float]]:
    return [[_round(x), _round(y)] for x, y in list(polygon.exterior.coords)[:-1]]


def figure_to_json(fig: Figure) -> dict[str, Any]:
    out: dict[str, Any] = {"id": fig.id}
    if fig.marker is not None:
        out["marker"] = fig.marker
    out.update({"side": fig.side, "type": fig.type, "x": _round(fig.x), "y": _round(fig.y),
                "base": fig.base_in, "detected_by": fig.detected_by,
                "confidence": _round(fig.confidence, 3), "painted": fig.painted})
    if fig.name is not None:
        out["name"] = fig.name
    if fig.hidden:
        out["hidden"] = True
    if fig.cell is not None:
        out["cell"] = list(fig.cell)
    out.update(fig.extra)
    return out


def scene_to_json(scene: Scene) -> dict[str, Any]:
    grid = None
    if scene.grid is not None:
        grid = {"kind": scene.grid.kind, "pitch": _round(scene.grid.pitch_in, 5),
                "origin": [_round(scene.grid.origin[0]), _round(scene.grid.origin[1])],
                "angle_deg": _round(scene.grid.angle_deg, 3)}
        if scene.grid.orientation is not None:
            grid["orientation"] = scene.grid.orientation
    terrain = []
    for t in scene.terrain:
        item: dict[str, Any] = {"id": t.id, "kind": t.kind, "polygon": _ring(t.polygon)}
        if t.crest is not None:
            item["crest"] = _ring(t.crest)
        item.update(t.extra)
        terrain.append(item)
    out: dict[str, Any] = {
        "units": "in",
        "table": {"width": scene.table.width_in, "depth": scene.table.depth_in},
        "grid": grid,
        "figures": [figure_to_json(f) for f in scene.figures],
        "terrain": terrain,
    }
    out.update(scene.extra)
    return out
