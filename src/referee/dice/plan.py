"""Rolling a text again: its tree made once into a plan, the calls that roll it.

`roll_text` parses through a cache, and keeps with each tree its plan: one small function
per node, with everything `roll` decides about the node afresh on every roll (which group
roller, the reroll and explosion ranges, the sizes thrown, how keep chooses) decided once.
A roll by plan throws the same dice from the source in the same order and gives the same
result as `roll` under the default limits; a tree whose worst case could pass the dice
limit, or with a node the plans leave to `roll`, is rolled by `roll`.

>>> from referee.rng import ScriptedRng
>>> result = roll_text("2d20+1d6", rng=ScriptedRng([14, 3, 5]))
>>> str(result)
'2d20+1d6 = [14, 3] + [5] = 22'
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from itertools import compress

from referee.dice.bounds import whole
from referee.dice.dialects import DEFAULT_DIALECT, Dialect
from referee.dice.expr import (
    BinOp,
    Call,
    Const,
    Dice,
    Expr,
    Keep,
    Label,
    Neg,
    Number,
    Pool,
    Success,
)
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.dice.members import (
    CMP_EQ,
    CMP_GE,
    CMP_LE,
    EXPLODE_EACH,
    MODE_DROP_HIGHEST,
    MODE_HIGHEST,
    MODE_LOWEST,
    MODE_MATCHING,
    OP_ADD,
    OP_FLOORDIV,
    OP_MUL,
    OP_SUB,
)
from referee.dice.parser import _parse_in, parse_cached
from referee.dice.rolling import (
    _KEEP_TAIL,
    _PENDING,
    GroupRoll,
    PoolRoll,
    RollResult,
    _call,
    _count,
    _group_value,
    _new,
    _select,
    apply,
    roll,
    roll_group,
)
from referee.errors import RefereeError
from referee.rng import Rng, ScriptedRng, Throw
from referee.rng.base import one_die_at_a_time

Groups = list[GroupRoll]
Pools = list[PoolRoll]
Step = Callable[[Rng, Groups, Pools], Number]
"""One node of a plan: rolls it from the source, adding its groups and pools in order."""
Plan = Callable[[Rng], RollResult]
Choose = Callable[[Sequence[Number]], list[bool]]


def roll_text(
    text: str,
    *,
    rng: Rng,
    limits: Limits = DEFAULT_LIMITS,
    dialect: str | Dialect = DEFAULT_DIALECT,
) -> RollResult:
    """Parse (through the cache) and roll in one call.

    >>> from referee.rng import ScriptedRng
    >>> roll_text("d%", rng=ScriptedRng([100])).total
    100
    >>> roll_text("4d6k3", rng=ScriptedRng([3, 1, 3, 6]), dialect="d20").total
    6
    """
    if type(text) is str and limits is DEFAULT_LIMITS and type(dialect) is str:
        return _planned(text, dialect)(rng)
    return roll(parse_cached(text, limits, dialect=dialect), rng=rng, limits=limits)


@functools.lru_cache(maxsize=512)
def _planned(text: str, dialect: str) -> Plan:
    """The plan of the tree `parse_cached` gives (from its cache), or `roll` of the tree."""
    expr = _parse_in(text, dialect)  # what parse_cached would look up
    found = plan(expr)
    if found is not None:
        return found

    def by_roll(rng: Rng) -> RollResult:
        return roll(expr, rng=rng)

    return by_roll


def plan(expr: Expr) -> Plan | None:
    """The plan that rolls `expr` as `roll(expr, rng=rng)` does, under the default limits;
    None where `roll` should: a tree whose worst case could pass the dice limit, or with a
    node plans leave to `roll`. A tree that throws no dice rolls its one result.

    >>> from referee.dice import parse
    >>> from referee.rng import ScriptedRng
    >>> plan(parse("4d6kh3+2"))(ScriptedRng([6, 1, 5, 4])).total
    17
    """
    most = _most_dice(expr)
    if most == 0:
        return _fixed(expr)
    if most is None or most > DEFAULT_LIMITS.max_dice:
        return None
    top = _step(expr)
    if top is None:
        return None
    if callable(top):
        return _whole(expr, top)
    return None  # pragma: no cover (a tree that throws dice has a step)


def _fixed(expr: Expr) -> Plan | None:
    """A tree without dice rolls one (frozen) result, whatever the source: rolled once."""
    try:
        result = roll(expr, rng=ScriptedRng(()))
    except RefereeError:  # pragma: no cover (the parser refuses a divisor that can be 0)
        return None

    def fixed(rng: Rng) -> RollResult:
        return result

    return fixed


def _whole(expr: Expr, top: Step) -> Plan:
    def rolled(rng: Rng) -> RollResult:
        groups: Groups = []
        pools: Pools = []
        total = top(rng, groups, pools)
        return _new(RollResult, (expr, tuple(groups), total, tuple(pools)))

    return rolled


def _most_dice(node: Expr) -> int | None:
    """The most dice a roll of the tree can throw (None: a node plans leave to `roll`)."""
    kind = type(node)
    if kind is Dice:
        return node.most_dice(DEFAULT_LIMITS.max_explode_depth)  # type: ignore[union-attr]
    if kind is Const:
        return 0
    if kind is BinOp:
        left, right = _most_dice(node.left), _most_dice(node.right)  # type: ignore[union-attr]
        return None if left is None or right is None else left + right
    if kind is Neg or kind is Label or kind is Call:
        return _most_dice(node.operand)  # type: ignore[union-attr]
    if kind is Pool and not node.dice_level:  # type: ignore[union-attr]
        found = [_most_dice(item) for item in node.items]  # type: ignore[union-attr]
        return None if None in found else sum(found)  # type: ignore[arg-type]
    return None  # a dice-level pool, degrees of success: `roll`


def _step(node: Expr) -> Step | Number | None:
    """A node's step, or its value where it throws nothing (None: left to `roll`)."""
    kind = type(node)
    if kind is Const:
        return node.value  # type: ignore[union-attr]
    if kind is Dice:
        return _dice_step(node)  # type: ignore[arg-type]
    if kind is Label:
        return _step(node.operand)  # type: ignore[union-attr]
    if kind is BinOp:
        return _binop_step(node)  # type: ignore[arg-type]
    if kind is Neg:
        return _neg_step(node)  # type: ignore[arg-type]
    if kind is Call:
        return _call_step(node)  # type: ignore[arg-type]
    if kind is Pool:
        return _pool_step(node)  # type: ignore[arg-type]
    return None


