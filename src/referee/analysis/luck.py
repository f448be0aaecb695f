"""A luck report: how a fighter's (or a table's) faces compare with the exact distribution.

Pure: it reads what each attack and each die did (`Swing`, `Throw`, made from verified exports
by `referee.lab.luck_exports`) and gives frozen results. The method and its false-alarm rate
are written in docs/luck.md:

- the verdict reads one *primary* test, a two-sided mid-p test of the dice's low halves (a face
  <= sides // 2) against their exact distribution (the Poisson-binomial of each die's chance of
  one): "unlikely" when its p-value is at most alpha, so fair dice get it an alpha of the time
  (measured: tests/test_luck_stats.py), and a d100 that favours 1-50 by 53% to 47% is found 19
  times in 20 at 5,000 rolls;
- the hits against the exact expected number (the Poisson-binomial of each attack's own chance),
  the longest run of misses, the total damage and a binned chi-square over the faces are
  *descriptive*: each p-value alone is a false alarm an alpha of the time, and they are not
  part of the verdict (five read at once would, together, cry wolf about 5 alphas of the time).

>>> swings = [Swing(0.5, (0.5, 0.5), hit=i % 2 == 0, damage=i % 2) for i in range(40)]
>>> throws = [Throw(100, 1 + (i * 37) % 100) for i in range(40)]
>>> report = luck(swings, throws)
>>> report.hits.observed, report.hits.expected, round(report.hits.p_value, 3)
(20, 20.0, 1.0)
>>> report.verdict
'no sign of bias'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.analysis.luck_stats import (
    Floats,
    chi_square_sf,
    face_bins,
    longest_run,
    longest_run_at_least,
    mid_p,
    poisson_binomial,
    sum_distribution,
    tail_at_most,
)
from referee.errors import RuleError

#: The level the verdict is read at, unless asked otherwise: the family's false-alarm rate.
ALPHA = 0.01

#: The verdict's words.
UNLIKELY, NO_SIGN, TOO_FEW = "unlikely from fair dice", "no sign of bias", "no dice to read"


@dataclass(frozen=True, slots=True)
class Swing:
    """One attack: its exact chance to hit and chances of each damage (index = damage) under
    the bout's rules, and what it did."""

    hit_chance: float
    damage_chances: tuple[float, ...]
    hit: bool
    damage: int


@dataclass(frozen=True, slots=True)
class Throw:
    """One die: its sides and the face it showed."""

    sides: int
    face: int


@dataclass(frozen=True, slots=True)
class CountTest:
    """A count against its exact distribution: observed, expected, two-sided mid-p value."""

    name: str
    observed: int
    trials: int
    expected: float
    p_value: float

    def as_json(self) -> dict[str, Any]:
        """The test as JSON."""
        return {
            "name": self.name,
            "observed": self.observed,
            "trials": self.trials,
            "expected": round(self.expected, 4),
            "p_value": self.p_value,
        }


@dataclass(frozen=True, slots=True)
class RunTest:
    """The longest run of misses in a row, and the exact chance of one at least that long."""

    longest: int
    chance: float

    def as_json(self) -> dict[str, Any]:
        """The test as JSON."""
        return {"longest": self.longest, "chance_at_least": self.chance}


@dataclass(frozen=True, slots=True)
class DamageTest:
    """The total damage, its exact expectation, the chance of this little or less, and the
    two-sided mid-p value; `distribution[v]` = P(total = v)."""

    total: int
    expected: float
    chance_at_most: float
    p_value: float
    distribution: tuple[float, ...]

    def as_json(self) -> dict[str, Any]:
        """The test as JSON (the distribution left out: `distribution` holds it)."""
        return {
            "total": self.total,
            "expected": round(self.expected, 4),
            "chance_at_most": self.chance_at_most,
            "p_value": self.p_value,
        }


@dataclass(frozen=True, slots=True)
class FaceBin:
    """Faces low..high of one die size: how many came up and how many fair dice give."""

    sides: int
    low: int
    high: int
    observed: int
    expected: float


