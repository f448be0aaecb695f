"""Budgets for untrusted dice notation (STYLE.md 9): every bound a user could stretch.

>>> DEFAULT_LIMITS.max_dice
1000
>>> Limits(max_dice=50).max_sides
10000
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.errors import RuleError

# Longer texts could nest past Python's recursion limit when printed or rolled.
LENGTH_CEILING = 1000


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds a parse and a roll keep to; past any of them, `LimitError`.

    >>> Limits().max_length
    256
    """

    max_length: int = 256
    """Characters in one expression (1..1000)."""
    max_dice: int = 1000
    """Dice in one roll, counting the most explosions could add (worst case, checked at parse)."""
    max_sides: int = 10_000
    """Sides of one die (a die has at least 1)."""
    max_explode_depth: int = 20
    """Explosions in one chain; a die at this depth does not explode again."""
    max_nesting: int = 32
    """Parentheses and signs inside one another."""
    max_odds_work: int = 150_000
    """Steps of exact odds (one state meeting one outcome); counted before each step is
    taken, so `odds` refuses before it runs long (about 2 s and well under 200 MB here)."""

    def __post_init__(self) -> None:
        for name in ("max_length", "max_dice", "max_sides", "max_nesting", "max_odds_work"):
            _check_whole(name, getattr(self, name), 1)
        _check_whole("max_explode_depth", self.max_explode_depth, 0)
        if self.max_length > LENGTH_CEILING:
            raise RuleError(f"max_length must be at most {LENGTH_CEILING}, got {self.max_length!r}")


def _check_whole(name: str, value: object, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise RuleError(f"{name} must be a whole number >= {least}, got {value!r}")


DEFAULT_LIMITS = Limits()
"""The limits used when none are given."""