def _as_step(found: Step | Number) -> Step:
    if callable(found):
        return found

    def constant(rng: Rng, groups: Groups, pools: Pools) -> Number:
        return found

    return constant


def _neg_step(node: Neg) -> Step | Number | None:
    inner = _step(node.operand)
    if inner is None or not callable(inner):
        return inner if inner is None else -inner

    def negated(rng: Rng, groups: Groups, pools: Pools) -> Number:
        return -inner(rng, groups, pools)

    return negated


def _call_step(node: Call) -> Step | None:
    inner = _step(node.operand)
    if inner is None:
        return None
    operand, function = _as_step(inner), node.function

    def called(rng: Rng, groups: Groups, pools: Pools) -> Number:
        return _call(function, operand(rng, groups, pools))

    return called


def _combine(node: BinOp) -> Callable[[Number, Number], Number]:
    """What `_State.binop` does with the two values of a binary node."""
    op = node.op
    if op is OP_ADD:
        return operator.add
    if op is OP_SUB:
        return operator.sub
    if op is OP_MUL:
        return operator.mul

    def other(left: Number, right: Number) -> Number:
        if op is OP_FLOORDIV and right and type(left) is int and type(right) is int:
            return left // right
        return apply(op, left, right, node)

    return other


def _binop_step(node: BinOp) -> Step | None:
    left, right = _step(node.left), _step(node.right)
    if left is None or right is None:
        return None
    combine = _combine(node)
    if callable(left) and callable(right):
        first, then = left, right

        def both(rng: Rng, groups: Groups, pools: Pools) -> Number:
            return combine(first(rng, groups, pools), then(rng, groups, pools))

        return both
    if callable(left):
        rolled, number = left, right

        def left_rolled(rng: Rng, groups: Groups, pools: Pools) -> Number:
            return combine(rolled(rng, groups, pools), number)  # type: ignore[arg-type]

        return left_rolled
    other, fixed = _as_step(right), left

    def right_rolled(rng: Rng, groups: Groups, pools: Pools) -> Number:
        return combine(fixed, other(rng, groups, pools))

    return right_rolled


