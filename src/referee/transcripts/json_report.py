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
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any

from referee.transcripts.columns import (
    What,
    Who,
    Why,
    anomaly_columns,
    identities,
    reading_columns,
    said_once,
)
from referee.transcripts.parts import printf_parts
from referee.transcripts.verdict import Anomaly, Reading, Verdict

#: The indent of one level, as `--json` writes it.
_INDENT = "  "
#: How an entry's text begins, up to its line number (`line` is each entry's first key).
_LINE = '{\n  "line": '


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=len(_INDENT), ensure_ascii=False)


def _inward(text: str, levels: int) -> str:
    """Encoded JSON moved `levels` levels in (its lines after the first indented)."""
    return text.replace("\n", "\n" + _INDENT * levels)


#: How many entries of a list `json_parts` makes at once (some 1 MB of text).
PART_ENTRIES = 4096


def json_text(verdict: Verdict) -> str:
    """The `--json` document of a verdict (see the module text; `json_parts`, joined)."""
    return "".join(json_parts(verdict))


def json_parts(verdict: Verdict, entries: int = PART_ENTRIES) -> Iterator[str]:
    """The `--json` document in parts, in order (`referee judge --json` writes them one by
    one): the lists of entries `entries` entries at a time, so that a long log's document is
    never held whole."""
    lines, whos, whats = reading_columns(verdict.rolls)
    pairs = zip(whos, whats, strict=True)
    rolls = lines, said_once(identities(whos, whats), pairs, lambda pair: _rest(_reading(*pair)))
    lines, whys = anomaly_columns(verdict.anomalies)
    anomalies = lines, said_once(identities(whys), whys, lambda why: _rest(_anomaly(why)))
    listed = {"anomalies": anomalies, "rolls": rolls}
    items = list(verdict.to_json(entries=False).items())
    yield "{\n"
    for index, (key, value) in enumerate(items, start=1):
        yield f"{_INDENT}{json.dumps(key, ensure_ascii=False)}: "
        if key in listed:
            yield from _entries(*listed[key], entries)
        else:
            yield _inward(_dumps(value), 1)
        yield ",\n" if index < len(items) else "\n}"


def _reading(who: Who, what: What) -> dict[str, Any]:
    return Reading(0, *who, *what).to_json()


def _anomaly(why: Why) -> dict[str, Any]:
    return Anomaly(0, *why).to_json()


#: An entry's start, one level in (in the list of its kind), up to its line number.
_START = _INDENT * 2 + _inward(_LINE, 2)


def _rest(entry: dict[str, Any]) -> str:
    """An entry's text after its line number (the entry at line 0), one level in."""
    text = _INDENT * 2 + _inward(_dumps(entry), 2)
    assert text.startswith(_START + "0"), text  # `line` first, at 0
    return text[len(_START) + 1 :]


def _entries(lines: Sequence[int], rests: Sequence[str], size: int) -> Iterator[str]:
    """The text of a list of entries, one level in, from their lines and the rest of each,
    in parts of `size` entries."""
    if not lines:
        yield "[]"
        return

    # `{_START}{line}{rest}` for each entry, a part at a time
    def values(start: int, stop: int) -> Iterator[object]:
        return chain.from_iterable(zip(lines[start:stop], rests[start:stop], strict=True))

    yield "[\n"
    yield from printf_parts(_START.replace("%", "%%") + "%d%s", ",\n", len(lines), size, values)
    yield f"\n{_INDENT}]"
