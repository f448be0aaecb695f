"""Sealed events: a hidden value committed to in the chain, opened by the reveal.

An event that holds something only the referee may see yet (SRP-10: a hidden stat, or what the
rules worked out from one) is written into the chain as everyone else sees it, with its whole
payload sealed beside it (docs/ledger.md, "Sealed events"):

    {"seq", "type", "actor", "at", "payload": <the public part>, "sealed": <seal>, "prev", "hash"}

    seal = SHA-256 hex of the canonical JSON of {"payload": <the whole payload>, "salt": <salt>}

with a salt of 16 random bytes (32 lowercase hex characters). The event's hash covers the public
part and the seal, so a watcher with no token is given every event's hash as it is written, and
no hash gives a hidden value away: without the salt, trying every value of a stat against the
seal finds nothing. The opening, `{"salt", "payload"}`, is kept by the store and given in an
export's `openings` (by seq, as text) to whoever may see it: the referee at once, everyone once
the stats it holds are revealed or the bout is closed. A verifier checks every opening against
its seal, and that the public part says nothing the opening does not (`disagreement`).

The store keeps a sealed event as a record whose `payload` is the whole one (what the fold and
the referee read) with the seal's makings under `seal` (never hashed, never shown):
`chained(record)` is the event as the chain has it, `opening(record)` what opens it.

>>> draft = SealedDraft("outcome", "system", {"kind": "hit", "cs": 70}, {"kind": "hit"}, "ab" * 16)
>>> record, text = link_sealed(None, draft, "2026-11-29T22:40:12.000000Z")
>>> text, record["payload"]["cs"], chained(record)["payload"]
('{"kind":"hit"}', 70, {'kind': 'hit'})
>>> check_opening(chained(record), opening(record)) is None
True
>>> check_opening(chained(record), {"salt": "ab" * 16, "payload": {"kind": "hit", "cs": 71}})
'the opening does not match its seal (a hidden value was changed)'
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from referee.errors import RuleError
from referee.ledger.canonical import (
    GENESIS,
    check_json,
    checked_canonical_json,
    event_hash,
    is_hex64,
    is_plain_json,
    is_utc_time,
    same_json,
)
from referee.ledger.chain import Event
from referee.ledger.printable import shown

#: The key of a sealed event's seal (covered by its hash).
SEALED = "sealed"
#: The key under which a store's record keeps a seal's salt and public part (never hashed).
SEAL = "seal"
#: An export's key for the openings of its sealed events, by seq (as text).
OPENINGS = "openings"
#: Bytes of a seal's salt.
SALT_BYTES = 16
#: What a public part shows in place of a value it holds back.
HIDDEN = "hidden"
#: A payload key whose text is written for people and may say "hidden" inside it (an
#: outcome's summary, `CS hidden`): not compared with the opening.
SAID = "summary"


class Draft(Protocol):
    """A new event before the store links it into the chain: type, actor and payload (an
    engine's event, or a `SealedDraft`)."""

    @property
    def type(self) -> str: ...
    @property
    def actor(self) -> str | None: ...
    @property
    def payload(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True, slots=True)
class SealedDraft:
    """A new event to seal (a `Draft` the store links): its type, actor and whole payload, the
    public part the chain shows, and the salt of its seal."""

    type: str
    actor: str | None
    payload: Mapping[str, Any]
    public: Mapping[str, Any]
    salt: str


def seal_of(payload: Mapping[str, Any], salt: str) -> str:
    """The seal of a whole payload with its salt.

    >>> seal_of({}, "00" * 16)[:16]
    '41fd8941b85046ab'
    """
    return hashlib.sha256(checked_canonical_json({"payload": payload, "salt": salt})).hexdigest()


def is_salt(value: Any) -> bool:
    """Whether `value` is a seal's salt: 32 lowercase hex characters."""
    return (
        isinstance(value, str)
        and len(value) == 2 * SALT_BYTES
        and all(c in "0123456789abcdef" for c in value)
    )


def link_sealed(prev: Mapping[str, Any] | None, draft: SealedDraft, at: str) -> tuple[Event, str]:
    """The record of a sealed event after `prev`, and its public part's canonical JSON text
    (what a store keeps as the event's payload): as `link`, with the seal in the chain."""
    if not is_utc_time(at):
        raise RuleError(f"event time {shown(at)} is not RFC 3339 UTC like '2026-11-29T22:40:12Z'")
    if not is_salt(draft.salt):
        raise RuleError("a seal's salt is 32 lowercase hex characters")
    whole, public = dict(draft.payload), dict(draft.public)
    for part, where in ((whole, "payload"), (public, "public part")):
        if not is_plain_json(part):
            check_json(part, f"{draft.type}.{where}")
    if prev is None:
        seq, previous = 0, GENESIS
    else:
        seq, previous = int(prev["seq"]) + 1, str(prev["hash"])
    event: Event = {
        "seq": seq,
        "type": draft.type,
        "actor": draft.actor,
        "at": at,
        "payload": public,
        "prev": previous,
        SEALED: seal_of(whole, draft.salt),
    }
    check_json(event, "event")
    event["hash"] = event_hash(event)
    record = {**event, "payload": whole, SEAL: {"salt": draft.salt, "public": public}}
    return record, checked_canonical_json(public).decode("utf-8")


def chained(record: Mapping[str, Any]) -> Event:
    """A stored record as the chain holds it: a sealed one's public part in its payload."""
    seal = record.get(SEAL)
    if seal is None:
        return dict(record)
    event = {key: value for key, value in record.items() if key != SEAL}
    event["payload"] = seal["public"]
    return event


def opening(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """What opens a stored record's seal (`{"salt", "payload"}`), None for one not sealed."""
    seal = record.get(SEAL)
    if seal is None:
        return None
    return {"salt": seal["salt"], "payload": record["payload"]}


def without_seal(record: Mapping[str, Any]) -> Event:
    """A stored record as the referee is shown it: the whole payload, the seal, no salt."""
    if SEAL not in record:
        return record  # type: ignore[return-value]
    return {key: value for key, value in record.items() if key != SEAL}


def opened(event: Mapping[str, Any], found: Mapping[str, Any]) -> Event:
    """A sealed event with its opening's whole payload in place of its public part."""
    return {**event, "payload": found["payload"]}


def check_opening(event: Mapping[str, Any], found: Any) -> str | None:
    """What is wrong with an opening of the sealed `event`, or None when it opens it."""
    if not isinstance(found, Mapping) or set(found) != {"salt", "payload"}:
        return "its opening is not an object of salt and payload"
    if not is_salt(found["salt"]):
        return f"its opening's salt {shown(found['salt'])} is not 32 lowercase hex characters"
    if not isinstance(found["payload"], Mapping):
        return "its opening's payload is not an object"
    try:
        check_json(found, "opening")
    except RuleError as err:
        return f"its opening cannot be hashed: {err}"
    seal = seal_of(found["payload"], found["salt"])
    if not is_hex64(event.get(SEALED)) or seal != event[SEALED]:
        return "the opening does not match its seal (a hidden value was changed)"
    return disagreement(event.get("payload"), found["payload"])


def disagreement(public: Any, whole: Any, path: str = "payload") -> str | None:
    """Where the public part of a sealed event says something its whole payload does not: each
    public value must be the whole one's, or "hidden" in its place; an object may leave keys
    out, a list may not; the summary (text for people) is not compared.

    >>> disagreement({"a": 1, "b": "hidden"}, {"a": 1, "b": 7, "c": 3}) is None
    True
    >>> disagreement({"a": 2}, {"a": 1})
    'its public part says payload.a is 2, its opening 1'
    """
    if public == HIDDEN and isinstance(public, str):
        return None
    if isinstance(public, dict) and isinstance(whole, dict):
        for key, value in public.items():
            if path == "payload" and key == SAID:
                continue
            if key not in whole:
                return f"its public part has {path}.{key}, its opening has none"
            found = disagreement(value, whole[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(public, list) and isinstance(whole, list) and len(public) == len(whole):
        for i, (mine, theirs) in enumerate(zip(public, whole, strict=True)):
            found = disagreement(mine, theirs, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    if same_json(public, whole):
        return None
    return f"its public part says {path} is {shown(public)}, its opening {shown(whole)}"
