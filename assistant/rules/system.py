"""RuleSystem: the base every rule system builds on (data file, house defaults, sight, steps).

A system is a subclass with `name`, `title` and `steps`, plus a TOML data file next to its module
(`assistant/rules/<name>.toml`). In the data, a number the rule text gives is written plainly;
a number the text does not give is a *house default*, written as an inline table:

    fv = { value = 1, house_default = true, note = "the figure table was lost; Troops are the baseline" }

`system.value("figure_types.troop.fv")` reads through that wrapper; `house_defaults()` lists every
one for the tablet; `with_overrides({...})` returns a copy with the players' own numbers.
"""
from __future__ import annotations

import copy
import functools
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from measure.scene import Figure, Scene
from measure.sight import RangePolicy, SightPolicy, ShooterSpec, TargetPolicy

from assistant.rules.dice import Dice
from assistant.rules.errors import RulesError, ScenarioError
from assistant.rules.events import StepResult
from assistant.rules.inputs import Ids, Spec, check_figure_keys, check_inputs


class RulesDataError(RulesError):
    """A rule system's data (or an override of it) that cannot be used; the message names the key."""


class UnknownStep(ScenarioError):
    """A step name the system does not have; the message lists the steps it has."""


class UnknownFigureType(ScenarioError):
    """A figure type the system does not know; the message lists the types it knows."""


@dataclass(frozen=True)
class HouseDefault:
    key: str            # dotted path in the data, e.g. "figure_types.troop.fv"
    value: Any
    note: str           # why this number, in plain words
    changed: bool = False   # the players replaced the default with their own number

    def __iter__(self):
        """Unpacks as (key, value, note), the shape agreed in notes/interfaces.md."""
        return iter((self.key, self.value, self.note))

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "value": self.value, "note": self.note, "changed": self.changed}


def _is_leaf(node: Any) -> bool:
    """A wrapped value: {value = ..., house_default = ..., note = ...} (also {value, source})."""
    return isinstance(node, Mapping) and "value" in node and set(node) <= {
        "value", "house_default", "note", "source", "changed"}


def unwrap(node: Any) -> Any:
    """The data with every wrapped value replaced by its plain value."""
    if _is_leaf(node):
        return unwrap(node["value"])
    if isinstance(node, Mapping):
        return {k: unwrap(v) for k, v in node.items()}
    if isinstance(node, list):
        return [unwrap(v) for v in node]
    return node


def _walk_leaves(node: Any, prefix: str = ""):
    if _is_leaf(node):
        yield prefix, node
    elif isinstance(node, Mapping):
        for key, value in node.items():
            yield from _walk_leaves(value, f"{prefix}.{key}" if prefix else str(key))


