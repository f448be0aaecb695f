"""The answer to one action: its outcome's reading, its rolls and what followed (`action_answer`),
or why it failed after its dice were thrown (`failure_of`).

>>> failure_of([{"seq": 3, "type": "failed", "payload": {"error": "no target"}}])
'no target'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.bout.events import EventType
from referee.payloads import events as p
from referee.service.states import Record


def failure_of(events: Sequence[Record]) -> str | None:
    """Why a command failed after its dice were thrown (its `failed` event), or None.

    Such a command answers like one that worked (its rolls stored, status 200) and says so
    here: a 4xx answer means that nothing changed.
    """
    for e in events:
        if e["type"] == EventType.FAILED:
            return p.Failed.read(e["payload"]).error
    return None


def action_answer(events: Sequence[Record]) -> dict[str, Any]:
    """The answer to one action: its outcome's reading, the rolls and what followed (or why
    it failed after its dice were thrown: `failed`)."""
    # One pass over the events (an answer is made for every action), then the answer's keys
    # in their order: the outcome's, failed, rolls, events, seq, next and winner (in the order
    # of their first events; the last event of each says), roll.
    outcome: Record | None = None
    failed: Record | None = None
    rolls: list[Any] = []
    listed: list[dict[str, Any]] = []
    last: dict[str, Record] = {}
    for e in events:
        kind = e["type"]
        listed.append({"seq": e["seq"], "type": kind})
        if kind == _ROLL:
            rolls.append(e["payload"])
        elif kind == _OUTCOME:
            outcome = outcome or e
        elif kind == _FAILED:
            failed = failed or e
        elif kind == _TURN:
            last["next"] = e
        elif kind == _ENDED:
            last["winner"] = e
    answer: dict[str, Any] = dict(outcome["payload"]) if outcome else {}
    if failed is not None:
        answer["failed"] = p.Failed.read(failed["payload"]).error
    answer["rolls"] = rolls
    answer["events"] = listed
    if outcome:
        answer["seq"] = outcome["seq"]
    for key, e in last.items():
        if key == "next":
            answer["next"] = p.Turn.read(e["payload"]).fighter
        else:
            answer["winner"] = p.Ended.read(e["payload"]).winner
    first = p.Roll.read(rolls[0]) if rolls else None
    if first is not None and "roll" not in answer and len(first.faces) == 1:
        answer["roll"] = first.faces[0]
    return answer


#: The event types `action_answer` looks at, read once.
_ROLL, _OUTCOME, _FAILED = EventType.ROLL, EventType.OUTCOME, EventType.FAILED


_TURN, _ENDED = EventType.TURN, EventType.ENDED
