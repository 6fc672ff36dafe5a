"""Kids' mode: one big prompt at a time, driven by the rules engineer's KIMMIRIA game on its log.

The rules resolve a whole step at once, handed a Dice source. The tablet asks for one die at a
time instead: each die a child enters (or the virtual die rolls) is appended to the game log as a
`web_roll` record, and the step is run on the dice entered so far (`assistant.rules.turn.run_with_dice`):
its value is either a `RollRequest` (sides, purpose, who: the next prompt) or the step's result. The
die that finishes a step is committed with the `step` record in one transaction, and its outcome is
shown until someone taps Next (`web_ack`). Undo takes back the last die.

SMART, KremlinMiniatures and AnyMinis! are played through the turns they declare (assistant/web/guided.py).
"""
from __future__ import annotations

import inspect
import itertools
import secrets
import threading
from types import SimpleNamespace
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from measure.scene import Scene, scene_from_json, scene_to_json
from measure.sight import MeasureSettings

from assistant.rules.dice import Roll, ScriptedDice
from assistant.rules.events import StepResult
from assistant.rules.kimmiria_game import GameError, GameState, KimmiriaGame
from assistant.rules.log import GameLog, Record
from assistant.rules.turn import RollRequest, TurnSpec, check_moves, run_with_dice
from assistant.web import guided
from assistant.web.words import event_line, figure_names, groups_words, name_list, side_word, with_names

ROLL, ACK, ENDED = "web_roll", "web_ack", "game_ended"


class PlayError(ValueError):
    """An action that does not fit the game right now; `status` is the HTTP status (409 or 400)."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.status = status


class PaddedDice:
    """The dice entered so far, then made-up ones: to see who will shoot whom before anyone rolls."""

    def __init__(self, values: list[int]):
        self._values = list(values)
        self._pad = itertools.cycle((1, 6, 2, 5, 3, 4))
        self.rolls: list[Roll] = []

    def roll(self, sides: int, purpose: str, who: str | None = None) -> int:
        value = self._values.pop(0) if self._values else min(next(self._pad), sides)
        self.rolls.append(Roll(sides, value, purpose, who))
        return value


# ---------------------------------------------------------------- the games folder

class Games:
    """Every game of this table in its own log file under `folder`; the newest is the current one."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()       # one change at a time across waitress threads

    def _files(self) -> list[Path]:
        return sorted(self.folder.glob("game-*.sqlite"))

    def current_path(self) -> Path | None:
        files = self._files()
        return files[-1] if files else None

    def open_current(self) -> GameLog | None:
        path = self.current_path()
        return None if path is None else GameLog(path)

    def new_path(self) -> Path:
        files = self._files()
        n = int(files[-1].stem.split("-")[1]) + 1 if files else 1
        return self.folder / f"game-{n:04d}.sqlite"


def _remove_log(path: Path) -> None:
    for extra in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        extra.unlink(missing_ok=True)


def start_game(games: Games, scene: Scene, overrides: Mapping[str, Any] | None = None,
               condition: str = "A", system: str = "kimmiria", settings: MeasureSettings | None = None,
               picture: str | None = None) -> None:
    with games.lock:
        path = games.new_path()
        # The new game's file takes its name only once its first record is in: a crash before that
        # leaves a hidden file no one reads, never a current game with nothing in it.
        part = path.with_name("." + path.name)
        _remove_log(part)                   # what such a crash left behind
        log = GameLog(part)
        try:
            if system == "kimmiria":
                KimmiriaGame.start(log, scene, condition=condition, overrides=overrides)
            else:
                guided.start_game(log, scene, system, overrides, settings, picture)
        except ValueError:
            log.close()
            _remove_log(part)
            raise
        log.close()                         # the last connection: SQLite folds the WAL into the file
        if part.with_name(part.name + "-wal").exists():
            raise OSError(f"{part.name}: the first record is still in the write-ahead log")
        part.replace(path)
        log = GameLog(path)
        try:
            if system == "kimmiria":
                advance(KimmiriaGame(log))
            else:
                guided.settle(_guided(log, settings))
        finally:
            log.close()