@functools.lru_cache(maxsize=None)
def _load_toml(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise RulesDataError(f"{Path(path).name}: {exc}") from None


def load_data(name: str, directory: Path | None = None) -> dict[str, Any]:
    """The parsed `<name>.toml` from this package (a fresh deep copy: callers may edit it)."""
    path = (directory or Path(__file__).parent) / f"{name}.toml"
    return copy.deepcopy(_load_toml(str(path)))


def _same_kind(old: Any, new: Any) -> bool:
    if isinstance(old, bool) or isinstance(new, bool):
        return isinstance(old, bool) and isinstance(new, bool)
    if isinstance(old, (int, float)) and isinstance(new, (int, float)):
        return True
    return type(old) is type(new)


class RuleSystem:
    """Base class. Subclasses set `name`, `title`, `steps` and write `step_<name>` methods:

        def step_missile(self, scene, attacker_side, dice, options) -> StepResult

    `options` is the rest of a scenario (explicit targets, choices, locked pairs, ...).
    """

    name: str = ""
    title: str = ""
    steps: tuple[str, ...] = ()
    must_shoot_closest: bool = False    # the text obliges a shooter to take the closest legal target
    # What each step reads besides the scene and dice: option key -> spec (assistant/rules/inputs.py).
    # The command line and the tablet ask for these; they are checked before the step runs.
    step_inputs: Mapping[str, Mapping[str, Spec]] = {}
    # Extra keys the system reads on scene figures (weapons, armour, unit, ...) -> spec.
    figure_keys: Mapping[str, Spec] = {}
    # Extra keys the system reads on terrain pieces (a smoke cloud's turns left, a wood's nature) -> spec.
    terrain_keys: Mapping[str, Spec] = {}

    def __init__(self, data: Mapping[str, Any] | None = None,
                 overrides: Mapping[str, Any] | None = None) -> None:
        raw = copy.deepcopy(dict(data)) if data is not None else load_data(self.name)
        for key, value in (overrides or {}).items():
            self._override(raw, key, value)
        self.data: dict[str, Any] = raw
        self.values: dict[str, Any] = unwrap(raw)

    # ------------------------------------------------------------ data
    @staticmethod
    def _override(raw: dict[str, Any], key: str, value: Any) -> None:
        parts = key.split(".")
        node: Any = raw
        for part in parts[:-1]:
            if not isinstance(node, dict) or part not in node:
                raise RulesDataError(f"override {key!r}: no such setting")
            node = node[part]
        last = parts[-1]
        if not isinstance(node, dict) or last not in node:
            raise RulesDataError(f"override {key!r}: no such setting")
        old = node[last]
        if _is_leaf(old):
            if not _same_kind(old["value"], value):
                raise RulesDataError(f"override {key!r}: expected {type(old['value']).__name__}, got {value!r}")
            node[last] = {**old, "value": value, "changed": True}
        else:
            if isinstance(old, Mapping) or not _same_kind(old, value):
                raise RulesDataError(f"override {key!r}: expected {type(old).__name__}, got {value!r}")
            # A number the text gives can still be changed by the players; it then shows as theirs.
            node[last] = {"value": value, "house_default": True, "changed": True,
                          "note": f"changed by the players (the text gives {old!r})"}

    def with_overrides(self, overrides: Mapping[str, Any]) -> "RuleSystem":
        """A copy of this system with the players' own numbers (dotted keys -> values)."""
        return type(self)(self.data, overrides)

    def value(self, key: str, default: Any = ...) -> Any:
        node: Any = self.values
        for part in key.split("."):
            if not isinstance(node, Mapping) or part not in node:
                if default is not ...:
                    return default
                raise RulesDataError(f"{self.name}: no setting {key!r} in the data")
            node = node[part]
        return node

    def house_defaults(self) -> list[HouseDefault]:
        """Every number the text does not give (and every number the players changed)."""
        return [HouseDefault(key, leaf["value"], str(leaf.get("note", "")), bool(leaf.get("changed", False)))
                for key, leaf in _walk_leaves(self.data) if leaf.get("house_default")]

    # ------------------------------------------------------------ figures
    def type_name(self, figure_type: str | None) -> str:
        """The data's name for a scene figure type (aliases such as "heroine" -> "hero")."""
        if figure_type is None:
            raise UnknownFigureType(f"{self.name}: a figure has no type (set it on the tablet or roster)")
        types = self.values.get("figure_types", {})
        key = figure_type.strip().lower().replace(" ", "_").replace("-", "_")
        key = self.values.get("aliases", {}).get(key, key)
        if key not in types:
            hint = self.values.get("type_hints", {}).get(key)
            raise UnknownFigureType(f"{self.name}: unknown figure type {figure_type!r}"
                                    + (f" ({hint})" if hint else "")
                                    + f"; known types: {', '.join(types)}")
        return key

    def figure_type(self, figure_type: str | None) -> dict[str, Any]:
        return self.values["figure_types"][self.type_name(figure_type)]

    def sight_policy(self) -> SightPolicy:
        """What blocks a ruler, from the data's [sight] table (missing keys keep measure's defaults)."""
        sight = self.values.get("sight", {})
        known = {f.name for f in fields(SightPolicy)}
        unknown = set(sight) - known
        if unknown:
            raise RulesDataError(f"{self.name}: unknown [sight] keys {sorted(unknown)}")
        policy = SightPolicy(**{k: tuple(v) if isinstance(v, list) else v for k, v in sight.items()})
        # A terrain alias ("trees" for "woods") blocks sight the way the kind it names does.
        aliases = self.values.get("terrain_aliases", {})

        def widened(kinds: tuple[str, ...]) -> tuple[str, ...]:
            return kinds + tuple(a for a, kind in aliases.items() if kind in kinds and a not in kinds)

        return replace(policy, soft_kinds=widened(policy.soft_kinds), hill_kinds=widened(policy.hill_kinds),
                       blocking_kinds=widened(policy.blocking_kinds), clear_kinds=widened(policy.clear_kinds),
                       elevated_kinds=widened(policy.elevated_kinds))

    def range_policy(self) -> RangePolicy:
        """How range and closeness are measured, from the data's [targeting] table (default: centre)."""
        t = self.values.get("targeting", {})
        return RangePolicy(measure=str(t.get("range_measure", "centre")),
                           diagonal=str(t.get("range_diagonal", "chessboard")))

    def target_policy(self) -> TargetPolicy:
        """Sight, range and whom a shooter may take: the one policy `targets`, `los`, the tablet and this
        system's steps all read (measure.sight.TargetPolicy). The data's [targeting] table says
        engaged_targets ("forbidden", "allowed", "risk"), engaged_shooters and arc_deg."""
        t = self.values.get("targeting", {})
        arc = t.get("arc_deg")
        return TargetPolicy(sight=self.sight_policy(), range=self.range_policy(),
                            engaged_targets=str(t.get("engaged_targets", "forbidden")),
                            engaged_shooters=bool(t.get("engaged_shooters", False)),
                            arc_deg=None if arc is None else float(arc),
                            must_shoot_closest=self.must_shoot_closest)

    def shooter_spec(self, figure: Figure) -> ShooterSpec | None:
        """How `figure` shoots, from its type's `shoots` ("edge", "ruler", inches or "none") and `range`."""
        ftype = self.figure_type(figure.type)
        shoots = ftype.get("shoots", "none")
        if shoots in ("none", None, False):
            return None
        return ShooterSpec(width=shoots, range_in=ftype.get("range"))

    def shooter_specs(self, scene: Scene) -> dict[str, ShooterSpec]:
        """Every figure on the table that can shoot -> its spec (for measure.closest_targets)."""
        specs = {}
        for fig in scene.figures:
            spec = self.shooter_spec(fig)
            if spec is not None:
                specs[fig.id] = spec
        return specs

    # ------------------------------------------------------------ steps
    def step_function(self, step: str) -> Callable[..., StepResult]:
        if step not in self.steps:
            raise UnknownStep(f"{self.name}: unknown step {step!r}; steps: {', '.join(self.steps)}")
        return getattr(self, f"step_{step}")

    def input_ids(self, scene: Scene, options: Mapping[str, Any]) -> Ids:
        """The ids a step's options may name: figures, sides and terrain on the table."""
        return Ids({"figure": [f.id for f in scene.figures],
                    "side": list(dict.fromkeys(f.side for f in scene.figures if f.side)),
                    "terrain": [t.id for t in scene.terrain]})

    def step_questions(self, step: str) -> list[dict[str, str]]:
        """What a step may be told, in words, for a guided turn: [{"key", "expects"}] (e.g. "reinforce" ->
        "an object a unit id -> a unit id")."""
        self.step_function(step)
        return [{"key": key, "expects": spec.describe()} for key, spec in self.step_inputs.get(step, {}).items()]

    def check_step_inputs(self, step: str, scene: Scene, options: Mapping[str, Any],
                          strict: bool = False) -> dict[str, Any]:
        """The step's options and the figures' extra keys, each checked at its key path (ScenarioError)."""
        fields = self.step_inputs.get(step, {})
        self.step_function(step)
        ids = self.input_ids(scene, options)
        check_figure_keys(self.figure_keys, scene.figures, ids)
        check_figure_keys(self.terrain_keys, scene.terrain, ids, "terrain")
        return check_inputs(fields, options, ids, strict=strict)

    def resolve(self, step: str, scene: Scene, attacker_side: str | None, dice: Dice,
                options: Mapping[str, Any] | None = None) -> StepResult:
        """Run one rules step; the result's `rolls` are the dice rolled during it."""
        before = len(dice.rolls)
        options = dict(options or {})
        self.check_step_inputs(step, scene, options)
        result = self.step_function(step)(scene, attacker_side, dice, options)
        rolls = tuple(dice.rolls[before:])
        if result.rolls != rolls:
            result = StepResult(result.step, result.events, result.removed, result.prompts, rolls, result.extra)
        return result

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
