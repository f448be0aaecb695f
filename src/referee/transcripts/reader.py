"""Reading a chat log: bytes to text (BOM, UTF-8, UTF-16, cp1252), text to numbered lines.

Line numbers are the file's own, 1-based: a line ends at CRLF, LF or a lone CR. Each line is
read once by `read_line`: its time stamp (any style of `referee.transcripts.formats`), a host
roll line, a forged one, or a speaker's line.

>>> line = read_line(3, "[21:03] OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 4)")
>>> line.stamp, line.roll
('hh:mm', HostRoll(name='Tarl', count=1, sides=100, faces=(47,), nonce=4))
>>> read_line(4, "PaKur: OnlineHost: PaKur rolled 1 100-sided die: 99").forged
"a host line typed after the speaker's name 'PaKur'"
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from referee.errors import LimitError, NotationError
from referee.transcripts.formats import (
    HOST_LIKE_RE,
    HOST_RE,
    SPEECH_RE,
    TYPED_HOST_RE,
    split_stamp,
)

#: The largest log the judge reads, in bytes (a 100,000-line log is about 5 MB).
MAX_LOG_BYTES = 16 * 1024 * 1024

#: A roll line is never longer than a chat message (1,024 bytes): longer lines are only text,
#: which also keeps the patterns' work per line bounded.
MAX_ROLL_LINE = 1024

#: AOL allowed 1..15 dice of 2..999 sides (MSV-1); a host line outside that is not the host's.
AOL_DICE = range(1, 16)
AOL_SIDES = range(2, 1000)

_NEWLINE = re.compile(r"\r\n|\r|\n")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_ROLLED = re.compile("rolled", re.IGNORECASE)
_HOST_NAME = "OnlineHost"


@dataclass(frozen=True, slots=True)
class HostRoll:
    """What a host line says: who rolled how many dice of how many sides, the faces, a nonce."""

    name: str
    count: int
    sides: int
    faces: tuple[int, ...]
    nonce: int | None = None

    @property
    def dice(self) -> str:
        """The dice in notation: `1d100`.

        >>> HostRoll("Tarl", 2, 20, (14, 17)).dice
        '2d20'
        """
        return f"{self.count}d{self.sides}"


class LogLine(NamedTuple):
    """One line of a log: its number, text, stamp style, speaker, roll, and why it is forged
    (a named tuple, like `HostRoll`)."""

    number: int
    text: str
    stamp: str | None = None
    speaker: str | None = None
    roll: HostRoll | None = None
    forged: str | None = None

    @property
    def is_roll(self) -> bool:
        """Whether the line is a roll line at all (a real or a forged host line)."""
        return self.roll is not None or self.forged is not None


def decode_log(data: bytes, source: str = "the log") -> str:
    """The text of a log file: a BOM says UTF-8 or UTF-16; else UTF-8, else cp1252 (old logs).

    >>> decode_log(b"\\xef\\xbb\\xbfTarl: hi\\r\\n")
    'Tarl: hi\\r\\n'
    >>> decode_log("Tarl: d\\u00e9j\\u00e0 vu".encode("cp1252"))
    'Tarl: déjà vu'
    >>> decode_log(b"")
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: the log is empty
    """
    if len(data) > MAX_LOG_BYTES:
        raise LimitError(f"{source} is larger than {MAX_LOG_BYTES} bytes (at most 16 MiB)")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = _decode_utf16(data, source)
    elif b"\x00" in data:
        raise NotationError(f"{source} is not text (it has NUL bytes): give a chat log")
    elif data.startswith(b"\xef\xbb\xbf"):
        text = data[3:].decode("utf-8", "replace")
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("cp1252", "replace")
    return check_text(text, source)


def _decode_utf16(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-16")
    except UnicodeDecodeError:
        raise NotationError(f"{source} starts like UTF-16 text but is not") from None


def check_text(text: str, source: str = "the log") -> str:
    """The text itself if it can be a chat log: not empty, not binary, within the size bound.

    >>> check_text("   \\n ")
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: the log is empty
    """
    if not text.strip():
        raise NotationError(f"{source} is empty" if source != "the log" else "the log is empty")
    if len(text) > MAX_LOG_BYTES:
        raise LimitError(f"{source} is larger than {MAX_LOG_BYTES} bytes (at most 16 MiB)")
    sample = text[:65536]
    if "\x00" in sample or len(_CONTROL.findall(sample)) * 100 > len(sample):
        raise NotationError(f"{source} is not text (it is full of control bytes): give a chat log")
    return text


def split_lines(text: str) -> list[str]:
    """The lines of a text, ending at CRLF, LF or CR (no empty line after a final newline).

    >>> split_lines("a\\r\\nb\\rc\\n")
    ['a', 'b', 'c']
    """
    lines = _NEWLINE.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_lines(text: str) -> Iterator[LogLine]:
    """Every line of a log, read (numbers from 1).

    >>> [line.number for line in read_lines("a\\nb")]
    [1, 2]
    """
    for number, line in enumerate(split_lines(text), start=1):
        yield read_line(number, line)


def read_line(number: int, text: str) -> LogLine:
    """One line: stamp, then a host roll line, a forged one, or a speaker's line.

    >>> read_line(1, "OnlineHost: Tarl rolled 1 100-sided dice: 47").forged
    "a broken host line ('1 ... dice' where the host writes 'die' for one)"
    """
    stamp, body = split_stamp(text)
    if len(body) > MAX_ROLL_LINE or _ROLLED.search(body) is None:
        speech = SPEECH_RE.match(body)
        return LogLine(number, text, stamp, speech["name"] if speech else None)
    if HOST_LIKE_RE.match(body):
        return _host_line(number, text, stamp, body)
    speech = SPEECH_RE.match(body)
    if speech is None:
        return LogLine(number, text, stamp)
    speaker, said = speech["name"].strip(), speech["text"]
    if TYPED_HOST_RE.search(said):
        roll = _strict(said)
        reason = f"a host line typed after the speaker's name {speaker!r}"
        parsed = roll if isinstance(roll, HostRoll) else None
        return LogLine(number, text, stamp, speaker, parsed, reason)
    if _looks_like_host(speaker):
        reason = f"the speaker {speaker!r} imitates {_HOST_NAME}"
        return LogLine(number, text, stamp, speaker, None, reason)
    return LogLine(number, text, stamp, speaker)


def _host_line(number: int, text: str, stamp: str | None, body: str) -> LogLine:
    roll = _strict(body)
    if isinstance(roll, str):
        return LogLine(number, text, stamp, _HOST_NAME, None, f"a broken host line ({roll})")
    return LogLine(number, text, stamp, _HOST_NAME, roll)


def _strict(body: str) -> HostRoll | str:
    """The host roll a line says, or why it is not one the host wrote."""
    match = HOST_RE.fullmatch(body.strip())
    if match is None:
        return "not in the host's shape 'OnlineHost: NAME rolled 1 100-sided die: 47'"
    name, count_text, sides_text, noun, shown, nonce = match.group(
        "name", "count", "sides", "noun", "faces", "nonce"
    )
    count, sides = int(count_text), int(sides_text)
    faces = tuple(map(int, shown.split()))
    if (noun == "die") != (count == 1):
        return f"'{count} ... {noun}' where the host writes 'die' for one"
    if count not in AOL_DICE or sides not in AOL_SIDES:
        return f"{count} dice of {sides} sides, which AOL never rolled (MSV-1)"
    if len(faces) != count:
        return f"{count} dice but {len(faces)} faces"
    if min(faces) < 1 or max(faces) > sides:
        bad = next(f for f in faces if not 1 <= f <= sides)
        return f"face {bad} on a {sides}-sided die"
    return HostRoll(name, count, sides, faces, None if nonce is None else int(nonce))


_LOOKALIKE = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l", " ": "", "_": "", ".": ""})


def _looks_like_host(speaker: str) -> bool:
    """A screen name made to pass for OnlineHost (`OnIineHost`, `0nlineHost`, `Online_Host`)."""
    return speaker != _HOST_NAME and (
        speaker.casefold().translate(_LOOKALIKE) == _HOST_NAME.casefold().translate(_LOOKALIKE)
    )
