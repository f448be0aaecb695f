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
from dataclasses import dataclass

from referee.transcripts.authors import name_key

_ATTACKS = re.compile(r"^\s*(?P<attacker>[^:]{1,64}?) attacks (?P<target>[^:]{1,64}?):")


@dataclass(frozen=True, slots=True)
class Declaration:
    """A line that names an attack's target: who attacks whom, and whether the service said so."""

    line: int
    attacker: str
    target: str
    service: bool


class TargetBook:
    """Every line that names a target, in line order."""

    def __init__(self) -> None:
        self.declarations: list[Declaration] = []
        self._lines: list[int] = []

    @classmethod
    def read(
        cls,
        lines: Iterable[tuple[int, str | None, str]],
        fighters: Sequence[str],
        is_service: Callable[[str | None], bool],
    ) -> TargetBook:
        """The declarations among (number, author, text) lines, for these fighters' names."""
        who = called(fighters)
        pattern = mentions(fighters)
        book = cls()
        for number, author, text in lines:
            if is_service(author):
                said = _ATTACKS.match(text)
                attacker = who.get(name_key(said["attacker"])) if said else None
                target = who.get(name_key(said["target"])) if said else None
                if attacker is not None and target is not None:
                    book.add(number, attacker, target, service=True)
            elif author is not None and name_key(author) in who:
                attacker = who[name_key(author)]
                named = {who[name_key(m)] for m in pattern.findall(text)} - {attacker}
                if len(named) == 1:
                    book.add(number, attacker, named.pop(), service=False)
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


def called(fighters: Sequence[str]) -> dict[str, str]:
    """Each fighter by the name keys it is called by in chat: its whole name, and each
    capitalised word of three letters or more of a longer name that no other fighter's name
    has (`Tarl` for `Tarl Cabot`, unless another fighter is a Tarl too).

    >>> sorted(called(["Tarl Cabot", "Pa-Kur", "Tarl of Ar"]).items())
    [('cabot', 'Tarl Cabot'), ('pa-kur', 'Pa-Kur'), ('tarlcabot', 'Tarl Cabot'), \
('tarlofar', 'Tarl of Ar')]
    """
    whole = {name_key(f): f for f in fighters}
    owners: dict[str, set[str]] = {}
    for fighter, word in _words(fighters):
        owners.setdefault(name_key(word), set()).add(fighter)
    short = {
        key: next(iter(who)) for key, who in owners.items() if len(who) == 1 and key not in whole
    }
    return {**short, **whole}


def _words(fighters: Sequence[str]) -> list[tuple[str, str]]:
    """The (fighter, word) of the words a fighter of a longer name may be called by."""
    return [
        (fighter, word)
        for fighter in fighters
        if len(fighter.split()) > 1
        for word in fighter.split()
        if len(word) >= 3 and word[:1].isupper()
    ]


def mentions(fighters: Sequence[str]) -> re.Pattern[str]:
    """A pattern of every name a fighter is called by (`called`), the longest first: whole
    names in any case, one word of a name as written (a capital first)."""
    keys = called(fighters)
    words = {w for f, w in _words(fighters) if keys.get(name_key(w)) == f}
    names = "|".join(re.escape(n) for n in sorted(fighters, key=len, reverse=True))
    short = "".join(f"|{re.escape(w)}" for w in sorted(words, key=len, reverse=True))
    return re.compile(r"(?<!\w)((?i:" + names + ")" + short + r")(?!\w)")
