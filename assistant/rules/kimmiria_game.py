"""A KIMMIRIA game played through the log: state is a fold over the events in force.

Phases of a turn (the text's order of play): missile -> initiative -> groups -> move -> melee
-> (free_move) -> victory -> next turn's missile ... until someone wins ("over").

    game = KimmiriaGame.start(GameLog("game.db"), scene, condition="A")
    game.prompt()                        # what to do now, in plain words
    game.play("missile", dice)           # resolve + append; returns the StepResult
    game.play("initiative", dice) ...
    game.play("move", ScriptedDice(), moves=[...])
    game.play("melee", ScriptedDice({"A": 5, ...}))
    game.free_move({"D": "W"})           # or game.free_move({}) to decline
    game.play("victory", ScriptedDice())
    game.see(scene)                      # the camera's (or tablet's) newer view of the table
    game.undo()                          # takes back the last step; the undo is appended too
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from measure.scene import Scene, scene_from_json, scene_to_json

from assistant.rules import get_system
from assistant.rules.dice import Dice, ScriptedDice
from assistant.rules.errors import RulesError
from assistant.rules.events import StepResult
from assistant.rules.kimmiria import Kimmiria
from assistant.rules.log import GameLog, Record

PHASES = ("missile", "initiative", "groups", "move", "melee", "free_move", "victory", "over")

PHASE_TEXT = {
    "missile": "Missile fire: both sides shoot at their closest legal targets.",
    "initiative": "Initiative: each player rolls one d6; high roll goes first, ties roll again.",
    "groups": "The attacker rolls one d6: the number of groups that may move (never more than 6).",
    "move": "The attacker moves up to that many groups; figures that move next to an enemy stop.",
    "melee": "Melee: every figure touching an enemy rolls a d6 and places it; highest goes first.",
    "free_move": "The attacker may move one figure one space into each space left by a defeated enemy.",
    "victory": "Check the victory condition.",
    "over": "The game is over.",
}


class GameError(RulesError):
    """A step out of turn, or a game log that is not a KIMMIRIA game; the message says which."""


@dataclass(frozen=True)
class GameState:
    started: bool = False
    overrides: Mapping[str, Any] = field(default_factory=dict)
    condition: str = "A"
    turn: int = 0
    phase: str = "setup"
    scene_json: Mapping[str, Any] | None = None     # the table as the log has it (Scene JSON), the fallen left out
    start_counts: Mapping[str, int] = field(default_factory=dict)
    attacker: str | None = None
    groups_allowed: int | None = None
    locked: tuple[tuple[str, str], ...] = ()
    removed: tuple[str, ...] = ()
    free_moves: tuple[Mapping[str, Any], ...] = ()  # the open free-move prompts
    wizard_last_attack: Mapping[str, int] = field(default_factory=dict)
    wizard_last_flight: Mapping[str, int] = field(default_factory=dict)
    winner: str | None = None
    steps: int = 0

    @cached_property
    def scene(self) -> Scene | None:
        """The table as the game knows it, the fallen left out: a Scene, parsed once per state value."""
        return None if self.scene_json is None else scene_from_json(self.scene_json)


def _without(scene_json: Mapping[str, Any], removed: set[str]) -> dict[str, Any]:
    out = dict(scene_json)
    out["figures"] = [f for f in scene_json.get("figures", []) if f["id"] not in removed]
    return out


def _next_phase(phase: str) -> str:
    return PHASES[PHASES.index(phase) + 1]


def apply(state: GameState, rec: Record) -> GameState:
    """One record folded into the state."""
    p = rec.payload
    if rec.kind == "game_started":
        scene = p["scene"]
        counts: dict[str, int] = {}
        for f in scene.get("figures", []):
            counts[f["side"]] = counts.get(f["side"], 0) + 1
        return GameState(started=True, overrides=p.get("overrides", {}), condition=p.get("condition", "A"),
                         turn=1, phase="missile", scene_json=scene, start_counts=counts, steps=1)
    if not state.started:
        raise GameError(f"record {rec.seq}: the log does not start with game_started")
    state = replace(state, steps=state.steps + 1)
    if rec.kind == "overrides":
        return replace(state, overrides={**state.overrides, **p["overrides"]})
    if rec.kind == "scene":
        return replace(state, scene_json=_without(p["scene"], set(state.removed)))
    if rec.kind == "free_move":
        return replace(state, scene_json=p["scene"], free_moves=(), phase="victory")
    if rec.kind != "step":
        return state
    result = p["result"]
    step = result["step"]
    removed = state.removed + tuple(result.get("removed", ()))
    scene = _without(state.scene_json or {}, set(removed))
    state = replace(state, removed=removed, scene_json=scene)
    if step == "missile":
        attacks = dict(state.wizard_last_attack)
        for fid in result.get("fired", ()):
            attacks[fid] = state.turn
        # "Check for winning victory conditions during the game": missiles can leave a side with no
        # figure, and then there is nobody to roll for initiative.
        wiped = any(not any(f["side"] == side for f in scene.get("figures", [])) for side in state.start_counts)
        return replace(state, wizard_last_attack=attacks, phase="victory" if wiped else "initiative")
    if step == "initiative":
        return replace(state, attacker=result["attacker_side"], phase="groups")
    if step == "groups":
        return replace(state, groups_allowed=result["groups_allowed"], phase="move")
    if step == "move":
        if not result.get("legal"):
            return state                                    # a rejected plan changes nothing
        flights = dict(state.wizard_last_flight)
        for fid in result.get("flights", ()):
            flights[fid] = state.turn
        return replace(state, scene_json=_without(result["scene"], set(removed)), wizard_last_flight=flights,
                       phase="melee")
    if step == "melee":
        prompts = tuple(pr for pr in result.get("prompts", ()) if pr["kind"] == "free_move")
        return replace(state, locked=tuple(tuple(x) for x in result.get("locked", ())),
                       free_moves=prompts, phase="free_move" if prompts else "victory")
    if step == "victory":
        if result.get("winner") is not None or any(e["kind"] == "draw" for e in result["events"]):
            return replace(state, winner=result.get("winner"), phase="over")
        return replace(state, turn=state.turn + 1, phase="missile", attacker=None, groups_allowed=None)
    return state


def fold(records: list[Record]) -> GameState:
    state = GameState()
    for rec in records:
        state = apply(state, rec)
    return state


class KimmiriaGame:
    """Drives one KIMMIRIA game on a GameLog; every call that changes the game appends to it."""

    def __init__(self, log: GameLog) -> None:
        self.log = log

    @property
    def system(self) -> Kimmiria:
        """KIMMIRIA with the house defaults the players set (at the start or since)."""
        return get_system("kimmiria", overrides=dict(self.state().overrides))  # type: ignore[return-value]

    def set_overrides(self, overrides: Mapping[str, Any]) -> None:
        """The players change house defaults mid-game (checked first; logged like everything else)."""
        get_system("kimmiria", overrides={**self.state().overrides, **overrides})
        self.log.append("overrides", {"overrides": dict(overrides)})

    @classmethod
    def start(cls, log: GameLog, scene: Scene, condition: str = "A",
              overrides: Mapping[str, Any] | None = None) -> "KimmiriaGame":
        if log.live_records():
            raise GameError("this log already holds a game; open it with KimmiriaGame(log) to resume")
        system = get_system("kimmiria", overrides=overrides)
        if condition not in system.values["victory"]["conditions"]:
            raise GameError(f"victory condition: expected A, B or C, got {condition!r}")
        system.fighters(scene)                               # every figure has a side and a known type
        log.append("game_started", {"system": "kimmiria", "scene": scene_to_json(scene),
                                    "condition": condition, "overrides": dict(overrides or {})})
        return cls(log)

    def state(self) -> GameState:
        return fold(self.log.live_records())

    def scene(self) -> Scene:
        st = self.state()
        if st.scene is None:
            raise GameError("no game has started in this log")
        return st.scene

    def prompt(self) -> dict[str, Any]:
        """What the table must do now: the phase, plain words, and what the step needs."""
        st = self.state()
        out: dict[str, Any] = {"turn": st.turn, "phase": st.phase, "text": PHASE_TEXT.get(st.phase, ""),
                               "attacker": st.attacker}
        if st.phase == "missile":
            out["plan"] = self.system.missile_plan(self.scene(), self.options_for("missile", st, self.system))
        if st.phase == "move":
            out["groups_allowed"] = st.groups_allowed
        if st.phase == "free_move":
            out["free_moves"] = list(st.free_moves)
        if st.phase == "melee":
            out["locked"] = [list(p) for p in st.locked]
            out["engaged"] = self.system.melee_plan(self.scene())
        if st.phase == "over":
            out["winner"] = st.winner
        return out

    def options_for(self, step: str, st: GameState, system: Kimmiria) -> dict[str, Any]:
        """What the log knows that a step needs (the players' own options are added on top)."""
        rest = int(system.values["play"]["wizard_fly_rest_turns"])
        # Only figures still on the table: the step refuses an id it cannot find.
        present = {f["id"] for f in (st.scene_json or {}).get("figures", [])}
        if step == "missile":
            return {"resting": [w for w, t in st.wizard_last_flight.items()
                                if 0 <= st.turn - t <= rest and w in present]}
        if step == "move":
            return {"groups_allowed": st.groups_allowed, "turn": st.turn,
                    "wizard_last_attack": dict(st.wizard_last_attack)}
        if step == "melee":
            return {"locked": [list(p) for p in st.locked if set(p) <= present]}
        if step == "victory":
            return {"start_counts": dict(st.start_counts), "condition": st.condition}
        return {}

    def play(self, step: str, dice: Dice, **options: Any) -> StepResult:
        result, payload = self.step_record(step, dice, **options)
        self.log.append("step", payload)
        return result

    def step_record(self, step: str, dice: Dice, **options: Any) -> tuple[StepResult, dict[str, Any]]:
        """The step resolved but not yet appended: its result and the `step` record's payload, for a
        caller that commits it together with the input that finished it (one transaction)."""
        st = self.state()
        if st.phase != step:
            raise GameError(f"it is the {st.phase} phase of turn {st.turn}, not {step}")
        system = self.system
        opts = {**self.options_for(step, st, system), **options}
        result = system.resolve(step, st.scene, st.attacker, dice, opts)
        return result, {"turn": st.turn, "options": opts, "result": result.to_json()}

    def play_seen_move(self, after: Scene, groups: list[list[str]] | None = None) -> StepResult:
        """The move step for what the camera saw: moves inferred from the last scene to `after`.

        When every move is legal the game goes on from `after` itself (where the figures really
        stand); otherwise nothing changes and the events say what is wrong.
        """
        st = self.state()
        if st.phase != "move":
            raise GameError(f"it is the {st.phase} phase of turn {st.turn}, not move")
        system = self.system
        before = st.scene
        moves = system.moves_seen(before, after, groups, side=st.attacker)
        opts = {**self.options_for("move", st, system), "moves": moves}
        result = system.resolve("move", before, st.attacker, ScriptedDice(), opts)
        out = result.to_json()
        if out.get("legal"):
            out["scene"] = scene_to_json(after)
        self.log.append("step", {"turn": st.turn, "options": opts, "result": out, "seen": True})
        return result

    def free_move(self, moves: Mapping[str, str]) -> dict[str, Any]:
        """Apply the attacker's free moves {figure id: fallen enemy id}; {} declines them all."""
        st = self.state()
        if st.phase != "free_move":
            raise GameError(f"it is the {st.phase} phase, not free_move")
        offers = {pr["into"]: pr for pr in st.free_moves}
        used: set[str] = set()
        figures = {f["id"]: dict(f) for f in st.scene_json["figures"]}
        for fid, into in moves.items():
            if into not in offers:
                raise GameError(f"free move {fid} -> {into}: {into}'s space is not on offer")
            if fid not in offers[into]["options"]:
                raise GameError(f"free move {fid} -> {into}: only {', '.join(offers[into]['options'])} may move there")
            if into in used:
                raise GameError(f"free move into {into}: only one figure may move into a space")
            used.add(into)
            at = offers[into].get("at", {})
            figures[fid].update({"x": at["x"], "y": at["y"]})
            if "cell" in at:
                figures[fid]["cell"] = at["cell"]
        scene = dict(st.scene_json)
        scene["figures"] = [figures[f["id"]] for f in st.scene_json["figures"]]
        self.log.append("free_move", {"moves": dict(moves), "scene": scene})
        return scene

    def history(self) -> list[dict[str, Any]]:
        """Every event in force, oldest first, each with its turn and log step (for the tablet's story)."""
        out = []
        for rec in self.log.live_records():
            if rec.kind == "step":
                out += [{"turn": rec.payload["turn"], "log_step": rec.step, **e}
                        for e in rec.payload["result"]["events"]]
            elif rec.kind in ("free_move", "overrides", "scene", "game_started"):
                out.append({"log_step": rec.step, "kind": rec.kind,
                            "text": {"free_move": "Free moves: " + (", ".join(f"{k} into {v}'s space" for k, v in
                                                                            rec.payload.get("moves", {}).items())
                                                                  or "none taken") + ".",
                                     "overrides": "House defaults changed: " + ", ".join(
                                         f"{k} = {v}" for k, v in rec.payload.get("overrides", {}).items()) + ".",
                                     "scene": "The table was seen again.",
                                     "game_started": "The game begins."}[rec.kind]})
        return out

    def see(self, scene: Scene) -> None:
        """A newer view of the table (camera or tablet); the fallen stay off it."""
        self.log.append("scene", {"scene": scene_to_json(scene)})

    def undo(self) -> int:
        return self.log.undo()
