"""KremlinMiniatures (units of bases, d6 per base): steps that adapt a Scene to the rules.

Steps: `initiative`, `move` (movement dice, charges), `shoot` (range, 45 degree arc, hits, saves,
heavy fire), `melee` (hits, saves, most kills, recoil and follow-up 3", charge and drawn-melee +1,
recoil casualties, pikes first), `morale_allowance`, `morale` (king or captain within 6" from the
Scene), `recover` (no enemy within 12" from the Scene), `woods` (unknown woods).
Units are built from the bases by kremlin_units.py; the rules are in kremlin_rules.py; the melee
step is in kremlin_melee.py, morale and recovery in kremlin_morale.py.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dataclasses import replace

import shapely
from measure.arcs import discs_in_arc
from measure.los import SceneIndex, line_of_sight
from measure.scene import Figure, Scene
from measure.sight import RangePolicy, ShooterSpec, TargetPolicy

from assistant.rules.dice import Dice
from assistant.rules.events import Event, Prompt, StepResult, event
from assistant.rules.facing import parse_facing
from assistant.rules.kremlin_melee import MeleeStep, killed_kings
from assistant.rules.kremlin_morale import MoraleSteps
from assistant.rules.kremlin_moves import ManoeuvreSteps
from assistant.rules.kremlin_scenery import ScenerySteps
from assistant.rules.kremlin_rules import (KremlinError, heavy_fire, hit_dice, hit_needed, kill_on_bases, movement_dice,
                                           roll_hits, roll_saves, woods_hostile, woods_nature)
from assistant.rules.inputs import need
from assistant.rules.kremlin_units import Unit, behind_front, build_units, front_line, gap_in, removal_order
from assistant.rules import kremlin_inputs
from assistant.rules.inputs import Ids
from assistant.rules.system import RuleSystem


class Kremlin(MeleeStep, MoraleSteps, ManoeuvreSteps, ScenerySteps, RuleSystem):
    name = "kremlin"
    title = "KremlinMiniatures"
    steps = ("initiative", "move", "charge_response", "shoot", "melee", "break_off", "pursue", "interpenetrate",
             "morale_allowance", "morale", "rally", "recover", "woods", "woods_damage", "woods_move", "siege")
    step_inputs = kremlin_inputs.STEP_INPUTS
    figure_keys = kremlin_inputs.FIGURE_KEYS
    terrain_keys = kremlin_inputs.TERRAIN_KEYS

    def input_ids(self, scene: Scene, options: Mapping[str, Any]) -> Ids:
        """Figures, sides, terrain and units: the `units` option's keys and every base's `unit` (or own id)."""
        ids = super().input_ids(scene, options)
        given = options.get("units")
        given = given if isinstance(given, Mapping) else {}
        named = {b for spec in given.values() if isinstance(spec, Mapping) and isinstance(spec.get("bases"), list)
                 for b in spec["bases"] if isinstance(b, str)}
        units = list(given) + [str(f.extra.get("unit", f.id)) for f in scene.figures if f.id not in named]
        return Ids({**ids.by_kind, "unit": list(dict.fromkeys(units))})

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
        order = [b for b in removal_order(scene, unit, enemy_ids) if b not in removed]
        per_base = {b: unit.figures_per_base for b in unit.bases}
        per_base.update({g: int(self.values["figure_types"][t]["figures_per_base"])
                         for g, t in zip(unit.generals, unit.general_types)})
        cas = kill_on_bases([per_base[b] for b in order], tally.get(unit.id, unit.lost), kills)
        tally[unit.id] = cas.figures_left_on_partial
        gone = order[:cas.bases_lost]
        removed.extend(gone)
        events.append(event("casualties", f"{unit.id} loses {kills} figure(s) ({cause})"
                            + (f": base(s) {', '.join(gone)} removed" if gone else "")
                            + (" and the unit is destroyed." if cas.destroyed else "."),
                            unit=unit.id, figures=kills, bases_removed=gone, destroyed=cas.destroyed,
                            lost_on_next_base=cas.figures_left_on_partial))
        left_alone = [g for g in unit.generals if g not in removed]
        if not cas.destroyed and left_alone and all(b in removed for b in unit.bases):
            events.append(event("general_alone", f"Every base of {unit.id} is gone: {', '.join(left_alone)} now acts "
                                "alone with his own stats.", unit=unit.id, generals=left_alone))
        return cas.destroyed

    def shooter_spec(self, figure: Figure) -> ShooterSpec | None:
        """A base of a missile-armed type shoots as far as its type's range (a thin ruler), into the arc
        ahead of its `facing` (when the figure or its unit gives one)."""
        rng = figure.extra.get("range", self.figure_type(figure.type).get("range", "none"))
        if rng in ("none", None):
            return None
        rng = self.values["missile_ranges"].get(rng, rng)
        if isinstance(rng, bool) or not isinstance(rng, (int, float)):
            raise KremlinError(f"figure {figure.id!r}: unknown missile range {rng!r}; ranges: "
                               f"{', '.join(self.values['missile_ranges'])}")
        face = parse_facing(figure.extra.get("facing"), f"figure {figure.id!r}", KremlinError)
        return ShooterSpec(width="edge", range_in=float(rng), facing_deg=face)

    # ------------------------------------------------------------ sight, range and targets
    def range_policy(self) -> RangePolicy:
        """Ranges between the nearest bases (play.measure_from: edge to edge, or centre)."""
        return RangePolicy(measure=str(self.values["play"]["measure_from"]))

    def target_policy(self) -> TargetPolicy:
        """[targeting] plus the arc of fire (play.arc_deg)."""
        return replace(super().target_policy(), arc_deg=float(self.values["play"]["arc_deg"]))

    def unit_sees(self, scene: Scene, shooter: Unit, target: Unit) -> tuple[bool, tuple[str, ...]]:
        """Some base of the shooting unit sees some base of the target under the shared sight policy
        (the units' own bases never block); else what blocks the nearest pair."""
        policy = self.sight_policy()
        index = SceneIndex.build(scene)
        own = set(shooter.all_bases) | set(target.all_bases)
        nearest: tuple[str, ...] | None = None
        for a in shooter.all_bases:
            for b in target.all_bases:
                res = line_of_sight(scene, a, b, "edge", policy, index=index)
                blockers = tuple(x for x in res.blocked_by if x not in own)
                if not blockers:
                    return True, ()
                nearest = nearest or blockers
        return False, nearest or ()

    def _dice_for(self, unit: Unit) -> int:
        """Shooting dice: "Roll 1d6 per base in the unit". An attached general "fight[s] with the same stats
        as the unit" - fighting is melee (the text's actions are "Move, Shoot, Fight in melee"), so he adds
        a shooting die only when the players say so (play.general_shoots_with_unit)."""
        bases = unit.all_bases if self.values["play"]["general_shoots_with_unit"] else unit.bases
        n = unit.fight_dice if unit.monster else len(bases)
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
                events.append(event("initiative", f"{top[0]} wins the initiative ({best}).", rolls=rolls,
                                    winner=top[0]))
                return StepResult("initiative", tuple(events), prompts=(
                    # Plain words for the choice ("seize" = go first, "relinquish" = let the other side go first).
                    Prompt("seize_or_relinquish", f"{top[0]} rolled highest: go first, or let the other side "
                           "go first?", ("seize", "relinquish")),), extra={"initiative": top[0]})
            events.append(event("initiative_tie", f"Tie ({best}): re-roll.", rolls=rolls, round=round_no))
            sides = top
        raise KremlinError("initiative still tied after 100 rolls")

    def step_move(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """Movement dice for a unit; a declared charge that falls short disorders the unit."""
        units = self.units(scene, options)
        unit = self._unit(units, need(options, "unit"), "unit")
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
                events.append(event("charge_contact", f"{unit.id} charges {target.id} {gap:.1f}\" away and makes "
                                    "contact.", unit=unit.id, target=target.id, gap_in=round(gap, 3)))
                if behind_front(scene, target, unit.all_bases):
                    # Disorder: "Unit is charged in the flank or rear".
                    events.append(event("disordered", f"{target.id} is charged in the flank or rear: disordered.",
                                        unit=target.id, reason="charged_in_flank_or_rear"))
            else:
                disordered = True
                events.append(event("charge_failed", f"{unit.id} falls short of {target.id} ({gap:.1f}\" away): "
                                    "disordered.", unit=unit.id, target=target.id, gap_in=round(gap, 3)))
        return StepResult("move", tuple(events), extra={"move_in": total, "disordered": disordered})

    def step_shoot(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Declare the target and measure range; Roll 1d6 per base ...; Target rolls it's armour save"."""
        units = self.units(scene, options)
        play = self.values["play"]
        shooter = self._unit(units, need(options, "shooter"), "shooter")
        target = self._unit(units, need(options, "target"), "target")
        if shooter.range_in is None:
            raise KremlinError(f"shooter: {shooter.id} has no missile weapon")
        if target.side == shooter.side:
            raise KremlinError(f"target: {target.id} is on {shooter.id}'s own side")
        gap = gap_in(scene, shooter.all_bases, target.all_bases, play["measure_from"])
        base = dict(shooter=shooter.id, target=target.id, gap_in=round(gap, 3), range_in=shooter.range_in)
        if gap > shooter.range_in + 1e-9:
            return StepResult("shoot", (event("out_of_range", f"{target.id} is {gap:.1f}\" away; {shooter.id}'s range "
                                              f"is {shooter.range_in:g}\".", **base),))
        left, right, _ = front_line(scene, shooter)
        tfigs = [scene.figure(b) for b in target.all_bases]
        # The shared arc test (measure.arcs), the one `targets` applies to each base.
        if not discs_in_arc(left, right, shooter.facing_deg, play["arc_deg"], [f.xy for f in tfigs],
                            [f.base_in / 2 for f in tfigs]).any():
            return StepResult("shoot", (event("out_of_arc", f"{target.id} is outside {shooter.id}'s arc of fire "
                                              f"({play['arc_deg']:g} degrees from its flank lines).", **base),))
        sees, blockers = self.unit_sees(scene, shooter, target)
        if not sees:
            return StepResult("shoot", (event("no_line_of_sight", f"{shooter.id} cannot see {target.id}: "
                                              f"{', '.join(blockers)} in the way.", **base,
                                              blocked_by=list(blockers)),))
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
                                    f"{rank} stand(s) in its front rank: disordered.", unit=target.id,
                                    reason="heavy_fire"))
        prompts = killed_kings(units, removed)
        if not destroyed and not options.get("response") and target.range_in is not None \
                and gap <= target.range_in + 1e-9:
            prompts.append(Prompt("response_fire", f"{target.id} is missile armed and in range: it may fire back "
                                  f"at {shooter.id}.", (target.id,)))
        return StepResult("shoot", tuple(events), tuple(removed), tuple(prompts))

    def step_woods(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Unknown woods must be rolled for if a unit enters/touches them"; hostile woods attack."""
        w = self.values["woods"]
        wid = need(options, "woods")
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
