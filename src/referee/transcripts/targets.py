"""Whom an attack of a group spar is aimed at: the target its attacker names (MSV-6).

With more than two fighters the attacker names the target of each attack. In chat that is a
line of the attacker's own before the roll that names one foe (`Tarl: at Rask!`, `Tarl swings
at Rask`), or the service's reading after it (`Referee: Tarl attacks Rask: 47 vs CS 65: hit,
4 damage`), which comes first; with neither, the foe the attacker named last, while it stands.
A free attack goes to the stunned foe (MSV-4), and with one foe standing nobody needs to be
named.

>>> said = [(4, "Tarl", "I swing at Rask"), (6, "Referee", "Pa-Kur attacks Tarl: miss")]
>>> book = TargetBook.read(said, ["Tarl", "Rask", "Pa-Kur"], lambda who: who == "Referee")
>>> book.named("tarl", after=0, before=5, until=5), book.named("pa-kur", after=0, before=5, until=9)
('rask', 'tarl')
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from referee.transcripts.authors import name_key

_ATTACKS = re.compile(r"^\s*(?P<attacker>[^:]{1,64}?) attacks (?P<target>[^:]{1,64}?):")


@dataclass(frozen=True, slots=True)
class Declaration:
    """A line that names an attack's target: who attacks whom, and whether the service said so."""

    line: int
    attacker: str
    target: str
    service: bool


@dataclass
class TargetBook:
    """Every line that names a target, in line order."""

    declarations: list[Declaration] = field(default_factory=list)
    _lines: list[int] = field(default_factory=list)

    @classmethod
    def read(
        cls,
        lines: Iterable[tuple[int, str | None, str]],
        fighters: Sequence[str],
        is_service: Callable[[str | None], bool],
    ) -> TargetBook:
        """The declarations among (number, author, text) lines, for these fighters' names."""
        keys = {name_key(f): f for f in fighters}
        pattern = _mentions(fighters)
        book = cls()
        for number, author, text in lines:
            if is_service(author):
                said = _ATTACKS.match(text)
                if said and name_key(said["attacker"]) in keys and name_key(said["target"]) in keys:
                    book.add(number, said["attacker"], said["target"], service=True)
            elif author is not None and name_key(author) in keys:
                named = {name_key(m) for m in pattern.findall(text)} - {name_key(author)}
                if len(named) == 1:
                    book.add(number, author, named.pop(), service=False)
        return book

    def add(self, line: int, attacker: str, target: str, service: bool) -> None:
        """One more declaration (lines in order)."""
        self.declarations.append(Declaration(line, name_key(attacker), name_key(target), service))
        self._lines.append(line)

    def named(self, attacker: str, after: int, before: int, until: int) -> str | None:
        """The target (a name key) `attacker` named for a roll on line `before`: the service's
        reading between the roll and `until` (the next roll line), else the attacker's last
        own line after line `after` (its previous roll)."""
        start = bisect.bisect_right(self._lines, after)
        end = bisect.bisect_right(self._lines, until)
        found = None
        for said in self.declarations[start:end]:
            if said.attacker != attacker:
                continue
            if said.service and said.line > before:
                return said.target
            if not said.service and said.line < before:
                found = said.target
        return found


def _mentions(fighters: Sequence[str]) -> re.Pattern[str]:
    names = sorted(fighters, key=len, reverse=True)
    return re.compile(r"(?<!\w)(" + "|".join(re.escape(n) for n in names) + r")(?!\w)", re.I)
