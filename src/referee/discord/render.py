"""Stored events as the lines a chat fighter expects: the host line first, then the reading.

Shown, not decided: every line is made from recorded ledger events, in the words of
`referee.sentences` (the one renderer); a roll is the host's line with its receipt.

>>> lines = lines_for([
...     {"type": "action", "actor": "Tarl", "payload": {"kind": "attack"}},
...     {"type": "roll", "actor": "system",
...      "payload": {"faces": [47], "dice": ["d100"], "nonce": 3}},
...     {"type": "outcome", "actor": "system",
...      "payload": {"kind": "attack", "summary": "Tarl attacks Pa-Kur: 47 vs CS 65: hit"}},
...     {"type": "wound", "actor": "system",
...      "payload": {"target": "Pa-Kur", "amount": 4, "total": 4}},
...     {"type": "turn", "actor": "system", "payload": {"fighter": "Pa-Kur", "round": 1}},
... ], "msv")
>>> for line in lines:
...     print(line)
OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 3)
Tarl attacks Pa-Kur: 47 vs CS 65: hit
Pa-Kur takes 4 damage (4 in all)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.payloads import events as p
from referee.sentences import (
    QUIET_STATS,
    explanation,
    initiative_readings,
    roll_line,
    sentence,
    who,
)
from referee.service.signing import ServiceKey
from referee.vocabulary import EventType

#: How a roll line gets its signature: (who is shown rolling, the roll's payload) -> the
#: signature as the line carries it (None: unsigned).
Sign = Callable[[str, Mapping[str, Any]], str | None]


def _unsigned(roller: str, payload: Mapping[str, Any]) -> str | None:
    return None


def signer(key: ServiceKey, bout: str) -> Sign:
    """The signatures of one bout's (or table ledger's) roll lines in a channel: the service's
    (`referee.ledger.signatures`). The bot's markdown escapes (`messages.escape_markdown`)
    keep Discord from reading a `_` of the base64url as italics; the channel shows the
    signature as it is, and a line a member pastes again carries it too: its signature says
    it is the service's whoever posts it (docs/judge.md, "Signed roll lines")."""

    def sign(roller: str, payload: Mapping[str, Any]) -> str | None:
        return key.sign(bout, roller, payload)

    return sign


#: Events the channel does not say: an action shows as its rolls and outcome, whose turn it is
#: the desk says itself (from the state), the bout and its fighters are its own messages, and
#: a fighter's position and facing are the map's.
SILENT = frozenset({EventType.ACTION, EventType.TURN, EventType.BOUT_OPENED,
                    EventType.FIGHTER_ADDED, EventType.SEED_ROTATED,
                    EventType.CLIENT_SEED_FIXED})  # fmt: skip


def lines_for(
    records: Sequence[Mapping[str, Any]], system: str, sign: Sign = _unsigned
) -> list[str]:
    """The lines for the events one command stored, each roll signed by `sign`."""
    lines: list[str] = []
    actor, initiative = "", False
    pending: list[Mapping[str, Any]] = []
    for record in records:
        kind = record["type"]
        payload: Mapping[str, Any] = record.get("payload") or {}
        if kind == EventType.ACTION:
            actor, initiative = str(record["actor"]), p.Action.read(payload).kind == "initiative"
        elif kind == EventType.ROLL and initiative:
            pending.append(payload)
        elif kind == EventType.ROLL:
            lines.append(roll_line(who(actor), payload, sign(who(actor), payload)))
        elif kind == EventType.INITIATIVE:
            lines += _initiative(pending, p.Initiative.read(payload).detail, system, sign)
            initiative, pending = False, []
        if kind in SILENT or (kind == EventType.STAT and p.Stat.read(payload).key in QUIET_STATS):
            continue
        if kind != EventType.ROLL:
            lines.append(sentence(record, system))
        if kind == EventType.OUTCOME:
            outcome = p.Outcome.read(payload)
            lines += [f"  {line}" for line in explanation(record, system)]
            if outcome.extra_action:
                lines.append(f"Critical! {outcome.actor} makes a free attack at once.")
    return lines


def _initiative(
    rolls: Sequence[Mapping[str, Any]], detail: Mapping[str, Any], system: str, sign: Sign
) -> list[str]:
    """Each initiative roll as the host's line with its receipt, and how it reads."""
    lines: list[str] = []
    readings = iter(initiative_readings(detail, system))
    thrown = iter(rolls)
    for roller, reading in readings:
        roll = next(thrown, None) if roller else None
        if roll is not None:
            lines.append(roll_line(roller, roll, sign(roller, roll)))
        lines.append(f"  {reading}")
    return lines
