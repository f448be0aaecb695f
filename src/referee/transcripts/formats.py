"""Chat-log formats as data: time stamps written by chat loggers, and the roll lines of AOL.

A chat logger puts a time stamp in front of each line; a new logger is one more `Stamp`
entry in `STAMPS` (a name, a regular expression for the stamp with its trailing spaces, an
example). The body that follows the stamp is read by the patterns below, in order: the host's
roll line (`OnlineHost: NAME rolled 1 100-sided die: 47`, MSV-1), the service's own receipt
(the same line with ` (nonce 12)` after it), a speaker's line (`Name: text`).

>>> [s.name for s in STAMPS]
['hh:mm', 'hh:mm:ss', 'second-life', 'am-pm', 'iso']
>>> split_stamp("[2026/11/29 21:03]  Tarl: hi")
('second-life', 'Tarl: hi')
>>> split_stamp("Tarl: hi")
(None, 'Tarl: hi')
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Stamp:
    """One time-stamp style: `pattern` matches the stamp and the spaces after it."""

    name: str
    pattern: str
    example: str

    def __repr__(self) -> str:
        return f"Stamp({self.name!r})"


#: The time-stamp styles the reader knows, tried in this order. One entry per logger style.
STAMPS: tuple[Stamp, ...] = (
    Stamp("hh:mm", r"\[\d{1,2}:\d{2}\] ?", "[21:03] Tarl: hi"),
    Stamp("hh:mm:ss", r"\[\d{1,2}:\d{2}:\d{2}\] ?", "[21:03:12] Tarl: hi"),
    Stamp(
        "second-life",
        r"\[\d{4}/\d{2}/\d{2} \d{1,2}:\d{2}(?::\d{2})?\] {0,2}",
        "[2026/11/29 21:03]  Tarl Cabot: hi",
    ),
    Stamp("am-pm", r"\(\d{1,2}:\d{2}(?::\d{2})? ?[AaPp][Mm]\) ?", "(9:03:12 PM) Tarl: hi"),
    Stamp(
        "iso",
        r"\[\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?\] ?",
        "[2026-11-29 21:03:12] Tarl: hi",
    ),
)

#: The stamp styles joined into one pattern; group `s<i>` tells which style matched.
#: ASCII digits only (`re.ASCII`): no logger writes `٢١:٠٣`, so such a stamp is not one.
STAMP_RE = re.compile("|".join(f"(?P<s{i}>{s.pattern})" for i, s in enumerate(STAMPS)), re.ASCII)

#: A host line, loosely: anything the host may have said about a roll (checked strictly after).
HOST_LIKE_RE = re.compile(r"\s*online\s*host\s*:.*\brolled\b", re.IGNORECASE)

#: A host roll line inside what a speaker said (`PaKur: OnlineHost: PaKur rolled 1 ...`):
#: "rolled" and a number after it, so that talk about the host is not taken for a forgery.
TYPED_HOST_RE = re.compile(r"online\s*host\s*:.*\brolled\s+\d", re.IGNORECASE)

#: The host's roll line exactly as AOL wrote it (MSV-1), with the service's `(nonce N)` receipt.
HOST_RE = re.compile(
    r"OnlineHost:[ \t]+(?P<name>\S(?:.{0,62}?\S)?)[ \t]+rolled[ \t]+(?P<count>\d{1,3})[ \t]+"
    r"(?P<sides>\d{1,4})-sided[ \t]+(?P<noun>die|dice):[ \t]*(?P<faces>\d{1,4}(?:[ \t]+\d{1,4})*)"
    r"(?:[ \t]+\(nonce[ \t]+(?P<nonce>\d{1,12})\))?[ \t]*",
    re.ASCII,  # the host writes ASCII digits; `٤٧` in a host line is typed, not rolled
)

#: A speaker's line: `Name: text` (AOL screen names and SL names have no colon).
SPEECH_RE = re.compile(r"(?P<name>[^:\s][^:]{0,63}?):[ \t]*(?P<text>.*)")

#: An announcement of a spar, e.g. `Spar between Tarl Cabot (CS 65) and PaKur (CS 70)` or the
#: header `referee msv spar` prints, `Spar: Tarl (CS 65) vs Pa-Kur (CS 70), seed 7`.
ANNOUNCE_RE = re.compile(
    r"\bspar(?:[ \t]+between[ \t]+|[ \t]*:[ \t]*)(?P<rest>.*\(\s*CS\b.*)", re.I
)

#: One fighter named in an announcement: `NAME (CS 65)`, after a separator (`and`, `vs`, `,`).
ANNOUNCED_FIGHTER_RE = re.compile(
    r"\s*(?:(?:,|\band\b|\bvs\b\.?|\bversus\b)\s*)*(?P<name>[^()]*?)\s*"
    r"\(\s*CS\s*(?P<cs>\d{1,4})\s*\)",
    re.I | re.ASCII,
)


#: The first characters of every stamp style (a quick test before the pattern).
_OPENERS = frozenset(s.example[0] for s in STAMPS)


def split_stamp(line: str) -> tuple[str | None, str]:
    """The name of the stamp style a line starts with (or None) and the rest of the line.

    >>> split_stamp("(9:03:12 PM) OnlineHost: Tarl rolled 1 100-sided die: 47")
    ('am-pm', 'OnlineHost: Tarl rolled 1 100-sided die: 47')
    """
    match = STAMP_RE.match(line) if line[:1] in _OPENERS else None
    if match is None:
        return None, line
    index = int(str(match.lastgroup)[1:])
    return STAMPS[index].name, line[match.end() :]
