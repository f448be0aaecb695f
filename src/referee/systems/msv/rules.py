"""The MSV rule pack: every *(option)* of RULINGS.md MSV-1..MSV-10 as one frozen value.

A pack is a flat TOML table; `default.toml` (shipped next to this module) is the text's
reading. Loading checks every key, type and value and names the key that is wrong.

>>> rules = default_rules()
>>> (rules.band_width, rules.damage_cap, rules.critical_effect.value)
(15, 4, 'stun-free-attack')
>>> rules_from_mapping({"damage_cap": 3}).damage_cap
3
"""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from referee.errors import RulePackError

#: Upper bounds that keep every loop over damage or states small (DESIGN: budgets).
MAX_BAND_WIDTH = 100
MAX_DAMAGE = 100
MAX_THRESHOLD = 100


class CriticalEffect(enum.Enum):
    """What a critical (a successful roll ending in 0) does (MSV-4)."""

    STUN_FREE_ATTACK = "stun-free-attack"
    """The text: the foe is stunned and the attacker makes a free attack at once."""
    NONE = "none"
    """A critical is an ordinary hit."""
    EXTRA_DAMAGE = "extra-damage"
    """The hit does `critical_extra_damage` more damage; no free attack."""


class TieBreak(enum.Enum):
    """How a group tied on initiative is settled (MSV-5)."""

    REROLL = "reroll"
    """The text: the tied fighters roll again among themselves."""
    HIGHER_RAW_ROLL = "higher-raw-roll"
    """Among successful rolls the higher raw roll goes first; only exact ties reroll."""


@dataclass(frozen=True, slots=True)
class MsvRules:
    """One reading of MSV; the defaults are the text's (RULINGS.md).

    >>> MsvRules().to_json()["defeat_threshold"]
    15
    """

    band_width: int = 15  # MSV-3
    damage_cap: int = 4  # MSV-3
    critical_effect: CriticalEffect = CriticalEffect.STUN_FREE_ATTACK  # MSV-4
    critical_extra_damage: int = 1  # MSV-4 (used by extra-damage only)
    tie_break: TieBreak = TieBreak.REROLL  # MSV-5
    defeat_threshold: int = 15  # MSV-7

    def to_json(self) -> dict[str, int | str]:
        """The pack as a JSON object with no floats (events are hashed as canonical JSON).

        >>> sorted(MsvRules().to_json())[:2]
        ['band_width', 'critical_effect']
        """
        return {
            "band_width": self.band_width,
            "damage_cap": self.damage_cap,
            "critical_effect": self.critical_effect.value,
            "critical_extra_damage": self.critical_extra_damage,
            "tie_break": self.tie_break.value,
            "defeat_threshold": self.defeat_threshold,
        }

    def without_criticals(self) -> MsvRules:
        """The same pack with critical effect "none" (for with/without comparisons).

        >>> MsvRules().without_criticals().critical_effect.value
        'none'
        """
        return replace(self, critical_effect=CriticalEffect.NONE)

    @property
    def free_attacks(self) -> bool:
        """Whether a critical gives a free attack (MSV-4 as the text reads).

        >>> MsvRules().free_attacks
        True
        """
        return self.critical_effect is CriticalEffect.STUN_FREE_ATTACK


_INT_BOUNDS: dict[str, tuple[int, int]] = {
    "band_width": (1, MAX_BAND_WIDTH),
    "damage_cap": (1, MAX_DAMAGE),
    "critical_extra_damage": (1, MAX_DAMAGE),
    "defeat_threshold": (1, MAX_THRESHOLD),
}
_ENUMS: dict[str, type[enum.Enum]] = {
    "critical_effect": CriticalEffect,
    "tie_break": TieBreak,
}
KNOWN_KEYS: tuple[str, ...] = tuple(MsvRules().to_json())


def _check_int(key: str, value: Any, source: str) -> int:
    low, high = _INT_BOUNDS[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulePackError(
            f"key {key!r} in rule pack {source!r} must be a whole number, got {value!r}"
        )
    if not low <= value <= high:
        raise RulePackError(
            f"key {key!r} in rule pack {source!r} must be in {low}..{high}, got {value!r}"
        )
    return value


def _check_enum(key: str, value: Any, source: str) -> enum.Enum:
    kind = _ENUMS[key]
    allowed = [member.value for member in kind]
    if value not in allowed or not isinstance(value, str):
        raise RulePackError(
            f"key {key!r} in rule pack {source!r} must be one of "
            f"{', '.join(repr(a) for a in allowed)}, got {value!r}"
        )
    return kind(value)


def rules_from_mapping(data: Mapping[str, Any], source: str = "<rules>") -> MsvRules:
    """Validate a pack (as read from TOML); keys left out keep the text's value.

    >>> rules_from_mapping({"tie_break": "higher-raw-roll"}).tie_break.value
    'higher-raw-roll'
    >>> rules_from_mapping({"dmg_cap": 3}, "x.toml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.RulePackError: unknown key 'dmg_cap' in rule pack 'x.toml' (known: ...)
    """
    if not isinstance(data, Mapping):
        raise RulePackError(f"rule pack {source!r} must be a table of keys, got {data!r}")
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in _INT_BOUNDS:
            values[key] = _check_int(key, value, source)
        elif key in _ENUMS:
            values[key] = _check_enum(key, value, source)
        else:
            raise RulePackError(
                f"unknown key {key!r} in rule pack {source!r} (known: {', '.join(KNOWN_KEYS)})"
            )
    return MsvRules(**values)


def load_rules(path: str | Path | None = None) -> MsvRules:
    """Read a TOML rule pack from `path` (None: the shipped default pack).

    >>> load_rules() == MsvRules()
    True
    """
    if path is None:
        return default_rules()
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise RulePackError(f"cannot read rule pack {name!r}: {err.strerror}") from None
    return rules_from_text(text, name)


def rules_from_text(text: str, source: str = "<rules>") -> MsvRules:
    """Parse TOML text and validate it as a pack.

    >>> rules_from_text("defeat_threshold = 20").defeat_threshold
    20
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RulePackError(f"rule pack {source!r} is not valid TOML: {err}") from None
    return rules_from_mapping(data, source)


@cache
def default_rules() -> MsvRules:
    """The shipped default pack, `default.toml` (the text's reading).

    >>> default_rules().tie_break.value
    'reroll'
    """
    text = resources.files("referee.systems.msv").joinpath("default.toml").read_text("utf-8")
    return rules_from_text(text, "default.toml")