def system_of(log: GameLog, records: list[Record] | None = None) -> str:
    """The rule system a game log plays (its first record says; older logs are KIMMIRIA)."""
    records = log.live_records(records)
    return str(records[0].payload.get("system", "kimmiria")) if records else "kimmiria"


def _guided(log: GameLog, settings: MeasureSettings | None = None) -> guided.Game:
    first = log.live_records()[0].payload
    return guided.Game(log, system_of(log), first.get("overrides"), settings)


def _ended(log: GameLog, records: list[Record] | None = None) -> bool:
    return any(r.kind == ENDED for r in log.live_records(records))


def game_in_progress(games: Games) -> str | None:
    """The system of the game being played (None: no game, or it is over or ended)."""
    with games.lock:
        log = games.open_current()
        if log is None:
            return None
        try:
            records = log.records()
            if not records or _ended(log, records):
                return None
            system = system_of(log, records)
            if system == "kimmiria":
                return None if KimmiriaGame(log).state().phase == "over" else "kimmiria"
            return None if _guided(log).state.over else system
        except ValueError:
            return None
        finally:
            log.close()


def end_game(games: Games, why: str) -> None:
    """End the game in progress (switching the rules): its log keeps it, the next prompt offers a new one."""
    with games.lock:
        log = games.open_current()
        if log is not None:
            try:
                log.append(ENDED, {"why": why})
            finally:
                log.close()


def removed_in(games: Games) -> set[str]:
    """Figures taken off the table in the current game, whatever its system."""
    with games.lock:
        log = games.open_current()
        if log is None:
            return set()
        try:
            if _ended(log):
                return set()
            if system_of(log) == "kimmiria":
                return set(KimmiriaGame(log).state().removed)
            return {r for rec in log.live_records() if rec.kind == "step"
                    for r in rec.payload.get("result", {}).get("removed", [])}
        finally:             # a log that cannot be read is said as such by the caller, never "nobody removed"
            log.close()


# ---------------------------------------------------------------- reading the log

def _tail(records: list[Record]) -> tuple[list[int], Record | None, bool]:
    """(dice entered since the last step, the last step record, whether its outcome was acknowledged)."""
    rolls: list[int] = []
    last_step = None
    acked = True
    for rec in records:
        if rec.kind in ("step", "free_move", "game_started"):
            rolls = []
            last_step = rec if rec.kind != "game_started" else None
            # Nothing to read after the start, a legal move or free moves: the players just did it.
            result = rec.payload.get("result", {}) if rec.kind == "step" else {}
            acked = rec.kind != "step" or (result.get("step") == "move" and bool(result.get("legal")))
        elif rec.kind == ACK:
            acked = True
        elif rec.kind == ROLL:
            rolls.append(int(rec.payload["value"]))
    return rolls, last_step, acked


def _options(game: KimmiriaGame, st: GameState, system) -> dict[str, Any]:
    # options_for gained a `system` argument (the players' house numbers); accept either form.
    if len(inspect.signature(game.options_for).parameters) >= 3:
        return game.options_for(st.phase, st, system)
    return game.options_for(st.phase, st)


def _try_step(game: KimmiriaGame, st: GameState, rolls: list[int]) -> RollRequest | StepResult:
    """Run the current step on the game's scene with the dice entered so far, exactly as
    KimmiriaGame.play will: the result, or the next die it needs."""
    system = game.system
    opts = _options(game, st, system)
    if st.phase == "move":
        opts["moves"] = []
    scene = st.scene
    return run_with_dice(lambda dice: system.resolve(st.phase, scene, st.attacker, dice, opts), rolls)


def _probe(game: KimmiriaGame, st: GameState, rolls: list[int]) -> StepResult:
    """The step played out with made-up dice after the real ones (who shoots whom, who is tied)."""
    system = game.system
    opts = _options(game, st, system)
    return system.resolve(st.phase, st.scene, st.attacker, PaddedDice(rolls), opts)