def _pool_step(node: Pool) -> Step | None:
    if node.dice_level:
        return None
    found = [_step(item) for item in node.items]
    if None in found:
        return None
    steps = tuple(_as_step(item) for item in found)  # type: ignore[arg-type]
    many = len(steps)
    choose = None if node.keep is None else _chooser(node.keep)
    success, failure = node.success, node.failure
    summed = success is None and failure is None
    every = (True,) * many

    def pooled(rng: Rng, groups: Groups, pools: Pools) -> Number:
        index = len(pools)
        pools.append(_PENDING)  # its place, before any pool inside it
        values = tuple([step(rng, groups, pools) for step in steps])
        kept: Sequence[bool] = every if choose is None else choose(values)
        value: Number
        if summed:
            value = sum(compress(values, kept), 0)
            if type(value) is not int:
                value = whole(value)
        else:
            value = _count(success, failure, values, kept)  # type: ignore[arg-type]
        pools[index] = _new(PoolRoll, (node, values, tuple(kept), value))
        return value

    return pooled


def _chooser(keep: Keep | None) -> Choose:
    """`_select(keep, values)`, with what it asks of `keep` asked once."""
    if keep is None:
        return functools.partial(_select, keep)
    if keep.test is not None:
        return _by_test(keep, keep.test)
    mode = keep.mode
    keeping = mode is MODE_HIGHEST or mode is MODE_LOWEST
    if keep.count != 1:
        return _by_rank(keep.count, mode is MODE_HIGHEST or mode is MODE_DROP_HIGHEST, keeping)
    best = max if mode is MODE_HIGHEST or mode is MODE_DROP_HIGHEST else min
    others = [not keeping]

    def one(values: Sequence[Number]) -> list[bool]:
        if not values:
            return []
        flags = others * len(values)
        flags[values.index(best(values))] = keeping
        return flags

    return one


def _by_rank(count: int, high_first: bool, keeping: bool) -> Choose:
    """`_select` of a keep by rank (`kh3`, `ph2`): the `count` highest or lowest values
    are kept (or dropped), the earlier of equal values first."""

    def by_rank(values: Sequence[Number]) -> list[bool]:
        # a stable sort (reversed too) leaves equal values in throw order: earlier first
        order = sorted(range(len(values)), key=values.__getitem__, reverse=high_first)
        flags = [not keeping] * len(values)
        for i in order[:count]:
            flags[i] = keeping
        return flags

    return by_rank


_PASSES = {CMP_GE: operator.ge, CMP_LE: operator.le, CMP_EQ: operator.eq}
_FAILS = {CMP_GE: operator.lt, CMP_LE: operator.gt, CMP_EQ: operator.ne}


def _by_test(keep: Keep, test: Success) -> Choose:
    """`_select` of a keep by test (`k>3`, `p<2`): each value kept where it passes (keep) or
    fails (drop) the test."""
    compare = (_PASSES if keep.mode is MODE_MATCHING else _FAILS)[test.compare]
    target = test.target

    def by_test(values: Sequence[Number]) -> list[bool]:
        return [compare(value, target) for value in values]

    return by_test


def _dice_step(group: Dice) -> Step:
    """The step of one group: `roll_group`'s choice of roller, made once."""
    if group[4:] == _KEEP_TAIL and group[2] is False:  # plain, or keeps only (`4d6kh3`)
        return _thrown_at_once(group)
    explode, reroll, add_on = group.explode, group.reroll, group.add_on
    chains = explode or reroll or add_on is not None
    counted = group.success is not None or group.failure is not None
    if group.fudge:
        return _by_roll_group(group)
    if group.floor is not None or group.ceiling is not None:  # values not always faces
        return _by_roll_group(group) if chains or counted else _clamped(group)
    if not chains:
        return _by_roll_group(group)
    if not explode and add_on is None:
        span = _reroll_span(group)
        return _by_roll_group(group) if span is None else _rerolled(group, span)
    if not reroll and add_on is None and group.explode_kind is EXPLODE_EACH:
        return _exploded(group)
    if not explode and not reroll:
        return _added(group)
    return _by_roll_group(group)


