"""A verdict as `referee judge --json` prints it: `json.dumps(verdict.to_json(), indent=2,
ensure_ascii=False)` exactly, written fast.

Python's JSON encoder with `indent` is written in Python: a 100,000-line log's document (some
70,000 entries) took it most of a second. The entries' shapes are few: the readings of a
log share who rolled what and what it was (`referee.transcripts.columns`), its anomalies
share why. So each shape is encoded once, by `json.dumps` itself, from the entry's own
`to_json` (its line set to 0), and every entry of that shape is that text with its line
number put in; the rest of the document is `json.dumps` of the verdict's `to_json` with the
lists of entries left out. In indented JSON a line end is never inside a string (a string
writes it `\\n`), so a part encoded alone is moved one level in by indenting its lines.

>>> import json
>>> from referee.transcripts.judgement import judge_log
>>> verdict = judge_log("OnlineHost: A rolled 1 100-sided die: 90\\n"
...                     "OnlineHost: B rolled 1 100-sided die: 30\\n"
...                     "OnlineHost: B rolled 1 100-sided die: 30", ["A=50", "B=50"]).verdict
>>> json_text(verdict) == json.dumps(verdict.to_json(), indent=2, ensure_ascii=False)
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar

from referee.transcripts.columns import anomaly_columns, reading_columns
from referee.transcripts.verdict import Anomaly, Reading, Verdict

T = TypeVar("T")

#: The indent of one level, as `--json` writes it.
_INDENT = "  "
#: How an entry's text begins, up to its line number (`line` is each entry's first key).
_LINE = '{\n  "line": '


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=len(_INDENT), ensure_ascii=False)


def _inward(text: str, levels: int) -> str:
    """Encoded JSON moved `levels` levels in (its lines after the first indented)."""
    return text.replace("\n", "\n" + _INDENT * levels)


def json_text(verdict: Verdict) -> str:
    """The `--json` document of a verdict (see the module text)."""
    lines, whos, whats = reading_columns(verdict.rolls)
    rolls = _entries(
        lines,
        zip(whos, whats, strict=True),
        lambda shape: (id(shape[0]), id(shape[1])),
        lambda shape: Reading._make((0, *shape[0], *shape[1])).to_json(),
    )
    lines, whys = anomaly_columns(verdict.anomalies)
    anomalies = _entries(lines, whys, id, lambda why: Anomaly._make((0, *why)).to_json())
    listed = {"anomalies": anomalies, "rolls": rolls}
    parts = []
    for key, value in verdict.to_json(entries=False).items():
        text = listed[key] if key in listed else _inward(_dumps(value), 1)
        parts.append(f"{_INDENT}{json.dumps(key, ensure_ascii=False)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}"


def _entries(
    lines: Iterable[int],
    shapes: Iterable[T],
    same: Callable[[T], Hashable],
    entry: Callable[[T], dict[str, Any]],
) -> str:
    """The text of a list of entries, one level in: each entry's line and its shape, whose
    entry (`entry(shape)`, at line 0) is encoded once for the shapes that are the `same`.
    The columns share one tuple among the entries alike, so `same` tells them apart by its
    identity (they are all alive while this runs)."""
    start = _INDENT * 2 + _inward(_LINE, 2)
    written: dict[Hashable, str] = {}  # the text after the line number, by shape
    out = []
    for line, shape in zip(lines, shapes, strict=True):
        key = same(shape)
        rest = written.get(key)
        if rest is None:
            text = _inward(_dumps(entry(shape)), 2)
            assert text.startswith(_inward(_LINE, 2) + "0"), text  # `line` first, at 0
            rest = written[key] = text[len(_inward(_LINE, 2)) + 1 :]
        out.append(f"{start}{line}{rest}")
    return "[\n" + ",\n".join(out) + f"\n{_INDENT}]" if out else "[]"
