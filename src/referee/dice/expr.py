"""What was written: the frozen expression tree of dice notation.

`str` of a tree is its canonical notation in the default dialect (roll20; a node roll20
cannot write is written as d20 or onlinehost writes it), and parsing that text in that
dialect gives an equal tree back. `notation.write(tree, dialect)` writes any dialect.

>>> from referee.dice import parse
>>> expr = parse("4d6kh3 + 2")
>>> str(expr), expr.minimum, expr.maximum
('4d6kh3+2', 5, 20)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

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
    """Remainder (the sign of the divisor, as Python's)."""
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


class Const(NamedTuple):
    """A whole number written in the expression.

    >>> Const(3), Const(3).maximum
    (parse('3'), 3)
    """

    value: int

    def __str__(self) -> str:
        return _write(self)

    def __repr__(self) -> str:
        return _repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return _bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return _bounds(self)[1]


class Dice(NamedTuple):
    """A group of dice thrown at once, with every modifier a dialect can write.

    >>> Dice(4, 6, keep=Keep(KeepMode.HIGHEST, 3))
    parse('4d6kh3')

    The tree's nodes are named tuples: as frozen as dataclasses and several times faster to
    make, which is most of the cost of parsing. (`count` here is the number of dice; the tuple
    method of that name is not used on a node.) Modifiers apply in one fixed order, whatever
    order they were written in: reroll, clamp (`floor`/`ceiling`), explode, add once, keep
    or drop, then count successes and failures.
    """

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

    def __str__(self) -> str:
        return _write(self)

    def __repr__(self) -> str:
        return _repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return _bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return _bounds(self)[1]

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

        >>> Dice(4, 6, keep=Keep(KeepMode.DROP_LOWEST, 1)).kept(4)
        3
        """
        return dice if self.keep is None else self.keep.kept(dice)

    def most_dice(self, explode_depth: int) -> int:
        """The most dice this group can throw, every reroll and explosion included.

        >>> Dice(2, 6, explode=True).most_dice(20)
        42
        """
        rerolls = (1 if self.reroll_once else explode_depth) if self.reroll else 0
        explosions = explode_depth if self.explode else 0
        return self.count * (explosions + 1) * (rerolls + 1) + (self.add_on is not None)

    def faces(self) -> range:
        """The values one die can show (Fudge: -1..1).

        >>> Dice(4, 3, fudge=True).faces()
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


_PLAIN_TAIL = Dice(1, 1)[2:]


class Neg(NamedTuple):
    """Unary minus: the negated value of its operand (`-1d6`).

    >>> Neg(Const(2))
    parse('-2')
    """

    operand: Expr

    def __str__(self) -> str:
        return _write(self)

    def __repr__(self) -> str:
        return _repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return _bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return _bounds(self)[1]


class BinOp(NamedTuple):
    """Two expressions joined by an operator.

    >>> BinOp(Op.ADD, Dice(2, 20), Dice(1, 6))
    parse('2d20+1d6')
    """

    op: Op
    left: Expr
    right: Expr

    def __str__(self) -> str:
        return _write(self)

    def __repr__(self) -> str:
        return _repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return _bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return _bounds(self)[1]


class Pool(NamedTuple):
    """Several expressions rolled together, kept, dropped or counted as items.

    roll20 writes `{4d6+2d8, 3d20}kh1`, d20 `(1d20, 1d20)kh1`. With `dice_level` (roll20's
    single-item `{4d6+3d8}k4`) keep/drop picks among all the dice of the item instead.

    >>> Pool((Dice(1, 20), Dice(1, 20)), Keep(KeepMode.HIGHEST, 1))
    parse('{1d20,1d20}kh1')
    """

    items: tuple[Expr, ...]
    keep: Keep | None = None
    success: Success | None = None
    failure: Success | None = None
    dice_level: bool = False

    def __str__(self) -> str:
        return _write(self)

    def __repr__(self) -> str:
        return _repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return _bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return _bounds(self)[1]


FUNCTIONS = ("floor", "ceil", "round", "abs")
"""roll20's functions of one expression (`round` rounds halves up, as roll20 does)."""


class Call(NamedTuple):
    """A function of one expression: `floor(1d20/3)`.

    >>> Call("floor", BinOp(Op.DIV, Dice(1, 20), Const(3)))
    parse('floor(1d20/3)')
    """

    function: str
    operand: Expr

    def __str__(self) -> str:
        return _write(self)

    def __repr__(self) -> str:
        return _repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return _bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return _bounds(self)[1]


class Label(NamedTuple):
    """A label on a part of the expression (`1d6[fire]`); it changes no value.

    >>> Label(Dice(1, 6), "fire")
    parse('1d6[fire]')
    """

    operand: Expr
    text: str

    def __str__(self) -> str:
        return _write(self)

    def __repr__(self) -> str:
        return _repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return _bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return _bounds(self)[1]


class Degrees(NamedTuple):
    """onlinehost's `dh50`: 1d100 against a target, worth its degrees of success.

    A roll at or under the target is 1 + (target - roll) // 10 degrees of success; a roll
    over it, -(1 + (roll - target) // 10), that is degrees of failure as a negative number.

    >>> Degrees(50).minimum, Degrees(50).maximum
    (-6, 5)
    """

    target: int

    def __str__(self) -> str:
        return _write(self)

    def __repr__(self) -> str:
        return _repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give."""
        return _bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give."""
        return _bounds(self)[1]

    def degrees(self, face: int) -> int:
        """The value of a d100 showing `face`.

        >>> Degrees(50).degrees(50), Degrees(50).degrees(29), Degrees(50).degrees(51)
        (1, 3, -1)
        """
        if face <= self.target:
            return 1 + (self.target - face) // 10
        return -(1 + (face - self.target) // 10)


Expr = Const | Dice | Neg | BinOp | Pool | Call | Label | Degrees
"""Any node of an expression tree."""


def _write(node: Expr) -> str:
    from referee.dice.notation import canonical

    return canonical(node)


def _repr(node: Expr) -> str:
    from referee.dice.notation import canonical_repr

    return canonical_repr(node)


def _bounds(node: Expr) -> tuple[Number, Number]:
    from referee.dice.bounds import bounds

    return bounds(node)
