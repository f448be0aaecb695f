"""Records kept as columns, each made into its object only when first asked for.

A 100,000-line log has some 45,000 roll lines, each with its reading: an object per line is
most of what judging costs (making them, and the cycle collector walking them). So the reader
keeps its roll lines, and the spar its readings, as columns of numbers and shared tuples
(`RollLines` in `referee.transcripts.reader`, `Readings` here); a caller that looks at them
sees a tuple-like sequence of `LogLine`s or `Reading`s, made on the first look and kept.

>>> readings = Readings()
>>> what = (Use.ATTACK, "Tarl attacks PaKur: miss", 0, "PaKur")
>>> readings.add(4, ("Tarl", "1d100", (47,), None), what)
>>> len(readings), readings[0].text, readings == (readings[0],)
(1, 'Tarl attacks PaKur: miss', True)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import TypeVar, overload

from referee.transcripts.verdict import Anomaly, Kind, Reading, Use

T = TypeVar("T")
S = TypeVar("S")

#: Who rolled what, as a reading shows it: (name, dice, faces, nonce).
Who = tuple[str, str, tuple[int, ...], int | None]
#: What a roll was to the spar: (use, reading text, damage, target).
What = tuple[Use, str, int, str | None]
#: Why a line does not count: (kind, reason).
Why = tuple[Kind, str]


class Columns(Sequence[T]):
    """A sequence of records kept as columns; the records are made when first asked for
    (see the module text). Equal to a tuple of the same records, as a tuple would be."""

    __slots__ = ("_made",)

    def __init__(self) -> None:
        self._made: tuple[T, ...] | None = None

    def _make(self) -> tuple[T, ...]:
        raise NotImplementedError

    @property
    def made(self) -> tuple[T, ...]:
        """Every record, made on the first call."""
        if self._made is None:
            self._made = self._make()
        return self._made

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        return self.made[index]

    def __iter__(self) -> Iterator[T]:
        return iter(self.made)

    def __len__(self) -> int:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Columns):
            return self.made == other.made
        if isinstance(other, tuple):
            return self.made == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.made)


class Readings(Columns[Reading]):
    """How each roll line was read, as columns: its line, who rolled what (a `Who`, shared by
    the lines of one roll) and what it was to the spar (a `What`, shared by lines read alike)."""

    __slots__ = ("lines", "whats", "whos")

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[int] = []
        self.whos: list[Who] = []
        self.whats: list[What] = []

    def add(self, line: int, who: Who, what: What) -> None:
        """One more reading."""
        self.lines.append(line)
        self.whos.append(who)
        self.whats.append(what)

    def add_reading(self, reading: Reading) -> None:
        """One more reading, given whole."""
        self.add(reading.line, reading[1:5], reading[5:])

    def __len__(self) -> int:
        return len(self.lines)

    def _make(self) -> tuple[Reading, ...]:
        make = Reading._make  # the named tuple's constructor from one sequence
        return tuple(
            [
                make((line, *who, *what))
                for line, who, what in zip(self.lines, self.whos, self.whats, strict=True)
            ]
        )

    def at(self, index: int) -> Reading:
        """One reading, made alone (the sequence is not made)."""
        return Reading._make((self.lines[index], *self.whos[index], *self.whats[index]))


class Anomalies(Columns[Anomaly]):
    """Every anomaly, as columns: its line and why (a `Why`, shared by lines alike); made
    in the order of their lines (the order they were found in, for one line)."""

    __slots__ = ("_ordered", "lines", "whys")

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[int] = []
        self.whys: list[Why] = []
        self._ordered: tuple[Sequence[int], Sequence[Why]] | None = None

    def add(self, line: int, why: Why) -> None:
        """One more anomaly."""
        self.lines.append(line)
        self.whys.append(why)

    def __len__(self) -> int:
        return len(self.lines)

    def in_order(self) -> tuple[Sequence[int], Sequence[Why]]:
        """The columns in the order of their lines (the order they were found in, for one
        line), as the anomalies are made: found on the first call, as the records are (the
        columns are whole by then)."""
        if self._ordered is None:
            lines, whys = self.lines, self.whys
            if lines == sorted(lines):  # found in the order of their lines, as most are
                self._ordered = lines, whys
            else:
                order = sorted(range(len(lines)), key=lines.__getitem__)
                self._ordered = [lines[i] for i in order], [whys[i] for i in order]
        return self._ordered

    def _make(self) -> tuple[Anomaly, ...]:
        make = Anomaly._make
        return tuple([make((line, *why)) for line, why in zip(*self.in_order(), strict=True)])


def reading_columns(
    rolls: Sequence[Reading],
) -> tuple[Sequence[int], Sequence[Who], Sequence[What]]:
    """The readings' lines, who rolled what and what it was, as columns (their own when they
    are kept as `Readings`: no `Reading` is made), in their order."""
    if isinstance(rolls, Readings):
        return rolls.lines, rolls.whos, rolls.whats
    return [r.line for r in rolls], [r[1:5] for r in rolls], [r[5:] for r in rolls]


def anomaly_columns(anomalies: Sequence[Anomaly]) -> tuple[Sequence[int], Sequence[Why]]:
    """The anomalies' lines and why, as columns in the order of their lines (their own when
    they are kept as `Anomalies`: no `Anomaly` is made)."""
    if isinstance(anomalies, Anomalies):
        return anomalies.in_order()
    return [a.line for a in anomalies], [a[1:] for a in anomalies]


def identities(*columns: Sequence[object]) -> list[Hashable]:
    """Each record's key for `said_once`: the identity of its shared tuple (of its tuples, one
    from each column, when more than one column is given)."""
    if len(columns) == 1:
        return list(map(id, columns[0]))
    return list(zip(*(map(id, column) for column in columns), strict=True))


def said_once(keys: Sequence[Hashable], shapes: Iterable[T], say: Callable[[T], S]) -> list[S]:
    """`say(shape)` for each record, said once for all the records of one key.

    The columns share one tuple among the records alike (a reading's who and what, an
    anomaly's why): keyed by `identities`, a text of a 100,000-line log's report is made once
    for each few hundred shapes, not for each line (the columns hold every tuple alive, so no
    two of them have one identity while this runs).

    >>> said_once(["a", "b", "a"], [(1,), (2,), (1,)], lambda shape: f"<{shape[0]}>")
    ['<1>', '<2>', '<1>']
    """
    first = dict(zip(keys, shapes, strict=True))
    texts = {key: say(shape) for key, shape in first.items()}
    return list(map(texts.__getitem__, keys))
