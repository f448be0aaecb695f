"""Chat-log transcripts of MSV spars: formats as data, reading a log, and the judge.

`judge_log(text)` reads a log in any format of `FORMATS` (AOL room logs and time-stamped
loggers, Second Life viewer logs and combat meters, IRC loggers and their DiceBot, Pidgin and
AIM, Discord exports and copies with OnlineHost, Dice Maiden, Avrae or the project's own bot,
the service's receipts; wrapped, quoted or re-encoded as pasted), finds who posted each
roll line, finds the fighters and sides, decides the spar by the rule pack and lists every
roll line that does not count, with why (`forged`, `wrong-dice`, `not-a-fighter`,
`out-of-turn`, `no-target`, and with an export `missing`). `bout_as_chat(export)` is the other
way round.

>>> case = judge_log("OnlineHost: A rolled 1 100-sided die: 90\\n"
...                  "OnlineHost: B rolled 1 100-sided die: 30", ["A=50", "B=50"])
>>> case.verdict.order
('B', 'A')
"""

from typing import TYPE_CHECKING

# Every part is imported here, eagerly and by name (the import contracts see each arrow): the
# parts a judge does not need cost a judge's start-up some 10 ms in all.
from referee.transcripts.chat_export import bout_as_chat
from referee.transcripts.decoding import MAX_LOG_BYTES, decode_log
from referee.transcripts.fighters import Fighter, parse_fighter
from referee.transcripts.formats import Format, Stamp
from referee.transcripts.judge import decide
from referee.transcripts.judgement import Judgement, judge_log
from referee.transcripts.reader import (
    HostRoll,
    LogLine,
    Transcript,
    read_line,
    read_lines,
    read_log,
)
from referee.transcripts.receipts import Ledger, LedgerRoll
from referee.transcripts.verdict import Anomaly, Kind, Reading, Use, Verdict

if TYPE_CHECKING:
    from referee.transcripts import formats as _formats

    FORMATS = _formats.FORMATS
    STAMPS = _formats.STAMPS


def __getattr__(name: str) -> object:
    """`FORMATS` and `STAMPS`, the built-in tables, read from their format files when first
    asked for (`referee.transcripts.formats`): importing the package reads no file."""
    if name in ("FORMATS", "STAMPS"):
        from referee.transcripts import formats

        return getattr(formats, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FORMATS",
    "MAX_LOG_BYTES",
    "STAMPS",
    "Anomaly",
    "Fighter",
    "Format",
    "HostRoll",
    "Judgement",
    "Kind",
    "Ledger",
    "LedgerRoll",
    "LogLine",
    "Reading",
    "Stamp",
    "Transcript",
    "Use",
    "Verdict",
    "bout_as_chat",
    "decide",
    "decode_log",
    "judge_log",
    "parse_fighter",
    "read_line",
    "read_lines",
    "read_log",
]
