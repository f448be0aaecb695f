"""One call from a log to its judgement: read the lines, find the fighters, decide the spar.

>>> text = '''Judge: Spar between Tarl (CS 65) and PaKur (CS 70)
... OnlineHost: Tarl rolled 1 100-sided die: 47
... OnlineHost: PaKur rolled 1 100-sided die: 12'''
>>> case = judge_log(text)
>>> case.source, case.verdict.order, case.verdict.winner
('announced on line 1', ('Tarl', 'PaKur'), None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.errors import NotationError
from referee.systems.msv.rules import MsvRules
from referee.transcripts.fighters import Fighter, check_pair, find_announcement, parse_fighter
from referee.transcripts.judge import Verdict, decide
from referee.transcripts.reader import LogLine, check_text, decode_log, read_lines
from referee.transcripts.receipts import Ledger

EXAMPLE_ROLL = "'OnlineHost: NAME rolled 1 100-sided die: 47'"
EXAMPLE_ANNOUNCEMENT = "'Spar between Tarl Cabot (CS 65) and PaKur (CS 70)'"


@dataclass(frozen=True, slots=True)
class Judgement:
    """A judged log: its lines as read, where the fighters came from, the verdict."""

    lines: tuple[LogLine, ...]
    source: str
    verdict: Verdict


def judge_log(
    log: str | bytes,
    fighters: Sequence[str | Fighter] = (),
    rules: MsvRules | None = None,
    export: Any = None,
) -> Judgement:
    """Judge a log (text, or the bytes of a file) for the given fighters (`NAME=CS`), or the
    ones it announces, or the export's; `export` (a bout export document) checks receipts."""
    text = decode_log(log) if isinstance(log, bytes) else check_text(log)
    lines = tuple(read_lines(text))
    if not any(line.is_roll for line in lines):
        raise NotationError(f"the log has no roll lines (expected lines like {EXAMPLE_ROLL})")
    ledger = Ledger.from_export(export) if export is not None else None
    pair, source = _fighters(lines, fighters, ledger)
    _check_rolls(lines, pair)
    if rules is None and ledger is not None:
        rules = ledger.rules
    return Judgement(lines, source, decide(lines, pair, rules, ledger))


def _fighters(
    lines: Sequence[LogLine], given: Sequence[str | Fighter], ledger: Ledger | None
) -> tuple[tuple[Fighter, Fighter], str]:
    if given:
        parsed = [f if isinstance(f, Fighter) else parse_fighter(f) for f in given]
        return check_pair(parsed), "given"
    found = find_announcement((line.number, line.text) for line in lines)
    if found is not None:
        number, announced = found
        return check_pair(announced), f"announced on line {number}"
    if ledger is not None and ledger.fighters:
        return check_pair(ledger.fighters), "the export"
    raise NotationError(
        f"the log announces no spar (a line like {EXAMPLE_ANNOUNCEMENT}): name both "
        "fighters as NAME=CS (--fighter 'Tarl Cabot=65' --fighter PaKur=70)"
    )


def _check_rolls(lines: Sequence[LogLine], pair: tuple[Fighter, Fighter]) -> None:
    """Each fighter rolls at least once (a name that never rolls is misspelt or absent)."""
    rollers = {
        "".join(line.roll.name.split()).casefold()
        for line in lines
        if line.roll is not None and line.forged is None
    }
    for fighter in pair:
        if fighter.key not in rollers:
            raise NotationError(
                f"fighter {fighter.name!r} never rolls in the log (no OnlineHost line names "
                "them): check the spelling of the name"
            )
