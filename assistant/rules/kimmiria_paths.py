"""Moves the camera saw: which figures moved between two scenes, and a grid path that explains it.

The camera sees where a figure stood and where it stands now, not the way it went. On a grid,
the cheapest way there under KIMMIRIA's costs (streams and enemies only at the end, water only
for a flying wizard) stands in for the way the player took; on an open table the straight line
does (kimmiria.py costs it inch by inch). The move step then judges the move as usual.
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from measure.grid import cell_of
from measure.scene import Scene

from assistant.rules.kimmiria_move import IMPASSABLE, Space

Cell = tuple[int, int]

SQUARE_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
HEX_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def neighbours(cell: Cell, kind: str = "square", diagonals: bool = True) -> list[Cell]:
    steps = HEX_STEPS if kind == "hex" else (SQUARE_STEPS if diagonals else SQUARE_STEPS[:4])
    return [(cell[0] + dc, cell[1] + dr) for dc, dr in steps]


def cheapest_path(start: Cell, goal: Cell, space_at: Callable[[Cell], Space], costs: Mapping[str, Any],
                  stop_kinds: Sequence[str], fly_kinds: Sequence[str], can_fly: bool,
                  kind: str = "square", diagonals: bool = True, margin: int = 6) -> list[Cell] | None:
    """The cheapest cells to enter from `start` to `goal` (start left out), or None.

    Streams and spaces next to an enemy end a move, so the search never goes on from them unless
    they are the goal; water is crossed only by a flier, at 1 a space. The search stays within
    `margin` spaces of the start/goal box.
    """
    lo = (min(start[0], goal[0]) - margin, min(start[1], goal[1]) - margin)
    hi = (max(start[0], goal[0]) + margin, max(start[1], goal[1]) + margin)
    best: dict[Cell, float] = {start: 0.0}
    back: dict[Cell, Cell] = {}
    queue: list[tuple[float, Cell]] = [(0.0, start)]
    while queue:
        cost, cell = heapq.heappop(queue)
        if cell == goal:
            path = [cell]
            while path[-1] in back and back[path[-1]] != start:
                path.append(back[path[-1]])
            return path[::-1]
        if cost > best.get(cell, math.inf):
            continue
        here = space_at(cell)
        if cell != start and (here.kind in stop_kinds or here.next_to_enemy):
            continue                                   # entering it ended the move
        for nxt in neighbours(cell, kind, diagonals):
            if not (lo[0] <= nxt[0] <= hi[0] and lo[1] <= nxt[1] <= hi[1]):
                continue
            space = space_at(nxt)
            if space.kind in fly_kinds:
                if not can_fly:
                    continue
                step = 1.0
            else:
                c = costs.get(space.kind, IMPASSABLE)
                if c == IMPASSABLE:
                    continue
                step = float(c)
            if cost + step < best.get(nxt, math.inf):
                best[nxt] = cost + step
                back[nxt] = cell
                heapq.heappush(queue, (cost + step, nxt))
    return None


def moved_figures(before: Scene, after: Scene, min_in: float = 0.25) -> list[str]:
    """Figures in both scenes whose space (on a grid) or position (more than `min_in`) changed."""
    now = {f.id: f for f in after.figures}
    out = []
    for f in before.figures:
        g = now.get(f.id)
        if g is None:
            continue
        if before.grid is not None:
            a = f.cell or tuple(int(v) for v in cell_of(before.grid, f.xy))
            b = g.cell or tuple(int(v) for v in cell_of(before.grid, g.xy))
            if a != b:
                out.append(f.id)
        elif math.dist(f.xy, g.xy) > min_in:
            out.append(f.id)
    return out


def group_moved(ids: Iterable[str], touching: Mapping[str, Mapping[str, str]]) -> list[list[str]]:
    """Moved figures split into groups: each set of them that touched one another before the move."""
    left = list(ids)
    members = set(left)
    groups = []
    while left:
        first = left.pop(0)
        group, frontier = [first], [first]
        while frontier:
            for other in touching.get(frontier.pop(), {}):
                if other in members and other not in group:
                    group.append(other)
                    frontier.append(other)
                    left.remove(other)
        groups.append(group)
    return groups
