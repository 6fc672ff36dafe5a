"""Line of sight for many rulers at once: which bases and terrain pieces block each corridor.

`SceneIndex` holds the scene's bases and terrain in two STRtrees; `find_blockers` lays
N corridors and answers, for all of them in one pass (STRtree candidates, then exact numpy
tests: closed-form distances to round bases, measure.clip for polygons), which figures and
pieces block them under a `SightPolicy`:

- figures' bases (round, diameter `base_in`) block when they touch or cross the corridor,
  except the shooter's and the target's own;
- soft terrain (woods, rocks): take the stretch of the ruler's axis that the corridor's
  overlap with the piece covers; it is allowed when it lies within `soft_depth_in` of the
  shooter's centre or within `soft_depth_in` of the target's centre (missiles go half an
  inch into and out of trees); any other overlap blocks. For a piece the shooter or the
  target stands in this is exactly "starts at the shooter's / ends at the target's centre
  and is at most 0.5 in long"; for a piece grazed near an end without reaching the centre
  it allows what lies inside that half inch, which keeps a narrower ruler never more
  blocked than a wider one (see docs/measuring.md);
- hills: a figure is on a hill when its centre is on the hill's polygon. When neither end
  is on the hill, a hill the corridor touches blocks (the target is behind it). When an end
  is on the hill, the hill blocks only if it has a `crest` polygon, the corridor touches the
  crest, and neither end stands on the crest (the ruler goes over the top to a back slope);
- clear kinds (water) never block; blocking kinds (walls, buildings) and kinds the policy
  does not name always block.

A soft piece is judged one connected stretch at a time: where the corridor's overlap with a
concave piece (a U-shaped wood) falls apart into separate stretches, each one is allowed on its
own when it lies within `soft_depth_in` of an end, as the same trees cut as two felt pieces are.

The policy may say more (see measure.sight.SightPolicy):

- terrain_in_the_way = "obstacle_roll": terrain that would block is reported as `in the way`
  (an obstacle roll the step makes), not as a block;
- fire_over_from_hill: a shooter on a hill is not blocked by friendly figures not on a hill;
- elevated_kinds (walls, towers): a shooter standing on one is blocked by no figure, and a piece
  of such a kind never blocks a ruler from or to a figure standing on it.

Touching counts as blocking everywhere; "touching" means within EPS_IN (a millionth inch).
The verdict is symmetric (swapping shooter and target gives the same blockers) except for fire
over from a hill or a wall, which belongs to the shooter.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import shapely

from measure.clip import PolygonEdges, Rulers, ruler_overlap
from measure.distance import EPS_IN, figure_arrays
from measure.scene import Figure, Scene, SceneError
from measure.sight import LosResult, MeasureSettings, SightPolicy, resolve_width

CLEAR, BLOCKING, SOFT, HILL = 0, 1, 2, 3


@dataclass(frozen=True, eq=False)
class SceneIndex:
    """A scene's bases and terrain as parallel arrays; build once, query often.

    The STRtrees hold the bases' and pieces' bounding boxes grown by half a ruler width, so a
    ruler's centre line finds every base and piece its rectangle could touch; they are built
    on first use for each width and kept.
    """
    figure_ids: tuple[str, ...]
    side_code: np.ndarray           # (N,) a number per side, -1 where the side is unknown
    xy: np.ndarray                  # (N, 2) base centres
    x: np.ndarray                   # (N,) the same, one coordinate per array (fast gathers)
    y: np.ndarray
    radius_in: np.ndarray           # (N,) base radii
    terrain_ids: tuple[str, ...]
    terrain_kinds: tuple[str, ...]
    polygons: np.ndarray            # (T,) terrain polygons (prepared)
    crests: np.ndarray              # (T,) crest polygons or None (prepared)
    bounds: tuple[np.ndarray, ...]  # terrain bounding boxes: xmin, ymin, xmax, ymax arrays
    edges: PolygonEdges             # terrain polygon edges, for the exact ruler test
    crest_edges: PolygonEdges
    _cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, scene: Scene) -> "SceneIndex":
        xy, base = figure_arrays(scene)
        polygons = np.array([t.polygon for t in scene.terrain] + [None], dtype=object)[:-1]
        crests = np.array([t.crest for t in scene.terrain] + [None], dtype=object)[:-1]
        shapely.prepare(polygons)       # caches point-in-polygon structures on the (immutable) shapes
        shapely.prepare(crests)
        bounds = shapely.bounds(polygons).reshape(-1, 4)
        codes: dict[str, int] = {}
        side_code = np.array([-1 if f.side is None else codes.setdefault(f.side, len(codes)) for f in scene.figures],
                             dtype=np.int64)
        return cls(
            figure_ids=tuple(f.id for f in scene.figures), side_code=side_code, xy=xy, x=xy[:, 0].copy(), y=xy[:, 1].copy(),
            radius_in=base / 2.0,
            terrain_ids=tuple(t.id for t in scene.terrain),
            terrain_kinds=tuple(t.kind for t in scene.terrain),
            polygons=polygons, crests=crests,
            bounds=tuple(bounds[:, i].copy() for i in range(4)),
            edges=PolygonEdges.of(polygons), crest_edges=PolygonEdges.of(crests))

    def figure_tree(self, margin_in: float) -> shapely.STRtree:
        """STRtree over base bounding boxes grown by `margin_in`."""
        key = ("figures", margin_in)
        if key not in self._cache:
            grow = self.radius_in + margin_in
            self._cache[key] = shapely.STRtree(shapely.box(self.x - grow, self.y - grow,
                                                           self.x + grow, self.y + grow))
        return self._cache[key]

    def terrain_tree(self, margin_in: float, policy: SightPolicy) -> tuple[shapely.STRtree, np.ndarray]:
        """STRtree over the bounding boxes, grown by `margin_in`, of the pieces that can block
        under `policy` (not its clear kinds), and those pieces' terrain indices."""
        key = ("terrain", margin_in, policy)
        if key not in self._cache:
            pieces = np.flatnonzero(self.kind_classes(policy) != CLEAR)
            x0, y0, x1, y1 = (b.take(pieces) for b in self.bounds)
            tree = shapely.STRtree(shapely.box(x0 - margin_in, y0 - margin_in, x1 + margin_in, y1 + margin_in))
            self._cache[key] = (tree, pieces)
        return self._cache[key]

    def figure_on(self, kinds: tuple[str, ...]) -> np.ndarray:
        """(N,) bool: the figure's centre is on (or at the edge of) a piece of one of `kinds`."""
        key = ("on", kinds)
        if key not in self._cache:
            on = np.zeros(len(self.figure_ids), bool)
            pieces = np.flatnonzero(np.isin(np.array(self.terrain_kinds + ("",), dtype=object)[:-1], kinds))
            if len(pieces) and len(on):
                fig, _ = shapely.STRtree(self.polygons[pieces]).query(shapely.points(self.xy), predicate="intersects")
                on[fig] = True
            self._cache[key] = on
        return self._cache[key]

    def convex(self) -> np.ndarray:
        """(T,) bool: the piece is convex with no holes (a ruler crosses it in one stretch)."""
        if "convex" not in self._cache:
            hull = shapely.area(shapely.convex_hull(self.polygons)) if len(self.polygons) else np.empty(0)
            area = shapely.area(self.polygons) if len(self.polygons) else np.empty(0)
            holes = shapely.get_num_interior_rings(self.polygons) if len(self.polygons) else np.empty(0)
            self._cache["convex"] = (area >= hull * (1 - 1e-9)) & (holes == 0)
        return self._cache["convex"]

    def position(self, figure_id: str) -> int:
        try:
            return self.figure_ids.index(figure_id)
        except ValueError:
            raise SceneError(f"unknown figure id {figure_id!r} (the scene has: "
                             f"{', '.join(self.figure_ids) or 'no figures'})") from None

    def kind_classes(self, policy: SightPolicy) -> np.ndarray:
        def klass(kind: str) -> int:
            if kind in policy.clear_kinds:
                return CLEAR
            if kind in policy.soft_kinds:
                return SOFT
            if kind in policy.hill_kinds:
                return HILL
            return BLOCKING                 # wall, building, and any kind we do not know
        key = ("kinds", policy)
        if key not in self._cache:
            self._cache[key] = np.array([klass(k) for k in self.terrain_kinds], dtype=np.int8)
        return self._cache[key]


