"""A judgement as text: the verdict, the anomalies, then the log line-numbered and annotated.

What the log's events did is said as `referee.sentences` says them: the settled order as an
`initiative` event says it, an attack's reading as its `outcome` says it (tests compare a
bout's `export --chat` judged back with the bout's own events).

>>> from referee.transcripts.judgement import judge_log
>>> case = judge_log("OnlineHost: A rolled 1 100-sided die: 90\\n"
...                  "OnlineHost: B rolled 1 100-sided die: 30", ["A=50", "B=50"])
>>> verdict_line(case.verdict)[:60]
'Verdict: unfinished (nobody has taken 15 damage): A dealt 0,'
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from referee.sentences import order_text
from referee.transcripts.judge import Use, Verdict
from referee.transcripts.judgement import Judgement


def verdict_line(verdict: Verdict) -> str:
    """One line: who won (or unfinished), damage dealt, attacks counted, anomalies."""
    dealt = ", ".join(f"{name} dealt {total}" for name, total in verdict.damage_dealt.items())
    head = (
        f"{verdict.winner} wins"
        if verdict.winner
        else f"unfinished (nobody has taken {verdict.threshold} damage)"
    )
    count = len(verdict.anomalies)
    anomalies = "no anomaly" if not count else f"{count} anomal{'y' if count == 1 else 'ies'}"
    return f"Verdict: {head}: {dealt}; {verdict.attacks} attacks counted; {anomalies}"


def fighters_line(case: Judgement) -> str:
    """The fighters and where they came from.

    >>> from referee.transcripts.judgement import judge_log
    >>> fighters_line(judge_log("OnlineHost: A rolled 1 100-sided die: 9\\n"
    ...                         "OnlineHost: B rolled 1 100-sided die: 3", ["A=50", "B=50"]))
    'Fighters: A (CS 50), B (CS 50) (given)'
    """
    named = ", ".join(
        f"{f.name} (CS {f.cs}{f', side {f.side}' if f.side else ''})" for f in case.verdict.fighters
    )
    return f"Fighters: {named} ({case.source})"


def notes_by_line(case: Judgement) -> dict[int, list[str]]:
    """What the judge says under each line: `= reading` for rolls, `! kind: reason`."""
    notes: dict[int, list[str]] = defaultdict(list)
    for reading in case.verdict.rolls:
        if reading.use is Use.FREE_ATTACK:
            notes[reading.line].append(f"= free attack (MSV-4): {reading.text}")
        elif reading.use is not Use.ANOMALY:
            notes[reading.line].append(f"= {reading.text}")
    for anomaly in case.verdict.anomalies:
        notes[anomaly.line].append(f"! {anomaly.kind.value}: {anomaly.reason}")
    return notes


def format_line(case: Judgement) -> str:
    """How the log was read: its format and the hosts trusted to roll.

    >>> from referee.transcripts.judgement import judge_log
    >>> format_line(judge_log("OnlineHost: A rolled 1 100-sided die: 9\\n"
    ...                       "OnlineHost: B rolled 1 100-sided die: 3", ["A=50", "B=50"]))
    'Read as: aol (AOL room log (Name: text), with or without time stamps); rolls by OnlineHost'
    """
    log = case.transcript
    return f"Read as: {log.format.name} ({log.format.title}); rolls by {log.trust.named}"


def text_report(case: Judgement) -> Iterator[str]:
    """The whole text report, line by line."""
    verdict = case.verdict
    yield verdict_line(verdict)
    yield fighters_line(case)
    yield format_line(case)
    if verdict.order:
        yield order_text(verdict.order)
    for note in verdict.notes:
        yield f"Note: {note}"
    for anomaly in verdict.anomalies:
        yield f"  line {anomaly.line}: {anomaly.kind.value}: {anomaly.reason}"
    yield ""
    notes = notes_by_line(case)
    width = len(str(len(case.lines)))
    for line in case.lines:
        yield f"{line.number:>{width}}  {line.text}"
        for note in notes.get(line.number, ()):
            yield f"{'':>{width}}    {note}"