DICE_PHASES = ("missile", "initiative", "groups", "melee", "victory")


def advance(game: KimmiriaGame) -> RollRequest | None:
    """Play every step that needs nothing more from the players (all its dice are in); returns the
    die the game waits for, if it waits for one."""
    for _ in range(20):
        records = game.log.live_records()
        st = game.state()
        rolls, _, acked = _tail(records)
        if st.phase not in DICE_PHASES or not acked:
            return None
        try:
            out = _try_step(game, st, rolls)
        except ValueError:
            return None             # shown as a problem by current_prompt
        if isinstance(out, RollRequest):
            return out
        game.play(st.phase, ScriptedDice(rolls), **({"moves": []} if st.phase == "move" else {}))
    return None


# ---------------------------------------------------------------- actions

def _game(games: Games) -> tuple[GameLog, KimmiriaGame]:
    log = games.open_current()
    if log is None:
        raise PlayError("no game yet: start a new game first", 409)
    return log, KimmiriaGame(log)


def pending_roll(game: KimmiriaGame) -> RollRequest | None:
    st = game.state()
    rolls, _, acked = _tail(game.log.live_records())
    if st.phase not in DICE_PHASES or not acked:
        return None
    try:
        out = _try_step(game, st, rolls)
    except ValueError:
        return None
    return out if isinstance(out, RollRequest) else None


def enter_roll(games: Games, value: int | None, how: str, settings: MeasureSettings | None = None,
               picture: str | None = None) -> dict[str, Any]:
    """A die for the roll the game is waiting for; value None rolls the virtual die."""
    with games.lock:
        log, game = _game(games)
        try:
            if system_of(log) != "kimmiria":
                out = guided.enter_roll(_guided(log, settings), value, how)
                guided.settle(_guided(log, settings))
                return out
            need = pending_roll(game)
            if need is None:
                raise PlayError("no die is needed right now", 409)
            if value is None:
                value = secrets.randbelow(need.sides) + 1
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= need.sides:
                raise PlayError(f"a d{need.sides} shows 1 to {need.sides}, not {value!r}", 400)
            record = (ROLL, {"value": value, "sides": need.sides, "purpose": need.purpose, "who": need.who,
                             "how": how, **({"picture": picture} if picture else {})})
            st = game.state()
            rolls, _, _ = _tail(log.live_records())
            if isinstance(_try_step(game, st, rolls + [value]), StepResult):
                # The die and the step it finishes land in one transaction: a crash between the two
                # can no longer leave a complete set of dice with no step after it.
                moves = {"moves": []} if st.phase == "move" else {}
                _, payload = game.step_record(st.phase, ScriptedDice(rolls + [value]), **moves)
                log.append_step([record, ("step", payload)])
            else:
                log.append(*record)
            advance(game)
            return {"value": value, "sides": need.sides}
        finally:
            log.close()


def acknowledge(games: Games, scene: Scene | None = None, picture: str | None = None,
                settings: MeasureSettings | None = None) -> None:
    """Next: the outcome was read (or the figures were moved); take the table's newest view along."""
    with games.lock:
        log, game = _game(games)
        try:
            if system_of(log) != "kimmiria":
                guided.next_(_guided(log, settings), scene, picture)
                guided.settle(_guided(log, settings))
                return None
            st = game.state()
            records = log.live_records()
            _, last_step, acked = _tail(records)
            looked = scene is not None and (_open_check(records) is not None or _new_picture(records, picture))
            if not acked:
                fallen = last_step.payload.get("result", {}).get("removed", []) if last_step is not None else []
                if fallen and looked and _check_picture(game, st, scene, picture, "remove"):
                    return
                log.append(ACK, {"picture": picture} if picture else {})
            elif st.phase == "move":
                if looked and _check_picture(game, st, scene, picture, "move"):
                    return
                game.play("move", ScriptedDice(), moves=_moves_seen(game, st, scene))
            elif st.phase == "free_move":
                _see_if_moved(game, st, scene)
                game.free_move({})
            else:
                raise PlayError("the game is waiting for a die, not for Next", 409)
            advance(game)
        finally:
            log.close()


