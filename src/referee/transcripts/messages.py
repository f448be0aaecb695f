"""Logs whose messages are not lines: author headers over blocks of lines, and CSV records.

Discord's window, a DiscordChatExporter text file and the like write a header (the author,
a time stamp, a bot tag) over each message, whose lines follow it; DiscordChatExporter's CSV
writes one record a message, whose content may span lines. Each message's lines are read
for rolls as one line of a line-by-line log is (`referee.transcripts.claims`), with the
header's author; a bot's answer over two or three lines (Avrae's: the roller, `**Result**`,
`**Total**`) is one roll.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Sequence

from referee.errors import NotationError
from referee.transcripts.authors import Trust
from referee.transcripts.claims import QUOTE_MARKS, roll_line
from referee.transcripts.formats import Format
from referee.transcripts.lines import LogLine, Said
from referee.transcripts.rolls import Shape, find_roll


def block_rolls(
    fmt: Format, body: str, raw: Sequence[str], trust: Trust, shapes: Sequence[Shape]
) -> list[LogLine]:
    """The roll lines of a format with author headers (a message may span lines)."""
    assert fmt.header is not None
    rolls: list[LogLine] = []
    author: str | None = None
    stamp: str | None = None
    message: list[tuple[int, str]] = []
    untagged = False
    for number, line in enumerate(body.split("\n"), start=1):
        header = fmt.header.fullmatch(line)
        if header is None and (not line.strip() or _is_system(fmt, line)):
            rolls += _message_rolls(message, author, stamp, trust, raw, shapes, untagged)
            message = []
        elif header is None:
            message.append((number, line))
        else:
            rolls += _message_rolls(message, author, stamp, trust, raw, shapes, untagged)
            author, stamp, message = _header_author(header), header["stamp"], []
            untagged = _untagged(header)
    rolls += _message_rolls(message, author, stamp, trust, raw, shapes, untagged)
    return rolls


def _header_author(header: re.Match[str]) -> str | None:
    """A header's author; None when its group took no part (a format file's optional one)."""
    author = header["author"]
    return author.strip() if author is not None else None


def _untagged(header: re.Match[str]) -> bool:
    """Whether a header lacks the bot tag its format shows after every bot's name (a `bot`
    group: Discord's APP or BOT in a copy from its window)."""
    return "bot" in header.re.groupindex and header["bot"] is None


def _is_system(fmt: Format, line: str) -> bool:
    return fmt.system is not None and fmt.system.fullmatch(line) is not None


def _message_rolls(
    message: list[tuple[int, str]],
    author: str | None,
    stamp: str | None,
    trust: Trust,
    raw: Sequence[str],
    shapes: Sequence[Shape],
    untagged: bool,
) -> list[LogLine]:
    """The rolls in one message: each line alone, or a bot's answer over two or three lines
    (Avrae: the roller, the result, the total); `untagged`: its header has no bot tag where
    its format shows one (`Said.untagged`)."""
    out: list[LogLine] = []
    index = 0
    while index < len(message):
        number, line = message[index]
        span = 1
        if find_roll(line, shapes) is None:
            # only Avrae's answer goes on below its first line (`**Result**`, `**Total**`); any
            # other roll is on a line of its own, and reported on that line
            more = [text for _, text in message[index + 1 : index + 3]]
            if not more or not more[0].startswith("**Result**"):
                index += 1
                continue
            span = 3 if len(more) == 2 and more[1].startswith("**Total**") else 2
            line = "\n".join([line, *more][:span])
            if find_roll(line, shapes) is None:
                index += 1
                continue
        kind = "quote" if line.startswith(QUOTE_MARKS) else "speech"
        said = Said(number, author, line, kind, stamp, untagged)
        found = roll_line(said, raw[number - 1], trust, shapes)
        if found is not None:
            out.append(found)
        index += span if found is not None else 1
    return out


def block_said(fmt: Format, body: str) -> Iterator[Said]:
    """What each line of a format with author headers says, with its message's author."""
    assert fmt.header is not None
    author: str | None = None
    untagged = False
    for number, line in enumerate(body.split("\n"), start=1):
        header = fmt.header.fullmatch(line)
        if header is not None:
            author, untagged = _header_author(header), _untagged(header)
        elif line.strip() and not _is_system(fmt, line):
            kind = "quote" if line.startswith(QUOTE_MARKS) else "speech"
            yield Said(number, author, line, kind if author else "text", untagged=untagged)


def csv_said(body: str) -> Iterator[Said]:
    """What each record of DiscordChatExporter's CSV says, with its author and time stamp (a
    broken CSV says no more from where it breaks: `csv_rolls` tells why)."""
    import csv  # loaded for a CSV log alone, as in `csv_rolls`

    reader = csv.reader(io.StringIO(body))
    start = 1
    try:
        for record in reader:
            number, start = start, reader.line_num + 1
            if len(record) >= 4 and record[0] != "AuthorID":
                kind = "quote" if record[3].lstrip().startswith(QUOTE_MARKS) else "speech"
                yield Said(number, record[1], record[3], kind, record[2])
    except csv.Error:
        return


def csv_rolls(
    body: str, raw: Sequence[str], trust: Trust, shapes: Sequence[Shape]
) -> list[LogLine]:
    """DiscordChatExporter's CSV: one record per message, the content may span lines."""
    import csv  # loaded for a CSV log alone

    reader = csv.reader(io.StringIO(body))
    rolls: list[LogLine] = []
    start = 1
    try:
        for record in reader:
            number, start = start, reader.line_num + 1
            if len(record) < 4 or record[0] == "AuthorID":
                continue
            kind = "quote" if record[3].lstrip().startswith(QUOTE_MARKS) else "speech"
            said = Said(number, record[1], record[3], kind, record[2])
            found = roll_line(said, raw[number - 1], trust, shapes)
            if found is not None:
                rolls.append(found)
    except csv.Error as err:
        raise NotationError(f"the CSV log is broken at line {start}: {err}") from None
    return rolls
