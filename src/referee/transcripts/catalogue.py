"""The types of chat-log formats as data: a time-stamp style (`Stamp`), a logger's lines
(`Format`) and what logs are read with (`Catalogue`: formats, roll shapes, stamps). The
formats themselves are declared in format files (`referee.transcripts.format_files`) and
listed by `referee.transcripts.formats`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from referee.transcripts.roll_shapes import Shape


@dataclass(frozen=True, slots=True)
class Stamp:
    """One time-stamp style: `pattern` matches the stamp and the spaces after it."""

    name: str
    pattern: str
    example: str

    def __repr__(self) -> str:
        return f"Stamp({self.name!r})"


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


@dataclass(frozen=True)
class Catalogue:
    """What logs are read with: the formats (tried in order), the roll shapes (tried in
    order) and the AOL-style time stamps; `files` names the format files it came from."""

    formats: tuple[Format, ...]
    shapes: tuple[Shape, ...]
    stamps: tuple[Stamp, ...] = ()
    files: tuple[str, ...] = ()

    @cached_property
    def by_name(self) -> dict[str, Format]:
        """The formats by name."""
        return {f.name: f for f in self.formats}

    @cached_property
    def words(self) -> tuple[str, ...]:
        """The words some roll shape's lines all have, each once, the first shape's first."""
        return tuple(dict.fromkeys(word for shape in self.shapes for word in shape.words))

    def before(self, other: Catalogue) -> Catalogue:
        """This catalogue's formats and shapes tried before `other`'s (a community's format
        files before the built-in ones), `other`'s stamps."""
        return Catalogue(
            self.formats + other.formats,
            self.shapes + other.shapes,
            other.stamps,
            self.files + other.files,
        )
