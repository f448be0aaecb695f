"""Found a chat log: its format found, every roll line read with who posted it.

`read_log(text)` picks the format most of the log's lines fit (`referee.transcripts.formats`),
takes off e-mail quote marks (`> `) when the whole log is quoted, joins lines hard-wrapped at
72 columns back into one, and reads every line that says a roll. A roll line counts only when
its author is a host the judge trusts (`referee.transcripts.authors`): anyone else's is
`forged` whatever it says, and so is one inside an emote; one inside a quote (`> `, `(( ))`)
is marked quoted. Line numbers are the file's own, from 1.

>>> line = read_line(3, "[21:03] OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 4)")
>>> line.stamp, line.roll.faces, line.roll.nonce
('21:03', (47,), 4)
>>> read_line(4, "PaKur: OnlineHost: PaKur rolled 1 100-sided die: 99").forged
"a host line typed after the speaker's name 'PaKur'"
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, count, repeat
from operator import contains

from referee.errors import NotationError
from referee.transcripts.authors import Trust
from referee.transcripts.claims import QUOTE_MARKS, analyse, roll_line
from referee.transcripts.decoding import (
    MAX_LOG_BYTES,
    check_text,
    decode_log,
    one_line_end,
    split_lines,
)
from referee.transcripts.formats import Catalogue, Format, builtin
from referee.transcripts.lines import LogLine, RollLines, Said
from referee.transcripts.messages import block_rolls, block_said, csv_rolls, csv_said
from referee.transcripts.rolls import HostRoll
from referee.transcripts.sniff import (
    COUNT_CUT,
    ROLL_CUT,
    SIDED_CUT,
    Fit,
    nearest,
    skill_cut,
    sniff,
    unquote,
    unwrap,
)

__all__ = [
    "MAX_LOG_BYTES",
    "HostRoll",
    "LogLine",
    "RollLines",
    "Said",
    "Transcript",
    "check_text",
    "decode_log",
    "read_line",
    "read_lines",
    "read_log",
    "split_lines",
]

_TAG = re.compile(r"<[^<>\n]{0,400}>")


@dataclass(frozen=True)
class Transcript:
    """A read log: the file's lines, its format, its hosts, every roll line, and notes on how
    it was read (quote marks taken off, lines joined)."""

    raw: tuple[str, ...]
    format: Format
    trust: Trust
    rolls: RollLines
    fit: Fit
    notes: tuple[str, ...] = ()
    body: str = field(default="", repr=False)
    joined: dict[int, str] = field(default_factory=dict, repr=False)

    @cached_property
    def lines(self) -> tuple[LogLine, ...]:
        """Every line of the log as a `LogLine` (roll lines read, the rest only text)."""
        rolls = {line.number: line for line in self.rolls}
        get, make = rolls.get, LogLine._make
        return tuple(
            [
                get(n) or make((n, text, None, None, None, None, False))
                for n, text in enumerate(self.raw, start=1)
            ]
        )

    def grep(self, pattern: re.Pattern[str], within: str | None = None) -> set[int]:
        """The numbers of the lines where `pattern` is found (one pass over the text, or over
        `within`, a start of it)."""
        numbers: set[int] = set()
        number, counted = 1, 0
        text = self.body if within is None else within
        for hit in pattern.finditer(text):
            number += text.count("\n", counted, hit.start())
            counted = hit.start()
            numbers.add(number)
        return numbers

    def said(self, numbers: set[int] | None = None) -> Iterator[Said]:
        """What lines say and who said them (all lines, or those numbered), in order."""
        if self.format.container == "csv":
            yield from (s for s in csv_said(self.body) if numbers is None or s.number in numbers)
        elif self.format.blocks:
            yield from (
                s
                for s in block_said(self.format, self.body)
                if numbers is None or s.number in numbers
            )
        elif self.joined:
            lines = self.joined
            wanted = sorted(lines) if numbers is None else sorted(n for n in numbers if n in lines)
            for number in wanted:
                yield said_line(self.format, number, lines[number])
        else:
            # only the lines up to the last one asked for are split off the text
            last = -1 if numbers is None else max(numbers, default=0)
            split = self.body.split("\n", last)
            if numbers is None:
                wanted = list(range(1, len(split) + 1))
            else:
                wanted = sorted(n for n in numbers if 1 <= n <= min(last, len(split)))
            for number in wanted:
                yield said_line(self.format, number, split[number - 1])


def read_line(number: int, text: str, trust: Trust | None = None) -> LogLine:
    """One line of an AOL-style log (a speaker prefix, any time stamp)."""
    known = builtin()
    aol = known.by_name["aol"]
    said = said_line(aol, number, text)
    found = roll_line(said, text, trust or Trust.of(aol.hosts), known.shapes)
    return found or LogLine(number, text)


def read_lines(text: str) -> Iterator[LogLine]:
    """Every line of a log, read in the format that fits it (numbers from 1).

    >>> [line.number for line in read_lines("a\\nb")]
    [1, 2]
    """
    yield from read_log(text, require_rolls=False).lines


def read_log(
    text: str,
    hosts: Sequence[str] = (),
    format: str | None = None,
    require_rolls: bool = True,
    formats: Catalogue | None = None,
) -> Transcript:
    """Read a log (see the module text); `hosts` adds to the format's, `format` names one,
    `formats` are the formats and roll shapes to read it with (default: the built-in ones)."""
    known = formats or builtin()
    shapes = known.shapes
    text = one_line_end(text)
    raw = text.split("\n")
    if text.endswith("\n"):  # the line end ends the last line: no empty line after it
        raw.pop()
    body, notes = unquote(text)
    fmt, fit = _format(body, format, known)
    trust = Trust.of(fmt.hosts).add(hosts)
    if fmt.container == "html":
        body = _html_text(body)
    parsed: dict[int, str] = {}
    if fmt.container == "csv":
        rolls = RollLines.of(csv_rolls(body, raw, trust, shapes))
    elif fmt.blocks:
        rolls = RollLines.of(block_rolls(fmt, body, raw, trust, shapes))
    else:
        rolls, cut = _line_rolls(fmt, body, raw, trust, known, raw if body is text else None)
        wrapped = cut or skill_cut(body)
        joined = unwrap(fmt, body) if wrapped else None
        if joined is not None:
            parsed, count = joined
            lines, were = ("1 line", "was") if count == 1 else (f"{count} lines", "were")
            notes += (f"{lines} hard-wrapped at 72 columns {were} joined to the line before",)
            # a text ending in a line end has one empty line more than the file's lines
            said = (s for s in _said_all(fmt, parsed) if s.number <= len(raw))
            found = (roll_line(s, raw[s.number - 1], trust, shapes) for s in said)
            rolls = RollLines.of(line for line in found if line is not None)
    if require_rolls and not rolls:
        raise NotationError(_no_rolls(fmt, fit, body))
    return Transcript(tuple(raw), fmt, trust, rolls, fit, notes, body, parsed)


def _html_text(body: str) -> str:
    """An HTML log's text, line for line: its tags gone, its entities read (one that says a
    line end, `&#10;`, is a space: the lines stay the file's own)."""
    import html  # loaded for an HTML log alone (with its table of entities)

    lines = (html.unescape(_TAG.sub("", line)) for line in body.split("\n"))
    return "\n".join(line.replace("\r", " ").replace("\n", " ") for line in lines)


