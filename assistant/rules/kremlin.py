"""KremlinMiniatures (units of bases, d6 per base): steps that adapt a Scene to the rules.

Steps: `initiative`, `move` (movement dice, charges), `shoot` (range, 45 degree arc, hits, saves,
heavy fire), `melee` (hits, saves, most kills, recoil and follow-up 3", charge and drawn-melee +1,
recoil casualties, pikes first), `morale_allowance`, `morale` (king or captain within 6" from the
Scene), `recover` (no enemy within 12" from the Scene), `woods` (unknown woods).
Units are built from the bases by kremlin_units.py; the rules are in kremlin_rules.py.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import shapely
from measure.scene import Figure, Scene
from measure.sight import ShooterSpec

from assistant.rules.dice import Dice
from assistant.rules.events import Event, Prompt, StepResult, event
from assistant.rules.kremlin_rules import (KremlinError, apply_kills, arc_of_fire, heavy_fire, hit_dice, hit_needed,
                                           in_arc, melee_result, morale_allowance, morale_passes, movement_dice,
                                           recoil_casualties, recovery_passes, roll_hits, roll_saves, woods_hostile,
                                           woods_nature)
from assistant.rules.kremlin_units import Unit, build_units, centroid, front_line, gap_in, moved, removal_order
from assistant.rules.system import RuleSystem


def _need(obj: Mapping[str, Any], key: str, where: str = "scenario") -> Any:
    if not isinstance(obj, Mapping) or key not in obj:
        raise KremlinError(f"{where}: missing key {key!r}")
    return obj[key]


def _mods_text(mods: Mapping[str, int]) -> str:
    return "".join(f" {v:+d} {k.replace('_', ' ')}" for k, v in mods.items())


class Kremlin(RuleSystem):
    name = "kremlin"
    title = "KremlinMiniatures"
    steps = ("initiative", "move", "shoot", "melee", "morale_allowance", "morale", "recover", "woods")

    # ------------------------------------------------------------ helpers
    def units(self, scene: Scene, options: Mapping[str, Any]) -> dict[str, Unit]:
        return build_units(scene, self, options.get("units"))

    def _unit(self, units: Mapping[str, Unit], uid: Any, where: str) -> Unit:
        if uid not in units:
            raise KremlinError(f"{where}: unknown unit {uid!r}; units: {', '.join(units)}")
        return units[uid]

    def _enemy_bases(self, units: Mapping[str, Unit], unit: Unit) -> list[str]:
        return [b for u in units.values() if u.side != unit.side and u.side is not None for b in u.all_bases]

    def _take(self, scene: Scene, unit: Unit, kills: int, enemy_ids: list[str], events: list[Event],
              removed: list[str], cause: str, tally: dict[str, int]) -> bool:
        """Figure casualties on a unit; returns True when it is destroyed. `tally` keeps, within one
        step, the figures lost from each unit's next base (monsters: hits left)."""
        if kills <= 0:
            return False
        if unit.monster:
            left = tally.get(unit.id, unit.hits_left or 0) - kills
            tally[unit.id] = left
            if left <= 0:
                removed.extend(b for b in unit.all_bases if b not in removed)
                events.append(event("destroyed", f"{unit.id} takes {kills} hit(s) ({cause}) and is destroyed.",
                                    unit=unit.id, hits=kills))
                return True
            events.append(event("hits_taken", f"{unit.id} takes {kills} hit(s) ({cause}); {left} left.",
                                unit=unit.id, hits=kills, hits_left=left))
            return False
        alive = [b for b in unit.bases if b not in removed]
        cas = apply_kills(len(alive), unit.figures_per_base, tally.get(unit.id, unit.lost), kills)
        tally[unit.id] = cas.figures_left_on_partial
        gone = [b for b in removal_order(scene, unit, enemy_ids) if b in alive][:cas.bases_lost]
        if cas.destroyed:
            gone = [b for b in unit.all_bases if b not in removed]
        removed.extend(gone)
        events.append(event("casualties", f"{unit.id} loses {kills} figure(s) ({cause})"
                            + (f": base(s) {', '.join(gone)} removed" if gone else "")
                            + (" and the unit is destroyed." if cas.destroyed else "."),
                            unit=unit.id, figures=kills, bases_removed=gone, destroyed=cas.destroyed,
                            lost_on_next_base=cas.figures_left_on_partial))
        return cas.destroyed

    def shooter_spec(self, figure: Figure) -> ShooterSpec | None:
        """A base of a missile-armed type shoots as far as its type's range (a thin ruler)."""
        rng = self.figure_type(figure.type).get("range", "none")
        if rng in ("none", None):
            return None
        return ShooterSpec(width="edge", range_in=float(self.values["missile_ranges"].get(rng, rng)))

    def _dice_for(self, unit: Unit) -> int:
        n = unit.fight_dice if unit.monster else len(unit.bases)
        return hit_dice(n, unit.disordered or unit.routing)

    # ------------------------------------------------------------ steps
    def step_initiative(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"CinCs roll 1d6, highest score wins (re-roll ties) and chooses to seize or relinquish"."""
        sides = list(options.get("sides") or sorted({f.side for f in scene.figures if f.side}))
        if len(sides) < 2:
            raise KremlinError(f"initiative needs two sides, got {', '.join(sides) or 'none'}")
        events = []
        for round_no in range(1, 101):
            rolls = {s: dice.roll(6, "initiative", who=s) for s in sides}
            best = max(rolls.values())
            top = [s for s in sides if rolls[s] == best]
            if len(top) == 1:
                events.append(event("initiative", f"{top[0]} wins the initiative ({best}).", rolls=rolls, winner=top[0]))
                return StepResult("initiative", tuple(events), prompts=(
                    Prompt("seize_or_relinquish", f"{top[0]}: seize the initiative or relinquish it?",
                           ("seize", "relinquish")),), extra={"initiative": top[0]})
            events.append(event("initiative_tie", f"Tie ({best}): re-roll.", rolls=rolls, round=round_no))
            sides = top
        raise KremlinError("initiative still tied after 100 rolls")

    def step_move(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """Movement dice for a unit; a declared charge that falls short disorders the unit."""
        units = self.units(scene, options)
        unit = self._unit(units, _need(options, "unit"), "unit")
        kinds = [k.lower() for k in self.values["play"]["difficult_kinds"]]
        points = shapely.points([scene.figure(b).xy for b in unit.all_bases])
        difficult = options.get("difficult")
        if difficult is None:
            difficult = any(shapely.covers(t.polygon, points).any() for t in scene.terrain if t.kind.lower() in kinds)
        charge = bool(options.get("charge", False))
        md = movement_dice(unit.move, charge=charge, routing=unit.routing, pursuing=bool(options.get("pursuing")),
                           difficult=bool(difficult), lose=int(options.get("lose_dice", 0)))
        rolls = [dice.roll(6, "movement", who=unit.id) for _ in range(md.dice)]
        total = sum(rolls) + md.plus
        events = [event("movement", f"{unit.id} rolls {md.text()}: {' + '.join(map(str, rolls))}"
                        + (f" + {md.plus}" if md.plus else "") + f" = {total}\".", unit=unit.id, dice=md.dice,
                        plus=md.plus, rolls=rolls, move_in=total, difficult=bool(difficult))]
        disordered = False
        if difficult and unit.heavy:
            disordered = True
            events.append(event("disordered", f"{unit.id} is heavy and in difficult going: disordered.",
                                unit=unit.id, reason="heavy_in_difficult_going"))
        if charge and "target" in options:
            target = self._unit(units, options["target"], "target")
            gap = gap_in(scene, unit.all_bases, target.all_bases, self.values["play"]["measure_from"])
            if gap <= total + 1e-9:
                events.append(event("charge_contact", f"{unit.id} charges {target.id} {gap:.1f}\" away and makes contact.",
                                    unit=unit.id, target=target.id, gap_in=round(gap, 3)))
            else:
                disordered = True
                events.append(event("charge_failed", f"{unit.id} falls short of {target.id} ({gap:.1f}\" away): "
                                    "disordered.", unit=unit.id, target=target.id, gap_in=round(gap, 3)))
        return StepResult("move", tuple(events), extra={"move_in": total, "disordered": disordered})

    def step_shoot(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Declare the target and measure range; Roll 1d6 per base ...; Target rolls it's armour save"."""
        units = self.units(scene, options)
        play = self.values["play"]
        shooter = self._unit(units, _need(options, "shooter"), "shooter")
        target = self._unit(units, _need(options, "target"), "target")
        if shooter.range_in is None:
            raise KremlinError(f"shooter: {shooter.id} has no missile weapon")
        gap = gap_in(scene, shooter.all_bases, target.all_bases, play["measure_from"])
        base = dict(shooter=shooter.id, target=target.id, gap_in=round(gap, 3), range_in=shooter.range_in)
        if gap > shooter.range_in + 1e-9:
            return StepResult("shoot", (event("out_of_range", f"{target.id} is {gap:.1f}\" away; {shooter.id}'s range "
                                              f"is {shooter.range_in:g}\".", **base),))
        left, right, _ = front_line(scene, shooter)
        arc = arc_of_fire(left, right, shooter.facing_deg, shooter.range_in + 12.0, play["arc_deg"])
        tfigs = [scene.figure(b) for b in target.all_bases]
        if not in_arc(arc, [f.xy for f in tfigs], [f.base_in for f in tfigs]):
            return StepResult("shoot", (event("out_of_arc", f"{target.id} is outside {shooter.id}'s arc of fire "
                                              f"({play['arc_deg']:g} degrees from its flank lines).", **base),))
        n = self._dice_for(shooter)
        rolls, hits = roll_hits(dice, n, hit_needed(shooter.hit), shooter.id, "shooting")
        saves, kills = roll_saves(dice, hits, target.save, target.id)
        events = [event("shooting", f"{shooter.id} shoots at {target.id} ({gap:.1f}\"): {n} dice {rolls}, "
                        f"{hits} hit(s) on {hit_needed(shooter.hit)}+; saves {saves} on "
                        f"{target.save or '-'}+: {kills} killed.", **base, dice=n, rolls=rolls, hits=hits,
                        saves=saves, kills=kills)]
        removed: list[str] = []
        tally: dict[str, int] = {}
        destroyed = self._take(scene, target, kills, list(shooter.all_bases), events, removed, "shooting", tally)
        if not destroyed and not target.monster:
            if target.front_rank is not None:
                rank = int(target.front_rank)
            else:
                rank = front_line(scene, target)[2] if target.facing_deg is not None else len(target.bases)
            if heavy_fire(kills, rank):
                events.append(event("disordered", f"Heavy fire: {target.id} lost {kills} figures, more than the "
                                    f"{rank} stand(s) in its front rank: disordered.", unit=target.id, reason="heavy_fire"))
        prompts = []
        if not destroyed and not options.get("response") and target.range_in is not None \
                and gap <= target.range_in + 1e-9:
            prompts.append(Prompt("response_fire", f"{target.id} is missile armed and in range: it may fire back "
                                  f"at {shooter.id}.", (target.id,)))
        return StepResult("shoot", tuple(events), tuple(removed), tuple(prompts))

    def step_melee(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """One round of a melee between two units (`melee`: [a, b]); recoil and follow-up from the Scene."""
        units = self.units(scene, options)
        play, rc = self.values["play"], self.values["recoil_casualties"]
        ids = _need(options, "melee")
        if not isinstance(ids, list) or len(ids) != 2:
            raise KremlinError("melee: expected [unit a, unit b]")
        a, b = self._unit(units, ids[0], "melee[0]"), self._unit(units, ids[1], "melee[1]")
        charging = set(options.get("charging", []))
        drawn = bool(options.get("drawn_before", False))
        events: list[Event] = []
        removed: list[str] = []
        kills = {a.id: 0, b.id: 0}
        tally: dict[str, int] = {}
        destroyed = {a.id: False, b.id: False}

        def bonus(u: Unit) -> dict[str, int]:
            m = {}
            if u.id in charging:
                m["charge"] = play["charge_bonus"]          # "A unit that is charging increases it's chance ... by +1"
            if drawn:
                m["drawn_melee"] = play["drawn_bonus"]      # "On the second turn of a drawn melee ... +1"
            return m

        def strike(u: Unit, foe: Unit, bases_left: int) -> int:
            n = hit_dice(u.fight_dice if u.monster else bases_left, u.disordered or u.routing)
            mods = bonus(u)
            need = hit_needed(u.hit, sum(mods.values()))
            rolls, hits = roll_hits(dice, n, need, u.id, "melee")
            if foe.routing:
                # "Routing Units - Lose one base per hit scored on them and are disordered."
                events.append(event("melee_hits", f"{u.id} rolls {n} dice {rolls}: {hits} hit(s) on {need}+ "
                                    f"against routing {foe.id}: one base lost per hit.", unit=u.id, target=foe.id,
                                    dice=n, rolls=rolls, hits=hits, needs=need, mods=mods))
                return hits * foe.figures_per_base
            saves, k = roll_saves(dice, hits, foe.save, foe.id)
            events.append(event("melee_hits", f"{u.id} rolls {n} dice {rolls}: {hits} hit(s) on {need}+; {foe.id} "
                                f"saves {saves}: {k} killed.", unit=u.id, target=foe.id, dice=n, rolls=rolls,
                                hits=hits, needs=need, mods=mods, saves=saves, kills=k))
            return k

        def bases_after(u: Unit) -> int:
            return len([x for x in u.bases if x not in removed])

        first = [u for u in (a, b) if u.pike and not (a.pike and b.pike)]
        if first:
            # "Pike Armed Units - Inflict damage before their opponent (if not pike armed)."
            p = first[0]
            q = b if p is a else a
            kills[p.id] = strike(p, q, len(p.bases))
            destroyed[q.id] = self._take(scene, q, kills[p.id], list(p.all_bases), events, removed, f"melee with {p.id}", tally)
            if not destroyed[q.id]:
                kills[q.id] = strike(q, p, bases_after(q))
                destroyed[p.id] = self._take(scene, p, kills[q.id], list(q.all_bases), events, removed,
                                             f"melee with {q.id}", tally)
        else:
            kills[a.id] = strike(a, b, len(a.bases))
            kills[b.id] = strike(b, a, len(b.bases))
            destroyed[b.id] = self._take(scene, b, kills[a.id], list(a.all_bases), events, removed, f"melee with {a.id}", tally)
            destroyed[a.id] = self._take(scene, a, kills[b.id], list(b.all_bases), events, removed, f"melee with {b.id}", tally)
        result = melee_result(kills[a.id], kills[b.id])
        moves: dict[str, list[float]] = {}
        prompts: list[Prompt] = []
        if result == "draw":
            events.append(event("melee_draw", f"{a.id} and {b.id} kill {kills[a.id]} each: a draw, no recoil; "
                                "next turn both add +1 to hit.", kills=kills))
            return StepResult("melee", tuple(events), tuple(removed), extra={"result": "draw", "kills": kills})
        victor, loser = (a, b) if result == "a" else (b, a)
        events.append(event("melee_won", f"{victor.id} wins ({kills[victor.id]} kills to {kills[loser.id]}).",
                            victor=victor.id, loser=loser.id, kills=kills))
        direction = centroid(scene, loser.all_bases) - centroid(scene, victor.all_bases)
        direction = direction / (np.linalg.norm(direction) or 1.0)
        if destroyed[loser.id]:
            events.append(event("follow_up_optional", f"{loser.id} is destroyed: {victor.id} may make a "
                                f"{play['follow_up_in']:g}\" follow-up move.", unit=victor.id))
            return StepResult("melee", tuple(events), tuple(removed),
                              extra={"result": victor.id, "kills": kills})
        if options.get("stand_firm") and loser.type == "heavy_infantry":
            events.append(event("stand_firm", f"{loser.id} stands firm and takes an extra casualty instead of recoiling.",
                                unit=loser.id))
            self._take(scene, loser, rc["stand_firm"], list(victor.all_bases), events, removed, "standing firm", tally)
            return StepResult("melee", tuple(events), tuple(removed), extra={"result": victor.id, "kills": kills})
        extra_cas = recoil_casualties(victor.recoil_kind, rc)
        if extra_cas:
            gone = self._take(scene, loser, extra_cas, list(victor.all_bases), events, removed,
                              f"recoiled by {victor.type.replace('_', ' ')}", tally)
            if gone:
                return StepResult("melee", tuple(events), tuple(removed), extra={"result": victor.id, "kills": kills})
        survivors = [x for x in loser.all_bases if x not in removed]
        for bid in survivors:
            moves[bid] = list(moved(scene.figure(bid), direction, play["recoil_in"]))
        hit_friends, hit_enemy = self._bumped(scene, units, loser, moves)
        events.append(event("recoil", f"{loser.id} recoils {play['recoil_in']:g}\".", unit=loser.id,
                            to={k: v for k, v in moves.items()}))
        if hit_enemy:
            removed.extend(x for x in survivors if x not in removed)
            events.append(event("destroyed", f"{loser.id} recoils into the enemy ({', '.join(hit_enemy)}) and is "
                                "destroyed.", unit=loser.id, into=hit_enemy))
        for uid in hit_friends:
            events.append(event("disordered", f"{loser.id} recoils into friends: {uid} is disordered.", unit=uid,
                                reason="recoiled_into"))
        follow = {bid: list(moved(scene.figure(bid), direction, play["follow_up_in"])) for bid in victor.all_bases
                  if bid not in removed}
        _, fresh = self._bumped(scene, units, victor, follow, ignore=set(loser.all_bases))
        events.append(event("follow_up", f"{victor.id} follows up {play['follow_up_in']:g}\".", unit=victor.id, to=follow))
        if fresh:
            prompts.append(Prompt("fresh_enemy", f"{victor.id} follows up into fresh enemy ({', '.join(fresh)}) and "
                                  "fights them immediately.", tuple(fresh)))
        moves.update(follow)
        return StepResult("melee", tuple(events), tuple(removed), tuple(prompts),
                          extra={"result": victor.id, "kills": kills, "moves": moves})

    def _bumped(self, scene: Scene, units: Mapping[str, Unit], unit: Unit, moves: Mapping[str, list[float]],
                ignore: set[str] = frozenset()) -> tuple[list[str], list[str]]:
        """Units whose bases the moved bases would touch: (friendly unit ids, enemy unit ids)."""
        discs = [shapely.Point(xy).buffer(scene.figure(b).base_in / 2) for b, xy in moves.items()]
        if not discs:
            return [], []
        moved_area = shapely.union_all(discs)
        friends, enemies = [], []
        for other in units.values():
            if other.id == unit.id:
                continue
            for bid in other.all_bases:
                if bid in ignore:
                    continue
                f = scene.figure(bid)
                if moved_area.distance(shapely.Point(f.xy)) < f.base_in / 2 - 1e-6:
                    (friends if other.side == unit.side else enemies).append(other.id)
                    break
        return friends, enemies

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
        m = self.values["morale"]
        unit = self._unit(units, _need(options, "unit"), "unit")
        if unit.alone_general:
            return StepResult("morale", (event("immune", f"{unit.id} acts alone: immune from morale.", unit=unit.id),))
        left = options.get("tests_left")
        if left is not None and int(left) <= 0:
            raise KremlinError(f"tests_left: the calling player has no morale tests left to call on {unit.id}")
        mods = {}
        if unit.disordered:
            mods["disordered"] = m["disordered"]
        if options.get("flank_rear"):
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
        roll = dice.roll(6, "morale", who=unit.id)
        total = roll + sum(mods.values())
        passed = morale_passes(roll, mods, unit.size)
        data = dict(unit=unit.id, roll=roll, mods=mods, total=total, size=unit.size, passed=passed, generals_near=near)
        removed: tuple[str, ...] = ()
        prompts = []
        extra: dict[str, Any] = {"passed": passed}
        if left is not None:
            extra["tests_left"] = int(left) - 1
        said = f"{unit.id} rolls {roll}{_mods_text(mods)} = {total}"
        if passed:
            events = [event("morale_passed", f"{said}, under {unit.size}: passes.", **data)]
        else:
            events = [event("morale_failed", f"{said}, not under {unit.size}: it routs off the table "
                            "(counts as destroyed).", **data)]
            if unit.generals:
                prompts.append(Prompt("rally", f"{unit.generals[0]} is attached to {unit.id}: one attempt to rally them.",
                                      (unit.generals[0],)))
            else:
                removed = unit.all_bases
        return StepResult("morale", tuple(events), removed, tuple(prompts), extra=extra)

    def step_recover(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Recovery - Roll 1d6 score greater than the number of bases in the unit to recover"."""
        units = self.units(scene, options)
        r = self.values["recovery"]
        unit = self._unit(units, _need(options, "unit"), "unit")
        enemy = self._enemy_bases(units, unit)
        contact = gap_in(scene, unit.all_bases, enemy, "edge") <= 0.1 if enemy else False
        if unit.alone_general:
            return StepResult("recover", (event("immune", f"{unit.id} acts alone: immune from disorder.", unit=unit.id),))
        if not unit.disordered:
            return StepResult("recover", (event("not_disordered", f"{unit.id} is not disordered.", unit=unit.id),))
        if unit.routing or contact:
            why = "routing" if unit.routing else "in contact with the enemy"
            return StepResult("recover", (event("cannot_recover", f"{unit.id} is {why} and cannot recover from disorder.",
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
        return StepResult("recover", (event("recovered" if ok else "still_disordered",
                                            f"{unit.id} rolls {roll}{_mods_text(mods)} = {total} against {unit.size} bases: "
                                            + ("recovers." if ok else "stays disordered."),
                                            unit=unit.id, roll=roll, mods=mods, total=total, size=unit.size,
                                            nearest_enemy_in=None if nearest == float("inf") else round(nearest, 3)),),
                          extra={"recovered": ok})

    def step_woods(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Unknown woods must be rolled for if a unit enters/touches them"; hostile woods attack."""
        w = self.values["woods"]
        wid = _need(options, "woods")
        piece = next((t for t in scene.terrain if t.id == wid), None)
        if piece is None:
            raise KremlinError(f"woods: unknown terrain {wid!r}; terrain: {', '.join(t.id for t in scene.terrain)}")
        units = self.units(scene, options)
        events: list[Event] = []
        nature = options.get("nature", piece.extra.get("nature"))
        if nature is None:
            roll = dice.roll(6, "unknown woods", who=wid)
            nature = woods_nature(roll, w["table"])
            events.append(event("woods_revealed", f"{wid} is rolled for: {roll}, {nature} woods.", woods=wid,
                                roll=roll, nature=nature))
        wanted = options.get("units")
        touching = [u for u in units.values() if (wanted is None or u.id in wanted)
                    and min(piece.polygon.distance(shapely.Point(scene.figure(b).xy)) - scene.figure(b).base_in / 2
                            for b in u.all_bases) <= 1e-6]
        removed: list[str] = []
        tally: dict[str, int] = {}
        for u in touching:
            if not woods_hostile(nature, u.alignment):
                events.append(event("woods_pass", f"{u.id} ({u.alignment or 'no alignment'}) is not troubled by the "
                                    f"{nature} woods.", unit=u.id))
                continue
            rolls = [dice.roll(6, "woods attack", who=wid) for _ in range(w["attack_dice"])]
            hits = sum(1 for r in rolls if r >= w["hits_on"])
            events.append(event("woods_attack", f"The {nature} woods attack {u.id} (it loses {w['lose_move_dice']} "
                                f"movement die): {rolls}, {hits} hit(s).", unit=u.id, rolls=rolls, hits=hits))
            if u.monster or u.alone_general:
                # "Kings, Captains and Monsters take 1 hit" per hit rather than a base.
                self._take(scene, u, hits, [], events, removed, "woods", tally)
            elif hits:
                # "Each hit destroys 1 base from the unit"
                self._take(scene, u, hits * u.figures_per_base, [], events, removed, "woods", tally)
        return StepResult("woods", tuple(events), tuple(removed), extra={"nature": nature})
