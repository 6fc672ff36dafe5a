"""Draw a Scene back onto the camera frame, for the tablet: figures, grid, terrain, a ruler corridor.

Everything is drawn in table inches and projected through the registration, so the drawing lands
on the table as the camera sees it. `draw_scene` returns a new image; the frame is never changed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon, box

from measure.scene import Grid, Scene

BGR = tuple[int, int, int]
SIDE_BGR = {"red": (40, 40, 220), "blue": (220, 90, 40)}
DEFAULT_SIDE_BGR = (230, 230, 230)
TERRAIN_BGR = {"woods": (40, 140, 40), "rocks": (160, 160, 160), "hill": (60, 140, 200), "water": (220, 160, 60)}
GRID_BGR = (255, 255, 0)
CLEAR_BGR = (60, 200, 60)
BLOCKED_BGR = (50, 50, 230)


@dataclass(frozen=True)
class Ruler:
    """A ruler laid on the table: its corridor polygon (inches), whether it is clear, and the ids of
    the figures and terrain pieces that block it (outlined)."""
    corridor: Polygon
    clear: bool
    blocked_by: tuple[str, ...] = ()


def _px(registration, points_in) -> np.ndarray:
    return registration.to_image(np.asarray(points_in, np.float64).reshape(-1, 2))


def _poly(image, registration, ring_in, bgr: BGR, thickness: int = 2, closed: bool = True) -> None:
    pts = np.round(_px(registration, ring_in) * 16).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(image, [pts], closed, bgr, thickness, cv2.LINE_AA, 4)


def _circle_ring(x: float, y: float, r: float, n: int = 32) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([x + r * np.cos(t), y + r * np.sin(t)])


def grid_lines(grid: Grid, width_in: float, depth_in: float) -> list[np.ndarray]:
    """The grid's lines inside the table, as (k, 2) polylines in inches."""
    table = box(0, 0, width_in, depth_in)
    a = math.radians(grid.angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    reach = math.hypot(width_in, depth_in) + 2 * grid.pitch_in
    centre_local = rot.T @ (np.array([width_in / 2, depth_in / 2]) - grid.origin)
    if grid.kind == "square":
        p = grid.pitch_in
        ks = np.arange(math.floor((centre_local.min() - reach) / p), math.ceil((centre_local.max() + reach) / p) + 1)
        local = [np.array([[k * p, -reach], [k * p, reach]]) + [0, centre_local[1]] for k in ks]
        local += [np.array([[-reach, k * p], [reach, k * p]]) + [centre_local[0], 0] for k in ks]
    else:
        s = grid.pitch_in / math.sqrt(3)
        flat = (grid.orientation or "flat") == "flat"
        step = (np.array([[1.5 * s, math.sqrt(3) / 2 * s], [0, math.sqrt(3) * s]]) if flat
                else np.array([[math.sqrt(3) * s, 0], [math.sqrt(3) / 2 * s, 1.5 * s]]))
        corner = np.radians(np.arange(7) * 60.0 + (0.0 if flat else 30.0))
        hexagon = np.column_stack([np.cos(corner), np.sin(corner)]) * s
        n = int(reach / (1.5 * s)) + 2
        q, r = np.meshgrid(np.arange(-n, n + 1), np.arange(-n, n + 1))
        qr = np.column_stack([q.ravel(), r.ravel()])
        base = np.linalg.solve(step.T, centre_local)
        centres = (qr + np.round(base)) @ step
        centres = centres[np.hypot(*(centres - centre_local).T) < reach / 2 + 2 * s]
        local = [c + hexagon for c in centres]
    lines = shapely.linestrings([np.asarray(line) @ rot.T + grid.origin for line in local])
    clipped = shapely.intersection(lines, table)
    out = []
    for geom in clipped:
        for part in getattr(geom, "geoms", [geom]):
            if not part.is_empty and part.geom_type == "LineString":
                out.append(np.asarray(part.coords))
    return out


def draw_scene(frame_bgr: np.ndarray, scene: Scene, registration, *, ruler: Ruler | None = None,
               show_grid: bool = True) -> np.ndarray:
    """A copy of the frame with the scene drawn on it."""
    image = frame_bgr.copy() if frame_bgr.ndim == 3 else cv2.cvtColor(frame_bgr, cv2.COLOR_GRAY2BGR)
    if show_grid and scene.grid is not None:
        for line in grid_lines(scene.grid, scene.table.width_in, scene.table.depth_in):
            _poly(image, registration, line, GRID_BGR, 1, closed=False)
    for piece in scene.terrain:
        _poly(image, registration, np.asarray(piece.polygon.exterior.coords), TERRAIN_BGR.get(piece.kind, (200, 200, 200)), 2)
    blockers = set(ruler.blocked_by) if ruler is not None else set()
    if ruler is not None:
        colour = CLEAR_BGR if ruler.clear else BLOCKED_BGR
        tint = image.copy()
        pts = np.round(_px(registration, np.asarray(ruler.corridor.exterior.coords)) * 16).astype(np.int32)
        cv2.fillPoly(tint, [pts.reshape(-1, 1, 2)], colour, cv2.LINE_AA, 4)
        image = cv2.addWeighted(tint, 0.45, image, 0.55, 0)
        cv2.polylines(image, [pts.reshape(-1, 1, 2)], True, colour, 2, cv2.LINE_AA, 4)
        for piece in scene.terrain:
            if piece.id in blockers:
                _poly(image, registration, np.asarray(piece.polygon.exterior.coords), BLOCKED_BGR, 4)
    for fig in scene.figures:
        colour = SIDE_BGR.get(fig.side or "", DEFAULT_SIDE_BGR)
        ring = _circle_ring(fig.x, fig.y, fig.base_in / 2)
        _poly(image, registration, ring, colour, 1 if fig.hidden else 2)
        if fig.id in blockers:
            _poly(image, registration, _circle_ring(fig.x, fig.y, fig.base_in / 2 + 0.08), BLOCKED_BGR, 4)
        # The name players use (the roster's), in the side's colour; Hershey fonts draw ASCII only.
        label = (fig.name or fig.id) + (" (hidden)" if fig.hidden else "")
        label = label.encode("ascii", "replace").decode("ascii")
        anchor = _px(registration, [[fig.x + fig.base_in / 2, fig.y]])[0]
        org = (int(anchor[0]) + 4, int(anchor[1]) + 4)
        scale = max(0.45, image.shape[1] / 2400)        # readable from across the room on a big screen
        cv2.putText(image, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(image, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 2, cv2.LINE_AA)
    return image