def _by_roll_group(group: Dice) -> Step:
    def rolled(rng: Rng, groups: Groups, pools: Pools) -> Number:
        found = roll_group(group, rng)  # (the worst case fits: no dice counted)
        groups.append(found)
        return found[4]

    return rolled


def _thrown_at_once(group: Dice) -> Step:
    """A group without modifiers, or that only keeps: one throw of all its dice."""
    count = group.count
    sizes = (group.sides,) * count
    every = (True,) * count
    none = (False,) * count
    keep = group.keep
    if keep is None:

        def summed(rng: Rng, groups: Groups, pools: Pools) -> Number:
            first = rng.throw(sizes)
            value = sum(first[1])
            groups.append(_new(GroupRoll, (group, (first,), every, none, value, (), (), ())))
            return value

        return summed
    choose = _chooser(keep)

    def kept(rng: Rng, groups: Groups, pools: Pools) -> Number:
        first = rng.throw(sizes)
        faces = first[1]
        flags = choose(faces)
        value = sum(compress(faces, flags))
        rolled = (group, (first,), tuple(flags), none, value, (), (), ())
        groups.append(_new(GroupRoll, rolled))
        return value

    return kept


def _reroll_span(group: Dice) -> tuple[int, int] | None:
    """The values a die of `group` is thrown again on, as one range where its tests' ranges
    meet (as `rolling._rerolled` finds it); None where they leave a gap."""
    ranges = sorted([test.passing_range() for test in group.reroll])
    low, high = ranges[0]
    for start, stop in ranges[1:]:
        if start > high + 1:
            return None
        high = max(high, stop)
    return low, high


def _rerolled(group: Dice, span: tuple[int, int]) -> Step:
    """`rolling._rerolled` (and `_rerolled_once`) where each value is its face and the
    rerolls are one range: each die thrown on its own, followed at once by its rerolls."""
    count, sides = group.count, group.sides
    low, high = span
    most = 1 if group.reroll_once else DEFAULT_LIMITS.max_explode_depth
    success, failure = group.success, group.failure
    counted = success is not None or failure is not None
    choose = None if group.keep is None and not counted else _chooser(group.keep)
    every = (True,) * count
    none = (False,) * count

    def rerolled_group(rng: Rng, groups: Groups, pools: Pools) -> Number:
        throw = one_die_at_a_time(rng, sides)
        throws: list[Throw] = []
        units: list[int] = []  # the face each die stands at
        again: list[int] = []  # the throws that were thrown again
        for _ in range(count):
            thrown = throw()
            face = thrown[1][0]
            if low <= face <= high:
                again.append(len(throws))
                throws.append(thrown)
                thrown = throw()
                face = thrown[1][0]
                tries = 1  # (`ro`: at most once)
                while tries < most and low <= face <= high:
                    tries += 1
                    again.append(len(throws))
                    throws.append(thrown)
                    thrown = throw()
                    face = thrown[1][0]
            throws.append(thrown)
            units.append(face)
        many = len(throws)
        if choose is None:
            value = sum(units)
            kept_units = [True] * count if again else every
        else:
            kept_units = choose(units)
            if counted:
                value = int(_count(success, failure, units, kept_units))
            else:
                value = sum(compress(units, kept_units))
        if not again:
            standing = (group, tuple(throws), tuple(kept_units), none, value, (), (), ())
            groups.append(_new(GroupRoll, standing))
            return value
        rerolled = [False] * many
        kept = list(kept_units)  # a thrown-again die does not count: its flag put in its place
        for i in again:  # (in throw order, so each goes where it was thrown)
            rerolled[i] = True
            kept.insert(i, False)
        flags = (False,) * many
        rolled = (group, tuple(throws), tuple(kept), flags, value, tuple(rerolled), (), ())
        groups.append(_new(GroupRoll, rolled))
        return value

    return rerolled_group


def _clamped(group: Dice) -> Step:
    """A group that only clamps (d20's `mi`, `ma`) and keeps: one throw, as `roll_group`."""
    count, sides, floor, ceiling = group.count, group.sides, group.floor, group.ceiling
    sizes = (sides,) * count
    every = (True,) * count
    none = (False,) * count
    low = -1 if floor is None else floor
    high = max(sides, low) if ceiling is None else ceiling  # a floor may pass the top
    keep = group.keep
    choose = _chooser(keep)
    # min(max(face, low), high) for each face, in C: up to the floor (no face passes the
    # top, so not down to it without a ceiling), then down to the ceiling
    lows, highs = (low,) * count, (high,) * count

    def clamped(rng: Rng, groups: Groups, pools: Pools) -> Number:
        first = rng.throw(sizes)
        faces = first[1]
        if ceiling is None:
            values = tuple(map(max, faces, lows))
        elif floor is None:
            values = tuple(map(min, faces, highs))
        else:
            values = tuple(map(min, map(max, faces, lows), highs))
        if keep is None:
            kept = every
            value = sum(values)
        else:
            flags = choose(values)
            value = sum(compress(values, flags))
            kept = tuple(flags)
        changed = () if values == faces else values
        groups.append(_new(GroupRoll, (group, (first,), kept, none, value, (), changed, ())))
        return value

    return clamped


def _exploded(group: Dice) -> Step:
    """`rolling._exploded` where each value is its face: each die thrown on its own,
    followed at once by its explosions."""
    count, sides, on = group.count, group.sides, group.explode_on
    low, high = (sides, sides) if on is None else on.passing_range()
    depth = DEFAULT_LIMITS.max_explode_depth
    summed = group.keep is None and group.success is None and group.failure is None
    choose = _chooser(group.keep)
    every = (True,) * count
    none = (False,) * count

    def exploded_group(rng: Rng, groups: Groups, pools: Pools) -> Number:
        throw = one_die_at_a_time(rng, sides)
        throws: list[Throw] = []
        faces: list[int] = []
        burst: list[int] = []  # the throws that exploded
        for _ in range(count):
            thrown = throw()
            face = thrown[1][0]
            if low <= face <= high:
                chain = 0
                while chain < depth and low <= face <= high:
                    chain += 1
                    burst.append(len(throws))
                    throws.append(thrown)
                    faces.append(face)
                    thrown = throw()
                    face = thrown[1][0]
            throws.append(thrown)
            faces.append(face)
        exploded = none
        if burst:
            flags = [False] * len(faces)
            for i in burst:
                flags[i] = True
            exploded = tuple(flags)
        kept: tuple[bool, ...]
        if summed:
            value = sum(faces)
            kept = (True,) * len(faces) if burst else every
        else:
            chosen = choose(faces)
            value = _group_value(group, faces, chosen)
            kept = tuple(chosen)
        rolled = (group, tuple(throws), kept, exploded, value, (), (), ())
        groups.append(_new(GroupRoll, rolled))
        return value

    return exploded_group


def _added(group: Dice) -> Step:
    """`rolling._added` where each value is its face (d20's `7d12ra12`): the first die
    passing the test is followed at once by one more."""
    count, sides = group.count, group.sides
    low, high = group.add_on.passing_range()  # type: ignore[union-attr]
    summed = group.keep is None and group.success is None and group.failure is None
    choose = _chooser(group.keep)
    every = {count: (True,) * count, count + 1: (True,) * (count + 1)}
    none = {count: (False,) * count, count + 1: (False,) * (count + 1)}

    def added(rng: Rng, groups: Groups, pools: Pools) -> Number:
        throw = one_die_at_a_time(rng, sides)
        throws: list[Throw] = []
        faces: list[int] = []
        adding_low, adding_high = low, high
        for _ in range(count):
            thrown = throw()
            throws.append(thrown)
            face = thrown[1][0]
            faces.append(face)
            if adding_low <= face <= adding_high:
                adding_low, adding_high = 1, 0  # (no value passes any more)
                thrown = throw()
                throws.append(thrown)
                faces.append(thrown[1][0])
        many = len(faces)
        kept: tuple[bool, ...]
        if summed:
            value = sum(faces)
            kept = every[many]
        else:
            chosen = choose(faces)
            value = _group_value(group, faces, chosen)
            kept = tuple(chosen)
        rolled = (group, tuple(throws), kept, none[many], value, (), (), ())
        groups.append(_new(GroupRoll, rolled))
        return value

    return added
