"""Events: the only thing a bout is made of. State is a fold of them (`referee.bout.fold`).

An event here is what happened; the ledger adds `seq`, `at`, `prev` and `hash` around it.
Payloads are JSON without floats (they are hashed as canonical JSON).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.errors import RuleError
from referee.systems.base import JSON


class EventType(enum.StrEnum):
    """Every kind of event the bout engine writes."""

    BOUT_OPENED = "bout_opened"
    """The bout exists: system, name, rule pack."""
    FIGHTER_ADDED = "fighter_added"
    """A fighter joined (or the referee added one): name, side, stats, hidden stat keys."""
    FIGHTER_UPDATED = "fighter_updated"
    """The referee changed a fighter's stats or wounds."""
    FIGHTER_REMOVED = "fighter_removed"
    """A fighter left or was removed; it no longer acts or counts for its side."""
    REVEALED = "revealed"
    """The referee revealed hidden stats of a fighter (SRP-10)."""
    ACTION = "action"
    """Opens a group of events caused by one command that rolls dice: who, what, options."""
    ROLL = "roll"
    """One throw of dice: nonce (verifiable source) or null, dice names, faces."""
    INITIATIVE = "initiative"
    """The turn order was settled, with every roll recorded in `detail`."""
    OUTCOME = "outcome"
    """How the rules read the action's dice: the system's interpretation and a summary line."""
    WOUND = "wound"
    """A fighter took damage (MSV damage points, SRP hits); `total` after it."""
    CONDITION = "condition"
    """A condition set on a fighter for `rounds` of its turns (null: until cleared; 0: cleared)."""
    STAT = "stat"
    """One stat of a fighter changed (position, facing, mounted, PM, ...)."""
    DEFEATED = "defeated"
    """A fighter reached its defeat threshold (or was revived, `defeated: false`)."""
    TURN = "turn"
    """Whose action it is now, and the round number."""
    SKIPPED = "skipped"
    """A fighter's turn passed without an action (referee skip, or a condition)."""
    PAUSED = "paused"
    """The referee paused the bout."""
    RESUMED = "resumed"
    """The referee resumed the bout."""
    OVERRIDDEN = "overridden"
    """The referee replaced an outcome's wounds (SRP-20); the original stays in the log."""
    VOIDED = "voided"
    """The referee voided the events `from`..`to` (an undo); state is re-derived without them."""
    ENDED = "ended"
    """The bout is over: the winning side (or null) and why."""
    CANCELLED = "cancelled"
    """The referee called the bout off."""
    REFEREE_CHANGED = "referee_changed"
    """The bout was handed to another referee."""
    SEED_ROTATED = "seed_rotated"
    """The server seed was revealed and replaced by a new committed one."""
    CLOSED = "closed"
    """The bout was closed and its server seed revealed."""


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
            out[k] = to_json(v, f"{where}.{k}")
        return out
    raise RuleError(f"{where} cannot be stored in an event (got {type(value).__name__})")
