"""The expression tree's words: operators, tests, keep/drop, explosions, functions. The
fields of each node are `referee.dice.fields`'s, the nodes `referee.dice.expr`'s.

>>> Keep(KeepMode.HIGHEST, 3).kept(5), Success.of(Compare.GT, 4)
(3, Success(compare=<Compare.GE: '>='>, target=5))
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from referee.errors import RuleError

Number = int | Fraction
"""A value of a roll: a whole number, or an exact fraction once `/` divides."""


class Op(enum.Enum):
    """A binary operator: arithmetic, or a comparison of two whole expressions (1 or 0)."""

    ADD = "+"
    """Addition."""
    SUB = "-"
    """Subtraction."""
    MUL = "*"
    """Multiplication."""
    DIV = "/"
    """Exact division (a fraction where it does not come out whole)."""
    FLOORDIV = "//"
    """Division rounded down."""
    MOD = "%"
    """Remainder with the sign of the dividend, as JavaScript's and roll20's (-7 % 3 is -1)."""
    EQ = "=="
    """1 if both sides are equal, else 0."""
    NE = "!="
    """1 if the sides differ, else 0."""
    GT = ">"
    """1 if the left side is greater, else 0."""
    GE = ">="
    """1 if the left side is greater or equal, else 0."""
    LT = "<"
    """1 if the left side is smaller, else 0."""
    LE = "<="
    """1 if the left side is smaller or equal, else 0."""


COMPARISONS = frozenset({Op.EQ, Op.NE, Op.GT, Op.GE, Op.LT, Op.LE})
"""The operators that compare two whole expressions."""


class KeepMode(enum.Enum):
    """Which dice (or pool items) count toward a group's value."""

    HIGHEST = "kh"
    """Keep the N highest."""
    LOWEST = "kl"
    """Keep the N lowest."""
    DROP_HIGHEST = "dh"
    """Drop the N highest."""
    DROP_LOWEST = "dl"
    """Drop the N lowest."""
    MATCHING = "k="
    """Keep the dice whose value passes `Keep.test` (d20's `k3`, `k>3`)."""
    NOT_MATCHING = "p="
    """Drop the dice whose value passes `Keep.test` (d20's `p3`, `p<3`)."""


class Compare(enum.Enum):
    """A test of one face against a target. Strict tests are stored as their inclusive twin."""

    GE = ">="
    """Face at least the target."""
    LE = "<="
    """Face at most the target."""
    EQ = "="
    """Face equal to the target."""
    GT = ">"
    """Face above the target (stored as `>=` target+1)."""
    LT = "<"
    """Face below the target (stored as `<=` target-1)."""


class Explode(enum.Enum):
    """How a die that explodes adds to its group."""

    EACH = "!"
    """Another die joins the group (it may explode in turn)."""
    COMPOUND = "!!"
    """Another die adds into the same die (one value, however long the chain)."""
    PENETRATE = "!p"
    """Another die joins the group, worth one less than it shows."""


# Enum members as plain module names: read off its class, a member goes through
# `EnumType.__getattr__`'s slot (Python 3.11), about the cost of a function call.
_CMP_GE, _CMP_LE, _CMP_GT, _CMP_LT = Compare.GE, Compare.LE, Compare.GT, Compare.LT
_MODE_HIGHEST, _MODE_LOWEST = KeepMode.HIGHEST, KeepMode.LOWEST
_MODE_DROP_HIGHEST, _MODE_DROP_LOWEST = KeepMode.DROP_HIGHEST, KeepMode.DROP_LOWEST
EVERY = 10**12
"""Past any face: the open end of a test's passing range."""


