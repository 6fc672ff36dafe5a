"""The guided turn of AnyMinis!, SMART and KremlinMiniatures on the tablet: one prompt at a time.

The rules side (assistant/rules/turn.py) folds the game log into a `TurnState` and says what the open
call needs (`RollRequest`) or what it did (`Finished`); this module turns those values into prompts
and appends what the players do. A die that finishes a call is committed with the call's step in
one transaction; a read plays nothing, it only folds.

Moves and removals are checked against the newest picture (`picture` is a key of the picture the
table shows: a new photo, upload or live frame changes it): who moved, how far against the system's
allowance and the terrain crossed, who is missing. A mismatch is a `check` record and a prompt with
the figures ringed; "Accept anyway" logs `accepted` and goes on.
"""
from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping
from typing import Any

from measure.scene import Scene, scene_to_json
from measure.sight import MeasureSettings

from assistant.rules import get_system
from assistant.rules.log import UNDO, GameLog
from assistant.rules.turn import (ACK, ROLL, Finished, RollRequest, Tail, TurnContext, TurnSpec, TurnState,
                                  check_moves, fold, get_turn, next_roll, start, step_payload)
from assistant.web.words import figure_names, name_list, side_word, thing_names, with_names

ROLL_HOW = "Tap the number you rolled, or let the tablet roll for you."
PHOTO_HOW = "Take a new picture of the table (camera, upload or the live camera), then tap Done."

PURPOSE_WORDS = {"initiative": "to see who goes first", "projectile": "to hit", "obstacle": "to see if the obstacle "
                 "stops the shot", "firing into hand-to-hand": "to see whom the shot hits in the fight",
                 "hand-to-hand": "to strike", "faith": "for faith", "movement": "to move", "shooting": "to hit",
                 "melee": "to hit", "save": "to save", "hit roll": "to hit", "defence roll": "to defend",
                 "damage": "for damage", "armour save": "to save it", "healing": "to heal",
                 "morale": "to see if it stands firm", "rally": "to rally it", "recover from disorder":
                 "to get back in order", "average die": "(an average die) for the morale tests it may call",
                 "pursuit": "to chase", "evade": "to get away", "break off": "to break off"}


class Game:
    """One generic game on its log: the spec, the context and the folded state."""

    def __init__(self, log: GameLog, system_name: str, overrides: Mapping[str, Any] | None = None,
                 settings: MeasureSettings | None = None):
        self.log = log
        self.spec: TurnSpec = get_turn(system_name)
        self.ctx = TurnContext(get_system(system_name, overrides=dict(overrides or {})), settings or MeasureSettings())
        self.records = log.records()
        self.live = log.live_records(self.records)
        # What the fold depends on besides the records: the log's first record, the system, its numbers.
        self._key = (self.records[0].at if self.records else None, system_name,
                     repr(sorted(dict(overrides or {}).items())), self.ctx.settings)
        self.state, self.tail = _folded(log, self.spec, self.ctx, self._key, self.records, self.live)
        first = self.live[0].payload
        self.names = {**{s: side_word(s) for s in self.state.sides}, **figure_names(first["scene"]),
                      **thing_names(self.state.scene)}

    def refold(self) -> "Game":
        self.records = self.log.records()
        self.live = self.log.live_records(self.records)
        self.state, self.tail = _folded(self.log, self.spec, self.ctx, self._key, self.records, self.live)
        return self

    def n(self, fid: str | None) -> str:
        return self.names.get(fid, fid or "")

    def words(self, text: str) -> str:
        return with_names(text, self.names)


_FOLDS: dict[str, tuple[Any, int, TurnState, Tail]] = {}      # log path -> (context key, last seq, state, tail)
_FOLDS_LOCK = threading.Lock()


def _folded(log: GameLog, spec: TurnSpec, ctx: TurnContext, key: Any, records: list, live: list
            ) -> tuple[TurnState, Tail]:
    """fold() of the log, continued from the last fold of the same log when only records were added since
    (the log is append-only; an undo marker since then means a full fold)."""
    last = records[-1].seq if records else 0
    with _FOLDS_LOCK:
        cached = _FOLDS.get(log.path)
    if cached is not None and key is not None and cached[0] == key and cached[1] <= last:
        newer = [r for r in records if r.seq > cached[1]]
        if not any(r.kind == UNDO for r in newer):
            state, tail = fold(spec, newer, ctx, (cached[2], cached[3])) if newer else (cached[2], cached[3])
            with _FOLDS_LOCK:
                _FOLDS[log.path] = (key, last, state, tail)
            return state, tail
    state, tail = fold(spec, live, ctx)
    if key is not None:
        with _FOLDS_LOCK:
            if len(_FOLDS) > 64:
                _FOLDS.clear()
            _FOLDS[log.path] = (key, last, state, tail)
    return state, tail


