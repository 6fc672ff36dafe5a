"""SMART (any scale, d20, a Judge): steps that adapt a Scene to the rules in smart_rules.py.

Steps: `initiative` (d20 order), `move` (6" / 12", barriers), `missile` (11+ plus the range
penalty, obstacle and firing-into-melee rolls), `melee` (weapon-length order, 11+, armour
absorption), `dragon_breath` (3" x 3" for 5, FAITH roll), `experience` (xp and levels).

One scene figure is one unit. Extra keys on a figure: `weapon`, `armor` (list of pieces),
`damage` (points already taken), `level`, `xp`, `facing` (degrees or north/east/south/west).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import shapely
from measure.corridor import corridor
from measure.engage import contact_matrix, engaged_pairs, enemy_matrix
from measure.scene import Figure, Scene
from measure.sight import RangePolicy, ShooterSpec
from measure.targets import shot_verdict

from assistant.rules.dice import Dice
from assistant.rules.events import Event, Prompt, StepResult, event
from assistant.rules.facing import parse_facing
from assistant.rules.smart_rules import (absorption, breath_area, combat_hit, defeated, diverted, faith_saves,
                                         in_area, fire_order, initiative_order, level_for_xp, strike_tiers, xp_award)
from assistant.rules.errors import ScenarioError
from assistant.rules.inputs import need
from assistant.rules import smart_inputs
from assistant.rules.system import RuleSystem



_need = need


class Smart(RuleSystem):
    name = "smart"
    title = "SMART"
    steps = ("initiative", "move", "missile", "melee", "dragon_breath", "experience")
    step_inputs = smart_inputs.STEP_INPUTS
    figure_keys = smart_inputs.FIGURE_KEYS

    # ------------------------------------------------------------ sight, range and targets
    def range_policy(self) -> RangePolicy:
        """Centre to centre; past the effective range the roll needed grows ("an archer aiming at a target
        50 inches away must roll a 12 or higher"); a shot needing more than a d20 is out of range."""
        p = self.values["projectiles"]
        return replace(super().range_policy(), penalty_from_in=float(p["effective_range_in"]),
                       penalty_step_in=float(p["penalty_step_in"]), base_need=int(p["to_hit"]),
                       max_need=int(self.values["dice"]))

    def shooter_spec(self, figure: Figure) -> ShooterSpec | None:
        """Projectile units shoot along projectiles.sight_width, with no range limit but the roll's."""
        spec = super().shooter_spec(figure)
        return None if spec is None else ShooterSpec(width=self.values["projectiles"]["sight_width"])

    # ------------------------------------------------------------ unit facts
    def absorbs(self, fig: Figure) -> int:
        ftype = self.figure_type(fig.type)
        armour = fig.extra.get("armor", ftype.get("armor", []))
        levels = self.values["armor"]
        return absorption(armour, levels, fig.id, levels["large_monster"] if ftype.get("large") else None)

    def weapon_length(self, fig: Figure) -> tuple[str, int]:
        weapon = str(fig.extra.get("weapon", self.figure_type(fig.type).get("weapon", "sword"))).lower()
        lengths = self.values["weapon_length"]
        if weapon not in lengths:
            raise ScenarioError(f"figure {fig.id!r}: unknown weapon {weapon!r}; lengths known: {', '.join(lengths)}")
        return weapon, int(lengths[weapon])

    def level(self, fig: Figure) -> int:
        default = 1 if self.figure_type(fig.type).get("human") else self.values["experience"]["monster_level"]
        return int(fig.extra.get("level", default))

    def _damage(self, scene: Scene, options: Mapping[str, Any]) -> dict[str, int]:
        given = options.get("damage", {})
        return {f.id: int(given.get(f.id, f.extra.get("damage", 0))) for f in scene.figures}

    def _wound(self, fig: Figure, points: int, damage: dict[str, int], removed: list[str],
               events: list[Event], by: Figure | None, xp: dict[str, int]) -> None:
        """Add damage; the first point the armour cannot absorb defeats the unit."""
        damage[fig.id] += points
        absorbs = self.absorbs(fig)
        if defeated(damage[fig.id], absorbs) and fig.id not in removed:
            removed.append(fig.id)
            events.append(event("defeated", f"{fig.id} takes {points}: {damage[fig.id]} point(s) against armour "
                                f"absorbing {absorbs}: defeated.", unit=fig.id, damage=damage[fig.id], absorbs=absorbs))
            if by is not None:
                self._award(by, fig, xp, events)
        else:
            events.append(event("absorbed", f"{fig.id} takes {points}: its armour absorbs it "
                                f"({damage[fig.id]} of {absorbs}).", unit=fig.id, damage=damage[fig.id],
                                absorbs=absorbs))

    def _award(self, victor: Figure, loser: Figure, xp: dict[str, int], events: list[Event]) -> None:
        """Experience is "only for human units (infantry, archers and knights)"."""
        if self.figure_type(victor.type).get("human"):
            points = xp_award(self.level(loser))
            xp[victor.id] = xp.get(victor.id, 0) + points
            events.append(event("xp", f"{victor.id} gains {points} xp for defeating {loser.id}.",
                                unit=victor.id, xp=points, defeated=loser.id))

    # ------------------------------------------------------------ steps
    def step_initiative(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Each player rolls a d20. The highest number moves their miniatures first, then the next
        highest roll, and so on." Ties roll again among themselves (house default)."""
        sides = options.get("sides") or sorted({f.side for f in scene.figures if f.side})
        if len(sides) < 2:
            raise ScenarioError(f"initiative needs two players, got {', '.join(sides) or 'none'}")
        order: list[str] = []
        events: list[Event] = []
        pending = [list(sides)]
        rounds = 0
        while pending:
            group = pending.pop(0)
            if len(group) == 1:
                order.append(group[0])
                continue
            rounds += 1
            if rounds > 100:
                raise ScenarioError("initiative still tied after 100 rolls")
            rolls = {s: dice.roll(20, "initiative", who=s) for s in group}
            tiers = initiative_order(rolls)
            events.append(event("initiative_rolls", "Initiative: " + ", ".join(f"{s} {v}" for s, v in rolls.items())
                                + ("; ties roll again." if any(len(t) > 1 for t in tiers) else "."), rolls=rolls))
            pending = tiers + pending
        events.append(event("initiative", f"Order of movement: {', '.join(order)}.", order=order))
        return StepResult("initiative", tuple(events), extra={"order": order})

    def step_move(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"FOOT SOLDIERS ... move 6 inches in one turn. KNIGHTS AND LARGE MONSTERS move 12 inches";
        "high walls and trees are complete barriers"; bushes and low walls: the Judge decides."""
        terrain = self.values["terrain"]
        events: list[Event] = []
        prompts: list[Prompt] = []
        for fid, to in _need(options, "moves").items():
            fig = scene.figure(fid)
            rate = float(self.figure_type(fig.type)["move"])
            dist = math.hypot(float(to[0]) - fig.x, float(to[1]) - fig.y)
            path = corridor(fig.xy, (float(to[0]), float(to[1])), fig.base_in) if dist > 0 else shapely.points(fig.xy)
            crossed = [t for t in scene.terrain if shapely.intersects(path, t.polygon)]
            barriers = [t.id for t in crossed if t.kind.lower() in terrain["barriers"]]
            judged = [t.id for t in crossed if t.kind.lower() in terrain["judge"]]
            data = dict(unit=fid, distance_in=round(dist, 3), move_in=rate)
            if dist > rate + 1e-9:
                events.append(event("move_too_far", f"{fid} moves {dist:.1f}\" but may move {rate:g}\".", **data))
            elif barriers:
                events.append(event("move_blocked", f"{fid}'s path crosses {', '.join(barriers)}: a complete barrier.",
                                    **data, barriers=barriers))
            else:
                events.append(event("move_ok", f"{fid} moves {dist:.1f}\" of its {rate:g}\".", **data))
                if judged:
                    prompts.append(Prompt("judge", f"Judge: how do {', '.join(judged)} affect {fid}'s move?",
                                          ("allow", "slow", "forbid"), {"unit": fid, "terrain": judged}))
        return StepResult("move", tuple(events), prompts=tuple(prompts))

    def step_missile(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """Each shot in `shots`: "a D20 FOR EACH UNIT FIRING", 11+ plus the range penalty; then the
        obstacle roll and the firing-into-hand-to-hand roll (1-10: the obstacle / your own unit)."""
        p = self.values["projectiles"]
        policy = self.target_policy()
        damage = self._damage(scene, options)
        touching = contact_matrix(scene) & enemy_matrix(scene)
        index = {f.id: i for i, f in enumerate(scene.figures)}
        events: list[Event] = []
        removed: list[str] = []
        xp: dict[str, int] = {}
        shots = list(_need(options, "shots"))
        if "order" in options and self.values["projectiles"]["fire_order"] == "initiative":
            sides = [scene.figure(s["shooter"]).side for s in shots]
            missing = sorted({s for s in sides if s not in options["order"]}, key=str)
            if missing:
                raise ScenarioError(f"order: {', '.join(map(str, missing))} fire(s) but is not in the order of play")
            ranked = fire_order(sides, list(options["order"]))
            events.append(event("fire_order", "Players fire in the order they moved: "
                                + ", ".join(dict.fromkeys(sides[i] for i in ranked)) + ".",
                                order=list(dict.fromkeys(sides[i] for i in ranked))))
            shots = [shots[i] for i in ranked]
        for n, shot in enumerate(shots):
            shooter = scene.figure(_need(shot, "shooter", f"shots[{n}]"))
            target = scene.figure(_need(shot, "target", f"shots[{n}]"))
            if shooter.side == target.side:
                raise ScenarioError(f"shots[{n}]: {shooter.id} and {target.id} are on the same side")
            if self.shooter_spec(shooter) is None:
                raise ScenarioError(f"shots[{n}]: {shooter.id} ({shooter.type}) has no projectile weapon")
            if shooter.id in removed:
                events.append(event("missile_skipped", f"{shooter.id} was defeated before its player fired.",
                                    shooter=shooter.id))
                continue
            # The shared policy: the same verdict `targets` gives this pair (range roll, obstacles).
            verdict = shot_verdict(scene, shooter.id, target.id, self.shooter_spec(shooter), policy)
            dist = verdict.distance_in
            need = verdict.needs
            penalty = need - int(p["to_hit"])
            data = dict(shooter=shooter.id, target=target.id, distance_in=round(dist, 3), penalty=penalty, needs=need)
            if verdict.reason == "out_of_range":
                events.append(event("missile_impossible", f"{shooter.id} at {target.id}, {dist:.1f}\": needs {need}, "
                                    "more than a d20 can roll.", **data))
                continue
            roll = dice.roll(20, "projectile", who=shooter.id)
            if not combat_hit(roll, need):
                events.append(event("missile_miss", f"{shooter.id} at {target.id} ({dist:.1f}\"): {roll}, "
                                    f"needs {need}: miss.", **data, roll=roll))
                continue
            struck = target
            obstacles = list(verdict.in_the_way)
            if obstacles:
                o_roll = dice.roll(20, "obstacle", who=shooter.id)
                if diverted(o_roll, p["diverted_up_to"]):
                    events.append(event("missile_obstacle", f"{shooter.id} hits ({roll}) but "
                                        f"{', '.join(obstacles)} is in the way: {o_roll}, the missile hits the "
                                        "obstacle.", **data, roll=roll, obstacle_roll=o_roll, obstacles=obstacles))
                    continue
            friends = [f for f in scene.figures if f.side == shooter.side and f.id not in removed
                       and touching[index[f.id], index[target.id]]]
            if friends:
                m_roll = dice.roll(20, "firing into hand-to-hand", who=shooter.id)
                if diverted(m_roll, p["diverted_up_to"]):
                    struck = friends[0]
                    events.append(event("missile_own_unit", f"{shooter.id} fires into hand-to-hand: {m_roll}, the "
                                        f"missile hits its own {struck.id}.", **data, roll=roll, melee_roll=m_roll,
                                        struck=struck.id))
            if struck is target:
                events.append(event("missile_hit", f"{shooter.id} at {target.id} ({dist:.1f}\"): {roll}, "
                                    f"needs {need}: hit.", **data, roll=roll))
            if struck.id not in removed:
                self._wound(struck, int(p["damage"]), damage, removed, events,
                            shooter if struck.side != shooter.side else None, xp)
        return StepResult("missile", tuple(events), tuple(removed), extra={"damage": damage, "xp": xp})

    def step_melee(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """Every unit in hand-to-hand rolls a d20 in weapon-length order; 11+ scores 1 point."""
        first = int(options.get("combat_turn", 1)) <= 1
        pairs = [tuple(p) for p in options.get("pairs", [])] or list(engaged_pairs(scene))
        foe: dict[str, str] = {}
        for a, b in pairs:
            foe.setdefault(a, b)
            foe.setdefault(b, a)
        foe.update(options.get("targets", {}))
        damage = self._damage(scene, options)
        lengths = {u: self.weapon_length(scene.figure(u))[1] for u in foe}
        events: list[Event] = []
        removed: list[str] = []
        xp: dict[str, int] = {}
        for tier in strike_tiers(lengths, first):
            strikers = [u for u in tier if u not in removed]
            hits = []
            for u in strikers:
                roll = dice.roll(20, "hand-to-hand", who=u)
                hit = combat_hit(roll, self.values["melee"]["to_hit"])
                weapon = self.weapon_length(scene.figure(u))[0]
                events.append(event("melee_roll", f"{u} ({weapon}) strikes at {foe[u]}: "
                                    f"{roll}, {'hit' if hit else 'miss'}.", unit=u, target=foe[u], roll=roll, hit=hit,
                                    weapon_length=lengths[u]))
                if hit:
                    hits.append((u, foe[u]))
            # Equal weapons strike at once: damage lands after the whole tier has rolled.
            for u, t in hits:
                if t not in removed:
                    self._wound(scene.figure(t), int(self.values["melee"]["damage"]), damage, removed, events,
                               scene.figure(u), xp)
        return StepResult("melee", tuple(events), tuple(removed),
                          extra={"order": strike_tiers(lengths, first), "damage": damage, "xp": xp})

    def step_dragon_breath(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Dragon breath may affect an area of 3 inches by 3 inches in front it, dealing out 5 points
        of damage to each unit in that area"; a FAITH roll of 11-20 avoids all of it."""
        dragon = scene.figure(_need(options, "dragon"))
        if not self.figure_type(dragon.type).get("breath"):
            raise ScenarioError(f"dragon: {dragon.id} ({dragon.type}) has no breath attack")
        face = parse_facing(options.get("facing", dragon.extra.get("facing")), f"dragon {dragon.id!r}", ScenarioError)
        if face is None:
            raise ScenarioError(f"dragon {dragon.id!r}: give its facing (degrees or north/east/south/west)")
        b = self.values["dragon_breath"]
        area = breath_area(dragon.x, dragon.y, dragon.base_in, face, b["width_in"], b["depth_in"])
        others = [f for f in scene.figures if f.id != dragon.id]
        inside = in_area(area, [f.xy for f in others], [f.base_in for f in others])
        hit = [f for f, reached in zip(others, inside) if reached]
        damage = self._damage(scene, options)
        events: list[Event] = [event("breath", f"{dragon.id} breathes fire: {', '.join(f.id for f in hit) or 'nobody'} "
                                     f"in the {b['width_in']:g}\" x {b['depth_in']:g}\" area.", dragon=dragon.id,
                                     units=[f.id for f in hit], area=[list(map(lambda v: round(v, 3), c))
                                                                      for c in list(area.exterior.coords)[:-1]])]
        removed: list[str] = []
        xp: dict[str, int] = {}
        for fig in hit:
            if self.values["faith"]["enabled"]:
                roll = dice.roll(20, "faith", who=fig.id)
                if faith_saves(roll, self.values["faith"]["saves_on"]):
                    events.append(event("faith_saved", f"{fig.id} rolls {roll} for FAITH: no damage.",
                                        unit=fig.id, roll=roll))
                    continue
                events.append(event("faith_failed", f"{fig.id} rolls {roll} for FAITH: no help.",
                                    unit=fig.id, roll=roll))
            self._wound(fig, int(b["damage"]), damage, removed, events, dragon, xp)
        return StepResult("dragon_breath", tuple(events), tuple(removed), extra={"damage": damage})

    def step_experience(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"When a unit defeats an enemy unit, it receives experience points (xp)"; level squared
        each; levels at level x level x 6 xp; "only for human units"."""
        factor = int(self.values["experience"]["level_factor"])
        xp = {f.id: int(f.extra.get("xp", 0)) for f in scene.figures}
        events: list[Event] = []
        for n, d in enumerate(_need(options, "defeats")):
            victor = scene.figure(_need(d, "victor", f"defeats[{n}]"))
            loser = scene.figure(_need(d, "defeated", f"defeats[{n}]"))
            if not self.figure_type(victor.type).get("human"):
                events.append(event("no_xp", f"{victor.id} is not a human unit: no experience.", unit=victor.id))
                continue
            before = level_for_xp(xp[victor.id], factor)
            gained = xp_award(self.level(loser))
            xp[victor.id] += gained
            after = level_for_xp(xp[victor.id], factor)
            events.append(event("xp", f"{victor.id} gains {gained} xp for defeating {loser.id} "
                                f"(level {self.level(loser)}): {xp[victor.id]} xp.", unit=victor.id, xp=gained,
                                total=xp[victor.id], defeated=loser.id))
            if after > before:
                events.append(event("level_up", f"{victor.id} rises to level {after}.", unit=victor.id, level=after))
        return StepResult("experience", tuple(events),
                          extra={"xp": {k: v for k, v in xp.items()},
                                 "levels": {k: level_for_xp(v, factor) for k, v in xp.items()}})
