"""Who fights: `NAME=CS` (or old dice `NAME=2d22`, MSV-8), their sides, or the announcement.

Names are matched the way AOL matched screen names: case and spaces do not count
(`Pa Kur` is `pakur`). A fighter is on its own side unless a side is named (teams): the
spar ends when one side is left (MSV-7).

>>> parse_fighter("Tarl Cabot=65"), parse_fighter("PaKur=2d24")
(Fighter(name='Tarl Cabot', cs=65, side=None), Fighter(name='PaKur', cs=70, side=None))
>>> with_sides([parse_fighter("Tarl=65"), parse_fighter("Rask=60")], ["Rask=Ar"])[1].team
'Ar'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from referee.errors import RuleError
from referee.systems.msv.attack import CombatSkill
from referee.systems.msv.notation import name_key, read_fighter, read_sides

#: The most fighters one spar may have (a group spar fought in one chat room).
MAX_FIGHTERS = 32

__all__ = ["MAX_FIGHTERS", "Fighter", "check_fighters", "name_key", "parse_fighter", "with_sides"]


@dataclass(frozen=True, slots=True)
class Fighter:
    """A fighter of the spar: the name as given, the Combat Skill (MSV-2), the side."""

    name: str
    cs: CombatSkill
    side: str | None = None

    @property
    def key(self) -> str:
        """The name as AOL compared screen names: no case, no spaces.

        >>> Fighter("Pa Kur", CombatSkill(70)).key
        'pakur'
        """
        return name_key(self.name)

    @property
    def team(self) -> str:
        """The side the fighter is on: the one named, or its own."""
        return self.side or self.name


def parse_fighter(text: str) -> Fighter:
    """`NAME=CS` or `NAME=2dN`, read by the one reader of that form
    (`referee.systems.msv.notation.read_fighter`).

    >>> parse_fighter("Tarl")
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: bad fighter 'Tarl' (expected NAME=CS, e.g. 'Tarl Cabot=65', \
or old dice NAME=2dN, e.g. 'PaKur=2d24')
    """
    name, cs = read_fighter(text)
    return Fighter(name, cs)


def with_sides(fighters: Sequence[Fighter], sides: Sequence[str]) -> tuple[Fighter, ...]:
    """The fighters with the sides `NAME=SIDE` puts them on (`read_sides`)."""
    out = list(fighters)
    for name, side in read_sides(sides, [f.name for f in out]).items():
        index = next(i for i, f in enumerate(out) if f.name == name)
        out[index] = replace(out[index], side=side)
    return tuple(out)


def check_fighters(fighters: Sequence[Fighter]) -> tuple[Fighter, ...]:
    """Two to `MAX_FIGHTERS` fighters with different names, on at least two sides.

    >>> check_fighters([parse_fighter("A=50")])
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: a spar needs two fighters or more, got 1: A
    """
    names = ", ".join(f.name for f in fighters[:MAX_FIGHTERS])
    if not 2 <= len(fighters) <= MAX_FIGHTERS:
        raise RuleError(
            f"a spar needs two fighters or more (at most {MAX_FIGHTERS}), got {len(fighters)}: "
            f"{names}"
            if len(fighters) > MAX_FIGHTERS
            else f"a spar needs two fighters or more, got {len(fighters)}: {names}"
        )
    seen: dict[str, Fighter] = {}
    for fighter in fighters:
        if fighter.key in seen:
            raise RuleError(f"two fighters are called {fighter.name!r}")
        seen[fighter.key] = fighter
    if len({name_key(f.team) for f in fighters}) < 2:
        raise RuleError(f"every fighter is on one side ({fighters[0].team}): nobody to fight")
    return tuple(fighters)
