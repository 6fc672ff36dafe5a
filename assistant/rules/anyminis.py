"""AnyMinis! (28 mm skirmish on a 1" grid, d6 and d3): steps that adapt a Scene to the rules.

Steps: `assess` (each figure's numbers and the squads), `initiative`, `move` (action points for a
path of spaces), `attack` (hit and damage rolls; in anyminis_attack.py), `command` (a leader gives
action points, with line of sight). The rules themselves are pure functions in anyminis_rules.py.

A figure's role is its scene `type` (leader, hero, squad_member); what it carries and wears are
extra keys on the scene figure: `weapons` (list), `armor` ({part: "full"|"partial"}), `shield`
("small"|"large"), `cape`, `stance`, `gear`, `facing` (degrees or north/east/south/west), `hp`,
`squad`. Sentences quoted are from the AnyMinis! text.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import shapely
from measure.grid import cell_centre, cell_distance, cell_of
from measure.los import line_of_sight
from measure.scene import Figure, Grid, Scene
from measure.sight import RangePolicy, ShooterSpec, SightPolicy
from measure.targets import pair_range

from assistant.rules.anyminis_attack import AttackStep, ScenarioError, need
from assistant.rules.anyminis_effects import forbidden, points_lost
from assistant.rules.anyminis_heroes import HeroSteps
from assistant.rules.anyminis_spells import SpellSteps
from assistant.rules.anyminis_rules import (Assessment, AssessmentError, MoveError, SquadError, Step,
                                            check_assignment, check_spend_order, check_squad, initiative_winner,
                                            move_cost)
from assistant.rules.anyminis_rules import assess as assess_figure
from assistant.rules.dice import Dice
from assistant.rules.events import Event, Prompt, StepResult, event
from assistant.rules import anyminis_inputs
from assistant.rules.system import RuleSystem

_SQUARE = Grid("square", 1.0)      # 1" spaces when the scene has no printed grid
class AnyMinis(AttackStep, HeroSteps, SpellSteps, RuleSystem):
    name = "anyminis"
    title = "AnyMinis!"
    steps = ("assess", "initiative", "plan", "move", "attack", "command", "ability", "spell", "cleanup")
    step_inputs = anyminis_inputs.STEP_INPUTS
    figure_keys = anyminis_inputs.FIGURE_KEYS
    terrain_keys = anyminis_inputs.TERRAIN_KEYS

    # ------------------------------------------------------------ data and geometry
    def assessment_data(self) -> dict[str, Any]:
        v = self.values
        return {"roles": v["figure_types"], "weapons": v["weapons"], "weapon_aliases": v.get("weapon_aliases", {}),
                "armor": v["armor"], "shield": v["shield"], "cape": v["equipment"]["cape"],
                "stances": v["stances"], "armor_type_needs_value": v["combat"]["armor_type_needs_value"]}

    def assess(self, fig: Figure) -> Assessment:
        return assess_figure(fig.id, self.type_name(fig.type), fig.extra, self.assessment_data())

    def terrain_class(self, kind: str) -> Mapping[str, Any]:
        return self.values["terrain"].get(kind.strip().lower(), {"blocks_movement": True, "conceals": True})

    def sight_policy(self) -> SightPolicy:
        """Concealing kinds block sight; every other kind the data names is see-through."""
        terrain = self.values["terrain"]
        return SightPolicy(figures_block=bool(self.values["sight"]["figures_block"]), soft_kinds=(), hill_kinds=(),
                           blocking_kinds=tuple(k for k, t in terrain.items() if t.get("conceals")),
                           clear_kinds=tuple(k for k, t in terrain.items() if not t.get("conceals")))

    def range_policy(self) -> RangePolicy:
        """Ranges in spaces ("range 10": ten spaces), diagonals by combat.range_metric, hex distance on hexes."""
        return RangePolicy(measure="spaces", diagonal=str(self.values["combat"]["range_metric"]), space_in=_SQUARE.pitch_in)

    def shooter_spec(self, figure: Figure) -> ShooterSpec | None:
        ranged = [w for w in self.assess(figure).weapons if w.kind != "melee"]
        if not ranged:
            return None
        return ShooterSpec(width=self.values["leaders"]["sight_width"],
                           range_in=float(max(w.range_spaces for w in ranged)))

    def _cell(self, scene: Scene, fig: Figure) -> tuple[int, int]:
        if fig.cell is not None:
            return fig.cell
        if scene.grid is None:
            return (int(math.floor(fig.x)), int(math.floor(fig.y)))     # 1" spaces without a printed grid
        return tuple(int(c) for c in cell_of(scene.grid, np.array(fig.xy)).tolist())

    def _kinds_at(self, scene: Scene, xy: tuple[float, float]) -> list[str]:
        point = shapely.points(xy)
        return [t.kind.strip().lower() for t in scene.terrain if shapely.covers(t.polygon, point)]

    def _cell_xy(self, scene: Scene, cell: tuple[int, int]) -> tuple[float, float]:
        if scene.grid is None:
            return (cell[0] + 0.5, cell[1] + 0.5)
        return tuple(cell_centre(scene.grid, np.array(cell)).tolist())

    def spaces_between(self, scene: Scene, a: Figure, b: Figure) -> int:
        """Range in spaces, as the shared policy counts it (the same count `targets` shows)."""
        return int(pair_range(scene, a.id, b.id, self.range_policy()))

    # ------------------------------------------------------------ steps
    def step_assess(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Each figure its assessed based on the figure itself"; "Every squad has 1 leader"."""
        events: list[Event] = []
        squads: dict[str, list[str]] = {}
        for fig in scene.figures:
            a = self.assess(fig)
            weapons = ", ".join(f"{w.name} (range {w.range_spaces}, damage {_damage_text(w)})" for w in a.weapons)
            events.append(event("assessed", f"{fig.id} ({a.role}): {a.action_points} action points, "
                                f"{a.hit_points} hit points, armour +{a.armour}, shield +{a.shield}; {weapons}.",
                                figure=fig.id, role=a.role, action_points=a.action_points, hit_points=a.hit_points,
                                armour=a.armour, shield=a.shield, defence_types=list(a.defence_types(False)),
                                weapons=[w.name for w in a.weapons], stance=a.stance))
            squads.setdefault(str(fig.extra.get("squad", fig.side)), []).append(a.role)
        for squad, roles in squads.items():
            try:
                want = check_squad(roles, self.values["squads"], squad)
                events.append(event("squad_ok", f"Squad {squad}: {len(roles)} figures, {want['leader']} leader, "
                                    f"{want['hero']} hero(es), {want['squad_member']} squad members.",
                                    squad=squad, size=len(roles), **want))
            except SquadError as exc:
                events.append(event("squad_invalid", str(exc), squad=squad, size=len(roles)))
        return StepResult("assess", tuple(events))

    def step_initiative(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"each team rolls 1d6; leaders may add +1 action point; add any other initiative mods"."""
        ini = self.values["initiative"]
        sides = options.get("sides") or sorted({f.side for f in scene.figures if f.side})
        if len(sides) < 2:
            raise ScenarioError(f"initiative needs two teams, got {', '.join(sides) or 'none'}")
        leader_points = options.get("leader_points", {})
        mods: dict[str, dict[str, int]] = {}
        for side in sides:
            m = {}
            spent = int(leader_points.get(side, 0))
            if spent < 0 or spent > ini["leader_point_bonus_max"]:
                raise ScenarioError(f"leader_points.{side}: a leader adds at most {ini['leader_point_bonus_max']}")
            if spent:
                m["leader_point"] = spent * ini["leader_point_bonus"]
            if any(f.side == side and f.extra.get("stance") == "commanding" for f in scene.figures):
                m["commanding"] = ini["commanding"]
            m.update({k: int(v) for k, v in options.get("mods", {}).get(side, {}).items()})
            mods[side] = m
        last = options.get("last_initiative")
        events: list[Event] = []
        tied = list(sides)
        for round_no in range(1, 101):
            totals = {s: dice.roll(ini["die"], "initiative", who=s) + sum(mods[s].values()) for s in tied}
            winner = initiative_winner(totals, last)
            if winner is not None:
                kept = list(totals.values()).count(max(totals.values())) > 1
                events.append(event("initiative", f"{winner} has the initiative ({totals[winner]})"
                                    + (" and keeps it on a tie" if kept else "")
                                    + " and chooses to go first or second.",
                                    totals=totals, mods=mods, winner=winner, kept_on_tie=kept, round=round_no))
                return StepResult("initiative", tuple(events),
                                  prompts=(Prompt("choose_order", f"{winner}: go first or second?",
                                                  ("first", "second")),),
                                  extra={"initiative": winner})
            events.append(event("initiative_tie", f"Tie ({max(totals.values())}) and nobody held the initiative: "
                                "roll again.", totals=totals, round=round_no))
            best = max(totals.values())
            tied = [s for s, t in totals.items() if t == best]
        raise ScenarioError("initiative still tied after 100 rolls")

    def move_steps(self, scene: Scene, fig: Figure, path: list) -> list[Step]:
        here = self._cell(scene, fig)
        here_kinds = self._kinds_at(scene, self._cell_xy(scene, here))
        hex_grid = scene.grid is not None and scene.grid.kind == "hex"
        steps = []
        for i, cell in enumerate(path):
            if not isinstance(cell, (list, tuple)) or len(cell) != 2:
                raise ScenarioError(f"path[{i}]: expected [col, row], got {cell!r}")
            cell = (int(cell[0]), int(cell[1]))
            dist = cell_distance(scene.grid, np.array(here), np.array(cell)) if hex_grid else \
                max(abs(cell[0] - here[0]), abs(cell[1] - here[1]))
            if int(dist) != 1:
                raise MoveError(f"figure {fig.id!r}: path[{i}] {list(cell)} is not next to {list(here)}")
            kinds = self._kinds_at(scene, self._cell_xy(scene, cell))
            cls = [self.terrain_class(k) for k in kinds]
            hill_before = any(self.terrain_class(k).get("elevation") for k in here_kinds)
            hill_after = any(c.get("elevation") for c in cls)
            steps.append(Step(cell, diagonal=not hex_grid and cell[0] != here[0] and cell[1] != here[1],
                              difficult=any(c.get("difficult") for c in cls), elevation=hill_before != hill_after,
                              blocking=any(c.get("blocks_movement") for c in cls)))
            here, here_kinds = cell, kinds
        return steps

    def step_plan(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"At the start of your turn, you designate how each member of your team is going spend their action
        points" (`plans`: {id: {"move": 2, "attack": 2, ...}}), plus points a leader gave (`given`) and the
        order they were spent in (`spent`: {id: ["move", "move", "attack"]}): "you must use all of one type
        of action point assignment before moving on to the next"."""
        events: list[Event] = []
        given = options.get("given", {})
        for fid, plan in need(options, "plans").items():
            fig = scene.figure(fid)
            a = self.assess(fig)
            # "Slow: target figure loses 1 action point next turn"
            available = a.action_points + int(given.get(fid, 0)) - points_lost(fid, options.get("effects", []))
            try:
                reserve = check_assignment(fid, plan, available, guarding=a.stance == "guarding")
                if fid in options.get("spent", {}):
                    check_spend_order(fid, options["spent"][fid])
            except AssessmentError as exc:
                events.append(event("plan_illegal", str(exc), figure=fid, available=available))
                continue
            parts = ", ".join(f"{n} {k}" for k, n in plan.items() if n and k != "reserve")
            events.append(event("plan_ok", f"{fid} uses {sum(plan.values()) - plan.get('reserve', 0)} of "
                                f"{available} action points ({parts or 'none'}); {reserve} in reserve.",
                                figure=fid, available=available, reserve=reserve, plan=dict(plan)))
        return StepResult("plan", tuple(events))

    def step_move(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """Action points a path of spaces costs (options: `figure`, `path` [[col, row], ...], `points`)."""
        fig = scene.figure(need(options, "figure"))
        a = self.assess(fig)
        path = need(options, "path")
        held = forbidden(fig.id, "move", options.get("effects", []))
        if held:
            # "Stun: target figure may not move next turn"; Freeze; Charge and Bring it! ("may not move next turn")
            return StepResult("move", (event("move_illegal", f"{fig.id} may not move this turn: {held}.",
                                             figure=fig.id, reason="effect", effect=held),))
        try:
            cost = move_cost(fig.id, self.move_steps(scene, fig, path), a.stance)
        except MoveError as exc:
            return StepResult("move", (event("move_illegal", str(exc), figure=fig.id),))
        points = int(options.get("points", a.action_points))
        legal = cost.total <= points
        parts = [f"{cost.spaces} space(s)"]
        if cost.diagonal_enable:
            parts.append("1 to move diagonally / change elevation")
        if cost.difficult_extra:
            parts.append(f"{cost.difficult_extra} for difficult terrain")
        text = (f"{fig.id}'s move costs {cost.total} action points ({', '.join(parts)})"
                + ("." if legal else f": more than the {points} assigned to movement."))
        return StepResult("move", (event("move_cost" if legal else "move_too_far", text, figure=fig.id,
                                         spaces=cost.spaces, diagonal_enable=cost.diagonal_enable,
                                         difficult_extra=cost.difficult_extra, cost=cost.total, points=points,
                                         legal=legal),))

    def step_command(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"A leader may give a squad member an additional action point, at the cost of 1 for the
        leader ... the leader must have line-of-sight to the recipient"."""
        leader = scene.figure(need(options, "leader"))
        if self.type_name(leader.type) != "leader":
            raise ScenarioError(f"leader: {leader.id} is a {leader.type}, not a leader")
        points = int(options.get("points", self.assess(leader).action_points))
        cost = self.values["leaders"]["command_cost"]
        policy = self.sight_policy()
        events: list[Event] = []
        given: dict[str, int] = {}
        for rid, n in need(options, "give").items():
            rec = scene.figure(rid)
            n = int(n)
            squad = str(leader.extra.get("squad", leader.side)) == str(rec.extra.get("squad", rec.side))
            los = line_of_sight(scene, leader.id, rec.id, self.values["leaders"]["sight_width"], policy)
            if not squad:
                events.append(event("command_refused", f"{rec.id} is not in {leader.id}'s squad.",
                                    leader=leader.id, recipient=rec.id, reason="not_in_squad"))
            elif self.values["leaders"]["command_needs_sight"] and not los.clear:
                events.append(event("command_refused", f"{leader.id} cannot see {rec.id} "
                                    f"({', '.join(los.blocked_by)} in the way).", leader=leader.id, recipient=rec.id,
                                    reason="no_line_of_sight", blocked_by=list(los.blocked_by)))
            elif points < n * cost:
                events.append(event("command_refused", f"{leader.id} has {points} action point(s) left, "
                                    f"not enough to give {rec.id} {n}.", leader=leader.id, recipient=rec.id,
                                    reason="not_enough_points"))
            else:
                points -= n * cost
                given[rec.id] = n
                events.append(event("command", f"{leader.id} gives {rec.id} {n} action point(s) "
                                    f"({leader.id} has {points} left).", leader=leader.id, recipient=rec.id,
                                    points=n, leader_points_left=points, distance_in=round(los.distance_in, 3)))
        return StepResult("command", tuple(events), extra={"given": given, "leader_points_left": points})


def _damage_text(w) -> str:
    """"1d6+1", "1d3", "1"."""
    if w.damage_die is None:
        return str(w.damage_plus)
    return f"1{w.damage_die}" + (f"+{w.damage_plus}" if w.damage_plus else "")