def _moves_seen(game: KimmiriaGame, st: GameState, scene: Scene | None) -> list[dict[str, Any]]:
    """The attacker's moves as the newest picture shows them, for the rules to check."""
    if scene is None:
        return []
    gone = set(st.removed)
    after = scene.with_figures([f for f in scene.figures if f.id not in gone])
    before = st.scene
    if {f.id for f in before.figures} != {f.id for f in after.figures}:
        return []           # a figure vanished or appeared: nothing to compare, the picture decides later
    return game.system.moves_seen(before, after, side=st.attacker)


def _see_if_moved(game: KimmiriaGame, st: GameState, scene: Scene | None) -> None:
    """Figures moved on the real table: the newest picture's Scene (without the fallen) joins the game."""
    if scene is None:
        return
    keep = [f for f in scene.figures if f.id not in set(st.removed)]
    new = scene_to_json(scene.with_figures(keep))
    old = {f["id"]: (f["x"], f["y"]) for f in (st.scene_json or {}).get("figures", [])}
    now = {f["id"]: (f["x"], f["y"]) for f in new["figures"]}
    if old.keys() != now.keys() or any(abs(old[k][0] - now[k][0]) + abs(old[k][1] - now[k][1]) > 0.05
                                       for k in now):
        game.see(scene.with_figures(keep))


# A picture's check in KIMMIRIA: the rules judge the moves themselves (a group's rate in moves); the
# picture is checked for figures missing, taken off by mistake, or still on the table.
KIMMIRIA_CHECKS = TurnSpec(system="kimmiria", phases=(), allowance_in=lambda system, scene, fig: None)


def _new_picture(records: list[Record], picture: str | None) -> bool:
    last = None
    for rec in records:
        if "picture" in rec.payload:
            last = rec.payload["picture"]
    return picture is not None and picture != last


def _open_check(records: list[Record]) -> dict[str, Any] | None:
    """The picture check not yet resolved (a newer step, Next or a new view closes it)."""
    check = None
    for rec in records:
        if rec.kind == "check":
            check = dict(rec.payload)
        elif rec.kind in ("step", ACK, "free_move", "scene", "game_started"):
            check = None
    return check


def _check_picture(game: KimmiriaGame, st: GameState, scene: Scene, picture: str | None, after: str) -> bool:
    """Compare the newest picture with the game: a `check` record (and True) when it does not match."""
    before = st.scene
    checks = [c for c in check_moves(KIMMIRIA_CHECKS, game.system, before, scene, None, st.removed)
              if c.kind in ("missing", "still_there", "appeared")]
    if not checks:
        return False
    keep = scene.with_figures([f for f in scene.figures if f.id not in set(st.removed)])
    game.log.append("check", {"checks": [c.to_json() for c in checks], "picture": picture, "after": after,
                              "scene": scene_to_json(keep)})
    return True


def _accept_check(game: KimmiriaGame, check: Mapping[str, Any]) -> None:
    """Accept anyway: the removal as it is, or the picture as the table (the rules then judge its moves)."""
    if check.get("after") == "remove":
        game.log.append_step([("accepted", {"checks": check["checks"]}),
                              (ACK, {"accepted": True, "picture": check.get("picture")})])
    else:
        game.log.append("accepted", {"checks": check["checks"]})
        # The picture's figures as they are; the rules still judge the moves it shows.
        scene = scene_from_json(check["scene"])
        moves = _moves_seen(game, game.state(), scene)
        if not moves:
            game.see(scene)
        game.play("move", ScriptedDice(), moves=moves)
    advance(game)


