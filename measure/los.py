"""Line of sight for many rulers at once: which bases and terrain pieces block each corridor.

`SceneIndex` holds the scene's bases and terrain in two STRtrees; `find_blockers` lays
N corridors and answers, for all of them in one pass of shapely array functions, which
figures and pieces block them under a `SightPolicy`:

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

Touching counts as blocking everywhere; "touching" means within EPS_IN (a millionth inch).
The verdict is symmetric: swapping shooter and target gives the same blockers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely

from measure.corridor import corridors
from measure.distance import EPS_IN, figure_arrays
from measure.scene import Scene
from measure.sight import LosResult, MeasureSettings, SightPolicy, resolve_width

CLEAR, BLOCKING, SOFT, HILL = 0, 1, 2, 3


@dataclass(frozen=True, eq=False)
class SceneIndex:
    """A scene's bases and terrain as parallel arrays plus STRtrees; build once, query often."""
    figure_ids: tuple[str, ...]
    xy: np.ndarray                  # (N, 2) base centres
    radius_in: np.ndarray           # (N,) base radii
    points: np.ndarray              # (N,) shapely Points at the centres
    figure_tree: shapely.STRtree
    terrain_ids: tuple[str, ...]
    terrain_kinds: tuple[str, ...]
    polygons: np.ndarray            # (T,) terrain polygons
    crests: np.ndarray              # (T,) crest polygons or None
    terrain_tree: shapely.STRtree

    @classmethod
    def build(cls, scene: Scene) -> "SceneIndex":
        xy, base = figure_arrays(scene)
        points = shapely.points(xy) if len(xy) else np.empty(0, dtype=object)
        polygons = np.array([t.polygon for t in scene.terrain] + [None], dtype=object)[:-1]
        crests = np.array([t.crest for t in scene.terrain] + [None], dtype=object)[:-1]
        return cls(
            figure_ids=tuple(f.id for f in scene.figures), xy=xy, radius_in=base / 2.0,
            points=points, figure_tree=shapely.STRtree(points),
            terrain_ids=tuple(t.id for t in scene.terrain),
            terrain_kinds=tuple(t.kind for t in scene.terrain),
            polygons=polygons, crests=crests, terrain_tree=shapely.STRtree(polygons))

    def position(self, figure_id: str) -> int:
        try:
            return self.figure_ids.index(figure_id)
        except ValueError:
            from measure.scene import SceneError
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
        return np.array([klass(k) for k in self.terrain_kinds], dtype=np.int8)


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

    @property
    def blocked(self) -> np.ndarray:
        return np.bincount(self.pair, minlength=self.n_pairs) > 0

    def ids(self, scene_index: SceneIndex) -> list[tuple[str, ...]]:
        """Blocker ids per corridor (figures first, then terrain, each in scene order)."""
        names = np.array(list(scene_index.figure_ids) + list(scene_index.terrain_ids) + [""],
                         dtype=object)
        flat = names[np.where(self.is_terrain, len(scene_index.figure_ids) + self.index, self.index)]
        bounds = np.searchsorted(self.pair, np.arange(self.n_pairs + 1))
        return [tuple(flat[bounds[i]:bounds[i + 1]]) for i in range(self.n_pairs)]


def _figure_hits(idx: SceneIndex, corr, a_idx, b_idx) -> tuple[np.ndarray, np.ndarray]:
    if len(idx.figure_ids) == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    reach = float(idx.radius_in.max()) + EPS_IN
    ci, fi = idx.figure_tree.query(corr, predicate="dwithin", distance=reach)
    own = (fi == a_idx[ci]) | (fi == b_idx[ci])
    ci, fi = ci[~own], fi[~own]
    hit = shapely.distance(corr[ci], idx.points[fi]) <= idx.radius_in[fi] + EPS_IN
    return ci[hit], fi[hit]


def _soft_blocks(corr, polys, a_xy, b_xy, depth_in: float) -> np.ndarray:
    """For corridor/piece pairs that meet: does the piece block (more than in/out depth)?"""
    d = b_xy - a_xy
    length = np.hypot(d[:, 0], d[:, 1])
    unit = d / np.where(length > EPS_IN, length, 1.0)[:, None]
    overlap = shapely.intersection(corr, polys)
    # A piece that only grazes the corridor can leave an empty overlap: use the touch point.
    empty = shapely.is_empty(overlap)
    if empty.any():
        overlap[empty] = shapely.shortest_line(corr[empty], polys[empty])
    coords, which = shapely.get_coordinates(overlap, return_index=True)
    t = np.einsum("ij,ij->i", coords - a_xy[which], unit[which])
    t_min = np.full(len(corr), np.inf)
    t_max = np.full(len(corr), -np.inf)
    np.minimum.at(t_min, which, t)
    np.maximum.at(t_max, which, t)
    near_shooter = t_max <= depth_in + EPS_IN
    near_target = t_min >= length - depth_in - EPS_IN
    return ~(near_shooter | near_target)


