"""AnyMinis! heroes' special abilities (and the leader's one) as a rules step: `ability`.

A mixin of the AnyMinis rule system: it uses the system's `assess`, `attack_turn`, `one_attack`,
`move_steps`, `_cell`, `_cell_xy`, `spaces_between`, `terrain_class` and `values`. The numbers are
in anyminis.toml [abilities]. Sentences quoted are from the AnyMinis! text:

"Heroes have a variety of special abilities available to them, and may pick any two of the
following. They may use each one once during the battle, but at the cost of their entire stock of
action points for that turn."
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from measure.scene import Figure, Scene

from assistant.rules.anyminis_attack import Ability, AttackTurn
from assistant.rules.anyminis_effects import effect, forbidden
from assistant.rules.dice import Dice
from assistant.rules.errors import ScenarioError
from assistant.rules.events import Prompt, StepResult, event
from assistant.rules.inputs import need

ABILITIES = ("charge", "called_shot", "dual_attack", "whirlwind", "stick_and_move", "charging_fire", "bring_it")
MOVES = {"charge", "stick_and_move", "charging_fire"}
ATTACKS = {"charge", "called_shot", "dual_attack", "stick_and_move", "charging_fire"}


# ----------------------------------------------------------------- pure helpers

def straight_line(start: tuple[int, int], path: Sequence[Sequence[int]], max_spaces: int) -> str | None:
    """Why a Charge path is not "up to 4 spaces, all in one direction" (None when it is)."""
    if not path:
        return "a charge moves at least one space"
    if len(path) > max_spaces:
        return f"{len(path)} spaces; a charge moves up to {max_spaces}"
    here = start
    step = None
    for cell in path:
        d = (cell[0] - here[0], cell[1] - here[1])
        if max(abs(d[0]), abs(d[1])) != 1:
            return f"{list(cell)} is not next to {list(here)}"
        if step is not None and d != step:
            return "the spaces are not all in one direction"
        step, here = d, tuple(cell)
    return None


def pushed_to(hero: tuple[int, int], other: tuple[int, int], spaces: int = 1) -> tuple[int, int]:
    """"Push every adjacent figure 1 space away": one more space along the line from the hero."""
    d = (other[0] - hero[0], other[1] - hero[1])
    sign = (d[0] > 0) - (d[0] < 0), (d[1] > 0) - (d[1] < 0)
    return other[0] + sign[0] * spaces, other[1] + sign[1] * spaces


def ability_refusal(name: str, role: str, picked: Sequence[str] | None, allowed_picks: int,
                    used: Sequence[str], once_per_battle: bool = True, leader_list: str = "hero_list") -> str | None:
    """Why a figure may not use `name` now (None: it may)."""
    if role not in ("hero", "leader"):
        return f"a {role.replace('_', ' ')} has no special abilities (heroes have 2, the leader 1)"
    if role == "leader" and leader_list != "hero_list":
        return "the leader's ability is not listed in the text; the players decide it (abilities.leader_may_pick_from)"
    if picked is not None:
        if len(picked) > allowed_picks:
            return f"a {role} picks {allowed_picks} special abilit{'y' if allowed_picks == 1 else 'ies'}, not {len(picked)}"
        if name not in picked:
            return f"{name.replace('_', ' ')} is not one of its abilities ({', '.join(picked) or 'none'})"
    if once_per_battle and name in used:
        return f"{name.replace('_', ' ')} was already used this battle ('They may use each one once during the battle')"
    return None


class HeroSteps:
    def step_ability(self, scene: Scene, attacker_side: str | None, dice: Dice, options: dict) -> StepResult:
        """A hero's (or the leader's) special ability: `figure`, `ability`, and what it needs
        (`path`, `target`, `targets`, `then`, `weapon`); `used` lists the abilities used before."""
        fig = scene.figure(need(options, "figure"))
        name = need(options, "ability")
        a = self.assess(fig)
        role_data = self.values["figure_types"][a.role]
        effects = list(options.get("effects", []))
        ab = self.values["abilities"]
        why = ability_refusal(name, a.role, fig.extra.get("abilities"), int(role_data["special_abilities"]),
                              list(options.get("used", [])), bool(ab["once_per_battle"]), str(ab["leader_may_pick_from"]))
        why = why or self._effect_refusal(fig.id, name, effects)
        if why:
            return StepResult("ability", (event("ability_illegal", f"{fig.id} cannot use {name.replace('_', ' ')}: "
                                                f"{why}.", figure=fig.id, ability=name, reason=why),))
        turn = self.attack_turn(scene, options, dice)
        stock = a.action_points + int(options.get("given", 0))
        spent = stock if ab["costs_all_points"] else 1        # else "use 1 gadget or special ability": 1 point
        turn.events.append(event("ability", f"{fig.id} uses {name.replace('_', ' ')}, at the cost of {spent} of its "
                                 f"{stock} action points this turn.", figure=fig.id, ability=name,
                                 points_spent=spent))
        extra: dict[str, Any] = {"used": list(options.get("used", [])) + [name], "action_points_left": stock - spent}
        getattr(self, f"_ability_{name}")(scene, turn, dice, fig, options, extra)
        refused = [e for e in turn.events if e.kind == "ability_illegal"]
        if refused and not turn.rolls_made(dice):
            # refused before anything happened: nothing is spent and the ability stays unused
            return StepResult("ability", tuple(refused))
        if self.values["abilities"][name].get("no_move_next_turn"):
            extra.setdefault("effects", []).append(effect(fig.id, "no_move", "next", name))
        return self.attack_result("ability", turn, extra)

    def _effect_refusal(self, fid: str, name: str, effects: list) -> str | None:
        for action, kinds in (("move", MOVES), ("attack", ATTACKS)):
            if name in kinds:
                held = forbidden(fid, action, effects)
                if held:
                    return f"it may not {action} this turn ({held})"
        return None

    # ------------------------------------------------------------ moving as part of an ability
    def _walk(self, scene: Scene, fig: Figure, path: list) -> tuple[Scene, str | None]:
        """The scene with `fig` moved along `path` (spaces next to each other, no blocking terrain). An
        ability costs the whole stock of action points, so difficult terrain costs nothing more."""
        steps = self.move_steps(scene, fig, path)
        for cell, s in zip(path, steps):
            if s.blocking:
                return scene, f"{list(cell)} cannot be entered (blocking terrain)"
        if not path:
            return scene, None
        cell = tuple(path[-1])
        x, y = self._cell_xy(scene, cell)
        moved = replace(fig, x=x, y=y, cell=cell if fig.cell is not None else None)
        return scene.with_figures([moved if f.id == fig.id else f for f in scene.figures]), None

    def _moved_or_refused(self, scene: Scene, turn: AttackTurn, fig: Figure, path: list, extra: dict) -> Scene | None:
        new, why = self._walk(scene, fig, path)
        if why:
            turn.events.append(event("ability_illegal", f"{fig.id} cannot move: {why}.", figure=fig.id, reason=why))
            return None
        if path:
            extra.setdefault("moves", {})[fig.id] = list(path[-1])
            turn.events.append(event("ability_move", f"{fig.id} moves to {list(path[-1])}.", figure=fig.id,
                                     to=list(path[-1])))
        return new

    # ------------------------------------------------------------ the abilities
    def _ability_charge(self, scene, turn, dice, fig, options, extra) -> None:
        """"Move up to 4 spaces, all in one direction and ending adjacent to an enemy; ignore difficult
        terrain. Hit that enemy with a melee attack at 1d6+2 and 1d6+2 damage. May not move next turn.\""""
        ab = self.values["abilities"]["charge"]
        path = [tuple(c) for c in need(options, "path")]
        why = straight_line(self._cell(scene, fig), path, int(ab["max_spaces"]))
        if why:
            turn.events.append(event("ability_illegal", f"{fig.id} cannot charge: {why}.", figure=fig.id, reason=why))
            return
        scene = self._moved_or_refused(scene, turn, fig, path, extra)     # "ignore difficult terrain"
        if scene is None:
            return
        target = scene.figure(need(options, "target"))
        if self.spaces_between(scene, scene.figure(fig.id), target) > 1:
            turn.events.append(event("ability_illegal", f"{fig.id}'s charge does not end adjacent to {target.id}.",
                                     figure=fig.id, target=target.id, reason="not_adjacent"))
            return
        self.one_attack(scene, turn, dice, {"attacker": fig.id, "target": target.id, "weapon": options.get("weapon")},
                        "target", Ability("charge", int(ab["attack_bonus"]), int(ab["damage_plus"]), kind="melee"))

    def _ability_called_shot(self, scene, turn, dice, fig, options, extra) -> None:
        """"May make 1 ranged attack at +3 die roll, and may ignore any non-armor types of defense\""""
        ab = self.values["abilities"]["called_shot"]
        self.one_attack(scene, turn, dice, {"attacker": fig.id, "target": need(options, "target"),
                                            "weapon": options.get("weapon")}, "target",
                        Ability("called_shot", int(ab["attack_bonus"]), ignore_non_armour=True, kind="ranged"))

    def _two_targets(self, scene: Scene, turn: AttackTurn, fig: Figure, options: dict, name: str) -> list[str] | None:
        targets = list(need(options, "targets"))
        n = int(self.values["abilities"][name]["targets"])
        if len(targets) != n or len(set(targets)) != n:
            raise ScenarioError(f"targets: {name.replace('_', ' ')} takes {n} different targets, got {targets}")
        return targets

    def _ability_dual_attack(self, scene, turn, dice, fig, options, extra) -> None:
        """"Attack 2 adjacent targets with the same melee attack.\""""
        targets = self._two_targets(scene, turn, fig, options, "dual_attack")
        far = [t for t in targets if self.spaces_between(scene, fig, scene.figure(t)) > 1]
        if far:
            turn.events.append(event("ability_illegal", f"{', '.join(far)} not adjacent to {fig.id}.", figure=fig.id,
                                     reason="not_adjacent", targets=far))
            return
        weapon = options.get("weapon")
        for t in targets:
            self.one_attack(scene, turn, dice, {"attacker": fig.id, "target": t, "weapon": weapon}, "targets",
                            Ability("dual_attack", kind="melee"))

    def _ability_whirlwind(self, scene, turn, dice, fig, options, extra) -> None:
        """"Push every adjacent figure 1 space away. None of those figures may attack this turn.\""""
        here = self._cell(scene, fig)
        spaces = int(self.values["abilities"]["whirlwind"]["push_spaces"])
        taken = {self._cell(scene, f) for f in scene.figures}
        for other in scene.figures:
            if other.id == fig.id or other.id in turn.removed or self.spaces_between(scene, fig, other) > 1:
                continue
            to = pushed_to(here, self._cell(scene, other), spaces)
            x, y = self._cell_xy(scene, to)
            kinds = self._kinds_at(scene, (x, y))
            blocked = [k for k in kinds if self.terrain_class(k).get("blocks_movement")]
            off_table = not (0 <= x <= scene.table.width_in and 0 <= y <= scene.table.depth_in)
            extra.setdefault("effects", []).append(effect(other.id, "no_attack", "this", "whirlwind"))
            if blocked or to in taken or off_table:
                why = (f"{', '.join(blocked)} there" if blocked else "the table's edge" if off_table
                       else "another figure stands there")
                turn.prompts.append(Prompt("whirlwind_push", f"{other.id} cannot be pushed to {list(to)} ({why}): "
                                           "where does it go? (the players decide)", (other.id,)))
                turn.events.append(event("pushed_blocked", f"{other.id} cannot be pushed to {list(to)}: {why}.",
                                         figure=other.id, to=list(to)))
                continue
            taken.add(to)
            extra.setdefault("moves", {})[other.id] = list(to)
            turn.events.append(event("pushed", f"{other.id} is pushed to {list(to)} and may not attack this turn.",
                                     figure=other.id, to=list(to)))

    def _ability_stick_and_move(self, scene, turn, dice, fig, options, extra) -> None:
        """"Move 1, attack, then move another space\""""
        ab = self.values["abilities"]["stick_and_move"]
        before, after = [tuple(c) for c in options.get("path", [])], [tuple(c) for c in options.get("then", [])]
        if len(before) > int(ab["move_before"]) or len(after) > int(ab["move_after"]):
            raise ScenarioError(f"path, then: stick and move moves {ab['move_before']} space, attacks, then moves "
                                f"{ab['move_after']} more")
        scene = self._moved_or_refused(scene, turn, fig, before, extra)
        if scene is None:
            return
        self.one_attack(scene, turn, dice, {"attacker": fig.id, "target": need(options, "target"),
                                            "weapon": options.get("weapon")}, "target", Ability("stick_and_move"))
        self._moved_or_refused(scene, turn, scene.figure(fig.id), after, extra)

    def _ability_charging_fire(self, scene, turn, dice, fig, options, extra) -> None:
        """"Move 2, and shoot at 2 adjacent targets\""""
        ab = self.values["abilities"]["charging_fire"]
        path = [tuple(c) for c in options.get("path", [])]
        if len(path) > int(ab["max_spaces"]):
            raise ScenarioError(f"path: charging fire moves up to {ab['max_spaces']} spaces, got {len(path)}")
        targets = self._two_targets(scene, turn, fig, options, "charging_fire")
        scene = self._moved_or_refused(scene, turn, fig, path, extra)
        if scene is None:
            return
        a, b = (scene.figure(t) for t in targets)
        if ab["adjacent_to"] == "shooter":
            far = [t.id for t in (a, b) if self.spaces_between(scene, scene.figure(fig.id), t) > 1]
            if far:
                turn.events.append(event("ability_illegal", f"{', '.join(far)} not adjacent to {fig.id}.",
                                         figure=fig.id, reason="targets_not_adjacent"))
                return
        elif self.spaces_between(scene, a, b) > 1:
            turn.events.append(event("ability_illegal", f"{a.id} and {b.id} are not adjacent to each other.",
                                     figure=fig.id, reason="targets_not_adjacent"))
            return
        for t in targets:
            self.one_attack(scene, turn, dice, {"attacker": fig.id, "target": t, "weapon": options.get("weapon")},
                            "targets", Ability("charging_fire", kind="ranged"))

    def _ability_bring_it(self, scene, turn, dice, fig, options, extra) -> None:
        """"For each additional attack that gangs up on the hero, ignore the attackers' bonuses for ganging up
        on the hero, and instead add +1 to the defense for each additional attacker; hero may not move next
        turn, but may still attack.\""""
        extra["bring_it"] = [fig.id]
        turn.events.append(event("bring_it", f"Bring it! Attackers ganging up on {fig.id} this turn add nothing; "
                                 f"{fig.id} adds +1 defence for each one after the first.", figure=fig.id))
