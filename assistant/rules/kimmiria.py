"""KIMMIRIA, the default system (25 mm single figures, d6). Steps are added below."""
from __future__ import annotations

from assistant.rules.system import RuleSystem


class Kimmiria(RuleSystem):
    name = "kimmiria"
    title = "KIMMIRIA"
    steps = ()
