"""Line of sight, range and target policy: the values a rule system hands to measure/.

A rule system states once how it sees (`SightPolicy`), how it measures range (`RangePolicy`) and
whom a shooter may take (`TargetPolicy`); measure/ only applies them, so `targets`, `los`, the
tablet and the system's own steps read the same answer. The defaults are KIMMIRIA's reading.
"""
from __future__ import annotations

from dataclasses import dataclass


class SightError(ValueError):
    """A width or spec that cannot be measured; the message names the item."""


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
    # "blocks": terrain in the way is a "no"; "obstacle_roll": the shot is legal and the step rolls
    # whether the missile hits the terrain instead (SMART). Figures in the way always block.
    terrain_in_the_way: str = "blocks"
    fire_over_from_hill: bool = False       # a shooter on a hill sees over friends not on a hill
    elevated_kinds: tuple[str, ...] = ()    # a figure standing on one sees over every figure, and
                                            # the piece under it never blocks its own ruler

    def __post_init__(self) -> None:
        if self.terrain_in_the_way not in TERRAIN_IN_THE_WAY:
            raise SightError(f"terrain_in_the_way: expected one of {', '.join(TERRAIN_IN_THE_WAY)}, "
                             f"got {self.terrain_in_the_way!r}")


TERRAIN_IN_THE_WAY = ("blocks", "obstacle_roll")
RANGE_MEASURES = ("centre", "edge", "spaces")
ENGAGED_TARGETS = ("forbidden", "allowed", "risk")


@dataclass(frozen=True)
class RangePolicy:
    """How a system measures range and closeness.

    centre: centre to centre, inches; edge: nearest base edges, inches (touching reads 0);
    spaces: grid spaces between the figures' cells (a figure's `cell` when given), counted with
    `diagonal` on a square grid (measure.grid.SQUARE_METRICS) and hex distance on a hex grid;
    a scene without a printed grid counts `space_in` squares from the table corner.

    A roll that grows with range (SMART): past `penalty_from_in` the roll needed is
    `base_need` + 1 per full `penalty_step_in`; a shot needing more than `max_need` is out of range.
    """
    measure: str = "centre"
    diagonal: str = "chessboard"
    space_in: float = 1.0
    penalty_from_in: float | None = None
    penalty_step_in: float = 1.0
    base_need: int = 0
    max_need: int = 0

    def __post_init__(self) -> None:
        if self.measure not in RANGE_MEASURES:
            raise SightError(f"range measure: expected one of {', '.join(RANGE_MEASURES)}, got {self.measure!r}")
        if self.penalty_from_in is not None and not self.penalty_step_in > 0:
            raise SightError(f"penalty_step_in: must be greater than 0, got {self.penalty_step_in!r}")

    @property
    def unit(self) -> str:
        return "spaces" if self.measure == "spaces" else "in"


@dataclass(frozen=True)
class TargetPolicy:
    """Whom a shooter may take, and at what risk.

    engaged_targets: "forbidden" (no shooting into a group holding an engaged pair, KIMMIRIA),
    "allowed", or "risk" (legal, but a target touching the shooter's friends may see the missile
    hit a friend instead: the step rolls for it, SMART). engaged_shooters: a shooter touching an
    enemy may still shoot. arc_deg: a shooter with a facing only shoots into the area ahead of its
    front between its flank lines each turned this far outward (None: all round).
    """
    sight: SightPolicy = SightPolicy()
    range: RangePolicy = RangePolicy()
    engaged_targets: str = "forbidden"
    engaged_shooters: bool = False
    arc_deg: float | None = None
    must_shoot_closest: bool = True

    def __post_init__(self) -> None:
        if self.engaged_targets not in ENGAGED_TARGETS:
            raise SightError(f"engaged_targets: expected one of {', '.join(ENGAGED_TARGETS)}, "
                             f"got {self.engaged_targets!r}")


def as_target_policy(policy: "SightPolicy | TargetPolicy") -> TargetPolicy:
    """A bare SightPolicy (older callers) is KIMMIRIA's target rules, with engaged shooters left to
    the caller as before."""
    if isinstance(policy, TargetPolicy):
        return policy
    return TargetPolicy(sight=policy, engaged_shooters=True)


@dataclass(frozen=True)
class ShooterSpec:
    """How one figure shoots."""
    width: str | float              # "edge", "ruler", or inches
    range_in: float | None = None   # None = unlimited; in spaces when the range policy counts spaces
    facing_deg: float | None = None  # degrees from table +x toward +y; None: no arc is checked


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
    in_the_way: tuple[str, ...] = ()  # terrain that only calls for an obstacle roll (not a block)


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
