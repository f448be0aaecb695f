"""Opposed rolls, challenges and assistants (SRP-1..3): 2d6 + skill + bonuses.

Each side's 2d6 is one roll (one `rng.throw((6, 6))`), the active side first.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from referee.errors import LimitError, RuleError
from referee.rng import Rng
from referee.systems.srp.rules import DEFAULT_RULES, SrpRules
from referee.vocabulary import JSON

#: Most assistants one side may have (a stated bound on user input).
MAX_ASSISTANTS = 20
TWO_D6 = (6, 6)


class Winner(enum.Enum):
    """Who won an opposed roll (SRP-1)."""

    ACTIVE = "active"
    """The active side's total is strictly higher."""
    PASSIVE = "passive"
    """The passive side's total is strictly higher."""
    NONE = "none"
    """A tie: nobody wins."""


@dataclass(frozen=True, slots=True)
class Assistant:
    """One helper: its skill, and its DAM when the contest is one of strength (SRP-2)."""

    skill: int
    dam: int | None = None


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a contest: skill, circumstance bonus (+1..+5 or a penalty), assistants.

    >>> Side(18).assist_bonus()
    0
    """

    skill: int
    bonus: int = 0
    assistants: tuple[Assistant, ...] = ()
    research: bool = False

    def assist_bonus(self) -> int:
        """What the assistants add: +1 each (+2 research), max(1, DAM) in strength contests."""
        return sum(self._one(a) for a in self.assistants)

    def _one(self, helper: Assistant) -> int:
        if helper.dam is not None:
            return max(1, helper.dam)
        return 2 if self.research else 1

    def check(self, name: str) -> None:
        """RuleError for an assistant below half the primary's skill (SRP-2)."""
        if len(self.assistants) > MAX_ASSISTANTS:
            raise LimitError(
                f"{len(self.assistants)} assistants on the {name} side (at most {MAX_ASSISTANTS})"
            )
        needed = self.skill // 2
        for helper in self.assistants:
            if helper.skill < needed:
                raise RuleError(
                    f"assistant skill {helper.skill!r} on the {name} side is below half of "
                    f"{self.skill} (an assistant needs at least {needed})"
                )


@dataclass(frozen=True, slots=True)
class Tally:
    """One side's total: dice, skill, bonus and assistants."""

    dice: tuple[int, int]
    skill: int
    bonus: int
    assists: int

    @property
    def total(self) -> int:
        """2d6 + skill + bonus + assistants."""
        return sum(self.dice) + self.skill + self.bonus + self.assists

    def line(self, name: str) -> str:
        """The total in words: `active: 2d6 (3+4) + skill 18 = 25`."""
        parts = [f"2d6 ({self.dice[0]}+{self.dice[1]})", f"skill {self.skill}"]
        if self.bonus:
            parts.append(f"bonus {self.bonus}")
        if self.assists:
            parts.append(f"assistants {self.assists}")
        return f"{name}: " + " + ".join(parts).replace("+ bonus -", "- bonus ") + f" = {self.total}"


@dataclass(frozen=True, slots=True)
class Opposed:
    """An opposed roll's totals and winner (SRP-1)."""

    active: Tally
    passive: Tally
    winner: Winner
    explanation: tuple[str, ...]

    def as_dict(self) -> dict[str, JSON]:
        """As JSON values."""
        return {
            "active_dice": list(self.active.dice),
            "passive_dice": list(self.passive.dice),
            "active_total": self.active.total,
            "passive_total": self.passive.total,
            "winner": self.winner.value,
            "explanation": list(self.explanation),
        }


def check_2d6(dice: Sequence[int], what: str) -> tuple[int, int]:
    """Two d6 faces, or a RuleError quoting them."""
    faces = tuple(dice)
    if len(faces) != 2 or any(
        isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 6 for f in faces
    ):
        raise RuleError(f"{what} dice {faces!r} are not two d6 faces (expected 1..6 each)")
    return (faces[0], faces[1])


def tally(side: Side, dice: Sequence[int], name: str) -> Tally:
    """One side's total from its two faces."""
    side.check(name)
    return Tally(check_2d6(dice, name), side.skill, side.bonus, side.assist_bonus())


def resolve_opposed(
    active: Side, passive: Side, active_dice: Sequence[int], passive_dice: Sequence[int]
) -> Opposed:
    """Who wins: the active side iff strictly higher; a tie means nobody (SRP-1).

    The orators of the main rules page: 18 + 7 = 25 beats 15 + 5 + 3 = 23.

    >>> r = resolve_opposed(Side(18), Side(15, bonus=3), (3, 4), (2, 3))
    >>> r.active.total, r.passive.total, r.winner.value
    (25, 23, 'active')
    """
    a = tally(active, active_dice, "active")
    p = tally(passive, passive_dice, "passive")
    if a.total > p.total:
        winner, verdict = Winner.ACTIVE, f"{a.total} beats {p.total}: the active side wins"
    elif p.total > a.total:
        winner, verdict = Winner.PASSIVE, f"{p.total} beats {a.total}: the passive side wins"
    else:
        winner, verdict = Winner.NONE, f"tie at {a.total}: nobody wins"
    return Opposed(a, p, winner, (a.line("active"), p.line("passive"), verdict))


def opposed(active: Side, passive: Side, rng: Rng) -> Opposed:
    """Throw 2d6 for each side (active first, one roll each) and resolve (SRP-1).

    >>> from referee.rng import ScriptedRng
    >>> opposed(Side(10), Side(10), ScriptedRng([3, 3, 2, 4])).winner.value
    'none'
    """
    active.check("active")
    passive.check("passive")
    a_dice = rng.throw(TWO_D6).faces
    p_dice = rng.throw(TWO_D6).faces
    return resolve_opposed(active, passive, a_dice, p_dice)


@dataclass(frozen=True, slots=True)
class ChallengeResult:
    """An unopposed roll against a challenge number (SRP-3)."""

    tally: Tally
    target: int
    success: bool
    explanation: tuple[str, ...]

    def as_dict(self) -> dict[str, JSON]:
        """As JSON values."""
        return {
            "dice": list(self.tally.dice),
            "total": self.tally.total,
            "target": self.target,
            "success": self.success,
            "explanation": list(self.explanation),
        }


def resolve_challenge(
    side: Side, target: int, dice: Sequence[int], rules: SrpRules = DEFAULT_RULES
) -> ChallengeResult:
    """2d6 + skill + bonuses against the challenge number, `>=` by default (SRP-3).

    >>> [resolve_challenge(Side(8), target, (3, 4)).success for target in (15, 16)]
    [True, False]
    """
    result = tally(side, dice, "challenge")
    success = rules.challenge_met(result.total, target)
    verdict = "succeeds" if success else "fails"
    compare = f"{result.total} {rules.challenge.value} {target}"
    return ChallengeResult(
        result, target, success, (result.line("challenge"), f"{compare}? {verdict}")
    )


def challenge(
    side: Side, target: int, rng: Rng, rules: SrpRules = DEFAULT_RULES
) -> ChallengeResult:
    """Throw 2d6 once and resolve the challenge (SRP-3)."""
    side.check("challenge")
    return resolve_challenge(side, target, rng.throw(TWO_D6).faces, rules)