@dataclass(frozen=True, eq=False)
class Blockers:
    """Blockers of N corridors as flat arrays, sorted by pair then scene order.

    Entry k says: corridor `pair[k]` is blocked by figure `index[k]` (when `is_terrain[k]`
    is False) or terrain piece `index[k]`.
    """
    pair: np.ndarray
    is_terrain: np.ndarray
    index: np.ndarray
    n_pairs: int
    obstacle: np.ndarray | None = None   # entry is only in the way (an obstacle roll), not a block

    def _hard(self) -> np.ndarray:
        return np.ones(len(self.pair), bool) if self.obstacle is None else ~self.obstacle

    @property
    def blocked(self) -> np.ndarray:
        return np.bincount(self.pair[self._hard()], minlength=self.n_pairs) > 0

    @property
    def obstructed(self) -> np.ndarray:
        """Corridors with terrain in the way that calls for an obstacle roll."""
        if self.obstacle is None:
            return np.zeros(self.n_pairs, bool)
        return np.bincount(self.pair[self.obstacle], minlength=self.n_pairs) > 0

    def ids(self, scene_index: SceneIndex) -> list[tuple[str, ...]]:
        """Blocker ids per corridor (figures first, then terrain, each in scene order)."""
        return self._ids(scene_index, self._hard())

    def obstacle_ids(self, scene_index: SceneIndex) -> list[tuple[str, ...]]:
        """Ids of the terrain in the way (obstacle rolls) per corridor."""
        if self.obstacle is None:
            return [()] * self.n_pairs
        return self._ids(scene_index, self.obstacle)

    def _ids(self, scene_index: SceneIndex, keep: np.ndarray) -> list[tuple[str, ...]]:
        names = [*scene_index.figure_ids, *scene_index.terrain_ids]
        flat = [names[i] for i in np.where(self.is_terrain[keep], len(scene_index.figure_ids) + self.index[keep],
                                           self.index[keep]).tolist()]
        out: list[tuple[str, ...]] = [()] * self.n_pairs
        pair = self.pair[keep].tolist()
        start = 0
        for end in (np.flatnonzero(np.diff(self.pair[keep])) + 1).tolist() + [len(pair)]:
            if end > start:
                out[pair[start]] = tuple(flat[start:end])
            start = end
        return out


