"""KremlinMiniatures melee: one round between two units, with recoil and follow-up read from the Scene.

A mixin of the Kremlin rule system (assistant/rules/kremlin.py): it uses the system's `units`,
`_unit`, `_take` and `values`. Sentences quoted are from the KremlinMiniatures text.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import shapely
from measure.scene import Scene

from assistant.rules.dice import Dice
from assistant.rules.events import Event, Prompt, StepResult, event
from assistant.rules.kremlin_rules import (KremlinError, hit_dice, hit_needed, melee_result, recoil_casualties,
                                           roll_hits, roll_saves)
from assistant.rules.kremlin_units import Unit, centroid, moved, need


class MeleeStep:
    def step_melee(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """One round of a melee between two units (`melee`: [a, b]); recoil and follow-up from the Scene."""
        units = self.units(scene, options)
        play, rc = self.values["play"], self.values["recoil_casualties"]
        ids = need(options, "melee")
        if not isinstance(ids, list) or len(ids) != 2:
            raise KremlinError("melee: expected [unit a, unit b]")
        a, b = self._unit(units, ids[0], "melee[0]"), self._unit(units, ids[1], "melee[1]")
        if a.side == b.side:
            raise KremlinError(f"melee: {a.id} and {b.id} are on the same side")
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
            # attached generals "fight with the same stats as the unit": a die each, like a base
            return len([x for x in u.all_bases if x not in removed])

        first = [u for u in (a, b) if u.pike and not (a.pike and b.pike)]
        if first:
            # "Pike Armed Units - Inflict damage before their opponent (if not pike armed)."
            p = first[0]
            q = b if p is a else a
            kills[p.id] = strike(p, q, len(p.all_bases))
            destroyed[q.id] = self._take(scene, q, kills[p.id], list(p.all_bases), events, removed,
                                         f"melee with {p.id}", tally)
            if not destroyed[q.id]:
                kills[q.id] = strike(q, p, bases_after(q))
                destroyed[p.id] = self._take(scene, p, kills[q.id], list(q.all_bases), events, removed,
                                             f"melee with {q.id}", tally)
        else:
            kills[a.id] = strike(a, b, len(a.all_bases))
            kills[b.id] = strike(b, a, len(b.all_bases))
            destroyed[b.id] = self._take(scene, b, kills[a.id], list(a.all_bases), events, removed,
                                         f"melee with {a.id}", tally)
            destroyed[a.id] = self._take(scene, a, kills[b.id], list(b.all_bases), events, removed,
                                         f"melee with {b.id}", tally)
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
            events.append(event("stand_firm", f"{loser.id} stands firm and takes an extra casualty instead of "
                                "recoiling.", unit=loser.id))
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
        events.append(event("follow_up", f"{victor.id} follows up {play['follow_up_in']:g}\".", unit=victor.id,
                            to=follow))
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
