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
from collections.abc import Callable, Iterator, Sequence
from itertools import chain, compress, repeat

from referee.sentences import order_text
from referee.transcripts.columns import (
    What,
    Why,
    anomaly_columns,
    identities,
    reading_columns,
    said_once,
)
from referee.transcripts.judgement import Judgement
from referee.transcripts.parts import printf_parts
from referee.transcripts.verdict import Use, Verdict


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
    attacks = f"{verdict.attacks} attack{'' if verdict.attacks == 1 else 's'} counted"
    return f"Verdict: {head}: {dealt}; {attacks}; {anomalies}"


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
    for line, note in notes_in_order(case):
        notes[line].append(note)
    return notes


def notes_in_order(
    case: Judgement,
    anomalies: tuple[Sequence[int], Sequence[str]] | None = None,
    say: Callable[[str], str] = str,
) -> Iterator[tuple[int, str]]:
    """What the judge says under the lines, as (line, note): each roll line's reading
    (`= reading`), then each anomaly (`! kind: reason`) in the order of their lines, each
    note as `say` puts it (a report's indent before it, a page's paragraph around it). Read off the
    verdict's columns: no `Reading` or `Anomaly` is made, a note is made and put once for the
    lines read alike. `anomalies` are the verdict's `anomaly_notes` when made already."""
    lines, _, whats = reading_columns(case.verdict.rolls)
    anomaly = Use.ANOMALY  # (a member looked up once: each look-up runs the enum's code)
    noted = [what[0] is not anomaly for what in whats]  # an anomaly's reading: its anomaly
    whats = list(compress(whats, noted))
    readings = zip(
        compress(lines, noted),
        said_once(identities(whats), whats, lambda what: say(_reading_note(what))),
        strict=True,
    )
    if anomalies is None:
        numbers, whys = anomaly_columns(case.verdict.anomalies)
        marks = said_once(identities(whys), whys, lambda why: say(f"! {_anomaly_note(why)}"))
    else:
        numbers, said = anomalies
        marks = said_once(identities(said), said, lambda note: say(f"! {note}"))
    return chain(readings, zip(numbers, marks, strict=True))


def _reading_note(what: What) -> str:
    """A reading's note (a roll read as an anomaly has none: its anomaly says why)."""
    if what[0] is Use.FREE_ATTACK:
        return f"= free attack (MSV-4): {what[1]}"
    return f"= {what[1]}"


def _anomaly_note(why: Why) -> str:
    """An anomaly's `kind: reason`."""
    return f"{why[0].value}: {why[1]}"


def anomaly_notes(verdict: Verdict) -> tuple[Sequence[int], list[str]]:
    """Each anomaly's line and `kind: reason`, in the order of their lines."""
    lines, whys = anomaly_columns(verdict.anomalies)
    return lines, said_once(identities(whys), whys, _anomaly_note)


def format_line(case: Judgement) -> str:
    """How the log was read: its format and the hosts trusted to roll.

    >>> from referee.transcripts.judgement import judge_log
    >>> format_line(judge_log("OnlineHost: A rolled 1 100-sided die: 9\\n"
    ...                       "OnlineHost: B rolled 1 100-sided die: 3", ["A=50", "B=50"]))
    'Read as: aol (AOL room log (Name: text), with or without time stamps); rolls by OnlineHost'
    """
    log = case.transcript
    return f"Read as: {log.format.name} ({log.format.title}); rolls by {log.trust.named}"


#: How many of the log's lines the text report makes at once (some 1 MB of text for a long
#: log): each part is made, written and let go before the next, so that a long log's report is
#: never held whole (a fresh process pays for each megabyte it touches first).
PART_LINES = 8192


def report_text(case: Judgement) -> str:
    """The whole text report (`referee judge` prints it and a line end): the verdict, the
    fighters, how the log was read, the order, the notes, each anomaly, then the log
    line-numbered with what the judge says under each line (`report_parts`, joined)."""
    return "".join(report_parts(case))


def report_parts(case: Judgement, lines: int = PART_LINES) -> Iterator[str]:
    """The text report in parts, in order (`report_text` joined, `referee judge` writes them
    one by one): the head, then the log `lines` lines at a time. The log's lines are the
    file's own (`Transcript.raw`): no `LogLine` is made; the notes under a line are given
    beside its text, each note's text made once for the lines read alike."""
    verdict = case.verdict
    head = [verdict_line(verdict), fighters_line(case), format_line(case)]
    if verdict.order:
        head.append(order_text(verdict.order))
    head += [f"Note: {note}" for note in verdict.notes]
    anomalies = anomaly_notes(verdict)
    raw = case.transcript.raw
    count, width = len(raw), len(str(len(raw)))
    under = "\n" + " " * width + "    "  # a note's line: under the line's text
    said = [""] * count  # what is said under each line
    for number, note in notes_in_order(case, anomalies, under.__add__):
        if 0 < number <= count:
            said[number - 1] += note
    # each anomaly's line in one printf-style format, its line and note given as values
    listed = "".join(repeat("  line %d: %s\n", len(anomalies[0])))
    marked = chain.from_iterable(zip(*anomalies, strict=True))
    yield "\n".join([*head, ""]) + listed % tuple(marked) + "\n"

    # each part in one printf-style format (`%6d  %s%s`: the number right-aligned to the
    # widest, the text, the notes under it)
    def values(start: int, stop: int) -> Iterator[object]:
        rows = zip(range(start + 1, stop + 1), raw[start:stop], said[start:stop], strict=True)
        return chain.from_iterable(rows)

    yield from printf_parts(f"%{width}d  %s%s", "\n", count, lines, values)


def text_report(case: Judgement) -> Iterator[str]:
    """The whole text report, line by line (`report_text`)."""
    return iter(report_text(case).split("\n"))
