"""The one reader of a step's inputs: typed specs that check a value at a key path.

A rule system declares, for each step, the options it reads (`step_inputs`) and the extra keys it
reads on scene figures (`figure_keys`), as specs built from the small types below. `check_inputs`
runs before the step, so a step never meets a string where it wanted a list: every wrong type or
unknown id is one `ScenarioError` that names the key path and what was expected:

    turn.shots[0].dice: expected a list of whole numbers 1-6, got "x"
    locked[0][1]: unknown figure 'Q'; figures: A, B, C

The same specs describe a step's questions to the tablet (`describe()` is the plain phrase).
`read_json_text` parses a scenario file within size and nesting limits, before Python's parser
could recurse too deep.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assistant.rules.errors import ScenarioError

MAX_SCENARIO_BYTES = 4 * 1024 * 1024
MAX_NESTING = 64
MAX_COORD_IN = 10_000.0     # no table or move reaches this far (inches); beyond it a number is a typo


# ----------------------------------------------------------------- the JSON text

def nesting_depth(text: str) -> int:
    """The deepest [ or { nesting in a JSON text (brackets inside strings do not count)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def read_json_text(text: str, where: str = "scenario") -> Any:
    """A JSON document within MAX_SCENARIO_BYTES and MAX_NESTING; anything else is one ScenarioError."""
    if len(text) > MAX_SCENARIO_BYTES:
        raise ScenarioError(f"{where}: {len(text)} characters; a scenario is at most {MAX_SCENARIO_BYTES}")
    depth = nesting_depth(text)
    if depth > MAX_NESTING:
        raise ScenarioError(f"{where}: nested {depth} deep; a scenario nests at most {MAX_NESTING} deep")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:      # cannot happen under MAX_NESTING; kept so no input ever tracebacks
        raise ScenarioError(f"{where}: nested too deep") from None


# ----------------------------------------------------------------- helpers

def shown(value: Any, limit: int = 40) -> str:
    """A value as the message quotes it (JSON, shortened)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def need(obj: Any, key: str, where: str = "scenario") -> Any:
    """A required key; a missing one (or a parent that is no object) is named."""
    if not isinstance(obj, Mapping):
        raise ScenarioError(f"{where}: expected an object, got {shown(obj)}")
    if key not in obj:
        raise ScenarioError(f"{where}: missing key {key!r}")
    return obj[key]


@dataclass(frozen=True)
class Ids:
    """The ids a scenario may name, by kind ("figure", "side", "unit", "terrain", ...)."""
    by_kind: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def check(self, kind: str, value: Any, path: str) -> str:
        known = self.by_kind.get(kind)
        if not isinstance(value, str) or isinstance(value, bool):
            raise ScenarioError(f"{path}: expected a {kind} id (a string), got {shown(value)}")
        if known is not None and value not in known:
            listed = ", ".join(map(str, known)) or "none"
            raise ScenarioError(f"{path}: unknown {kind} {value!r}; {kind}s: {listed}")
        return value


# ----------------------------------------------------------------- specs

class Spec:
    """Checks one value at a path (raising ScenarioError) and returns it."""

    def check(self, value: Any, path: str, ids: Ids) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def plural(self) -> str:
        """How a list of these is named ("whole numbers 1-6", "figure ids")."""
        text = self.describe()
        for article in ("a ", "an "):
            if text.startswith(article):
                text = text[len(article):]
        first, _, rest = text.partition(" ")
        return f"{first}s {rest}".strip()

    def fail(self, value: Any, path: str) -> ScenarioError:
        return ScenarioError(f"{path}: expected {self.describe()}, got {shown(value)}")


@dataclass(frozen=True)
class Int(Spec):
    lo: int | None = None
    hi: int | None = None

    def check(self, value, path, ids):
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(value, path)
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise self.fail(value, path)
        return value

    def describe(self):
        if self.lo is not None and self.hi is not None:
            return f"a whole number {self.lo}-{self.hi}"
        if self.lo is not None:
            return f"a whole number >= {self.lo}"
        return "a whole number"

    def plural(self):
        return self.describe().replace("a whole number", "whole numbers")


@dataclass(frozen=True)
class Num(Spec):
    lo: float | None = None
    hi: float | None = None

    def check(self, value, path, ids):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(value, path)
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise self.fail(value, path)
        return value

    def describe(self):
        if self.lo is not None:
            return f"a number >= {self.lo:g}"
        return "a number"


@dataclass(frozen=True)
class Bool(Spec):
    def check(self, value, path, ids):
        if not isinstance(value, bool):
            raise self.fail(value, path)
        return value

    def describe(self):
        return "true or false"


@dataclass(frozen=True)
class Str(Spec):
    choices: tuple[str, ...] = ()

    def check(self, value, path, ids):
        if not isinstance(value, str):
            raise self.fail(value, path)
        if self.choices and value not in self.choices:
            raise ScenarioError(f"{path}: expected one of {', '.join(self.choices)}, got {shown(value)}")
        return value

    def describe(self):
        return f"one of {', '.join(self.choices)}" if self.choices else "a string"

    def plural(self):
        return f"strings ({self.describe()})" if self.choices else "strings"


@dataclass(frozen=True)
class Id(Spec):
    kind: str = "figure"

    def check(self, value, path, ids):
        return ids.check(self.kind, value, path)

    def describe(self):
        return f"a {self.kind} id"

    def plural(self):
        return f"{self.kind} ids"


@dataclass(frozen=True)
class Null(Spec):
    def check(self, value, path, ids):
        if value is not None:
            raise self.fail(value, path)
        return value

    def describe(self):
        return "null"


@dataclass(frozen=True)
class Anything(Spec):
    what: str = "a value"

    def check(self, value, path, ids):
        return value

    def describe(self):
        return self.what


@dataclass(frozen=True)
class ListOf(Spec):
    item: Spec
    min_len: int = 0
    max_len: int | None = None

    def check(self, value, path, ids):
        if not isinstance(value, (list, tuple)):
            raise self.fail(value, path)
        if len(value) < self.min_len or (self.max_len is not None and len(value) > self.max_len):
            raise self.fail(value, path)
        return [self.item.check(v, join(path, i), ids) for i, v in enumerate(value)]

    def describe(self):
        size = ""
        if self.max_len is not None and self.min_len == self.max_len:
            size = f"{self.min_len} "
        elif self.min_len:
            size = f"at least {self.min_len} "
        return f"a list of {size}{self.item.plural()}"


@dataclass(frozen=True)
class Tuple(Spec):
    items: tuple[Spec, ...]
    what: str = ""          # how the message names it, e.g. "[col, row]"

    def check(self, value, path, ids):
        if not isinstance(value, (list, tuple)) or len(value) != len(self.items):
            raise self.fail(value, path)
        return [s.check(v, join(path, i), ids) for i, (s, v) in enumerate(zip(self.items, value))]

    def describe(self):
        return self.what or "[" + ", ".join(s.describe() for s in self.items) + "]"

    def plural(self):
        return f"{self.describe()} pairs" if len(self.items) == 2 else f"{self.describe()} lists"


@dataclass(frozen=True)
class MapOf(Spec):
    key: Spec
    value: Spec

    def check(self, value, path, ids):
        if not isinstance(value, Mapping):
            raise self.fail(value, path)
        out = {}
        for k, v in value.items():
            self.key.check(k, join(path, str(k)) + " (the key)", ids)
            out[k] = self.value.check(v, join(path, str(k)), ids)
        return out

    def describe(self):
        return f"an object {self.key.describe()} -> {self.value.describe()}"


@dataclass(frozen=True)
class Obj(Spec):
    fields: Mapping[str, Spec]
    required: tuple[str, ...] = ()
    strict: bool = True

    def check(self, value, path, ids):
        if not isinstance(value, Mapping):
            raise self.fail(value, path)
        for key in self.required:
            if key not in value:
                raise ScenarioError(f"{path or 'scenario'}: missing key {key!r}")
        out = dict(value)
        for key, v in value.items():
            spec = self.fields.get(key)
            if spec is None:
                if self.strict:
                    raise ScenarioError(f"{join(path, key)}: unknown key; keys: {', '.join(self.fields)}")
                continue
            out[key] = spec.check(v, join(path, key), ids)
        return out

    def describe(self):
        return "an object with " + ", ".join(self.required or tuple(self.fields))


@dataclass(frozen=True)
class OneOf(Spec):
    options: tuple[Spec, ...]

    def check(self, value, path, ids):
        first: ScenarioError | None = None
        for spec in self.options:
            try:
                return spec.check(value, path, ids)
            except ScenarioError as exc:
                first = first or exc
                # an unknown id under the right type says more than "expected one of"
                if "unknown" in str(exc) and not str(exc).startswith(f"{path}: expected"):
                    raise
        raise self.fail(value, path)

    def describe(self):
        return " or ".join(s.describe() for s in self.options)

    def plural(self):
        return " or ".join(s.plural() for s in self.options)


def optional(spec: Spec) -> Spec:
    return OneOf((Null(), spec))


# A few shapes every system uses.
FIGURE = Id("figure")
FIGURES = ListOf(FIGURE)
SIDE = Id("side")
SIDES = ListOf(SIDE, min_len=1)
@dataclass(frozen=True)
class Facing(Spec):
    def check(self, value, path, ids):
        from assistant.rules.facing import parse_facing
        parse_facing(value, path, ScenarioError)
        return value

    def describe(self):
        return "degrees or east, south, west, north"

    def plural(self):
        return "facings (degrees or east, south, west, north)"


FACING = Facing()
CELL = Tuple((Int(), Int()), "[col, row]")
POINT = Tuple((Num(-MAX_COORD_IN, MAX_COORD_IN), Num(-MAX_COORD_IN, MAX_COORD_IN)), "[x, y]")
# A figure named in the turn's history may already be off the table: any id string.
PAST_FIGURE = Str()


def dice_list(sides: int = 6) -> Spec:
    return ListOf(Int(1, sides))


# ----------------------------------------------------------------- checking a step's inputs

def check_inputs(fields: Mapping[str, Spec], options: Mapping[str, Any], ids: Ids, path: str = "",
                 strict: bool = False) -> dict[str, Any]:
    """The options a step reads, each checked at its key path (`strict`: an unknown key is an error)."""
    return Obj(fields, strict=strict).check(options, path, ids)


def check_scene_bounds(scene: Any) -> None:
    """Every figure and terrain corner within MAX_COORD_IN of the table's corner (a scene far off the
    table is a typo, and would cost the geometry a long time)."""
    for i, fig in enumerate(scene.figures):
        for key, value in (("x", fig.x), ("y", fig.y), ("base", fig.base_in)):
            if not math.isfinite(value) or abs(value) > MAX_COORD_IN:
                raise ScenarioError(f"scene.figures[{i}].{key}: expected a number within {MAX_COORD_IN:g} inches "
                                    f"of the table, got {shown(value)}")
    for i, piece in enumerate(scene.terrain):
        lo_x, lo_y, hi_x, hi_y = piece.polygon.bounds
        if not all(math.isfinite(v) and abs(v) <= MAX_COORD_IN for v in (lo_x, lo_y, hi_x, hi_y)):
            raise ScenarioError(f"scene.terrain[{i}].polygon: expected corners within {MAX_COORD_IN:g} inches of "
                                "the table")


def check_figure_keys(fields: Mapping[str, Spec], figures: Iterable[Any], ids: Ids, where: str = "figures") -> None:
    """The extra keys a system reads on scene figures (or terrain pieces), each at `scene.<where>[i]`."""
    for i, fig in enumerate(figures):
        extra = getattr(fig, "extra", {}) or {}
        for key, spec in fields.items():
            if key in extra:
                spec.check(extra[key], f"scene.{where}[{i}].{key}", ids)


__all__ = ["Anything", "Bool", "CELL", "FACING", "FIGURE", "FIGURES", "Id", "Ids", "Int", "ListOf", "MapOf",
           "MAX_NESTING", "MAX_SCENARIO_BYTES", "Null", "Num", "Obj", "OneOf", "POINT", "SIDE", "SIDES", "ScenarioError",
           "Spec", "Str", "Tuple", "check_figure_keys", "check_inputs", "dice_list", "need", "optional",
           "read_json_text", "shown"]
