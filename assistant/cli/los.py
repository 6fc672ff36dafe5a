"""`tablesight los SCENE A B`: lay one ruler from A's centre to B's centre and say what blocks it.

Also holds what `los` and `targets` share: reading a Scene file, the measuring settings of a
table profile, and the rule system (through assistant.rules, imported when first needed).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from measure.scene import Figure, Scene, SceneError, scene_from_json
from measure.sight import MeasureSettings, ShooterSpec, SightPolicy, TargetPolicy

from assistant.cli import CommandError



# ------------------------------------------------------------------ shared by los and targets

def load_scene(path: str) -> Scene:
    """Read and validate a Scene JSON file; errors name the file and the item."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CommandError(f"{path}: not a UTF-8 text file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise CommandError(f"{path}: JSON nested too deeply to be a Scene") from None
    try:
        return scene_from_json(data).placed()      # a figure with no known place is never measured
    except SceneError as exc:
        raise SceneError(f"{path}: {exc}") from None


def load_table(table: str | None, scene: Scene) -> tuple[MeasureSettings, Scene]:
    """The [rules] numbers of a table profile (else measure's house defaults), and the scene with
    the profile's [[roster]] laid over it (name, side, type, base: docs/formats.md, the roster)."""
    if table is None:
        return MeasureSettings(), scene
    from calibration.profile import load_profile
    profile = load_profile(table)
    rules = profile.rules
    settings = MeasureSettings(ruler_edge_in=rules.ruler_edge_in, ruler_width_in=rules.ruler_width_in,
                               engage_gap_in=rules.engage_gap_in, tie_in=rules.tie_in)
    from assistant.rules.roster import merge_roster     # the one roster precedence (docs/formats.md)
    return settings, merge_roster(scene, profile.roster_by_figure(), None, None)


@dataclass(frozen=True)
class Referee:
    """What a rule system tells measure: its sight policy and how each figure shoots."""
    name: str
    title: str
    policy: SightPolicy
    spec_for: Callable[[Figure], ShooterSpec | None]
    must_shoot_closest: bool = True  # the system's text obliges shooting the closest legal target
    target_policy: TargetPolicy | None = None   # sight, range and whom a shooter may take


def referee_for(name: str | None) -> Referee:
    """The rule system `name` (None: the default); an unknown name is a one-line error."""
    from assistant.rules import get_system

    system = get_system(name)
    target_policy = system.target_policy()
    return Referee(system.name, system.title or system.name, target_policy.sight, system.shooter_spec,
                   must_shoot_closest=system.must_shoot_closest, target_policy=target_policy)


def shooter_specs(referee: Referee, scene: Scene) -> tuple[dict[str, ShooterSpec], list[str]]:
    """Spec of every figure that can shoot, and a note for each figure the system cannot place."""
    specs: dict[str, ShooterSpec] = {}
    notes: list[str] = []
    for fig in scene.figures:
        try:
            spec = referee.spec_for(fig)
        except ValueError as exc:       # e.g. an unknown figure type: say so, do not guess
            notes.append(f"{fig.id} is not treated as a shooter: {exc}")
            continue
        if spec is not None:
            specs[fig.id] = spec
    return specs, notes


def enemy_label(scene: Scene, figure_id: str) -> str:
    """'Goblin 2 (m21)' when the figure has a name, else 'm21'."""
    name = scene.figure(figure_id).name
    return f"{name} ({figure_id})" if name else figure_id


def figure_label(fig: Figure) -> str:
    """'Archer m12', 'Horse archer Elwen (m40)', 'figure m7'."""
    kind = (fig.type or "figure").replace("_", " ")
    kind = kind[:1].upper() + kind[1:]
    return f"{kind} {fig.name} ({fig.id})" if fig.name else f"{kind} {fig.id}"


def blocker_label(scene: Scene, item_id: str) -> str:
    """'woods t2', 'troop m7': a blocker as a referee says it."""
    for piece in scene.terrain:
        if piece.id == item_id:
            return f"{piece.kind} {piece.id}"
    for fig in scene.figures:
        if fig.id == item_id:
            return f"{(fig.type or 'figure').replace('_', ' ')} {fig.id}"
    return item_id


def join_words(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def width_words(width: str | float, width_in: float) -> str:
    if width == "edge":
        return f"the ruler's edge ({width_in:g} in)"
    if width == "ruler":
        return f"the full ruler width ({width_in:g} in)"
    return f"a {width_in:g} in corridor"


def add_common_options(parser) -> None:
    parser.add_argument("--system", metavar="NAME", help="rule system (default: kimmiria)")
    parser.add_argument("--table", metavar="TABLE.toml",
                        help="table profile whose [rules] set ruler widths, engagement gap and tie")
    parser.add_argument("--json", action="store_true", help="print JSON instead of words")


# ------------------------------------------------------------------ los

def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "los", help="one ruler corridor: clear or not, what blocks it, distances",
        description="Lay a ruler from figure A's centre to figure B's centre and report what blocks it.")
    parser.add_argument("scene", metavar="SCENE", help="Scene JSON file")
    parser.add_argument("a", metavar="A", help="shooter's figure id")
    parser.add_argument("b", metavar="B", nargs="?", help="target's figure id (or give --to / --cell)")
    parser.add_argument("--to", metavar="X,Y", help="a table point as the target, in inches")
    parser.add_argument("--cell", metavar="COL,ROW",
                        help="a grid space as the target (square col,row or axial hex q,r), its centre")
    parser.add_argument("--width", metavar="edge|ruler|INCHES",
                        help="corridor width (default: what A's type needs in the rule system, else edge)")
    add_common_options(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    from assistant.rules import get_system
    from assistant.rules.sight_answer import los_answer       # one answer for the CLI and the tablet

    scene = load_scene(args.scene)
    if (args.b is None) == (args.to is None and args.cell is None) or (args.to is not None and args.cell is not None):
        raise CommandError("los: give one target: a figure B, or --to X,Y, or --cell COL,ROW")
    scene.figure(args.a)                                 # unknown ids: one line naming them
    if args.b is not None:
        scene.figure(args.b)
    settings, scene = load_table(args.table, scene)
    shooter = scene.figure(args.a)
    answer = los_answer(scene, args.a, args.b, args.width, get_system(args.system), settings, option="--width",
                        to=args.to, cell=args.cell)
    if args.json:
        print(json.dumps(answer.cli_json()))
        return 0
    result, width = answer.result, answer.width
    if answer.point is not None:
        head = f"{figure_label(shooter)} to {answer.point_words} along {width_words(width, result.width_in)}: "
        print(f"{head}{_verdict_words(scene, result)}. {result.distance_in:.2f} in from its centre.")
        return 0
    head = f"{figure_label(shooter)} to {figure_label(scene.figure(args.b))} along {width_words(width, result.width_in)}: "
    print(f"{head}{_verdict_words(scene, result)}. {result.distance_in:.2f} in centre to centre, "
          f"{result.edge_distance_in:.2f} in edge to edge.")
    return 0


def _verdict_words(scene: Scene, result) -> str:
    if result.clear:
        words = "clear"
    else:
        words = "blocked by " + join_words([blocker_label(scene, i) for i in result.blocked_by])
    if result.in_the_way:
        words += ("; " if not result.clear else " but ") + join_words(
            [blocker_label(scene, i) for i in result.in_the_way]) + " in the way (an obstacle roll)"
    return words
