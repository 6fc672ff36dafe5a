"""The closest legal target of every shooter, with ties and a reason for every other enemy.

Enemies of a shooter are the figures whose side is known and differs from the shooter's.
An enemy is a legal target when it is

- not in an engaged group (KIMMIRIA: "you cannot shoot into a group of engaged figures"),
- in range, when the shooter's spec has one (centre to centre), and
- visible through the corridor the shooter's spec needs (measure.los).

The target is the nearest legal enemy (centre to centre; equal distances go to scene
order); ties are the other legal enemies no more than `tie_in` farther. Every other enemy
gets the first reason that applies, in this order: engaged, out_of_range, blocked, farther.
All shooter/enemy pairs are measured in one pass (measure.los.find_blockers).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Mapping, NamedTuple

import numpy as np

from measure.distance import EPS_IN, distance_matrices
from measure.engage import engaged_group_mask, enemy_matrix
from measure.los import Blockers, SceneIndex, find_blockers
from measure.scene import Scene
from measure.sight import MeasureSettings, ShooterSpec, SightPolicy, resolve_width

REASONS = ("target", "tie", "engaged", "out_of_range", "blocked", "farther")


class EnemyVerdict(NamedTuple):
    """One enemy as one shooter sees it."""
    id: str
    distance_in: float              # centre to centre
    edge_distance_in: float
    reason: str                     # one of REASONS
    blocked_by: tuple[str, ...]     # what blocks the corridor (also given when another reason won)


@dataclass(frozen=True, eq=False)
class TargetTable:
    """Every shooter/enemy pair's verdict as columns, rows grouped by shooter, nearest first.

    Built in one vectorised pass; `ShooterResult.enemies` turns a shooter's rows into
    EnemyVerdict values when they are read.
    """
    enemy: np.ndarray               # (P,) figure index of the enemy
    distance_in: np.ndarray         # (P,) centre to centre
    edge_distance_in: np.ndarray    # (P,)
    reason: np.ndarray              # (P,) index into REASONS
    pair: np.ndarray                # (P,) corridor number in `blockers`
    blockers: Blockers
    index: SceneIndex

    @cached_property
    def verdicts(self) -> tuple[EnemyVerdict, ...]:
        """Every row as an EnemyVerdict, built in one go on first read."""
        blocked_by = np.empty(self.blockers.n_pairs, dtype=object)
        blocked_by[:] = self.blockers.ids(self.index)
        names = np.array(self.index.figure_ids + ("",), dtype=object)[:-1]
        reasons = np.array(REASONS, dtype=object)
        return tuple(map(_verdict, zip(names[self.enemy].tolist(), self.distance_in.tolist(),
                                       self.edge_distance_in.tolist(), reasons[self.reason].tolist(),
                                       blocked_by[self.pair].tolist())))


_verdict = partial(tuple.__new__, EnemyVerdict)     # (fields...) -> EnemyVerdict without a Python call


@dataclass(frozen=True)
class ShooterResult:
    shooter: str
    width_in: float
    range_in: float | None
    target: str | None
    distance_in: float | None
    ties: tuple[str, ...]
    table: TargetTable = field(repr=False, compare=False)
    rows: slice = field(repr=False, compare=False)

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


def closest_targets(scene: Scene, shooter_specs: Mapping[str, ShooterSpec],
                    policy: SightPolicy = SightPolicy(), settings: MeasureSettings = MeasureSettings(),
                    *, index: SceneIndex | None = None) -> tuple[ShooterResult, ...]:
    """One result per shooter named in `shooter_specs`, in scene order."""
    idx = index or SceneIndex.build(scene)
    positions = {fid: idx.position(fid) for fid in shooter_specs}      # unknown ids raise here
    shooters = np.array(sorted(positions.values()), dtype=np.int64)
    specs = [shooter_specs[idx.figure_ids[s]] for s in shooters.tolist()]
    widths = np.array([resolve_width(spec.width, settings) for spec in specs], dtype=float)
    ranges = np.array([np.inf if spec.range_in is None else float(spec.range_in) for spec in specs])

    # All shooter/enemy pairs at once.
    centre, edge = distance_matrices(scene)
    enemy_all = enemy_matrix(scene)
    row, b_idx = np.nonzero(enemy_all[shooters]) if len(shooters) else (np.empty(0, np.int64),) * 2
    a_idx = shooters[row]
    dist = centre[a_idx, b_idx]
    blockers = find_blockers(idx, a_idx, b_idx, widths[row], policy)
    blocked = blockers.blocked
    engaged = engaged_group_mask(scene, settings.engage_gap_in, edge=edge, enemy=enemy_all)[b_idx]
    out_of_range = dist > ranges[row] + EPS_IN
    legal = ~engaged & ~out_of_range & ~blocked

    # Per shooter: nearest first (then scene order); the first legal one is the target and the
    # legal ones within tie_in of it tie.
    order = np.lexsort((b_idx, dist, row))
    row, b_idx, dist, legal = row[order], b_idx[order], dist[order], legal[order]
    best = np.full(len(shooters), np.inf)
    np.minimum.at(best, row[legal], dist[legal])
    near = legal & (dist <= best[row] + settings.tie_in + EPS_IN)
    first = near & (dist == best[row])
    if first.any():                                  # equal nearest distances: scene order decides
        first[first] = np.r_[True, row[first][1:] != row[first][:-1]]
    reason = np.select([first, near, engaged[order], out_of_range[order], blocked[order]],
                       [0, 1, 2, 3, 4], default=5)
    table = TargetTable(enemy=b_idx, distance_in=dist, edge_distance_in=edge[a_idx[order], b_idx],
                        reason=reason, pair=order, blockers=blockers, index=idx)

    bounds = np.searchsorted(row, np.arange(len(shooters) + 1)).tolist()
    target_rows = np.flatnonzero(first)
    target_of = dict(zip(row[target_rows].tolist(), target_rows.tolist()))
    tie_rows = np.flatnonzero(reason == 1)
    ties_of: dict[int, list[str]] = {}
    for r, k in zip(row[tie_rows].tolist(), b_idx[tie_rows].tolist()):
        ties_of.setdefault(r, []).append(idx.figure_ids[k])
    results = []
    for i, s in enumerate(shooters.tolist()):
        t = target_of.get(i)
        results.append(ShooterResult(
            shooter=idx.figure_ids[s], width_in=float(widths[i]),
            range_in=None if np.isinf(ranges[i]) else float(ranges[i]),
            target=idx.figure_ids[int(b_idx[t])] if t is not None else None,
            distance_in=float(dist[t]) if t is not None else None,
            ties=tuple(ties_of.get(i, ())), table=table, rows=slice(bounds[i], bounds[i + 1])))
    return tuple(results)
