"""The closest legal target of every shooter, with ties and a reason for every other enemy.

Enemies of a shooter are the figures whose side is known and differs from the shooter's. What
makes an enemy a legal target is the rule system's `TargetPolicy` (measure.sight), applied here
the same way for `targets`, `los`, the tablet and the system's own steps:

- the shooter itself may not shoot while it touches an enemy, unless the policy's
  `engaged_shooters` allows it (reason `shooter_engaged` on every enemy);
- `engaged_targets`: "forbidden": no enemy in a group holding an engaged pair (`engaged`);
  "risk": legal, with the risk `friendly_fire` when the enemy touches one of the shooter's
  friends; "allowed": no check;
- in range, as the policy measures it (centre, edge, spaces; a roll that grows with range is out
  of range once it needs more than the die gives) (`out_of_range`);
- in the arc of fire when the policy has one and the shooter's spec a facing (`out_of_arc`);
- visible through the corridor the shooter's spec needs (measure.los) (`blocked`); terrain that
  only calls for an obstacle roll is the risk `obstacle_roll`, not a block.

The target is the nearest legal enemy (by the policy's measure, then centre to centre, then scene
order); ties are the other legal enemies no more than `tie_in` farther (inches) or as many spaces
away. Every other enemy gets the first reason that applies, in the order of REASONS.

Memory grows with the figures, not their square: shooters are taken in chunks of at most
`chunk_pairs` shooter/enemy pairs, contacts come from an STRtree (measure.engage.contact_pairs),
and `iter_closest_targets` hands each chunk's results over before measuring the next.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Iterator, Mapping, NamedTuple

import numpy as np

from measure.arcs import discs_in_arc, front_corners
from measure.distance import EPS_IN
from measure.engage import contact_pairs, sparse_group_labels
from measure.grid import Grid, cell_distance, cell_of
from measure.los import Blockers, SceneIndex, find_blockers
from measure.scene import Scene
from measure.sight import (MeasureSettings, RangePolicy, ShooterSpec, SightPolicy, TargetPolicy, as_target_policy,
                           resolve_width)

REASONS = ("target", "tie", "shooter_engaged", "engaged", "out_of_range", "out_of_arc", "blocked", "farther")
RISKS = ("obstacle_roll", "friendly_fire")
CHUNK_PAIRS = 20_000        # shooter/enemy pairs measured at once: bounds memory, keeps numpy busy


class EnemyVerdict(NamedTuple):
    """One enemy as one shooter sees it."""
    id: str
    distance_in: float              # centre to centre
    edge_distance_in: float
    reason: str                     # one of REASONS
    blocked_by: tuple[str, ...]     # what blocks the corridor (also given when another reason won)
    measured: float = 0.0           # the distance as the policy measures range (inches or spaces)
    needs: int | None = None        # the roll needed, where the roll grows with range (SMART)
    risks: tuple[str, ...] = ()     # legal, but the step rolls for these (RISKS)
    in_the_way: tuple[str, ...] = ()  # terrain calling for the obstacle roll

    @property
    def legal(self) -> bool:
        return self.reason in ("target", "tie", "farther")


@dataclass(frozen=True, eq=False)
class TargetTable:
    """Every shooter/enemy pair's verdict of one chunk as columns, rows grouped by shooter, nearest first.

    Built in one vectorised pass; `ShooterResult.enemies` turns a shooter's rows into
    EnemyVerdict values when they are read. Corridors are laid at once only for the pairs
    `sighted` (no earlier reason than `blocked` settles them); the other pairs' blockers, still
    reported in their verdicts, are found when the verdicts are first read.
    """
    enemy: np.ndarray               # (P,) figure index of the enemy
    distance_in: np.ndarray         # (P,) centre to centre
    edge_distance_in: np.ndarray    # (P,)
    reason: np.ndarray              # (P,) index into REASONS
    pair: np.ndarray                # (P,) pair number, in the order the pairs were laid out
    blockers: Blockers              # corridors of the pairs `sighted`, in that order
    index: SceneIndex
    measured: np.ndarray | None = None  # (P,) in the range policy's unit
    needs: np.ndarray | None = None     # (P,) int, -1: no roll that grows with range
    risk: np.ndarray | None = None      # (P,) bit i set: RISKS[i] (obstacle_roll added when read)
    sighted: np.ndarray | None = None   # pair numbers `blockers` covers (None: all of them)
    corridors: tuple | None = None      # (a_idx, b_idx, width_in, SightPolicy) of every pair

    def _pair_blockers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per pair number: blocker ids, ids of terrain in the way, obstacle roll (bool)."""
        parts = [(self.sighted, self.blockers)]
        n = self.blockers.n_pairs
        if self.sighted is not None:
            a_idx, b_idx, width_in, sight = self.corridors
            n = len(a_idx)
            rest = np.flatnonzero(~np.isin(np.arange(n), self.sighted))
            if len(rest):
                parts.append((rest, find_blockers(self.index, a_idx[rest], b_idx[rest], width_in[rest], sight)))
        blocked_by = np.empty(n, dtype=object)
        in_way = np.empty(n, dtype=object)
        obstructed = np.zeros(n, bool)
        for rows, blockers in parts:
            at = slice(None) if rows is None else rows
            blocked_by[at] = blockers.ids(self.index)
            in_way[at] = blockers.obstacle_ids(self.index)
            obstructed[at] = blockers.obstructed
        return blocked_by, in_way, obstructed

    @cached_property
    def verdicts(self) -> tuple[EnemyVerdict, ...]:
        """Every row as an EnemyVerdict, built in one go on first read."""
        n = len(self.enemy)
        blocked_by, in_way, obstructed = self._pair_blockers()
        names = np.array(self.index.figure_ids + ("",), dtype=object)[:-1]
        reasons = np.array(REASONS, dtype=object)
        measured = self.distance_in if self.measured is None else self.measured
        needs = [None] * n if self.needs is None else [None if v < 0 else v for v in self.needs.tolist()]
        risk_words = np.empty(1 << len(RISKS), dtype=object)
        risk_words[:] = [tuple(r for i, r in enumerate(RISKS) if bits >> i & 1) for bits in range(1 << len(RISKS))]
        risk = np.zeros(n, np.int64) if self.risk is None else self.risk
        risk = risk | np.where(obstructed[self.pair], 1 << RISKS.index("obstacle_roll"), 0)
        risks = risk_words[risk]
        return tuple(map(_verdict, zip(names[self.enemy].tolist(), self.distance_in.tolist(),
                                       self.edge_distance_in.tolist(), reasons[self.reason].tolist(),
                                       blocked_by[self.pair].tolist(), measured.tolist(), needs, risks.tolist(),
                                       in_way[self.pair].tolist())))


