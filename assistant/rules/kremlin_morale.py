"""KremlinMiniatures morale and disorder: the allowance, morale tests (king or captain within 6"
from the Scene) and recovery from disorder (no enemy within 12" from the Scene).

A mixin of the Kremlin rule system (assistant/rules/kremlin.py): it uses the system's `units`,
`_unit`, `_enemy_bases` and `values`. Sentences quoted are from the KremlinMiniatures text.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from measure.scene import Scene

from assistant.rules.dice import Dice
from assistant.rules.events import Prompt, StepResult, event
from assistant.rules.kremlin_rules import KremlinError, morale_allowance, morale_passes, recovery_passes
from assistant.rules.inputs import need
from assistant.rules.kremlin_units import Unit, flank_or_rear_contacts, gap_in, mods_text


class MoraleSteps:
    def step_morale_allowance(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Each player rolls one average die and adds +1 to the score, before play begins"."""
        sides = list(options.get("sides") or sorted({f.side for f in scene.figures if f.side}))
        allowance = {}
        events = []
        for side in sides:
            d6 = dice.roll(6, "average die", who=side)
            allowance[side] = morale_allowance(d6, self.values["morale"]["allowance_plus"])
            events.append(event("morale_allowance", f"{side} may call {allowance[side]} morale tests on the enemy.",
                                side=side, roll=d6, allowance=allowance[side]))
        return StepResult("morale_allowance", tuple(events), extra={"allowance": allowance})

    def _generals_near(self, scene: Scene, units: Mapping[str, Unit], unit: Unit, within_in: float) -> list[str]:
        """Friendly kings/captains not attached to `unit` within `within_in` of it (ally kings count
        for their own units only; an ally king's units count no one else)."""
        out = []
        for other in units.values():
            if other.id == unit.id or other.side != unit.side:
                continue
            gens = list(zip(other.generals, other.general_types)) if not other.alone_general else \
                [(b, other.type) for b in other.bases]
            for gid, gtype in gens:
                if unit.commander is not None and gid != unit.commander:
                    continue
                if gtype == "ally_king" and unit.commander != gid:
                    continue
                if gap_in(scene, unit.all_bases, [gid], self.values["play"]["measure_from"]) <= within_in + 1e-9:
                    out.append(gid)
        return out

    def step_morale(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"To pass a test the unit must roll less than the number of bases in the unit (or hits remaining)"."""
        units = self.units(scene, options)
        unit = self._unit(units, need(options, "unit"), "unit")
        if unit.alone_general:
            return StepResult("morale", (event("immune", f"{unit.id} acts alone: immune from morale.", unit=unit.id),))
        # "When a king is killed all units under his command must take an immediate morale test": that
        # test is not one the opponent calls, so it uses none of his allowance.
        king_killed = bool(options.get("king_killed", False))
        left = None if king_killed else options.get("tests_left")
        if left is not None and int(left) <= 0:
            raise KremlinError(f"tests_left: the calling player has no morale tests left to call on {unit.id}")
        mods, near = self.morale_mods(scene, units, unit, options)
        roll = dice.roll(6, "morale", who=unit.id)
        total = roll + sum(mods.values())
        passed = morale_passes(roll, mods, unit.size)
        data = dict(unit=unit.id, roll=roll, mods=mods, total=total, size=unit.size, passed=passed, generals_near=near,
                    king_killed=king_killed)
        removed: tuple[str, ...] = ()
        prompts = []
        extra: dict[str, Any] = {"passed": passed}
        if left is not None:
            extra["tests_left"] = int(left) - 1
        said = f"{unit.id} rolls {roll}{mods_text(mods)} = {total}"
        if passed:
            events = [event("morale_passed", f"{said}, under {unit.size}: passes.", **data)]
        else:
            events = [event("morale_failed", f"{said}, not under {unit.size}: it routs off the table "
                            "(counts as destroyed).", **data)]
            if unit.generals:
                prompts.append(Prompt("rally", f"{unit.generals[0]} is attached to {unit.id}: one attempt to "
                                      "rally them.",
                                      (unit.generals[0],)))
            else:
                removed = unit.all_bases
        return StepResult("morale", tuple(events), removed, tuple(prompts), extra=extra)

    def morale_mods(self, scene: Scene, units: Mapping[str, Unit], unit: Unit,
                    options: Mapping[str, Any]) -> tuple[dict[str, int], list[str]]:
        """The test's modifiers ("+1 Unit is disordered ... -1 King or Captain nearby") and the generals near."""
        m = self.values["morale"]
        mods = {}
        if unit.disordered:
            mods["disordered"] = m["disordered"]
        flank = options.get("flank_rear")
        if flank is None:
            # From the table: an enemy base touching the unit behind its front line.
            flank = bool(flank_or_rear_contacts(scene, unit, self._enemy_bases(units, unit)))
        if flank:
            mods["flank_rear"] = m["flank_rear"]
        if "king" in unit.general_types or "ally_king" in unit.general_types:
            mods["king_attached"] = m["king_attached"]
        elif "captain" in unit.general_types:
            mods["captain_attached"] = m["captain_attached"]
        near = []
        if not unit.generals:
            near = self._generals_near(scene, units, unit, m["nearby_in"])
            if near:
                mods["general_nearby"] = m["general_nearby"]
        return mods, near

    def step_rally(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Fail morale test = the unit routs off table (counts as destroyed). If a king or captain is attached he
        may have one attempt to rally them." The text gives no rally roll: by default (rally.roll) the morale
        test is taken once more with the same modifiers."""
        units = self.units(scene, options)
        unit = self._unit(units, need(options, "unit"), "unit")
        if not unit.generals:
            raise KremlinError(f"unit: {unit.id} has no king or captain attached to rally it")
        if options.get("rallied_before"):
            raise KremlinError(f"unit: {unit.generals[0]} has had his one attempt to rally {unit.id}")
        mods, near = self.morale_mods(scene, units, unit, options)
        mods.update({k: v for k, v in {"rally": int(self.values["rally"]["modifier"])}.items() if v})
        roll = dice.roll(6, "rally", who=unit.id)
        total = roll + sum(mods.values())
        ok = morale_passes(roll, mods, unit.size)
        said = f"{unit.generals[0]} tries to rally {unit.id}: {roll}{mods_text(mods)} = {total}"
        if ok:
            return StepResult("rally", (event("rallied", f"{said}, under {unit.size}: they rally and stay.",
                                              unit=unit.id, roll=roll, mods=mods, total=total, size=unit.size),),
                              extra={"rallied": True})
        return StepResult("rally", (event("rally_failed", f"{said}, not under {unit.size}: the unit routs off the "
                                          "table (counts as destroyed).", unit=unit.id, roll=roll, mods=mods,
                                          total=total, size=unit.size),), unit.all_bases, extra={"rallied": False})

    def step_recover(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Recovery - Roll 1d6 score greater than the number of bases in the unit to recover"."""
        units = self.units(scene, options)
        r = self.values["recovery"]
        unit = self._unit(units, need(options, "unit"), "unit")
        enemy = self._enemy_bases(units, unit)
        contact = gap_in(scene, unit.all_bases, enemy, "edge") <= 0.1 if enemy else False
        if unit.alone_general:
            return StepResult("recover", (event("immune", f"{unit.id} acts alone: immune from disorder.",
                                                unit=unit.id),))
        if not unit.disordered:
            return StepResult("recover", (event("not_disordered", f"{unit.id} is not disordered.", unit=unit.id),))
        if options.get("tried_this_turn"):
            # "Units may make one attempt to recover per turn"
            return StepResult("recover", (event("cannot_recover", f"{unit.id} has had its attempt to recover this "
                                                "turn.", unit=unit.id, reason="tried_this_turn"),))
        if unit.routing or contact:
            why = "routing" if unit.routing else "in contact with the enemy"
            return StepResult("recover", (event("cannot_recover", f"{unit.id} is {why} and cannot recover from "
                                                "disorder.",
                                                unit=unit.id, reason=why),))
        mods = {}
        if "king" in unit.general_types or "ally_king" in unit.general_types:
            mods["king_attached"] = r["king_attached"]
        elif "captain" in unit.general_types:
            mods["captain_attached"] = r["captain_attached"]
        failed = int(options.get("failed_attempts", 0))
        if failed:
            mods["failed_attempts"] = failed * r["per_failed_attempt"]
        nearest = gap_in(scene, unit.all_bases, enemy, self.values["play"]["measure_from"])
        if nearest > r["enemy_near_in"]:
            mods["no_enemy_near"] = r["no_enemy_near"]
        roll = dice.roll(6, "recover from disorder", who=unit.id)
        ok = recovery_passes(roll, mods, unit.size)
        total = roll + sum(mods.values())
        text = (f"{unit.id} rolls {roll}{mods_text(mods)} = {total} against {unit.size} bases: "
                + ("recovers." if ok else "stays disordered."))
        return StepResult("recover", (event("recovered" if ok else "still_disordered", text, unit=unit.id, roll=roll,
                                            mods=mods, total=total, size=unit.size,
                                            nearest_enemy_in=None if nearest == float("inf") else round(nearest, 3)),),
                          extra={"recovered": ok})
