"""What happened: rolling a tree, and the frozen result.

A plain group (or one that only keeps, counts or clamps) is ONE `rng.throw(...)` (one
verifiable nonce). In a group whose dice may be followed by more throws (rerolls,
explosions, d20's `ra`) each die is thrown on its own, and its rerolls and explosions are
thrown right after it: throw order is left to right, each die followed by its chain. So
scripted faces (`ScriptedRng`, `referee roll --faces`) are given in exactly that order.

>>> from referee.dice.parser import parse
>>> from referee.rng import ScriptedRng
>>> result = roll(parse("2d20+1d6"), rng=ScriptedRng([14, 3, 5]))
>>> str(result)
'2d20+1d6 = [14, 3] + [5] = 22'
>>> roll(parse("2d6!"), rng=ScriptedRng([6, 2, 3])).total  # 6 explodes into 2; then 3
11
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import compress
from typing import NamedTuple, NoReturn

from referee.dice.bounds import whole
from referee.dice.expr import (
    BinOp,
    Call,
    Const,
    Degrees,
    Dice,
    Expr,
    Keep,
    Label,
    Neg,
    Number,
    Op,
    Pool,
    Success,
)
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.dice.members import (
    EXPLODE_COMPOUND,
    EXPLODE_EACH,
    EXPLODE_PENETRATE,
    MODE_DROP_HIGHEST,
    MODE_HIGHEST,
    MODE_LOWEST,
    MODE_MATCHING,
    OP_ADD,
    OP_DIV,
    OP_EQ,
    OP_FLOORDIV,
    OP_GE,
    OP_GT,
    OP_LT,
    OP_MOD,
    OP_MUL,
    OP_NE,
    OP_SUB,
)
from referee.dice.render import render
from referee.errors import LimitError, RuleError
from referee.rng import Rng, Throw
from referee.rng.base import one_die_at_a_time


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

    >>> from referee.dice.parser import parse
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


def roll(expr: Expr, *, rng: Rng, limits: Limits = DEFAULT_LIMITS) -> RollResult:
    """Roll a parsed expression with dice from `rng`.

    `limits` caps explosion chains and rerolls (`max_explode_depth`) and, as a last guard
    when the tree was parsed under other limits, the dice thrown (`max_dice`).

    >>> from referee.dice import parse
    >>> from referee.rng import ScriptedRng
    >>> roll(parse("4d6kh3"), rng=ScriptedRng([6, 1, 5, 4])).total
    15
    """
    if type(expr) is Dice:  # the commonest roll: one group
        # (keep and success checked first: a dataclass compares in Python, None in C)
        plain = expr[3] is None and expr[4] is None and expr[2:] == _PLAIN_TAIL
        if plain and expr.count <= limits.max_dice:  # one throw, no budget
            first = rng.throw((expr.sides,) * expr.count)
            flags = (True,) * expr.count
            rolled = GroupRoll(expr, (first,), flags, (False,) * expr.count, sum(first.faces))
        else:
            rolled = roll_group(expr, rng, limits, [limits.max_dice])
        return _new(RollResult, (expr, (rolled,), rolled.value, ()))
    fixed = _FIXED.get(id(expr))
    if fixed is not None and fixed[0] is expr:
        return fixed[1]
    if type(expr) is BinOp:
        terms = _terms(expr)
        if terms is not None and terms[0] <= limits.max_dice:
            return _roll_terms(expr, terms[1], rng)
    state = _State(rng, limits)
    total = state.binop(expr) if type(expr) is BinOp else state.evaluate(expr)
    result = _new(RollResult, (expr, tuple(state.groups), total, tuple(state.pools)))
    if not result.groups:  # no die thrown: this tree always rolls this (frozen) result
        if len(_FIXED) >= 512:
            _FIXED.clear()
        _FIXED[id(expr)] = (expr, result)
    return result


_Terms = tuple[int, tuple[tuple[bool, Dice | int], ...]]


def _terms(expr: BinOp) -> _Terms | None:
    """`1d20+5`, `3d6[fire] + 1d4 - 2`: (dice in all, (minus?, group or number) in order);
    None for any other tree. Read from the last term back, so most trees are told apart at
    their last term or the one before."""
    terms: list[tuple[bool, Dice | int]] = []
    dice = 0
    node: Expr | None = expr
    while node is not None:
        item: Expr
        if type(node) is BinOp and (node[0] is OP_ADD or node[0] is OP_SUB):
            minus, item, node = node[0] is OP_SUB, node[2], node[1]
        else:
            minus, item, node = False, node, None
        while type(item) is Label:
            item = item[0]
        if type(item) is Dice and item[2:] == _PLAIN_TAIL:
            dice += item[0]
            terms.append((minus, item))
        elif type(item) is Const and type(item[0]) is int:
            terms.append((minus, item[0]))
        else:
            return None
    terms.reverse()
    return dice, tuple(terms)


def _roll_terms(expr: Expr, terms: tuple[tuple[bool, Dice | int], ...], rng: Rng) -> RollResult:
    """A flattened sum rolled as `_State` rolls it: groups left to right, one throw each."""
    groups = []
    total = 0
    for minus, term in terms:
        if type(term) is int:
            value = term
        else:
            count = term.count  # type: ignore[union-attr]
            first = rng.throw((term.sides,) * count)  # type: ignore[union-attr]
            value = sum(first.faces)
            flags = (False,) * count
            groups.append(
                _new(GroupRoll, (term, (first,), (True,) * count, flags, value, (), (), ()))
            )
        total = total - value if minus else total + value
    return _new(RollResult, (expr, tuple(groups), total, ()))


_FIXED: dict[int, tuple[Expr, RollResult]] = {}
"""Results of trees that throw no dice, by the tree's id; the tree is held, so its id stays
its own, and `is` confirms it."""


_PLAIN_TAIL = Dice(1, 1)[2:]
"""Every field after count and sides of a group without modifiers (`Dice.plain`)."""


_PENDING = PoolRoll(Pool(()), (), (), 0)
"""A pool's place in `_State.pools` until it is rolled (the pools inside it come after)."""


