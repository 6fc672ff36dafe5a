"""KremlinMiniatures melee: one round between two units (and their reinforcements), with recoil and
follow-up read from the Scene.

A mixin of the Kremlin rule system (assistant/rules/kremlin.py): it uses the system's `units`,
`_unit`, `_take` and `values`. The round is split into small parts that share one `Round` record:
who strikes whom and in which order (`fight_order`), one exchange of blows (`_exchange`), the
result by side (`melee_result`), then what the loser does (`_after_loss`). Sentences quoted are
from the KremlinMiniatures text.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import shapely
from measure.scene import Scene

from assistant.rules.dice import Dice
from assistant.rules.events import Event, Prompt, StepResult, event
from assistant.rules.inputs import need
from assistant.rules.kremlin_rules import (KremlinError, hit_dice, hit_needed, melee_result, recoil_casualties,
                                           roll_hits, roll_saves)
from assistant.rules.kremlin_units import Unit, centroid, moved


@dataclass
class Round:
    """What one melee round has done so far (kept while its parts run)."""
    scene: Scene
    dice: Dice
    charging: frozenset[str]
    drawn: bool
    events: list[Event] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    prompts: list[Prompt] = field(default_factory=list)
    kills: dict[str, int] = field(default_factory=dict)
    destroyed: dict[str, bool] = field(default_factory=dict)
    tally: dict[str, int] = field(default_factory=dict)

    def alive(self, u: Unit) -> int:
        # attached generals "fight with the same stats as the unit": a die each, like a base
        return len([x for x in u.all_bases if x not in self.removed])


def fight_order(a: Unit, b: Unit, support: Mapping[str, Unit]) -> list[tuple[Unit, Unit]]:
    """The pairs that exchange blows, in order. "Two onto one - The outnumbered unit fights the
    reinforcing (supporting) enemy unit first"; "Two on two - The reinforcing (supporting) units
    fight each other first"."""
    ra, rb = support.get(a.id), support.get(b.id)
    if ra and rb:
        return [(ra, rb), (a, b)]
    if ra:
        return [(b, ra), (a, b)]
    if rb:
        return [(a, rb), (a, b)]
    return [(a, b)]


def killed_kings(units: Mapping[str, Unit], removed: list[str]) -> list[Prompt]:
    """"When a king is killed all units under his command must take an immediate morale test" (an ally
    king's units are those whose `commander` he is; a CinC's, every other unit of his side)."""
    prompts = []
    for u in units.values():
        kings = [(b, u.type) for b in u.bases] if u.type in ("king", "ally_king") else \
            [(g, t) for g, t in zip(u.generals, u.general_types) if t in ("king", "ally_king")]
        for gid, gtype in kings:
            if gid not in removed:
                continue
            under = [o.id for o in units.values() if o.side == u.side and not o.alone_general
                     and any(b not in removed for b in o.all_bases)
                     and (o.commander == gid if gtype == "ally_king" else o.commander in (None, gid))]
            prompts.append(Prompt("king_killed", f"King {gid} is killed: {', '.join(under) or 'no unit'} must take "
                                  "an immediate morale test (it uses none of the opponent's tests).", tuple(under)))
    return prompts


def strike_first(a: Unit, b: Unit) -> tuple[Unit, Unit] | None:
    """"Pike Armed Units - Inflict damage before their opponent (if not pike armed)": (pikes, foe) or None."""
    if a.pike and not b.pike:
        return a, b
    if b.pike and not a.pike:
        return b, a
    return None


