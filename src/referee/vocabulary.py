"""The words every part of the referee shares: JSON, the event types, and `Problem`.

The bottom of the package: it imports nothing from the referee, and the bout engine, the
ledger, the service and the browser verifier's tests all read these names from here, so an
event type or a problem is spelt in one place only.

- `JSON`: a value as events carry it (no floats: events are hashed as canonical JSON).
- `EventType`: every kind of event the bout engine writes; `EVENT_TYPES` the same as data,
  in order (static/js/vocabulary.js spells the same `EventType` for the console and the
  browser verifier, and a test checks it does; a test also fails on an event type compared
  as a bare string anywhere else, tests/test_event_type_names.py).
- `Problem`: one thing in a ledger that does not check out, named by the event where it
  shows; the verifier, the header checks and the rules replay all report these.

>>> EventType.ROLL == "roll" and "roll" in EVENT_TYPES
True
>>> str(Problem(7, "roll", "face 14 does not match the seed (expected 3)", "faces"))
'event 7 (roll): face 14 does not match the seed (expected 3)'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

#: A JSON value as events carry it. No floats: events are hashed as canonical JSON.
JSON = None | bool | int | str | list["JSON"] | dict[str, "JSON"]


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
    CLIENT_SEED_FIXED = "client_seed_fixed"
    """The client seed, whole (the referee's part, then each fighter's in join order), fixed
    before the bout's first roll: every face after it is made from this very text."""
    ACTION = "action"
    """Opens a group of events caused by one command that rolls dice: who, what, options."""
    ROLL = "roll"
    """One throw of dice: nonce (verifiable source) or null, dice names, faces."""
    INITIATIVE = "initiative"
    """The turn order was settled, with every roll recorded in `detail`."""
    OUTCOME = "outcome"
    """How the rules read the action's dice: the system's interpretation and a summary line."""
    FAILED = "failed"
    """The action's dice were thrown and recorded, then it could not be settled: `error` says
    why. Nothing else changes; the faces stay spent (no answer ever shows a face unrecorded)."""
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
    JOINING_CLOSED = "joining_closed"
    """The referee closed the bout to joiners: no fighter may join it any more (OnlineHost's
    close); the referee may still add one."""
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
    TIME_PASSED = "time_passed"
    """Play time passed (the evening's clock, in minutes, never the wall clock): the referee's
    rest, with its reason; `clock` is the evening's minute after it."""


#: Every event type's name, in the order `EventType` declares them.
EVENT_TYPES: tuple[str, ...] = tuple(t.value for t in EventType)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing that does not check out, named by the event where it shows.

    `seq` and `type` name the event (None for the export as a whole); `check` says which
    check found it: "format", "chain", "commitment", "faces", "nonce", "time", "header",
    "complete" or "rules".

    >>> str(Problem(None, None, "commitment does not match", "commitment"))
    'fairness: commitment does not match'
    """

    seq: int | None
    type: str | None
    message: str
    check: str = "rules"

    def __str__(self) -> str:
        if self.seq is None:
            where = "fairness" if self.check in ("commitment", "faces") else "export"
            return f"{where}: {self.message}"
        return f"event {self.seq} ({self.type}): {self.message}"

    def as_json(self) -> dict[str, Any]:
        """The problem as a JSON object (for `--json` reports).

        >>> Problem(3, "roll", "bad", "faces").as_json()["text"]
        'event 3 (roll): bad'
        """
        return {
            "seq": self.seq,
            "type": self.type,
            "check": self.check,
            "message": self.message,
            "text": str(self),
        }
