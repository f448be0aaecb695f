"""The SRP rule-pack options: every *(option)* of RULINGS.md, with its default.

A rule pack is a TOML table (or any mapping) of these keys; unknown keys and wrong
types are a `RulePackError` naming the key.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from referee.errors import RulePackError


class Challenge(enum.Enum):
    """How a challenge total must compare with the challenge number (SRP-3)."""

    AT_LEAST = ">="
    """The total reaches the number (the default)."""
    ABOVE = ">"
    """The total must be strictly above the number."""


class Down(enum.Enum):
    """What "down" means for a fighter's hits (SRP-9)."""

    REACH = "reach"
    """Down when the hits taken reach the hit total (the default)."""
    EXCEED = "exceed"
    """Down only when the hits taken exceed the hit total."""


class TurnOrder(enum.Enum):
    """Who acts first in a fight: campaign data, not in the texts (SRP-19)."""

    LISTED = "listed"
    """The referee fixes the order: fighters act in the order they are listed (the default)."""
    ROLL = "roll"
    """Pack option: each fighter rolls d20 + its sheet's `initiative`; highest first, ties
    keep the listed order."""


@dataclass(frozen=True, slots=True)
class SrpRules:
    """The switchable readings of the SRP text, defaults as RULINGS.md states them.

    >>> SrpRules().defense_twenty_fails, SrpRules().challenge.value
    (True, '>=')
    """

    defense_twenty_fails: bool = True
    """SRP-5: a defense roll of 20 is a failure whatever the skill."""
    shield_keeps_level: bool = False
    """SRP-7: a successful shield defense lets the attack through at its own level."""
    challenge: Challenge = Challenge.AT_LEAST
    """SRP-3: `>=` or `>`."""
    down: Down = Down.REACH
    """SRP-9: what "down" means."""
    turn_order: TurnOrder = TurnOrder.LISTED
    """SRP-19: fixed by the referee, or rolled."""
    pavise_ap: int = 0
    """SRP-11: a pavise's melee AP (none unless a pack gives one)."""
    charge_any_zone: bool = False
    """SRP-15: the text's "similar rule": one may charge through any zone, not only expanded."""

    def is_down(self, hits: int, hit_total: int) -> bool:
        """Whether a fighter with `hits` taken of `hit_total` is down (SRP-9).

        >>> SrpRules().is_down(10, 10), SrpRules(down=Down.EXCEED).is_down(10, 10)
        (True, False)
        """
        return hits >= hit_total if self.down is Down.REACH else hits > hit_total

    def challenge_met(self, total: int, target: int) -> bool:
        """Whether a challenge total meets the challenge number (SRP-3).

        >>> strict = SrpRules(challenge=Challenge.ABOVE)
        >>> SrpRules().challenge_met(12, 12), strict.challenge_met(12, 12)
        (True, False)
        """
        return total >= target if self.challenge is Challenge.AT_LEAST else total > target

    def as_dict(self) -> dict[str, bool | int | str]:
        """The options as plain JSON values (enums by value).

        >>> SrpRules().as_dict()["down"]
        'reach'
        """
        out: dict[str, bool | int | str] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            out[item.name] = value.value if isinstance(value, enum.Enum) else value
        return out


def load_rules(data: Mapping[str, Any], where: str = "srp") -> SrpRules:
    """Validate a rule pack mapping; RulePackError names the bad key.

    >>> load_rules({"challenge": ">"}).challenge
    <Challenge.ABOVE: '>'>
    """
    defaults = SrpRules()
    known = {item.name for item in fields(SrpRules)}
    values: dict[str, Any] = {}
    for key, raw in data.items():
        if key not in known:
            raise RulePackError(
                f"unknown key {where}.{key} (expected one of: {', '.join(sorted(known))})"
            )
        values[key] = _option(f"{where}.{key}", raw, getattr(defaults, key))
    return SrpRules(**values)


def _option(name: str, raw: Any, default: Any) -> Any:
    if isinstance(default, enum.Enum):
        choices = type(default)
        try:
            return choices(raw)
        except ValueError:
            allowed = ", ".join(repr(c.value) for c in choices)
            raise RulePackError(f"{name} = {raw!r} is not allowed (expected {allowed})") from None
    if isinstance(default, bool):
        if not isinstance(raw, bool):
            raise RulePackError(f"{name} = {raw!r} is not true or false")
        return raw
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise RulePackError(f"{name} = {raw!r} is not a whole number >= 0")
    return raw


#: The rulings' defaults, shared (SrpRules is frozen).
DEFAULT_RULES = SrpRules()
