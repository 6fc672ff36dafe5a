"""`tablesight targets SCENE`: every shooter's closest legal target, ties, and why not the others."""
from __future__ import annotations

import json
import sys
import time
from typing import Any

from measure.los import SceneIndex
from measure.scene import Scene
from measure.targets import ShooterResult, closest_targets

from assistant.cli import CommandError
from assistant.cli.los import (add_common_options, blocker_label, enemy_label, figure_label, join_words,
                               load_scene, load_table, referee_for, shooter_specs)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "targets", help="every shooter's closest legal target, ties, and why each other enemy is not legal",
        description="For every figure that can shoot: the closest legal target, the enemies tied with it, "
                    "and for every other enemy why it is not the target (blocked, engaged, out_of_range, farther).")
    parser.add_argument("scene", metavar="SCENE", help="Scene JSON file")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run the computation N times in this process (benchmarking; time on stderr)")
    add_common_options(parser)
    parser.set_defaults(func=run)


def result_json(result: ShooterResult) -> dict[str, Any]:
    return {
        "shooter": result.shooter,
        "width": round(result.width_in, 4),
        "range": result.range_in,
        "target": result.target,
        "distance": None if result.distance_in is None else round(result.distance_in, 4),
        "ties": list(result.ties),
        "others": [{"id": e.id, "distance": round(e.distance_in, 4), "reason": e.reason,
                    "blocked_by": list(e.blocked_by)} for e in result.others],
    }


def _why_not(scene: Scene, result: ShooterResult) -> list[str]:
    words = []
    for e in result.others:
        who = enemy_label(scene, e.id)
        if e.reason == "blocked":
            words.append(f"{who} is blocked by " + join_words([blocker_label(scene, i) for i in e.blocked_by]))
        elif e.reason == "engaged":
            words.append(f"{who} is in an engaged group (no shooting into a melee)")
        elif e.reason == "out_of_range":
            words.append(f"{who} is out of range ({e.distance_in:.1f} in, range {result.range_in:g} in)")
        else:
            words.append(f"{who} is farther ({e.distance_in:.1f} in)")
    return words


def describe(scene: Scene, result: ShooterResult, tie_in: float, must_shoot_closest: bool = True) -> str:
    """One referee's sentence per shooter."""
    who = figure_label(scene.figure(result.shooter))
    verb = "must shoot" if must_shoot_closest else "may shoot; the closest legal target is"
    if not result.enemies:
        return f"{who} has no enemy on the table."
    if result.target is None:
        text = f"{who} has no legal target"
    elif result.ties:
        tied = [result.target, *result.ties]
        named = [f"{enemy_label(scene, i)} ({result.enemy(i).distance_in:.2f} in)" for i in tied]
        text = (f"{who} {verb} {' or '.join(named)}: they are within {tie_in:g} in of each other"
                + (", so roll a die between them" if must_shoot_closest else ""))
    else:
        text = f"{who} {verb} {enemy_label(scene, result.target)} ({result.distance_in:.1f} in)"
    reasons = _why_not(scene, result)
    return text + ("; " + "; ".join(reasons) if reasons else "") + "."


def run(args) -> int:
    if args.repeat < 1:
        raise CommandError(f"--repeat: expected a whole number of at least 1, got {args.repeat}")
    settings, scene = load_table(args.table, load_scene(args.scene))
    referee = referee_for(args.system)
    specs, notes = shooter_specs(referee, scene)
    start = time.perf_counter()
    for _ in range(args.repeat):
        results = closest_targets(scene, specs, referee.policy, settings, index=SceneIndex.build(scene))
    elapsed = time.perf_counter() - start
    if args.repeat > 1:
        print(f"targets: {args.repeat} runs, {1000 * elapsed / args.repeat:.2f} ms per run "
              f"({len(specs)} shooters, {len(scene.figures)} figures, {len(scene.terrain)} terrain pieces)",
              file=sys.stderr)
    if args.json:
        print(json.dumps({"system": referee.name, "shooters": [result_json(r) for r in results],
                          "notes": notes}))
        return 0
    print(f"Rule system: {referee.title}.")
    if not results:
        print("No figure on the table can shoot.")
    for result in results:
        print(describe(scene, result, settings.tie_in, referee.must_shoot_closest))
    for note in notes:
        print(f"note: {note}")
    return 0
