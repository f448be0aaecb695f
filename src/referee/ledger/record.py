"""The whole record (ledger 2): the client seed in the chain, hidden values sealed.

A bout whose header says `"ledger": 2` keeps every input of every face in its chain
(docs/ledger.md, "Every input in the chain"): the header carries the referee's part of the
client seed (`client_seed`), each fighter's join its own part (`seed_part`), and a
`client_seed_fixed` event, before the first roll, the whole client seed every face is made
from. `check_client_seed` holds the export's `fairness.client_seed` (and `fairness.dice_scheme`)
to what the chain says; an export of a bout made before says which guarantees it lacks.

Hidden values are sealed (`referee.ledger.seal`): `open_seals` checks each opening an export
gives against its seal, and gives the events as the rules read them (each sealed one opened).

>>> from referee.ledger.chain import chain
>>> at = "2026-11-29T22:40:12.000000Z"
>>> e0 = chain(None, "bout_opened", "referee", {"ledger": 2, "client_seed": "gm"}, at)
>>> e1 = chain(e0, "fighter_added", "Tarl", {"name": "Tarl", "seed_part": "t1"}, at)
>>> e2 = chain(e1, "client_seed_fixed", "system", {"client_seed": "gm:t1"}, at)
>>> check_client_seed([e0, e1, e2], {"client_seed": "gm:t1"})[0]
'gm:t1'
>>> seed, problems, _ = check_client_seed([e0, e1, e2], {"client_seed": "gm:xx"})
>>> seed, problems[0].seq, problems[0].message[:44]
('gm:t1', 2, "fairness.client_seed 'gm:xx' differs from th")
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.ledger.canonical import same_json
from referee.ledger.export import (
    CLOSED,
    LEDGER_FORMATS,
    ROLL,
    WHOLE_RECORD,
    dice_scheme,
    ledger_format,
)
from referee.ledger.printable import shown
from referee.ledger.seal import OPENINGS, SEALED, check_opening, opened
from referee.payloads.events import BoutOpened, ClientSeedFixed, FighterAdded
from referee.vocabulary import EventType, Problem

FIXED = EventType.CLIENT_SEED_FIXED.value
ADDED = EventType.FIGHTER_ADDED.value

#: What an export of a bout made before the client seed was chained does not prove.
UNCHAINED_SEED = (
    "client seed: not in this export's chain (a bout made before the client seed was chained), "
    "so fairness.client_seed is held to nothing but the faces"
)


def _where(event: Any) -> tuple[Any, Any]:
    if not isinstance(event, dict):
        return None, None
    kind = event.get("type")
    return event.get("seq"), kind if isinstance(kind, str) else None


def check_client_seed(
    events: list[Any], fairness: Mapping[str, Any]
) -> tuple[Any, list[Problem], list[str]]:
    """The client seed the faces are made from, the problems of the export's client seed and
    dice scheme against the chain, and what goes unchecked.

    In a bout of ledger 2 the seed is the chain's (whatever `fairness` says; a difference is a
    problem at the event that fixes it); in one made before, it is `fairness.client_seed`.
    """
    given = fairness.get("client_seed")
    found = ledger_format(events)
    if same_json(found, 1):
        return given, [], [UNCHAINED_SEED]
    seq, kind = _where(events[0]) if events else (None, None)
    if not same_json(found, WHOLE_RECORD):
        message = (
            f"ledger {shown(found)} is not a ledger format this verifier knows "
            f"({' or '.join(map(str, LEDGER_FORMATS))}); its client seed is taken from fairness"
        )
        return given, [Problem(seq, kind, message, "client seed")], []
    problems: list[Problem] = []
    if "dice_scheme" in fairness and not same_json(fairness["dice_scheme"], dice_scheme(events)):
        message = (
            f"fairness.dice_scheme {shown(fairness['dice_scheme'])} differs from the dice scheme "
            f"{shown(dice_scheme(events))} the chain opens with"
        )
        problems.append(Problem(seq, kind, message, "client seed"))
    composed = BoutOpened.given(events[0].get("payload")).client_seed
    if not isinstance(composed, str):
        message = (
            "the header carries no client seed (the referee's part), as a ledger-2 bout's does"
        )
        problems.append(Problem(seq, kind, message, "client seed"))
        return given, problems, []
    chained, fixed_at = _follow(events, composed, problems)
    if not same_json(given, chained):
        where = fixed_at if fixed_at is not None else events[0]
        at, what = _where(where)
        verb = "fixes here" if fixed_at is not None else "opens with (it fixes none)"
        message = (
            f"fairness.client_seed {shown(given)} differs from the client seed {shown(chained)} "
            f"the chain {verb}"
        )
        problems.append(Problem(at, what, message, "client seed"))
    return chained, problems, []


def _follow(events: list[Any], composed: str, problems: list[Problem]) -> tuple[str, Any]:
    """Walk the chain's client-seed parts and its fixing: the client seed it ends with, and
    the event that fixed it (None: none did)."""
    fixed_at: Any = None
    fixed: str | None = None
    rolled = False
    for event in events[1:]:
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        seq, name = _where(event)
        if kind == ADDED:
            added = FighterAdded.given(event.get("payload"))
            if not added.has("seed_part"):
                continue
            part = added.seed_part
            if fixed_at is not None:
                message = (
                    f"a client-seed part joins after the client seed was fixed at event "
                    f"{shown(fixed_at.get('seq'))}"
                )
                problems.append(Problem(seq, name, message, "client seed"))
            elif not isinstance(part, str) or not part or ":" in part:
                message = f"seed_part {shown(part)} is not a client-seed part (text without ':')"
                problems.append(Problem(seq, name, message, "client seed"))
            else:
                composed = f"{composed}:{part}"
        elif kind == FIXED:
            value = ClientSeedFixed.given(event.get("payload")).client_seed
            if fixed_at is not None:
                message = (
                    f"the client seed is fixed again (it was at event {shown(fixed_at.get('seq'))})"
                )
                problems.append(Problem(seq, name, message, "client seed"))
            elif not same_json(value, composed):
                message = (
                    f"it fixes the client seed {shown(value)}, but the chain's parts make "
                    f"{shown(composed)}"
                )
                problems.append(Problem(seq, name, message, "client seed"))
                fixed_at, fixed = event, composed
            else:
                fixed_at, fixed = event, composed
        elif kind == ROLL and fixed_at is None and not rolled:
            rolled = True
            message = (
                "a roll before the client seed was fixed (a ledger-2 bout fixes it with a "
                "client_seed_fixed event first)"
            )
            problems.append(Problem(seq, name, message, "client seed"))
    return (fixed if fixed is not None else composed), fixed_at


def opened_events(doc: Mapping[str, Any]) -> list[Any]:
    """An export's events as the rules read them: each sealed one its export opens (by seq)
    with its whole payload, unchecked (`verify_export` checks every opening; this is for
    showing an export, as a chat transcript does).

    >>> doc = {"events": [{"seq": 0, "payload": {"cs": "hidden"}, "sealed": "ab" * 32}],
    ...        "openings": {"0": {"salt": "00" * 16, "payload": {"cs": 73}}}}
    >>> opened_events(doc)[0]["payload"]
    {'cs': 73}
    """
    given = doc.get(OPENINGS)
    events = doc.get("events") or []
    if not isinstance(given, Mapping) or not isinstance(events, list):
        return list(events) if isinstance(events, list) else []
    out = []
    for event in events:
        found = given.get(str(event.get("seq"))) if isinstance(event, dict) else None
        sealed = isinstance(event, dict) and SEALED in event
        if sealed and isinstance(found, Mapping) and isinstance(found.get("payload"), Mapping):
            event = opened(event, found)
        out.append(event)
    return out


def open_seals(doc: Mapping[str, Any], events: list[Any]) -> tuple[list[Any], list[Problem], int]:
    """The events with every sealed one the export opens opened, the problems of the openings
    (an opening that does not match its seal, or whose public part says what it does not, one
    for an event not sealed or not in the export; in an export that ends with the close, a seal
    it does not open), and how many seals stay unopened."""
    given = doc.get(OPENINGS, {})
    if not isinstance(given, dict):
        return events, [Problem(None, None, f"{OPENINGS} is not an object", "seal")], 0
    problems: list[Problem] = []
    out: list[Any] = []
    used: set[str] = set()
    unopened: list[Any] = []
    for event in events:
        if not isinstance(event, dict):
            out.append(event)
            continue
        seq, kind = _where(event)
        key = str(seq) if isinstance(seq, int) and not isinstance(seq, bool) else None
        held = key is not None and key in given
        if held:
            used.add(str(key))
        if SEALED not in event:
            if held:
                problems.append(Problem(seq, kind, "an opening for an event not sealed", "seal"))
            out.append(event)
            continue
        if not held:
            unopened.append(event)
            out.append(event)
            continue
        found = given[str(key)]
        message = check_opening(event, found)
        if message is not None:
            problems.append(Problem(seq, kind, message, "seal"))
            out.append(event)
        else:
            out.append(opened(event, found))
    for key in sorted(set(given) - used):
        message = f"{OPENINGS} names event {shown(key)}, which the export does not hold"
        problems.append(Problem(None, None, message, "seal"))
    last = events[-1] if events else None
    if isinstance(last, dict) and last.get("type") == CLOSED:
        for event in unopened:
            seq, kind = _where(event)
            message = (
                "sealed, and the export does not open it (a closed bout's export opens every seal)"
            )
            problems.append(Problem(seq, kind, message, "seal"))
    return out, problems, len(unopened)