def start_game(log: GameLog, scene: Scene, system_name: str, overrides: Mapping[str, Any] | None,
               settings: MeasureSettings | None, picture: str | None) -> None:
    spec = get_turn(system_name)
    start(spec, scene, TurnContext(get_system(system_name, overrides=dict(overrides or {})),
                                   settings or MeasureSettings()))           # refuses a table it cannot play
    log.append("game_started", {"system": system_name, "scene": scene_to_json(scene),
                                "overrides": dict(overrides or {}), "picture": picture})


# ---------------------------------------------------------------- actions

def enter_roll(game: Game, value: int | None, how: str) -> dict[str, Any]:
    from assistant.web.game import PlayError
    if game.tail.outcome is not None or game.tail.check is not None:
        raise PlayError("no die is needed right now: tap Next", 409)
    need = next_roll(game.spec, game.state, game.ctx, game.tail.rolls)
    if not isinstance(need, RollRequest):
        raise PlayError("no die is needed right now", 409)
    if value is None:
        value = secrets.randbelow(need.sides) + 1
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= need.sides:
        raise PlayError(f"a d{need.sides} shows 1 to {need.sides}, not {value!r}", 400)
    record = (ROLL, {"value": value, "sides": need.sides, "purpose": need.purpose, "who": need.who, "how": how})
    done = next_roll(game.spec, game.state, game.ctx, game.tail.rolls + (value,))
    if isinstance(done, Finished):
        game.log.append_step([record, ("step", step_payload(game.state, done))])     # one transaction
    else:
        game.log.append(*record)
    return {"value": value, "sides": need.sides}


def settle(game: Game) -> Game:
    """A call that needs no die at all (a target out of reach, a fight already over) is played at once:
    its step is appended and shown like any other. Returns the game as the log now says."""
    for _ in range(50):
        st, tail = game.state, game.tail
        if tail.outcome is not None or tail.check is not None or tail.rolls:
            return game
        done = next_roll(game.spec, st, game.ctx, ())
        if not isinstance(done, Finished):
            return game
        game.log.append("step", step_payload(st, done))
        game = game.refold()
    return game


def _picture_changed(game: Game, picture: str | None) -> bool:
    last = None
    for rec in game.live:
        if "picture" in rec.payload:
            last = rec.payload["picture"]
    return picture is not None and picture != last


def next_(game: Game, scene: Scene | None, picture: str | None) -> None:
    """Next / Done: an outcome read, a move finished, a check tried again with a newer picture."""
    from assistant.web.game import PlayError
    st, tail = game.state, game.tail
    phase = game.spec.phase(st)
    if st.over:
        raise PlayError("the game is over: start a new game", 409)
    if tail.outcome is not None:
        removed = tail.outcome.get("result", {}).get("removed", [])
        if removed and scene is not None and (_picture_changed(game, picture) or tail.check is not None):
            checks = [c for c in check_moves(game.spec, game.ctx.system, st.scene, scene, None, st.removed)
                      if c.kind in ("missing", "still_there", "appeared")]
            if checks:
                game.log.append("check", {"checks": [c.to_json() for c in checks], "picture": picture,
                                          "after": "remove"})
                return
        game.log.append(ACK, {"picture": picture} if picture else {})
        return
    if phase.kind != "move":
        raise PlayError("the game is waiting for a die, not for Next", 409)
    side = st.moving_side
    if scene is None or not (_picture_changed(game, picture) or tail.check is not None):
        # No new picture: the figures stay where the game last saw them (the players said so by tapping).
        game.log.append("moved", {"side": side, "scene": scene_to_json(st.scene), "checks": [], "seen": False,
                                  "picture": picture})
        return
    keep = scene.with_figures([f for f in scene.figures if f.id not in set(st.removed)])
    checks = check_moves(game.spec, game.ctx.system, st.scene, scene, side, st.removed)
    if any(c.problem for c in checks):
        game.log.append("check", {"checks": [c.to_json() for c in checks], "picture": picture, "after": "move",
                                  "scene": scene_to_json(keep)})
        return
    game.log.append("moved", {"side": side, "scene": scene_to_json(keep), "checks": [c.to_json() for c in checks],
                              "seen": True, "picture": picture})


