"""A bout's export as an AOL-style chat transcript with the service's receipts.

Each roll is the host's line with its receipt (`OnlineHost: Tarl rolled 1 100-sided die: 47
(nonce 2)`; a roll from another stream than the roller's actions names it, `(nonce 0,
free:Tarl)`), each consequence a line said by `Referee` in the words of `referee.sentences`,
the commitments in force (at the start and after each rotation) among them, every line
time-stamped `[hh:mm:ss]` (UTC) from its event. `referee judge --export` decides such a
transcript back to the bout's verdict with no anomaly. The web console's "Copy as chat"
(static/js/transcript.js) writes the same lines.

>>> events = [
...     {"type": "fighter_added", "actor": "referee", "at": "2026-11-29T21:03:00.000000Z",
...      "payload": {"name": "Tarl", "stats": {"cs": 65}}},
...     {"type": "fighter_added", "actor": "referee", "at": "2026-11-29T21:03:01.000000Z",
...      "payload": {"name": "PaKur", "stats": {"cs": 70}}},
...     {"type": "action", "actor": "Tarl", "at": "2026-11-29T21:04:12.000000Z",
...      "payload": {"kind": "attack"}},
...     {"type": "roll", "actor": "system", "at": "2026-11-29T21:04:12.000000Z",
...      "payload": {"nonce": 2, "dice": ["d100"], "faces": [47]}}]
>>> bout_as_chat({"bout": {"name": "Spar", "id": "b1"}, "events": events})[-1]
'[21:04:12] OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 2)'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from referee.transcripts.receipts import REFEREE_NAME
from referee.vocabulary import EventType

if TYPE_CHECKING:
    from referee.payloads import events as p

# The ledger, the event payloads' shapes and the sentences are loaded by the functions that
# write a bout (`referee.transcripts` names `bout_as_chat`, and a judge does not write one).

Event = Mapping[str, Any]

#: Events the transcript does not say in the referee's words: an action shows as its rolls'
#: host lines, the bout and its fighters as the announcement.
SILENT = frozenset({EventType.ACTION, EventType.ROLL, EventType.BOUT_OPENED,
                    EventType.FIGHTER_ADDED})  # fmt: skip


def _stamp(event: Event) -> str:
    at = str(event.get("at") or "")
    return f"[{at[11:19]}] " if len(at) >= 19 and at[13] == ":" else ""


def _cs(added: p.FighterAdded) -> str:
    cs = (added.stats or {}).get("cs")
    return f"CS {cs}" if isinstance(cs, int) and not isinstance(cs, bool) else "CS hidden"


def _announcement(events: Sequence[Event]) -> str:
    from referee.payloads import events as p

    fighters = [
        p.FighterAdded.read(e.get("payload") or {})
        for e in events
        if e.get("type") == EventType.FIGHTER_ADDED
    ]
    named = [f"{f.name} ({_cs(f)})" for f in fighters]
    sides: dict[str, list[str]] = {}
    for added, shown in zip(fighters, named, strict=True):
        sides.setdefault(str(added.side or added.name), []).append(shown)
    if len(sides) < len(named):  # teams: each side named, its fighters joined by '&'
        return "Spar: " + " vs ".join(f"Team {s}: {' & '.join(f)}" for s, f in sides.items())
    if len(named) == 2:
        return f"Spar between {named[0]} and {named[1]}"
    return "Spar between " + ", ".join(named)


def _said(text: str) -> str:
    return f"{REFEREE_NAME}: {text}"


def bout_as_chat(doc: Mapping[str, Any]) -> list[str]:
    """The transcript of an export document: one announcement, then every event that chat
    would show, in order (see the module text)."""
    from referee.ledger.record import opened_events
    from referee.payloads import events as p
    from referee.sentences import roll_line, sentence, who

    events: Sequence[Event] = [e for e in opened_events(doc) if isinstance(e, Mapping)]
    first_event = next((e for e in events if e.get("type") == EventType.BOUT_OPENED), None)
    opened = p.BoutOpened.read(first_event["payload"]) if first_event else None
    name = opened.name if opened else (doc.get("bout") or {}).get("name")
    system = opened.system if opened else None
    first = _stamp(events[0]) if events else ""
    about = f"{name}: every roll has its receipt (nonce); judge it with referee judge --export"
    lines = [f"{first}{_said(_announcement(events))}", f"{first}{_said(about)}"]
    if opened and opened.commitment:
        commitment = f"commitment {opened.commitment} (published before any roll)"
        lines.append(f"{first}{_said(commitment)}")
    actor, initiative = "", False
    pending: list[Event] = []
    for event in events:
        kind = event.get("type")
        if kind == EventType.ACTION:
            action = p.Action.read(event.get("payload") or {})
            actor, initiative = str(event.get("actor")), action.kind == "initiative"
            pending = []
        elif kind == EventType.ROLL and initiative:
            pending.append(event)
        elif kind == EventType.ROLL:
            lines.append(f"{_stamp(event)}{roll_line(who(actor), event.get('payload') or {})}")
        elif kind == EventType.INITIATIVE:
            lines += _initiative_lines(pending, event.get("payload") or {}, system)
            initiative, pending = False, []
        if kind not in SILENT:
            lines.append(f"{_stamp(event)}{_said(sentence(event, system))}")
    return lines


def _initiative_lines(
    rolls: Sequence[Event], payload: Mapping[str, Any], system: str | None
) -> list[str]:
    """The initiative's rolls named by its detail (rolling order), with each reading."""
    from referee.payloads import events as p
    from referee.sentences import initiative_readings, roll_line

    detail = p.Initiative.read(payload).detail
    named = [(n, reading) for n, reading in initiative_readings(detail, system) if n]
    lines = []
    for event, (roller, reading) in zip(rolls, named, strict=False):
        lines.append(f"{_stamp(event)}{roll_line(roller, event.get('payload') or {})}")
        lines.append(f"{_stamp(event)}{_said(reading)}")
    return lines
