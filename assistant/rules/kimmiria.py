"""KIMMIRIA, the default system (25 mm single figures, d6): steps that adapt a Scene to the rules.

A turn, in the text's order of play: `missile` (both sides), `initiative`, `groups`, `move`,
`melee` (then the attacker's free moves, which the next Scene shows), `victory`. Each step is
`step_<name>(scene, attacker_side, dice, options) -> StepResult`; the rules themselves live in
kimmiria_combat.py and kimmiria_move.py as pure functions.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import shapely
from measure.engage import engaged_ids
from measure.grid import adjacent, cell_centre
from measure.scene import Figure, Scene, scene_to_json
from measure.sight import MeasureSettings, TargetPolicy
from measure.targets import closest_targets

from assistant.rules.dice import Dice
from assistant.rules.events import StepResult, event
from assistant.rules.kimmiria_board import Fighter, contacts, enemy_contacts, figure_cells, terrain_at, terrain_kind
from assistant.rules.kimmiria_combat import (CombatRules, MissileTargetError, MissileType, Shot, TerrainDefence,
                                             blast_extras, check_blast, order_shots, resolve_melee,
                                             resolve_missiles)
from assistant.rules.kimmiria_paths import cheapest_path, group_moved, moved_figures, neighbours
from assistant.rules.kimmiria_move import (IMPASSABLE, MoveCheck, MoveError, Space, check_group_count, check_path,
                                           check_victory, group_rate, roll_groups, roll_initiative,
                                           wizard_may_fly)
from assistant.rules.errors import ScenarioError
from assistant.rules import kimmiria_inputs
from assistant.rules.system import RuleSystem, RulesDataError




def _tie_pick(value: int, n: int) -> int:
    """A d6 splits n tied targets evenly: 2 targets -> 1-3 / 4-6, 3 -> 1-2 / 3-4 / 5-6."""
    return min(n - 1, (value - 1) * n // 6)


def straight_cells(start, goal) -> list[tuple[int, int]]:
    """Diagonal-then-straight steps from start to goal (a path for a move no rule allows)."""
    cells, (c, r) = [], start
    while (c, r) != tuple(goal):
        c += (goal[0] > c) - (goal[0] < c)
        r += (goal[1] > r) - (goal[1] < r)
        cells.append((c, r))
    return cells


def moved_scene(scene: Scene, moves: list[Mapping[str, Any]]) -> Scene:
    """The scene after legal moves: each figure at its path's last space (grid) or its `to` point."""
    where: dict[str, tuple[float, float, tuple[int, int] | None]] = {}
    for move in moves:
        for fid in move["figures"]:
            if scene.grid is not None and isinstance(move.get("paths"), Mapping) and move["paths"].get(fid):
                cell = tuple(move["paths"][fid][-1])
                x, y = cell_centre(scene.grid, cell).tolist()
                where[fid] = (x, y, cell)
            elif isinstance(move.get("to"), Mapping) and fid in move["to"]:
                where[fid] = (float(move["to"][fid][0]), float(move["to"][fid][1]), None)
    figures = [replace(f, x=where[f.id][0], y=where[f.id][1], cell=where[f.id][2]) if f.id in where else f
               for f in scene.figures]
    return scene.with_figures(figures)


