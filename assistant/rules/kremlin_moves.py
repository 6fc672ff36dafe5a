"""KremlinMiniatures movement responses and their consequences as rules steps: the response to a charge
(counter-charge, evade, shoot then stand, stand), breaking off, pursuing routers, routers passing
through friends, and units attacking a good or evil wood.

A mixin of the Kremlin rule system: it uses the system's `units`, `_unit`, `_take`, `_enemy_bases` and
`values`. Sentences quoted are from the KremlinMiniatures text.
"""
from __future__ import annotations

from measure.scene import Scene

from assistant.rules.dice import Dice
from assistant.rules.events import Event, Prompt, StepResult, event
from assistant.rules.inputs import need
from assistant.rules.kremlin_rules import KremlinError, MoveDice, hit_dice, hit_needed, movement_dice, roll_hits
from assistant.rules.kremlin_units import Unit, gap_in

RESPONSES = ("counter_charge", "evade", "shoot_then_stand", "stand")


def charge_responses(target_cavalry_or_monster: bool, target_light: bool, target_missiles: bool,
                     charger_cavalry_or_monster: bool) -> tuple[str, ...]:
    """The responses a charged unit may make, the first being forced when it is the only one.

    "1. Cavalry and monsters counter-charge (this over rides all other possible responses).
    2. Light units may fire (if they have not already done so that go) then declare an evade.
    3. Missile armed units must shoot at chargers then stand to receive.
    4. Others units may opt to counter-charge if being charged by infantry, or stand to receive them.
    But they must stand to receive cavalry/monsters."""
    if target_cavalry_or_monster:
        return ("counter_charge",)
    if target_light:
        return ("evade",)
    if target_missiles:
        return ("shoot_then_stand",)
    if charger_cavalry_or_monster:
        return ("stand",)
    return ("counter_charge", "stand")


def caught(pursuit_in: float, gap_in_: float, fled_in: float, margin_in: float = 0.0) -> bool:
    """Pursuers catch a unit that moved away `fled_in` from `gap_in_` when their roll covers both."""
    return pursuit_in + 1e-9 >= gap_in_ + fled_in + margin_in


def woods_hits_taken(hits: int, flame: bool, multiplier: int = 2) -> int:
    """"Woods take double damage from flame attacks.\""""
    return hits * multiplier if flame else hits


