"""AnyMinis! spells (`spell`) and the end of the turn (`cleanup`) as rules steps.

A mixin of the AnyMinis rule system: it uses the system's `assess`, `attack_turn`, `one_attack`,
`_cell`, `_cell_xy`, `_kinds_at`, `terrain_class`, `spaces_between`, `sight_policy` and `values`.
The numbers are in anyminis.toml [spells]. Sentences quoted are from the AnyMinis! text:

"Some figures are clearly spellcasters and have magical ability. Pick 3 spells that the squaddie
gets to use. Figures can't cast a spell at move in the same turn (unless tagged as such)."
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import shapely
from measure.grid import cell_distance
from measure.los import line_of_sight, line_of_sight_to_point
from measure.scene import Figure, Scene

from assistant.rules.anyminis_attack import Ability
from assistant.rules.anyminis_effects import effect, next_turn, smoke_left
from assistant.rules.anyminis_rules import Weapon
from assistant.rules.dice import Dice, d3_from_d6
from assistant.rules.errors import ScenarioError
from assistant.rules.events import Event, Prompt, StepResult, event
from assistant.rules.inputs import need


def cast_refusal(spell: str, picked: list[str] | None, picks: int, moved: bool, stance: str | None) -> str | None:
    """Why a figure may not cast `spell` now (None: it may)."""
    if picked is not None:
        if len(picked) > picks:
            return f"a spellcaster picks {picks} spells, not {len(picked)}"
        if spell not in picked:
            return f"{spell} is not one of its spells ({', '.join(picked) or 'none'})"
    if moved and stance != "casting":
        # "Figures can't cast a spell at move in the same turn (unless tagged as such)";
        # "Casting Cast and move in the same turn"
        return "it moved this turn, and only a figure in the casting stance may cast and move in the same turn"
    return None


def healed(hp: int, start: int, gain: int, above_start: bool) -> int:
    """"Healing: target character gains 1d3+2 hit points" (capped at the starting hit points by default)."""
    return hp + gain if above_start else min(start, hp + gain)


def smoke_square(corner: tuple[int, int], size: int) -> list[list[float]]:
    """The 4x4 spaces of a smoke cloud from its corner space, as a polygon in spaces."""
    c, r = corner
    return [[c, r], [c + size, r], [c + size, r + size], [c, r + size]]


class SpellSteps:
    def spell_names(self) -> list[str]:
        return [k for k, v in self.values["spells"].items() if isinstance(v, Mapping)]

    def step_spell(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """A spell: `caster`, `spell`, and `target` (a figure), `to` (Teleport's square) or `at` (Smoke's
        corner square); `moved`: the caster moved this turn."""
        sp = self.values["spells"]
        caster = scene.figure(need(options, "caster"))
        name = need(options, "spell")
        if name not in self.spell_names():
            raise ScenarioError(f"spell: unknown spell {name!r}; spells: {', '.join(self.spell_names())}")
        a = self.assess(caster)
        why = cast_refusal(name, caster.extra.get("spells"), int(sp["picks"]), bool(options.get("moved", False)),
                           a.stance)
        if why:
            return StepResult("spell", (event("spell_illegal", f"{caster.id} cannot cast {name}: {why}.",
                                              caster=caster.id, spell=name, reason=why),))
        turn = self.attack_turn(scene, options, dice)
        turn.events.append(event("spell", f"{caster.id} casts {name} ({sp['cost']} action point).",
                                 caster=caster.id, spell=name, cost=sp["cost"]))
        extra: dict[str, Any] = {}
        if "weapon" in sp[name]:
            w = self.values["weapons"][sp[name]["weapon"]]
            weapon = Weapon(sp[name]["weapon"], w["kind"], int(w["range"]), w.get("die"), int(w.get("plus", 0)))
            self.one_attack(scene, turn, dice, {"attacker": caster.id, "target": need(options, "target")}, "target",
                            Ability(name, kind="ranged"), weapon)
        else:
            getattr(self, f"_spell_{'status' if 'effect' in sp[name] else name}")(scene, turn, dice, caster, name,
                                                                                 options, extra)
        refused = [e for e in turn.events if e.kind == "spell_illegal"]
        if refused and not turn.rolls_made(dice):
            return StepResult("spell", tuple(refused))      # not cast: no point spent
        return self.attack_result("spell", turn, extra)

    def _in_reach(self, scene: Scene, caster: Figure, target: Figure) -> str | None:
        sp = self.values["spells"]
        spaces = self.spaces_between(scene, caster, target)
        if spaces > int(sp["range"]):
            return f"{target.id} is {spaces} spaces away; spells reach {sp['range']} (house default spells.range)"
        if sp["needs_sight"] and caster.id != target.id:
            los = line_of_sight(scene, caster.id, target.id, self.values["leaders"]["sight_width"], self.sight_policy())
            if not los.clear:
                return f"{caster.id} cannot see {target.id} ({', '.join(los.blocked_by)} in the way)"
        return None

    def _spell_status(self, scene, turn, dice, caster, name, options, extra) -> None:
        """Slow, Stun, Daze, Freeze: the effect on the target, for this turn or the next."""
        s = self.values["spells"][name]
        target = scene.figure(need(options, "target"))
        why = self._in_reach(scene, caster, target)
        if why:
            turn.events.append(event("spell_illegal", f"{name}: {why}.", caster=caster.id, spell=name, reason=why))
            return
        extra.setdefault("effects", []).append(effect(target.id, s["effect"], s["when"], name))
        when = "this turn" if s["when"] == "this" else "next turn"
        turn.events.append(event("spell_effect", f"{target.id} is under {name}: {s['effect'].replace('_', ' ')} "
                                 f"{when}.", caster=caster.id, spell=name, target=target.id, effect=s["effect"],
                                 when=s["when"]))

    def _spell_healing(self, scene, turn, dice, caster, name, options, extra) -> None:
        """"Healing: target character gains 1d3+2 hit points\""""
        sp = self.values["spells"]
        target = scene.figure(need(options, "target"))     # any "target character": the text names no side
        why = self._in_reach(scene, caster, target)
        if why:
            turn.events.append(event("spell_illegal", f"healing: {why}.", caster=caster.id, spell=name, reason=why))
            return
        gain = d3_from_d6(dice.roll(6, "healing", who=caster.id)) + int(sp["healing"]["plus"])
        start = self.assess(target).hit_points
        before = turn.hp[target.id]
        turn.hp[target.id] = healed(before, start, gain, bool(sp["heal_above_start"]))
        turn.events.append(event("healed", f"{target.id} gains {gain} hit points ({before} -> {turn.hp[target.id]}).",
                                 target=target.id, gain=gain, hp=turn.hp[target.id]))

    def _spell_teleport(self, scene, turn, dice, caster, name, options, extra) -> None:
        """"Teleport: move up to 8 spaces away, target square must be in line of sight\""""
        sp = self.values["spells"]["teleport"]
        to = tuple(need(options, "to"))
        here = self._cell(scene, caster)
        if scene.grid is not None and scene.grid.kind == "hex":
            spaces = int(cell_distance(scene.grid, np.array(here), np.array(to)))
        else:
            spaces = max(abs(to[0] - here[0]), abs(to[1] - here[1]))
        xy = self._cell_xy(scene, to)
        why = None
        if spaces > int(sp["max_spaces"]):
            why = f"{list(to)} is {spaces} spaces away; Teleport reaches {sp['max_spaces']}"
        elif any(self._cell(scene, f) == to for f in scene.figures):
            why = f"a figure stands on {list(to)}"
        elif any(self.terrain_class(k).get("blocks_movement") for k in self._kinds_at(scene, xy)):
            why = f"{list(to)} cannot be entered (blocking terrain)"
        else:
            los = line_of_sight_to_point(scene, caster.id, xy, self.values["leaders"]["sight_width"],
                                         self.sight_policy())
            if not los.clear:
                why = f"{list(to)} is not in line of sight ({', '.join(los.blocked_by)} in the way)"
        if why:
            turn.events.append(event("spell_illegal", f"teleport: {why}.", caster=caster.id, spell=name, reason=why))
            return
        extra["moves"] = {caster.id: list(to)}
        turn.events.append(event("teleported", f"{caster.id} teleports {spaces} spaces to {list(to)}.",
                                 caster=caster.id, to=list(to), spaces=spaces))

    def _spell_smoke(self, scene, turn, dice, caster, name, options, extra) -> None:
        """"Smoke: create a smoke cloud that's 4x4 spaces and lasts for 4 turns; does not cross walls, hedges,
        use your brains, people!\""""
        sp = self.values["spells"]["smoke"]
        at = tuple(need(options, "at"))
        size = int(sp["size_spaces"])
        corners = smoke_square(at, size)
        pitch = scene.grid.pitch_in if scene.grid is not None else 1.0
        origin = np.array(scene.grid.origin if scene.grid is not None else (0.0, 0.0), dtype=float)
        polygon = [list(map(float, origin + np.array(c, dtype=float) * pitch)) for c in corners]
        piece = {"id": f"smoke_{caster.id}", "kind": "smoke", "polygon": polygon, "turns_left": int(sp["turns"])}
        extra["terrain"] = [piece]
        turn.events.append(event("smoke", f"A smoke cloud of {size}x{size} spaces from {list(at)}; it lasts "
                                 f"{sp['turns']} turns and blocks sight.", caster=caster.id, at=list(at),
                                 turns_left=int(sp["turns"])))
        cloud = shapely.Polygon(polygon)
        walls = [t.id for t in scene.terrain if t.kind.lower() in ("wall", "hedgerow", "hedge")
                 and t.polygon.intersects(cloud)]
        if walls:
            # "does not cross walls, hedges, use your brains, people!": where it stops is the players' call
            turn.prompts.append(Prompt("smoke_walls", f"The smoke meets {', '.join(walls)}: it does not cross walls "
                                       "or hedges. Mark where the cloud stops on the table.", tuple(walls)))

    # ------------------------------------------------------------ clean-up
    def step_cleanup(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """"Clean up the battlefield - remove dead figures, update any duration effects (like smoke screens or
        spell effects)": `hp`, `effects`, `smoke` ({terrain id: turns left}, default each smoke piece's own)."""
        hp = {f.id: int(options.get("hp", {}).get(f.id, f.extra.get("hp", self.assess(f).hit_points)))
              for f in scene.figures}
        dead = [fid for fid, v in hp.items() if v <= 0]
        events: list[Event] = [event("dead_removed", f"{fid} is dead and leaves the table.", figure=fid)
                               for fid in dead]
        keep, ended = next_turn(list(options.get("effects", [])))
        events += [event("effect_ends", f"{e['figure']}'s {e['effect'].replace('_', ' ')} ({e.get('from', '')}) "
                         "ends.", **e) for e in ended]
        smoke = {t.id: int(t.extra.get("turns_left", 0)) for t in scene.terrain if t.kind.lower() == "smoke"}
        smoke.update({k: int(v) for k, v in options.get("smoke", {}).items()})
        left = {}
        for tid, turns in smoke.items():
            left[tid] = smoke_left(turns)
            events.append(event("smoke_thins" if left[tid] else "smoke_gone",
                                f"Smoke {tid}: {left[tid]} turn(s) left." if left[tid] else f"Smoke {tid} is gone.",
                                terrain=tid, turns_left=left[tid]))
        return StepResult("cleanup", tuple(events), tuple(dead),
                          extra={"effects": keep, "smoke": left, "hp": {k: v for k, v in hp.items() if v > 0}})
