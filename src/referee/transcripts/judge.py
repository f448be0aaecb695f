"""The judge: rebuild an MSV spar from the roll lines of a log, and flag the rest.

The spar is followed as the bout engine would referee it (`referee.transcripts.spar`, MSV-5
to MSV-7, any number of fighters and sides). **Only the first valid 1d100 host roll of the
fighter whose turn it is counts**; every other roll line is an anomaly and changes nothing:
one its author could not post (`forged`), a receipt or commitment used twice or out of order
(`forged`, `referee.transcripts.reuse`), a roll of someone else, the wrong dice, out of turn.
With the bout's export the verdict is the ledger's own and the log is listed against it.

>>> from referee.transcripts.reader import read_log
>>> from referee.transcripts.fighters import parse_fighter
>>> log = read_log('''OnlineHost: Tarl rolled 1 100-sided die: 47
... OnlineHost: PaKur rolled 1 100-sided die: 12
... OnlineHost: Tarl rolled 1 100-sided die: 40
... OnlineHost: Tarl rolled 1 100-sided die: 55''')
>>> verdict = decide(log.rolls, [parse_fighter("Tarl=65"), parse_fighter("PaKur=70")])
>>> verdict.damage_dealt, verdict.attacks, verdict.anomalies
({'Tarl': 7, 'PaKur': 0}, 2, ())
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from referee.systems.msv.rules import MsvRules, default_rules
from referee.transcripts.authors import name_key
from referee.transcripts.fighters import Fighter, check_fighters
from referee.transcripts.reader import HostRoll, LogLine, RollLines
from referee.transcripts.reuse import ReceiptBook
from referee.transcripts.spar import Known, Spar
from referee.transcripts.targets import TargetBook
from referee.transcripts.verdict import Anomaly, Kind, Reading, Use, Verdict

if TYPE_CHECKING:  # the receipts against a ledger are loaded only with an export
    from referee.transcripts.receipts import Ledger

__all__ = ["Anomaly", "Kind", "Marker", "Reading", "Use", "Verdict", "decide"]


class Marker(NamedTuple):
    """A line of the service's that is not a roll but matters to receipts: a server seed
    revealed (`rotation`) or a commitment announced (`commitment`, its hex digest)."""

    line: int
    kind: str
    value: str = ""


def decide(
    lines: Sequence[LogLine],
    fighters: Sequence[Fighter],
    rules: MsvRules | None = None,
    ledger: Ledger | None = None,
    markers: Sequence[Marker] = (),
    targets: TargetBook | None = None,
) -> Verdict:
    """Judge the roll lines of a read log (a transcript's `RollLines`, or any `LogLine`s);
    see the module text."""
    checked = check_fighters(fighters)
    rules = rules or default_rules()
    if ledger is not None:
        return _against_ledger(lines, checked, rules, ledger)
    spar = Spar(checked, rules, targets or TargetBook())
    _follow(spar, lines if isinstance(lines, RollLines) else RollLines.of(lines), markers)
    return _verdict(spar, checked)


#: How the judge takes a claim of a roll line (`referee.transcripts.reader.Claim`).
_QUOTE, _FORGED, _RECEIPT, _ROLL = range(4)


def _follow(spar: Spar, rolls: RollLines, markers: Sequence[Marker]) -> None:
    """Follow the spar over the roll lines' columns: how each claim is taken is found once."""
    receipts = ReceiptBook()
    genuine: dict[tuple[str, tuple[int, ...], int | None], int] = {}
    claims = rolls.claims
    ways: list[tuple[int, Known | None]] = []  # by claim: how it is taken, its roll known
    for _, roll, forged, quoted in claims:
        if quoted:
            ways.append((_QUOTE, None))
        elif forged is not None or roll is None:
            ways.append((_FORGED, None))
        else:
            ways.append((_ROLL if roll.nonce is None else _RECEIPT, spar.know(roll)))
    quotes = any(way == _QUOTE for way, _ in ways)
    group = len(spar.fighters) > 2
    pending = sorted(markers)
    mark, marked = 0, len(pending)
    next_mark = pending[0].line if pending else _NEVER
    numbers = rolls.numbers
    last = len(numbers) - 1
    take, anomaly, check, forged_kind = spar.take_known, spar.anomaly, receipts.check, Kind.FORGED
    for index, (number, which) in enumerate(zip(numbers, rolls.which, strict=True)):
        while next_mark < number:
            _marker(spar, receipts, pending[mark])
            mark += 1
            next_mark = pending[mark].line if mark < marked else _NEVER
        way, known = ways[which]
        if way == _ROLL:
            assert known is not None
            if quotes:
                genuine.setdefault(_said(known[0]), number)
            until = (numbers[index + 1] if index < last else number + 1) if group else 0
            take(number, known, until)
            continue
        speaker, roll, forged, _ = claims[which]
        if way == _FORGED:
            anomaly(number, forged_kind, forged or "no roll", roll)
        elif way == _RECEIPT:
            assert known is not None and roll is not None
            reused = check(roll, number)
            if reused is not None:
                anomaly(number, forged_kind, reused, roll)
                continue
            if quotes:
                genuine.setdefault(_said(roll), number)
            until = (numbers[index + 1] if index < last else number + 1) if group else 0
            take(number, known, until)
        else:
            _quoted(spar, number, speaker, roll, genuine)
    for marker in pending[mark:]:
        _marker(spar, receipts, marker)


#: Later than any line.
_NEVER = 1 << 62


def _said(roll: HostRoll) -> tuple[str, tuple[int, ...], int | None]:
    return (name_key(roll.name), roll.faces, roll.nonce)


def _quoted(
    spar: Spar,
    number: int,
    speaker: str | None,
    roll: HostRoll | None,
    genuine: dict[tuple[str, tuple[int, ...], int | None], int],
) -> None:
    first = genuine.get(_said(roll)) if roll is not None else None
    if roll is not None and first is not None:
        spar.read(number, roll, roll.name, Use.QUOTED, f"quoted from line {first}: no effect")
        return
    who = f" by {speaker!r}" if speaker else ""
    reason = f"a quoted roll{who} that no host line before it says"
    spar.anomaly(number, Kind.FORGED, reason, roll)


def _marker(spar: Spar, receipts: ReceiptBook, marker: Marker) -> None:
    if marker.kind == "rotation":
        receipts.rotated()
        return
    reused = receipts.commitment(marker.value, marker.line)
    if reused is not None:
        spar.flag(marker.line, Kind.FORGED, reused)


def _verdict(spar: Spar, fighters: tuple[Fighter, ...], notes: Sequence[str] = ()) -> Verdict:
    return Verdict(
        fighters=fighters,
        winner=spar.winner,
        damage_dealt=spar.dealt,
        attacks=spar.attacks,
        anomalies=spar.anomalies,
        rolls=spar.readings,
        order=spar.order,
        threshold=spar.rules.defeat_threshold,
        notes=tuple(notes),
        damage_taken=spar.taken,
    )


def _against_ledger(
    lines: Sequence[LogLine], fighters: tuple[Fighter, ...], rules: MsvRules, ledger: Ledger
) -> Verdict:
    """The ledger's own spar, and each log line listed against it."""
    fight = [r for r in ledger.rolls if not r.voided and r.use in ("initiative", "attack")]
    named = TargetBook()
    for held in fight:
        if held.target:  # the ledger's line numbers: a roll at 2 * seq, its target after it
            named.add(2 * held.seq + 1, held.name, held.target, service=True)
    truth = Spar(fighters, rules, named)
    by_seq: dict[int, Reading] = {}
    for held in fight:
        sides = held.sides[0] if held.sides else 0
        roll = HostRoll(held.name, len(held.sides), sides, held.faces, held.nonce, held.stream)
        before = len(truth.readings)
        truth.take(2 * held.seq, roll, 2 * held.seq + 2)
        if len(truth.readings) > before:
            by_seq[held.seq] = truth.readings.at(-1)
    log = Spar(fighters, rules)
    for line in lines:
        _against(log, line, ledger, by_seq)
    _missing(log, ledger, lines[-1].number if lines else 0)
    return Verdict(
        fighters=fighters,
        winner=truth.winner,
        damage_dealt=truth.dealt,
        attacks=truth.attacks,
        anomalies=log.anomalies,
        rolls=log.readings,
        order=truth.order,
        threshold=rules.defeat_threshold,
        notes=tuple(ledger.notes),
        damage_taken=truth.taken,
    )


def _against(log: Spar, line: LogLine, ledger: Ledger, by_seq: dict[int, Reading]) -> None:
    roll = line.roll
    if line.quoted or line.forged is not None or roll is None:
        reason = line.forged or "a quoted roll: not a receipt"
        log.anomaly(line.number, Kind.FORGED, reason, roll)
        return
    held, forged = ledger.claim(roll)
    if held is not None:
        ledger.claimed_on[held.seq] = line.number
    if forged is not None or held is None:
        log.anomaly(line.number, Kind.FORGED, forged or "not in the ledger", roll)
    elif held.voided:
        log.read(line.number, roll, roll.name, Use.VOIDED, "voided by the referee (ledger)")
    elif held.use == "free-roll":
        log.read(line.number, roll, roll.name, Use.FREE_ROLL, "a free roll (ledger): no effect")
    elif held.seq in by_seq:
        log.readings.add_reading(by_seq[held.seq]._replace(line=line.number, nonce=roll.nonce))
    else:
        log.read(line.number, roll, roll.name, Use.ANOMALY, "the ledger's roll changed nothing")


def _missing(log: Spar, ledger: Ledger, last: int) -> None:
    """Each ledger roll no receipt claimed, placed on the line of the next claimed receipt."""
    claimed = sorted(ledger.claimed_on.items())
    seqs = [seq for seq, _ in claimed]
    for held in ledger.missing():
        later = bisect.bisect_right(seqs, held.seq)
        where = claimed[later][1] if later < len(claimed) else last
        reason = f"the ledger's roll {held} is not in the log"
        log.flag(where, Kind.MISSING, reason)
