"""What each SMART step reads besides the scene and the dice (checked by assistant/rules/inputs.py)."""
from __future__ import annotations

from assistant.rules.inputs import FACING, FIGURE, POINT, SIDES, Int, ListOf, MapOf, Obj, Str, Tuple, optional

DAMAGE = {"damage": MapOf(FIGURE, Int(0))}

STEP_INPUTS = {
    "initiative": {"sides": SIDES},
    "move": {"moves": MapOf(FIGURE, POINT)},
    "missile": {"shots": ListOf(Obj({"shooter": FIGURE, "target": FIGURE}, required=("shooter", "target"))),
                "order": SIDES, **DAMAGE},
    "melee": {"combat_turn": Int(1), "pairs": ListOf(Tuple((FIGURE, FIGURE))), "targets": MapOf(FIGURE, FIGURE),
              **DAMAGE},
    "dragon_breath": {"dragon": FIGURE, "facing": FACING, **DAMAGE},
    "experience": {"defeats": ListOf(Obj({"victor": FIGURE, "defeated": FIGURE}, required=("victor", "defeated")))},
}

FIGURE_KEYS = {"armor": ListOf(Str()), "weapon": Str(), "damage": Int(0), "xp": Int(0), "level": Int(1),
               "facing": optional(FACING)}
