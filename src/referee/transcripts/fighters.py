"""Who fights: `NAME=CS` (or old dice `NAME=2d22`, MSV-8) or the log's announcement.

Names are matched the way AOL matched screen names: case and spaces do not count
(`Pa Kur` is `pakur`).

>>> parse_fighter("Tarl Cabot=65"), parse_fighter("PaKur=2d24")
(Fighter(name='Tarl Cabot', cs=65), Fighter(name='PaKur', cs=70))
>>> announced("Judge: Spar between Tarl Cabot (CS 65) and PaKur (CS 70)")
(Fighter(name='Tarl Cabot', cs=65), Fighter(name='PaKur', cs=70))
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.errors import NotationError, RuleError
from referee.numerals import is_whole
from referee.systems.msv.attack import CombatSkill, check_cs
from referee.systems.msv.convert import dice_to_cs
from referee.transcripts.formats import ANNOUNCE_RE, ANNOUNCED_FIGHTER_RE

_OLD_DICE = re.compile(r"2d[0-9]{1,4}", re.IGNORECASE)
_HINT = "NAME=CS, e.g. 'Tarl Cabot=65', or old dice NAME=2dN, e.g. 'PaKur=2d24'"


@dataclass(frozen=True, slots=True)
class Fighter:
    """A fighter of the spar: the name as given and the Combat Skill (MSV-2)."""

    name: str
    cs: CombatSkill

    @property
    def key(self) -> str:
        """The name as AOL compared screen names: no case, no spaces.

        >>> Fighter("Pa Kur", CombatSkill(70)).key
        'pakur'
        """
        return name_key(self.name)


def name_key(name: str) -> str:
    """A screen name with case and spaces taken out.

    >>> name_key("Tarl Cabot") == name_key("tarlcabot")
    True
    """
    return "".join(name.split()).casefold()


def parse_fighter(text: str) -> Fighter:
    """`NAME=CS` or `NAME=2dN` (split on the last '='); a clear error for any other form.

    >>> parse_fighter("Tarl")
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: bad fighter 'Tarl' (expected NAME=CS, e.g. 'Tarl Cabot=65', \
or old dice NAME=2dN, e.g. 'PaKur=2d24')
    """
    name, sep, value = text.rpartition("=")
    value = value.strip()
    if not sep or not name.strip() or len(name) > 64:
        raise NotationError(f"bad fighter {text!r} (expected {_HINT})")
    if is_whole(value):
        return Fighter(name.strip(), check_cs(int(value)))
    if _OLD_DICE.fullmatch(value):
        return Fighter(name.strip(), dice_to_cs(value).cs)
    raise NotationError(f"bad fighter {text!r} (expected {_HINT})")


def check_pair(fighters: Sequence[Fighter]) -> tuple[Fighter, Fighter]:
    """Exactly two fighters with different names (the judge decides two-fighter spars).

    >>> check_pair([parse_fighter("A=50")])
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: the judge decides a spar of two fighters, got 1: A
    """
    if len(fighters) != 2:
        names = ", ".join(f.name for f in fighters)
        raise RuleError(f"the judge decides a spar of two fighters, got {len(fighters)}: {names}")
    first, second = fighters
    if first.key == second.key:
        raise RuleError(f"both fighters are called {first.name!r}")
    return first, second


def announced(text: str) -> tuple[Fighter, ...] | None:
    """The fighters a line announces (`Spar between A (CS 65) and B (CS 70)`), or None.

    >>> announced("Spar: Tarl (CS 65) vs Pa-Kur (CS 70), seed 7")
    (Fighter(name='Tarl', cs=65), Fighter(name='Pa-Kur', cs=70))
    >>> announced("Tarl: nice spar") is None
    True
    """
    match = ANNOUNCE_RE.search(text)
    if match is None:
        return None
    found = tuple(
        Fighter(m["name"].strip(), check_cs(int(m["cs"])))
        for m in ANNOUNCED_FIGHTER_RE.finditer(match["rest"])
        if m["name"].strip()
    )
    return found or None


def find_announcement(lines: Iterable[tuple[int, str]]) -> tuple[int, tuple[Fighter, ...]] | None:
    """The first announcement in (number, text) lines: its line number and fighters.

    >>> find_announcement([(1, "hi"), (2, "Judge: Spar between A (CS 50) and B (CS 55)")])
    (2, (Fighter(name='A', cs=50), Fighter(name='B', cs=55)))
    """
    for number, text in lines:
        if "(" not in text:
            continue
        found = announced(text)
        if found is not None:
            return number, found
    return None
