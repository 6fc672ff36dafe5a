"""Which way a figure or unit faces: degrees from table +x toward +y, or a compass word.

The camera cannot see facing, so players give it (a `facing` key in the scene or the scenario).
"""
from __future__ import annotations

from typing import Any

COMPASS = {"east": 0.0, "south": 90.0, "west": 180.0, "north": 270.0}   # table y points down


def parse_facing(value: Any, where: str, error: type[ValueError]) -> float | None:
    """`value` as degrees (None stays None); anything else raises `error` naming `where`."""
    if value is None:
        return None
    if isinstance(value, str):
        if value.lower() not in COMPASS:
            raise error(f"{where}: facing {value!r}; use degrees or {', '.join(COMPASS)}")
        return COMPASS[value.lower()]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise error(f"{where}: facing {value!r}; use degrees or {', '.join(COMPASS)}")
    return float(value)