def _figure_hits(idx: SceneIndex, ci, fi, a_idx, b_idx, rulers: Rulers) -> tuple[np.ndarray, np.ndarray]:
    """Of the candidate (ruler, base) pairs, the bases that touch or cross the ruler.

    The exact test is the closed-form distance from a base centre to the ruler rectangle, so a
    round base that exactly touches the ruler's edge counts (a polygon circle would fall short).
    The ruler's own two bases never count.
    """
    ux, uy = rulers.ux.take(ci), rulers.uy.take(ci)
    rx, ry = idx.x.take(fi) - rulers.x.take(ci), idx.y.take(fi) - rulers.y.take(ci)
    along = rx * ux + ry * uy
    off_end = np.maximum(np.maximum(-along, along - rulers.length.take(ci)), 0.0)
    off_side = np.maximum(np.abs(ry * ux - rx * uy) - rulers.half_in.take(ci), 0.0)
    hit = np.flatnonzero(np.hypot(off_end, off_side) <= idx.radius_in.take(fi) + EPS_IN)
    ci, fi = ci[hit], fi[hit]
    own = (fi == a_idx.take(ci)) | (fi == b_idx.take(ci))   # few rows left: filter last
    return ci[~own], fi[~own]


def _box_may_meet(idx: SceneIndex, ti, r: Rulers) -> np.ndarray:
    """Separating-axis test of each ruler rectangle against a piece's bounding box, on the ruler's
    own two axes (the STRtree has already compared the boxes on the table's axes): a cheap filter."""
    x0, y0, x1, y1 = (b.take(ti) for b in idx.bounds)
    ex, ey = (x1 - x0) / 2, (y1 - y0) / 2
    half_len = r.length / 2
    gx, gy = (x0 + ex) - (r.x + r.ux * half_len), (y0 + ey) - (r.y + r.uy * half_len)
    aux, auy = np.abs(r.ux), np.abs(r.uy)
    return ((np.abs(gx * r.ux + gy * r.uy) <= aux * ex + auy * ey + half_len + EPS_IN)
            & (np.abs(gy * r.ux - gx * r.uy) <= auy * ex + aux * ey + r.half_in + 2 * EPS_IN))


SPLIT_QUERY_ITEMS = 256     # trees bigger than this are queried with rulers cut into pieces
PIECE_IN = 3.0


