"""A bout's export as an AOL-style chat transcript with the service's receipts.

Each roll is the host's line with its receipt (`OnlineHost: Tarl rolled 1 100-sided die: 47
(nonce 2)`; a roll from another stream than the roller's actions names it, `(nonce 0,
free:Tarl)`), each consequence a line said by `Referee`, the commitments in force (at the
start and after each rotation) among them, every line time-stamped `[hh:mm:ss]` (UTC) from
its event. `referee judge --export` decides such a transcript back to the bout's
verdict with no anomaly. The web console's "Copy as chat" (static/js/transcript.js) writes
the same lines.

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

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.transcripts.receipts import REFEREE_NAME

Event = Mapping[str, Any]


def _stamp(event: Event) -> str:
    at = str(event.get("at") or "")
    return f"[{at[11:19]}] " if len(at) >= 19 and at[13] == ":" else ""


def _host(name: str, payload: Mapping[str, Any]) -> str:
    dice = [str(d) for d in payload.get("dice") or []]
    faces = " ".join(str(f) for f in payload.get("faces") or [])
    sides = dice[0].lstrip("d") if dice else "?"
    noun = "die" if len(dice) == 1 else "dice"
    nonce, stream = payload.get("nonce"), payload.get("stream")
    named = f", {stream}" if stream and stream != f"act:{name}" else ""
    receipt = f" (nonce {nonce}{named})" if nonce is not None else ""
    return f"OnlineHost: {name} rolled {len(dice)} {sides}-sided {noun}: {faces}{receipt}"


def _cs(payload: Mapping[str, Any]) -> str:
    cs = (payload.get("stats") or {}).get("cs")
    return f"CS {cs}" if isinstance(cs, int) and not isinstance(cs, bool) else "CS hidden"


def _announcement(events: Sequence[Event]) -> str:
    fighters = [e["payload"] for e in events if e.get("type") == "fighter_added"]
    named = [f"{p.get('name')} ({_cs(p)})" for p in fighters]
    sides: dict[str, list[str]] = {}
    for payload, shown in zip(fighters, named, strict=True):
        sides.setdefault(str(payload.get("side") or payload.get("name")), []).append(shown)
    if len(sides) < len(named):  # teams: each side named, its fighters joined by '&'
        return "Spar: " + " vs ".join(f"Team {s}: {' & '.join(f)}" for s, f in sides.items())
    if len(named) == 2:
        return f"Spar between {named[0]} and {named[1]}"
    return "Spar between " + ", ".join(named)


def _said(text: str) -> str:
    return f"{REFEREE_NAME}: {text}"


_SAYINGS: dict[str, Callable[[Mapping[str, Any]], str | None]] = {
    "initiative": lambda p: f"Order: {', '.join(p.get('order') or [])}",
    "outcome": lambda p: str(p.get("summary")) if p.get("summary") else None,
    "wound": lambda p: f"{p.get('target')}: {p.get('total')} damage taken",
    "defeated": lambda p: f"{p.get('name')} is defeated" if p.get("defeated") else None,
    "turn": lambda p: f"Round {p.get('round')}: {p.get('fighter')}'s turn",
    "voided": lambda p: f"voids events {p.get('from')}..{p.get('to')}",
    "ended": lambda p: f"Result: {p.get('winner') or 'no winner'} ({p.get('reason')})",
    "cancelled": lambda p: f"the bout is called off ({p.get('reason')})",
    "seed_rotated": lambda p: (
        f"server seed {int(p.get('index', 1)) - 1} revealed, nonces from 0; "
        f"commitment {p.get('next_commitment')}"
    ),
    "closed": lambda p: f"bout closed, server seed {p.get('server_seed')}",
}


def bout_as_chat(doc: Mapping[str, Any]) -> list[str]:
    """The transcript of an export document: one announcement, then every event that chat
    would show, in order (see the module text)."""
    events: Sequence[Event] = [e for e in doc.get("events") or [] if isinstance(e, Mapping)]
    opened = next((e.get("payload") or {} for e in events if e.get("type") == "bout_opened"), {})
    name = opened.get("name") or (doc.get("bout") or {}).get("name")
    first = _stamp(events[0]) if events else ""
    about = f"{name}: every roll has its receipt (nonce); judge it with referee judge --export"
    lines = [f"{first}{_said(_announcement(events))}", f"{first}{_said(about)}"]
    commitment = opened.get("commitment")
    if commitment:
        lines.append(f"{first}{_said(f'commitment {commitment} (published before any roll)')}")
    actor, initiative = "", False
    pending: list[Event] = []
    for event in events:
        kind, payload = event.get("type"), event.get("payload") or {}
        if kind == "action":
            actor, initiative = str(event.get("actor")), payload.get("kind") == "initiative"
            pending = []
        elif kind == "roll" and initiative:
            pending.append(event)
        elif kind == "roll":
            name = REFEREE_NAME if actor == "referee" else actor
            lines.append(f"{_stamp(event)}{_host(name, payload)}")
        elif kind == "initiative":
            lines += _initiative_lines(pending, payload)
            initiative, pending = False, []
        saying = _SAYINGS.get(str(kind))
        text = saying(payload) if saying else None
        if text:
            lines.append(f"{_stamp(event)}{_said(text)}")
    return lines


def _initiative_lines(rolls: Sequence[Event], payload: Mapping[str, Any]) -> list[str]:
    """The initiative's rolls named by its detail (rolling order), with each reading."""
    detail = payload.get("detail") or {}
    named = [r for rnd in detail.get("rounds") or [] for r in rnd.get("rolls") or []]
    lines = []
    for event, record in zip(rolls, named, strict=False):
        lines.append(f"{_stamp(event)}{_host(str(record.get('name')), event.get('payload') or {})}")
        reading = (
            f"{record.get('name')}: {record.get('roll')} vs CS {record.get('cs')}, "
            f"effect {record.get('effect')}"
        )
        lines.append(f"{_stamp(event)}{_said(reading)}")
    return lines
