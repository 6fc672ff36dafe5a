"""`tablesight targets SCENE`: every shooter's closest legal target, ties, and why not the others."""
from __future__ import annotations

import json
import sys
import time
from typing import Any

from measure.los import SceneIndex
from measure.scene import Scene
from measure.targets import ShooterResult, iter_closest_targets

from assistant.cli import CommandError
from assistant.cli.los import (add_common_options, blocker_label, enemy_label, figure_label, join_words,
                               load_scene, load_table, referee_for, shooter_specs)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "targets", help="every shooter's closest legal target, ties, and why each other enemy is not legal",
        description="For every figure that can shoot: the closest legal target, the enemies tied with it, "
                    "and for every other enemy why it is not the target (shooter_engaged, engaged, out_of_range, "
                    "out_of_arc, blocked, farther), with the risks the step will roll for (obstacle_roll, "
                    "friendly_fire), as the rule system measures range.")
    parser.add_argument("scene", metavar="SCENE", help="Scene JSON file")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run the computation N times in this process (benchmarking; time on stderr)")
    add_common_options(parser)
    parser.set_defaults(func=run)


def _enemy_json(e) -> dict[str, Any]:
    out = {"id": e.id, "distance": round(e.distance_in, 4), "reason": e.reason, "blocked_by": list(e.blocked_by),
           "range": round(e.measured, 4)}
    if e.needs is not None:
        out["needs"] = e.needs
    if e.risks:
        out["risks"] = list(e.risks)
    if e.in_the_way:
        out["in_the_way"] = list(e.in_the_way)
    return out


def result_json(result: ShooterResult) -> dict[str, Any]:
    verdicts = {e.id: e for e in result.enemies}
    return {
        "shooter": result.shooter,
        "width": round(result.width_in, 4),
        "range": result.range_in,
        "range_unit": result.range_unit,
        "measure": result.measure,
        "engaged": result.engaged,
        "target": result.target,
        "distance": None if result.distance_in is None else round(result.distance_in, 4),
        "ties": list(result.ties),
        "legal": [_enemy_json(verdicts[i]) for i in ([result.target, *result.ties] if result.target else [])],
        "others": [_enemy_json(e) for e in result.others],
    }


def range_words(result: ShooterResult, e, digits: int = 1) -> str:
    """'8 spaces', '3.2 in edge to edge', '50.0 in, needs 12', '11.3 in'."""
    if result.range_unit == "spaces":
        text = f"{e.measured:g} space" + ("" if e.measured == 1 else "s")
    elif result.measure == "edge":
        text = f"{e.measured:.{digits}f} in edge to edge"
    else:
        text = f"{e.measured:.{digits}f} in"
    if e.needs is not None:
        text += f", needs {e.needs}"
    return text


def risk_words(scene: Scene, e) -> str:
    words = []
    if "obstacle_roll" in e.risks:
        words.append(join_words([blocker_label(scene, i) for i in e.in_the_way]) + " in the way: an obstacle roll")
    if "friendly_fire" in e.risks:
        words.append("firing into hand-to-hand: a roll may hit a friend")
    return "; ".join(words)


def _why_not(scene: Scene, result: ShooterResult) -> list[str]:
    words = []
    unit = "spaces" if result.range_unit == "spaces" else "in"
    for e in result.others:
        who = enemy_label(scene, e.id)
        if e.reason == "shooter_engaged":
            continue
        if e.reason == "blocked":
            words.append(f"{who} is blocked by " + join_words([blocker_label(scene, i) for i in e.blocked_by]))
        elif e.reason == "engaged":
            words.append(f"{who} is in an engaged group (no shooting into a melee)")
        elif e.reason == "out_of_range":
            limit = f"range {result.range_in:g} {unit}" if result.range_in is not None else "more than the die can roll"
            words.append(f"{who} is out of range ({range_words(result, e)}; {limit})")
        elif e.reason == "out_of_arc":
            words.append(f"{who} is out of the arc of fire")
        else:
            risk = risk_words(scene, e)
            words.append(f"{who} is farther ({range_words(result, e)})" + (f"; {risk}" if risk else ""))
    return words


def describe(scene: Scene, result: ShooterResult, tie_in: float, must_shoot_closest: bool = True) -> str:
    """One referee's sentence per shooter."""
    who = figure_label(scene.figure(result.shooter))
    verb = "must shoot" if must_shoot_closest else "may shoot; the closest legal target is"
    if not result.enemies:
        return f"{who} has no enemy on the table."
    if result.engaged:
        return f"{who} touches an enemy and does not shoot."
    if result.target is None:
        text = f"{who} has no legal target"
    elif result.ties:
        tied = [result.target, *result.ties]
        named = [f"{enemy_label(scene, i)} ({range_words(result, result.enemy(i), 2)})" for i in tied]
        close = f"within {tie_in:g} in of each other" if result.range_unit == "in" else "as many spaces away"
        text = (f"{who} {verb} {' or '.join(named)}: they are {close}"
                + (", so roll a die between them" if must_shoot_closest else ""))
        risks = [f"{enemy_label(scene, i)}: {risk_words(scene, result.enemy(i))}" for i in tied
                 if result.enemy(i).risks]
        text += "".join(f"; {r}" for r in risks)
    else:
        target = result.enemy(result.target)
        text = f"{who} {verb} {enemy_label(scene, result.target)} ({range_words(result, target)})"
        if target.risks:
            text += f"; {risk_words(scene, target)}"
    reasons = _why_not(scene, result)
    return text + ("; " + "; ".join(reasons) if reasons else "") + "."


def run(args) -> int:
    if args.repeat < 1:
        raise CommandError(f"--repeat: expected a whole number of at least 1, got {args.repeat}")
    settings, scene = load_table(args.table, load_scene(args.scene))
    referee = referee_for(args.system)
    specs, notes = shooter_specs(referee, scene)
    policy = referee.target_policy or referee.policy

    def ranking():
        return iter_closest_targets(scene, specs, policy, settings, index=SceneIndex.build(scene))

    if args.repeat > 1:
        start = time.perf_counter()
        for _ in range(args.repeat):
            for _result in ranking():
                pass
        elapsed = time.perf_counter() - start
        print(f"targets: {args.repeat} runs, {1000 * elapsed / args.repeat:.2f} ms per run "
              f"({len(specs)} shooters, {len(scene.figures)} figures, {len(scene.terrain)} terrain pieces)",
              file=sys.stderr)
    # Results are written as each chunk of shooters is ranked: memory stays bounded on big tables.
    out = sys.stdout
    if args.json:
        out.write('{"system": ' + json.dumps(referee.name) + ', "shooters": [')
        for n, result in enumerate(ranking()):
            out.write((", " if n else "") + json.dumps(result_json(result)))
        out.write('], "notes": ' + json.dumps(notes) + "}\n")
        return 0
    out.write(f"Rule system: {referee.title}.\n")
    any_result = False
    for result in ranking():
        any_result = True
        out.write(describe(scene, result, settings.tie_in, referee.must_shoot_closest) + "\n")
    if not any_result:
        out.write("No figure on the table can shoot.\n")
    for note in notes:
        out.write(f"note: {note}\n")
    return 0
