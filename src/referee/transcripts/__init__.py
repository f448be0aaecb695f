"""Chat-log transcripts of MSV spars: formats as data, reading a log, and the judge.

`judge_log(text)` reads a log (AOL room logs, time-stamped loggers, Second Life viewer logs,
the service's receipts), finds the two fighters, decides the spar by the rule pack and lists
every roll line that does not count, with why (`forged`, `wrong-dice`, `not-a-fighter`,
`out-of-turn`, and with an export `missing`). `bout_as_chat(export)` is the other way round.

>>> case = judge_log("OnlineHost: A rolled 1 100-sided die: 90\\n"
...                  "OnlineHost: B rolled 1 100-sided die: 30", ["A=50", "B=50"])
>>> case.verdict.order
('B', 'A')
"""

from referee.transcripts.chat_export import bout_as_chat
from referee.transcripts.fighters import Fighter, parse_fighter
from referee.transcripts.formats import STAMPS, Stamp
from referee.transcripts.judge import Anomaly, Kind, Reading, Use, Verdict, decide
from referee.transcripts.judgement import Judgement, judge_log
from referee.transcripts.reader import (
    MAX_LOG_BYTES,
    HostRoll,
    LogLine,
    decode_log,
    read_line,
    read_lines,
)
from referee.transcripts.receipts import Ledger, LedgerRoll

__all__ = [
    "MAX_LOG_BYTES",
    "STAMPS",
    "Anomaly",
    "Fighter",
    "HostRoll",
    "Judgement",
    "Kind",
    "Ledger",
    "LedgerRoll",
    "LogLine",
    "Reading",
    "Stamp",
    "Use",
    "Verdict",
    "bout_as_chat",
    "decide",
    "decode_log",
    "judge_log",
    "parse_fighter",
    "read_line",
    "read_lines",
]