def _accept_move(game: KimmiriaGame, scene: Scene | None) -> None:
    """KIMMIRIA: the players keep a move the rules refused; the picture becomes the table (logged)."""
    st = game.state()
    _, last_step, acked = _tail(game.log.live_records())
    result = last_step.payload.get("result", {}) if last_step is not None and last_step.kind == "step" else {}
    if acked or st.phase != "move" or result.get("step") != "move" or result.get("legal") or scene is None:
        raise PlayError("nothing to accept: the picture matches the game", 409)
    keep = scene.with_figures([f for f in scene.figures if f.id not in set(st.removed)])
    payload = {"turn": st.turn, "options": {"moves": [], "accepted": True},
               "result": {"step": "move", "legal": True, "events": [
                   {"kind": "move_accepted", "text": "The players kept the move the rules refused."}],
                   "removed": [], "prompts": [], "rolls": [], "scene": scene_to_json(keep)}}
    game.log.append_step([("accepted", {"events": result.get("events", [])}), ("step", payload)])
    advance(game)


def accept(games: Games, settings: MeasureSettings | None = None, scene: Scene | None = None) -> None:
    """Accept anyway: the picture does not match the game, the players agree to go on (logged)."""
    with games.lock:
        log, game = _game(games)
        try:
            if system_of(log) == "kimmiria":
                check = _open_check(log.live_records())
                if check is not None:
                    _accept_check(game, check)
                else:
                    _accept_move(game, scene)
                return
            guided.accept(_guided(log, settings))
            guided.settle(_guided(log, settings))
        finally:
            log.close()


def undo_roll(games: Games) -> None:
    """Take back the last die entered (and the step it finished, if it did)."""
    with games.lock:
        log, game = _game(games)
        try:
            records = log.live_records()
            if not any(r.kind == ROLL for r in records):
                raise PlayError("no die to take back", 409)
            while True:
                live = log.live_records()
                last_step = live[-1].step
                log.undo("tablet: take back the last die")
                if any(r.kind == ROLL for r in live if r.step == last_step):
                    break
        finally:
            log.close()


# ---------------------------------------------------------------- the prompt

ROLL_HOW = "Tap the number you rolled, or let the tablet roll for you."


def _side_of(st: GameState, fid: str | None) -> str | None:
    for f in (st.scene_json or {}).get("figures", []):
        if f["id"] == fid:
            return f.get("side")
    return None


