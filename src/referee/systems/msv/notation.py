"""How an MSV fighter is written on one line: `NAME=CS`, or `NAME=2dN` in the old dice (MSV-8);
and the side it is put on, `NAME=SIDE` (`read_sides`).

One reader for every place that takes fighters so: the CLI's `referee msv spar`, the lab's
sides (`Tarl=65,Orc=50`) and the judge's `--fighter`. The name is everything before the last
`=` (so `Tarl Cabot=65` and `A=B=50` name `Tarl Cabot` and `A=B`), at most `MAX_NAME`
characters; the value is a whole number (checked as a Combat Skill, MSV-1) or `2dN` (turned
into the Combat Skill MSV-8 gives it).

>>> read_fighter("Tarl Cabot=65"), read_fighter("PaKur = 2d24")
(('Tarl Cabot', 65), ('PaKur', 70))
>>> read_fighter("Tarl")
Traceback (most recent call last):
...
referee.errors.NotationError: bad fighter 'Tarl' (expected NAME=CS, e.g. 'Tarl Cabot=65', \
or old dice NAME=2dN, e.g. 'PaKur=2d24')
>>> read_fighter("Tarl=-5")
Traceback (most recent call last):
...
referee.errors.RuleError: CS must be a whole number >= 0 (MSV-2), got -5
>>> read_sides(["tarl cabot=Ar"], ["Tarl Cabot", "Rask"])
{'Tarl Cabot': 'Ar'}
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from referee.errors import NotationError
from referee.numerals import is_whole
from referee.systems.msv.attack import CombatSkill, check_cs
from referee.systems.msv.convert import dice_to_cs

#: The longest fighter name a line may give.
MAX_NAME = 64
#: The longest side a `NAME=SIDE` word may give.
MAX_SIDE = 64
HINT = "NAME=CS, e.g. 'Tarl Cabot=65', or old dice NAME=2dN, e.g. 'PaKur=2d24'"
_OLD_DICE = re.compile(r"2d[0-9]{1,4}", re.IGNORECASE)


def read_fighter(text: str) -> tuple[str, CombatSkill]:
    """`NAME=CS` or `NAME=2dN` as the name and its Combat Skill; a clear error for any other
    form (`NotationError`), a CS out of range as the rules refuse it (`RuleError`)."""
    name, sep, value = text.rpartition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name or len(name) > MAX_NAME:
        raise NotationError(f"bad fighter {text[:80]!r} (expected {HINT})")
    return name, read_skill(value, text)


def read_skill(value: str, text: str) -> CombatSkill:
    """A CS (`65`) or old dice (`2d23`, MSV-8) as a Combat Skill; `text` is the whole entry,
    for the error."""
    if is_whole(value, signs="-"):
        return check_cs(int(value))
    if _OLD_DICE.fullmatch(value):
        return dice_to_cs(value).cs
    raise NotationError(f"bad fighter {text[:80]!r} (expected {HINT})")


def name_key(name: str) -> str:
    """A fighter's name with case and spaces taken out: two spellings of one name share it (as
    AOL compared screen names).

    >>> name_key("Tarl Cabot") == name_key("tarlcabot")
    True
    """
    return "".join(name.split()).casefold()


def read_sides(pairs: Sequence[str], names: Sequence[str], what: str = "side") -> dict[str, str]:
    """The side each `NAME=SIDE` of `pairs` puts a fighter of `names` on, by the fighter's name
    as `names` spell it. The name is everything before the last `=`, matched in any letter case
    and spacing (`name_key`); the side is the rest, spaces around it dropped, 1 to `MAX_SIDE`
    characters. Anything else is a NotationError that names `what` (the option, say).

    One reader for the CLI's `referee msv spar --side` and the judge's `--side`.
    """
    keys: dict[str, str] = {}
    for known in names:
        keys.setdefault(name_key(known), known)
    sides: dict[str, str] = {}
    for text in pairs:
        name, sep, side = text.rpartition("=")
        found = keys.get(name_key(name))
        if not sep or found is None or not side.strip() or len(side) > MAX_SIDE:
            raise NotationError(
                f"bad {what} {text[:80]!r} (expected NAME=SIDE for one of: {', '.join(names)})"
            )
        sides[found] = side.strip()
    return sides