class Kimmiria(RuleSystem):
    name = "kimmiria"
    title = "KIMMIRIA"
    # "Rule number one is that you have to shoot at the closest enemy target."
    must_shoot_closest = True
    steps = ("missile", "initiative", "groups", "move", "melee", "victory")
    step_inputs = kimmiria_inputs.STEP_INPUTS
    figure_keys = kimmiria_inputs.FIGURE_KEYS

    # ------------------------------------------------------------ sight, range and targets
    def target_policy(self) -> TargetPolicy:
        """[targeting] plus play.engaged_may_shoot: a figure touching an enemy does not shoot."""
        return replace(super().target_policy(), engaged_shooters=bool(self.values["play"]["engaged_may_shoot"]))

    # ------------------------------------------------------------ numbers from the data
    def combat_rules(self) -> CombatRules:
        defence = {}
        for kind, t in self.values["terrain"].items():
            if t.get("defence_bonus"):
                defence[kind] = TerrainDefence(int(t["defence_bonus"]), tuple(t.get("defence_bonus_except", ())),
                                               tuple(t.get("defence_bonus_unless_attacker", ())))
        play = self.values["play"]
        return CombatRules(unpainted_penalty=int(play["unpainted_penalty"]), defence=defence,
                           defence_bonus_in=tuple(play["defence_bonus_in"]),
                           kills_per_figure=int(play["kills_per_figure"]), max_gang=int(play["max_gang"]))

    def missile_types(self) -> dict[str, MissileType]:
        return {name: MissileType(attacks=int(t.get("attacks", 1)), order=int(t.get("missile_order", 1)),
                                  wins_ties=bool(t.get("wins_ties", False)),
                                  ignores_armor=bool(t.get("ignores_armor", False)), blast=int(t.get("blast", 1)))
                for name, t in self.values["figure_types"].items()}

    def terrain_aliases(self) -> dict[str, str]:
        return dict(self.values.get("terrain_aliases", {}))

    def terrain_costs(self) -> dict[str, Any]:
        return {kind: t["cost"] for kind, t in self.values["terrain"].items()}

    def stop_kinds(self) -> tuple[str, ...]:
        return tuple(k for k, t in self.values["terrain"].items() if t.get("stop"))

    def fly_kinds(self) -> tuple[str, ...]:
        return tuple(k for k, t in self.values["terrain"].items() if t.get("fly"))

    def engage_gap_in(self, options: Mapping[str, Any]) -> float:
        return float(options.get("engage_gap_in", self.values["play"]["open_table_engage_gap_in"]))

    def fighters(self, scene: Scene) -> dict[str, Fighter]:
        where = terrain_at(scene, self.terrain_aliases())
        out = {}
        for fig in scene.figures:
            if fig.side is None:
                raise ScenarioError(f"figure {fig.id!r}: has no side")
            name = self.type_name(fig.type)
            t = self.values["figure_types"][name]
            out[fig.id] = Fighter(fig.id, fig.side, name, t["class"], int(t["fv"]), int(t["armor_plus"]),
                                  fig.painted, where[fig.id])
        return out

    # ------------------------------------------------------------ 1 missile fire
    def step_missile(self, scene: Scene, attacker_side: str | None, dice: Dice,
                     options: dict[str, Any]) -> StepResult:
        """"BOTH sides may fire at missiles at each other" at the closest legal target."""
        fighters = self.fighters(scene)
        mtypes = self.missile_types()
        touching = contacts(scene, self.engage_gap_in(options))
        engaged = engaged_ids(scene, self.engage_gap_in(options))
        resting = set(options.get("resting", ()))
        events = []
        given = options.get("targets")
        shots: list[Shot] = []
        settings = MeasureSettings(engage_gap_in=self.engage_gap_in(options),
                                   tie_in=float(options.get("tie_in", MeasureSettings().tie_in)))
        if given is not None:
            if not isinstance(given, Mapping):
                raise ScenarioError("targets: expected an object shooter id -> target id (or list of ids)")
            for shooter, target in given.items():
                if shooter not in fighters:
                    raise ScenarioError(f"targets: unknown shooter {shooter!r}")
                if self.shooter_spec(scene.figure(shooter)) is None:
                    raise ScenarioError(f"targets: {shooter} ({fighters[shooter].type}) cannot shoot")
                targets = tuple(target) if isinstance(target, list) else (target,)
                shots.append(self._shot(shooter, targets, fighters, mtypes, touching, engaged,
                                        explicit=isinstance(target, list)))
            events.extend(self._target_warnings(scene, shots, engaged, settings))
        else:
            specs = {fid: spec for fid, spec in self.shooter_specs(scene).items()
                     if fid not in engaged or self.values["play"]["engaged_may_shoot"]}
            for res in closest_targets(scene, specs, self.target_policy(), settings):
                if res.target is None:
                    events.append(event("missile_no_target", f"{res.shooter} has no legal target.",
                                        shooter=res.shooter,
                                        enemies={e.id: e.reason for e in res.enemies}))
                    continue
                target = res.target
                if res.ties and res.shooter not in resting:
                    tied = (res.target,) + res.ties
                    roll = dice.roll(6, "closest-target tie", who=res.shooter)
                    target = tied[_tie_pick(roll, len(tied))]
                    events.append(event("target_tie", f"{', '.join(tied)} are about as close to {res.shooter}: "
                                        f"the die ({roll}) picks {target}.", shooter=res.shooter,
                                        tied=list(tied), roll=roll, target=target))
                shots.append(self._shot(res.shooter, (target,), fighters, mtypes, touching, engaged))
        ordered = order_shots(shots, fighters, mtypes, attacker_side, [f.id for f in scene.figures])
        outcome = resolve_missiles(ordered, fighters, mtypes, dice, self.combat_rules(), resting)
        fired = [s.shooter for s in ordered if s.shooter not in resting]
        return StepResult("missile", tuple(events) + outcome.events, outcome.fallen,
                          extra={"shots": {s.shooter: list(s.targets) for s in ordered}, "fired": fired})

    def _target_warnings(self, scene: Scene, shots: list[Shot], engaged: frozenset[str],
                         settings: MeasureSettings) -> list:
        """Targets the players named are used as named; say so where the ruler disagrees."""
        specs = {s.shooter: self.shooter_spec(scene.figure(s.shooter)) for s in shots}
        ranked = {r.shooter: r for r in closest_targets(scene, specs, self.target_policy(), settings)}
        warnings = []
        for shot in shots:
            res = ranked[shot.shooter]
            legal = (res.target,) + res.ties if res.target else ()
            if shot.targets[0] not in legal and not res.engaged:     # an engaged shooter: said below
                why = next((e.reason for e in res.enemies if e.id == shot.targets[0]), "not an enemy")
                warnings.append(event("target_warning", f"{shot.shooter} was told to shoot {shot.targets[0]}, but the "
                                      f"ruler says {shot.targets[0]} is {why.replace('_', ' ')}"
                                      + (f" and {' or '.join(legal)} is the closest legal target." if legal else "."),
                                      shooter=shot.shooter, target=shot.targets[0], reason=why,
                                      closest=list(legal)))
            if shot.shooter in engaged and not self.values["play"]["engaged_may_shoot"]:
                warnings.append(event("target_warning", f"{shot.shooter} touches an enemy and may not shoot "
                                      "(house default play.engaged_may_shoot).", shooter=shot.shooter,
                                      reason="shooter_engaged"))
        return warnings

    def _shot(self, shooter: str, targets: tuple[str, ...], fighters, mtypes, touching, engaged,
              explicit: bool = False) -> Shot:
        mtype = mtypes[fighters[shooter].type]
        if not explicit and mtype.blast > 1 and targets[0] in fighters:
            extras = blast_extras(targets[0], fighters, touching, mtype.blast - 1, exclude=engaged)
            targets = targets + extras
        shot = Shot(shooter, targets)
        try:
            check_blast(shot, fighters, mtype, touching)
        except MissileTargetError as exc:
            raise ScenarioError(f"targets: {exc}") from None
        return shot

    def missile_plan(self, scene: Scene, options: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Before any die: who shoots at whom (ties to roll off, blast figures, why not the others)."""
        options = dict(options or {})
        fighters = self.fighters(scene)
        mtypes = self.missile_types()
        gap = self.engage_gap_in(options)
        touching, engaged = contacts(scene, gap), engaged_ids(scene, gap)
        resting = set(options.get("resting", ()))
        settings = MeasureSettings(engage_gap_in=gap, tie_in=float(options.get("tie_in", MeasureSettings().tie_in)))
        specs = self.shooter_specs(scene)
        plan = []
        for res in closest_targets(scene, specs, self.target_policy(), settings):
            mtype = mtypes[fighters[res.shooter].type]
            item: dict[str, Any] = {"shooter": res.shooter, "order": mtype.order, "target": res.target,
                                    "ties": list(res.ties), "width_in": res.width_in, "range_in": res.range_in,
                                    "others": {e.id: e.reason for e in res.others}}
            if res.shooter in engaged and not self.values["play"]["engaged_may_shoot"]:
                item.update(target=None, ties=[], reason="engaged")
            elif res.shooter in resting:
                item["reason"] = "wizard_flight"
            if item["target"] and mtype.blast > 1:
                item["blast"] = list(blast_extras(item["target"], fighters, touching, mtype.blast - 1, engaged))
            plan.append(item)
        return sorted(plan, key=lambda p: (p["order"], fighters[p["shooter"]].side, p["shooter"]))

    def melee_plan(self, scene: Scene, options: Mapping[str, Any] | None = None) -> dict[str, dict[str, str]]:
        """Before any die: every figure that must fight -> {enemy it touches: "across" | "corner"}."""
        foes = enemy_contacts(scene, self.engage_gap_in(dict(options or {})))
        return {fid: dict(touching) for fid, touching in foes.items() if touching}

    # ------------------------------------------------------------ 2 initiative, 3 groups
    def step_initiative(self, scene: Scene, attacker_side: str | None, dice: Dice,
                        options: dict[str, Any]) -> StepResult:
        sides = options.get("sides") or list(dict.fromkeys(f.side for f in scene.figures if f.side))
        winner, events = roll_initiative(list(sides), dice)
        return StepResult("initiative", tuple(events), extra={"attacker_side": winner})

    def step_groups(self, scene: Scene, attacker_side: str | None, dice: Dice,
                    options: dict[str, Any]) -> StepResult:
        if not attacker_side:
            raise ScenarioError("groups: attacker_side is required (the side with the initiative)")
        allowed, ev = roll_groups(attacker_side, dice, int(self.values["play"]["max_groups"]))
        return StepResult("groups", (ev,), extra={"groups_allowed": allowed})

    # ------------------------------------------------------------ 4 move
    def step_move(self, scene: Scene, attacker_side: str | None, dice: Dice,
                  options: dict[str, Any]) -> StepResult:
        """Check the attacker's planned moves (no dice): groups, rates, terrain, stops."""
        moves = options.get("moves")
        if not isinstance(moves, list):
            raise ScenarioError("moves: expected a list of {\"figures\": [...], \"paths\" or \"to\": {...}}")
        allowed = int(options.get("groups_allowed", self.values["play"]["max_groups"]))
        turn = int(options.get("turn", 1))
        last_attack = dict(options.get("wizard_last_attack", {}))
        events = []
        legal = True
        reason = check_group_count(len(moves), allowed, int(self.values["play"]["max_groups"]))
        if reason:
            legal = False
            events.append(event("move_illegal", f"Too many groups: {reason}.", reason=reason))
        flights = []
        for n, move in enumerate(moves):
            ids = move.get("figures") if isinstance(move, Mapping) else None
            if not isinstance(ids, list) or not ids:
                raise ScenarioError(f"moves[{n}].figures: expected a list of figure ids")
            figs = [scene.figure(i) for i in ids]
            for f in figs:
                if attacker_side and f.side != attacker_side:
                    raise ScenarioError(f"moves[{n}]: {f.id} is not on the moving side {attacker_side}")
            if not self._one_group(scene, ids):
                legal = False
                events.append(event("move_illegal", f"{', '.join(ids)} are not one group: a group's figures are "
                                    "close to one another (bases touching or very close).",
                                    group=n + 1, figures=list(ids), reason="not one group"))
            rates = {f.id: int(self.figure_type(f.type)["move"]) for f in figs}
            rate = group_rate(rates)
            for f in figs:
                check = self._check_figure_move(scene, f, move, rate, set(ids), n)
                ok = check.legal
                if ok and check.flew and not wizard_may_fly(turn, last_attack.get(f.id),
                                                           int(self.values["play"]["wizard_fly_rest_turns"])):
                    ok = False
                    check = MoveCheck(False, check.cost, "a wizard may not fly the turn after he attacks",
                                      flew=True)
                if check.flew and ok:
                    flights.append(f.id)
                legal &= ok
                kind = "move_ok" if ok else "move_illegal"
                if not ok:
                    text = f"{f.id} cannot move there: {check.reason}."
                elif check.flew:
                    text = f"{f.id} flies over the water: {check.cost:g} moves, and may not attack next turn."
                else:
                    text = (f"{f.id} moves for {check.cost:g} of the group's {rate}"
                            + (" and must stop there." if check.stopped else "."))
                events.append(event(kind, text, figure=f.id, group=n + 1, rate=rate, cost=round(check.cost, 3),
                                    reason=check.reason, stopped=check.stopped, flew=check.flew))
        extra: dict[str, Any] = {"legal": legal, "flights": flights}
        if legal:
            extra["scene"] = scene_to_json(moved_scene(scene, moves))
        return StepResult("move", tuple(events), extra=extra)

    def space_at(self, scene: Scene, cell, enemy_cells: np.ndarray) -> Space:
        """The terrain under a grid space's centre, and whether it is next to an enemy."""
        centre = shapely.points(cell_centre(scene.grid, cell))
        kind = "clear"
        for piece in scene.terrain:
            if piece.polygon.covers(centre):
                kind = terrain_kind(piece.kind, self.terrain_aliases())
        near = bool(len(enemy_cells)) and bool(np.any(adjacent(scene.grid, np.array(cell), enemy_cells)))
        return Space(kind, near)

    def moves_seen(self, before: Scene, after: Scene, groups: list[list[str]] | None = None,
                   side: str | None = None) -> list[dict[str, Any]]:
        """The `moves` of the move step for what the camera saw between two scenes.

        Groups: as given, else the moved figures that touched one another before (group gap).
        Grid: each figure's cheapest legal-looking way to its new space (kimmiria_paths); a figure
        with no way at all keeps the straight step list so the check names the problem.
        """
        ids = [fid for fid in moved_figures(before, after)
               if side is None or before.figure(fid).side == side]
        if groups is None:
            groups = group_moved(ids, contacts(before, float(self.values["play"]["group_gap_in"])))
        now = {f.id: f for f in after.figures}
        moves = []
        cells_before = figure_cells(before)
        for group in groups:
            if before.grid is None:
                moves.append({"figures": list(group), "to": {fid: [now[fid].x, now[fid].y] for fid in group}})
                continue
            cells_after = figure_cells(after)
            paths = {}
            for fid in group:
                fig = before.figure(fid)
                enemies = [e for e in before.figures if e.side != fig.side]
                enemy_cells = np.array([cells_before[e.id] for e in enemies], dtype=np.int64).reshape(-1, 2)
                start, goal = tuple(cells_before[fid]), tuple(cells_after[fid])
                found = cheapest_path(start, goal, lambda c: self.space_at(before, c, enemy_cells),
                                      self.terrain_costs(), self.stop_kinds(), self.fly_kinds(),
                                      bool(self.figure_type(fig.type).get("fly_over_water")), before.grid.kind,
                                      bool(self.values["play"]["grid_diagonal_moves"]))
                paths[fid] = [list(c) for c in (found or straight_cells(start, goal))]
            moves.append({"figures": list(group), "paths": paths})
        return moves

    def _one_group(self, scene: Scene, ids: list[str]) -> bool:
        """"A bunch of figures, all close to one another ... is a group" (checked before the move)."""
        near = contacts(scene, float(self.values["play"]["group_gap_in"]))
        members = set(ids)
        reached, frontier = {ids[0]}, [ids[0]]
        while frontier:
            for other in near[frontier.pop()]:
                if other in members and other not in reached:
                    reached.add(other)
                    frontier.append(other)
        return reached == members

    def _check_figure_move(self, scene: Scene, fig: Figure, move: Mapping[str, Any], rate: int,
                           group: set[str], n: int):
        wtype = self.figure_type(fig.type)
        fly = wtype.get("fly_over_water")
        enemies = [e for e in scene.figures if e.side != fig.side and e.id not in group]
        if scene.grid is not None and "paths" in move:
            path = move["paths"].get(fig.id) if isinstance(move["paths"], Mapping) else None
            if not isinstance(path, list):
                raise ScenarioError(f"moves[{n}].paths.{fig.id}: expected a list of [col, row] spaces")
            cells = figure_cells(scene)
            enemy_cells = np.array([cells[e.id] for e in enemies], dtype=np.int64).reshape(-1, 2)
            prev = cells[fig.id]
            spaces = []
            diagonals = bool(self.values["play"]["grid_diagonal_moves"])
            for cell in path:
                if not (isinstance(cell, list) and len(cell) == 2 and all(isinstance(c, int) for c in cell)):
                    raise ScenarioError(f"moves[{n}].paths.{fig.id}: expected [col, row], got {cell!r}")
                if tuple(cell) not in neighbours(tuple(prev), scene.grid.kind, diagonals):
                    raise ScenarioError(f"moves[{n}].paths.{fig.id}: {cell} is not next to {list(prev)}"
                                        + ("" if diagonals else " (no diagonal steps: play.grid_diagonal_moves)"))
                spaces.append(self.space_at(scene, cell, enemy_cells))
                prev = tuple(cell)
            start_engaged = bool(len(enemy_cells)) and bool(np.any(adjacent(scene.grid, np.array(cells[fig.id]),
                                                                             enemy_cells)))
            return check_path(spaces, rate, self.terrain_costs(), self.stop_kinds(), fly, self.fly_kinds(),
                              start_engaged)
        to = move.get("to", {}).get(fig.id) if isinstance(move.get("to"), Mapping) else None
        if not (isinstance(to, list) and len(to) == 2 and all(isinstance(v, (int, float)) for v in to)):
            raise ScenarioError(f"moves[{n}].to.{fig.id}: expected [x, y] in inches"
                                + (" (or paths of grid spaces)" if scene.grid is not None else ""))
        return self._check_table_move(scene, fig, (float(to[0]), float(to[1])), rate, enemies, fly)

    def _check_table_move(self, scene: Scene, fig: Figure, to_xy: tuple[float, float], rate: int,
                          enemies: list[Figure], fly: int | None, step_in: float = 0.05):
        """Open table: the straight path, costed inch by inch through the terrain it crosses."""
        aliases = self.terrain_aliases()
        costs = self.terrain_costs()
        length = math.dist(fig.xy, to_xy)
        if length == 0:
            return MoveCheck(True, 0.0)
        n = max(1, math.ceil(length / step_in))
        t = (np.arange(n) + 0.5) / n
        pts = np.array(fig.xy) + np.outer(t, np.subtract(to_xy, fig.xy))
        kinds = np.array(["clear"] * n, dtype=object)
        points = shapely.points(pts)
        for piece in scene.terrain:
            kinds[shapely.covers(piece.polygon, points)] = terrain_kind(piece.kind, aliases)
        end_kind = kinds[-1]
        seg = length / n
        cost = 0.0
        water = 0.0
        for k in kinds:
            if k in self.fly_kinds():
                if fly is None:
                    return MoveCheck(False, cost, f"cannot enter {k}")
                water += seg
                cost += seg
                continue
            c = costs.get(k, IMPASSABLE)
            if c == IMPASSABLE:
                return MoveCheck(False, cost, f"cannot enter {k}")
            cost += float(c) * seg
        if water and (water > fly + 1e-6 or end_kind in self.fly_kinds()):
            return MoveCheck(False, cost, f"{fly} moves is not enough to fly over the water", flew=True)
        budget = max(rate, fly or 0) if water else rate
        if cost > budget + 1e-6:
            return MoveCheck(False, cost, f"needs {cost:.2f} moves but the rate is {budget}", flew=bool(water))
        stops = [i for i, k in enumerate(kinds) if k in self.stop_kinds()]
        if stops and end_kind not in self.stop_kinds():
            return MoveCheck(False, cost, f"entering the {kinds[stops[0]]} stops the move", flew=bool(water))
        if enemies:
            exy = np.array([e.xy for e in enemies])
            reach = np.array([(e.base_in + fig.base_in) / 2 for e in enemies]) + self.values["play"][
                "open_table_engage_gap_in"]
            along = np.vstack([pts, [to_xy]])
            gap = np.hypot(along[:, None, 0] - exy[None, :, 0], along[:, None, 1] - exy[None, :, 1]) - reach
            start_gap = np.hypot(exy[:, 0] - fig.x, exy[:, 1] - fig.y) - reach
            if np.any(start_gap <= 1e-6):
                if length > 1 + 1e-6 or not np.any(gap[-1] <= 1e-6):
                    return MoveCheck(False, cost, "an engaged figure may only slide one unit around the enemy")
            else:
                # Bases first touch where the gap (less the engage tolerance) reaches 0; the move must end
                # there, give or take one sample.
                touch = np.nonzero(np.any(gap + self.values["play"]["open_table_engage_gap_in"] <= 1e-3, axis=1))[0]
                if len(touch) and (len(along) - 1 - touch[0]) * seg > 2 * step_in:
                    return MoveCheck(False, cost, "moving next to an enemy stops the move", flew=bool(water))
            stopped = bool(np.any(gap[-1] <= 1e-6))
        else:
            stopped = False
        stopped = stopped or end_kind in self.stop_kinds()
        return MoveCheck(True, cost, "", flew=bool(water), stopped=stopped)

    # ------------------------------------------------------------ 5 melee
    def step_melee(self, scene: Scene, attacker_side: str | None, dice: Dice,
                   options: dict[str, Any]) -> StepResult:
        """"After movement any figure touching ... an enemy figure MUST fight that figure"."""
        fighters = self.fighters(scene)
        foes = enemy_contacts(scene, self.engage_gap_in(options))
        locked = options.get("locked", [])
        if not isinstance(locked, list) or not all(isinstance(p, list) and len(p) == 2 for p in locked):
            raise ScenarioError("locked: expected a list of [figure id, figure id] pairs")
        choices = options.get("choices", {})
        if not isinstance(choices, Mapping):
            raise ScenarioError("choices: expected an object figure id -> target id")
        cells = figure_cells(scene)
        positions = {f.id: ({"cell": list(cells[f.id])} if cells.get(f.id) is not None else {})
                     | {"x": f.x, "y": f.y} for f in scene.figures}
        outcome = resolve_melee(fighters, foes, attacker_side, dice, self.combat_rules(),
                                [f.id for f in scene.figures], choices, locked, positions)
        return StepResult("melee", outcome.events, outcome.removed, outcome.prompts,
                          extra={"locked": [list(p) for p in outcome.locked], "dice": dict(outcome.dice)})

    # ------------------------------------------------------------ 6 victory
    def step_victory(self, scene: Scene, attacker_side: str | None, dice: Dice,
                     options: dict[str, Any]) -> StepResult:
        start = options.get("start_counts")
        if not isinstance(start, Mapping) or not start:
            raise ScenarioError("victory: start_counts {side: figures at the start} is required")
        now: dict[str, int] = {s: 0 for s in start}
        for f in scene.figures:
            now[f.side] = now.get(f.side, 0) + 1
        condition = str(options.get("condition", self.values["victory"]["default"]))
        conditions = self.values["victory"]["conditions"]
        if condition not in conditions:
            raise ScenarioError(f"victory condition: expected one of {', '.join(conditions)}, got {condition!r}")
        try:
            winner, events = check_victory(dict(start), now, condition, options.get("surrendered"),
                                           int(conditions["C"]["kills"]), float(conditions["B"]["fraction"]))
        except MoveError as exc:
            raise ScenarioError(str(exc)) from None
        return StepResult("victory", tuple(events), extra={"winner": winner})


__all__ = ["Kimmiria", "ScenarioError", "RulesDataError"]
