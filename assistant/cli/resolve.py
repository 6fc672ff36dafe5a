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

from assistant.rules import get_system, system_names
from assistant.rules.dice import DiceExhausted, ScriptedDice
from assistant.rules.errors import ScenarioError
from assistant.rules.events import StepResult
from assistant.rules.inputs import (MAX_SCENARIO_BYTES, Ids, Int, ListOf, MapOf, OneOf, Str, check_scene_bounds, need,
                                    read_json_text, shown)

# Keys every scenario may carry; the rest are the step's options, checked against its declared inputs.
# `expect` and `because` are the outcome written from the rule text and the sentence it rests on.
SCENARIO_KEYS = ("system", "scene", "step", "attacker_side", "dice", "overrides", "expect", "because", "note")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "resolve", help="resolve one rules step (missile, melee, ...) with given dice",
        description="Resolve one rules step of a scenario file with the dice it gives; prints the events, "
                    "the figures removed and what the players must decide next.")
    parser.add_argument("scenario", metavar="SCENARIO", help="scenario JSON file (see docs/scenarios.md)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


# The dice as they fell: in order, or by who rolled ("*": rolls that name nobody). A value too big for
# the die rolled is refused by the step's roll, which knows the die.
DICE = OneOf((ListOf(Int(1, 100)), MapOf(Str(), OneOf((Int(1, 100), ListOf(Int(1, 100)))))))


def dice_from_json(value: Any) -> ScriptedDice:
    if value is None:
        return ScriptedDice()
    if isinstance(value, str) or not isinstance(value, (list, Mapping)):
        raise ScenarioError(f"dice: expected a list of values or an object who -> value, got {shown(value)}")
    DICE.check(value, "dice", Ids())
    if isinstance(value, list):
        return ScriptedDice(value)
    return ScriptedDice({(None if k == "*" else k): v for k, v in value.items()})


def resolve_scenario(scenario: Any) -> dict[str, Any]:
    """The output object for a parsed scenario (what --json prints)."""
    if not isinstance(scenario, Mapping):
        raise ScenarioError("scenario: expected a JSON object")
    for key in ("scene", "step"):
        need(scenario, key)
    name = scenario.get("system")
    if name is not None and not isinstance(name, str):
        raise ScenarioError(f"system: expected one of {', '.join(system_names())}, got {shown(name)}")
    step = scenario["step"]
    if not isinstance(step, str):
        raise ScenarioError(f"step: expected a step name (a string), got {shown(step)}")
    overrides = scenario.get("overrides", {})
    if not isinstance(overrides, Mapping):
        raise ScenarioError("overrides: expected an object setting -> value")
    system = get_system(name, overrides=overrides)
    scene = scene_from_json(scenario["scene"])
    check_scene_bounds(scene)
    attacker = scenario.get("attacker_side")
    if attacker is not None and not isinstance(attacker, str):
        raise ScenarioError(f"attacker_side: expected a side name, got {shown(attacker)}")
    dice = dice_from_json(scenario.get("dice"))
    options = {k: v for k, v in scenario.items() if k not in SCENARIO_KEYS}
    try:
        result: StepResult = system.resolve(step, scene, attacker, dice, options)
    except DiceExhausted as exc:
        raise ScenarioError(f"dice: {exc}") from None
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
    with open(args.scenario, "rb") as fh:
        raw = fh.read(MAX_SCENARIO_BYTES + 1)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(f"{args.scenario}: not UTF-8 text") from None
    scenario = read_json_text(text, args.scenario)
    out = resolve_scenario(scenario)
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_text(out))
    return 0