def accept(game: Game) -> None:
    """The players accept what the picture shows although it does not match the game (logged)."""
    from assistant.web.game import PlayError
    check = game.tail.check
    if check is None:
        raise PlayError("nothing to accept: the picture matches the game", 409)
    accepted = ("accepted", {"checks": check["checks"]})
    if check.get("after") == "move":        # the word and what it lets on, in one transaction
        st = game.state
        game.log.append_step([accepted, ("moved", {"side": st.moving_side, "scene": check["scene"],
                                                   "checks": check["checks"], "seen": True, "accepted": True,
                                                   "picture": check.get("picture")})])
    else:
        game.log.append_step([accepted, (ACK, {"accepted": True, "picture": check.get("picture")})])


# ---------------------------------------------------------------- prompts

def _check_line(game: Any, c: Mapping[str, Any]) -> str:
    who, kind = game.n(c["figure"]), c["kind"]
    crossed = [game.words(t) for t in c.get("crossed", [])]
    if kind == "too_far":
        return f"{who} moved {c['distance_in']:.1f} inches, but may move only {c['allowance_in']:g}."
    if kind == "blocked":
        return f"{who} moved through {name_list(crossed)}, which nobody may cross."
    if kind == "missing":
        return f"I can't see {who} any more. Is it still on the table?"
    if kind == "wrong_side":
        return f"{who} moved {c['distance_in']:.1f} inches, but it is not {who}'s side's turn to move."
    if kind == "still_there":
        return f"{who} should be off the table, but I can still see it."
    if kind == "appeared":
        return f"I see a figure I did not know ({who})."
    where = f" through {name_list(crossed)}" if crossed else ""
    allowed = f" (may move {c['allowance_in']:g})" if c.get("allowance_in") is not None else ""
    return f"{who} moved {c['distance_in']:.1f} inches{where}{allowed}."


def _roll_prompt(game: Game, need: RollRequest) -> dict[str, Any]:
    call = need.call
    side = need.who if need.who in game.state.sides else next(
        (f.side for f in game.state.scene.figures if f.id == need.who), None)
    player = f"{side_word(side)} player"
    why = PURPOSE_WORDS.get(need.purpose, need.purpose)
    whom = game.n(need.who) if need.who and need.who not in game.state.sides else None
    text = f"{player}: roll a d{need.sides}" + (f" for {whom}" if whom else "") + f" {why}."
    earlier = [f"{game.n(r.who) if r.who else 'A die'}: {r.value}" for r in need.before]
    out = {"kind": "roll", "sides": need.sides, "who": need.who, "purpose": need.purpose, "side": side,
           "title": game.words(call.words), "text": text, "help": ROLL_HOW,
           "lines": [game.words(w) for w in call.why] + (["Rolled so far: " + ", ".join(earlier) + "."]
                                                           if earlier else [])}
    if call.about:
        out["highlight"] = {"from": call.about[0], "to": list(call.about[1:]),
                            "kind": "shot" if call.step in ("missile", "shoot") or "shoots" in call.words else "melee"}
    return out


def _initiative_line(game: Game, result: Mapping[str, Any]) -> list[str]:
    rolls = [r for r in result.get("rolls", []) if r.get("purpose") == "initiative"]
    rounds: list[list[Mapping[str, Any]]] = []
    for r in rolls:                     # a new round starts when a side rolls again
        if not rounds or any(x["who"] == r["who"] for x in rounds[-1]):
            rounds.append([])
        rounds[-1].append(r)
    first = game.state.order[0] if game.state.order else None
    lines = [", ".join(f"{side_word(r['who'])} rolled {r['value']}" for r in rnd) + ": a tie, roll again."
             for rnd in rounds[:-1]]
    last = ", ".join(f"{side_word(r['who'])} rolled {r['value']}" for r in rounds[-1]) if rounds else ""
    lines.append(f"{last}: {side_word(first)} goes first." if last else f"{side_word(first)} goes first.")
    return lines