class ManoeuvreSteps:
    def _cav_or_monster(self, u: Unit) -> bool:
        return u.monster or bool(self.values["figure_types"][u.type].get("cavalry"))

    def _roll_move(self, dice: Dice, u: Unit, md: MoveDice, why: str) -> tuple[list[int], int]:
        rolls = [dice.roll(6, why, who=u.id) for _ in range(md.dice)]
        return rolls, sum(rolls) + md.plus

    def _pursuit(self, dice: Dice, pursuer: Unit, fled: Unit, gap: float, fled_in: float, charging: bool,
                 routers: bool, events: list[Event]) -> bool:
        """Chargers pursue evaders with their charge move ("Units that declare a charge ... add one movement
        die"); pursuers of routers add one too; pursuers of a unit breaking off roll their plain move."""
        md = movement_dice(pursuer.move, charge=charging, pursuing=routers)
        rolls, total = self._roll_move(dice, pursuer, md, "pursuit")
        got = caught(total, gap, fled_in, float(self.values["pursuit"]["catch_margin_in"]))
        events.append(event("pursuit", f"{pursuer.id} pursues: {md.text()} {rolls} = {total}\" against "
                            f"{gap + fled_in:.1f}\": " + (f"{fled.id} is caught." if got else f"{fled.id} gets away."),
                            unit=pursuer.id, target=fled.id, rolls=rolls, move_in=total, needed_in=round(gap + fled_in, 3),
                            caught=got))
        return got

    def step_charge_response(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """The charged unit's response (`charger`, `target`, `choice` where the text leaves one, `fired`,
        `pursue`); an evade rolls the evaders' move, then the chargers' pursuit."""
        units = self.units(scene, options)
        charger = self._unit(units, need(options, "charger"), "charger")
        target = self._unit(units, need(options, "target"), "target")
        if charger.side == target.side:
            raise KremlinError(f"target: {target.id} is on {charger.id}'s own side")
        allowed = charge_responses(self._cav_or_monster(target), target.light, target.range_in is not None,
                                   self._cav_or_monster(charger))
        choice = options.get("choice")
        if choice is None and len(allowed) > 1:
            return StepResult("charge_response", (), prompts=(Prompt(
                "charge_response", f"{target.id} is charged by infantry: counter-charge or stand to receive them?",
                allowed),), extra={"allowed": list(allowed)})
        choice = choice or allowed[0]
        if choice not in allowed:
            raise KremlinError(f"choice: {target.id} may only {' or '.join(a.replace('_', ' ') for a in allowed)} "
                               f"against {charger.id}, not {choice.replace('_', ' ')}")
        events: list[Event] = []
        prompts: list[Prompt] = []
        extra: dict = {"response": choice, "charging": [charger.id]}
        gap = gap_in(scene, charger.all_bases, target.all_bases, self.values["play"]["measure_from"])
        if choice == "counter_charge":
            meet = gap * float(self.values["response"]["meet_fraction"])
            extra["charging"] = [charger.id, target.id]
            events.append(event("counter_charge", f"{target.id} counter-charges: the units meet half way "
                                f"({meet:.1f}\" each); both count as charging.", unit=target.id, meet_in=round(meet, 3)))
        elif choice == "shoot_then_stand":
            events.append(event("stand", f"{target.id} is missile armed: it shoots at {charger.id}, then stands to "
                                "receive the charge.", unit=target.id))
            prompts.append(Prompt("shoot", f"{target.id} shoots at {charger.id} before the charge lands.",
                                  (target.id,)))
        elif choice == "stand":
            events.append(event("stand", f"{target.id} stands to receive {charger.id}.", unit=target.id))
        else:
            self._evade(dice, charger, target, gap, options, events, prompts, extra)
        return StepResult("charge_response", tuple(events), prompts=tuple(prompts), extra=extra)

    def _evade(self, dice, charger: Unit, target: Unit, gap: float, options: dict, events: list,
               prompts: list, extra: dict) -> None:
        """"They roll for movement and must go the full distance. The chargers may roll to pursue. If the
        evaders are caught they are attacked in the rear, if not, they finish their move facing the enemy.\""""
        if target.range_in is not None and not options.get("fired"):
            prompts.append(Prompt("fire_before_evading", f"{target.id} may fire at {charger.id} before it evades "
                                  "(if it has not fired this go).", (target.id,)))
        md = movement_dice(target.move, difficult=bool(options.get("difficult", False)))
        rolls, away = self._roll_move(dice, target, md, "evade")
        events.append(event("evade", f"{target.id} evades: {md.text()} {rolls} = {away}\", the full distance.",
                            unit=target.id, rolls=rolls, move_in=away))
        extra["evade_in"] = away
        if options.get("pursue", True):
            got = self._pursuit(dice, charger, target, gap, away, True, False, events)
            extra["caught"] = got
            if got:
                prompts.append(Prompt("attack_in_rear", f"{charger.id} catches {target.id}: melee, {target.id} "
                                      "attacked in the rear.", (charger.id, target.id)))
                return
        events.append(event("evaded", f"{target.id} finishes its move facing the enemy.", unit=target.id))

    def step_break_off(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Breaking Off - Any unit may attempt to break contact instead of fighting. Roll for the unit's movement
        (it must move the full distance facing away from the enemy). The enemy may roll to pursue, if caught
        the unit is attacked in the rear.\""""
        units = self.units(scene, options)
        unit = self._unit(units, need(options, "unit"), "unit")
        md = movement_dice(unit.move, routing=unit.routing)
        rolls, away = self._roll_move(dice, unit, md, "break off")
        events: list[Event] = [event("break_off", f"{unit.id} breaks off: {md.text()} {rolls} = {away}\", facing "
                                     "away from the enemy.", unit=unit.id, rolls=rolls, move_in=away)]
        prompts: list[Prompt] = []
        extra: dict = {"move_in": away, "caught": False}
        if "pursuer" in options:
            pursuer = self._unit(units, options["pursuer"], "pursuer")
            gap = gap_in(scene, pursuer.all_bases, unit.all_bases, self.values["play"]["measure_from"])
            extra["caught"] = self._pursuit(dice, pursuer, unit, gap, away, False, unit.routing, events)
            if extra["caught"]:
                prompts.append(Prompt("attack_in_rear", f"{pursuer.id} catches {unit.id}: melee, {unit.id} attacked "
                                      "in the rear.", (pursuer.id, unit.id)))
        return StepResult("break_off", tuple(events), prompts=tuple(prompts), extra=extra)

    def step_pursue(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """Pursuing routers (`unit`, `routers`): "Units that ... are pursuing routers, add one movement die";
        "Pursuing - A unit that contacts fresh enemy, whist pursuing routers, is treated as charging.\""""
        units = self.units(scene, options)
        unit = self._unit(units, need(options, "unit"), "unit")
        routers = self._unit(units, need(options, "routers"), "routers")
        if not routers.routing:
            raise KremlinError(f"routers: {routers.id} is not routing (give it \"routing\": true)")
        md = movement_dice(unit.move, pursuing=True)
        rolls, total = self._roll_move(dice, unit, md, "pursuit")
        measure = self.values["play"]["measure_from"]
        gap = gap_in(scene, unit.all_bases, routers.all_bases, measure)
        fresh = sorted((gap_in(scene, unit.all_bases, u.all_bases, measure), u.id) for u in units.values()
                       if u.side not in (None, unit.side) and u.id != routers.id and not u.routing)
        fresh = [(g, uid) for g, uid in fresh if g <= total + 1e-9 and g < gap]
        events = [event("pursuit", f"{unit.id} pursues {routers.id}: {md.text()} {rolls} = {total}\" "
                        f"({gap:.1f}\" away).", unit=unit.id, target=routers.id, rolls=rolls, move_in=total,
                        gap_in=round(gap, 3))]
        prompts = []
        extra: dict = {"move_in": total, "caught": False, "fresh": None}
        if fresh:
            extra["fresh"] = fresh[0][1]
            events.append(event("fresh_enemy", f"{unit.id} meets fresh enemy {fresh[0][1]} on the way and is "
                                "treated as charging.", unit=unit.id, target=fresh[0][1]))
            prompts.append(Prompt("melee", f"Melee: {unit.id} charging {fresh[0][1]}.", (unit.id, fresh[0][1])))
        elif total + 1e-9 >= gap:
            extra["caught"] = True
            events.append(event("routers_caught", f"{unit.id} catches the routing {routers.id}: it loses one base per "
                                "hit scored on it.", unit=unit.id, target=routers.id))
            prompts.append(Prompt("melee", f"Melee: {unit.id} against routing {routers.id}.", (unit.id, routers.id)))
        return StepResult("pursue", tuple(events), prompts=tuple(prompts), extra=extra)

    def step_interpenetrate(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """`unit` moves through friendly `friend`: "Interpenetration through friendly units can be done without
        penalty. But is not allowed if the friends are in melee. A routing unit that interpenetrates a friendly
        unit disorders it. The friend may instead elect to hack down the routers and destroy the unit.\""""
        units = self.units(scene, options)
        unit = self._unit(units, need(options, "unit"), "unit")
        friend = self._unit(units, need(options, "friend"), "friend")
        if friend.side != unit.side or friend.id == unit.id:
            raise KremlinError(f"friend: {friend.id} is not a friend of {unit.id}")
        in_melee = options.get("friend_in_melee")
        if in_melee is None:
            enemy = self._enemy_bases(units, friend)
            in_melee = bool(enemy) and gap_in(scene, friend.all_bases, enemy, "edge") <= 0.1
        if in_melee:
            return StepResult("interpenetrate", (event("interpenetrate_refused", f"{friend.id} is in melee: "
                                                       f"{unit.id} may not pass through it.", unit=unit.id,
                                                       friend=friend.id),), extra={"allowed": False})
        if not unit.routing:
            return StepResult("interpenetrate", (event("interpenetrate", f"{unit.id} passes through {friend.id} "
                                                       "without penalty.", unit=unit.id, friend=friend.id),),
                              extra={"allowed": True})
        hack = options.get("hack_down")
        if hack is None:
            return StepResult("interpenetrate", (), prompts=(Prompt(
                "hack_down_routers", f"Routing {unit.id} runs through {friend.id}: let them through ({friend.id} is "
                "disordered) or hack them down (the routers are destroyed)?", ("let_through", "hack_down")),),
                extra={"allowed": True})
        if hack:
            return StepResult("interpenetrate", (event("hacked_down", f"{friend.id} hacks down the routing "
                                                       f"{unit.id}: it is destroyed.", unit=unit.id, by=friend.id),),
                              unit.all_bases, extra={"allowed": True})
        return StepResult("interpenetrate", (event("disordered", f"Routing {unit.id} runs through {friend.id}: "
                                                   f"{friend.id} is disordered.", unit=friend.id,
                                                   reason="interpenetrated_by_routers"),), extra={"allowed": True})

    def step_woods_damage(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """A unit attacks a good or evil wood (`woods`, `unit`, `flame`, `hits_before`): "They can take 24 hits
        before being destroyed and are immune to morale and disorder. Woods take double damage from flame
        attacks." The unit rolls 1d6 per base at its chance to hit; woods have no armour save."""
        units = self.units(scene, options)
        wid = need(options, "woods")
        piece = next(t for t in scene.terrain if t.id == wid)
        unit = self._unit(units, need(options, "unit"), "unit")
        w = self.values["woods_damage"]
        before = int(options.get("hits_before", piece.extra.get("hits_taken", 0)))
        n = hit_dice(unit.fight_dice if unit.monster else len(unit.all_bases), unit.disordered or unit.routing)
        rolls, hits = roll_hits(dice, n, hit_needed(unit.hit), unit.id, "attack on woods")
        flame = bool(options.get("flame", False))
        taken = woods_hits_taken(hits, flame, int(w["flame_multiplier"]))
        total = before + taken
        destroyed = total >= int(w["hits"])
        text = (f"{unit.id} attacks {wid}: {n} dice {rolls}, {hits} hit(s)" + (", doubled for flame" if flame else "")
                + f": {total} of {w['hits']} hits" + (": the wood is destroyed." if destroyed else "."))
        return StepResult("woods_damage", (event("woods_destroyed" if destroyed else "woods_hit", text, woods=wid,
                                                 unit=unit.id, rolls=rolls, hits=hits, flame=flame, taken=taken,
                                                 hits_taken=total, destroyed=destroyed),),
                          extra={"hits_taken": total, "destroyed": destroyed})
