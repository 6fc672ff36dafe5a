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

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from measure.distance import EPS_IN, distance_matrices
from measure.engage import engaged_group_mask, enemy_matrix
from measure.los import SceneIndex, find_blockers
from measure.scene import Scene
from measure.sight import MeasureSettings, ShooterSpec, SightPolicy, resolve_width

REASONS = ("target", "tie", "engaged", "out_of_range", "blocked", "farther")


@dataclass(frozen=True)
class EnemyVerdict:
    id: str
    distance_in: float              # centre to centre
    edge_distance_in: float
    reason: str                     # one of REASONS
    blocked_by: tuple[str, ...]     # what blocks the corridor (also given when another reason won)


@dataclass(frozen=True)
class ShooterResult:
    shooter: str
    width_in: float
    range_in: float | None
    target: str | None
    distance_in: float | None
    ties: tuple[str, ...]
    enemies: tuple[EnemyVerdict, ...]   # every enemy, nearest first

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
    specs = [shooter_specs[idx.figure_ids[s]] for s in shooters]
    widths = np.array([resolve_width(spec.width, settings) for spec in specs], dtype=float)
    ranges = np.array([np.inf if spec.range_in is None else float(spec.range_in) for spec in specs])

    # All shooter/enemy pairs at once.
    enemy = enemy_matrix(scene)[shooters] if len(shooters) else np.zeros((0, len(idx.figure_ids)), bool)
    row, b_idx = np.nonzero(enemy)
    a_idx = shooters[row]
    centre, edge = distance_matrices(scene)
    dist = centre[a_idx, b_idx]
    blockers = find_blockers(idx, a_idx, b_idx, widths[row], policy)
    blocked = blockers.blocked
    engaged = engaged_group_mask(scene, settings.engage_gap_in)[b_idx]
    out_of_range = dist > ranges[row] + EPS_IN
    legal = ~engaged & ~out_of_range & ~blocked

    # Nearest legal distance per shooter, then ties within tie_in of it.
    best = np.full(len(shooters), np.inf)
    np.minimum.at(best, row[legal], dist[legal])
    near = legal & (dist <= best[row] + settings.tie_in + EPS_IN)
    order = np.lexsort((b_idx, dist, row))           # per shooter: nearest first, then scene order
    first = np.zeros(len(row), bool)
    near_sorted = order[near[order]]
    if len(near_sorted):
        starts = np.r_[True, row[near_sorted][1:] != row[near_sorted][:-1]]
        first[near_sorted[starts]] = True

    reason = np.select([first, near, engaged, out_of_range, blocked],
                       [0, 1, 2, 3, 4], default=5)
    blocked_ids = blockers.ids(idx)
    per_shooter: list[list[EnemyVerdict]] = [[] for _ in shooters]
    for k in order.tolist():
        per_shooter[row[k]].append(EnemyVerdict(
            id=idx.figure_ids[b_idx[k]], distance_in=float(dist[k]), edge_distance_in=float(edge[a_idx[k], b_idx[k]]),
            reason=REASONS[reason[k]], blocked_by=blocked_ids[k]))

    results = []
    for i, s in enumerate(shooters.tolist()):
        verdicts = tuple(per_shooter[i])
        target = next((v for v in verdicts if v.reason == "target"), None)
        results.append(ShooterResult(
            shooter=idx.figure_ids[s], width_in=float(widths[i]),
            range_in=None if np.isinf(ranges[i]) else float(ranges[i]),
            target=target.id if target else None, distance_in=target.distance_in if target else None,
            ties=tuple(v.id for v in verdicts if v.reason == "tie"), enemies=verdicts))
    return tuple(results)
