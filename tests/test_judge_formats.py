"""Every chat format the judge reads: a clean sample log and one with each anomaly kind.

The samples are data files (`tests/data/judge/formats/`, written by `tests/judge_samples.py`
from one spar script): the clean one is judged to the script's verdict with no anomaly, the
other to the same verdict with exactly the anomalies the writer put in, on their lines.
"""

from __future__ import annotations

import json

import pytest

from referee.transcripts import FORMATS, judge_log
from referee.transcripts.reader import read_log
from tests.judge_samples import FORMATS_DIR, STYLES, sample

EXPECTED = json.loads((FORMATS_DIR / "expected.json").read_text(encoding="utf-8"))


def test_every_format_has_a_sample_and_every_sample_a_format() -> None:
    assert {f.name for f in FORMATS} == set(STYLES)
    assert {e["format"] for e in EXPECTED.values()} == set(STYLES)


@pytest.mark.parametrize("name", sorted(EXPECTED), ids=str)
def test_a_sample_log_is_judged_to_the_script_s_verdict(name: str) -> None:
    want = EXPECTED[name]
    style = STYLES[want["format"]]
    data = (FORMATS_DIR / name).read_bytes()
    assert data.decode("utf-8") == sample(want["format"], "anomalies" in name)[0]
    case = judge_log(data)
    verdict = case.verdict
    assert case.transcript.format.name == want["format"]
    assert case.source == f"announced on line {1 + _header(want['format'])}"
    assert (verdict.winner, verdict.damage_dealt, verdict.attacks) == (
        style.a,
        {style.a: 16, style.b: 8},
        10,
    )
    assert [[a.line, a.kind.value] for a in verdict.anomalies] == want["anomalies"]


def _header(fmt: str) -> int:
    """Lines the logger writes before the first message (the announcement's line - 1)."""
    heads = {"discord-txt": 6, "discord-copy": 1, "discord-csv": 1, "hexchat": 2}
    return heads.get(fmt, 0 if fmt in ("aol", "second-life") else 1)


@pytest.mark.parametrize("fmt", sorted(STYLES), ids=str)
def test_the_reasons_of_each_anomaly_name_the_author(fmt: str) -> None:
    case = judge_log(sample(fmt, True)[0])
    forged = [a.reason for a in case.verdict.anomalies if a.kind.value == "forged"]
    style = STYLES[fmt]
    assert any(style.b in reason for reason in forged), forged
    assert any("only looks like" in reason for reason in forged), forged
    if style.emotes:
        assert any("inside an emote (/me) of 'Bosk'" in reason for reason in forged), forged


def test_the_format_can_be_named_and_a_wrong_name_is_one_clear_error() -> None:
    text = sample("mirc", False)[0]
    assert read_log(text, format="mirc").format.name == "mirc"
    with pytest.raises(Exception, match="unknown log format 'irc' \\(one of: discord-txt"):
        read_log(text, format="irc")
