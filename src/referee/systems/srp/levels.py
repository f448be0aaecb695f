"""Levels of a d20 roll against a skill: failure, success, special, critical (SRP-5).

The special/critical table of the text is generated from the rule, never typed in:
a critical is a roll at or under floor(skill / 10), a special one at or under
max(1, floor(skill / 3)).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.errors import RuleError

#: Largest base skill the tools accept (a stated bound; the text's table ends at 30).
MAX_SKILL = 100


class Level(enum.IntEnum):
    """How well a d20 roll did, ordered failure < success < special < critical (SRP-5)."""

    FAILURE = 0
    """The roll is over the skill, or a 20."""
    SUCCESS = 1
    """At or under the skill: normal damage."""
    SPECIAL = 2
    """At or under a third of the skill (at least 1): +4 damage."""
    CRITICAL = 3
    """At or under a tenth of the skill: +4 damage, armor halved, at least one hit."""

    @property
    def label(self) -> str:
        """The level's name as JSON and logs write it: `failure`, `success`, ...

        >>> Level.SPECIAL.label
        'special'
        """
        return self.name.lower()


def check_skill(skill: int, what: str = "skill") -> int:
    """A base skill must be a whole number 0..MAX_SKILL.

    >>> check_skill(15)
    15
    """
    if isinstance(skill, bool) or not isinstance(skill, int) or not 0 <= skill <= MAX_SKILL:
        raise RuleError(
            f"{what} {skill!r} is out of range (expected a whole number 0..{MAX_SKILL})"
        )
    return skill


def check_d20(roll: int, what: str = "roll") -> int:
    """A d20 face must be 1..20.

    >>> check_d20(20)
    20
    """
    if isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= 20:
        raise RuleError(f"{what} {roll!r} does not fit a d20 (expected 1..20)")
    return roll


def critical_limit(skill: int) -> int:
    """Highest roll that is a critical: floor(skill / 10), 0 for none (SRP-5).

    >>> critical_limit(20), critical_limit(9)
    (2, 0)
    """
    return max(0, skill // 10)


def special_limit(skill: int) -> int:
    """Highest roll that is a special: max(1, floor(skill / 3)); 0 when nothing succeeds.

    >>> special_limit(5), special_limit(30)
    (1, 10)
    """
    if skill < 1:
        return 0
    return max(1, skill // 3)


def level(roll: int, skill: int, *, twenty_fails: bool = True) -> Level:
    """The level of a d20 `roll` against an effective `skill` (SRP-5).

    A 20 is a failure whatever the skill (`twenty_fails`, an option for defense rolls).
    A skill of 0 or less never succeeds (special and critical are kinds of success).

    >>> level(3, 15), level(1, 15), level(20, 40)
    (<Level.SPECIAL: 2>, <Level.CRITICAL: 3>, <Level.FAILURE: 0>)
    """
    check_d20(roll)
    if (roll == 20 and twenty_fails) or roll > skill:
        return Level.FAILURE
    if roll <= critical_limit(skill):
        return Level.CRITICAL
    if roll <= special_limit(skill):
        return Level.SPECIAL
    return Level.SUCCESS


def level_counts(skill: int, *, twenty_fails: bool = True) -> tuple[int, int, int, int]:
    """How many of the 20 faces give each level (failure, success, special, critical).

    >>> level_counts(15)
    (5, 10, 4, 1)
    """
    counts = [0, 0, 0, 0]
    for roll in range(1, 21):
        counts[level(roll, skill, twenty_fails=twenty_fails)] += 1
    return (counts[0], counts[1], counts[2], counts[3])


def high_skill_bonus(skill: int) -> int:
    """Extra damage for high effective skill: ceil((skill - 20) / 5) above 20 (SRP-8).

    >>> [high_skill_bonus(s) for s in (20, 21, 25, 26, 36, 41)]
    [0, 1, 1, 2, 4, 5]
    """
    if skill <= 20:
        return 0
    return -(-(skill - 20) // 5)


@dataclass(frozen=True, slots=True)
class LevelRow:
    """One row of the special/critical table: skills first..last share the same ranges."""

    first: int
    last: int
    special: tuple[int, int] | None
    critical: tuple[int, int] | None

    @property
    def skills(self) -> str:
        """`10-11`, or `9` for a single skill."""
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"

    def cells(self) -> tuple[str, str, str]:
        """The row as the text prints it: skill, special range, critical range (`--`: none)."""
        return (self.skills, _span(self.special), _span(self.critical))


def _span(span: tuple[int, int] | None) -> str:
    if span is None:
        return "--"
    low, high = span
    return str(low) if low == high else f"{low}-{high}"


def level_ranges(skill: int) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """The rolls that are special and critical for one skill, as (low, high) or None.

    >>> level_ranges(20)
    ((3, 6), (1, 2))
    """
    crit = min(20, critical_limit(skill))  # faces of a d20: no "7-21" past skill 62
    spec = min(20, special_limit(skill))
    critical = (1, crit) if crit >= 1 else None
    special = (crit + 1, spec) if spec > crit else None
    return special, critical


def level_table(max_skill: int = 30, *, break_at: int = 30) -> tuple[LevelRow, ...]:
    """The special/critical table for skills 1..max_skill, equal rows grouped.

    Groups never cross `break_at`, so rows 1..30 are exactly the text's table whatever
    `max_skill` is.

    >>> [row.cells() for row in level_table(9)]
    [('1-5', '1', '--'), ('6-8', '1-2', '--'), ('9', '1-3', '--')]
    """
    rows: list[LevelRow] = []
    check_table_size(max_skill)
    for skill in range(1, max_skill + 1):
        special, critical = level_ranges(skill)
        last = rows[-1] if rows else None
        same = last is not None and (last.special, last.critical) == (special, critical)
        if last is not None and same and not (last.last <= break_at < skill):
            rows[-1] = LevelRow(last.first, skill, special, critical)
        else:
            rows.append(LevelRow(skill, skill, special, critical))
    return tuple(rows)


def check_table_size(max_skill: int) -> int:
    """A level table's last skill must be a whole number 1..MAX_SKILL.

    >>> check_table_size(30)
    30
    """
    if isinstance(max_skill, bool) or not isinstance(max_skill, int):
        raise RuleError(f"table size {max_skill!r} is not a whole number")
    if not 1 <= max_skill <= MAX_SKILL:
        raise RuleError(f"table size {max_skill!r} is out of range (expected 1..{MAX_SKILL})")
    return max_skill
