"""What each KIMMIRIA step reads besides the scene and the dice (checked by assistant/rules/inputs.py)."""
from __future__ import annotations

from assistant.rules.inputs import CELL, FIGURE, FIGURES, PAST_FIGURE, POINT, SIDES, Int, ListOf, MapOf, Num, Obj, OneOf, Str, Tuple

GAP = {"engage_gap_in": Num(0), "tie_in": Num(0)}

STEP_INPUTS = {
    "missile": {"targets": MapOf(FIGURE, OneOf((FIGURE, ListOf(FIGURE, min_len=1)))), "resting": FIGURES, **GAP},
    "initiative": {"sides": SIDES},
    "groups": {},
    "move": {"moves": ListOf(Obj({"figures": ListOf(FIGURE, min_len=1), "paths": MapOf(FIGURE, ListOf(CELL)),
                                  "to": MapOf(FIGURE, POINT)}, required=("figures",))),
             "groups_allowed": Int(0), "turn": Int(1), "wizard_last_attack": MapOf(PAST_FIGURE, Int())},
    "melee": {"locked": ListOf(Tuple((FIGURE, FIGURE))), "choices": MapOf(FIGURE, FIGURE), **GAP},
    # sides that have lost every figure are no longer on the table: any name
    "victory": {"start_counts": MapOf(Str(), Int(0)), "condition": Str(("A", "B", "C")), "surrendered": Str()},
}

FIGURE_KEYS = {}