@dataclass(frozen=True, slots=True)
class Success:
    """A test of one face (or one pool item) against a target.

    `>` and `<` are stored as their inclusive twins, so equal meanings are equal values;
    `Success.of` takes any comparison and gives that twin:

    >>> Success.of(Compare.GT, 4) == Success(Compare.GE, 5), Success(Compare.GE, 5).passes(6)
    (True, True)
    """

    compare: Compare
    target: int

    def __post_init__(self) -> None:
        if self.compare is _CMP_GT or self.compare is _CMP_LT:
            raise RuleError(
                f"a strict test is stored as its inclusive twin: write "
                f"Success.of(Compare.{self.compare.name}, {self.target})"
            )

    @classmethod
    def of(cls, compare: Compare, target: int) -> Success:
        """The test `compare target`, strict ones as their inclusive twin; one value shared
        by every tree (a test is frozen, and a dataclass is slow to make).

        >>> Success.of(Compare.LT, 3)
        Success(compare=<Compare.LE: '<='>, target=2)
        """
        key = (id(compare), target)  # (a member is one object; hashing it runs Python code)
        found = _SHARED.get(key)
        if found is None:
            if compare is _CMP_GT:
                found = cls(_CMP_GE, target + 1)
            elif compare is _CMP_LT:
                found = cls(_CMP_LE, target - 1)
            else:
                found = cls(compare, target)
            _share(key, found)
        return found  # type: ignore[return-value]

    def __str__(self) -> str:
        return f"{self.compare.value}{self.target}"

    def passes(self, face: Number) -> bool:
        """Whether one value passes the test."""
        if self.compare is _CMP_GE:
            return face >= self.target
        if self.compare is _CMP_LE:
            return face <= self.target
        return face == self.target

    def passing_range(self) -> tuple[int, int]:
        """The whole values that pass, as an inclusive range (may be empty).

        >>> Success.of(Compare.GT, 4).passing_range()
        (5, 1000000000000)
        """
        if self.compare is _CMP_GE:
            return self.target, EVERY
        if self.compare is _CMP_LE:
            return -EVERY, self.target
        return self.target, self.target


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep or drop the N highest or lowest dice of a group (`kh3`), or those passing a test.

    >>> str(Keep(KeepMode.DROP_LOWEST, 1)), str(Keep(KeepMode.MATCHING, 0, Success(Compare.EQ, 3)))
    ('dl1', 'k=3')
    """

    mode: KeepMode
    count: int
    test: Success | None = None

    @classmethod
    def of(cls, mode: KeepMode, count: int, test: Success | None = None) -> Keep:
        """`Keep(mode, count, test)`, one value shared by every tree (as `Success.of`).

        >>> Keep.of(KeepMode.HIGHEST, 3) is Keep.of(KeepMode.HIGHEST, 3)
        True
        """
        key = (id(mode), count, None if test is None else (id(test.compare), test.target))
        found = _SHARED.get(key)
        if found is None:
            found = cls(mode, count, test)
            _share(key, found)
        return found  # type: ignore[return-value]

    def __str__(self) -> str:
        if self.test is not None:
            return f"{self.mode.value[0]}{self.test}"
        return f"{self.mode.value}{self.count}"

    def kept(self, dice: int) -> int:
        """How many of `dice` dice this keeps (by a test: at most all of them).

        >>> Keep(KeepMode.HIGHEST, 3).kept(4), Keep(KeepMode.DROP_HIGHEST, 5).kept(4)
        (3, 0)
        """
        if self.mode is _MODE_HIGHEST or self.mode is _MODE_LOWEST:
            return min(self.count, dice)
        if self.mode is _MODE_DROP_HIGHEST or self.mode is _MODE_DROP_LOWEST:
            return max(dice - self.count, 0)
        return dice

    @property
    def by_test(self) -> bool:
        """Whether this keeps or drops by a test of each value rather than by rank."""
        return self.test is not None


_SHARED: dict[tuple[object, ...], Success | Keep] = {}
"""The tests and keeps `Success.of` and `Keep.of` made, by their fields."""


def _share(key: tuple[object, ...], value: Success | Keep) -> None:
    if len(_SHARED) >= 4096:
        _SHARED.clear()
    _SHARED[key] = value


FUNCTIONS = ("floor", "ceil", "round", "abs")
"""roll20's functions of one expression (`round` rounds halves up, as roll20 does)."""
