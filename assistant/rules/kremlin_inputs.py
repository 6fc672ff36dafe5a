"""What each KremlinMiniatures step reads besides the scene and the dice (checked by assistant/rules/inputs.py).

Units are named by id: a base's `unit` key, a lone base's own id, or a key of the `units` option.
"""
from __future__ import annotations

from assistant.rules.inputs import (FACING, FIGURES, SIDES, Bool, Id, Int, ListOf, MapOf, Num, Obj, OneOf, Str, Tuple,
                                    optional)

UNIT = Id("unit")
UNITS = ListOf(UNIT)
RATING = Str()
TABLE_OR_NUMBER = OneOf((Str(), Int(1, 7)))

# A unit's own keys, on its first base or in the `units` option ("Creating a Unit").
UNIT_KEYS = {"rating": RATING, "hit": TABLE_OR_NUMBER, "save": TABLE_OR_NUMBER,
             "range": OneOf((Str(), Num(0))), "figures_per_base": Int(1), "lost": Int(0), "hits_left": Int(0),
             "fight_dice": Int(0), "disordered": Bool(), "routing": Bool(), "pike": Bool(),
             "alignment": optional(Str(("good", "evil", "neutral"))), "facing": optional(FACING),
             "front_rank": optional(Int(1)), "commander": optional(Str())}

UNITS_OPTION = {"units": MapOf(Str(), Obj({"bases": FIGURES, **UNIT_KEYS}))}

STEP_INPUTS = {
    "initiative": {"sides": SIDES},
    "move": {"unit": UNIT, "charge": Bool(), "target": UNIT, "pursuing": Bool(), "difficult": optional(Bool()),
             "lose_dice": Int(0), **UNITS_OPTION},
    "shoot": {"shooter": UNIT, "target": UNIT, "response": Bool(), **UNITS_OPTION},
    "melee": {"melee": Tuple((UNIT, UNIT), "[unit a, unit b]"), "charging": UNITS, "drawn_before": Bool(), "stand_firm": Bool(),
              "melee_turn": Int(1), "reinforce": MapOf(UNIT, UNIT), "hack_down": UNITS, **UNITS_OPTION},
    "morale_allowance": {"sides": SIDES},
    "morale": {"unit": UNIT, "tests_left": Int(), "flank_rear": optional(Bool()), "king_killed": Bool(), **UNITS_OPTION},
    "rally": {"unit": UNIT, "flank_rear": optional(Bool()), "rallied_before": Bool(), **UNITS_OPTION},
    "charge_response": {"charger": UNIT, "target": UNIT, "choice": Str(("counter_charge", "evade", "shoot_then_stand",
                                                                        "stand")),
                        "fired": Bool(), "pursue": Bool(), "difficult": Bool(), **UNITS_OPTION},
    "break_off": {"unit": UNIT, "pursuer": UNIT, **UNITS_OPTION},
    "pursue": {"unit": UNIT, "routers": UNIT, **UNITS_OPTION},
    "interpenetrate": {"unit": UNIT, "friend": UNIT, "hack_down": Bool(), "friend_in_melee": Bool(), **UNITS_OPTION},
    "woods_move": {"woods": Id("terrain"), "moves": Bool()},
    "siege": {"unit": UNIT, "wall": Id("terrain"), "wall_hits": Int(1), "hits_before": Int(0), "breached_before": Bool(),
              **UNITS_OPTION},
    "woods_damage": {"woods": Id("terrain"), "unit": UNIT, "flame": Bool(), "hits_before": Int(0), **UNITS_OPTION},
    "recover": {"unit": UNIT, "failed_attempts": Int(0), "tried_this_turn": Bool(), **UNITS_OPTION},
    "woods": {"woods": Id("terrain"), "units": UNITS, "nature": Str(("good", "evil", "neutral")), **UNITS_OPTION},
}

TERRAIN_KEYS = {"nature": Str(("good", "evil", "neutral")), "hits_taken": Int(0), "moves": Bool(), "hits": Int(1)}

FIGURE_KEYS = {"unit": Str(), **UNIT_KEYS}