_verdict = partial(tuple.__new__, EnemyVerdict)     # (fields...) -> EnemyVerdict without a Python call


@dataclass(frozen=True)
class ShooterResult:
    shooter: str
    width_in: float
    range_in: float | None          # in `range_unit`
    target: str | None
    distance_in: float | None
    ties: tuple[str, ...]
    table: TargetTable = field(repr=False, compare=False)
    rows: slice = field(repr=False, compare=False)
    engaged: bool = False           # touches an enemy and the policy does not let it shoot
    range_unit: str = "in"          # "in" or "spaces"
    measure: str = "centre"         # how range is measured: centre, edge, spaces

    @cached_property
    def enemies(self) -> tuple[EnemyVerdict, ...]:
        """Every enemy, nearest first (equal distances in scene order)."""
        return self.table.verdicts[self.rows]

    @property
    def others(self) -> tuple[EnemyVerdict, ...]:
        """Enemies that are neither the target nor tied with it."""
        return tuple(e for e in self.enemies if e.reason not in ("target", "tie"))

    def enemy(self, enemy_id: str) -> EnemyVerdict:
        return next(e for e in self.enemies if e.id == enemy_id)


# ---------------------------------------------------------------- range as a policy measures it

def range_cells(scene: Scene, policy: RangePolicy) -> tuple[Grid, np.ndarray]:
    """The grid ranges are counted on (the scene's, else `space_in` squares) and each figure's space."""
    grid = scene.grid or Grid("square", policy.space_in)
    xy = np.array([f.xy for f in scene.figures], dtype=float).reshape(-1, 2)
    cells = cell_of(grid, xy).reshape(-1, 2)
    given = [i for i, f in enumerate(scene.figures) if f.cell is not None]
    if given:
        cells[given] = [scene.figures[i].cell for i in given]
    return grid, cells


