"""MSV-9: the old "2d20-2d25" system, Rhy'Din scoring, for comparison only.

Each die scores max(0, floor((face - 10) / 5)): 1-14 -> 0, 15-19 -> 1, 20-24 -> 2, ...
A turn's damage is the sum of both dice scores; the attack hits when damage > 0.

>>> old_interpret(22, (14, 17))
OldRoll(sides=22, faces=(14, 17), scores=(0, 1), damage=1, hit=True)
>>> float(old_hit_chance(20))
0.51
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.errors import RuleError

if TYPE_CHECKING:
    from fractions import Fraction

    from referee.rng import Rng

# `fractions` is loaded by the exact odds below (a reader of rolls, the judge, needs none).

#: AOL's limits on one die's sides (MSV-1).
MIN_OLD_SIDES = 2
MAX_OLD_SIDES = 999


@dataclass(frozen=True, slots=True)
class OldRoll:
    """One old-system roll of 2dN: faces, each die's score, the damage, hit or not."""

    sides: int
    faces: tuple[int, int]
    scores: tuple[int, int]
    damage: int
    hit: bool

    def to_json(self) -> dict[str, object]:
        """As a JSON object.

        >>> old_interpret(22, (20, 3)).to_json()["damage"]
        2
        """
        return {
            "dice": f"2d{self.sides}",
            "faces": list(self.faces),
            "scores": list(self.scores),
            "damage": self.damage,
            "hit": self.hit,
        }

    def __str__(self) -> str:
        verdict = "hit" if self.hit else "miss"
        return (
            f"2d{self.sides}: {self.faces[0]} {self.faces[1]} -> "
            f"{self.scores[0]} + {self.scores[1]} = {self.damage} damage, {verdict}"
        )


def die_score(face: int) -> int:
    """Rhy'Din score of one die face (MSV-9).

    >>> [die_score(f) for f in (1, 14, 15, 19, 20, 24, 25)]
    [0, 0, 1, 1, 2, 2, 3]
    """
    return max(0, (face - 10) // 5)


def check_old_sides(sides: int) -> int:
    """A die size AOL allowed (2..999), else RuleError.

    >>> check_old_sides(22)
    22
    """
    if isinstance(sides, bool) or not isinstance(sides, int):
        raise RuleError(f"dice sides must be a whole number, got {sides!r}")
    if not MIN_OLD_SIDES <= sides <= MAX_OLD_SIDES:
        raise RuleError(f"2d{sides}: a die has {MIN_OLD_SIDES}..{MAX_OLD_SIDES} sides")
    return sides


def old_interpret(sides: int, faces: tuple[int, int]) -> OldRoll:
    """Score a given 2dN roll (MSV-9); faces must fit the die.

    >>> old_interpret(22, (21, 30))
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: face 30 does not fit a d22 (1..22)
    """
    check_old_sides(sides)
    if len(faces) != 2:
        raise RuleError(f"the old system rolls two dice, got faces {faces!r}")
    for face in faces:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= sides:
            raise RuleError(f"face {face!r} does not fit a d{sides} (1..{sides})")
    scores = (die_score(faces[0]), die_score(faces[1]))
    damage = scores[0] + scores[1]
    return OldRoll(sides, (faces[0], faces[1]), scores, damage, damage > 0)


def old_roll(sides: int, rng: Rng) -> OldRoll:
    """Throw 2dN from `rng` as one roll and score it.

    >>> from referee.rng import ScriptedRng
    >>> old_roll(22, ScriptedRng([14, 17])).damage
    1
    """
    throw = rng.throw((check_old_sides(sides), sides))
    return old_interpret(sides, (throw.faces[0], throw.faces[1]))


def old_damage_distribution(sides: int) -> dict[int, Fraction]:
    """Exact distribution of one turn's damage, by enumerating all N * N pairs.

    >>> old_damage_distribution(20)[0]
    Fraction(49, 100)
    """
    from fractions import Fraction

    check_old_sides(sides)
    counts = Counter(
        die_score(a) + die_score(b) for a in range(1, sides + 1) for b in range(1, sides + 1)
    )
    total = sides * sides
    return {damage: Fraction(n, total) for damage, n in sorted(counts.items())}


def old_hit_chance(sides: int) -> Fraction:
    """Exact chance that a 2dN turn hits (damage > 0).

    >>> old_hit_chance(22)
    Fraction(72, 121)
    """
    from fractions import Fraction

    return 1 - old_damage_distribution(sides).get(0, Fraction(0))


def old_mean_damage(sides: int) -> Fraction:
    """Exact mean damage of one 2dN turn.

    >>> old_mean_damage(21)
    Fraction(6, 7)
    """
    from fractions import Fraction

    return sum((d * p for d, p in old_damage_distribution(sides).items()), Fraction(0))
