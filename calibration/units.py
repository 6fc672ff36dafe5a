"""Lengths typed by a person: "25mm", "2.5cm", "1in", '0.75"'. Everything inside is in inches."""
from __future__ import annotations

import math
import re

MM_PER_IN = 25.4

_UNITS_IN = {"mm": 1 / MM_PER_IN, "cm": 10 / MM_PER_IN, "in": 1.0, "inch": 1.0, "inches": 1.0, '"': 1.0}
_LENGTH = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(mm|cm|inches|inch|in|\")\s*$")


class LengthError(ValueError):
    """A length that cannot be read; the message quotes it."""


def parse_length_in(text: str, what: str = "length") -> float:
    """'25mm' -> 0.98425..., '1in' -> 1.0. A bare number is refused: the unit is never guessed."""
    match = _LENGTH.match(str(text).lower())
    if not match:
        raise LengthError(f"{what}: cannot read {text!r} as a length (write it with a unit: 25mm, 2.5cm, 1in)")
    value = float(match.group(1)) * _UNITS_IN[match.group(2)]
    if not math.isfinite(value) or value <= 0:
        raise LengthError(f"{what}: {text!r} must be greater than 0")
    return value


def parse_pair(text: str, what: str) -> tuple[int, int]:
    """'9x6' -> (9, 6): two whole numbers of at least 2."""
    match = re.match(r"^\s*(\d+)\s*[xX*]\s*(\d+)\s*$", str(text))
    if not match or int(match.group(1)) < 2 or int(match.group(2)) < 2:
        raise LengthError(f"{what}: expected two whole numbers of at least 2 like 9x6, got {text!r}")
    return int(match.group(1)), int(match.group(2))
