"""Rule systems (MSV, SRP) behind one protocol and one registry.

The protocol's names are loaded when first asked for (PEP 562): the protocol module reads
the event payloads' shapes, which a caller of one system's rules alone (the judge's
`referee.systems.msv.rules`) does without.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'referee.systems' has no attribute {name!r}")
    from referee.systems import base

    value = getattr(base, name)
    globals()[name] = value
    return value