@dataclass(frozen=True, slots=True)
class ChiSquare:
    """Pearson's chi-square over the faces, in bins of neighbouring faces that each expect at
    least 5 (`luck_stats.face_bins`), summed over the die sizes."""

    statistic: float
    df: int
    p_value: float
    bins: tuple[FaceBin, ...]

    def as_json(self) -> dict[str, Any]:
        """The test as JSON."""
        return {
            "statistic": round(self.statistic, 4),
            "df": self.df,
            "p_value": self.p_value,
            "bins": [
                {
                    "sides": b.sides,
                    "faces": [b.low, b.high],
                    "observed": b.observed,
                    "expected": round(b.expected, 4),
                }
                for b in self.bins
            ],
        }


@dataclass(frozen=True, slots=True)
class Luck:
    """What the faces say: the verdict (read from the primary test, `halves`, at `alpha`) and
    the descriptive tests (None: nothing to read)."""

    alpha: float
    verdict: str
    hits: CountTest | None
    halves: CountTest | None
    longest_misses: RunTest | None
    damage: DamageTest | None
    faces: ChiSquare | None
    attacks: int
    dice: int
    #: The exact distribution of the low halves of fair dice (the primary test's), P(k) at k.
    halves_distribution: tuple[float, ...] = ()

    def _flagged(self) -> NDArray[np.bool_]:
        pmf = np.asarray(self.halves_distribution, dtype=np.float64)
        return unlikely([pmf], [np.arange(len(pmf))], self.alpha)

    @property
    def false_alarms(self) -> float | None:
        """The exact chance that fair dice, as many and of the sides these were, are called
        unlikely: the verdict's false-alarm rate for these very dice (near alpha; a mid-p test
        of few dice may be a little above or below it)."""
        if not self.halves_distribution:
            return None
        pmf = np.asarray(self.halves_distribution, dtype=np.float64)
        return float(pmf[self._flagged()].sum())

    def power_at(self, low_share: float) -> float | None:
        """The exact chance that dice as many as these, each showing a low half face
        `low_share` of the time, are called unlikely (the verdict's power against that bias)."""
        if not self.halves_distribution:
            return None
        biased = poisson_binomial([low_share] * (len(self.halves_distribution) - 1))
        return float(biased[self._flagged()].sum())

    def as_json(self) -> dict[str, Any]:
        """The report as JSON."""
        return {
            "verdict": self.verdict,
            "alpha": self.alpha,
            "false_alarm_rate": false_alarm_words(self.alpha),
            "false_alarms_exact": self.false_alarms,
            "attacks": self.attacks,
            "dice": self.dice,
            "primary": None if self.halves is None else self.halves.as_json(),
            "hits": None if self.hits is None else self.hits.as_json(),
            "longest_misses": None
            if self.longest_misses is None
            else self.longest_misses.as_json(),
            "damage": None if self.damage is None else self.damage.as_json(),
            "faces": None if self.faces is None else self.faces.as_json(),
        }


def false_alarm_words(alpha: float) -> str:
    """What the verdict's false-alarm rate is, in words.

    >>> false_alarm_words(0.01)[:52]
    'fair dice are called unlikely 1% of the time: the ve'
    """
    level = f"{alpha * 100:g}%"
    return (
        f"fair dice are called unlikely {level} of the time: the verdict reads one test, the "
        f"low halves; the hits, run, damage and chi-square p-values are descriptive (each alone "
        f"is below {level} for {level} of fair tables; not part of the verdict)"
    )


def hits_test(swings: Sequence[Swing]) -> tuple[CountTest, Floats] | None:
    """The hits against the Poisson-binomial of the attacks' chances, and that distribution."""
    if not swings:
        return None
    pmf = poisson_binomial([s.hit_chance for s in swings])
    hits = sum(s.hit for s in swings)
    expected = float(sum(s.hit_chance for s in swings))
    p = float(mid_p(pmf, hits))
    return CountTest("hits", hits, len(swings), expected, p), pmf


