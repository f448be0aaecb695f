"""The referee's rulings in a chain: what a person decided, as against what the dice did.

Verification checks the rules (every rolled outcome follows from its dice); a ruling is the
other kind of decision, one the referee made by hand and the ledger records as such: a
declared winner, an override of an outcome's wounds (SRP-20), a void, a circumstance modifier
or a defense chosen by the referee, a change to a fighter, a skipped turn, a cancelled bout.
Every seed rotation is listed too, whoever made it (the referee's `rotate-seed`, or the service's
own rotation after so many rolls, actor "system"): a rotation throws away the rolls the old
seed would have given next, so who rotated, when, and after which roll is the reader's to see.

Text from the export (a note, a reason, a name) is shown as it is, but for characters no
terminal should be sent and no UTF-8 can carry: control characters and lone surrogates (in a
forged export) are written as `\\uXXXX` escapes, the same in the browser's verifier.

>>> from referee.ledger.chain import chain
>>> e = chain(None, "ended", "referee", {"winner": "A", "reason": "yield"},
...           "2026-11-29T22:40:12.000000Z")
>>> [str(r) for r in rulings([e])]
["event 0 (ended): the referee declared side 'A' the winner (yield)"]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.ledger.printable import shown
from referee.payloads.events import SHAPES, SeedRotated, Total
from referee.payloads.fields import Given, Shape
from referee.vocabulary import EventType

#: Who makes rulings.
REFEREE = "referee"

#: Options of an action that the dice do not decide (the rules read them as given).
CHOSEN_OPTIONS = ("modifier", "rear", "defend", "defense", "range", "aim", "mounted")


@dataclass(frozen=True, slots=True)
class Ruling:
    """One decision the referee made by hand, at the event that records it."""

    seq: Any
    type: str
    text: str

    def __str__(self) -> str:
        return f"event {self.seq} ({self.type}): {self.text}"

    def as_json(self) -> dict[str, Any]:
        """The ruling as a JSON object (for `--json` reports)."""
        return {"seq": self.seq, "type": self.type, "text": str(self)}


#: An event's payload read by its declared shape (`referee.payloads`), unchecked.
Payload = Given[Shape]

#: Characters a ruling never shows as they are: control characters (C0, DEL, C1) and lone
#: surrogates (Python keeps a surrogate pair read from JSON as one character, so any surrogate
#: left is a lone one).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def plain(value: Any) -> str:
    """A value as a ruling says it in its own words: text as itself with control characters and
    lone surrogates as `\\uXXXX` (six characters), anything else as its repr (`shown`, where a
    ruling quotes a value).

    >>> plain("a clean blow"), plain("bell\x07"), plain(3), plain(None)
    ('a clean blow', 'bell\\\\u0007', '3', 'None')
    """
    if not isinstance(value, str):
        return shown(value)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", value)


def _ended(p: Payload) -> str | None:
    reason = f" ({plain(p.reason)})" if isinstance(p.reason, str) and p.reason else ""
    if p.winner is None:
        return f"the referee ended the bout without a winner{reason}"
    return f"the referee declared side {shown(p.winner)} the winner{reason}"


def _overridden(p: Payload) -> str | None:
    wounds: list[Any] = p.wounds if isinstance(p.wounds, list) else []
    given = ", ".join(
        f"{plain(w.target)} {plain(w.amount)}"
        for w in (Total.given(each) for each in wounds)
        if w.is_object
    )
    note = f": {plain(p.note)}" if isinstance(p.note, str) and p.note else ""
    of = shown(p.of)
    return f"the referee replaced the wounds of event {of} with {given or 'none'}{note}"


def _voided(p: Payload) -> str | None:
    return f"the referee voided events {shown(p.first)} to {shown(p.last)}"


def _action(p: Payload) -> str | None:
    options: dict[str, Any] = p.options if isinstance(p.options, dict) else {}
    chosen = [f"{key} {shown(options[key])}" for key in CHOSEN_OPTIONS if key in options]
    if p.by != REFEREE or not chosen:
        return None
    return f"the referee set {', '.join(chosen)} for this {shown(p.kind)}"


def _updated(p: Payload) -> str | None:
    stats: dict[str, Any] = p.stats if isinstance(p.stats, dict) else {}
    parts = [f"stats {', '.join(plain(k) for k in sorted(stats))}"] if stats else []
    if p.has("wounds"):
        parts.append(f"wounds to {shown(p.wounds)}")
    return f"the referee changed {shown(p.name)}: {'; '.join(parts) or 'nothing'}"


def _stat(p: Payload) -> str | None:
    key, target, value = shown(p.key), shown(p.target), shown(p.value)
    return f"the referee set {key} of {target} to {value}"


#: Event types that, written by the referee, are rulings; each says what was decided, reading
#: the payload by the event type's declared shape (`referee.payloads.SHAPES`).
RULING_TYPES: dict[str, Callable[[Payload], str | None]] = {
    EventType.ENDED: _ended,
    EventType.OVERRIDDEN: _overridden,
    EventType.VOIDED: _voided,
    EventType.ACTION: _action,
    EventType.FIGHTER_UPDATED: _updated,
    EventType.STAT: _stat,
    EventType.SKIPPED: lambda p: f"the referee skipped the turn of {shown(p.name)}",
    EventType.CANCELLED: lambda p: "the referee called the bout off",
}


#: Who rotates a seed, as a ruling says it: the referee (`rotate-seed`), or the service itself
#: after its set number of rolls (actor "system").
ROTATED_BY = {REFEREE: "the referee", "system": "the service (its own rotation)"}


def _rotated(event: Mapping[str, Any], rotation: Given[SeedRotated], last_roll: Any) -> str:
    actor = event.get("actor")
    who = ROTATED_BY[actor] if isinstance(actor, str) and actor in ROTATED_BY else shown(actor)
    after = f"after the roll at event {plain(last_roll)}" if last_roll is not None else ""
    return (
        f"{who} rotated the server seed to seed {plain(rotation.index)} at "
        f"{plain(event.get('at'))}, {after or 'before any roll'}"
    )


def rulings(events: list[Any]) -> tuple[Ruling, ...]:
    """Every ruling of the referee in the chain, and every seed rotation, in order."""
    found: list[Ruling] = []
    last_roll: Any = None
    for event in events:
        if not isinstance(event, dict):
            continue
        kind, payload = event.get("type"), event.get("payload")
        if kind == EventType.ROLL:
            last_roll = event.get("seq")
            continue
        if kind == EventType.SEED_ROTATED and isinstance(payload, dict):
            rotation = SeedRotated.given(payload)
            found.append(Ruling(event.get("seq"), kind, _rotated(event, rotation, last_roll)))
            continue
        if event.get("actor") != REFEREE and kind != EventType.ACTION:  # an action says `by` itself
            continue
        describe = RULING_TYPES.get(kind) if isinstance(kind, str) else None
        if describe is None or not isinstance(payload, dict):
            continue
        text = describe(SHAPES[EventType(str(kind))].given(payload))
        if text is not None:
            found.append(Ruling(event.get("seq"), str(kind), text))
    return tuple(found)