def _roll_prompt(game: KimmiriaGame, st: GameState, need: RollRequest, rolls: list[int],
                 names: Mapping[str, str]) -> dict[str, Any]:
    n = lambda fid: names.get(fid, fid or "")           # noqa: E731
    who_side = _side_of(st, need.who) or need.who
    player = f"{side_word(who_side)} player"
    out: dict[str, Any] = {"kind": "roll", "sides": need.sides, "who": need.who, "purpose": need.purpose,
                           "side": who_side, "help": ROLL_HOW}
    if need.purpose == "missile attack":
        try:
            probe = _probe(game, st, rolls)
            targets = list(probe.to_json().get("shots", {}).get(need.who, []))
        except ValueError:
            targets = []
        weapon = "magic" if "wizard" in str(game.system.type_name(_type_of(st, need.who))) else "arrows"
        out.update(title=f"{n(need.who)} shoots at {name_list([n(t) for t in targets]) or 'the enemy'}!",
                   text=f"{player}: roll a die for {n(need.who)}.",
                   highlight={"from": need.who, "to": targets, "kind": "shot"}, weapon=weapon)
    elif need.purpose == "missile defence":
        shooter = next((r.who for r in reversed(need.before) if r.purpose == "missile attack"), None)
        attack = next((r.value for r in reversed(need.before) if r.purpose == "missile attack"), None)
        out.update(title=f"{n(need.who)} tries to dodge!",
                   text=f"{n(shooter)} rolled {attack}. {player}: roll a die for {n(need.who)}.",
                   highlight={"from": shooter, "to": [need.who], "kind": "shot"})
    elif need.purpose == "closest-target tie":
        try:
            probe = _probe(game, st, rolls + [1])
            tie = next((e for e in probe.events if e.kind == "target_tie" and e.data.get("shooter") == need.who), None)
            tied = list(tie.data["tied"]) if tie else []
        except ValueError:
            tied = []
        parts = []
        for i, fid in enumerate(tied):
            lo, hi = i * 6 // len(tied) + 1, (i + 1) * 6 // len(tied)
            parts.append(f"{lo}-{hi}: {n(fid)}")
        out.update(title=f"{name_list([n(t) for t in tied])} are just as close to {n(need.who)}!",
                   text=f"{player}: roll a die to choose. " + ", ".join(parts) + ".",
                   highlight={"from": need.who, "to": tied, "kind": "tie"})
    elif need.purpose == "initiative":
        earlier = sum(1 for r in need.before if r.purpose == "initiative")
        tie = earlier >= max(1, len(st.start_counts))
        out.update(title="A tie! Roll again." if tie else "Who goes first?",
                   text=f"{player}: roll a die. The highest roll goes first.")
    elif need.purpose == "groups to move":
        out.update(title=f"{side_word(who_side)} moves this turn!",
                   text=f"{player}: roll a die to see how many groups may move. "
                        "A group is figures standing close together.",
                   groups=_groups(game, st, who_side))
    elif need.purpose == "melee":
        try:
            foes = list(game.system.melee_plan(st.scene).get(need.who, {}))
        except (ValueError, AttributeError):        # no scene (None) or one the plan cannot read
            foes = []
        out.update(title=f"{n(need.who)} fights {name_list([n(f) for f in foes]) or 'an enemy'}!",
                   text=f"{player}: roll a die for {n(need.who)}.",
                   highlight={"from": need.who, "to": foes, "kind": "melee"},
                   dice={r.who: r.value for r in need.before if r.purpose == "melee"})
    else:
        out.update(title=f"Roll a d{need.sides}", text=f"{player}: roll for {need.purpose}.")
    return out


def _groups(game: KimmiriaGame, st: GameState, side: str | None) -> list[list[str]]:
    """The side's figures in groups (standing within the group gap of one another), to draw on the picture."""
    from assistant.rules.kimmiria_board import contacts
    try:
        scene = st.scene
        if scene is None:
            return []
        near = contacts(scene, float(game.system.values["play"]["group_gap_in"]))
    except (ValueError, KeyError):
        return []
    left = [f.id for f in scene.figures if f.side == side]
    groups = []
    while left:
        group, frontier = {left[0]}, [left[0]]
        while frontier:
            for other in near.get(frontier.pop(), ()):
                if other in left and other not in group:
                    group.add(other)
                    frontier.append(other)
        groups.append([f for f in left if f in group])
        left = [f for f in left if f not in group]
    return groups


def _type_of(st: GameState, fid: str | None) -> str | None:
    for f in (st.scene_json or {}).get("figures", []):
        if f["id"] == fid:
            return f.get("type")
    return None


MOD_WORDS = {"armor_plus": "armour", "terrain": "cover", "unpainted": "unpainted", "fv": "fighting value"}


def _die_words(die: Any, mods: Mapping[str, int] | None, total: Any) -> str:
    """"2" or "2 +1 armour = 3": the die as it fell, then what the rules add."""
    if not mods:
        return f"{die}"
    parts = " ".join(f"{v:+d} {MOD_WORDS.get(k, k.replace('_', ' '))}" for k, v in mods.items())
    return f"{die} {parts} = {total}"


def _event_words(e: Mapping[str, Any], names: Mapping[str, str]) -> str:
    n = lambda fid: names.get(fid, fid)                 # noqa: E731
    kind = e.get("kind")
    if kind in ("missile_hit", "missile_miss"):
        a = _die_words(e.get("attack_die"), e.get("attack_mods"), e.get("attack_total"))
        d = _die_words(e.get("defence_die"), e.get("defence_mods"), e.get("defence_total"))
        end = (f"a hit! {n(e['target'])} falls." if kind == "missile_hit" and not e.get("already_fallen") else
               f"a hit, but {n(e['target'])} had already fallen." if kind == "missile_hit" else
               f"{n(e['target'])} is safe.")
        return f"{n(e['shooter'])} rolled {a}, {n(e['target'])} rolled {d}: {end}"
    if kind == "missile_no_target":
        return f"{n(e['shooter'])} has no enemy in sight and in range."
    kid = event_line(e, names)             # "" when the heading already says it
    return kid if kid is not None else with_names(str(e.get("text", "")), names)