def measured_range(policy: RangePolicy, centre_in, edge_in, grid: Grid | None = None, a_cell=None,
                   b_cell=None) -> np.ndarray:
    """Range as the policy measures it, for arrays of pairs: inches centre or edge, or whole spaces."""
    if policy.measure == "centre":
        return np.asarray(centre_in, dtype=float)
    if policy.measure == "edge":
        return np.asarray(edge_in, dtype=float)
    spaces = np.asarray(cell_distance(grid, a_cell, b_cell, policy.diagonal), dtype=float)
    return np.ceil(spaces - 1e-9)


def roll_needed(policy: RangePolicy, distance_in) -> np.ndarray:
    """The roll needed at each distance when it grows with range: base_need, +1 for each full
    penalty_step_in past penalty_from_in (SMART: "an archer aiming at a target 50 inches away must
    roll a 12 or higher")."""
    d = np.asarray(distance_in, dtype=float)
    if policy.penalty_from_in is None:
        return np.full(d.shape, -1, dtype=np.int64)
    past = d - policy.penalty_from_in
    steps = np.where(past > 1e-9, np.floor(past / policy.penalty_step_in + 1e-9), 0.0)
    return (policy.base_need + steps).astype(np.int64)


def pair_range(scene: Scene, a_id: str, b_id: str, policy: RangePolicy) -> float:
    """One pair's range as the policy measures it (a step's check of one shot)."""
    a, b = scene.figure(a_id), scene.figure(b_id)
    centre = math.hypot(a.x - b.x, a.y - b.y)
    edge = max(centre - (a.base_in + b.base_in) / 2, 0.0)
    if edge <= EPS_IN:
        edge = 0.0
    if policy.measure != "spaces":
        return float(measured_range(policy, centre, edge))
    grid, cells = range_cells(scene, policy)
    ids = [f.id for f in scene.figures]
    return float(measured_range(policy, centre, edge, grid, cells[ids.index(a_id)], cells[ids.index(b_id)]))


# ---------------------------------------------------------------- the ranking

@dataclass(frozen=True)
class _SceneFacts:
    """What every chunk shares: contacts, engaged groups, spaces."""
    side: np.ndarray
    engaged_group: np.ndarray       # (N,) in a group holding an engaged pair
    touching_enemy: np.ndarray      # (N,) touches an enemy itself
    friend_keys: np.ndarray         # sorted keys figure * S + side of a figure it touches
    n_sides: int
    grid: Grid | None
    cells: np.ndarray | None


def _scene_facts(scene: Scene, idx: SceneIndex, policy: TargetPolicy, settings: MeasureSettings) -> _SceneFacts:
    side = idx.side_code
    n = len(side)
    i, j = contact_pairs(scene, settings.engage_gap_in)
    foes = (side[i] != side[j]) & (side[i] >= 0) & (side[j] >= 0)
    touching = np.zeros(n, bool)
    touching[i[foes]] = touching[j[foes]] = True
    labels = sparse_group_labels(n, i, j)
    group = np.zeros(n, bool)
    group[labels[i[foes]]] = True
    n_sides = int(side.max(initial=-1)) + 2
    keys = np.empty(0, np.int64)
    if policy.engaged_targets == "risk":
        known_i, known_j = side[j] >= 0, side[i] >= 0
        keys = np.sort(np.concatenate([i[known_i] * n_sides + side[j][known_i],
                                       j[known_j] * n_sides + side[i][known_j]]))
    grid = cells = None
    if policy.range.measure == "spaces":
        grid, cells = range_cells(scene, policy.range)
    return _SceneFacts(side, group[labels], touching, keys, n_sides, grid, cells)


def closest_targets(scene: Scene, shooter_specs: Mapping[str, ShooterSpec],
                    policy: SightPolicy | TargetPolicy = SightPolicy(), settings: MeasureSettings = MeasureSettings(),
                    *, index: SceneIndex | None = None, chunk_pairs: int | None = None) -> tuple[ShooterResult, ...]:
    """One result per shooter named in `shooter_specs`, in scene order.

    `policy`: a TargetPolicy; a bare SightPolicy means KIMMIRIA's target rules with engaged
    shooters left to the caller (the older form).
    """
    return tuple(iter_closest_targets(scene, shooter_specs, policy, settings, index=index, chunk_pairs=chunk_pairs))


