"""What was written: the frozen expression tree of dice notation.

`str` of a tree is its canonical notation in the default dialect (roll20; a node roll20
cannot write is written as d20 or onlinehost writes it), and parsing that text in that
dialect gives an equal tree back. `notation.write(tree, dialect)` writes any dialect.

>>> from referee.dice import parse
>>> expr = parse("4d6kh3 + 2")
>>> str(expr), expr.minimum, expr.maximum
('4d6kh3+2', 5, 20)

A node's type is part of what it is: equal fields do not make equal nodes
(`referee.dice.fields.Node`), and a node is not a sequence.

>>> parse("dh50", dialect="onlinehost") == parse("50"), len({Degrees(50), Const(50)})
(False, 2)
"""

from __future__ import annotations

from referee.dice.bounds import bounds
from referee.dice.fields import (
    BinOpFields,
    CallFields,
    ConstFields,
    DegreesFields,
    DiceFields,
    LabelFields,
    NegFields,
    Node,
    PoolFields,
)
from referee.dice.notation import canonical, canonical_repr
from referee.dice.tree import (
    COMPARISONS,
    FUNCTIONS,
    Compare,
    Explode,
    Keep,
    KeepMode,
    Number,
    Op,
    Success,
)

__all__ = [
    "COMPARISONS",
    "FUNCTIONS",
    "BinOp",
    "Call",
    "Compare",
    "Const",
    "Degrees",
    "Dice",
    "Explode",
    "Expr",
    "Keep",
    "KeepMode",
    "Label",
    "Neg",
    "Node",
    "Number",
    "Op",
    "Pool",
    "Success",
]


class Written(Node):
    """What every node adds to its fields: its notation and its bounds."""

    __slots__ = ()

    def __str__(self) -> str:
        return canonical(self)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return canonical_repr(self)  # type: ignore[arg-type]

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]  # type: ignore[arg-type]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]  # type: ignore[arg-type]


class Const(Written, ConstFields):
    """A whole number written in the expression.

    >>> Const(3), Const(3).maximum
    (parse('3'), 3)
    """

    __slots__ = ()


class Dice(Written, DiceFields):
    """A group of dice thrown at once, with every modifier a dialect can write.

    >>> Dice(4, 6, keep=Keep(KeepMode.HIGHEST, 3))
    parse('4d6kh3')
    """

    __slots__ = ()


class Neg(Written, NegFields):
    """Unary minus: the negated value of its operand (`-1d6`).

    >>> Neg(Const(2))
    parse('-2')
    """

    __slots__ = ()


class BinOp(Written, BinOpFields):
    """Two expressions joined by an operator.

    >>> BinOp(Op.ADD, Dice(2, 20), Dice(1, 6))
    parse('2d20+1d6')
    """

    __slots__ = ()


class Pool(Written, PoolFields):
    """Several expressions rolled together, kept, dropped or counted as items.

    roll20 writes `{4d6+2d8, 3d20}kh1`, d20 `(1d20, 1d20)kh1`. With `dice_level` (roll20's
    single-item `{4d6+3d8}k4`) keep/drop picks among all the dice of the item instead.

    >>> Pool((Dice(1, 20), Dice(1, 20)), keep=Keep(KeepMode.HIGHEST, 1))
    parse('{1d20,1d20}kh1')
    """

    __slots__ = ()


class Call(Written, CallFields):
    """A function of one expression: `floor(1d20/3)`.

    >>> Call("floor", BinOp(Op.DIV, Dice(1, 20), Const(3)))
    parse('floor(1d20/3)')
    """

    __slots__ = ()


class Label(Written, LabelFields):
    """A label on a part of the expression (`1d6[fire]`); it changes no value.

    >>> Label(Dice(1, 6), "fire")
    parse('1d6[fire]')
    """

    __slots__ = ()


class Degrees(Written, DegreesFields):
    """onlinehost's `dh50`: 1d100 against a target, worth its degrees of success.

    A roll at or under the target is 1 + (target - roll) // 10 degrees of success; a roll
    over it, -(1 + (roll - target) // 10), that is degrees of failure as a negative number.

    >>> Degrees(50).minimum, Degrees(50).maximum
    (-6, 5)
    """

    __slots__ = ()


Expr = Const | Dice | Neg | BinOp | Pool | Call | Label | Degrees
"""Any node of an expression tree."""
