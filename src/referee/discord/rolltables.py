"""Roll tables per server, as OnlineHost has them: `~table ...` makes them, `~choose NAME [+/-N]`
rolls on one (a verifiable 1dN in the channel's table ledger, N the table's last side).

Each entry holds a range of sides (`[1,3]Goblins`) or one side (`Orc`: the side after the last);
a side no entry holds is a gap, shown by `~table info` and answered as such when rolled.

>>> table = add_entries(RollTable("weather"), "Rain, [2,5]Fog, Sun")
>>> [(e.start, e.end, e.text) for e in table.entries], table.sides
([(1, 1, 'Rain'), (2, 5, 'Fog'), (6, 6, 'Sun')], 6)
>>> table.entry(4).text
'Fog'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from referee.errors import ConflictError, NotationError, NotFoundError

#: Most entries, and most sides, of one table; most tables per server.
MAX_ENTRIES, MAX_SIDES, MAX_TABLES = 100, 1000, 50
#: Most characters of an entry's text and of a table's description.
MAX_TEXT = 200
_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")
#: The commas between items: not those inside a range's brackets (`[2,5]Fog, Sun`).
_ITEMS = re.compile(r",(?![^\[\]]*\])")
_RANGE = re.compile(r"\[\s*([0-9]{1,4})\s*,\s*([0-9]{1,4})\s*\]\s*(.*)", re.S)


@dataclass(frozen=True, slots=True)
class Entry:
    """What the sides `start`..`end` of a table's die read."""

    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class RollTable:
    """A server's named roll table: its description and entries, in side order."""

    name: str
    description: str = ""
    entries: tuple[Entry, ...] = ()

    @property
    def sides(self) -> int:
        """The die the table is rolled with: as many sides as its last entry's end."""
        return max((e.end for e in self.entries), default=0)

    def entry(self, side: int) -> Entry | None:
        """The entry holding `side`, or None (a gap)."""
        return next((e for e in self.entries if e.start <= side <= e.end), None)

    def gaps(self) -> list[int]:
        """The sides no entry holds.

        >>> RollTable("t", entries=(Entry(1, 1, "a"), Entry(4, 4, "b"))).gaps()
        [2, 3]
        """
        return [side for side in range(1, self.sides + 1) if self.entry(side) is None]

    def to_json(self) -> str:
        """The entries as stored."""
        return json.dumps([[e.start, e.end, e.text] for e in self.entries])

    @classmethod
    def read(cls, name: str, description: str, entries: str) -> RollTable:
        """A table as stored."""
        return cls(name, description, tuple(Entry(int(s), int(e), str(t))
                                            for s, e, t in json.loads(entries)))  # fmt: skip


def table_name(word: str) -> str:
    """A table's name: 1 to 40 letters, digits, `-` or `_` (matched without regard to case).

    >>> table_name("Weather")
    'Weather'
    """
    if not _NAME.fullmatch(word):
        raise NotationError(
            f"a table's name is 1 to 40 letters, digits, - or _ (got {word[:40]!r})"
        )
    return word


def _text(text: str, what: str) -> str:
    said = " ".join(text.split())
    if not said or len(said) > MAX_TEXT or not said.isprintable():
        raise NotationError(f"{what} is 1 to {MAX_TEXT} printable characters")
    return said


def add_entries(table: RollTable, text: str) -> RollTable:
    """`item 1, item 2` (one side each, after the last) or `[s,e]item` (sides s to e) added."""
    entries = list(table.entries)
    for part in _ITEMS.split(text):
        ranged = _RANGE.fullmatch(part.strip())
        if ranged:
            start, end = int(ranged.group(1)), int(ranged.group(2))
            words = ranged.group(3)
        else:
            start = end = max((e.end for e in entries), default=0) + 1
            words = part
        if not 1 <= start <= end <= MAX_SIDES:
            raise NotationError(f"sides [{start},{end}] must run up from 1 to at most {MAX_SIDES}")
        taken = [e for e in entries if e.start <= end and start <= e.end]
        if taken:
            raise ConflictError(
                f"sides {start}-{end} overlap {taken[0].start}-{taken[0].end} "
                f"({taken[0].text}): ~table rewrite or ~table remove it first"
            )
        entries.append(Entry(start, end, _text(words, "an entry")))
    if len(entries) > MAX_ENTRIES:
        raise NotationError(f"a table holds at most {MAX_ENTRIES} entries")
    return replace(table, entries=tuple(sorted(entries, key=lambda e: e.start)))


def rewrite(table: RollTable, side: int, text: str) -> RollTable:
    """The entry holding `side` with a new text."""
    found = _holding(table, side)
    new = Entry(found.start, found.end, _text(text, "an entry"))
    return replace(table, entries=tuple(new if e == found else e for e in table.entries))


def remove(table: RollTable, side: int) -> RollTable:
    """The table without the entry holding `side`."""
    found = _holding(table, side)
    return replace(table, entries=tuple(e for e in table.entries if e != found))


def _holding(table: RollTable, side: int) -> Entry:
    found = table.entry(side)
    if found is None:
        raise NotFoundError(f"no entry of table {table.name} holds side {side}")
    return found


def info_lines(table: RollTable) -> list[str]:
    """`~table info NAME`: the die, the description, the entries and the gaps."""
    head = f"Table {table.name}: 1d{table.sides}" if table.entries else f"Table {table.name}"
    lines = [head + (f" - {table.description}" if table.description else "")]
    for e in table.entries:
        sides = str(e.start) if e.start == e.end else f"{e.start}-{e.end}"
        lines.append(f"  {sides}: {e.text}")
    if not table.entries:
        lines.append("  (no entries yet: ~table add NAME item 1, item 2)")
    gaps = table.gaps()
    if gaps:
        lines.append(f"Gaps (sides no entry holds): {', '.join(str(g) for g in gaps)}")
    return lines