def _format(body: str, name: str | None, formats: Catalogue) -> tuple[Format, Fit]:
    if name is None:
        return sniff(body, formats)
    fmt = formats.by_name.get(name)
    if fmt is None:
        known = ", ".join(f.name for f in formats.formats)
        raise NotationError(f"unknown log format {name!r} (one of: {known})")
    return fmt, nearest(body, [fmt])[1]


def _no_rolls(fmt: Format, fit: Fit, body: str) -> str:
    example = "'OnlineHost: NAME rolled 1 100-sided die: 47'"
    if fit.total and fit.fitting * 2 < fit.total:
        return (
            f"the log is in no format the judge knows: the nearest, {fmt.name} ({fmt.title}), "
            f"fits {fit.fitting} of {fit.total} lines (line {fit.first_miss} is not in its shape: "
            f"{fit.miss_text!r}); the formats are listed in docs/judge.md"
        )
    return (
        f"the log has no roll lines (read as {fmt.name}: {fmt.title}; expected lines like "
        f"{example})"
    )


def said_line(fmt: Format, number: int, line: str) -> Said:
    """Who said one line of a line-by-line format, and what."""
    if fmt.system is not None and fmt.system.fullmatch(line):
        return Said(number, None, line, "system")
    kinds = (("speech", fmt.speech), ("emote", fmt.emote))
    for kind, pattern in kinds if fmt.speech_first else kinds[::-1]:
        match = pattern.fullmatch(line) if pattern is not None else None
        if match is not None:
            # a format file's group may take no part in a match (`(?:(?P<author>..): )?`):
            # no author then (a roll line with none is forged), no text
            text, author = match["text"] or "", match["author"]
            quoted = text.lstrip().startswith(QUOTE_MARKS)
            stamp = (match.groupdict().get("stamp") or "").strip("[]() \t") or None
            who = author.strip() if author is not None else None
            return Said(number, who, text, "quote" if quoted else kind, stamp)
    return Said(number, None, line, "text")


