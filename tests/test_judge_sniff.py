"""Sniffing a log's format drops a format as soon as it cannot win: the format taken, and its
fit, are those of scoring every format on every sampled line, in order (the brute-force
reference below, the sniffing as it was before formats were dropped)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.transcripts.formats import Format, builtin
from referee.transcripts.sniff import SAMPLE, Fit, fits, nearest
from tests.judge_samples import FORMATS_DIR

CHEATS = FORMATS_DIR.parent / "cheats"
EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


def reference_fit(fmt: Format, sample: Sequence[tuple[int, str]], text: str) -> Fit:
    """A format's fit, every sampled line looked at."""
    if fmt.container == "csv":
        return Fit(int(bool(re.match(r'\ufeff?"?AuthorID"?,"?Author"?,', text))), 1)
    if fmt.container == "html":
        head = text[:2000].lower()
        if not ("<html" in head or "<font" in head or "<br" in head):
            return Fit(0, len(sample), sample[0][0] if sample else 0, "no HTML")
        tag = re.compile(r"<[^<>\n]{0,400}>")
        sample = [(n, html.unescape(tag.sub("", line))) for n, line in sample]
    count, miss, in_block = 0, (0, ""), False
    for number, line in sample:
        if fmt.header is not None and fmt.header.fullmatch(line):
            count, in_block = count + 1, True
        elif fits(fmt, line) or (in_block and fmt.blocks):
            count += 1
        elif not miss[0]:
            miss = (number, line[:80])
    return Fit(count, len(sample), *miss)


def reference(text: str, formats: Sequence[Format]) -> tuple[Format, Fit]:
    """Every format scored in full, in order: the most lines fit, the earlier on a tie,
    AOL's when none fits."""
    sample = [(n, line) for n, line in enumerate(text.split("\n", SAMPLE)[:SAMPLE], 1) if line]
    scored = [(fmt, reference_fit(fmt, sample, text)) for fmt in formats]
    best = scored[0]
    for fmt, fit in scored[1:]:
        if fit.fitting > best[1].fitting:
            best = (fmt, fit)
    aol = builtin().by_name["aol"]
    if best[1].fitting == 0 and aol in formats:
        return aol, reference_fit(aol, sample, text)
    return best


#: The built-in formats but the CSV one (told by its header alone).
LINE_FORMATS = [f for f in builtin().formats if f.container != "csv"]


def logs() -> list[str]:
    paths = [*FORMATS_DIR.glob("*.log"), *CHEATS.iterdir(), *EXAMPLES.glob("*.log")]
    return [p.read_text(encoding="utf-8").replace("\r\n", "\n") for p in sorted(paths)]


def test_every_sample_log_is_sniffed_as_by_scoring_every_format() -> None:
    texts = logs()
    assert len(texts) >= 25
    for text in texts:
        assert nearest(text, LINE_FORMATS) == reference(text, LINE_FORMATS)


#: Lines of every built-in format (their examples), some lines of none, and blank ones.
LINES = [line for f in builtin().formats for line in f.example.split("\n")] + [
    "just some words",
    "Tarl: hi",
    "",
    "[21:03] OnlineHost: Tarl rolled 1 100-sided die: 47",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(LINES), min_size=1, max_size=30), st.permutations(LINE_FORMATS))
def test_a_mixed_log_is_sniffed_as_by_scoring_every_format(
    lines: list[str], formats: list[Format]
) -> None:
    """Whatever the mix of lines and the order of the formats (which decides ties)."""
    text = "\n".join(lines)
    if not text.strip():
        return
    assert nearest(text, formats) == reference(text, formats)
    assert nearest(text, formats[:3]) == reference(text, formats[:3])
