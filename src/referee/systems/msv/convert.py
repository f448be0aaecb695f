"""MSV-8 conversion between old 2dN dice and CS, with the text's labels.

>>> dice_to_cs("2d22")
Conversion(sides=22, cs=60, label='typical warrior')
>>> cs_to_dice(75).dice
'2d25'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from referee.errors import NotationError, RuleError
from referee.systems.msv.attack import CombatSkill, check_cs

MIN_SIDES = 10  # MSV-8: 2d10 -> CS 0
MAX_SIDES = 30  # MSV-8: 2d30 -> CS 100

#: The text's labels, for 2d20..2d25 only (MSV-8).
LABELS: dict[int, str] = {
    20: "woman",
    21: "man / weapon-trained woman",
    22: "typical warrior",
    23: "veteran warrior",
    24: "elite warrior",
    25: "legendary warrior",
}

_TWO_DICE = re.compile(r"\s*2d([0-9]{1,4})\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Conversion:
    """One row of the conversion table: 2dN, its CS and the text's label (if any)."""

    sides: int
    cs: CombatSkill
    label: str | None

    @property
    def dice(self) -> str:
        """The old dice as written, `2d22`.

        >>> cs_to_dice(60).dice
        '2d22'
        """
        return f"2d{self.sides}"

    def to_json(self) -> dict[str, str | int | None]:
        """As a JSON object.

        >>> cs_to_dice(50).to_json()
        {'dice': '2d20', 'cs': 50, 'label': 'woman'}
        """
        return {"dice": self.dice, "cs": self.cs, "label": self.label}


def parse_two_dice(text: str, low: int = 1, high: int = 999) -> int:
    """The N of `2dN`, which must be in low..high; NotationError otherwise.

    >>> parse_two_dice("2d22")
    22
    """
    match = _TWO_DICE.fullmatch(text)
    if match is None:
        raise NotationError(f"expected two dice like '2d22', got {text!r}")
    sides = int(match.group(1))
    if not low <= sides <= high:
        raise NotationError(f"dice {text!r} out of range: expected 2d{low}..2d{high}")
    return sides


def sides_to_cs(sides: int) -> CombatSkill:
    """MSV-8: CS = (N - 20) * 5 + 50, for N in 10..30.

    >>> sides_to_cs(10), sides_to_cs(30)
    (0, 100)
    """
    if isinstance(sides, bool) or not isinstance(sides, int):
        raise RuleError(f"dice sides must be a whole number, got {sides!r}")
    if not MIN_SIDES <= sides <= MAX_SIDES:
        raise RuleError(f"2d{sides} has no CS: MSV-8 converts 2d{MIN_SIDES}..2d{MAX_SIDES} only")
    return CombatSkill((sides - 20) * 5 + 50)


def dice_to_cs(text: str) -> Conversion:
    """`2dN` -> its CS and label (MSV-8); 2d10..2d30 only.

    >>> dice_to_cs("2d31")
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: dice '2d31' out of range: expected 2d10..2d30
    """
    sides = parse_two_dice(text, MIN_SIDES, MAX_SIDES)
    return Conversion(sides, sides_to_cs(sides), LABELS.get(sides))


def cs_to_dice(cs: int) -> Conversion:
    """The reverse: a CS that is a multiple of 5 in 0..100 -> 2dN (MSV-8).

    >>> cs_to_dice(62)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: CS 62 has no old dice: MSV-8 gives CS 0..100 in steps of 5 ...
    """
    skill = check_cs(cs)
    if skill > 100 or skill % 5:
        raise RuleError(
            f"CS {cs!r} has no old dice: MSV-8 gives CS 0..100 in steps of 5 (2d10..2d30)"
        )
    sides = (skill - 50) // 5 + 20
    return Conversion(sides, skill, LABELS.get(sides))


def conversion_table() -> tuple[Conversion, ...]:
    """Every row 2d10..2d30.

    >>> len(conversion_table())
    21
    """
    return tuple(dice_to_cs(f"2d{n}") for n in range(MIN_SIDES, MAX_SIDES + 1))