def _said_all(fmt: Format, lines: dict[int, str]) -> Iterator[Said]:
    for number, line in lines.items():
        yield said_line(fmt, number, line)


def _line_rolls(
    fmt: Format,
    body: str,
    raw: Sequence[str],
    trust: Trust,
    formats: Catalogue,
    lines: Sequence[str] | None = None,
) -> tuple[RollLines, bool]:
    """The roll lines of a line-by-line format, found by their words (the fast path), and
    whether a roll line seems cut short (the log may be hard-wrapped). `lines` are the
    body's lines when they are already split (the file's own, when nothing was taken off).

    One match at each roll line's start gives its time stamp and the rest of the line (the
    format's `prefix`, then the tail); lines alike after the stamp are read once, and say one
    claim: each roll line adds only its number and the claim's index to the columns (its
    stamp is read off the line again when its `LogLine` is made)."""
    split = _split_pattern(fmt.prefix)
    lines = body.split("\n") if lines is None else lines
    rolls = RollLines(raw, prefix=split, read=lines)
    numbers, which, claims = rolls.numbers, rolls.which, rolls.claims
    seen: dict[str, int] = {}  # a line's tail: its claim's index, -1 when it says no roll
    cut = False
    sided: bool | None = None  # whether a line starts with dice, looked for when needed
    at, tail_group = split.match, split.groups
    # the roll shapes' words in the log (AOL's `rolled`; Dice Maiden's, Avrae's and the IRC
    # DiceBot's): a line with none of them says no roll. Each is looked for by `re`, whose
    # search for a literal (its first character, then the rest) takes half the time of `in`
    # on a long log of chat, where the letters of the words are everywhere (the benchmark's
    # log: some 5 ms for the three words it lacks, against 9)
    words = [word for word in formats.words if re.search(re.escape(word), body)]
    if not words:
        return rolls, cut
    first, shapes = words[0], formats.shapes
    if len(words) == 1:  # the lines with the word, told in one pass
        says = list(map(contains, lines, repeat(first)))
    else:
        others = re.compile("|".join(map(re.escape, words[1:]))).search
        says = [first in line or others(line) is not None for line in lines]
    for number, line in zip(compress(count(1), says), compress(lines, says), strict=True):
        parts = at(line)
        assert parts is not None  # the tail matches any line
        tail = parts[tail_group]
        index = seen.get(tail)
        if index is None:
            said = said_line(fmt, number, line)
            found = analyse(said, trust, shapes)
            if found is None:
                index = -1
                cut = cut or ROLL_CUT.search(line) is not None
            else:
                cut = cut or found[0] is None  # a roll in no shape: it may go on below
                if not cut and COUNT_CUT.search(tail):  # a meter's `rolled 2`: cut before
                    if sided is None:  # `20-sided dice: 14 17` on the next line? (once)
                        sided = SIDED_CUT.search(body) is not None
                    cut = sided
                index = len(claims)
                claims.append((said.author, *found))
            seen[tail] = index
        if index >= 0:
            numbers.append(number)
            which.append(index)
    return rolls, cut


def _split_pattern(prefix: re.Pattern[str] | None) -> re.Pattern[str]:
    """A line's time stamp (group 1, when the format writes one) and the rest of it (the
    last group), in one match from the line's start."""
    if prefix is None:
        return re.compile(r"()?([^\n]*)")
    return re.compile(f"({prefix.pattern})?([^\\n]*)", prefix.flags)
