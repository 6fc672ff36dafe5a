"""What each AnyMinis! step reads besides the scene and the dice (checked by assistant/rules/inputs.py)."""
from __future__ import annotations

from assistant.rules.inputs import (CELL, FACING, FIGURE, FIGURES, PAST_FIGURE, SIDE, SIDES, Bool, Int, ListOf, MapOf, Null, Obj,
                                    OneOf, Str, optional, Id)

PLAN_KINDS = ("move", "attack", "defence", "skill", "command", "reserve")
ABILITY = Str(("charge", "called_shot", "dual_attack", "whirlwind", "stick_and_move", "charging_fire", "bring_it"))
SPELL = Str(("fireball", "lightning", "slow", "stun", "daze", "teleport", "smoke", "healing", "freeze"))
EFFECTS = ListOf(Obj({"figure": PAST_FIGURE, "effect": Str(("no_move", "no_attack", "frozen", "lose_action_point")),
                      "when": Str(("this", "next")), "from": Str()}, required=("figure", "effect")))

STEP_INPUTS = {
    "assess": {},
    "initiative": {"sides": SIDES, "leader_points": MapOf(SIDE, Int(0)), "mods": MapOf(SIDE, MapOf(Str(), Int())),
                   "last_initiative": optional(SIDE)},
    "plan": {"plans": MapOf(FIGURE, MapOf(Str(PLAN_KINDS), Int(0))), "given": MapOf(FIGURE, Int(0)),
             "spent": MapOf(FIGURE, ListOf(Str(PLAN_KINDS))), "effects": EFFECTS},
    "move": {"figure": FIGURE, "path": ListOf(CELL), "points": Int(0), "effects": EFFECTS},
    "attack": {"attacks": ListOf(Obj({"attacker": FIGURE, "target": FIGURE, "weapon": Str(), "extra_points": Int(0),
                                      "defence_points": Int(0), "from_behind": Bool()},
                                     required=("attacker", "target"))),
               "hp": MapOf(FIGURE, Int()), "leader_points": MapOf(FIGURE, Int(0)),
               "attacked_this_turn": MapOf(FIGURE, ListOf(PAST_FIGURE)), "attacks_made": MapOf(FIGURE, Int(0)),
               "bring_it": FIGURES, "effects": EFFECTS},
    "ability": {"figure": FIGURE, "ability": ABILITY, "used": ListOf(ABILITY), "given": Int(0), "path": ListOf(CELL),
                "then": ListOf(CELL), "target": FIGURE, "targets": ListOf(FIGURE), "weapon": Str(),
                "hp": MapOf(FIGURE, Int()), "attacked_this_turn": MapOf(FIGURE, ListOf(PAST_FIGURE)),
                "bring_it": FIGURES, "effects": EFFECTS},
    "spell": {"caster": FIGURE, "spell": SPELL, "target": FIGURE, "to": CELL, "at": CELL, "moved": Bool(),
              "hp": MapOf(FIGURE, Int()), "effects": EFFECTS},
    "cleanup": {"hp": MapOf(FIGURE, Int()), "effects": EFFECTS, "smoke": MapOf(Id("terrain"), Int(0))},
    "command": {"leader": FIGURE, "points": Int(0), "give": MapOf(FIGURE, Int(0))},
}

TERRAIN_KEYS = {"turns_left": Int(0)}

FIGURE_KEYS = {"weapons": ListOf(Str()), "armor": optional(MapOf(Str(), optional(Str()))),
               "shield": OneOf((Null(), Bool(), Str())), "cape": Bool(), "stance": optional(Str()),
               "gear": optional(ListOf(Str())), "facing": optional(FACING), "hp": Int(), "squad": Str(),
               "abilities": ListOf(ABILITY), "spells": ListOf(SPELL)}