def _outcome_prompt(game: Game, rec: Mapping[str, Any]) -> dict[str, Any]:
    if "result" not in rec:             # a move seen on the picture
        checks = rec.get("checks", [])
        side = rec.get("side")
        lines = [_check_line(game, c) for c in checks]
        if not rec.get("seen"):
            lines = ["No new picture: the figures stay where the tablet last saw them."]
        elif not checks:
            lines = ["Nobody moved."]
        title = f"{side_word(side)} side has moved" + (" (accepted as it is)." if rec.get("accepted") else ".")
        return {"kind": "outcome", "step": "move", "title": title, "lines": lines, "remove": [], "button": "Next"}
    result = rec["result"]
    removed = list(result.get("removed", []))
    if rec.get("step") == "initiative":
        lines = _initiative_line(game, result)
    else:
        lines = [game.words(e["text"]) for e in result.get("events", []) if e.get("text")]
    if removed:
        title = f"Take {name_list([game.n(r) for r in removed])} off the table."
        text = "Then take a new picture so I can check, and tap Next."
    elif rec.get("step") == "initiative":
        title, text = lines[-1].split(": ")[-1], ""
    else:
        title, text = game.words(rec.get("words") or "Done."), ""
    out = {"kind": "outcome", "step": rec.get("step"), "title": title, "text": text, "lines": lines,
           "remove": removed, "button": "Next"}
    if rec.get("about"):
        out["highlight"] = {"from": rec["about"][0], "to": list(rec["about"][1:]), "kind": "melee"}
    return out


def check_prompt(game: Any, check: Mapping[str, Any]) -> dict[str, Any]:
    """The prompt for a picture that does not match the game (`game`: anything with n() and words())."""
    lines = [_check_line(game, c) for c in check["checks"] if c["kind"] != "moved"]
    ok = [_check_line(game, c) for c in check["checks"] if c["kind"] == "moved"]
    ringed = [c["figure"] for c in check["checks"] if c["kind"] != "moved"]
    first = next((c for c in check["checks"] if c["kind"] != "moved"), None)
    who = game.n(first["figure"]) if first else "the figure"
    fix = {"still_there": f"Take {who} off the table",
           "missing": f"Put {who} back on the table",
           "appeared": f"Take {who} off the table (or check its marker)"}.get(
               first["kind"] if first else "", f"Put {who} back where it was")
    fix += ", take a new picture and tap Check again."
    ring_figures = [{"id": c["figure"], "name": game.n(c["figure"]), "x": c["at"][0], "y": c["at"][1]}
                    for c in check["checks"] if c["kind"] in ("missing", "still_there", "appeared") and c.get("at")]
    return {"kind": "check", "title": lines[0] if lines else "The picture does not match the game.",
            "ring_figures": ring_figures,
            "text": fix + " Or tap Accept anyway if the players agree.", "lines": lines[1:] + ok,
            "button": "Check again", "accept": "Accept anyway", "ring": ringed,
            "highlight": {"from": ringed[0], "to": ringed[1:], "kind": "check"} if ringed else None}


def prompt(game: Game, file_name: str) -> dict[str, Any]:
    st, tail, spec = game.state, game.tail, game.spec
    phase = spec.phase(st)
    records = game.live
    # An outcome is headed by the turn it happened in (the state may already be in the next one).
    turn = int(tail.outcome.get("turn", st.turn)) if tail.outcome is not None else st.turn
    info = {"turn": turn, "phase": phase.name, "attacker": st.order[0] if st.order else None,
            "removed": list(st.removed), "rolls": list(tail.rolls), "file": file_name, "system": spec.system,
            "can_undo": any(r.kind == ROLL for r in records), "order": list(st.order)}
    if tail.check is not None:
        p = check_prompt(game, tail.check)
    elif tail.outcome is not None:
        p = _outcome_prompt(game, tail.outcome)
    elif st.over:
        p = {"kind": "over", "title": f"{side_word(st.winner)} wins!" if st.winner else "A draw!",
             "text": "Well played! Start a new game when you are ready.", "button": "New game"}
    elif phase.kind == "move":
        side = st.moving_side
        p = {"kind": "do", "title": f"{side_word(side)} side: move!", "side": side, "button": "Done", "photo": True,
             "text": f"{spec.move_words(game.ctx.system)} {PHOTO_HOW}".strip()}
    else:
        need = next_roll(spec, st, game.ctx, tail.rolls)
        if isinstance(need, RollRequest):
            p = _roll_prompt(game, need)
        else:       # cannot happen: a finished call is committed with its last die
            p = {"kind": "problem", "title": "This game cannot go on", "text": "The game log ends mid-step.",
                 "button": "New game"}
    p["game"] = info
    return p
