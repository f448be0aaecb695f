"""Property (issue 46): a log that came wrapped, re-encoded or quoted, each way docs/judge.md
lists, is judged as the log itself, and nothing of the kind makes the judge crash.

The logs are the sample logs of every format (`tests.judge_samples`: a spar by MSV-1..MSV-7,
clean and with every anomaly kind). The ways a log travels:

- hard-wrapped at 72 columns between words, as a mail client sends it (line-by-line formats
  and Discord's TXT and window copies; DiscordChatExporter's CSV and Pidgin's HTML are files,
  read as written);
- quoted in an e-mail reply: `> ` or `> > ` or `>` before every line;
- re-encoded: UTF-8 with or without a BOM, UTF-16 with a BOM or without one (either byte
  order), cp1252 when the log has only its characters; lines ending at LF, CRLF or a lone CR.

The verdict is the same: winner, damage dealt, attacks, initiative order, and every anomaly
and roll reading with its kind, on the line of the wrapped log where the line begins.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.errors import RefereeError
from referee.transcripts import judge_log
from tests.depth import examples
from tests.judge_samples import WRITERS, sample

SETTINGS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

#: The formats a hard wrap is joined back in (docs/judge.md, "Hard wraps").
WRAPPED = sorted(set(WRITERS) - {"discord-csv", "pidgin-html"})
ENCODINGS = ("utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "cp1252")
ENDS = ("\n", "\r\n", "\r")
QUOTES = ("> ", "> > ", ">")


def wrap(text: str, width: int = 72) -> tuple[str, dict[int, int]]:
    """The text hard-wrapped between words, and where each of its lines begins in it."""
    out: list[str] = []
    where: dict[int, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        where[number] = len(out) + 1
        pieces = textwrap.wrap(
            line,
            width,
            expand_tabs=False,
            replace_whitespace=False,
            break_long_words=False,
            break_on_hyphens=False,
        )
        out += pieces if len(line) > width and pieces else [line]
    return "\n".join(out), where


def quote(text: str, mark: str) -> str:
    """The text as an e-mail reply quotes it."""
    body = text[:-1] if text.endswith("\n") else text
    return "\n".join(mark + line for line in body.split("\n")) + "\n"


def encode(text: str, encoding: str, end: str) -> bytes | None:
    """The text's bytes in an encoding, its lines ending at `end` (None: it cannot say it)."""
    try:
        return text.replace("\n", end).encode(encoding)
    except UnicodeEncodeError:
        return None


def said(case: Any, where: dict[int, int] | None = None) -> dict[str, Any]:
    """What a judgement says, its line numbers as the original log's (through `where`)."""
    back = {new: old for old, new in (where or {}).items()}
    verdict = case.verdict

    def line(number: int) -> int:
        return back.get(number, -number) if where is not None else number

    return {
        "winner": verdict.winner,
        "dealt": verdict.damage_dealt,
        "attacks": verdict.attacks,
        "order": verdict.order,
        "fighters": [(f.name, f.cs, f.team) for f in verdict.fighters],
        "anomalies": [(line(a.line), a.kind.value) for a in verdict.anomalies],
        "rolls": [(line(r.line), r.use.value, r.name, r.faces) for r in verdict.rolls],
    }


def _judged(data: str | bytes) -> Any:
    try:
        return judge_log(data)
    except RefereeError as err:  # bad input is a verdict of its own, never a crash
        return f"{type(err).__name__}: {err}"


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_each_sample_is_judged_with_no_error(fmt: str) -> None:
    for anomalies in (False, True):
        case = judge_log(sample(fmt, anomalies)[0])
        assert case.verdict.winner is not None


@SETTINGS
@given(
    fmt=st.sampled_from(sorted(WRITERS)),
    anomalies=st.booleans(),
    wrapped=st.booleans(),
    mark=st.sampled_from((None, *QUOTES)),
    encoding=st.sampled_from(ENCODINGS),
    end=st.sampled_from(ENDS),
)
def test_wrapping_quoting_or_re_encoding_never_changes_the_verdict(
    fmt: str, anomalies: bool, wrapped: bool, mark: str | None, encoding: str, end: str
) -> None:
    text = sample(fmt, anomalies)[0]
    truth = said(judge_log(text))
    where = None
    if wrapped and fmt in WRAPPED:
        text, where = wrap(text)
    if mark is not None and fmt != "pidgin-html":
        text = quote(text, mark)
    data = encode(text, encoding, end)
    if data is None:
        return
    case = _judged(data)
    assert not isinstance(case, str), case
    assert said(case, where) == truth


@SETTINGS
@given(
    fmt=st.sampled_from(sorted(WRITERS)),
    anomalies=st.booleans(),
    width=st.integers(20, 100),
    mark=st.sampled_from((None, *QUOTES)),
    encoding=st.sampled_from(ENCODINGS),
    end=st.sampled_from(ENDS),
)
def test_any_wrapping_of_any_format_is_judged_or_refused_in_one_line(
    fmt: str, anomalies: bool, width: int, mark: str | None, encoding: str, end: str
) -> None:
    """Wrapped at any width, CSV and HTML too: a verdict or a `RefereeError`, never a crash."""
    text, _ = wrap(sample(fmt, anomalies)[0], width)
    if mark is not None:
        text = quote(text, mark)
    data = encode(text, encoding, end)
    if data is not None:
        case = _judged(data)
        if isinstance(case, str):  # refused: one line, as the command says it
            assert "\n" not in case, case
