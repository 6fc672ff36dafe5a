"""A guided turn as an explicit state machine over typed values, generic over the rule system.

A system declares its turn as data (`TurnSpec`): an ordered tuple of `Phase`s. A phase is either
- "dice": a list of `Call`s, each one run of one of the system's rules steps (`step_<name>`) with the
  options it needs, worked out from the state by a small pure function (who shoots whom, who fights
  whom); or
- "move": each side in turn order moves its figures on the real table, and a new picture is compared
  with the last one (`check_moves`: who moved, how far against the allowance, the terrain crossed,
  who is missing).

The state (`TurnState`) is a frozen value holding a Scene, folded from the game log's records by
`apply`. `next_roll(spec, state, dice so far)` runs the open call once against the dice entered so far
and says what happens next as a value: a `RollRequest` (one more die: sides, why, for whom) or a
`Finished` step. A step is a plain function handed its dice and cannot be paused, so this is the one
place where running out of dice is caught: it never leaves this module.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

import shapely
from measure.corridor import corridor
from measure.scene import Figure, Scene, scene_from_json
from measure.sight import MeasureSettings

from assistant.rules.dice import DiceError, Roll
from assistant.rules.events import StepResult
from assistant.rules.system import RuleSystem


class TurnError(ValueError):
    """A turn that cannot go on (a log of another system, an action out of turn); the message says which."""


def _frozen(data: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(data or {}))


@dataclass(frozen=True)
class Call:
    """One run of a rules step: `options` are what it needs, `words` say who does what and why."""
    step: str
    options: Mapping[str, Any] = field(default_factory=dict)
    words: str = ""                         # plain words, figure ids in them (the tablet names them)
    about: tuple[str, ...] = ()             # the figures it is about, first the one acting
    side: str | None = None                 # the side acting (the rules' `attacker_side`)
    why: tuple[str, ...] = ()               # why not another (closer enemies that are not legal), figure ids in them

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", _frozen(self.options))
        object.__setattr__(self, "about", tuple(self.about))
        object.__setattr__(self, "why", tuple(self.why))


@dataclass(frozen=True)
class RollRequest:
    """The open call needs one more die."""
    sides: int
    purpose: str
    who: str | None
    call: Call | None
    before: tuple[Roll, ...] = ()           # the rolls this call already used


@dataclass(frozen=True)
class Finished:
    """The open call has every die it needs: this is its result."""
    call: Call
    result: StepResult


@dataclass(frozen=True)
class TurnContext:
    system: RuleSystem
    settings: MeasureSettings = MeasureSettings()


@dataclass(frozen=True)
class TurnState:
    system: str
    scene: Scene                            # the table as the game knows it, the fallen left out
    sides: tuple[str, ...]
    turn: int = 1
    phase: int = 0                          # index into the spec's phases
    calls: tuple[Call, ...] = ()            # the open dice phase's calls
    call: int = 0                           # the next call to run
    order: tuple[str, ...] = ()             # sides in the order they act this turn
    mover: int = 0                          # a move phase: index into `order`
    removed: tuple[str, ...] = ()
    carry: Mapping[str, Any] = field(default_factory=dict)   # kept between steps (damage, hit points, ...)
    winner: str | None = None
    over: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "carry", _frozen(self.carry))

    @property
    def moving_side(self) -> str | None:
        return self.order[self.mover] if self.mover < len(self.order) else None


@dataclass(frozen=True)
class Phase:
    name: str                               # the log's name for it ("initiative", "shoot", ...)
    kind: Literal["dice", "move"]
    title: str                              # a plain heading ("Who moves first?")
    calls: Callable[[TurnState, TurnContext], tuple[Call, ...]] | None = None
    after: Callable[[TurnState, Call, Mapping[str, Any], TurnContext], TurnState] | None = None
    none_words: str = "Nobody can do that this turn."
    # A later call of the phase once an earlier one felled a figure it names: the call as it stands now
    # (aimed again), or None to drop it. Without one, only a call whose actor fell is dropped.
    again: Callable[[TurnState, Call, TurnContext], Call | None] | None = None


@dataclass(frozen=True)
class TurnSpec:
    system: str
    phases: tuple[Phase, ...]
    allowance_in: Callable[[RuleSystem, Scene, Figure], float | None]   # how far a figure may move (None: not measured)
    blocks_move: Callable[[RuleSystem, str], bool] = lambda system, kind: False     # a terrain kind no move crosses
    move_words: Callable[[RuleSystem], str] = lambda system: ""    # the allowance in one plain sentence

    def phase(self, state: TurnState) -> Phase:
        return self.phases[state.phase]


# ---------------------------------------------------------------- running a call with the dice so far

class _OutOfDice(Exception):
    def __init__(self, sides: int, purpose: str, who: str | None):
        super().__init__(purpose)
        self.sides, self.purpose, self.who = sides, purpose, who


class _Entered:
    """The dice entered so far, in order; one more stops the step (caught in next_roll only)."""

    def __init__(self, values: Sequence[int]):
        self._values = list(values)
        self.rolls: list[Roll] = []

    def roll(self, sides: int, purpose: str, who: str | None = None) -> int:
        if not self._values:
            raise _OutOfDice(sides, purpose, who)
        value = self._values.pop(0)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= sides:
            raise DiceError(f"d{sides} for {purpose}: {value!r} cannot be rolled")
        self.rolls.append(Roll(sides, value, purpose, who))
        return value


def run_with_dice(step: Callable[[Any], StepResult], values: Sequence[int],
                  call: Call | None = None) -> RollRequest | StepResult:
    """Run a rules step (handed its dice) on the dice entered so far: its result, or the die it needs next."""
    dice = _Entered(values)
    try:
        return step(dice)
    except _OutOfDice as need:
        return RollRequest(need.sides, need.purpose, need.who, call, tuple(dice.rolls))


def run_call(state: TurnState, call: Call, ctx: TurnContext, values: Sequence[int]) -> RollRequest | Finished:
    options = {**dict(call.options), **_carried(state, call)}
    out = run_with_dice(lambda dice: ctx.system.resolve(call.step, state.scene, call.side, dice, options), values,
                        call)
    return out if isinstance(out, RollRequest) else Finished(call, out)


def _carried(state: TurnState, call: Call) -> dict[str, Any]:
    """What the rules keep between steps, handed to every step that takes it (damage, hit points), for the
    figures (and sides) on the table now: one a picture no longer shows (the players accepted it) keeps
    its entry for when it is back, but no step is handed an id it does not know."""
    here = {f.id for f in state.scene.figures} | set(state.sides)
    return {k: {i: x for i, x in v.items() if i in here} if isinstance(v, Mapping) else v
            for k, v in state.carry.items() if k in ("damage", "hp", "leader_points") and k not in call.options}


def next_roll(spec: TurnSpec, state: TurnState, ctx: TurnContext, values: Sequence[int]) -> RollRequest | Finished | None:
    """What the open dice call needs next, or None when no call is open (a move phase, the game over)."""
    if state.over or spec.phase(state).kind != "dice" or state.call >= len(state.calls):
        return None
    return run_call(state, state.calls[state.call], ctx, values)


# ---------------------------------------------------------------- the fold

def start(spec: TurnSpec, scene: Scene, ctx: TurnContext) -> TurnState:
    sides = tuple(sorted({f.side for f in scene.figures if f.side}))
    if len(sides) < 2:
        raise TurnError(f"a game needs two sides on the table, found {', '.join(sides) or 'none'}")
    for fig in scene.figures:
        ctx.system.type_name(fig.type)          # UnknownFigureType names the figure's type now, not mid-turn
    return enter(spec, TurnState(system=spec.system, scene=scene, sides=sides, order=sides), ctx)


def enter(spec: TurnSpec, state: TurnState, ctx: TurnContext) -> TurnState:
    """Open the state's phase: work out its calls (skipping a dice phase with none), or its first mover."""
    for _ in range(len(spec.phases) + 1):
        phase = spec.phase(state)
        if phase.kind == "move":
            return replace(state, calls=(), call=0, mover=0)
        calls = tuple(c for c in (phase.calls(state, ctx) if phase.calls else ()) if c is not None)
        if calls:
            return replace(state, calls=calls, call=0)
        state = _next_phase(spec, state)
    return state


