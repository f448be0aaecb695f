"""What happened: the frozen records of a roll, and how two rolled values combine.

A roll (`referee.dice.plan.roll`) gives a `RollResult`: the tree, each dice group as rolled
(`GroupRoll`, left to right), each pool (`PoolRoll`) and the total.

>>> from referee.dice import parse, roll
>>> from referee.rng import ScriptedRng
>>> result = roll(parse("2d20+1d6"), rng=ScriptedRng([14, 3, 5]))
>>> str(result)
'2d20+1d6 = [14, 3] + [5] = 22'
>>> roll(parse("2d6!"), rng=ScriptedRng([6, 2, 3])).total  # 6 explodes into 2; then 3
11
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple, NoReturn

from referee.dice.bounds import whole
from referee.dice.expr import Dice, Expr, Number, Op, Pool
from referee.dice.render import render
from referee.errors import LimitError, RuleError
from referee.rng import Throw

_ADD, _SUB, _MUL, _DIV, _FLOORDIV, _MOD = Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.FLOORDIV, Op.MOD
_EQ, _NE, _GT, _GE, _LT = Op.EQ, Op.NE, Op.GT, Op.GE, Op.LT


@dataclass(frozen=True, slots=True)
class Die:
    """One die of a roll: its face, whether it counts, whether it exploded or was rerolled.

    `value` is what it counts for when that differs from its face (Fudge -1..1, a
    penetrating die one less, d20's `mi`/`ma`); None means the face.

    >>> Die(6, 6, kept=True, exploded=True)
    Die(sides=6, face=6, kept=True, exploded=True, rerolled=False, value=None)
    """

    sides: int
    face: int
    kept: bool = True
    exploded: bool = False
    """It passed the explosion test and added another die to its group."""
    rerolled: bool = False
    """It was thrown again (a reroll), so it does not count."""
    value: int | None = None

    @property
    def worth(self) -> int:
        """The value the die counts for."""
        return self.face if self.value is None else self.value


class GroupRoll(NamedTuple):
    """One dice group as rolled: its throws (dice in throw order), which dice count, its value.

    `kept[i]`, `exploded[i]` describe the i-th face of `faces`; `rerolled`, `values` and
    `joined` (a compounding die's later faces, added into the die before) are empty when
    no die was rerolled, changed or compounded.

    >>> rolled = GroupRoll(Dice(2, 6), (Throw((6, 6), (4, 2)),), (True, False), (False, False), 4)
    >>> rolled.faces, rolled.dice[1]
    ((4, 2), Die(sides=6, face=2, kept=False, exploded=False, rerolled=False, value=None))
    """

    group: Dice
    throws: tuple[Throw, ...]
    kept: tuple[bool, ...]
    exploded: tuple[bool, ...]
    value: Number
    rerolled: tuple[bool, ...] = ()
    values: tuple[int, ...] = ()
    joined: tuple[bool, ...] = ()

    @property
    def faces(self) -> tuple[int, ...]:
        """Every face thrown, kept or not, in throw order (a Fudge die's d3 face: 1..3)."""
        if len(self.throws) == 1:
            return self.throws[0].faces
        return tuple(f for t in self.throws for f in t.faces)

    @property
    def dice(self) -> tuple[Die, ...]:
        """Every die as a record, in throw order."""
        sides = self.group.sides
        faces = self.faces
        n = len(faces)
        rerolled = self.rerolled or (False,) * n
        values: tuple[int | None, ...] = self.values or (None,) * n
        return tuple(
            Die(sides, f, k, e, r, None if v == f else v)
            for f, k, e, r, v in zip(faces, self.kept, self.exploded, rerolled, values, strict=True)
        )


class PoolRoll(NamedTuple):
    """One pool as rolled: each item's value, whether it counts, and the pool's value."""

    pool: Pool
    values: tuple[Number, ...]
    kept: tuple[bool, ...]
    value: Number


class RollResult(NamedTuple):
    """A rolled expression: the tree, each group as rolled (left to right) and the total.

    >>> from referee.dice import parse, roll
    >>> from referee.rng import ScriptedRng
    >>> result = roll(parse("1d100"), rng=ScriptedRng([47]))
    >>> result.total, str(result)
    (47, '1d100 = [47] = 47')
    """

    expression: Expr
    groups: tuple[GroupRoll, ...]
    total: Number
    pools: tuple[PoolRoll, ...] = ()

    def __str__(self) -> str:
        return render(self)

    @property
    def dice(self) -> tuple[Die, ...]:
        """Every die of every group, in the order they were thrown."""
        return tuple(d for g in self.groups for d in g.dice)

    @property
    def throws(self) -> tuple[Throw, ...]:
        """Every throw made, in order."""
        return tuple(t for g in self.groups for t in g.throws)


def apply(op: Op, left: Number, right: Number, node: Expr | None = None) -> Number:
    """One binary operator on two values (division exact, comparisons 1 or 0).

    >>> apply(Op.DIV, 7, 2), apply(Op.FLOORDIV, 7, 2), apply(Op.GE, 3, 3)
    (Fraction(7, 2), 3, 1)
    """
    if op is _ADD:
        return left + right
    if op is _SUB:
        return left - right
    if op is _MUL:
        return left * right
    if op is _DIV or op is _FLOORDIV or op is _MOD:
        if right == 0:
            where = f" in {str(node)!r}" if node is not None else ""
            raise RuleError(f"division by zero{where}: the divisor rolled 0")
        if op is _DIV:
            return whole(Fraction(left) / right)
        if op is _FLOORDIV:
            return whole(left // right)
        return whole(remainder(left, right))
    if op is _EQ:
        return int(left == right)
    if op is _NE:
        return int(left != right)
    if op is _GT:
        return int(left > right)
    if op is _GE:
        return int(left >= right)
    if op is _LT:
        return int(left < right)
    return int(left <= right)


def remainder(left: Number, right: Number) -> Number:
    """`left % right` as JavaScript (and so roll20) takes it: the sign of the dividend.

    >>> remainder(-7, 3), remainder(7, -3), remainder(-7, -3), remainder(7, 3)
    (-1, 1, -1, 1)
    """
    rest = (-left if left < 0 else left) % (-right if right < 0 else right)
    return -rest if left < 0 else rest


def call(function: str, value: Number) -> Number:
    """One of roll20's functions (`referee.dice.tree.FUNCTIONS`) of a value; `round` rounds
    halves up, as roll20 does.

    >>> call("floor", Fraction(7, 2)), call("round", Fraction(5, 2)), call("abs", -3)
    (3, 3, 3)
    """
    if function == "floor":
        return math.floor(value)
    if function == "ceil":
        return math.ceil(value)
    if function == "round":  # halves up, as roll20 rounds
        return math.floor(value + Fraction(1, 2))
    return -value if value < 0 else value


def over_budget(count: int, sides: int) -> NoReturn:
    """The error of a roll whose next `count` dice of `sides` sides would pass its dice limit.

    >>> try:
    ...     over_budget(1, 6)
    ... except LimitError as err:
    ...     print(str(err)[:51])
    rolling 1 more d6 would pass this roll's dice limit
    """
    raise LimitError(
        f"rolling {count} more d{sides} would pass this roll's dice limit "
        "(parse and roll with the same limits)"
    )