REMOVE_WORDS = {"missile": "after all the arrows and magic", "melee": "now the fight is over"}


def _outcome_prompt(rec: Record, st: GameState, names: Mapping[str, str]) -> dict[str, Any]:
    if rec.kind == "free_move":
        return {"kind": "outcome", "title": "Figures moved", "lines": [], "remove": [], "button": "Next"}
    result = rec.payload["result"]
    step = result["step"]
    events = [e for e in result.get("events", [])
              if e.get("kind") != "removed" and not (e.get("kind") == "melee_dice" and not result.get("dice"))]
    idle = [names.get(e["shooter"], e["shooter"]) for e in events if e.get("kind") == "missile_no_target"]
    lines = [line for line in (_event_words(e, names) for e in events if e.get("kind") != "missile_no_target")
             if line]
    if idle:        # one line for everyone who had nothing to shoot at, after the shots
        lines.append(f"{name_list(idle)} {'has' if len(idle) == 1 else 'have'} no enemy in sight and in range.")
    removed = list(result.get("removed", []))
    out: dict[str, Any] = {"kind": "outcome", "step": step, "lines": lines, "remove": removed, "button": "Next",
                           "turn": rec.payload.get("turn", st.turn)}     # the verdict of turn 1 is turn 1's
    if step == "melee" and result.get("dice"):
        out["dice"] = dict(result["dice"])
    if removed:
        out["title"] = f"Take {name_list([names.get(r, r) for r in removed])} off the table " \
                       f"{REMOVE_WORDS.get(step, '')}".strip() + "."
    elif step == "missile":
        out["title"] = "Nobody was hit." if lines else "Nobody can shoot this turn."
    elif step == "initiative":
        out["title"] = f"{side_word(result.get('attacker_side'))} goes first!"
    elif step == "groups":
        out["title"] = f"{side_word(st.attacker)} may move {groups_words(result.get('groups_allowed'))}."
    elif step == "move":
        out["title"] = "That move is not allowed. Put the figures back, take a new picture and try again."
        out["lines"] = [_event_words(e, names) for e in events if e.get("kind") == "move_illegal"] or lines
        ringed = [e["figure"] for e in events if e.get("kind") == "move_illegal" and e.get("figure")]
        if ringed:
            out["highlight"] = {"from": ringed[0], "to": ringed[1:], "kind": "check"}
        out["accept"] = "Accept anyway"
    elif step == "melee":
        out["title"] = "Nobody is fighting." if not lines else "The fight is over."
    elif step == "victory":
        winner = result.get("winner")
        draw = any(e.get("kind") == "draw" for e in result.get("events", []))
        out["title"] = (f"{side_word(winner)} wins the game!" if winner else "It's a draw!" if draw
                        else "No winner yet: on to the next turn!")
    else:
        out["title"] = "Done."
    if not lines and step in ("missile", "melee"):
        out["lines"] = []
    return out


def _say(prompt: Mapping[str, Any]) -> str:
    """What the tablet reads aloud: the title, the text, and the outcome's lines."""
    parts = [str(prompt.get("title") or ""), str(prompt.get("text") or "")] + [str(x) for x in prompt.get("lines", [])]
    parts = [p.strip() for p in parts if p and p.strip()]
    return " ".join(p if p[-1] in ".!?:" else p + "." for p in parts)