def _next_phase(spec: TurnSpec, state: TurnState) -> TurnState:
    if state.phase + 1 < len(spec.phases):
        return replace(state, phase=state.phase + 1, calls=(), call=0, mover=0)
    return replace(state, phase=0, turn=state.turn + 1, calls=(), call=0, mover=0, order=state.sides)


def _victory(state: TurnState) -> TurnState:
    """"The last side with figures on the table wins" (every system here: a side wiped out has lost)."""
    left = {f.side for f in state.scene.figures if f.side}
    if len(left) <= 1:
        return replace(state, over=True, winner=next(iter(left), None))
    return state


def after_step(spec: TurnSpec, state: TurnState, result: Mapping[str, Any], ctx: TurnContext) -> TurnState:
    """A call's result folded in: the fallen leave the scene, the phase keeps what it needs, then on."""
    call = state.calls[state.call]
    gone = tuple(r for r in result.get("removed", ()) if r not in state.removed)
    removed = state.removed + gone
    scene = state.scene.with_figures([f for f in state.scene.figures if f.id not in set(removed)])
    carry = dict(state.carry)
    for key in ("damage", "hp", "leader_points"):
        if key in result:
            carry[key] = {k: v for k, v in dict(result[key]).items() if k not in set(removed)}
    state = replace(state, scene=scene, removed=removed, carry=carry)
    phase = spec.phase(state)
    if phase.after is not None:
        state = phase.after(state, call, result, ctx)
    state = _victory(state)
    if state.over:
        return state
    # The calls were worked out when the phase began: one whose actor has fallen meanwhile is skipped, and
    # one aimed at a figure that has fallen is aimed again (or dropped) by the phase, never run at it.
    present = {f.id for f in state.scene.figures}
    again = spec.phase(state).again
    calls = list(state.calls)
    nxt = state.call + 1
    while nxt < len(calls):
        if calls[nxt].about and calls[nxt].about[0] not in present:
            nxt += 1
            continue
        if again is not None:
            aimed = again(state, calls[nxt], ctx)
            if aimed is None:
                nxt += 1
                continue
            calls[nxt] = aimed
        break
    if nxt < len(calls):
        return replace(state, calls=tuple(calls), call=nxt)
    return enter(spec, _next_phase(spec, state), ctx)


