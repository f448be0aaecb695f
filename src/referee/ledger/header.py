"""Checks of a bout's export beyond the chain: its header, its end, and the order of its times.

DESIGN.md contract: the chain's first event (`bout_opened`) carries the bout's header (id,
system, name, rules, created time), so nothing in an export stands outside the hash chain; an
export is complete only when it ends with the close event. Times never go backwards.

>>> from referee.ledger.chain import chain
>>> header = {"id": "b1", "system": "msv", "name": "Spar", "rules": {},
...           "created_at": "2026-11-29T22:40:12.000000Z"}
>>> e0 = chain(None, "bout_opened", "referee", header, "2026-11-29T22:40:12.000000Z")
>>> check_header({**header, "status": "open", "name": "Other"}, [e0], {})[0][0].message
"bout.name 'Other' differs from the name 'Spar' the chain opens with"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.ledger.canonical import is_utc_time, same_json, time_key
from referee.ledger.export import BOUT_FIELDS, CLOSED, OPENED
from referee.ledger.printable import shown
from referee.payloads.events import BoutOpened
from referee.vocabulary import Problem

#: The header fields the first event carries and the export's `bout` repeats.
HEADER_FIELDS = ("id", "system", "name", "rules", "created_at")

#: Header fields that exports made before the header was chained lack (see docs/ledger.md).
LATER_FIELDS = ("id", "created_at")
assert all(BoutOpened.field(key) for key in HEADER_FIELDS), "the header is the opening's shape"


def _seq(event: Mapping[str, Any], fallback: Any) -> Any:
    seq = event.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 else fallback


def check_header(
    bout: Mapping[str, Any], events: list[Any], fairness: Mapping[str, Any]
) -> tuple[list[Problem], list[str]]:
    """Problems of the export's `bout` fields against the first event, and what went unchecked."""
    problems = [
        Problem(
            None,
            None,
            f"bout.{key} is not covered by the chain (a bout has {', '.join(BOUT_FIELDS)})",
            "header",
        )
        for key in bout
        if key not in BOUT_FIELDS
    ]
    if not events or not isinstance(events[0], dict):
        return problems, []
    first = events[0]
    seq, kind = _seq(first, 0), first.get("type") if isinstance(first.get("type"), str) else None
    if kind != OPENED:
        message = f"the chain does not open with {OPENED}, so the bout's fields are outside it"
        return [*problems, Problem(seq, kind, message, "header")], []
    payload = first.get("payload")
    if not isinstance(payload, dict):
        return problems, []
    unchained: list[str] = []
    for key in HEADER_FIELDS:
        if key not in payload:
            if key in LATER_FIELDS:
                unchained.append(key)
                continue
            message = f"the first event carries no {key} (the bout's header)"
        elif key not in bout:
            message = f"bout.{key} is missing (the chain opens with {shown(payload[key])})"
        elif not same_json(bout[key], payload[key]):
            message = (
                f"bout.{key} {shown(bout[key])} differs from the {key} {shown(payload[key])} "
                "the chain opens with"
            )
        else:
            continue
        problems.append(Problem(seq, kind, message, "header"))
    opened = BoutOpened.given(payload)
    if opened.has("commitment") and not same_json(opened.commitment, fairness.get("commitment")):
        message = (
            f"fairness.commitment {shown(fairness.get('commitment'))} differs from the commitment "
            f"{shown(opened.commitment)} the chain opens with"
        )
        problems.append(Problem(seq, kind, message, "commitment"))
    skipped = []
    if unchained:
        fields = " and ".join(unchained)
        skipped.append(
            f"header: the first event carries no {fields} (an export made before the header "
            f"was chained), so bout.{' and bout.'.join(unchained)} are not covered by the chain"
        )
    return problems, skipped


def check_end(bout: Mapping[str, Any], events: list[Any], partial: bool) -> list[Problem]:
    """Whether the chain ends with the close (or may stop short, `partial`), and nothing after."""
    if not events:
        return [Problem(None, None, "the export has no events", "complete")]
    problems: list[Problem] = []
    closes = [i for i, e in enumerate(events) if isinstance(e, dict) and e.get("type") == CLOSED]
    if closes and closes[0] + 1 < len(events):
        after = events[closes[0] + 1]
        where = _seq(after, None) if isinstance(after, dict) else None
        kind = after.get("type") if isinstance(after, dict) else None
        kind = kind if isinstance(kind, str) else None
        problems.append(
            Problem(where, kind, "an event after the close (nothing may follow it)", "complete")
        )
    last = events[-1]
    closed = isinstance(last, dict) and last.get("type") == CLOSED
    status = bout.get("status")
    if closed and "status" in bout and status != "closed":
        problems.append(
            Problem(
                None,
                None,
                f"bout.status {shown(status)} but the chain ends with the close",
                "complete",
            )
        )
    if closed:
        return problems
    seq = _seq(last, None) if isinstance(last, dict) else None
    kind = last.get("type") if isinstance(last, dict) else None
    kind = kind if isinstance(kind, str) else None
    if status == "closed":
        problems.append(
            Problem(
                seq,
                kind,
                "bout.status says closed but the chain ends here without the "
                "close: the export was cut short",
                "complete",
            )
        )
    elif not partial:
        problems.append(
            Problem(
                seq,
                kind,
                "the export ends here without the close, so it is partial (the "
                "bout is not closed yet, or the export was cut short); --partial checks "
                "it up to here",
                "complete",
            )
        )
    return problems


def check_times(events: list[Any]) -> list[Problem]:
    """Every event whose time is before the time of the event before it."""
    problems: list[Problem] = []
    before: str | None = None
    for event in events:
        if not isinstance(event, dict) or not is_utc_time(event.get("at")):
            continue
        at = event["at"]
        if before is not None and time_key(at) < time_key(before):
            kind = event.get("type") if isinstance(event.get("type"), str) else None
            message = (
                f"at {shown(at)} is before the previous event's {shown(before)} "
                "(times must not go backwards)"
            )
            problems.append(Problem(event.get("seq"), kind, message, "time"))
        before = at
    return problems