def iter_closest_targets(scene: Scene, shooter_specs: Mapping[str, ShooterSpec],
                         policy: SightPolicy | TargetPolicy = SightPolicy(),
                         settings: MeasureSettings = MeasureSettings(), *, index: SceneIndex | None = None,
                         chunk_pairs: int | None = None) -> Iterator[ShooterResult]:
    """`closest_targets`, one chunk of shooters at a time (for tables of thousands of figures);
    `chunk_pairs`: shooter/enemy pairs per chunk (default CHUNK_PAIRS)."""
    target_policy = as_target_policy(policy)
    idx = index or SceneIndex.build(scene)
    positions = {fid: idx.position(fid) for fid in shooter_specs}      # unknown ids raise here
    shooters = np.array(sorted(positions.values()), dtype=np.int64)
    if not len(shooters):
        return
    facts = _scene_facts(scene, idx, target_policy, settings)
    known = np.flatnonzero(facts.side >= 0)
    per_chunk = max(1, (chunk_pairs or CHUNK_PAIRS) // max(len(known), 1))
    for start in range(0, len(shooters), per_chunk):
        yield from _rank_chunk(scene, shooter_specs, shooters[start:start + per_chunk], known, idx, facts,
                               target_policy, settings)


def _rank_chunk(scene: Scene, shooter_specs, shooters: np.ndarray, known: np.ndarray, idx: SceneIndex,
                facts: _SceneFacts, policy: TargetPolicy, settings: MeasureSettings) -> list[ShooterResult]:
    specs = [shooter_specs[idx.figure_ids[s]] for s in shooters.tolist()]
    widths = np.array([resolve_width(spec.width, settings) for spec in specs], dtype=float)
    ranges = np.array([np.inf if spec.range_in is None else float(spec.range_in) for spec in specs])
    facing = np.array([np.nan if spec.facing_deg is None else float(spec.facing_deg) for spec in specs])

    # Every shooter/enemy pair of the chunk.
    side = facts.side
    row = np.repeat(np.arange(len(shooters)), len(known))
    b_idx = np.tile(known, len(shooters))
    a_side = side.take(shooters.take(row))
    enemy = (side.take(b_idx) != a_side) & (a_side >= 0)
    row, b_idx = row[enemy], b_idx[enemy]
    a_idx = shooters[row]
    dist = np.hypot(idx.x.take(a_idx) - idx.x.take(b_idx), idx.y.take(a_idx) - idx.y.take(b_idx))
    edge = dist - idx.radius_in.take(a_idx) - idx.radius_in.take(b_idx)
    edge = np.where(edge <= EPS_IN, 0.0, edge)
    rp = policy.range
    if rp.measure == "spaces":
        measured = measured_range(rp, dist, edge, facts.grid, facts.cells[a_idx], facts.cells[b_idx])
    else:
        measured = measured_range(rp, dist, edge)
    needs = roll_needed(rp, dist)

    shooter_engaged = np.zeros(len(row), bool) if policy.engaged_shooters else facts.touching_enemy.take(a_idx)
    engaged = np.zeros(len(row), bool)
    risk = np.zeros(len(row), np.int64)
    if policy.engaged_targets == "forbidden":
        engaged = facts.engaged_group.take(b_idx)
    elif policy.engaged_targets == "risk" and len(facts.friend_keys):
        friends = b_idx * facts.n_sides + side.take(a_idx)
        pos = np.searchsorted(facts.friend_keys, friends)
        hit = facts.friend_keys.take(np.minimum(pos, len(facts.friend_keys) - 1)) == friends
        risk |= np.where(hit, 1 << RISKS.index("friendly_fire"), 0)
    out_of_range = measured > ranges[row] + EPS_IN
    if rp.penalty_from_in is not None:
        out_of_range |= needs > rp.max_need
    out_of_arc = np.zeros(len(row), bool)
    if policy.arc_deg is not None:
        check = np.flatnonzero(~np.isnan(facing[row]))
        if len(check):
            a = a_idx.take(check)
            face = facing[row[check]]
            left, right = front_corners(idx.xy[a], 2 * idx.radius_in.take(a), face)
            b = b_idx.take(check)
            out_of_arc[check] = ~discs_in_arc(left, right, face, policy.arc_deg, idx.xy[b], idx.radius_in.take(b))
    # Corridors only where no earlier reason settles the pair; the rest are laid when read.
    settled = shooter_engaged | engaged | out_of_range | out_of_arc
    pair_width = widths[row]
    if settled.any():
        sighted = np.flatnonzero(~settled)
        blockers = find_blockers(idx, a_idx[sighted], b_idx[sighted], pair_width[sighted], policy.sight)
        blocked = np.zeros(len(row), bool)
        blocked[sighted] = blockers.blocked
        corridors = (a_idx, b_idx, pair_width, policy.sight)
    else:
        sighted = corridors = None
        blockers = find_blockers(idx, a_idx, b_idx, pair_width, policy.sight)
        blocked = blockers.blocked
    legal = ~shooter_engaged & ~engaged & ~out_of_range & ~out_of_arc & ~blocked

    # Per shooter: nearest first (by the policy's measure, then centre, then scene order); the
    # first legal one is the target and the legal ones within the tie tolerance of it tie.
    order = np.lexsort((b_idx, dist, measured, row))
    row, b_idx, dist, measured, legal = row[order], b_idx[order], dist[order], measured[order], legal[order]
    best = np.full(len(shooters), np.inf)
    np.minimum.at(best, row[legal], measured[legal])
    tie = 0.0 if rp.measure == "spaces" else settings.tie_in
    near = legal & (measured <= best[row] + tie + EPS_IN)
    first = near & (measured == best[row])
    if first.any():                                  # equal nearest: the first in this order
        first[first] = np.r_[True, row[first][1:] != row[first][:-1]]
    reason = np.select([first, near, shooter_engaged[order], engaged[order], out_of_range[order], out_of_arc[order],
                        blocked[order]], [0, 1, 2, 3, 4, 5, 6], default=7)
    table = TargetTable(enemy=b_idx, distance_in=dist, edge_distance_in=edge[order], reason=reason, pair=order,
                        blockers=blockers, index=idx, measured=measured, needs=needs[order], risk=risk[order],
                        sighted=sighted, corridors=corridors)

    bounds = np.searchsorted(row, np.arange(len(shooters) + 1)).tolist()
    target_rows = np.flatnonzero(first)
    target_of = dict(zip(row[target_rows].tolist(), target_rows.tolist()))
    tie_rows = np.flatnonzero(reason == 1)
    ties_of: dict[int, list[str]] = {}
    for r, k in zip(row[tie_rows].tolist(), b_idx[tie_rows].tolist()):
        ties_of.setdefault(r, []).append(idx.figure_ids[k])
    shooter_touching = facts.touching_enemy.take(shooters)
    results = []
    for i, s in enumerate(shooters.tolist()):
        t = target_of.get(i)
        results.append(ShooterResult(
            shooter=idx.figure_ids[s], width_in=float(widths[i]),
            range_in=None if np.isinf(ranges[i]) else float(ranges[i]),
            target=idx.figure_ids[int(b_idx[t])] if t is not None else None,
            distance_in=float(dist[t]) if t is not None else None,
            ties=tuple(ties_of.get(i, ())), table=table, rows=slice(bounds[i], bounds[i + 1]),
            engaged=bool(shooter_touching[i]) and not policy.engaged_shooters,
            range_unit=rp.unit, measure=rp.measure))
    return results


def shot_verdict(scene: Scene, shooter_id: str, target_id: str, spec: ShooterSpec, policy: TargetPolicy,
                 settings: MeasureSettings = MeasureSettings()) -> EnemyVerdict:
    """One shot as the ranking sees it: what a system's step asks before it rolls (the same answer
    `targets` gives for that pair)."""
    (result,) = closest_targets(scene, {shooter_id: spec}, policy, settings)
    for verdict in result.enemies:
        if verdict.id == target_id:
            return verdict
    scene.figure(target_id)                          # an unknown id: SceneError names it
    raise ValueError(f"{target_id!r} is not an enemy of {shooter_id!r}")