def _hill_blocks(corr, polys, crests, a_pts, b_pts) -> np.ndarray:
    a_on = shapely.dwithin(polys, a_pts, EPS_IN)
    b_on = shapely.dwithin(polys, b_pts, EPS_IN)
    has_crest = ~shapely.is_missing(crests)
    over_crest = (has_crest & shapely.intersects(crests, corr)
                  & ~shapely.dwithin(crests, a_pts, EPS_IN) & ~shapely.dwithin(crests, b_pts, EPS_IN))
    return (~a_on & ~b_on) | over_crest


def find_blockers(idx: SceneIndex, a_idx, b_idx, width_in, policy: SightPolicy) -> Blockers:
    """Blockers of the corridors from figure a_idx[k] to figure b_idx[k], width_in[k] wide."""
    a_idx = np.asarray(a_idx, dtype=np.int64)
    b_idx = np.asarray(b_idx, dtype=np.int64)
    n = len(a_idx)
    a_xy, b_xy = idx.xy[a_idx], idx.xy[b_idx]
    corr = corridors(a_xy, b_xy, width_in) if n else np.empty(0, dtype=object)
    pairs, terrain_flags, hits = [], [], []

    if policy.figures_block and n:
        ci, fi = _figure_hits(idx, corr, a_idx, b_idx)
        pairs.append(ci), terrain_flags.append(np.zeros(len(ci), bool)), hits.append(fi)

    if len(idx.terrain_ids) and n:
        ci, ti = idx.terrain_tree.query(corr, predicate="dwithin", distance=EPS_IN)
        klass = idx.kind_classes(policy)[ti]
        blocks = klass == BLOCKING
        soft = klass == SOFT
        if soft.any():
            blocks[soft] = _soft_blocks(corr[ci[soft]], idx.polygons[ti[soft]],
                                        a_xy[ci[soft]], b_xy[ci[soft]], policy.soft_depth_in)
        hill = klass == HILL
        if hill.any():
            blocks[hill] = _hill_blocks(corr[ci[hill]], idx.polygons[ti[hill]], idx.crests[ti[hill]],
                                        idx.points[a_idx[ci[hill]]], idx.points[b_idx[ci[hill]]])
        pairs.append(ci[blocks]), terrain_flags.append(np.ones(int(blocks.sum()), bool))
        hits.append(ti[blocks])

    pair = np.concatenate(pairs) if pairs else np.empty(0, np.int64)
    is_terrain = np.concatenate(terrain_flags) if pairs else np.empty(0, bool)
    index = np.concatenate(hits) if pairs else np.empty(0, np.int64)
    order = np.lexsort((index, is_terrain, pair))
    return Blockers(pair=pair[order].astype(np.int64), is_terrain=is_terrain[order],
                    index=index[order].astype(np.int64), n_pairs=n)


def line_of_sight(scene: Scene, a_id: str, b_id: str, width_in: str | float = "edge",
                  policy: SightPolicy = SightPolicy(), settings: MeasureSettings = MeasureSettings(),
                  *, index: SceneIndex | None = None) -> LosResult:
    """Lay a ruler `width_in` wide ("edge", "ruler" or inches) from a's centre to b's centre."""
    idx = index or SceneIndex.build(scene)
    a, b = idx.position(a_id), idx.position(b_id)
    if a == b:
        from measure.scene import SceneError
        raise SceneError(f"figure {a_id!r}: a figure cannot sight itself")
    width = resolve_width(width_in, settings)
    blockers = find_blockers(idx, [a], [b], np.array([width]), policy)
    centre = float(np.hypot(*(idx.xy[b] - idx.xy[a])))
    edge = centre - idx.radius_in[a] - idx.radius_in[b]
    blocked_by = blockers.ids(idx)[0]
    return LosResult(clear=not blocked_by, width_in=width, distance_in=centre,
                     edge_distance_in=0.0 if edge <= EPS_IN else float(edge), blocked_by=blocked_by)
