"""Events: the only thing a bout is made of. State is a fold of them (`referee.bout.fold`).

An event here is what happened; the ledger adds `seq`, `at`, `prev` and `hash` around it.
Payloads are JSON without floats (they are hashed as canonical JSON).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.errors import RuleError
from referee.vocabulary import JSON, EventType

__all__ = ["Event", "EventType", "to_json"]


@dataclass(frozen=True, slots=True)
class Event:
    """One event: its type, who caused it ("referee", a fighter's name, or "system"), payload."""

    type: str
    actor: str
    payload: dict[str, JSON]

    def to_dict(self) -> dict[str, JSON]:
        """The event as the ledger chains it (before `seq`, `at`, `prev`, `hash`)."""
        return {"type": self.type, "actor": self.actor, "payload": self.payload}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        """Read an event back from a ledger record (extra ledger keys are ignored)."""
        payload = data.get("payload")
        if not isinstance(payload, dict):
            raise RuleError(f"event {data.get('seq')!r} has no payload object")
        return cls(str(data["type"]), str(data.get("actor") or ""), payload)


#: Text, whole numbers, booleans: JSON as they are (by exact type, tested first: the commonest).
_SCALARS = frozenset({str, int, bool})


def to_json(value: Any, where: str = "value") -> JSON:
    """Check that `value` is JSON an event may hold (no floats, string keys); return it as such.

    >>> to_json({"target": "Tarl", "rounds": 2})
    {'target': 'Tarl', 'rounds': 2}
    >>> to_json(1.5)
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: value must not be a fraction (got 1.5): events hold whole numbers
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        raise RuleError(
            f"{where} must not be a fraction (got {value!r}): events hold whole numbers"
        )
    if isinstance(value, list | tuple):
        return [to_json(v, where) for v in value]
    if isinstance(value, Mapping):
        out: dict[str, JSON] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise RuleError(f"{where} has a non-text key {k!r}")
            # a scalar (the common value) as it is, without the call and its `where`
            out[k] = v if type(v) in _SCALARS else to_json(v, f"{where}.{k}")
        return out
    raise RuleError(f"{where} cannot be stored in an event (got {type(value).__name__})")