def after_move(spec: TurnSpec, state: TurnState, scene: Scene, ctx: TurnContext) -> TurnState:
    """The moving side is done: the picture's scene (the fallen left out) is the game's now."""
    keep = [f for f in scene.figures if f.id not in set(state.removed)]
    state = replace(state, scene=scene.with_figures(keep))
    if state.mover + 1 < len(state.order):
        return replace(state, mover=state.mover + 1)
    return enter(spec, _next_phase(spec, state), ctx)


# ---------------------------------------------------------------- comparing two pictures

@dataclass(frozen=True)
class MoveCheck:
    figure: str
    kind: Literal["moved", "too_far", "blocked", "missing", "wrong_side", "appeared", "still_there"]
    distance_in: float = 0.0
    allowance_in: float | None = None
    crossed: tuple[str, ...] = ()           # terrain pieces the path crossed
    at: tuple[float, float] | None = None   # where to ring it (inches): where it stands, or stood if missing

    @property
    def problem(self) -> bool:
        return self.kind not in ("moved",)

    def to_json(self) -> dict[str, Any]:
        return {"figure": self.figure, "kind": self.kind, "distance_in": round(self.distance_in, 2),
                "allowance_in": self.allowance_in, "crossed": list(self.crossed),
                "at": None if self.at is None else [round(self.at[0], 3), round(self.at[1], 3)]}