class _State:
    __slots__ = ("budget", "groups", "limits", "pools", "rng")

    def __init__(self, rng: Rng, limits: Limits) -> None:
        self.rng = rng
        self.limits = limits
        self.budget = [limits.max_dice]
        self.groups: list[GroupRoll] = []
        self.pools: list[PoolRoll] = []

    def evaluate(self, node: Expr) -> Number:
        kind = type(node)
        if kind is Dice:
            rolled = roll_group(node, self.rng, self.limits, self.budget)  # type: ignore[arg-type]
            self.groups.append(rolled)
            return rolled.value
        if kind is BinOp:
            return self.binop(node)  # type: ignore[arg-type]
        if kind is Const:
            return node.value  # type: ignore[union-attr]
        if kind is Neg or kind is Label:
            value = self.evaluate(node.operand)  # type: ignore[union-attr]
            return -value if kind is Neg else value
        if kind is Call:
            return _call(node.function, self.evaluate(node.operand))  # type: ignore[union-attr]
        if kind is Pool:
            return self.pool(node)  # type: ignore[arg-type]
        assert isinstance(node, Degrees)
        rolled = roll_group(Dice(1, 100), self.rng, self.limits, self.budget)
        value = node.degrees(rolled.faces[0])
        self.groups.append(rolled._replace(value=value))
        return value

    def binop(self, node: BinOp) -> Number:
        # `evaluate` of each side, a number or a group without the call
        left: Number
        right: Number
        side = node.left
        while type(side) is Label:  # (a label passes its operand's value on)
            side = side[0]
        if type(side) is Const:
            left = side[0]
        elif type(side) is Dice:
            rolled = roll_group(side, self.rng, self.limits, self.budget)
            self.groups.append(rolled)
            left = rolled[4]
        else:
            left = self.evaluate(side)
        side = node.right
        while type(side) is Label:
            side = side[0]
        if type(side) is Const:
            right = side[0]
        elif type(side) is Dice:
            rolled = roll_group(side, self.rng, self.limits, self.budget)
            self.groups.append(rolled)
            right = rolled[4]
        else:
            right = self.evaluate(side)
        op = node.op
        if op is OP_ADD:
            return left + right
        if op is OP_SUB:
            return left - right
        if op is OP_MUL:
            return left * right
        if op is OP_FLOORDIV and right and type(left) is int and type(right) is int:
            return left // right  # (`apply`'s, without the call; 0 is its error)
        return apply(op, left, right, node)

    def pool(self, node: Pool) -> Number:
        if node.dice_level:
            return self.dice_pool(node)
        index = len(self.pools)
        self.pools.append(_PENDING)  # its place, before any pool inside it
        evaluate = self.evaluate
        values = tuple([evaluate(item) for item in node.items])
        kept = _select(node.keep, values)
        if node.success is None and node.failure is None:
            value: Number = sum(compress(values, kept), 0)
            if type(value) is not int:
                value = whole(value)
        else:
            value = _count(node.success, node.failure, values, kept)
        self.pools[index] = _new(PoolRoll, (node, values, tuple(kept), value))
        return value

    def dice_pool(self, node: Pool) -> Number:
        """roll20's `{4d6+3d8}k4`: keep or drop among every die of the item."""
        index = len(self.pools)
        self.pools.append(PoolRoll(node, (), (), 0))
        start = len(self.groups)
        self.evaluate(node.items[0])
        rolled = self.groups[start:]
        faces = [f for g in rolled for f in g.faces]
        kept = iter(_select(node.keep, list(faces)))
        total = 0
        for i, group in enumerate(rolled):
            flags = tuple(next(kept) for _ in group.faces)
            value = sum(f for f, k in zip(group.faces, flags, strict=True) if k)
            self.groups[start + i] = group._replace(kept=flags, value=value)
            total += value
        self.pools[index] = PoolRoll(node, (total,), (True,), total)
        return total


def apply(op: Op, left: Number, right: Number, node: Expr | None = None) -> Number:
    """One binary operator on two values (division exact, comparisons 1 or 0).

    >>> apply(Op.DIV, 7, 2), apply(Op.FLOORDIV, 7, 2), apply(Op.GE, 3, 3)
    (Fraction(7, 2), 3, 1)
    """
    if op is OP_ADD:
        return left + right
    if op is OP_SUB:
        return left - right
    if op is OP_MUL:
        return left * right
    if op in (OP_DIV, OP_FLOORDIV, OP_MOD):
        if right == 0:
            where = f" in {str(node)!r}" if node is not None else ""
            raise RuleError(f"division by zero{where}: the divisor rolled 0")
        if op is OP_DIV:
            return whole(Fraction(left) / right)
        if op is OP_FLOORDIV:
            return whole(left // right)
        return whole(remainder(left, right))
    if op is OP_EQ:
        return int(left == right)
    if op is OP_NE:
        return int(left != right)
    if op is OP_GT:
        return int(left > right)
    if op is OP_GE:
        return int(left >= right)
    if op is OP_LT:
        return int(left < right)
    return int(left <= right)


def remainder(left: Number, right: Number) -> Number:
    """`left % right` as JavaScript (and so roll20) takes it: the sign of the dividend.

    >>> remainder(-7, 3), remainder(7, -3), remainder(-7, -3), remainder(7, 3)
    (-1, 1, -1, 1)
    """
    rest = (-left if left < 0 else left) % (-right if right < 0 else right)
    return -rest if left < 0 else rest


def _call(function: str, value: Number) -> Number:
    if function == "floor":
        return math.floor(value)
    if function == "ceil":
        return math.ceil(value)
    if function == "round":  # halves up, as roll20 rounds
        return math.floor(value + Fraction(1, 2))
    return -value if value < 0 else value


def roll_group(
    group: Dice, rng: Rng, limits: Limits = DEFAULT_LIMITS, budget: list[int] | None = None
) -> GroupRoll:
    """Roll one dice group.

    >>> from referee.rng import ScriptedRng
    >>> roll_group(Dice(2, 6, explode=True), ScriptedRng([6, 2, 3])).faces
    (6, 2, 3)
    """
    if group[4:] == _KEEP_TAIL and group[2] is False:  # plain, or keeps only (`4d6kh3`)
        count, sides, _, keep = group[:4]
        if budget is not None:
            budget[0] -= count
            if budget[0] < 0:
                _over_budget(count, sides)
        first = rng.throw((sides,) * count)
        faces = first.faces
        if keep is None:
            return _new(
                GroupRoll,
                (group, (first,), (True,) * count, (False,) * count, sum(faces), (), (), ()),
            )
        flags = _select(keep, faces)
        return _new(
            GroupRoll,
            (
                group,
                (first,),
                tuple(flags),
                (False,) * count,
                sum(compress(faces, flags)),
                (),
                (),
                (),
            ),
        )
    if group[8] is True and group[2:7] == _ONCE_HEAD and group[9:14] == _ONCE_TAIL:
        count, tests = group[0], group[7]
        if len(tests) == 1 and (budget is None or count * 2 <= budget[0]):
            return _rerolled_once(group, rng, budget)
    explode, reroll, add_on = group[2], group[7], group[9]
    if explode or reroll or add_on is not None:  # chains: dice counted die by die
        if budget is not None and budget[0] < group[0]:
            _over_budget(group[0], group[1])  # (not one die of it would fit)
        if not explode and add_on is None:
            return _rerolled(group, rng, limits, budget)
        if not reroll and add_on is None and group[6] is EXPLODE_EACH:
            return _exploded(group, rng, limits, budget)
        if not explode and not reroll:
            return _added(group, rng, budget)
        return _Chains(group, rng, limits, budget).roll()
    count, sides, _, keep, success, _, _, _, _, _, floor, ceiling, failure = group[:13]
    fudge = group.fudge
    if budget is not None:
        budget[0] -= count
        if budget[0] < 0:
            _over_budget(count, sides)
    first = rng.throw((sides,) * count)
    faces = first.faces
    values: tuple[int, ...]
    if fudge:
        values = tuple([_clamp(group, f - 2) for f in faces])
    elif floor is None and ceiling is None:
        values = faces
    else:  # as _clamp: up to the floor, then down to the ceiling
        low = -1 if floor is None else floor
        high = max(sides, low) if ceiling is None else ceiling  # a floor may pass the top
        values = tuple([min(max(f, low), high) for f in faces])
    if keep is None and success is None and failure is None:
        kept: tuple[bool, ...] = (True,) * count
        value = sum(values)
    else:
        flags = _select(keep, values)
        value = _group_value(group, values, flags)
        kept = tuple(flags)
    same = values is faces or values == faces
    return _new(
        GroupRoll,
        (group, (first,), kept, (False,) * count, value, (), () if same else values, ()),
    )


_new = tuple.__new__
"""A named tuple made without its Python-level `__new__` (every field given): the same value."""
_KEEP_TAIL = Dice(1, 1)[4:]
"""Every field of a group after `keep`, at its default: a group that at most keeps."""


def _over_budget(count: int, sides: int) -> NoReturn:
    raise LimitError(
        f"rolling {count} more d{sides} would pass this roll's dice limit "
        "(parse and roll with the same limits)"
    )


def _clamp(group: Dice, value: int) -> int:
    if group.floor is not None and value < group.floor:
        value = group.floor
    if group.ceiling is not None and value > group.ceiling:
        value = group.ceiling
    return value


@functools.lru_cache(maxsize=256)
def _rerolling(group: Dice) -> frozenset[int]:
    """The values on which a die of `group` is thrown again."""
    return frozenset(f for f in group.faces() if group.rerolls(f))


_ONCE_HEAD = (False, None, None, None, EXPLODE_EACH)
"""`explode` to `explode_kind` of a group that does not explode, keep or count."""
_ONCE_TAIL = (None, None, None, None, False)
"""`add_on` to `fudge` of a group that does not add, clamp or count failures, not Fudge."""


def _rerolled_once(group: Dice, rng: Rng, budget: list[int] | None) -> GroupRoll:
    """The commonest reroll (d20's `2d6ro<3`): one test, each die thrown again at most once,
    nothing kept, clamped or counted; as `_rerolled` rolls it (the worst case fits the
    budget: what was thrown is counted at the end)."""
    count, sides = group[0], group[1]
    low, high = group.reroll[0].passing_range()
    throw = one_die_at_a_time(rng, sides)
    throws: list[Throw] = []
    rerolled: list[bool] = []
    stood = 0
    for _ in range(count):
        thrown = throw()
        face = thrown.faces[0]
        if low <= face <= high:
            throws.append(thrown)
            rerolled.append(True)
            thrown = throw()
            face = thrown.faces[0]
        throws.append(thrown)
        rerolled.append(False)
        stood += face
    many = len(throws)
    if budget is not None:
        budget[0] -= many
    again = many > count
    return _new(
        GroupRoll,
        (
            group,
            tuple(throws),
            tuple([not r for r in rerolled]) if again else (True,) * many,
            (False,) * many,
            stood,
            tuple(rerolled) if again else (),
            (),
            (),
        ),
    )


def _rerolled(group: Dice, rng: Rng, limits: Limits, budget: list[int] | None) -> GroupRoll:
    """A group that only rerolls (and keeps, counts, clamps): `_Chains` without explosions,
    in one loop. Each die is thrown on its own, followed at once by its rerolls."""
    sides = group.sides
    throw = one_die_at_a_time(rng, sides)
    fudge = group.fudge
    tests = group.reroll
    again: frozenset[int] | None = None
    if len(tests) == 1:  # one test: a range of values, checked without a call
        low, high = tests[0].passing_range()
    else:  # several (`ro1ro2`): one range where theirs meet, else the faces they pass
        ranges = sorted([test.passing_range() for test in tests])
        low, high = ranges[0]
        for start, stop in ranges[1:]:
            if start > high + 1:
                low, high = 1, 0
                again = _rerolling(group)
                break
            high = max(high, stop)
    most = 1 if group.reroll_once else limits.max_explode_depth
    clamps = group.floor is not None or group.ceiling is not None
    spent = None
    if budget is not None and group.count * (most + 1) <= budget[0]:
        spent, budget = budget, None  # the worst case fits: count what was thrown at the end
    throws: list[Throw] = []
    faces: list[int] = []
    values: list[int] = []
    rerolled: list[bool] = []
    if budget is None and again is None and not fudge and not clamps:
        # the commonest rerolls (d20's `2d6ro<3`, `4d20rr1kh3`): one test, each value its
        # face; the loop below, without what cannot happen here
        stood = 0
        for _ in range(group.count):
            thrown = throw()
            throws.append(thrown)
            face = thrown[1][0]
            tries = 0
            while tries < most and low <= face <= high:
                tries += 1
                faces.append(face)
                rerolled.append(True)
                thrown = throw()
                throws.append(thrown)
                face = thrown[1][0]
            faces.append(face)
            rerolled.append(False)
            stood += face
        values = faces
        if group.keep is None and group.success is None and group.failure is None:
            # every standing die counts: its total, and the flags as below
            if spent is not None:
                spent[0] -= len(faces)
            many = len(faces)
            again_any = many > group.count
            return _new(
                GroupRoll,
                (
                    group,
                    tuple(throws),
                    tuple([not r for r in rerolled]) if again_any else (True,) * many,
                    (False,) * many,
                    stood,
                    tuple(rerolled) if again_any else (),
                    (),
                    (),
                ),
            )
    else:
        for _ in range(group.count):
            tries = 0
            while True:
                if budget is not None:
                    budget[0] -= 1
                    if budget[0] < 0:
                        _over_budget(1, sides)
                thrown = throw()
                throws.append(thrown)
                face = thrown.faces[0]
                faces.append(face)
                value = face - 2 if fudge else face
                if tries < most and (low <= value <= high if again is None else value in again):
                    tries += 1
                    values.append(value)
                    rerolled.append(True)
                    continue
                if clamps:
                    value = _clamp(group, value)
                values.append(value)
                rerolled.append(False)
                break
    if spent is not None:
        spent[0] -= len(faces)
    again_any = len(values) > group.count
    # the dice that stand (each die's last throw), in throw order
    units = list(compress(values, [not r for r in rerolled])) if again_any else values
    kept_units = _select(group.keep, units)
    total = _group_value(group, units, kept_units)
    if again_any:
        standing = iter(kept_units)
        kept = tuple([False if r else next(standing) for r in rerolled])
    else:
        kept = tuple(kept_units)
    return _new(
        GroupRoll,
        (
            group,
            tuple(throws),
            kept,
            (False,) * len(faces),
            total,
            tuple(rerolled) if again_any else (),
            tuple(values) if values != faces else (),
            (),
        ),
    )


def _exploded(group: Dice, rng: Rng, limits: Limits, budget: list[int] | None) -> GroupRoll:
    """A group that only explodes, each explosion a die of its own (and keeps, counts,
    clamps): `_Chains` without rerolls, in one loop. Each die is thrown on its own, followed
    at once by its explosions, at most `max_explode_depth` of them."""
    sides = group.sides
    throw = one_die_at_a_time(rng, sides)
    fudge = group.fudge
    on = group.explode_on  # as Dice.explodes: the top face, or the values passing a test
    if on is None:
        low = high = 1 if fudge else sides
    else:
        low, high = on.passing_range()
    depth = limits.max_explode_depth
    clamps = group.floor is not None or group.ceiling is not None
    if budget is not None and group.count * (depth + 1) <= budget[0]:
        spent, budget = budget, None  # the worst case fits: count what was thrown at the end
    else:
        spent = None
    throws: list[Throw] = []
    faces: list[int] = []
    values: list[int] = []
    exploded: list[bool] = []
    if budget is None and not fudge and not clamps:  # each value its face (`6d6e6`)
        for _ in range(group.count):
            chain = 0
            thrown = throw()
            throws.append(thrown)
            face = thrown[1][0]
            while chain < depth and low <= face <= high:
                chain += 1
                faces.append(face)
                exploded.append(True)
                thrown = throw()
                throws.append(thrown)
                face = thrown[1][0]
            faces.append(face)
            exploded.append(False)
        values = faces
    for _ in range(0 if values is faces else group.count):
        chain = 0
        while True:
            if budget is not None:
                budget[0] -= 1
                if budget[0] < 0:
                    _over_budget(1, sides)
            thrown = throw()
            throws.append(thrown)
            face = thrown.faces[0]
            faces.append(face)
            value = face - 2 if fudge else face
            if clamps:
                value = _clamp(group, value)
            values.append(value)
            if chain < depth and low <= value <= high:
                chain += 1
                exploded.append(True)
                continue
            exploded.append(False)
            break
    if spent is not None:
        spent[0] -= len(faces)
    kept = _select(group.keep, values)
    return _new(
        GroupRoll,
        (
            group,
            tuple(throws),
            tuple(kept),
            tuple(exploded),
            _group_value(group, values, kept),
            (),
            tuple(values) if values != faces else (),
            (),
        ),
    )


def _added(group: Dice, rng: Rng, budget: list[int] | None) -> GroupRoll:
    """A group that only adds one die once (d20's `ra`; and keeps, counts, clamps): `_Chains`
    without rerolls or explosions, in one loop. Each die is thrown on its own; the first whose
    (clamped) value passes the test is followed at once by one more die, clamped too."""
    sides = group.sides
    throw = one_die_at_a_time(rng, sides)
    fudge = group.fudge
    clamps = group.floor is not None or group.ceiling is not None
    adding = group.add_on
    low, high = (1, 0) if adding is None else adding.passing_range()  # `adding.passes`
    throws: list[Throw] = []
    faces: list[int] = []
    values: list[int] = []
    left = group.count
    if not fudge and not clamps and (budget is None or left + 1 <= budget[0]):
        # each value its face (`7d12ra12`), the worst case within the budget: the loop below
        for _ in range(left):
            thrown = throw()
            throws.append(thrown)
            face = thrown[1][0]
            faces.append(face)
            if low <= face <= high:
                low, high = 1, 0
                thrown = throw()
                throws.append(thrown)
                faces.append(thrown[1][0])
        if budget is not None:
            budget[0] -= len(faces)
        values, left = faces, 0
    while left:
        left -= 1
        if budget is not None:
            budget[0] -= 1
            if budget[0] < 0:
                _over_budget(1, sides)
        thrown = throw()
        throws.append(thrown)
        face = thrown.faces[0]
        faces.append(face)
        value = face - 2 if fudge else face
        if clamps:
            value = _clamp(group, value)
        values.append(value)
        if low <= value <= high:
            low, high = 1, 0  # (no value passes any more)
            left += 1  # the added die, thrown next and never adding another
    kept = _select(group.keep, values)
    return _new(
        GroupRoll,
        (
            group,
            tuple(throws),
            tuple(kept),
            (False,) * len(values),
            _group_value(group, values, kept),
            (),
            tuple(values) if values != faces else (),
            (),
        ),
    )


class _Chains:
    """A group whose dice are thrown one by one, each followed by its rerolls and explosions."""

    def __init__(self, group: Dice, rng: Rng, limits: Limits, budget: list[int] | None) -> None:
        self.group = group
        self.throw = one_die_at_a_time(rng, group.sides)
        self.depth = limits.max_explode_depth
        self.budget = budget
        self.throws: list[Throw] = []
        self.faces: list[int] = []
        self.values: list[int] = []
        self.rerolled: list[bool] = []
        self.exploded: list[bool] = []
        self.joined: list[bool] = []
        self.unit_of: list[int] = []
        self.units: list[int] = []

    def one(self) -> int:
        if self.budget is not None:
            self.budget[0] -= 1
            if self.budget[0] < 0:
                _over_budget(1, self.group.sides)
        thrown = self.throw()
        self.throws.append(thrown)
        face = thrown.faces[0]
        self.faces.append(face)
        self.values.append(face - 2 if self.group.fudge else face)
        self.rerolled.append(False)
        self.exploded.append(False)
        self.joined.append(False)
        self.unit_of.append(-1)
        return self.values[-1]

    def settle(self) -> int:
        """Throw one die and its rerolls; the value it stands at (clamped)."""
        group = self.group
        value = self.one()
        tries = 0
        most = 1 if group.reroll_once else self.depth
        while group.reroll and tries < most and group.rerolls(value):
            self.rerolled[-1] = True
            tries += 1
            value = self.one()
        value = _clamp(group, value)
        self.values[-1] = value
        return value

    def unit(self, value: int) -> None:
        self.unit_of[-1] = len(self.units)
        self.units.append(value)

    def roll(self) -> GroupRoll:
        group = self.group
        adding = group.add_on
        for _ in range(group.count):
            value = self.settle()
            self.unit(value)
            first = value
            chain = 0
            while group.explode and chain < self.depth and group.explodes(value):
                self.exploded[-1] = True
                chain += 1
                value = self.settle()
                if group.explode_kind is EXPLODE_COMPOUND:
                    self.joined[-1] = True
                    self.unit_of[-1] = len(self.units) - 1
                    self.units[-1] += value
                elif group.explode_kind is EXPLODE_PENETRATE:
                    self.values[-1] = value - 1
                    self.unit(value - 1)
                else:
                    self.unit(value)
            if adding is not None and adding.passes(first):
                adding = None
                extra = _clamp(group, self.one())
                self.values[-1] = extra
                self.unit(extra)
        kept_units = _select(group.keep, self.units)
        value = _group_value(group, self.units, kept_units)
        kept = tuple(u >= 0 and kept_units[u] for u in self.unit_of)
        changed = self.values != self.faces
        return GroupRoll(
            group,
            tuple(self.throws),
            kept,
            tuple(self.exploded),
            value,
            tuple(self.rerolled) if any(self.rerolled) else (),
            tuple(self.values) if changed else (),
            tuple(self.joined) if any(self.joined) else (),
        )


def _select(keep: Keep | None, values: Sequence[Number]) -> list[bool]:
    """Which values count. Among equal values the earlier one is picked first."""
    if keep is None:
        return [True] * len(values)
    if keep.test is not None:
        passing = keep.mode is MODE_MATCHING
        return [keep.test.passes(v) == passing for v in values]
    mode = keep.mode
    high_first = mode is MODE_HIGHEST or mode is MODE_DROP_HIGHEST
    keeping = mode is MODE_HIGHEST or mode is MODE_LOWEST
    if keep.count == 1 and values:  # (`kh1`, `pl1`): the first highest or lowest, as below
        flags = [not keeping] * len(values)
        flags[values.index(max(values) if high_first else min(values))] = keeping
        return flags
    # a stable sort (reversed too) leaves equal values in throw order: earlier first
    order = sorted(range(len(values)), key=values.__getitem__, reverse=high_first)
    flags = [not keeping] * len(values)
    for i in order[: keep.count]:
        flags[i] = keeping
    return flags


def _group_value(group: Dice, values: Sequence[int], kept: list[bool]) -> int:
    if group.success is None and group.failure is None:
        return sum(compress(values, kept))
    return int(_count(group.success, group.failure, values, kept))


def _count(
    success: Success | None,
    failure: Success | None,
    values: Sequence[Number],
    kept: list[bool],
) -> int:
    total = 0
    for value, counts in zip(values, kept, strict=True):
        if counts:
            if success is not None and success.passes(value):
                total += 1
            if failure is not None and failure.passes(value):
                total -= 1
    return total