def current_prompt(games: Games, settings: MeasureSettings | None = None, title: str = "KIMMIRIA") -> dict[str, Any]:
    """The one thing the table must do now, as JSON for the play page."""
    with games.lock:
        log = games.open_current()
        if log is None:
            return {"kind": "start", "title": "Ready to play?", "text": f"Start a new game of {title}.",
                    "button": "New game", "game": None}
        try:
            records = log.records()             # read once for the checks below
            if not records or _ended(log, records):     # empty: a start an older version's crash cut off
                return {"kind": "start", "title": "Ready to play?", "text": f"Start a new game of {title}.",
                        "button": "New game", "game": None}
            if system_of(log, records) != "kimmiria":
                # settle() plays a call that needs no die (also one a crash left unplayed).
                prompt = guided.prompt(guided.settle(_guided(log, settings)), Path(log.path).name)
                prompt.setdefault("say", _say(prompt))
                return prompt
            game = KimmiriaGame(log)
            # A step whose dice are all in but which was never played (a crash between two writes of an
            # older version, or between a step and the next dice-free one) is played now, from the log.
            waiting = advance(game)
            st = game.state()
            records = log.live_records()
            rolls, last_step, acked = _tail(records)
            names = {side: side_word(side) for side in st.start_counts}
            names.update(figure_names(st.scene_json))
            # Names of the fallen too: the outcome still speaks of them.
            first = next((r for r in records if r.kind == "game_started"), None)
            if first is not None:
                names = {**names, **figure_names(first.payload["scene"]), **figure_names(st.scene_json)}
            game_info = {"turn": st.turn, "phase": st.phase, "attacker": st.attacker, "system": "kimmiria",
                         "removed": list(st.removed), "rolls": rolls,
                         "file": Path(log.path).name, "can_undo": any(r.kind == ROLL for r in records)}
            check = _open_check(records)
            if check is not None:
                speaker = SimpleNamespace(n=lambda fid: names.get(fid, fid or ""),
                                          words=lambda text: with_names(text, names))
                prompt = guided.check_prompt(speaker, check)
            elif last_step is not None and not acked:
                prompt = _outcome_prompt(last_step, st, names)
            elif st.phase == "over":
                prompt = {"kind": "over", "title": f"{side_word(st.winner)} wins!" if st.winner else "A draw!",
                          "text": "Well played! Start a new game when you are ready.", "button": "New game"}
            elif st.phase == "move":
                prompt = {"kind": "do", "title": f"{side_word(st.attacker)} side: move!",
                          "text": f"Move up to {groups_words(st.groups_allowed)} of your figures on the table "
                                  "(each group is circled and numbered on the picture). "
                                  "A figure that moves next to an enemy must stop. "
                                  "Take a new picture, then tap Done when they are all in place.",
                          "button": "Done", "side": st.attacker, "photo": True,
                          "groups": _groups(game, st, st.attacker)}
            elif st.phase == "free_move":
                offers = [with_names(str(p.get("text", "")), names) for p in st.free_moves]
                prompt = {"kind": "do", "title": "Free moves", "lines": offers,
                          "text": "You may move a winner into the space of the figure it beat. Tap Done.",
                          "button": "Done", "side": st.attacker}
            else:
                try:
                    need = waiting if waiting is not None else _try_step(game, st, rolls)
                    if isinstance(need, RollRequest):
                        prompt = _roll_prompt(game, st, need, rolls, names)
                    else:           # cannot stay so: advance() plays a step whose dice are all in
                        prompt = {"kind": "problem", "title": "One moment...", "text": "Working it out."}
                except ValueError as exc:
                    prompt = {"kind": "problem", "title": "A grown-up is needed",
                              "text": with_names(str(exc), names) + " Fix it on the Setup page, "
                              "then start a new game."}
            if prompt.get("turn"):              # an outcome speaks of the turn it happened in
                game_info["turn"] = prompt.pop("turn")
            prompt["game"] = game_info
            prompt.setdefault("say", _say(prompt))
            return prompt
        except (GameError, ValueError) as exc:
            return {"kind": "problem", "title": "This game cannot go on", "text": str(exc),
                    "button": "New game", "game": None, "say": str(exc)}
        finally:
            log.close()
