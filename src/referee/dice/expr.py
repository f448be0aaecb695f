"""What was written: the frozen expression tree of dice notation, its text and its bounds.

`str` of a tree is its canonical notation (no spaces, every group as `NdS`), and
parsing that text gives an equal tree back.

>>> from referee.dice import parse
>>> expr = parse("4d6kh3 + 2")
>>> str(expr), expr.minimum, expr.maximum
('4d6kh3+2', 5, 20)
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from referee.dice.limits import DEFAULT_LIMITS, Limits


class Op(enum.Enum):
    """A binary operator of the notation (division is not part of it)."""

    ADD = "+"
    """Addition."""
    SUB = "-"
    """Subtraction."""
    MUL = "*"
    """Multiplication."""


class KeepMode(enum.Enum):
    """Which dice of a group count toward its value."""

    HIGHEST = "kh"
    """Keep the N highest (`k` alone means this)."""
    LOWEST = "kl"
    """Keep the N lowest."""
    DROP_HIGHEST = "dh"
    """Drop the N highest."""
    DROP_LOWEST = "dl"
    """Drop the N lowest."""


class Compare(enum.Enum):
    """A success test on each kept die: the group's value is how many pass."""

    GE = ">="
    """Face at least the target."""
    LE = "<="
    """Face at most the target."""
    GT = ">"
    """Face above the target."""
    LT = "<"
    """Face below the target."""


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep or drop the N highest or lowest dice of a group (`kh3`).

    >>> str(Keep(KeepMode.DROP_LOWEST, 1))
    'dl1'
    """

    mode: KeepMode
    count: int

    def __str__(self) -> str:
        return f"{self.mode.value}{self.count}"

    def kept(self, dice: int) -> int:
        """How many of `dice` dice this keeps.

        >>> Keep(KeepMode.HIGHEST, 3).kept(4), Keep(KeepMode.DROP_HIGHEST, 5).kept(4)
        (3, 0)
        """
        if self.mode in (KeepMode.HIGHEST, KeepMode.LOWEST):
            return min(self.count, dice)
        return max(dice - self.count, 0)


@dataclass(frozen=True, slots=True)
class Success:
    """Count the kept dice whose face passes a test (`>=5`).

    >>> Success(Compare.GE, 5).passes(6), str(Success(Compare.LT, 3))
    (True, '<3')
    """

    compare: Compare
    target: int

    def __str__(self) -> str:
        return f"{self.compare.value}{self.target}"

    def passes(self, face: int) -> bool:
        """Whether one face passes the test."""
        low, high = self.passing_range()
        return low <= face <= high

    def passing_range(self) -> tuple[int, int]:
        """The faces that pass, as an inclusive range (may be empty).

        >>> Success(Compare.GT, 4).passing_range()
        (5, 1000000000000)
        """
        top = 10**12
        if self.compare is Compare.GE:
            return self.target, top
        if self.compare is Compare.GT:
            return self.target + 1, top
        if self.compare is Compare.LE:
            return 1, self.target
        return 1, self.target - 1


class Const(NamedTuple):
    """A whole number written in the expression.

    >>> Const(3), Const(3).maximum
    (parse('3'), 3)
    """

    value: int

    def __str__(self) -> str:
        return show(self)

    def __repr__(self) -> str:
        return f"parse({show(self)!r})"

    @property
    def minimum(self) -> int:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> int:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]


class Dice(NamedTuple):
    """A group of dice thrown at once: `count`d`sides`, exploding, kept/dropped, counted.

    >>> Dice(4, 6, keep=Keep(KeepMode.HIGHEST, 3))
    parse('4d6kh3')

    The tree's nodes are named tuples: as frozen as dataclasses and several times faster to
    make, which is most of the cost of parsing. (`count` here is the number of dice; the tuple
    method of that name is not used on a node.)
    """

    count: int  # type: ignore[assignment]
    sides: int
    explode: bool = False
    keep: Keep | None = None
    success: Success | None = None

    def __str__(self) -> str:
        return show(self)

    def __repr__(self) -> str:
        return f"parse({show(self)!r})"

    @property
    def minimum(self) -> int:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> int:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]

    def kept(self, dice: int) -> int:
        """How many of `dice` thrown dice count (all of them without keep or drop).

        >>> Dice(4, 6, keep=Keep(KeepMode.DROP_LOWEST, 1)).kept(4)
        3
        """
        return dice if self.keep is None else self.keep.kept(dice)

    def most_dice(self, explode_depth: int) -> int:
        """The most dice this group can throw, every explosion included.

        >>> Dice(2, 6, explode=True).most_dice(20)
        42
        """
        return self.count * (explode_depth + 1) if self.explode else self.count


class Neg(NamedTuple):
    """Unary minus: the negated value of its operand (`-1d6`).

    >>> Neg(Const(2))
    parse('-2')
    """

    operand: Expr

    def __str__(self) -> str:
        return show(self)

    def __repr__(self) -> str:
        return f"parse({show(self)!r})"

    @property
    def minimum(self) -> int:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> int:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]


class BinOp(NamedTuple):
    """Two expressions joined by `+`, `-` or `*`.

    >>> BinOp(Op.ADD, Dice(2, 20), Dice(1, 6))
    parse('2d20+1d6')
    """

    op: Op
    left: Expr
    right: Expr

    def __str__(self) -> str:
        return show(self)

    def __repr__(self) -> str:
        return f"parse({show(self)!r})"

    @property
    def minimum(self) -> int:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> int:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]


Expr = Const | Dice | Neg | BinOp
"""Any node of an expression tree."""

_ATOM = 4
_SIGN = 3
_PRECEDENCE = {Op.ADD: 1, Op.SUB: 1, Op.MUL: 2}


def precedence(node: Expr) -> int:
    """How tightly a node binds: sums 1, products 2, signs 3, numbers and dice 4.

    >>> precedence(BinOp(Op.MUL, Const(2), Const(3)))
    2
    """
    if isinstance(node, BinOp):
        return _PRECEDENCE[node.op]
    return _SIGN if isinstance(node, Neg) else _ATOM


def show(
    node: Expr, leaf: Callable[[Const | Dice], str] | None = None, spaced: bool = False
) -> str:
    """Write a tree as text, with parentheses only where the tree needs them.

    `leaf` writes numbers and dice groups (default: their notation); `spaced` puts
    spaces around binary operators.

    >>> show(BinOp(Op.MUL, BinOp(Op.ADD, Const(1), Const(2)), Const(3)), spaced=True)
    '(1 + 2) * 3'
    """
    if isinstance(node, BinOp):
        mine = _PRECEDENCE[node.op]
        left = show(node.left, leaf, spaced)
        right = show(node.right, leaf, spaced)
        if precedence(node.left) < mine:
            left = f"({left})"
        if precedence(node.right) <= mine:
            right = f"({right})"
        sep = f" {node.op.value} " if spaced else node.op.value
        return f"{left}{sep}{right}"
    if isinstance(node, Neg):
        inner = show(node.operand, leaf, spaced)
        return f"-({inner})" if precedence(node.operand) < _SIGN else f"-{inner}"
    if leaf is not None:
        return leaf(node)
    return notation(node)


def notation(node: Const | Dice) -> str:
    """The canonical notation of a number or a dice group.

    >>> notation(Dice(1, 100, explode=True, success=Success(Compare.GE, 90)))
    '1d100!>=90'
    """
    if isinstance(node, Const):
        return str(node.value)
    text = f"{node.count}d{node.sides}"
    if node.explode:
        text += "!"
    if node.keep is not None:
        text += str(node.keep)
    if node.success is not None:
        text += str(node.success)
    return text


def bounds(node: Expr, limits: Limits = DEFAULT_LIMITS) -> tuple[int, int]:
    """The smallest and largest value a roll can give; both are reached by some roll.

    >>> bounds(BinOp(Op.SUB, Const(10), Dice(2, 6)))
    (-2, 8)
    """
    if isinstance(node, Const):
        return node.value, node.value
    if isinstance(node, Dice):
        return dice_bounds(node, limits.max_explode_depth)
    if isinstance(node, Neg):
        low, high = bounds(node.operand, limits)
        return -high, -low
    left_low, left_high = bounds(node.left, limits)
    right_low, right_high = bounds(node.right, limits)
    if node.op is Op.ADD:
        return left_low + right_low, left_high + right_high
    if node.op is Op.SUB:
        return left_low - right_high, left_high - right_low
    products = [a * b for a in (left_low, left_high) for b in (right_low, right_high)]
    return min(products), max(products)


def dice_bounds(group: Dice, explode_depth: int) -> tuple[int, int]:
    """Bounds of one group. Fewest dice: no explosion; most: every die explodes to the cap.

    >>> dice_bounds(Dice(3, 6, explode=True, keep=Keep(KeepMode.DROP_HIGHEST, 1)), 1)
    (2, 30)
    """
    fewest = group.kept(group.count)
    most = group.kept(group.most_dice(explode_depth))
    if group.success is None:
        return fewest, most * group.sides
    low, high = group.success.passing_range()
    passing = max(0, min(high, group.sides) - max(low, 1) + 1)
    minimum = fewest if passing == group.sides else 0
    if passing == 0:
        return minimum, 0
    if group.success.passes(group.sides):
        return minimum, most
    return minimum, _most_passing_below_top(group, most)


def _most_passing_below_top(group: Dice, most: int) -> int:
    """Most passing dice when only faces below the top pass.

    Each explosion chain ends in at most one die below the top face, so at most
    `count` dice can pass; exploded top faces can only help by being dropped first.
    """
    if not group.explode or group.keep is None:
        return group.kept(group.count)
    if group.keep.mode is KeepMode.DROP_LOWEST:
        return group.kept(group.count)
    return min(group.count, most)