def _query(tree: shapely.STRtree, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(line, item) pairs whose bounding boxes meet: the candidates of the exact tests.

    On a big table a long diagonal ruler's bounding box holds thousands of bases it never comes
    near, and the candidate arrays grow with the square of the figures. There the rulers are cut
    into pieces PIECE_IN long and each piece's (small) box is queried: the pieces' boxes cover the
    line, so no candidate is lost, and the duplicates are merged.
    """
    if len(tree) <= SPLIT_QUERY_ITEMS or not len(lines):
        return tree.query(lines)
    coords = shapely.get_coordinates(lines).reshape(-1, 2, 2)
    a, b = coords[:, 0], coords[:, 1]
    count = np.maximum(np.ceil(np.hypot(*(b - a).T) / PIECE_IN), 1).astype(np.int64)
    line = np.repeat(np.arange(len(lines)), count)
    j = np.arange(len(line)) - np.repeat(np.cumsum(count) - count, count)
    f0, f1 = (j / count[line])[:, None], ((j + 1) / count[line])[:, None]
    d = (b - a)[line]
    pieces = shapely.linestrings(np.stack([a[line] + d * f0, a[line] + d * f1], axis=1))
    pi, item = tree.query(pieces)
    keys = line[pi] * len(tree) + item
    keys.sort()
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys
    return keys // len(tree), keys % len(tree)


def _candidates(idx: SceneIndex, half: np.ndarray, lines: np.ndarray, figures: bool, terrain: bool,
                policy: SightPolicy):
    """STRtree candidates: (ruler, base) and (ruler, piece) index pairs, one query per ruler width."""
    fig, ter = [], []
    for h in sorted(set(half.tolist())):           # usually two widths: the edge and the full ruler
        sel = np.flatnonzero(half == h) if len(half) else half.astype(np.int64)
        margin = h + 2 * EPS_IN
        if figures:
            ci, fi = _query(idx.figure_tree(margin), lines[sel])
            fig.append((sel[ci], fi))
        if terrain:
            tree, pieces = idx.terrain_tree(margin, policy)
            ci, ti = _query(tree, lines[sel])
            ter.append((sel[ci], pieces[ti]))

    def join(parts):
        if not parts:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    return join(fig), join(ter)


def find_blockers(idx: SceneIndex, a_idx, b_idx, width_in, policy: SightPolicy) -> Blockers:
    """Blockers of the corridors from figure a_idx[k] to figure b_idx[k], width_in[k] wide."""
    a_idx = np.asarray(a_idx, dtype=np.int64)
    b_idx = np.asarray(b_idx, dtype=np.int64)
    n = len(a_idx)
    half = np.ascontiguousarray(np.broadcast_to(np.asarray(width_in, dtype=float), (n,))) / 2.0
    ax, ay, bx, by = (v.take(i) for v, i in ((idx.x, a_idx), (idx.y, a_idx), (idx.x, b_idx), (idx.y, b_idx)))
    rulers = Rulers.between(ax, ay, bx, by, half, EPS_IN)
    lines = shapely.linestrings(np.stack([ax, ay, bx, by], axis=1).reshape(-1, 2, 2)) if n else np.empty(0, object)
    with_figures = policy.figures_block and n > 0 and len(idx.figure_ids) > 0
    with_terrain = n > 0 and len(idx.terrain_ids) > 0
    (fci, ffi), (tci, tti) = _candidates(idx, half, lines, with_figures, with_terrain, policy)
    pairs, terrain_flags, hits = [], [], []

    if with_figures:
        ci, fi = _figure_hits(idx, fci, ffi, a_idx, b_idx, rulers)
        if policy.elevated_kinds or policy.fire_over_from_hill:
            keep = ~_fired_over(idx, a_idx.take(ci), fi, policy)
            ci, fi = ci[keep], fi[keep]
        pairs.append(ci), terrain_flags.append(np.zeros(len(ci), bool)), hits.append(fi)

    if with_terrain:
        keep = np.flatnonzero(_box_may_meet(idx, tti, rulers.take(tci)))
        ci, ti = tci[keep], tti[keep]
        klass = idx.kind_classes(policy).take(ti)
        r = rulers.take(ci)
        soft = klass == SOFT
        meets, t_min, t_max = ruler_overlap(idx.edges, ti, r, EPS_IN, stretch=soft)
        # Soft: the overlap must lie within soft_depth_in of the shooter's or the target's centre.
        reach = policy.soft_depth_in + EPS_IN
        blocks = meets & ((klass == BLOCKING) | (soft & (t_max > reach) & (t_min < r.length - reach)))
        # A concave soft piece: judge each connected stretch of the corridor inside it on its own.
        split = np.flatnonzero(blocks & soft & ~idx.convex().take(ti))
        if len(split):
            blocks[split] = _stretches_block(idx, ti[split], r.take(split), reach)
        if policy.elevated_kinds:
            high = np.flatnonzero(blocks & np.isin(np.array(idx.terrain_kinds + ("",), dtype=object)[:-1][ti],
                                                   policy.elevated_kinds))
            if len(high):
                polys = idx.polygons.take(ti[high])
                a, b = a_idx.take(ci[high]), b_idx.take(ci[high])
                blocks[high] = ~(shapely.intersects_xy(polys, idx.x.take(a), idx.y.take(a))
                                 | shapely.intersects_xy(polys, idx.x.take(b), idx.y.take(b)))
        hill = np.flatnonzero(meets & (klass == HILL))
        if len(hill):
            blocks[hill] = _hill_blocks(idx, ti[hill], a_idx.take(ci[hill]), b_idx.take(ci[hill]),
                                        r.take(hill))
        pairs.append(ci[blocks]), terrain_flags.append(np.ones(int(blocks.sum()), bool))
        hits.append(ti[blocks])

    pair = np.concatenate(pairs) if pairs else np.empty(0, np.int64)
    is_terrain = np.concatenate(terrain_flags) if pairs else np.empty(0, bool)
    index = np.concatenate(hits) if pairs else np.empty(0, np.int64)
    # Sort by pair, then figures before terrain, each in scene order: one integer key.
    order = np.argsort(pair * (len(idx.figure_ids) + len(idx.terrain_ids) + 1)
                       + np.where(is_terrain, len(idx.figure_ids), 0) + index, kind="stable")
    is_terrain = is_terrain[order]
    obstacle = is_terrain.copy() if policy.terrain_in_the_way == "obstacle_roll" else None
    return Blockers(pair=pair[order].astype(np.int64), is_terrain=is_terrain,
                    index=index[order].astype(np.int64), n_pairs=n, obstacle=obstacle)


def _fired_over(idx: SceneIndex, shooter: np.ndarray, fi: np.ndarray, policy: SightPolicy) -> np.ndarray:
    """Of (shooter, base in the way) rows, the bases the shooter fires over under the policy."""
    over = np.zeros(len(fi), bool)
    if policy.elevated_kinds:
        over |= idx.figure_on(policy.elevated_kinds).take(shooter)
    if policy.fire_over_from_hill:
        on_hill = idx.figure_on(policy.hill_kinds)
        side_a, side_f = idx.side_code.take(shooter), idx.side_code.take(fi)
        over |= on_hill.take(shooter) & ~on_hill.take(fi) & (side_a == side_f) & (side_a >= 0)
    return over


def _stretches_block(idx: SceneIndex, ti: np.ndarray, r: Rulers, reach: float) -> np.ndarray:
    """Exact test for concave soft pieces: does any connected stretch of the corridor (grown by
    EPS_IN, so touching counts) inside the piece reach farther than `reach` from both ends?"""
    h, e = r.half_in + EPS_IN, EPS_IN
    nx, ny = -r.uy * h, r.ux * h
    x0, y0 = r.x - r.ux * e, r.y - r.uy * e
    x1, y1 = r.x + r.ux * (r.length + e), r.y + r.uy * (r.length + e)
    corners = np.stack([np.stack([x0 + nx, y0 + ny], 1), np.stack([x1 + nx, y1 + ny], 1),
                        np.stack([x1 - nx, y1 - ny], 1), np.stack([x0 - nx, y0 - ny], 1)], axis=1)
    overlap = shapely.intersection(shapely.polygons(corners), idx.polygons.take(ti))
    parts, owner = shapely.get_parts(overlap, return_index=True)
    coords, part = shapely.get_coordinates(parts, return_index=True)
    if not len(coords):
        return np.zeros(len(ti), bool)
    row = owner[part]
    t = (coords[:, 0] - r.x[row]) * r.ux[row] + (coords[:, 1] - r.y[row]) * r.uy[row]
    lo = np.full(len(parts), np.inf)
    hi = np.full(len(parts), -np.inf)
    np.minimum.at(lo, part, t)
    np.maximum.at(hi, part, t)
    blocking = (hi > reach) & (lo < r.length[owner] - reach)
    return np.bincount(owner[blocking], minlength=len(ti)) > 0


def _hill_blocks(idx: SceneIndex, ti, a, b, rulers: Rulers) -> np.ndarray:
    """For rulers that meet a hill: hidden by it (see the module notes)?"""
    polys, crests = idx.polygons.take(ti), idx.crests.take(ti)
    # "On" a hill or crest within 2 EPS_IN: a ruler that touches a hill only at its end (within
    # EPS_IN) then never hides a target standing on the hill's edge by float rounding alone.
    a_pt, b_pt = shapely.points(idx.xy[a].reshape(-1, 2)), shapely.points(idx.xy[b].reshape(-1, 2))
    on_hill = shapely.dwithin(polys, a_pt, 2 * EPS_IN) | shapely.dwithin(polys, b_pt, 2 * EPS_IN)
    blocks = ~on_hill
    # An end on the hill: hidden only when the ruler goes over a crest neither end stands on.
    check = np.flatnonzero(on_hill & ~shapely.is_missing(crests))
    if len(check):
        on_top = (shapely.dwithin(crests[check], a_pt[check], 2 * EPS_IN)
                  | shapely.dwithin(crests[check], b_pt[check], 2 * EPS_IN))
        crest_met, _, _ = ruler_overlap(idx.crest_edges, ti[check], rulers.take(check), EPS_IN,
                                        stretch=np.zeros(len(check), bool))
        blocks[check] = crest_met & ~on_top
    return blocks


def line_of_sight(scene: Scene, a_id: str, b_id: str, width_in: str | float = "edge",
                  policy: SightPolicy = SightPolicy(), settings: MeasureSettings = MeasureSettings(),
                  *, index: SceneIndex | None = None) -> LosResult:
    """Lay a ruler `width_in` wide ("edge", "ruler" or inches) from a's centre to b's centre."""
    idx = index or SceneIndex.build(scene)
    a, b = idx.position(a_id), idx.position(b_id)
    if a == b:
        raise SceneError(f"figure {a_id!r}: a figure cannot sight itself")
    width = resolve_width(width_in, settings)
    blockers = find_blockers(idx, [a], [b], np.array([width]), policy)
    centre = float(np.hypot(*(idx.xy[b] - idx.xy[a])))
    edge = centre - idx.radius_in[a] - idx.radius_in[b]
    blocked_by = blockers.ids(idx)[0]
    return LosResult(clear=not blocked_by, width_in=width, distance_in=centre,
                     edge_distance_in=0.0 if edge <= EPS_IN else float(edge), blocked_by=blocked_by,
                     in_the_way=blockers.obstacle_ids(idx)[0])


def point_of(scene: Scene, to: str | None = None, cell: str | None = None) -> tuple[tuple[float, float], str]:
    """A point target from text: `to` "X,Y" in table inches, or `cell` "COL,ROW" (square) / "Q,R"
    (axial hex) on the scene's grid, its centre. Returns the point and words for it."""
    if (to is None) == (cell is None):
        raise SceneError("point: give either a table point X,Y or a grid space COL,ROW")
    text = to if to is not None else cell
    parts = str(text).split(",")
    what = "point" if to is not None else "space"
    try:
        if len(parts) != 2:
            raise ValueError
        values = [float(p) for p in parts] if to is not None else [int(p) for p in parts]
    except ValueError:
        raise SceneError(f"{what}: expected two numbers separated by a comma, got {str(text)[:40]!r}") from None
    if to is not None:
        x, y = values
        if not (np.isfinite(x) and np.isfinite(y)):
            raise SceneError(f"point: expected finite inches, got {str(text)[:40]!r}")
        return (x, y), f"the point ({x:g}, {y:g})"
    if scene.grid is None:
        raise SceneError("space: the scene has no grid; give a table point X,Y instead")
    from measure.grid import cell_centre
    x, y = (float(v) for v in cell_centre(scene.grid, np.array(values)))
    return (x, y), f"{scene.grid.kind} {values[0]},{values[1]} (centre {x:.2f}, {y:.2f})"


POINT_ID = "@point"
POINT_BASE_IN = 1e-3    # a point target: a base too small to touch anything a real base would not


def line_of_sight_to_point(scene: Scene, a_id: str, xy: tuple[float, float], width_in: str | float = "edge",
                           policy: SightPolicy = SightPolicy(),
                           settings: MeasureSettings = MeasureSettings()) -> LosResult:
    """A ruler from figure a's centre to a table point (a square or hex centre for a spell such as
    Teleport: "target square must be in line of sight"); the point has no side and no base."""
    x, y = (float(v) for v in xy)
    if not (np.isfinite(x) and np.isfinite(y)):
        raise SceneError(f"point: expected finite x, y in inches, got {xy!r}")
    scene.figure(a_id)
    point = Figure(POINT_ID, x, y, base_in=POINT_BASE_IN, detected_by="manual")
    return line_of_sight(scene.with_figures((*scene.figures, point)), a_id, POINT_ID, width_in, policy, settings)
