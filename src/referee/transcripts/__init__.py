"""Chat-log transcripts of MSV spars: formats as data, reading a log, and the judge.

`judge_log(text)` reads a log in any format of `FORMATS` (AOL room logs and time-stamped
loggers, Second Life viewer logs and combat meters, IRC loggers, Pidgin and AIM, Discord
exports with OnlineHost, Dice Maiden or Avrae, the service's receipts), finds who posted each
roll line, finds the fighters and sides, decides the spar by the rule pack and lists every
roll line that does not count, with why (`forged`, `wrong-dice`, `not-a-fighter`,
`out-of-turn`, `no-target`, and with an export `missing`). `bout_as_chat(export)` is the other
way round.

>>> case = judge_log("OnlineHost: A rolled 1 100-sided die: 90\\n"
...                  "OnlineHost: B rolled 1 100-sided die: 30", ["A=50", "B=50"])
>>> case.verdict.order
('B', 'A')
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.transcripts.chat_export import bout_as_chat
    from referee.transcripts.decoding import MAX_LOG_BYTES, decode_log
    from referee.transcripts.fighters import Fighter, parse_fighter
    from referee.transcripts.formats import FORMATS, STAMPS, Format, Stamp
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

#: Where each public name lives: loaded when first used, so that a command that judges a log
#: does not load what writing a transcript or checking an export needs.
_HOMES = {
    "bout_as_chat": "chat_export",
    "MAX_LOG_BYTES": "decoding",
    "decode_log": "decoding",
    "Fighter": "fighters",
    "parse_fighter": "fighters",
    "FORMATS": "formats",
    "STAMPS": "formats",
    "Format": "formats",
    "Stamp": "formats",
    "decide": "judge",
    "Judgement": "judgement",
    "judge_log": "judgement",
    "HostRoll": "reader",
    "LogLine": "reader",
    "Transcript": "reader",
    "read_line": "reader",
    "read_lines": "reader",
    "read_log": "reader",
    "Ledger": "receipts",
    "LedgerRoll": "receipts",
    "Anomaly": "verdict",
    "Kind": "verdict",
    "Reading": "verdict",
    "Use": "verdict",
    "Verdict": "verdict",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'referee.transcripts' has no attribute {name!r}")
    value = getattr(import_module(f"referee.transcripts.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])


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
