"""`tablesight resolve SCENARIO [--json]`: one rules step with given dice -> events and removed figures.

The scenario format is in docs/scenarios.md: `system`, `scene` (Scene JSON), `step`,
`attacker_side`, `dice` (a list used in order, or an object "who" -> value or [values], with
"*" for rolls that name nobody), optional `overrides` (house defaults), and step options.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from measure.scene import scene_from_json

from assistant.cli import CommandError
from assistant.rules import get_system
from assistant.rules.dice import DiceExhausted, ScriptedDice
from assistant.rules.events import StepResult

SCENARIO_KEYS = ("system", "scene", "step", "attacker_side", "dice", "overrides", "expected")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "resolve", help="resolve one rules step (missile, melee, ...) with given dice",
        description="Resolve one rules step of a scenario file with the dice it gives; prints the events, "
                    "the figures removed and what the players must decide next.")
    parser.add_argument("scenario", metavar="SCENARIO", help="scenario JSON file (see docs/scenarios.md)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def dice_from_json(value: Any) -> ScriptedDice:
    if value is None:
        return ScriptedDice()
    if isinstance(value, list):
        return ScriptedDice(value)
    if isinstance(value, Mapping):
        return ScriptedDice({(None if k == "*" else k): v for k, v in value.items()})
    raise CommandError(f"dice: expected a list of values or an object who -> value, got {type(value).__name__}")


def resolve_scenario(scenario: Any) -> dict[str, Any]:
    """The output object for a parsed scenario (what --json prints)."""
    if not isinstance(scenario, Mapping):
        raise CommandError("scenario: expected a JSON object")
    for key in ("scene", "step"):
        if key not in scenario:
            raise CommandError(f"scenario: missing key {key!r}")
    overrides = scenario.get("overrides", {})
    if not isinstance(overrides, Mapping):
        raise CommandError("overrides: expected an object setting -> value")
    system = get_system(scenario.get("system"), overrides=overrides)
    scene = scene_from_json(scenario["scene"])
    attacker = scenario.get("attacker_side")
    if attacker is not None and not isinstance(attacker, str):
        raise CommandError(f"attacker_side: expected a side name, got {attacker!r}")
    dice = dice_from_json(scenario.get("dice"))
    options = {k: v for k, v in scenario.items() if k not in SCENARIO_KEYS}
    try:
        result: StepResult = system.resolve(str(scenario["step"]), scene, attacker, dice, options)
    except DiceExhausted as exc:
        raise CommandError(f"dice: {exc}") from None
    out = {"system": system.name, **result.to_json()}
    out["unused_dice"] = dice.remaining()
    return out


def format_text(out: Mapping[str, Any]) -> str:
    lines = [f"{out['system']} {out['step']}:"]
    lines += [f"  {e['text']}" for e in out["events"]]
    lines.append("Removed: " + (", ".join(out["removed"]) if out["removed"] else "nobody"))
    lines += [f"Next: {p['text']}" for p in out["prompts"]]
    if out.get("unused_dice"):
        lines.append(f"({out['unused_dice']} die value(s) given were not needed)")
    return "\n".join(lines)


def run(args) -> int:
    with open(args.scenario, encoding="utf-8") as fh:
        try:
            scenario = json.load(fh)
        except json.JSONDecodeError as exc:
            raise CommandError(f"{args.scenario}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    out = resolve_scenario(scenario)
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_text(out))
    return 0
