"""Chat-log formats as data: how each logger writes a line, and who posted it.

A `Format` says how one logger or exporter writes a log: the patterns of its lines (a speech
line with its author, an emote, the logger's own lines), or for exporters that write an
author header above a message (DiscordChatExporter, a copy from Discord's window) the
header's pattern; and the dice bots or objects whose roll lines count there by default
(`hosts`). A new logger is one more entry in `FORMATS`, with its sample log in
`tests/data/judge/formats/` and a test.

Time stamps written in front of AOL-style lines (`[21:03]`, `(9:03:12 PM)`, ...) are one more
table, `STAMPS`, as before.

>>> [f.name for f in FORMATS][:4]
['discord-txt', 'discord-csv', 'discord-copy', 'pidgin-html']
>>> [s.name for s in STAMPS]
['hh:mm', 'hh:mm:ss', 'second-life', 'am-pm', 'iso']
>>> split_stamp("[2026/11/29 21:03]  Tarl: hi")
('second-life', 'Tarl: hi')
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


#: The time-stamp styles written in front of AOL-style lines, tried in this order.
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

#: The first characters of every stamp style (a quick test before the pattern).
_OPENERS = frozenset(s.example[0] for s in STAMPS)


def split_stamp(line: str) -> tuple[str | None, str]:
    """The name of the stamp style a line starts with (or None) and the rest of the line.

    >>> split_stamp("(9:03:12 PM) OnlineHost: Tarl rolled 1 100-sided die: 47")
    ('am-pm', 'OnlineHost: Tarl rolled 1 100-sided die: 47')
    >>> split_stamp("Tarl: hi")
    (None, 'Tarl: hi')
    """
    match = STAMP_RE.match(line) if line[:1] in _OPENERS else None
    if match is None:
        return None, line
    index = int(str(match.lastgroup)[1:])
    return STAMPS[index].name, line[match.end() :]


@dataclass(frozen=True, slots=True)
class Format:
    """One logger's way of writing a log.

    `speech`, `emote` and `system` match one whole line: a speech line has the groups
    `author` and `text` (and `stamp` when the logger writes one); an emote (`/me`, IRC's
    `* Tarl waves`) has `author` and `text`; a system line is the logger's own (joins, session
    headers) and is nobody's. Block formats write the author on a `header` line and the
    message below it. `hosts` are the dice bots and objects that roll in such a log.
    `prefix` matches what changes from line to line before the author (the time stamp): lines
    alike after it are read once.
    """

    name: str
    title: str
    example: str
    hosts: tuple[str, ...]
    speech: re.Pattern[str] | None = None
    emote: re.Pattern[str] | None = None
    system: re.Pattern[str] | None = None
    header: re.Pattern[str] | None = None
    container: str = "lines"
    speech_first: bool = False
    prefix: re.Pattern[str] | None = None

    def __repr__(self) -> str:
        return f"Format({self.name!r})"

    @property
    def blocks(self) -> bool:
        """Whether the author is on a header line above the message (not on each line)."""
        return self.header is not None


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.ASCII)


_AOL_STAMP = "(?:" + "|".join(s.pattern for s in STAMPS) + ")"
_HHMM = r"\d{1,2}:\d{2}(?::\d{2})?"
_AMPM = r"(?: ?[AaPp]\.? ?[Mm]\.?)"
_DATE = r"\d{1,4}[-./]\d{1,2}[-./]\d{2,4},?"
#: A Second Life viewer's stamp: with the date and one or two spaces after it, or without
#: the date (a viewer set to show the time only) and the viewer's two spaces.
_SL = r"\[(?P<stamp>(?P<date>\d{4}/\d{2}/\d{2} )?" + _HHMM + r")\](?(date) {1,2}|  )"
_PIDGIN = r"\((?P<stamp>(?:\d{1,4}[-./]\d{1,2}[-./]\d{1,4} )?" + _HHMM + _AMPM + r"?)\) "
_IRC_MODE = r"[~&@%+]?"
_DCE_STAMP = (
    r"\[(?P<stamp>"
    + _DATE
    + " "
    + _HHMM
    + _AMPM
    + r"?|\d{1,2}-[A-Za-z]{3}-\d{2} "
    + _HHMM
    + _AMPM
    + r"?)\]"
)

#: Who rolls on Discord: the dice bots, and the project's own bot (`referee APP`, `referee#4821`).
_DISCORD_HOSTS = ("OnlineHost", "Dice Maiden", "Avrae", "referee")
#: Who rolls on IRC: the host, and the DiceBot (`Tarl rolls 1d100: [47] = 47`).
_IRC_HOSTS = ("OnlineHost", "DiceBot")

#: Every format the judge reads, the most particular first (the reader picks the one most of a
#: log's lines fit; on a tie, the earlier).
FORMATS: tuple[Format, ...] = (
    Format(
        "discord-txt",
        "DiscordChatExporter, plain text (TXT)",
        "[11/29/2026 9:03 PM] Avrae#6944\n@Tarl  🎲\n**Result**: 1d100 (47)\n**Total**: 47",
        _DISCORD_HOSTS,
        header=_re(_DCE_STAMP + r" (?P<author>[^\s:][^\n:]{0,80}?)(?: \(pinned\))?[ \t]*"),
        system=_re(
            r"={20,}|(?:Guild|Channel|Topic|After|Before): .*|Exported [\d,.]+ message\(s\)"
            r"|\{(?:Attachments|Embed|Reactions|Stickers)\}"
        ),
        container="blocks",
    ),
    Format(
        "discord-csv",
        "DiscordChatExporter, CSV",
        '"1","OnlineHost#0000","11/29/2026 9:03 PM","Tarl rolled 1 100-sided die: 47","",""',
        _DISCORD_HOSTS,
        header=_re(r'"?AuthorID"?,"?Author"?,"?Date"?,"?Content"?.*'),
        container="csv",
    ),
    Format(
        "discord-copy",
        "copied from Discord's window",
        "Avrae APP — 11/29/2026 9:03 PM\n@Tarl  🎲\n**Result**: 1d100 (47)\n**Total**: 47",
        _DISCORD_HOSTS,
        header=re.compile(
            r"(?P<author>[^\n—]{1,80}?)(?: ?(?P<bot>BOT|APP))? — (?P<stamp>(?:Today at |"
            r"Yesterday at |" + _DATE + r" )?" + _HHMM + _AMPM + r"?)[ \t]*",
            re.ASCII,
        ),
        container="blocks",
    ),
    Format(
        "pidgin-html",
        "Pidgin, HTML",
        '<font color="#16569E"><font size="2">(21:03:12)</font> <b>OnlineHost:</b></font> '
        "Tarl rolled 1 100-sided die: 47<br/>",
        ("OnlineHost",),
        speech=_re(_PIDGIN + r"(?P<author>[^:]{1,64}?): (?P<text>.*)"),
        emote=_re(_PIDGIN + r"\*\*\*(?P<author>\S{1,64}) (?P<text>.*)"),
        system=_re(r"Conversation with .*|" + _PIDGIN + r"[^:]*|<html>.*|</body>.*|"),
        container="html",
    ),
    Format(
        "pidgin",
        "Pidgin, plain text (AIM, IRC and other networks)",
        "(21:03:12) OnlineHost: Tarl rolled 1 100-sided die: 47",
        ("OnlineHost",),
        speech=_re(_PIDGIN + r"(?P<author>[^:]{1,64}?): (?P<text>.*)"),
        emote=_re(_PIDGIN + r"\*\*\*(?P<author>\S{1,64}) (?P<text>.*)"),
        system=_re(r"Conversation with .*|" + _PIDGIN + r"[^:]*"),
        prefix=_re(r"\([\d/.: \-AaPpMm]{4,30}\) "),
    ),
    Format(
        "aim",
        "AIM with time stamps (Name (9:03:12 PM): text)",
        "OnlineHost (9:03:12 PM): Tarl rolled 1 100-sided die: 47",
        ("OnlineHost",),
        speech=_re(
            r"(?P<author>[^:()\s][^:()]{0,63}?) \((?P<stamp>" + _HHMM + _AMPM + r"?)\):"
            r"[ \t]*(?P<text>.*)"
        ),
        system=_re(r"Session (?:Start|Close)\b.*|-{3,}.*"),
    ),
    Format(
        "weechat",
        "WeeChat (tab-separated)",
        "2026-11-29 21:03:12\t@OnlineHost\tTarl rolled 1 100-sided die: 47",
        _IRC_HOSTS,
        system=_re(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\t(?:-->|<--|--|=!=|)\t.*"),
        emote=_re(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\t \*\t(?P<author>\S{1,64}) (?P<text>.*)"),
        speech=_re(
            r"(?P<stamp>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\t" + _IRC_MODE + r"(?P<author>[^\t\s]"
            r"[^\t]{0,63})\t(?P<text>.*)"
        ),
        prefix=_re(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\t"),
    ),
    Format(
        "hexchat",
        "HexChat / XChat",
        "Nov 29 21:03:12 <OnlineHost>\tTarl rolled 1 100-sided die: 47",
        _IRC_HOSTS,
        system=_re(r"\*{4} (?:BEGIN|ENDING) LOGGING.*"),
        emote=_re(r"[A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} \*\t(?P<author>\S{1,64}) (?P<text>.*)"),
        speech=_re(
            r"(?P<stamp>[A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2}) <" + _IRC_MODE + r"(?P<author>"
            r"[^>\s]{1,64})>\t(?P<text>.*)"
        ),
        prefix=_re(r"[A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} "),
    ),
    Format(
        "irssi",
        "irssi",
        "21:03 <@OnlineHost> Tarl rolled 1 100-sided die: 47",
        _IRC_HOSTS,
        system=_re(r"--- .*|" + _HHMM + r" -!- .*"),
        emote=_re(_HHMM + r"  \* (?P<author>\S{1,64}) (?P<text>.*)"),
        speech=_re(r"(?P<stamp>" + _HHMM + r") <[ ~&@%+]?(?P<author>[^>\s]{1,64})> (?P<text>.*)"),
        prefix=_re(_HHMM + r" (?=<)"),
    ),
    Format(
        "mirc",
        "mIRC, ZNC and other [hh:mm] <nick> IRC logs",
        "[21:03] <OnlineHost> Tarl rolled 1 100-sided die: 47",
        _IRC_HOSTS,
        system=_re(r"(?:\[" + _HHMM + r"\] )?(?:\*\*\* |-\S+- |Session \w+:).*"),
        emote=_re(r"(?:\[" + _HHMM + r"\] )?\* (?P<author>\S{1,64}) (?P<text>.*)"),
        speech=_re(
            r"(?:\[(?P<stamp>" + _HHMM + r")\] )?<" + _IRC_MODE + r"(?P<author>[^>\s]{1,64})> ?"
            r"(?P<text>.*)"
        ),
        prefix=_re(r"\[" + _HHMM + r"\] (?=<)"),
    ),
    Format(
        "second-life",
        "Second Life viewer chat log (local chat, objects, /me)",
        "[2026/11/29 21:03]  Gorean Meter: Tarl Cabot rolled 42",
        ("OnlineHost", "Gorean Meter"),
        speech=re.compile(_SL + r"(?P<author>[^:\n]{1,80}?): (?P<text>.*)"),
        emote=re.compile(_SL + r"(?P<author>\S{1,40}(?: \([\w.\-]{1,40}\))?) (?P<text>.*)"),
        speech_first=True,
        prefix=_re(r"\[(?:\d{4}/\d{2}/\d{2} " + _HHMM + r"\] {1,2}|" + _HHMM + r"\]  )(?=\S)"),
    ),
    Format(
        "aol",
        "AOL room log (Name: text), with or without time stamps",
        "OnlineHost: Tarl rolled 1 100-sided die: 47",
        ("OnlineHost",),
        speech=re.compile(
            r"(?P<stamp>" + _AOL_STAMP + r")?(?P<author>[^:\s\[(<][^:\[\]()<>]{0,63}?):(?!\d\d)"
            r"[ \t]*(?P<text>.*)"
        ),
        speech_first=True,
        prefix=_re(_AOL_STAMP),
    ),
)

#: Formats by name.
BY_NAME = {f.name: f for f in FORMATS}

#: The format a log is read in when nothing else fits (and `read_line` reads one line in).
AOL = BY_NAME["aol"]
