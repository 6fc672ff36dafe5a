"""KremlinMiniatures units from a Scene: the camera sees bases, the players name units.

A unit is a set of bases: either every base whose scene figure carries the same `unit` key, or
a scenario's `units` object (`unit id -> {"bases": [...], ...}`). A unit's numbers come from its
bases' type in kremlin.toml, and a unit may set its own (the text's "Creating a Unit" steps):
`rating` ("infantry" or "2d6+2"), `hit` ("good" or 4), `save` ("chainmail" or 5), `range`
("long" or 12, "none"), `figures_per_base`, `lost` (figures already lost from the next base),
`hits_left` (monsters), `disordered`, `routing`, `pike`, `alignment` (good / evil),
`facing` (degrees or north/east/south/west), `front_rank`, `commander` (an ally king's id).
Kings and captains whose base is in a unit with other bases are attached to it.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from measure.distance import centre_distance, edge_distance
from measure.scene import Figure, Scene

from assistant.rules.facing import parse_facing
from assistant.rules.kremlin_rules import KremlinError, MoveDice

GENERALS = ("king", "captain", "ally_king")


@dataclass(frozen=True)
class Unit:
    id: str
    side: str | None
    type: str                       # the data's type name of its fighting bases
    bases: tuple[str, ...]          # fighting bases (attached generals apart)
    generals: tuple[str, ...]       # attached king / captain / ally king bases
    general_types: tuple[str, ...]
    move: MoveDice
    hit: int                        # lowest die that hits
    save: int | None                # lowest die that saves; None: no save
    range_in: float | None
    figures_per_base: int
    lost: int = 0
    hits_left: int | None = None    # monsters: "can usually take 6 hits"
    fight_dice: int | None = None   # monsters: "fighting with 4, 5 or 6d6"
    disordered: bool = False
    routing: bool = False
    pike: bool = False
    light: bool = False
    heavy: bool = False
    monster: bool = False
    recoil_kind: str = ""
    alignment: str | None = None
    facing_deg: float | None = None
    front_rank: int | None = None
    commander: str | None = None

    @property
    def alone_general(self) -> bool:
        """A king or captain acting alone ("Are immune from morale/disorder when acting alone")."""
        return self.type in GENERALS

    @property
    def size(self) -> int:
        """Bases for morale and disorder ("or hits remaining" for monsters); attached generals do not count."""
        return self.hits_left if self.monster and self.hits_left is not None else len(self.bases)

    @property
    def all_bases(self) -> tuple[str, ...]:
        return self.bases + self.generals


def _table_value(value: Any, table: Mapping[str, Any], what: str, where: str) -> Any:
    if isinstance(value, str):
        if value not in table:
            raise KremlinError(f"{where}: unknown {what} {value!r}; known: {', '.join(table)}")
        return table[value]
    return value


def parse_rating(value: Any, ratings: Mapping[str, Mapping[str, int]], where: str) -> MoveDice:
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(\d+)d6\s*(?:\+\s*(\d+))?\s*", value)
        if m:
            return MoveDice(int(m.group(1)), int(m.group(2) or 0))
    row = _table_value(value, ratings, "movement rating", where)
    return MoveDice(int(row["dice"]), int(row.get("plus", 0)))


def build_units(scene: Scene, system, given: Mapping[str, Any] | None = None) -> dict[str, Unit]:
    """Every unit on the table: from the scenario's `units`, then the bases' `unit` keys; a base
    in neither is a unit of its own."""
    v = system.values
    specs: dict[str, dict[str, Any]] = {uid: dict(spec) for uid, spec in (given or {}).items()}
    for uid, spec in specs.items():
        if "bases" not in spec:
            specs[uid]["bases"] = []
    named = {b for spec in specs.values() for b in spec["bases"]}
    for fig in scene.figures:
        if fig.id in named:
            continue
        uid = str(fig.extra.get("unit", fig.id))
        spec = specs.setdefault(uid, {"bases": []})
        spec["bases"].append(fig.id)
        for key, value in fig.extra.items():
            if key != "unit":
                spec.setdefault(key, value)
    units = {}
    for uid, spec in specs.items():
        figs = [scene.figure(b) for b in spec["bases"]]
        if not figs:
            raise KremlinError(f"unit {uid!r}: no bases")
        types = [system.type_name(f.type) for f in figs]
        fighting = [(f, t) for f, t in zip(figs, types) if t not in GENERALS] or list(zip(figs, types))
        generals = [(f, t) for f, t in zip(figs, types) if (f, t) not in fighting]
        kinds = {t for _, t in fighting}
        if len(kinds) > 1:
            raise KremlinError(f"unit {uid!r}: bases of different types ({', '.join(sorted(kinds))})")
        sides = {f.side for f in figs}
        if len(sides) > 1:
            raise KremlinError(f"unit {uid!r}: bases of different sides")
        if len(fighting) > v["play"]["max_bases"]:
            raise KremlinError(f"unit {uid!r}: {len(fighting)} bases; 'The maximum size of a unit is "
                               f"{v['play']['max_bases']} bases'")
        utype = fighting[0][1]
        t = v["figure_types"][utype]
        where = f"unit {uid!r}"
        save = int(_table_value(spec.get("save", t["save"]), v["armour_saves"], "armour save", where))
        rng = spec.get("range", t["range"])
        rng = None if rng in ("none", None) else float(_table_value(rng, v["missile_ranges"], "missile range", where))
        monster = bool(t.get("monster"))
        units[uid] = Unit(
            id=uid, side=figs[0].side, type=utype, bases=tuple(f.id for f, _ in fighting),
            generals=tuple(f.id for f, _ in generals), general_types=tuple(g for _, g in generals),
            move=parse_rating(spec.get("rating", t["rating"]), v["movement_ratings"], where),
            hit=int(_table_value(spec.get("hit", t["hit"]), v["hit_chances"], "hit chance", where)),
            save=None if save > 6 else save, range_in=rng,
            figures_per_base=int(spec.get("figures_per_base", t["figures_per_base"])),
            lost=int(spec.get("lost", 0)),
            hits_left=int(spec.get("hits_left", t["hits"])) if monster else None,
            fight_dice=int(spec.get("fight_dice", t["fight_dice"])) if monster else None,
            disordered=bool(spec.get("disordered", False)), routing=bool(spec.get("routing", False)),
            pike=bool(spec.get("pike", False)), light=bool(t.get("light", False)),
            heavy=bool(t.get("heavy", False)), monster=monster, recoil_kind=str(t.get("recoil_kind", "")),
            alignment=spec.get("alignment"), facing_deg=parse_facing(spec.get("facing"), where, KremlinError),
            front_rank=spec.get("front_rank"), commander=spec.get("commander"))
    return units


# ----------------------------------------------------------------- geometry

def _arrays(scene: Scene, ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    figs = [scene.figure(i) for i in ids]
    return (np.array([f.xy for f in figs], dtype=float).reshape(-1, 2),
            np.array([f.base_in for f in figs], dtype=float))


def gap_in(scene: Scene, a_ids: Sequence[str], b_ids: Sequence[str], measure_from: str = "edge") -> float:
    """The distance between the nearest bases of two sets (edge to edge, or centre to centre)."""
    if not a_ids or not b_ids:
        return math.inf
    axy, ab = _arrays(scene, a_ids)
    bxy, bb = _arrays(scene, b_ids)
    if measure_from == "centre":
        return float(centre_distance(axy[:, None, :], bxy[None, :, :]).min())
    return float(edge_distance(axy[:, None, :], ab[:, None], bxy[None, :, :], bb[None, :]).min())


def centroid(scene: Scene, ids: Sequence[str]) -> np.ndarray:
    return _arrays(scene, ids)[0].mean(axis=0)


def front_line(scene: Scene, unit: Unit) -> tuple[tuple[float, float], tuple[float, float], int]:
    """The unit's front corners (left, right as it faces) and the bases in its front rank."""
    if unit.facing_deg is None:
        raise KremlinError(f"unit {unit.id!r}: give its facing (degrees or north/east/south/west)")
    xy, base = _arrays(scene, unit.all_bases)
    f = np.array([math.cos(math.radians(unit.facing_deg)), math.sin(math.radians(unit.facing_deg))])
    lat = np.array([-f[1], f[0]])                   # the unit's right, on a y-down table
    ahead = xy @ f + base / 2
    side = xy @ lat
    front = float(ahead.max())
    left = f * front + lat * float((side - base / 2).min())
    right = f * front + lat * float((side + base / 2).max())
    # Stands in the front rank: fighting bases only, since an attached general does not "count as an
    # extra base for morale/disorder purposes" (heavy fire is a disorder).
    n = len(unit.bases) or len(unit.all_bases)
    rank = (int(np.count_nonzero(ahead[:n] >= ahead[:n].max() - base[:n] / 2)) if unit.front_rank is None
            else int(unit.front_rank))
    return (float(left[0]), float(left[1])), (float(right[0]), float(right[1])), rank


