"""Magic combat: casting spends mana; PM must be overcome; mana must beat magical defense (SRP-18).

Per spell cast on one target in a round: an opposed roll, caster PM vs target PM (SRP-1).
The mana of every spell that got through, added up, must be strictly greater than the
target's magical defense, or nothing takes effect. Diminished spells (Paralysis,
Wither) work at (total mana - defense).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.errors import LimitError, NotationError, RuleError
from referee.numerals import is_whole
from referee.rng import Rng
from referee.systems.srp.contest import TWO_D6, Opposed, Side, Winner, resolve_opposed
from referee.vocabulary import JSON

#: Most spells on one target in one round (a stated bound).
MAX_SPELLS = 20


@dataclass(frozen=True, slots=True)
class Spell:
    """A spell as cast: its mana, and whether the target's defense diminishes it.

    >>> Spell("Paralysis", 4, diminished=True).diminished
    True
    """

    name: str
    mana: int
    diminished: bool = False

    def __post_init__(self) -> None:
        if (
            isinstance(self.mana, bool)
            or not isinstance(self.mana, int)
            or not 1 <= self.mana <= 100
        ):
            raise RuleError(f"spell {self.name!r}: mana {self.mana!r} is not 1..100")


def spend_mana(pool: int, spell: Spell) -> int:
    """Casting always works and spends the spell's mana; the caster must have it (SRP-18).

    >>> spend_mana(10, Spell("Bolt", 3))
    7
    """
    if spell.mana > pool:
        raise RuleError(f"casting {spell.name!r} needs {spell.mana} mana; the caster has {pool}")
    return pool - spell.mana


@dataclass(frozen=True, slots=True)
class Cast:
    """One spell cast at the target by a caster with the given PM."""

    caster: str
    pm: int
    spell: Spell


@dataclass(frozen=True, slots=True)
class MagicRound:
    """A round of spells on one target: each opposed roll, the mana through, the verdict."""

    casts: tuple[Cast, ...]
    contests: tuple[Opposed, ...]
    mana_through: int
    defense: int
    affected: bool
    strength: int
    explanation: tuple[str, ...]

    def as_dict(self) -> dict[str, JSON]:
        """As JSON values."""
        return {
            "spells": [
                {
                    "caster": c.caster,
                    "spell": c.spell.name,
                    "mana": c.spell.mana,
                    "through": o.winner is Winner.ACTIVE,
                    **o.as_dict(),
                }
                for c, o in zip(self.casts, self.contests, strict=True)
            ],
            "mana_through": self.mana_through,
            "defense": self.defense,
            "affected": self.affected,
            "strength": self.strength,
            "explanation": list(self.explanation),
        }


def resolve_magic(
    target_pm: int,
    defense: int,
    casts: Sequence[Cast],
    dice: Sequence[tuple[Sequence[int], Sequence[int]]],
) -> MagicRound:
    """Resolve a round of spells on one target from given dice (caster 2d6, target 2d6 each).

    >>> bolt = Cast("Mira", 12, Spell("Bolt", 3))
    >>> wither = Cast("Ulf", 10, Spell("Wither", 4, diminished=True))
    >>> r = resolve_magic(11, 5, [bolt, wither], [((4, 4), (3, 3)), ((5, 5), (2, 2))])
    >>> r.mana_through, r.affected, r.strength
    (7, True, 2)
    """
    if len(casts) > MAX_SPELLS:
        raise LimitError(f"{len(casts)} spells on one target (at most {MAX_SPELLS})")
    if len(dice) != len(casts):
        raise RuleError(f"{len(casts)} spells need {len(casts)} pairs of rolls, got {len(dice)}")
    lines: list[str] = []
    contests = []
    through = 0
    for cast, (caster_dice, target_dice) in zip(casts, dice, strict=True):
        result = resolve_opposed(Side(cast.pm), Side(target_pm), caster_dice, target_dice)
        contests.append(result)
        won = result.winner is Winner.ACTIVE
        through += cast.spell.mana if won else 0
        verdict = "gets through" if won else "is resisted"
        lines.append(
            f"{cast.spell.name} ({cast.spell.mana} mana) by {cast.caster}: PM "
            f"{result.active.total} vs {result.passive.total}: {verdict}"
        )
    affected = through > defense
    strength = through - defense if affected else 0
    lines.append(
        f"mana through {through} vs magical defense {defense}: "
        + ("greater: the target is affected" if affected else "not greater: no effect")
    )
    if affected and any(c.spell.diminished for c in casts):
        lines.append(f"diminished spells work at {through} - {defense} = {strength}")
    return MagicRound(
        tuple(casts), tuple(contests), through, defense, affected, strength, tuple(lines)
    )


def magic_round(target_pm: int, defense: int, casts: Sequence[Cast], rng: Rng) -> MagicRound:
    """Throw 2d6 for the caster then 2d6 for the target, per spell, and resolve (SRP-18)."""
    if len(casts) > MAX_SPELLS:
        raise LimitError(f"{len(casts)} spells on one target (at most {MAX_SPELLS})")
    dice = [(rng.throw(TWO_D6).faces, rng.throw(TWO_D6).faces) for _ in casts]
    return resolve_magic(target_pm, defense, casts, dice)


def parse_cast(text: str) -> Cast:
    """`Mira:12:Bolt:3` or `Ulf:10:Wither:4:diminished` -> a cast (caster, PM, spell, mana).

    >>> parse_cast("Ulf:10:Wither:4:diminished").spell.diminished
    True
    """
    parts = text.split(":")
    good = len(parts) in (4, 5) and is_whole(parts[1]) and is_whole(parts[3])
    if not good or (len(parts) == 5 and parts[4] != "diminished"):
        raise NotationError(f"bad spell {text!r} (expected CASTER:PM:SPELL:MANA[:diminished])")
    spell = Spell(parts[2], int(parts[3]), diminished=len(parts) == 5)
    return Cast(parts[0], int(parts[1]), spell)