class MeleeStep:
    def _bonus(self, r: Round, u: Unit) -> dict[str, int]:
        play = self.values["play"]
        m = {}
        if u.id in r.charging:
            m["charge"] = play["charge_bonus"]          # "A unit that is charging increases it's chance ... by +1"
        if r.drawn:
            m["drawn_melee"] = play["drawn_bonus"]      # "On the second turn of a drawn melee ... +1"
        return m

    def _strike(self, r: Round, u: Unit, foe: Unit) -> int:
        """One unit's blows on another: figures killed (a routing foe loses a base per hit)."""
        n = hit_dice(u.fight_dice if u.monster else r.alive(u), u.disordered or u.routing)
        mods = self._bonus(r, u)
        needs = hit_needed(u.hit, sum(mods.values()))
        rolls, hits = roll_hits(r.dice, n, needs, u.id, "melee")
        if foe.routing:
            # "Routing Units - Lose one base per hit scored on them and are disordered."
            r.events.append(event("melee_hits", f"{u.id} rolls {n} dice {rolls}: {hits} hit(s) on {needs}+ "
                                  f"against routing {foe.id}: one base lost per hit.", unit=u.id, target=foe.id,
                                  dice=n, rolls=rolls, hits=hits, needs=needs, mods=mods))
            return hits * foe.figures_per_base
        saves, k = roll_saves(r.dice, hits, foe.save, foe.id)
        r.events.append(event("melee_hits", f"{u.id} rolls {n} dice {rolls}: {hits} hit(s) on {needs}+; {foe.id} "
                              f"saves {saves}: {k} killed.", unit=u.id, target=foe.id, dice=n, rolls=rolls,
                              hits=hits, needs=needs, mods=mods, saves=saves, kills=k))
        return k

    def _hurt(self, r: Round, victim: Unit, by: Unit, kills: int) -> None:
        r.kills[by.id] = r.kills.get(by.id, 0) + kills
        gone = self._take(r.scene, victim, kills, list(by.all_bases), r.events, r.removed, f"melee with {by.id}",
                          r.tally)
        r.destroyed[victim.id] = r.destroyed.get(victim.id, False) or gone

    def _exchange(self, r: Round, a: Unit, b: Unit) -> None:
        """Both units strike; pikes strike first and the survivors strike back with what is left."""
        first = strike_first(a, b)
        if first:
            p, q = first
            self._hurt(r, q, p, self._strike(r, p, q))
            if not r.destroyed.get(q.id):
                self._hurt(r, p, q, self._strike(r, q, p))
            return
        ka, kb = self._strike(r, a, b), self._strike(r, b, a)
        self._hurt(r, b, a, ka)
        self._hurt(r, a, b, kb)

    def _support(self, units: Mapping[str, Unit], options: dict, a: Unit, b: Unit) -> dict[str, Unit]:
        """`reinforce`: {fighting unit: its reinforcing unit}. "One unit only may reinforce a melee (a melee
        cannot be reinforced on the first turn it is fought)"."""
        given = options.get("reinforce") or {}
        if not given:
            return {}
        if int(options.get("melee_turn", 1)) <= 1:
            raise KremlinError("reinforce: a melee cannot be reinforced on the first turn it is fought "
                               "(give melee_turn 2 or more)")
        support = {}
        for fid, rid in given.items():
            if fid not in (a.id, b.id):
                raise KremlinError(f"reinforce.{fid}: not one of the two units in this melee ({a.id}, {b.id})")
            ru = self._unit(units, rid, f"reinforce.{fid}")
            if ru.side != units[fid].side or ru.id in (a.id, b.id):
                raise KremlinError(f"reinforce.{fid}: {ru.id} is not a friend standing apart from the melee")
            support[fid] = ru
        return support

    def step_melee(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """One round of a melee between two units (`melee`: [a, b], each with an optional reinforcing unit);
        recoil and follow-up from the Scene."""
        units = self.units(scene, options)
        ids = need(options, "melee")
        a, b = self._unit(units, ids[0], "melee[0]"), self._unit(units, ids[1], "melee[1]")
        if a.side == b.side:
            raise KremlinError(f"melee: {a.id} and {b.id} are on the same side")
        support = self._support(units, options, a, b)
        r = Round(scene, dice, frozenset(options.get("charging", [])), bool(options.get("drawn_before", False)),
                  kills={a.id: 0, b.id: 0})
        for x, y in fight_order(a, b, support):
            if not (r.destroyed.get(x.id) or r.destroyed.get(y.id)):
                self._exchange(r, x, y)
        # "The reinforcing unit adds it figure casualty total to the unit it is supporting to determine
        # which side wins the melee."
        side_kills = {u.id: r.kills.get(u.id, 0) + (r.kills.get(support[u.id].id, 0) if u.id in support else 0)
                      for u in (a, b)}
        result = melee_result(side_kills[a.id], side_kills[b.id])
        extra = {"result": "draw" if result == "draw" else (a.id if result == "a" else b.id), "kills": side_kills}
        if support:
            extra["reinforced_by"] = {k: v.id for k, v in support.items()}
        self._killed_kings(r, units)
        if result == "draw":
            r.events.append(event("melee_draw", f"{a.id} and {b.id} kill {side_kills[a.id]} each: a draw, no recoil; "
                                  "next turn both add +1 to hit.", kills=side_kills))
            return StepResult("melee", tuple(r.events), tuple(r.removed), tuple(r.prompts), extra=extra)
        victor, loser = (a, b) if result == "a" else (b, a)
        r.events.append(event("melee_won", f"{victor.id} wins ({side_kills[victor.id]} kills to "
                              f"{side_kills[loser.id]}).", victor=victor.id, loser=loser.id, kills=side_kills))
        moves = self._after_loss(r, units, victor, loser, options)
        if moves:
            extra["moves"] = moves
        return StepResult("melee", tuple(r.events), tuple(r.removed), tuple(r.prompts), extra=extra)

    def _killed_kings(self, r: Round, units: Mapping[str, Unit]) -> None:
        r.prompts.extend(killed_kings(units, r.removed))

    def _after_loss(self, r: Round, units: Mapping[str, Unit], victor: Unit, loser: Unit,
                    options: dict) -> dict[str, list[float]]:
        """"The loser recoils 3" and the victor follows up 3""; stand firm, recoil casualties, recoil into
        friends (or their hacking down) and enemies, follow-up into fresh enemy."""
        play, rc = self.values["play"], self.values["recoil_casualties"]
        direction = centroid(r.scene, loser.all_bases) - centroid(r.scene, victor.all_bases)
        direction = direction / (np.linalg.norm(direction) or 1.0)
        if r.destroyed.get(loser.id):
            r.events.append(event("follow_up_optional", f"{loser.id} is destroyed: {victor.id} may make a "
                                  f"{play['follow_up_in']:g}\" follow-up move.", unit=victor.id))
            return {}
        if options.get("stand_firm") and loser.type == "heavy_infantry":
            r.events.append(event("stand_firm", f"{loser.id} stands firm and takes an extra casualty instead of "
                                  "recoiling.", unit=loser.id))
            self._take(r.scene, loser, rc["stand_firm"], list(victor.all_bases), r.events, r.removed,
                       "standing firm", r.tally)
            return {}
        extra_cas = recoil_casualties(victor.recoil_kind, rc)
        if extra_cas and self._take(r.scene, loser, extra_cas, list(victor.all_bases), r.events, r.removed,
                                    f"recoiled by {victor.type.replace('_', ' ')}", r.tally):
            return {}
        survivors = [x for x in loser.all_bases if x not in r.removed]
        moves = {bid: list(moved(r.scene.figure(bid), direction, play["recoil_in"])) for bid in survivors}
        hit_friends, hit_enemy = self._bumped(r.scene, units, loser, moves)
        r.events.append(event("recoil", f"{loser.id} recoils {play['recoil_in']:g}\".", unit=loser.id, to=dict(moves)))
        hack = set(options.get("hack_down", []))
        if hit_enemy:
            r.removed.extend(x for x in survivors if x not in r.removed)
            r.events.append(event("destroyed", f"{loser.id} recoils into the enemy ({', '.join(hit_enemy)}) and is "
                                  "destroyed.", unit=loser.id, into=hit_enemy))
        elif hit_friends and hack & set(hit_friends):
            self._hacked_down(r, units, loser, sorted(hack & set(hit_friends))[0], survivors)
        else:
            for uid in hit_friends:
                r.events.append(event("disordered", f"{loser.id} recoils into friends: {uid} is disordered.",
                                      unit=uid, reason="recoiled_into"))
        follow = {bid: list(moved(r.scene.figure(bid), direction, play["follow_up_in"])) for bid in victor.all_bases
                  if bid not in r.removed}
        _, fresh = self._bumped(r.scene, units, victor, follow, ignore=set(loser.all_bases))
        r.events.append(event("follow_up", f"{victor.id} follows up {play['follow_up_in']:g}\".", unit=victor.id,
                              to=follow))
        if fresh:
            # "Following up - A unit that follows up into fresh enemy immediately fights them"
            r.prompts.append(Prompt("fresh_enemy", f"{victor.id} follows up into fresh enemy ({', '.join(fresh)}) "
                                    "and fights them immediately.", tuple(fresh)))
        return {**moves, **follow}

    def _hacked_down(self, r: Round, units: Mapping[str, Unit], loser: Unit, friend_id: str,
                     survivors: list[str]) -> None:
        """"Non-light units may elect not to allow friends (with the exception of monsters) to recoil into
        them and instead may hack them down and destroy them"."""
        friend = units[friend_id]
        if friend.light:
            raise KremlinError(f"hack_down: {friend.id} is a light unit and may not hack down friends")
        if loser.monster:
            raise KremlinError(f"hack_down: {loser.id} is a monster; friends may not hack it down")
        r.removed.extend(x for x in survivors if x not in r.removed)
        r.events.append(event("hacked_down", f"{friend.id} will not let {loser.id} recoil into it and hacks it down: "
                              f"{loser.id} is destroyed.", unit=loser.id, by=friend.id))

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