def removal_order(scene: Scene, unit: Unit, enemy_ids: Sequence[str]) -> list[str]:
    """Fighting bases farthest from the enemy first, then attached generals ("always the last base")."""
    if not enemy_ids:
        return list(unit.bases) + list(unit.generals)
    exy, _ = _arrays(scene, enemy_ids)
    xy, _ = _arrays(scene, unit.bases)
    near = centre_distance(xy[:, None, :], exy[None, :, :]).min(axis=1)
    order = sorted(range(len(unit.bases)), key=lambda i: (-near[i], i))
    return [unit.bases[i] for i in order] + list(unit.generals)


def moved(fig: Figure, direction: np.ndarray, distance_in: float) -> tuple[float, float]:
    return (round(fig.x + float(direction[0]) * distance_in, 4), round(fig.y + float(direction[1]) * distance_in, 4))


def mods_text(mods: Mapping[str, int]) -> str:
    return "".join(f" {v:+d} {k.replace('_', ' ')}" for k, v in mods.items())


def flank_or_rear_contacts(scene: Scene, unit: Unit, enemy_ids: Sequence[str], gap_in: float = 0.1) -> list[str]:
    """Enemy bases touching the unit anywhere but its front: their near edge is behind the unit's
    front line (by more than a quarter of a base). Needs the unit's facing."""
    if unit.facing_deg is None or not enemy_ids:
        return []
    xy, base = _arrays(scene, unit.all_bases)
    exy, ebase = _arrays(scene, enemy_ids)
    touching = (edge_distance(xy[:, None, :], base[:, None], exy[None, :, :], ebase[None, :]) <= gap_in).any(axis=0)
    f = np.array([math.cos(math.radians(unit.facing_deg)), math.sin(math.radians(unit.facing_deg))])
    front = float((xy @ f + base / 2).max())
    near_edge = exy @ f - ebase / 2
    return [e for e, t, n in zip(enemy_ids, touching.tolist(), near_edge.tolist())
            if t and n < front - float(base.max()) / 4]


def behind_front(scene: Scene, unit: Unit, other_ids: Sequence[str]) -> bool:
    """The other bases' centre is behind the unit's front line (it comes at a flank or the rear);
    False when the unit has no facing."""
    if unit.facing_deg is None or not other_ids:
        return False
    xy, base = _arrays(scene, unit.all_bases)
    f = np.array([math.cos(math.radians(unit.facing_deg)), math.sin(math.radians(unit.facing_deg))])
    front = float((xy @ f + base / 2).max())
    return float(centroid(scene, other_ids) @ f) < front - float(base.max()) / 4
