"""Rule systems (MSV, SRP) behind one protocol and one registry."""

from referee.systems.base import (
    JSON,
    ConditionChange,
    Initiative,
    Outcome,
    RuleSystem,
    StatChange,
    Wound,
    find_system,
    register,
    system_names,
)

__all__ = [
    "JSON",
    "ConditionChange",
    "Initiative",
    "Outcome",
    "RuleSystem",
    "StatChange",
    "Wound",
    "find_system",
    "register",
    "system_names",
]