def check_moves(spec: TurnSpec, system: RuleSystem, before: Scene, after: Scene, side: str | None,
                removed: Sequence[str] = (), min_move_in: float = 0.25) -> tuple[MoveCheck, ...]:
    """Who moved between two pictures and how far, against the allowance and the terrain crossed;
    who is missing (a figure marked hidden, under a hand, is not missing) and who appeared."""
    now = {f.id: f for f in after.figures}
    checks: list[MoveCheck] = []
    for fig in before.figures:
        seen = now.get(fig.id)
        if seen is None:
            checks.append(MoveCheck(fig.id, "missing", at=fig.xy))
            continue
        if seen.hidden:
            continue
        dist = math.hypot(seen.x - fig.x, seen.y - fig.y)
        if dist < min_move_in:
            continue
        if side is not None and fig.side != side:
            checks.append(MoveCheck(fig.id, "wrong_side", dist, at=seen.xy))
            continue
        path = corridor(fig.xy, seen.xy, fig.base_in)
        crossed = tuple(t.id for t in before.terrain if shapely.intersects(path, t.polygon))
        blocking = tuple(t.id for t in before.terrain if t.id in crossed and spec.blocks_move(system, t.kind))
        try:
            allowance = spec.allowance_in(system, before, fig)
        except ValueError:              # a figure the system cannot rate: say how far, judge nothing
            allowance = None
        if allowance is not None and dist > allowance + 0.05:       # a twentieth of an inch for the camera
            checks.append(MoveCheck(fig.id, "too_far", dist, allowance, crossed, seen.xy))
        elif blocking:
            checks.append(MoveCheck(fig.id, "blocked", dist, allowance, blocking, seen.xy))
        else:
            checks.append(MoveCheck(fig.id, "moved", dist, allowance, crossed, seen.xy))
    known, fallen = {f.id for f in before.figures}, set(removed)
    checks += [MoveCheck(f.id, "still_there" if f.id in fallen else "appeared", at=f.xy) for f in after.figures
               if f.id not in known and not f.hidden]
    return tuple(checks)


# ---------------------------------------------------------------- the game log

ROLL, ACK = "web_roll", "web_ack"


@dataclass(frozen=True)
class Tail:
    """What the log says since the last step: the dice entered, an outcome or check not yet read."""
    rolls: tuple[int, ...] = ()
    outcome: Mapping[str, Any] | None = None        # the last step's record, until someone taps Next
    check: Mapping[str, Any] | None = None          # a picture that did not match, until accepted or redone


def fold(spec: TurnSpec, records: Sequence[Any], ctx: TurnContext,
         since: tuple[TurnState, Tail] | None = None) -> tuple[TurnState, Tail]:
    """The game log's records in force -> the state and its tail. Records: `game_started` {scene},
    `web_roll` {value}, `step` {result} (the open call's), `web_ack` (an outcome read), `check` {checks} (a
    picture that did not match the game), `moved` {scene} (the moving side is done; shown until read),
    `accepted` (the players overrode a check; the story keeps it). Other kinds are ignored.
    `since`: the state and tail already folded from the records before these (a cache's)."""
    state: TurnState | None = since[0] if since else None
    tail = since[1] if since else Tail()
    for rec in records:
        p = rec.payload
        if rec.kind == "game_started":
            if p.get("system") != spec.system:
                raise TurnError(f"this game is {p.get('system')}, not {spec.system}")
            state, tail = start(spec, scene_from_json(p["scene"]), ctx), Tail()
        elif state is None:
            raise TurnError(f"record {rec.seq}: the log does not start with game_started")
        elif rec.kind == ROLL:
            tail = replace(tail, rolls=tail.rolls + (int(p["value"]),))
        elif rec.kind == "step":
            state, tail = after_step(spec, state, p["result"], ctx), Tail(outcome=p)
        elif rec.kind == ACK:
            tail = replace(tail, outcome=None, check=None)
        elif rec.kind == "check":
            tail = replace(tail, check=p)
        elif rec.kind == "moved":
            state, tail = after_move(spec, state, scene_from_json(p["scene"]), ctx), Tail(outcome=p)
    if state is None:
        raise TurnError("the game log is empty")
    return state, tail


def step_payload(state: TurnState, finished: Finished) -> dict[str, Any]:
    """The `step` record for a finished call (the web commits it with the die that finished it)."""
    return {"turn": state.turn, "phase": state.phase, "call": state.call, "step": finished.call.step,
            "words": finished.call.words, "about": list(finished.call.about), "side": finished.call.side,
            "result": finished.result.to_json()}


def get_turn(system: str) -> TurnSpec:
    """The turn a system declares (its module `assistant.rules.<system>_turn`, attribute TURN)."""
    import importlib
    try:
        module = importlib.import_module(f"assistant.rules.{system}_turn")
    except ModuleNotFoundError:
        raise TurnError(f"{system} declares no guided turn yet") from None
    return module.TURN
