"""Chat-log formats as data: how each logger writes a line, and who posted it.

A `Format` says how one logger or exporter writes a log: the patterns of its lines (a speech
line with its author, an emote, the logger's own lines), or for exporters that write an
author header above a message (DiscordChatExporter, a copy from Discord's window) the
header's pattern; and the dice bots or objects whose roll lines count there by default
(`hosts`). Every format is declared in a format file (TOML, docs/judge.md's "Format files"):
the built-in ones in `referee/transcripts/builtin_formats/`, read by the same loader
(`referee.transcripts.format_files`) as a file a community writes. A `Catalogue` is what a
log is read with: the formats, the roll shapes (`referee.transcripts.rolls`) and the time
stamps; `builtin()` is the built-in one, read when first asked for and kept.

Time stamps written in front of AOL-style lines (`[21:03]`, `(9:03:12 PM)`, ...) are one more
table, `STAMPS`, as before.

>>> from referee.transcripts.formats import FORMATS, STAMPS
>>> [f.name for f in FORMATS][:4]
['discord-txt', 'discord-csv', 'discord-copy', 'pidgin-html']
>>> [s.name for s in STAMPS]
['hh:mm', 'hh:mm:ss', 'second-life', 'am-pm', 'iso']
>>> split_stamp("[2026/11/29 21:03]  Tarl: hi")
('second-life', 'Tarl: hi')
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from referee.transcripts.catalogue import Catalogue, Format, Stamp
from referee.transcripts.format_files import builtin_catalogue

__all__ = ["Catalogue", "Format", "Stamp", "builtin", "split_stamp"]

if TYPE_CHECKING:  # the built-in tables, read when first asked for (`__getattr__` below)
    #: Every built-in format, the most particular first (the reader picks the one most of a
    #: log's lines fit; on a tie, the earlier).
    FORMATS: tuple[Format, ...]
    #: The built-in formats by name.
    BY_NAME: dict[str, Format]
    #: The format a log is read in when nothing else fits (and `read_line` reads one line in).
    AOL: Format
    #: The time-stamp styles written in front of AOL-style lines, tried in this order.
    STAMPS: tuple[Stamp, ...]
    #: The stamp styles joined into one pattern; group `s<i>` tells which style matched.
    #: ASCII digits only (`re.ASCII`): no logger writes `٢١:٠٣`, so such a stamp is not one.
    STAMP_RE: re.Pattern[str]


@cache
def builtin() -> Catalogue:
    """The built-in formats, roll shapes and stamps, read from their files once."""
    return builtin_catalogue()


@cache
def _stamp_re() -> tuple[re.Pattern[str], frozenset[str]]:
    stamps = builtin().stamps
    pattern = "|".join(f"(?P<s{i}>{s.pattern})" for i, s in enumerate(stamps))
    # the first characters of every stamp style (a quick test before the pattern)
    return re.compile(pattern, re.ASCII), frozenset(s.example[0] for s in stamps)


def split_stamp(line: str) -> tuple[str | None, str]:
    """The name of the stamp style a line starts with (or None) and the rest of the line.

    >>> split_stamp("(9:03:12 PM) OnlineHost: Tarl rolled 1 100-sided die: 47")
    ('am-pm', 'OnlineHost: Tarl rolled 1 100-sided die: 47')
    >>> split_stamp("Tarl: hi")
    (None, 'Tarl: hi')
    """
    pattern, openers = _stamp_re()
    match = pattern.match(line) if line[:1] in openers else None
    if match is None:
        return None, line
    index = int(str(match.lastgroup)[1:])
    return builtin().stamps[index].name, line[match.end() :]


def __getattr__(name: str) -> object:
    """The built-in tables (`FORMATS`, `BY_NAME`, `AOL`, `STAMPS`, `STAMP_RE`), read from
    their files when first asked for: importing this module reads no file."""
    if name == "FORMATS":
        return builtin().formats
    if name == "BY_NAME":
        return builtin().by_name
    if name == "AOL":
        return builtin().by_name["aol"]
    if name == "STAMPS":
        return builtin().stamps
    if name == "STAMP_RE":
        return _stamp_re()[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
