"""Verify an export: the chain, the commitment(s), every roll's faces and nonces, the times,
the bout's header and its close, the rules; and list the referee's rulings.

`verify_export(doc, checkers)` never raises for a bad ledger: it returns a `Report` whose
problems are sorted so that the first one names the first bad event. Only a document
that is not an export at all (no `events` list, ...) raises NotationError.

Rule checkers plug in: each is a callable `checker(doc) -> list[Problem]`, run once the
chain holds. The rules replay is one, passed in by whoever has the bout engine:
`verify_export(doc, replay=referee.bout.replay.check_export)` (the ledger never imports the
engine; without `replay` the report says the rules went unchecked).

>>> from referee.rng import commitment, VerifiableRng
>>> from referee.ledger import build_export, chain, roll_payload, SeedRecord
>>> seed, at = "00" * 32, "2026-11-29T22:40:12.000000Z"
>>> header = {"id": "b1", "system": "msv", "name": "Spar", "rules": {}, "created_at": at}
>>> e0 = chain(None, "bout_opened", "referee", header, at)
>>> throw = VerifiableRng(seed, "table").throw((20, 20, 6))
>>> e1 = chain(e0, "roll", "Tarl", roll_payload(0, throw.dice, throw.faces), at)
>>> e2 = chain(e1, "closed", "referee", {"server_seed": seed}, at)
>>> bout = {**header, "status": "closed"}
>>> doc = build_export(bout, [SeedRecord(0, commitment(seed), seed, None)], "table", [e0, e1, e2])
>>> verify_export(doc).verdict
'verified'
>>> running = build_export({**header, "status": "open"}, [SeedRecord(0, commitment(seed), None,
...                        None)], "table", [e0, e1])
>>> verify_export(running, partial=True).verdict, verify_export(running).verdict
('partial', 'rejected')
>>> doc["events"][1]["payload"]["faces"][1] = 3
>>> str(verify_export(doc).first)
'event 1 (roll): hash does not match the event (someone changed it)'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.errors import NotationError, RefereeError
from referee.ledger.chain import verify_chain
from referee.ledger.export import CLOSED
from referee.ledger.header import check_end, check_header, check_times
from referee.ledger.printable import shown
from referee.ledger.record import check_client_seed, open_seals
from referee.ledger.rulings import Ruling, rulings
from referee.ledger.seal import SEALED
from referee.ledger.verify_checks import is_int
from referee.ledger.verify_rolls import check_roll as check_roll
from referee.ledger.verify_rolls import check_rolls, check_scheme
from referee.ledger.verify_seeds import check_seeds
from referee.rng.streams import (
    STREAMS,
)
from referee.vocabulary import Problem

#: A rule checker: reads the whole export, returns what does not follow the rules.
Checker = Callable[[Mapping[str, Any]], Sequence[Problem]]


@dataclass(frozen=True, slots=True)
class Report:
    """What verification found. `ok` only when there is no problem at all."""

    problems: tuple[Problem, ...]
    events: int
    rolls: int
    seeds: int
    checks: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())
    #: Whether the chain ends with the close (else it was checked as a partial export).
    complete: bool = True
    #: The seq and type of the last event (where a partial export stops).
    last: tuple[Any, Any] = (None, None)
    #: What the referee decided by hand (declared winners, overrides, voids, modifiers...).
    rulings: tuple[Ruling, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """Whether everything holds."""
        return not self.problems

    @property
    def verdict(self) -> str:
        """ "verified", "partial" (holds, but does not end with the close) or "rejected"."""
        if self.problems:
            return "rejected"
        return "verified" if self.complete else "partial"

    @property
    def first(self) -> Problem | None:
        """The first problem (the earliest bad event), or None."""
        return self.problems[0] if self.problems else None

    def as_json(self) -> dict[str, Any]:
        """The report as a JSON object (the `--json` output of `referee verify`)."""
        return {
            "ok": self.ok,
            "verdict": self.verdict,
            "complete": self.complete,
            "last_event": {"seq": self.last[0], "type": self.last[1]},
            "events": self.events,
            "rolls": self.rolls,
            "seeds": self.seeds,
            "checks": list(self.checks),
            "skipped": list(self.skipped),
            "first_problem": None if self.first is None else str(self.first),
            "problems": [p.as_json() for p in self.problems],
            "rulings": [r.as_json() for r in self.rulings],
        }


def verify_export(
    doc: Any,
    checkers: Sequence[Checker] = (),
    *,
    replay: Checker | None = None,
    partial: bool = False,
) -> Report:
    """Check a bout's export completely; see the module text.

    Beyond `verify_ledger`: the export's `bout` fields against the header the chain opens
    with, and the end: complete only when it ends with the close event. `partial` accepts an
    export that stops short (a bout still running): it is checked up to its last event, and
    the rolls under a seed not revealed yet are said to be unchecked instead of failing.
    `replay` is the rules replay (`referee.bout.replay.check_export`), run first of the
    checkers.
    """
    events, fairness = _shape(doc)
    checkers = (replay, *checkers) if replay is not None else tuple(checkers)
    bout = doc["bout"]
    header, unchained = check_header(bout, events, fairness)
    extra = header + check_end(bout, events, partial)
    return _verify(doc, events, fairness, checkers, partial, extra, unchained, bout_checks=True)


def verify_ledger(
    doc: Any, checkers: Sequence[Checker] = (), *, replay: Checker | None = None
) -> Report:
    """Check a bare ledger in export form: chain, commitments, faces, nonces, times, rules.

    For chains that are not a bout's (no header event, no close), as the store's own tests
    write them; a bout's export is checked with `verify_export`.
    """
    events, fairness = _shape(doc)
    checkers = (replay, *checkers) if replay is not None else tuple(checkers)
    return _verify(doc, events, fairness, checkers, False, [], [], bout_checks=False)


def _verify(
    doc: Any,
    events: list[Any],
    fairness: dict[str, Any],
    checkers: Sequence[Checker],
    partial: bool,
    extra: list[Problem],
    unchained: list[str],
    *,
    bout_checks: bool,
) -> Report:
    problems = verify_chain(events)
    seeds, known, seed_problems = check_seeds(fairness, events, partial)
    scheme, scheme_problems = check_scheme(events)
    events, seal_problems, unopened = open_seals(doc, events)
    client_seed, seed_problems_2, unchained_seed = (
        check_client_seed(events, fairness)
        if bout_checks
        else (fairness.get("client_seed"), [], [])
    )
    roll_problems, rolls, unchecked = check_rolls(
        events, client_seed, known, scheme, owners=bout_checks
    )
    problems += seed_problems + scheme_problems + seal_problems + seed_problems_2
    problems += roll_problems + check_times(events) + extra
    checks = ["chain", "commitment", "faces", "nonce", "time"]
    if scheme == STREAMS:
        checks.append("stream")
    if bout_checks:
        checks += ["header", "complete"]
        if not unchained_seed:
            checks.append("client seed")
    if any(isinstance(e, dict) and SEALED in e for e in events):
        checks.append("seal")
    skipped: list[str] = list(unchained)
    if partial and unchecked:
        skipped.append(
            f"faces: {unchecked} roll(s) under a server seed not revealed yet are not checked"
        )
    skipped += unchained_seed
    if checkers and not problems and unopened:
        skipped.append(
            f"rules: not checked while {unopened} sealed event(s) are not opened (hidden until "
            "the reveal or the close)"
        )
    elif checkers and not problems:
        checks.append("rules")
        problems += _run_checkers({**doc, "events": events}, checkers)
    elif checkers:
        skipped.append("rules: not checked while the chain or the dice are bad")
    else:
        skipped.append("rules: no rule checker available")
    ordered = sorted(problems, key=_in_file_order(events))
    last = events[-1] if events and isinstance(events[-1], dict) else {}
    return Report(
        tuple(ordered),
        len(events),
        rolls,
        len(seeds),
        tuple(checks),
        tuple(skipped),
        complete=bool(events) and last.get("type") == CLOSED,
        last=(last.get("seq"), last.get("type")),
        rulings=rulings(events),
    )


def _in_file_order(events: list[Any]) -> Callable[[Problem], tuple[int, int]]:
    """Sort key: problems of the export as a whole first, then by where the event stands."""
    positions: dict[Any, int] = {}
    for position, event in enumerate(events):
        if isinstance(event, dict) and is_int(event.get("seq")):
            positions.setdefault(event["seq"], position)

    def key(problem: Problem) -> tuple[int, int]:
        seq: Any = problem.seq
        if seq is None:
            return (0, 0)
        if isinstance(seq, bool) or not isinstance(seq, int):
            return (2, 0)
        return (1, positions.get(seq, seq))

    return key


def _shape(doc: Any) -> tuple[list[Any], dict[str, Any]]:
    if not isinstance(doc, dict):
        raise NotationError(f"an export is a JSON object, got {type(doc).__name__}")
    for key, kind in (("bout", dict), ("fairness", dict), ("events", list)):
        if not isinstance(doc.get(key), kind):
            raise NotationError(
                f"not a referee export: {shown(key)} is missing or not a {kind.__name__} "
                "(expected bout, fairness and events)"
            )
    return doc["events"], doc["fairness"]


def _run_checkers(doc: Any, checkers: Sequence[Checker]) -> list[Problem]:
    problems: list[Problem] = []
    for checker in checkers:
        try:
            problems += list(checker(doc))
        except RefereeError as err:
            problems.append(Problem(None, None, f"rule check failed: {err}", "rules"))
    return problems
