"""The one family of errors a rules step raises: each is a ValueError whose message names the item.

    RulesError                 anything a step refuses (the command line prints it, exit status 2)
    ├── ScenarioError          a step's input: a wrong type, a missing key or an unknown id; the
    │   │                      message starts with the key path (`turn.shots[0].dice: expected ...`)
    │   └── MoveError          a move that cannot be checked (unknown figure, empty path)
    └── RulesDataError         (system.py) a rule system's data or an override of it

Systems name their own subclasses (KremlinError, AssessmentError, ...) so a test can tell them
apart; the command line and the tablet only need RulesError.
"""
from __future__ import annotations


class RulesError(ValueError):
    """A request the rules cannot take; the message names the item."""


class ScenarioError(RulesError):
    """A step's input that does not fit: the message starts with its key path and says what was expected."""


class MoveError(ScenarioError):
    """A move request that cannot be checked (unknown figure, empty path, not adjacent); names the figure."""
