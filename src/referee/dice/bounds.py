"""The bounds a tree declares: no roll gives less than its minimum or more than its maximum.

For sums, products and groups with explode/keep/success (the forms of the first grammar)
both bounds are reached by some roll (tests check it by brute force); for the newer forms
they are safe bounds that every roll stays inside (property tests check that).

>>> from referee.dice import parse
>>> bounds(parse("10-2d6"))
(-2, 8)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

from referee.dice.fields import (
    BinOpFields,
    CallFields,
    ConstFields,
    DiceFields,
    LabelFields,
    NegFields,
    PoolFields,
)
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.dice.tree import Explode, KeepMode, Number, Op

if TYPE_CHECKING:
    from referee.dice.expr import Expr

Range = tuple[Number, Number]


def whole(value: Number) -> Number:
    """A fraction that is whole as an int.

    >>> whole(Fraction(4, 2)), whole(Fraction(1, 2))
    (2, Fraction(1, 2))
    """
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    return value


def bounds(node: Expr, limits: Limits = DEFAULT_LIMITS) -> Range:
    """The smallest and largest value a roll can give.

    >>> from referee.dice.expr import BinOp, Const, Dice
    >>> bounds(BinOp(Op.SUB, Const(10), Dice(2, 6)))
    (-2, 8)
    """
    low, high = _bounds(node, limits.max_explode_depth)
    return whole(low), whole(high)


def _bounds(node: Expr, depth: int) -> Range:
    if isinstance(node, ConstFields):
        return node.value, node.value
    if isinstance(node, DiceFields):
        return dice_bounds(node, depth)
    if isinstance(node, NegFields):
        low, high = _bounds(node.operand, depth)
        return -high, -low
    if isinstance(node, BinOpFields):
        return _binop(node, depth)
    if isinstance(node, LabelFields):
        return _bounds(node.operand, depth)
    if isinstance(node, CallFields):
        return _call(node.function, _bounds(node.operand, depth))
    if isinstance(node, PoolFields):
        return _pool(node, depth)
    return node.degrees(100), node.degrees(1)


def _binop(node: BinOpFields, depth: int) -> Range:
    op = node.op
    a, b = _bounds(node.left, depth)
    c, e = _bounds(node.right, depth)
    if op is Op.ADD:
        return a + c, b + e
    if op is Op.SUB:
        return a - e, b - c
    if op is Op.MUL:
        products = [x * y for x in (a, b) for y in (c, e)]
        return min(products), max(products)
    if op in (Op.DIV, Op.FLOORDIV):
        divisors = [y for y in (c, e) if y != 0]
        if c < 0 < e or c == 0 or e == 0:  # a divisor next to zero: the smallest whole ones
            tiny = 1 if _whole_valued(node.right) else Fraction(1, 10**6)
            divisors += [y for y in (-tiny, tiny) if c <= y <= e]
        if not divisors:
            return 0, 0  # it always divides by zero: no roll gives a value
        quotients = [Fraction(x) / y for x in (a, b) for y in divisors]
        low, high = min(quotients), max(quotients)
        if op is Op.FLOORDIV:
            return math.floor(low), math.floor(high)
        return low, high
    if op is Op.MOD:  # the sign of the dividend, smaller than the largest divisor
        most = max(-c, e)  # the largest divisor's size (c <= e)
        return (0 if a >= 0 else max(a, -most)), (0 if b <= 0 else min(b, most))
    return 0, 1


def _whole_valued(node: Expr) -> bool:
    if isinstance(node, BinOpFields):
        if node.op is Op.DIV:
            return False
        return _whole_valued(node.left) and _whole_valued(node.right)
    if isinstance(node, NegFields | LabelFields):
        return _whole_valued(node.operand)
    if isinstance(node, PoolFields):
        return all(_whole_valued(item) for item in node.items)
    if isinstance(node, CallFields):
        return node.function != "abs" or _whole_valued(node.operand)
    return True


def _call(function: str, span: Range) -> Range:
    low, high = span
    if function == "floor":
        return math.floor(low), math.floor(high)
    if function == "ceil":
        return math.ceil(low), math.ceil(high)
    if function == "round":
        return math.floor(low + Fraction(1, 2)), math.floor(high + Fraction(1, 2))
    if low >= 0:
        return low, high
    if high <= 0:
        return -high, -low
    return 0, max(-low, high)


def _pool(node: PoolFields, depth: int) -> Range:
    if node.dice_level:
        spans: list[Range] = [(1, g.sides) for g in _dice_of(node.items[0]) for _ in range(g.count)]
    else:
        spans = [_bounds(item, depth) for item in node.items]
    n = len(spans)
    if node.success is not None or node.failure is not None:
        return (-n if node.failure is not None else 0), (n if node.success is not None else 0)
    keep = node.keep
    lows = sorted(s[0] for s in spans)
    highs = sorted(s[1] for s in spans)
    if keep is None:
        return sum(lows), sum(highs)
    if keep.test is not None:
        return sum(min(x, 0) for x in lows), sum(max(x, 0) for x in highs)
    kept = keep.kept(n)
    if keep.mode in (KeepMode.HIGHEST, KeepMode.DROP_LOWEST):
        return sum(lows[n - kept :]), sum(highs[n - kept :])
    return sum(lows[:kept]), sum(highs[:kept])


def _dice_of(node: Expr) -> list[DiceFields]:
    if isinstance(node, DiceFields):
        return [node]
    if isinstance(node, BinOpFields):
        return _dice_of(node.left) + _dice_of(node.right)
    return []


def _first_grammar(group: DiceFields) -> bool:
    """Only explode-on-top, keep/drop by rank and success counting: exact bounds known."""
    return (
        group.explode_on is None
        and group.explode_kind is Explode.EACH
        and not group.reroll
        and not group.reroll_once
        and group.add_on is None
        and group.floor is None
        and group.ceiling is None
        and group.failure is None
        and not group.fudge
        and group.crit is None
        and group.fumble is None
        and not group.order
        and (group.keep is None or group.keep.test is None)
    )


def dice_bounds(group: DiceFields, explode_depth: int) -> Range:
    """Bounds of one group. Fewest dice: no explosion; most: every die explodes to the cap.

    >>> from referee.dice.expr import Dice, Keep
    >>> dice_bounds(Dice(3, 6, explode=True, keep=Keep(KeepMode.DROP_HIGHEST, 1)), 1)
    (2, 30)
    """
    if not _first_grammar(group):
        return _general(group, explode_depth)
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


def _most_passing_below_top(group: DiceFields, most: int) -> int:
    """Most passing dice when only faces below the top pass.

    Each explosion chain ends in at most one die below the top face, so at most
    `count` dice can pass; exploded top faces can only help by being dropped first.
    """
    if not group.explode or group.keep is None:
        return group.kept(group.count)
    if group.keep.mode is KeepMode.DROP_LOWEST:
        return group.kept(group.count)
    return min(group.count, most)


def _general(group: DiceFields, depth: int) -> Range:
    faces = group.faces()
    low, high = faces[0], faces[-1]
    if group.floor is not None:
        low, high = max(low, group.floor), max(high, group.floor)
    if group.ceiling is not None:
        low, high = min(low, group.ceiling), min(high, group.ceiling)
    chain = depth + 1 if group.explode else 1
    extra = group.add_on is not None
    if group.explode and group.explode_kind is Explode.COMPOUND:
        low, high = min(low, low * chain), max(high, high * chain)
        fewest, most = group.count, group.count + extra
    else:
        if group.explode and group.explode_kind is Explode.PENETRATE:
            low = min(low, low - 1)
        fewest, most = group.count, group.count * chain + extra
    keep = group.keep
    kept_low = fewest if keep is None or keep.test is not None else keep.kept(fewest)
    kept_high = most if keep is None else keep.kept(most)
    if keep is not None and keep.test is not None:
        kept_low = 0
    if group.success is not None or group.failure is not None:
        top = kept_high if group.success is not None else 0
        return (-kept_high if group.failure is not None else 0), top
    least = kept_high * low if low < 0 else kept_low * low
    greatest = kept_high * high if high > 0 else kept_low * high
    return least, greatest
