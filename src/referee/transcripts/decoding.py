"""A log file's bytes as text: its encoding sniffed, its line ends made one.

A BOM says UTF-8 or UTF-16. Without one, UTF-16 is told by its zero bytes (a Windows logger
that writes UTF-16 with no BOM puts a zero beside every ASCII character); otherwise UTF-8,
and anything that is not UTF-8 is read as cp1252 (old Windows logs). Lines end at CRLF, LF or
a lone CR; line numbers are the file's own, from 1.

>>> decode_log("Tarl: hi".encode("utf-16-le"))
'Tarl: hi'
>>> decode_log(b"\\xef\\xbb\\xbfTarl: hi\\r\\n")
'Tarl: hi\\r\\n'
>>> decode_log("Tarl: d\\u00e9j\\u00e0 vu".encode("cp1252"))
'Tarl: déjà vu'
>>> decode_log(b"")
Traceback (most recent call last):
...
referee.errors.NotationError: the log is empty
"""

from __future__ import annotations

import io
import re

from referee.errors import LimitError, NotationError

#: The largest log the judge reads, in bytes (a 100,000-line log is about 5 MB).
MAX_LOG_BYTES = 16 * 1024 * 1024

_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")

#: How much of a file the sniffing looks at.
_SNIFF = 4096


def decode_log(data: bytes, source: str = "the log") -> str:
    """The text of a log file (see the module text)."""
    if len(data) > MAX_LOG_BYTES:
        raise LimitError(f"{source} is larger than {MAX_LOG_BYTES} bytes (at most 16 MiB)")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = _decode_utf16(data, "utf-16", source)
    elif b"\x00" in data[:_SNIFF] or b"\x00" in data:
        text = _decode_utf16(data, _utf16_without_bom(data, source), source)
    elif data.startswith(b"\xef\xbb\xbf"):
        text = data[3:].decode("utf-8", "replace")
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("cp1252", "replace")
    return check_text(text, source)


def _utf16_without_bom(data: bytes, source: str) -> str:
    """`utf-16-le` or `utf-16-be` when the zero bytes fall on one side of each pair (text
    that is mostly ASCII), else the bytes are not text."""
    sample = data[: _SNIFF - _SNIFF % 2]
    pairs = max(1, len(sample) // 2)
    odd, even = sample[1::2].count(0), sample[0::2].count(0)
    if len(data) % 2 == 0 and odd * 10 >= pairs * 4 and even * 20 < pairs:
        return "utf-16-le"
    if len(data) % 2 == 0 and even * 10 >= pairs * 4 and odd * 20 < pairs:
        return "utf-16-be"
    raise NotationError(f"{source} is not text (it has NUL bytes): give a chat log")


def _decode_utf16(data: bytes, codec: str, source: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        raise NotationError(f"{source} starts like UTF-16 text but is not") from None


def check_text(text: str, source: str = "the log") -> str:
    """The text itself if it can be a chat log: not empty, not binary, within the size bound.

    >>> check_text("   \\n ")
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: the log is empty
    """
    if not text or text.isspace():  # (`strip` would copy a long log to say it is not empty)
        raise NotationError(f"{source} is empty" if source != "the log" else "the log is empty")
    if len(text) > MAX_LOG_BYTES:
        raise LimitError(f"{source} is larger than {MAX_LOG_BYTES} bytes (at most 16 MiB)")
    sample = text[:65536]
    if "\x00" in sample or len(_CONTROL.findall(sample)) * 100 > len(sample):
        raise NotationError(f"{source} is not text (it is full of control bytes): give a chat log")
    return text


def one_line_end(text: str) -> str:
    """The text with every line ending at LF (CRLF and lone CR made LF), so that the line
    numbers are the file's own.

    >>> one_line_end("a\\r\\nb\\rc\\n")
    'a\\nb\\nc\\n'
    """
    if "\r" not in text:
        return text
    # universal newlines, as `open` reads a text file: one pass (two `replace`s take longer)
    return io.IncrementalNewlineDecoder(None, translate=True).decode(text, final=True)


def split_lines(text: str) -> list[str]:
    """The lines of a text, ending at CRLF, LF or CR (no empty line after a final newline).

    >>> split_lines("a\\r\\nb\\rc\\n")
    ['a', 'b', 'c']
    """
    lines = one_line_end(text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines
