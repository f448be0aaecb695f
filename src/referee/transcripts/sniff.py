"""Which format a log is in, and the wrappings it came in: e-mail quote marks, hard wraps.

`sniff` tries every format of a catalogue (the built-in `FORMATS` by default) on the first
lines of a log and takes the one most of them fit (the earlier on a tie, AOL's when none
does); `Fit` says how well, and which line did not fit, for the message when a log cannot be
read. A log pasted into an e-mail reply has `> ` before every line (`unquote` takes the
marks off); one hard-wrapped at 72 columns has its long lines cut in two (`unwrap` joins
them back, in the format's shape).

>>> sniff("(21:03:12) Tarl: hi\\n(21:03:15) OnlineHost: Tarl rolled 1 100-sided die: 47")[0]
Format('pidgin')
>>> unquote("> Tarl: hi\\n> > Pa-Kur: hey\\n")[0]
'Tarl: hi\\nPa-Kur: hey\\n'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from referee.transcripts.formats import Catalogue, Format, builtin

#: How many lines of a log the sniffing reads.
SAMPLE = 400

#: A log is hard-wrapped when no line is longer than this, and a line this long or longer is
#: followed by one in no shape of its format.
WRAP_WIDTH, WRAPPED_AT_LEAST = 80, 55
#: A roll cut before its faces may be shorter: the words it was cut before are long ones
#: (`100-sided`, `20-sided`), and the rest of a roll is told by its own shape.
ROLL_WRAPPED_AT_LEAST = 45

_QUOTED = re.compile(r"^[ \t]*>(?:[ \t]?>)*[ \t]?", re.M)
_TAG = re.compile(r"<[^<>\n]{0,400}>")
_CSV_HEADER = re.compile(r'\ufeff?"?AuthorID"?,"?Author"?,')


class Fit(NamedTuple):
    """How well a format fits a log: lines in its shape of the lines read, and the first line
    that is not (its number and text)."""

    fitting: int
    total: int
    first_miss: int = 0
    miss_text: str = ""


def unquote(text: str) -> tuple[str, tuple[str, ...]]:
    """The text without e-mail quote marks when most of its lines have them, and a note."""
    lines = [line for line in text[:200_000].split("\n") if line.strip()]
    marked = sum(1 for line in lines if line.lstrip().startswith(">"))
    if not lines or marked * 10 < len(lines) * 6 or _looks_like_html(text):
        return text, ()
    return _QUOTED.sub("", text), ("the log is quoted in an e-mail: read without its '> ' marks",)


def _looks_like_html(text: str) -> bool:
    head = text[:2000].lower()
    return "<html" in head or "<font" in head or "<br" in head


def sniff(text: str, formats: Catalogue | None = None) -> tuple[Format, Fit]:
    """The format (of `formats`, default the built-in ones) that fits the most of the log's
    first lines, and how well."""
    known = (formats or builtin()).formats
    if _CSV_HEADER.match(text):
        csv_format = next(f for f in known if f.container == "csv")
        return csv_format, Fit(1, 1)
    return nearest(text, [f for f in known if f.container != "csv"])


def nearest(text: str, formats: Sequence[Format]) -> tuple[Format, Fit]:
    """Of `formats`, the one most of the first `SAMPLE` lines fit (see the module text).

    AOL's format, the one taken when none fits, is scored first: any other is then dropped
    at the first line that shows it cannot beat the best so far (it must fit more lines, or
    as many and come earlier), so that a log most formats do not fit is not read by each of
    them to the end. The format taken, and its `Fit`, are the same either way."""
    lines = text.split("\n", SAMPLE)[:SAMPLE]
    # the rest of a roll a hard wrap cut (`die: 47` below `... rolled 1 100-sided`) says
    # nothing of the format, though it reads as AOL's speech: it counts for every format
    rest = {n + 1 for n in range(1, len(lines)) if rest_of_roll(lines[n - 1], lines[n])}
    sample = [(n, line) for n, line in enumerate(lines, 1) if line and n not in rest]
    aol = builtin().by_name["aol"]
    order = sorted(range(len(formats)), key=lambda index: formats[index] is not aol)
    best: tuple[int, Fit] | None = None
    for index in order:
        # the lines it must fit to be taken: more than the best so far, or as many if earlier
        least = 0 if best is None else best[1].fitting + (index > best[0])
        fit = _fit(formats[index], sample, text, max(0, least - len(rest)))
        fit = fit and fit._replace(fitting=fit.fitting + len(rest), total=fit.total + len(rest))
        if fit is not None and fit.fitting >= least:
            best = (index, fit)
    assert best is not None
    if best[1].fitting == len(rest) and aol in formats:  # scored first, in full: its own fit
        return aol, _fit(aol, sample, text) or Fit(0, len(sample))
    return formats[best[0]], best[1]


def _fit(fmt: Format, sample: Sequence[tuple[int, str]], text: str, least: int = 0) -> Fit | None:
    """How well `fmt` fits the sample; None as soon as it cannot fit `least` lines (never
    when `least` is 0)."""
    if fmt.container == "csv":  # its header says it, and the first line is not one
        if _CSV_HEADER.match(text):
            return Fit(1, 1)
        return Fit(0, 1, *((sample[0][0], sample[0][1][:80]) if sample else (1, "")))
    if fmt.container == "html":
        if not _looks_like_html(text):
            return Fit(0, len(sample), sample[0][0] if sample else 0, "no HTML")
        import html  # loaded for a log that looks like HTML alone

        sample = [(n, html.unescape(_TAG.sub("", line))) for n, line in sample]
    count, miss, in_block = 0, (0, ""), False
    total = len(sample)
    for read, (number, line) in enumerate(sample, start=1):
        if fmt.header is not None and fmt.header.fullmatch(line):
            count, in_block = count + 1, True
        elif fits(fmt, line) or (in_block and fmt.blocks):
            count += 1
        elif count + total - read < least:  # even if every line left fits, too few
            return None
        elif not miss[0]:
            miss = (number, line[:80])
    return Fit(count, total, *miss)


def fits(fmt: Format, line: str) -> bool:
    """Whether one line is in a shape of a line-by-line format (speech, emote, system)."""
    return any(p is not None and p.fullmatch(line) for p in (fmt.system, fmt.speech, fmt.emote))


def unwrap(fmt: Format, text: str) -> tuple[dict[int, str], int] | None:
    """The lines of a hard-wrapped log, each cut line joined to the one it was cut from
    ({first line number: joined text}), and how many were joined; None when none was cut.

    A line was cut when the log is narrow (no line over 80 characters), the line before is
    long (55 or more; 45 for a roll) and stops short of its end: a roll without its faces (and
    the line goes on with them), an announcement whose next fighter follows on a line in no
    shape of the
    format, or any line in no shape whose first word would not have fitted on the line above
    (the mark of a wrap between words: the log's longest line is taken as its width).

    >>> long = "[21:03:12] OnlineHost: Tarl Cabot of Ko-ro-ba rolled 1 100-sided die:"
    >>> unwrap(builtin().by_name["aol"], long + "\\n47 (nonce 12)\\nPa-Kur: hi")
    ({1: '[21:03:12] OnlineHost: Tarl Cabot of Ko-ro-ba rolled 1 100-sided die: 47 (nonce 12)', \
3: 'Pa-Kur: hi'}, 1)
    """
    if fmt.blocks:
        return None
    lines = text.split("\n")
    width = max(map(len, lines), default=0)
    if width > WRAP_WIDTH:
        return None
    joined: dict[int, str] = {}
    last, count = 0, 0
    for number, line in enumerate(lines, start=1):
        before = joined.get(last, "")
        above = len(lines[number - 2]) if number > 1 else 0
        # the wrap's own mark: the line's first word would not have fitted on the line above
        overflow = above + 1 + len(line.split(maxsplit=1)[0] if line.strip() else "") > width
        cut = above >= ROLL_WRAPPED_AT_LEAST and rest_of_roll(before, line)
        if cut or (
            above >= WRAPPED_AT_LEAST and _cut_short(before, line, fits(fmt, line), overflow)
        ):
            joined[last] = f"{before} {line.strip()}"
            count += 1
        else:
            joined[number], last = line, number
    return (joined, count) if count else None


#: A line that says `rolled` but stops before the faces (cut by a hard wrap): its last
#: `rolled` is followed by no face at the line's end (then no earlier one is). Only the last
#: is tried (the atomic group), once: trying each `rolled` against the rest of the line took
#: a 16 MiB line of them hours.
ROLL_CUT = re.compile(r"\A(?>.*\brolled\b)(?!.*\d\)?[.!]?[ \t]*$)", re.I)
_SKILL_MARK = re.compile(r"\([ \t]*(?:[Cc][Ss]|2d)[ \t]*\d")
_SKILL_OPENS = re.compile(r"\([ \t]*(?:[Cc][Ss]|2d)")
# (the blanks after the bracket and after the mark are one run or two, never one run split two
# ways: a bracket then a long run of blanks took time in the square of the run's length)
_SKILL_OPEN_AT_END = re.compile(r"[(\[][ \t]*(?:(?:[Cc][Ss]:?|2d)[ \t]*)?\Z")


def skill_cut(text: str) -> bool:
    """A quick test over the whole text: a line with a skill (`(CS 65)`) followed by a line
    with another, or that stops inside its next skill (`... and PaKur (CS` then `70)`: a
    wrap at the space in it). Each line with a skill is looked at once, with the next: a
    pattern that tried each skill of a line against the rest of it and the next line took
    a 16 MiB line of them hours.

    >>> skill_cut("A (CS 65) and\\nB (CS 70)"), skill_cut("A (CS 65) and B (CS\\n70)")
    (True, True)
    >>> skill_cut("Spar between A (CS 65) and B (CS 70)\\nA: hi")
    False
    """
    at = 0
    while (mark := _SKILL_MARK.search(text, at)) is not None:
        end = text.find("\n", mark.end())
        rest = text[mark.end() : end if end >= 0 else len(text)]
        if _SKILL_OPEN_AT_END.search(rest):
            return True
        if end < 0:
            return False
        after = text.find("\n", end + 1)
        if _SKILL_OPENS.search(text, end + 1, after if after >= 0 else len(text)):
            return True
        at = end + 1
    return False


#: The rest of a roll cut before its faces: the dice, or a face (not a time stamp or a date,
#: `21:04 <@OnlineHost> ...`, which starts a line of its own).
_FACES = re.compile(r"(?:\d{1,4}-sided |di(?:e|ce):|\d{1,4}(?![\d:/\-]|\.\d))")
#: A roll cut after its count of dice (`... rolled 2` then `20-sided dice: 14 17`): the line
#: above reads as a meter's roll of 2, and the rest starts with the dice.
_SIDED = re.compile(r"\d{1,4}-sided[ \t]+di(?:e|ce)\b")
COUNT_CUT = re.compile(r"\brolled[ \t]+\d{1,2}[ \t]*$", re.I)
#: A line after another that starts with the dice (a quick test over the whole text, the
#: line end first: a pattern that starts with a literal is searched for fast).
SIDED_CUT = re.compile(r"\n\d{1,4}-sided[ \t]+di(?:e|ce)\b")


def rest_of_roll(before: str, line: str) -> bool:
    """Whether `line` is the rest of a roll a hard wrap cut `before` its faces (or its dice).

    >>> rest_of_roll("OnlineHost: Tarl rolled 1 100-sided", "die: 47")
    True
    >>> rest_of_roll("Gorean Meter: Tarl rolled 2", "20-sided dice: 14 17")
    True
    >>> rest_of_roll("Marcus: Tarl rolled well there", "21:04 <@OnlineHost> Tarl rolled")
    False
    """
    if line[:1].isspace() or "rolled" not in before.lower():
        return False
    if ROLL_CUT.search(before) and _FACES.match(line):
        return True
    return bool(COUNT_CUT.search(before) and _SIDED.match(line))


_SKILL = re.compile(r"\(\s*(?:CS|2d)\s*\d", re.I)


def _cut_short(before: str, line: str, fitting: bool, overflow: bool) -> bool:
    """Whether `line` is the rest of `before`: a roll cut before its faces (whatever the rest
    looks like), an announcement going on with its next fighter, or any line in no shape of
    the format whose first word would not have fitted on the line above (`overflow`)."""
    if not line.strip() or line[:1].isspace():
        return False
    if rest_of_roll(before, line):
        return True
    if not fitting and overflow:
        return True
    return not fitting and bool(_SKILL.search(line)) and bool(_SKILL.search(before))
