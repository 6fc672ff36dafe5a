"""Line of sight: what blocks a ruler laid from a shooter's centre to a target's centre.

The policy and shooter values here are the names agreed with the rules engineer
(notes/interfaces.md); a rule system returns them, measure/ only applies them.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SightPolicy:
    """What blocks a ruler corridor; the defaults are KIMMIRIA's reading.

    Terrain kinds in none of the tuples are treated as blocking (a kind we do not
    know is safer read as solid than as see-through).
    """
    figures_block: bool = True
    soft_kinds: tuple[str, ...] = ("woods", "rocks")   # missiles go soft_depth_in in/out
    soft_depth_in: float = 0.5
    hill_kinds: tuple[str, ...] = ("hill",)
    blocking_kinds: tuple[str, ...] = ("wall", "building")
    clear_kinds: tuple[str, ...] = ("water",)


@dataclass(frozen=True)
class ShooterSpec:
    """How one figure shoots."""
    width: str | float              # "edge", "ruler", or inches
    range_in: float | None = None   # None = unlimited


@dataclass(frozen=True)
class MeasureSettings:
    """The measuring house defaults, mirroring calibration.profile.RulesSettings.

    measure/ must not import calibration, so callers copy a profile's [rules] in here.
    """
    ruler_edge_in: float = 0.125    # house_default: the ruler laid on its side
    ruler_width_in: float = 1.25    # house_default: the ruler's full width
    engage_gap_in: float = 0.1      # house_default: bases this close count as touching
    tie_in: float = 0.25            # house_default: targets this close in distance tie


@dataclass(frozen=True)
class LosResult:
    clear: bool
    width_in: float
    distance_in: float              # centre to centre
    edge_distance_in: float         # base edge to base edge, touching reads 0
    blocked_by: tuple[str, ...]     # figure and terrain ids, in scene order (figures first)


class SightError(ValueError):
    """A width or spec that cannot be measured; the message names the item."""


def resolve_width(width: str | float, settings: MeasureSettings = MeasureSettings()) -> float:
    """'edge' / 'ruler' / inches -> corridor width in inches."""
    if isinstance(width, str):
        if width == "edge":
            return settings.ruler_edge_in
        if width == "ruler":
            return settings.ruler_width_in
        raise SightError(f"width: expected 'edge', 'ruler' or inches, got {width!r}")
    value = float(width)
    if not value > 0 or value != value or value == float("inf"):
        raise SightError(f"width: must be a positive finite number of inches, got {width!r}")
    return value
