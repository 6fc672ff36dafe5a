"""KremlinMiniatures scenery that acts: woods that move, and walls and gates under war machines and rams.

A mixin of the Kremlin rule system: it uses the system's `units`, `_unit` and `values`. Sentences quoted
are from the KremlinMiniatures text.
"""
from __future__ import annotations

import shapely
from measure.scene import Scene

from assistant.rules.dice import Dice
from assistant.rules.events import Prompt, StepResult, event
from assistant.rules.inputs import need
from assistant.rules.kremlin_rules import KremlinError, hit_dice, hit_needed, roll_hits


def wall_left(rated: int, before: int, hits: int) -> int:
    """"Walls should be rated in hits. When it's hits are gone the wall collapses\""""
    return max(0, rated - before - hits)


class ScenerySteps:
    def _piece(self, scene: Scene, tid: str):
        return next(t for t in scene.terrain if t.id == tid)

    def step_woods_move(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Some woods may have the power to move, in which case they move 1d6 inches and cannot charge, rout,
        recoil or follow up.\""""
        wid = need(options, "woods")
        piece = self._piece(scene, wid)
        if not piece.extra.get("moves", options.get("moves", False)):
            raise KremlinError(f"woods: {wid} does not have the power to move (give the piece \"moves\": true)")
        inches = dice.roll(6, "woods move", who=wid)
        return StepResult("woods_move", (event("woods_move", f"{wid} may move {inches}\" (it cannot charge, rout, "
                                               "recoil or follow up).", woods=wid, move_in=inches),),
                          extra={"move_in": inches})

    def step_siege(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """A war machine against a wall, or a battering ram (or a monster) against a gate: "War machines are
        assumed to be supplied with enough ammunition to create one breach in a defender's walls. Walls should
        be rated in hits. When it's hits are gone the wall collapses and any base stood on or next to it is
        destroyed. Battering Rams act on gates as war machines do on walls. Monsters can act as battering rams.\""""
        units = self.units(scene, options)
        unit = self._unit(units, need(options, "unit"), "unit")
        wid = need(options, "wall")
        piece = self._piece(scene, wid)
        rated = options.get("wall_hits", piece.extra.get("hits"))
        if rated is None:
            return StepResult("siege", (), prompts=(Prompt("rate_wall", f"How many hits can {wid} take? (\"Walls "
                                                           "should be rated in hits\": the players decide.)", (wid,)),))
        if options.get("breached_before") and unit.type == "war_machine":
            return StepResult("siege", (event("siege_out_of_ammunition", f"{unit.id} has made its one breach.",
                                              unit=unit.id, wall=wid),))
        n = hit_dice(unit.fight_dice if unit.monster else len(unit.bases), unit.disordered or unit.routing)
        rolls, hits = roll_hits(dice, n, hit_needed(unit.hit), unit.id, "siege")
        before = int(options.get("hits_before", piece.extra.get("hits_taken", 0)))
        left = wall_left(int(rated), before, hits)
        events = [event("siege_hits", f"{unit.id} batters {wid}: {n} dice {rolls}, {hits} hit(s); {left} of {rated} "
                        "left.", unit=unit.id, wall=wid, rolls=rolls, hits=hits, hits_left=left)]
        removed: list[str] = []
        if left == 0:
            near = shapely.buffer(piece.polygon, 0.1)
            removed = [f.id for f in scene.figures
                       if shapely.intersects(near, shapely.Point(f.xy).buffer(f.base_in / 2))]
            events.append(event("wall_collapses", f"{wid} collapses: every base on or next to it is destroyed"
                                + (f" ({', '.join(removed)})." if removed else "."), wall=wid, destroyed=removed))
        return StepResult("siege", tuple(events), tuple(removed), extra={"hits_left": left, "breached": left == 0})
