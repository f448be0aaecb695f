"""What was written: the frozen expression tree of dice notation.

`str` of a tree is its canonical notation in the default dialect (roll20; a node roll20
cannot write is written as d20 or onlinehost writes it), and parsing that text in that
dialect gives an equal tree back. `notation.write(tree, dialect)` writes any dialect.

>>> from referee.dice import parse
>>> expr = parse("4d6kh3 + 2")
>>> str(expr), expr.minimum, expr.maximum
('4d6kh3+2', 5, 20)

A node's type is part of what it is: equal fields do not make equal nodes.

>>> parse("dh50", dialect="onlinehost") == parse("50"), len({Degrees(50), Const(50)})
(False, 2)
"""

from __future__ import annotations

from referee.dice.bounds import bounds
from referee.dice.notation import canonical, canonical_repr
from referee.dice.tree import (
    COMPARISONS,
    FUNCTIONS,
    BinOpFields,
    CallFields,
    Compare,
    ConstFields,
    DegreesFields,
    DiceFields,
    Explode,
    Keep,
    KeepMode,
    LabelFields,
    NegFields,
    Number,
    Op,
    PoolFields,
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
    "Number",
    "Op",
    "Pool",
    "Success",
]


# A node's type is part of its identity: `Degrees(50)` (onlinehost's `dh50`) and `Const(50)`
# hold the same fields but are not equal and are two dict keys. The named tuples' own `==`
# and hash would ignore the type, so every node takes these instead (children compare with
# their own, so a whole tree compares node by node, types included).


def _same_node(self: tuple[object, ...], other: object) -> bool:
    return type(other) is type(self) and tuple.__eq__(self, other)


def _other_node(self: tuple[object, ...], other: object) -> bool:
    return type(other) is not type(self) or tuple.__ne__(self, other)


def _node_hash(self: tuple[object, ...]) -> int:
    return hash((type(self).__name__, tuple.__hash__(self)))


class Const(ConstFields):
    """A whole number written in the expression.

    >>> Const(3), Const(3).maximum
    (parse('3'), 3)
    """

    __slots__ = ()
    __eq__ = _same_node
    __ne__ = _other_node
    __hash__ = _node_hash

    def __str__(self) -> str:
        return canonical(self)

    def __repr__(self) -> str:
        return canonical_repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]


class Dice(DiceFields):
    """A group of dice thrown at once, with every modifier a dialect can write.

    >>> Dice(4, 6, keep=Keep(KeepMode.HIGHEST, 3))
    parse('4d6kh3')

    The tree's nodes are named tuples: as frozen as dataclasses and several times faster to
    make, which is most of the cost of parsing. (`count` here is the number of dice; the tuple
    method of that name is not used on a node.) Modifiers apply in one fixed order, whatever
    order they were written in: reroll, clamp (`floor`/`ceiling`), explode, add once, keep
    or drop, then count successes and failures.
    """

    __slots__ = ()
    __eq__ = _same_node
    __ne__ = _other_node
    __hash__ = _node_hash

    def __str__(self) -> str:
        return canonical(self)

    def __repr__(self) -> str:
        return canonical_repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]


class Neg(NegFields):
    """Unary minus: the negated value of its operand (`-1d6`).

    >>> Neg(Const(2))
    parse('-2')
    """

    __slots__ = ()
    __eq__ = _same_node
    __ne__ = _other_node
    __hash__ = _node_hash

    def __str__(self) -> str:
        return canonical(self)

    def __repr__(self) -> str:
        return canonical_repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]


class BinOp(BinOpFields):
    """Two expressions joined by an operator.

    >>> BinOp(Op.ADD, Dice(2, 20), Dice(1, 6))
    parse('2d20+1d6')
    """

    __slots__ = ()
    __eq__ = _same_node
    __ne__ = _other_node
    __hash__ = _node_hash

    def __str__(self) -> str:
        return canonical(self)

    def __repr__(self) -> str:
        return canonical_repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]


class Pool(PoolFields):
    """Several expressions rolled together, kept, dropped or counted as items.

    roll20 writes `{4d6+2d8, 3d20}kh1`, d20 `(1d20, 1d20)kh1`. With `dice_level` (roll20's
    single-item `{4d6+3d8}k4`) keep/drop picks among all the dice of the item instead.

    >>> Pool((Dice(1, 20), Dice(1, 20)), Keep(KeepMode.HIGHEST, 1))
    parse('{1d20,1d20}kh1')
    """

    __slots__ = ()
    __eq__ = _same_node
    __ne__ = _other_node
    __hash__ = _node_hash

    def __str__(self) -> str:
        return canonical(self)

    def __repr__(self) -> str:
        return canonical_repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]


class Call(CallFields):
    """A function of one expression: `floor(1d20/3)`.

    >>> Call("floor", BinOp(Op.DIV, Dice(1, 20), Const(3)))
    parse('floor(1d20/3)')
    """

    __slots__ = ()
    __eq__ = _same_node
    __ne__ = _other_node
    __hash__ = _node_hash

    def __str__(self) -> str:
        return canonical(self)

    def __repr__(self) -> str:
        return canonical_repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]


class Label(LabelFields):
    """A label on a part of the expression (`1d6[fire]`); it changes no value.

    >>> Label(Dice(1, 6), "fire")
    parse('1d6[fire]')
    """

    __slots__ = ()
    __eq__ = _same_node
    __ne__ = _other_node
    __hash__ = _node_hash

    def __str__(self) -> str:
        return canonical(self)

    def __repr__(self) -> str:
        return canonical_repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give (under the default limits)."""
        return bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give (under the default limits)."""
        return bounds(self)[1]


class Degrees(DegreesFields):
    """onlinehost's `dh50`: 1d100 against a target, worth its degrees of success.

    A roll at or under the target is 1 + (target - roll) // 10 degrees of success; a roll
    over it, -(1 + (roll - target) // 10), that is degrees of failure as a negative number.

    >>> Degrees(50).minimum, Degrees(50).maximum
    (-6, 5)
    """

    __slots__ = ()
    __eq__ = _same_node
    __ne__ = _other_node
    __hash__ = _node_hash

    def __str__(self) -> str:
        return canonical(self)

    def __repr__(self) -> str:
        return canonical_repr(self)

    @property
    def minimum(self) -> Number:
        """The smallest value a roll can give."""
        return bounds(self)[0]

    @property
    def maximum(self) -> Number:
        """The largest value a roll can give."""
        return bounds(self)[1]


Expr = Const | Dice | Neg | BinOp | Pool | Call | Label | Degrees
"""Any node of an expression tree."""
