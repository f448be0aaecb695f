"""A format file written from formats and roll shapes: the other way round from
`referee.transcripts.format_files`, which reads it back to the same formats and shapes.

Each pattern is written whole (its fragments put in) with its flags, so a built-in format
renamed can start a community's file:

>>> from dataclasses import replace
>>> from referee.transcripts.formats import BY_NAME
>>> text = format_file_text([replace(BY_NAME["irssi"], name="my-irssi")])
>>> print(text.splitlines()[1])
name = "my-irssi"
>>> from referee.transcripts.format_files import load_format_file
>>> load_format_file(text, "my-irssi.toml").formats[0].speech == BY_NAME["irssi"].speech
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from referee.transcripts.catalogue import Format
from referee.transcripts.format_files import FLAGS
from referee.transcripts.roll_shapes import Shape

#: How TOML's basic strings write the characters that need it.
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
#: The flags a written pattern may have (Python adds UNICODE to a pattern without ASCII).
_WRITTEN = sum(FLAGS.values()) | re.UNICODE


def format_file_text(formats: Iterable[Format] = (), shapes: Iterable[Shape] = ()) -> str:
    """A format file declaring `formats` and `shapes` (see the module text)."""
    out: list[str] = []
    for fmt in formats:
        out += ["[[format]]", *_keys(_format_keys(fmt)), ""]
    for shape in shapes:
        out += ["[[roll]]", *_keys(_shape_keys(shape)), ""]
    return "\n".join(out)


def _format_keys(fmt: Format) -> list[tuple[str, object]]:
    keys: list[tuple[str, object]] = [
        ("name", fmt.name),
        ("title", fmt.title),
        ("example", fmt.example),
        ("hosts", list(fmt.hosts)),
    ]
    if fmt.container != "lines":
        keys.append(("container", fmt.container))
    if fmt.speech_first:
        keys.append(("speech_first", True))
    for key in ("speech", "emote", "system", "header", "prefix"):
        pattern = getattr(fmt, key)
        if pattern is not None:
            keys.append((key, pattern))
    return keys


def _shape_keys(shape: Shape) -> list[tuple[str, object]]:
    keys: list[tuple[str, object]] = [
        ("name", shape.name),
        ("title", shape.title),
        ("example", shape.example),
        ("words", list(shape.words)),
        ("find", shape.loose),
        ("read", shape.strict),
    ]
    if shape.sides != 100:
        keys.append(("sides", shape.sides))
    if shape.aol:
        keys.append(("aol", True))
    return keys


def _keys(keys: Sequence[tuple[str, object]]) -> list[str]:
    return [f"{key} = {_value(value)}" for key, value in keys]


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, re.Pattern):
        if value.flags & ~_WRITTEN:
            raise ValueError(f"a format file cannot say the flags of {value!r}")
        flags = [name for name, flag in FLAGS.items() if value.flags & flag]
        return f"{{ regex = {_string(value.pattern)}, flags = {_value(flags)} }}"
    raise TypeError(f"no format file value for {value!r}")


def _string(text: str) -> str:
    """`text` as a TOML basic string."""
    out = []
    for char in text:
        escaped = _ESCAPES.get(char)
        if escaped is None and (char < " " or char == "\x7f"):
            escaped = f"\\u{ord(char):04X}"
        out.append(escaped or char)
    return '"' + "".join(out) + '"'
