"""The hash chain: make the next event, and check a list of events link up.

Every event is a JSON object with `seq` (0, 1, 2, ...), `type`, `actor`, `at` (RFC 3339
UTC), `payload` (an object), `prev` (the previous event's hash; 64 zeros for seq 0) and
`hash` (see `event_hash`). Changing, dropping or reordering any event breaks the chain
at that event.

>>> first = chain(None, "bout_created", "ref", {"system": "msv"}, "2026-11-29T22:40:12.000000Z")
>>> second = chain(first, "joined", "Tarl", {"side": "a"}, "2026-11-29T22:40:13.000000Z")
>>> second["seq"], second["prev"] == first["hash"]
(1, True)
>>> verify_chain([first, second])
[]
"""

from __future__ import annotations

import builtins
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import RuleError
from referee.ledger.canonical import (
    GENESIS,
    check_json,
    checked_canonical_text,
    checked_event_hash,
    is_hex64,
    is_plain_json,
    is_utc_time,
)
from referee.ledger.printable import shown
from referee.vocabulary import Problem

#: One ledger event, as JSON.
Event = dict[str, Any]

#: The keys every event has (more are allowed and are covered by the hash).
EVENT_KEYS = ("seq", "type", "actor", "at", "payload", "prev", "hash")


def chain(
    prev: Mapping[str, Any] | None,
    type: str,
    actor: str | None,
    payload: Mapping[str, Any],
    at: str,
) -> Event:
    """The next full event after `prev` (None: the first event), with its hash.

    Raises RuleError for a float anywhere in the payload, a bad time or a bad `prev`.

    >>> e = chain(None, "note", None, {"text": "hi"}, "2026-11-29T22:40:12.000000Z")
    >>> e["seq"], e["prev"] == "0" * 64, len(e["hash"])
    (0, True, 64)
    """
    return link(prev, type, actor, payload, at)[0]


def link(
    prev: Mapping[str, Any] | None,
    type: str,
    actor: str | None,
    payload: Mapping[str, Any],
    at: str,
) -> tuple[Event, str]:
    """`chain`, and the payload's canonical JSON text (what a store keeps of it).

    The event is checked once, then written by the canonical encoder and hashed as
    `event_hash` hashes it; the payload's text is cut from the event's (`_payload_text`), not
    written a second time.

    >>> from referee.ledger.canonical import event_hash
    >>> e, text = link(None, "note", "ref", {"b": 1, "a": "é"}, "2026-11-29T22:40:12Z")
    >>> text, e["hash"] == event_hash(e)
    ('{"a":"é","b":1}', True)
    """
    if not isinstance(type, str) or not type:
        raise RuleError(f"event type must be a non-empty string, got {shown(type)}")
    if actor is not None and not isinstance(actor, str):
        raise RuleError(f"event actor must be a string or None, got {shown(actor)}")
    if not is_utc_time(at):
        raise RuleError(f"event time {shown(at)} is not RFC 3339 UTC like '2026-11-29T22:40:12.1Z'")
    # A dict is a Mapping; asking `isinstance` about the ABC costs more than the exact type.
    if builtins.type(payload) is not dict and not isinstance(payload, Mapping):
        raise RuleError(f"event payload must be an object, got {shown(payload)}")
    body = dict(payload)
    if not is_plain_json(body):  # the place is named only for a payload that fails
        check_json(body, f"{type}.payload")
    # `type` and `actor` are checked text; `_plain` allows no lone surrogate in them either
    # (ASCII text has none: only other text is looked at).
    if not type.isascii():
        check_json(type, "event type")
    if actor is not None and not actor.isascii():
        check_json(actor, "event actor")
    seq, previous = _next_link(prev)
    event: Event = {
        "seq": seq,
        "type": type,
        "actor": actor,
        "at": at,
        "payload": body,
        "prev": previous,
    }
    text = checked_canonical_text(event)  # all but `hash`
    event["hash"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return event, _payload_text(text)


def _payload_text(text: str) -> str:
    """The payload's canonical JSON, cut from `text`, the canonical JSON of an event (with the
    six keys `link` gives it and no other): the encoder writes a value inside an object as it
    writes it alone, and in sorted order the payload comes after `actor` and `at` and before
    `prev`, `seq` and `type`. Its text starts after the first `,"payload":` and ends at the
    last `,"prev":"`: a quote inside any text is written escaped (`\\"`), so neither can be
    found inside the actor's, the time's or the type's text, and the payload's own `prev`
    keys, if any, come before the event's.

    >>> e = {"seq": 2, "type": "note", "actor": ',"payload":', "at": "2026-11-29T22:40:12Z",
    ...      "payload": {"b": [1], "prev": "x", "a": "é"}, "prev": "0" * 64}
    >>> _payload_text(checked_canonical_text(e))
    '{"a":"é","b":[1],"prev":"x"}'
    """
    start = text.index(_PAYLOAD_KEY) + len(_PAYLOAD_KEY)
    return text[start : text.rindex(_PREV_KEY)]


#: Where the payload starts and ends in an event's canonical JSON (`_payload_text`).
_PAYLOAD_KEY, _PREV_KEY = ',"payload":', ',"prev":"'


def _next_link(prev: Mapping[str, Any] | None) -> tuple[int, str]:
    if prev is None:
        return 0, GENESIS
    seq, link = prev.get("seq"), prev.get("hash")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0 or not is_hex64(link):
        raise RuleError(
            f"previous event has no valid seq and hash: seq={shown(seq)} hash={shown(link)}"
        )
    return seq + 1, str(link)


def verify_chain(events: Sequence[Any], start: Mapping[str, Any] | None = None) -> list[Problem]:
    """Check seq order, every `prev` link and every hash; one problem at most per event.

    `start` is the event before `events[0]` (None: the chain starts at seq 0).

    >>> e0 = chain(None, "note", None, {}, "2026-11-29T22:40:12.000000Z")
    >>> e1 = chain(e0, "note", None, {"n": 1}, "2026-11-29T22:40:13.000000Z")
    >>> e1["payload"]["n"] = 2
    >>> [str(p) for p in verify_chain([e0, e1])]
    ['event 1 (note): hash does not match the event (someone changed it)']
    """
    problems: list[Problem] = []
    expected, link = (0, GENESIS) if start is None else _next_link(start)
    for position, event in enumerate(events):
        problem = check_event(event, position, expected, link)
        if problem is not None:
            problems.append(problem)
        if isinstance(event, dict):
            expected = (event["seq"] if _is_seq(event.get("seq")) else expected) + 1
            link = event["hash"] if is_hex64(event.get("hash")) else link
        else:
            expected += 1
    return problems


def check_event(event: Any, position: int, seq: int, prev: str) -> Problem | None:
    """The first problem of one event that should have number `seq` and link to `prev`.

    >>> check_event({"seq": 0}, 0, 0, "0" * 64).message
    "missing key 'type' (an event has seq, type, actor, at, payload, prev, hash)"
    """
    if not isinstance(event, dict):
        return Problem(seq, None, f"entry {position} is not a JSON object", "format")
    name = event.get("type") if isinstance(event.get("type"), str) else None
    number = event["seq"] if _is_seq(event.get("seq")) else seq
    message = _format_message(event)
    if message is not None:
        return Problem(number, name, message, "format")
    if event["seq"] != seq:
        where = "the first event" if seq == 0 else f"event {seq - 1}"
        return Problem(
            number,
            name,
            f"seq {number} follows {where} (expected {seq}: an event is missing or out of order)",
            "chain",
        )
    if event["prev"] != prev:
        return Problem(
            number,
            name,
            f"prev {event['prev'][:12]}... does not link to the "
            f"previous event's hash {prev[:12]}...",
            "chain",
        )
    if checked_event_hash(event) != event["hash"]:  # `_format_message` checked the JSON
        return Problem(number, name, "hash does not match the event (someone changed it)", "chain")
    return None


def _is_seq(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _format_message(event: dict[str, Any]) -> str | None:
    for key in EVENT_KEYS:
        if key not in event:
            return f"missing key {shown(key)} (an event has {', '.join(EVENT_KEYS)})"
    checks = (
        (_is_seq(event["seq"]), "seq is not a whole number >= 0"),
        (isinstance(event["type"], str) and event["type"] != "", "type is not a string"),
        (event["actor"] is None or isinstance(event["actor"], str), "actor is not a string"),
        (is_utc_time(event["at"]), f"at {shown(event['at'])} is not RFC 3339 UTC"),
        (isinstance(event["payload"], dict), "payload is not an object"),
        (is_hex64(event["prev"]), "prev is not 64 lowercase hex characters"),
        (is_hex64(event["hash"]), "hash is not 64 lowercase hex characters"),
    )
    for ok, message in checks:
        if not ok:
            return message
    try:
        check_json(event, "event")
    except RuleError as err:
        return str(err)
    return None