def low_chance(sides: int) -> float:
    """The chance that a fair die shows a low half face (<= sides // 2).

    >>> low_chance(100), low_chance(3)
    (0.5, 0.3333333333333333)
    """
    return (sides // 2) / sides


def halves_test(throws: Sequence[Throw]) -> tuple[CountTest, Floats] | None:
    """The low-half faces against the Poisson-binomial of each die's chance of one."""
    read = [t for t in throws if t.sides >= 2]
    if not read:
        return None
    chances = [low_chance(t.sides) for t in read]
    pmf = poisson_binomial(chances)
    lows = sum(t.face <= t.sides // 2 for t in read)
    p = float(mid_p(pmf, lows))
    return CountTest("low halves", lows, len(read), float(sum(chances)), p), pmf


def unlikely(
    pmfs: Sequence[Floats], observed: Sequence[ArrayLike], alpha: float = ALPHA
) -> NDArray[np.bool_]:
    """The verdict, for many tables at once: whether any count's mid-p value is at most alpha
    over their number (the report's own rule; the tests run it on simulated tables).

    >>> pmf = poisson_binomial([0.5] * 10)
    >>> unlikely([pmf], [[0, 5, 10]]).tolist()
    [True, False, True]
    """
    if not pmfs:
        return np.zeros(0, dtype=np.bool_)
    level = alpha / len(pmfs)
    flags = [mid_p(pmf, counts) <= level for pmf, counts in zip(pmfs, observed, strict=True)]
    return np.asarray(np.logical_or.reduce(flags), dtype=np.bool_)


def damage_test(swings: Sequence[Swing]) -> DamageTest | None:
    """The total damage against the exact distribution of the attacks' damage."""
    if not swings:
        return None
    pmf = sum_distribution([s.damage_chances for s in swings])
    total = sum(s.damage for s in swings)
    expected = float(np.dot(np.arange(len(pmf)), pmf))
    at_most = tail_at_most(pmf, total)
    p = float(mid_p(pmf, total))
    return DamageTest(total, expected, at_most, p, tuple(float(x) for x in pmf))


def run_test(swings: Sequence[Swing]) -> RunTest | None:
    """The longest run of misses and the exact chance of a run at least that long."""
    if not swings:
        return None
    longest = longest_run([not s.hit for s in swings])
    chance = longest_run_at_least([1.0 - s.hit_chance for s in swings], longest)
    return RunTest(longest, chance)


def chi_square(throws: Sequence[Throw]) -> ChiSquare | None:
    """The binned chi-square over the faces of each die size (None: too few for two bins)."""
    by_sides: dict[int, Counter[int]] = {}
    for throw in throws:
        if throw.sides >= 2:
            by_sides.setdefault(throw.sides, Counter())[throw.face] += 1
    bins: list[FaceBin] = []
    statistic, df = 0.0, 0
    for sides in sorted(by_sides):
        counts = by_sides[sides]
        rolls = sum(counts.values())
        runs = face_bins(sides, rolls)
        if not runs:
            continue
        df += len(runs) - 1
        for run in runs:
            observed = sum(counts[face] for face in run)
            expected = rolls * len(run) / sides
            statistic += (observed - expected) ** 2 / expected
            bins.append(FaceBin(sides, run.start, run.stop - 1, observed, expected))
    if df < 1:
        return None
    return ChiSquare(statistic, df, chi_square_sf(statistic, df), tuple(bins))


def luck(swings: Sequence[Swing], throws: Sequence[Throw], alpha: float = ALPHA) -> Luck:
    """The luck report of these attacks (in the order they were made) and dice."""
    if not 0.0 < alpha < 1.0:
        raise RuleError(f"the level is a number between 0 and 1, got {alpha}")
    for throw in throws:
        if not 1 <= throw.face <= throw.sides:
            raise RuleError(f"a face {throw.face} of a d{throw.sides} is not on the die")
    hits, halves = hits_test(swings), halves_test(throws)
    distribution: tuple[float, ...] = ()
    if halves is None:
        verdict = TOO_FEW
    else:
        test, pmf = halves
        verdict = UNLIKELY if bool(unlikely([pmf], [[test.observed]], alpha)[0]) else NO_SIGN
        distribution = tuple(pmf.tolist())
    return Luck(
        alpha=alpha,
        verdict=verdict,
        hits=None if hits is None else hits[0],
        halves=None if halves is None else halves[0],
        longest_misses=run_test(swings),
        damage=damage_test(swings),
        faces=chi_square(throws),
        attacks=len(swings),
        dice=len(throws),
        halves_distribution=distribution,
    )
