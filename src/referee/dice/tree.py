"""The expression tree's words and shapes: operators, tests, keep/drop, and the fields of each
node, with what the fields say (how many dice a group may throw, which faces explode).

The nodes themselves are `referee.dice.expr`'s: each is its fields here plus its notation
(`str`, `repr`) and its bounds (`minimum`, `maximum`), which `referee.dice.notation` and
`referee.dice.bounds` work out from these fields. So those modules read a tree without
importing the nodes, and the nodes import them: the imports run one way.

>>> DiceFields(4, 6, keep=Keep(KeepMode.HIGHEST, 3)).kept(5)
3
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from referee.dice.expr import Expr

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


@dataclass(frozen=True, slots=True)
class Success:
    """A test of one face (or one pool item) against a target.

    `>` and `<` are kept as their inclusive twins, so equal meanings are equal values:

    >>> Success(Compare.GT, 4) == Success(Compare.GE, 5), Success(Compare.GE, 5).passes(6)
    (True, True)
    """

    compare: Compare
    target: int

    def __post_init__(self) -> None:
        if self.compare is _CMP_GT:
            object.__setattr__(self, "compare", _CMP_GE)
            object.__setattr__(self, "target", self.target + 1)
        elif self.compare is _CMP_LT:
            object.__setattr__(self, "compare", _CMP_LE)
            object.__setattr__(self, "target", self.target - 1)

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

        >>> Success(Compare.GT, 4).passing_range()
        (5, 1000000000000)
        """
        top = 10**12
        if self.compare is _CMP_GE:
            return self.target, top
        if self.compare is _CMP_LE:
            return -top, self.target
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


class ConstFields(NamedTuple):
    """The fields of `Const` (`referee.dice.expr`) and what they say, without its notation."""

    value: int


class DiceFields(NamedTuple):
    """The fields of `Dice` (`referee.dice.expr`) and what they say, without its notation."""

    count: int  # type: ignore[assignment]
    sides: int
    explode: bool = False
    keep: Keep | None = None
    success: Success | None = None
    explode_on: Success | None = None
    """The faces that explode (None: the top face)."""
    explode_kind: Explode = Explode.EACH
    reroll: tuple[Success, ...] = ()
    """A face passing any of these is thrown again."""
    reroll_once: bool = False
    """Reroll at most once (`ro`); otherwise until no test passes (to the explosion cap)."""
    add_on: Success | None = None
    """d20's `ra`: the first die passing this adds one more die, once."""
    floor: int | None = None
    """d20's `mi`: a die below this counts as this."""
    ceiling: int | None = None
    """d20's `ma`: a die above this counts as this."""
    failure: Success | None = None
    """roll20's `f`: each kept die passing this takes one success away."""
    fudge: bool = False
    """Fudge dice: a d3 read as -1, 0, +1 (`sides` is 3)."""
    crit: Success | None = None
    """roll20's `cs`: faces marked as critical successes (display only)."""
    fumble: Success | None = None
    """roll20's `cf`: faces marked as critical failures (display only)."""
    order: str = ""
    """roll20's `sa` / `sd`: shown sorted up ('a') or down ('d'); display only."""

    @property
    def plain(self) -> bool:
        """No modifier at all: the sum of `count` faces."""
        return self[2:] == _PLAIN_TAIL

    @property
    def chains(self) -> bool:
        """Whether a die may be followed by more throws (reroll, explosion, add once)."""
        return self.explode or bool(self.reroll) or self.add_on is not None

    def kept(self, dice: int) -> int:
        """How many of `dice` thrown dice count (all of them without keep or drop).

        >>> DiceFields(4, 6, keep=Keep(KeepMode.DROP_LOWEST, 1)).kept(4)
        3
        """
        return dice if self.keep is None else self.keep.kept(dice)

    def most_dice(self, explode_depth: int) -> int:
        """The most dice this group can throw, every reroll and explosion included.

        >>> DiceFields(2, 6, explode=True).most_dice(20)
        42
        """
        rerolls = (1 if self.reroll_once else explode_depth) if self.reroll else 0
        explosions = explode_depth if self.explode else 0
        return self.count * (explosions + 1) * (rerolls + 1) + (self.add_on is not None)

    def faces(self) -> range:
        """The values one die can show (Fudge: -1..1).

        >>> DiceFields(4, 3, fudge=True).faces()
        range(-1, 2)
        """
        return range(-1, 2) if self.fudge else range(1, self.sides + 1)

    def explodes(self, face: int) -> bool:
        """Whether a die showing `face` explodes."""
        if not self.explode:
            return False
        if self.explode_on is None:
            return face == (1 if self.fudge else self.sides)
        return self.explode_on.passes(face)

    def rerolls(self, face: int) -> bool:
        """Whether a die showing `face` is thrown again."""
        return any(test.passes(face) for test in self.reroll)


_PLAIN_TAIL = DiceFields(1, 1)[2:]


class NegFields(NamedTuple):
    """The fields of `Neg` (`referee.dice.expr`) and what they say, without its notation."""

    operand: Expr


class BinOpFields(NamedTuple):
    """The fields of `BinOp` (`referee.dice.expr`) and what they say, without its notation."""

    op: Op
    left: Expr
    right: Expr


class PoolFields(NamedTuple):
    """The fields of `Pool` (`referee.dice.expr`) and what they say, without its notation."""

    items: tuple[Expr, ...]
    keep: Keep | None = None
    success: Success | None = None
    failure: Success | None = None
    dice_level: bool = False


FUNCTIONS = ("floor", "ceil", "round", "abs")
"""roll20's functions of one expression (`round` rounds halves up, as roll20 does)."""


class CallFields(NamedTuple):
    """The fields of `Call` (`referee.dice.expr`) and what they say, without its notation."""

    function: str
    operand: Expr


class LabelFields(NamedTuple):
    """The fields of `Label` (`referee.dice.expr`) and what they say, without its notation."""

    operand: Expr
    text: str


class DegreesFields(NamedTuple):
    """The fields of `Degrees` (`referee.dice.expr`) and what they say, without its notation."""

    target: int

    def degrees(self, face: int) -> int:
        """The value of a d100 showing `face`.

        >>> [DegreesFields(50).degrees(face) for face in (50, 29, 51)]
        [1, 3, -1]
        """
        if face <= self.target:
            return 1 + (self.target - face) // 10
        return -(1 + (face - self.target) // 10)
