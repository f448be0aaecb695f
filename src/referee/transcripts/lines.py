"""The lines of a read log: a `LogLine` (a roll line with its author, roll and verdict, or only
text), the roll lines of a log as columns (`RollLines`), and what one line says (`Said`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from referee.transcripts.columns import Columns
from referee.transcripts.rolls import HostRoll


class LogLine(NamedTuple):
    """One line of a log: its number and text; for a roll line, its time stamp as written,
    its author, the roll, and why it does not count as rolled (`forged`) or that it is a
    quote (`quoted`)."""

    number: int
    text: str
    stamp: str | None = None
    speaker: str | None = None
    roll: HostRoll | None = None
    forged: str | None = None
    quoted: bool = False

    @property
    def is_roll(self) -> bool:
        """Whether the line says a roll at all (rolled, forged or quoted)."""
        return self.roll is not None or self.forged is not None


#: What a roll line says, shared by the lines that say it alike: (author, roll, why it does
#: not count as rolled (`forged`), whether it is a quote), as in a `LogLine`.
Claim = tuple[str | None, HostRoll | None, str | None, bool]


class RollLines(Columns[LogLine]):
    """The roll lines of a log as columns (`referee.transcripts.columns`): each line's number,
    its time stamp and which of the log's claims it says (`which`, an index into `claims`, the
    different things the roll lines say); a `LogLine` is made for each when first asked for.
    A line-by-line format's roll lines keep no stamp: it is read off the line as the format
    reads it (`prefix`, the format's split of a line, on `read`, the lines as read: the file's
    own unless quote marks or tags were taken off) when the `LogLine` is made.

    >>> rolls = RollLines.of([LogLine(2, "OnlineHost: A rolled 1 100-sided die: 9", None,
    ...                               "OnlineHost", HostRoll("A", 1, 100, (9,)))])
    >>> rolls.numbers, rolls.claims[rolls.which[0]][1].faces, rolls[0].speaker
    ([2], (9,), 'OnlineHost')
    """

    __slots__ = ("_prefix", "_raw", "_read", "_texts", "claims", "numbers", "stamps", "which")

    def __init__(
        self,
        raw: Sequence[str] = (),
        prefix: re.Pattern[str] | None = None,
        read: Sequence[str] | None = None,
    ) -> None:
        super().__init__()
        self.numbers: list[int] = []
        self.stamps: list[str | None] = []
        self.which: list[int] = []
        self.claims: list[Claim] = []
        self._texts: list[str] | None = None
        self._raw = raw  # the file's lines: a roll line's text is its line of the file
        # a line's stamp is the first group of this match, brackets and all (taken off when
        # made); None: the stamps are given, one for each line
        self._prefix = prefix
        self._read = raw if read is None else read

    @classmethod
    def of(cls, lines: Iterable[LogLine]) -> RollLines:
        """The columns of these roll lines (a claim for each)."""
        rolls = cls()
        texts = rolls._texts = []
        for number, text, stamp, speaker, roll, forged, quoted in lines:
            rolls.numbers.append(number)
            rolls.stamps.append(stamp)
            rolls.which.append(len(rolls.claims))
            rolls.claims.append((speaker, roll, forged, quoted))
            texts.append(text)
        return rolls

    def __len__(self) -> int:
        return len(self.numbers)

    def roll_numbers(self) -> list[int]:
        """The numbers of the lines that say a roll (`LogLine.is_roll`), no `LogLine` made
        but one for each claim."""
        says = [LogLine(0, "", None, *claim).is_roll for claim in self.claims]
        return [
            number for number, which in zip(self.numbers, self.which, strict=True) if says[which]
        ]

    def _make(self) -> tuple[LogLine, ...]:
        numbers, claims = self.numbers, self.claims
        texts = self._texts
        if texts is None:
            raw = self._raw
            texts = [raw[number - 1] for number in numbers]
        stamps = self.stamps
        if self._prefix is not None:
            at, read = self._prefix.match, self._read
            matched = [at(read[number - 1])[1] for number in numbers]  # type: ignore[index]
            stamps = [None if s is None else (s.strip("[]() \t") or None) for s in matched]
        make = LogLine._make  # the named tuple's constructor from one sequence
        return tuple(
            [
                make((number, text, stamp, *claims[which]))
                for number, text, stamp, which in zip(
                    numbers, texts, stamps, self.which, strict=True
                )
            ]
        )


class Said(NamedTuple):
    """What one line says and who said it: `kind` is speech, emote, quote, system or text
    (a line in no shape of the format: nobody's); `untagged`: its author's header lacks the
    bot tag its format shows after every bot's name (`APP` or `BOT` in a copy from Discord's
    window), so a person wrote it, whatever the name."""

    number: int
    author: str | None
    text: str
    kind: str
    stamp: str | None = None
    untagged: bool = False
