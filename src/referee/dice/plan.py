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
from referee.dice.dialects import DEFAULT_DIALECT, DIALECTS, Dialect
from referee.dice.expr import (
    BinOp,
    Call,
    Const,
    Dice,
    Expr,
    Label,
    Neg,
    Number,
    Pool,
)
from referee.dice.group_plans import Groups, Pools, Step, chooser, dice_step
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.dice.members import (
    OP_ADD,
    OP_FLOORDIV,
    OP_MUL,
    OP_SUB,
)
from referee.dice.parser import _parse_in, parse_cached
from referee.dice.rolling import (
    _PENDING,
    PoolRoll,
    RollResult,
    _call,
    _count,
    _new,
    apply,
    roll,
)
from referee.errors import RefereeError
from referee.rng import Rng, ScriptedRng

Plan = Callable[[Rng], RollResult]


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
    if type(text) is str and limits is DEFAULT_LIMITS:
        name = dialect if type(dialect) is str else _registered(dialect)
        if name is not None:
            return _planned(text, name)(rng)
    return roll(parse_cached(text, limits, dialect=dialect), rng=rng, limits=limits)


def _registered(dialect: object) -> str | None:
    """The name of a dialect that is one of `DIALECTS` (the default among them), else None."""
    name = getattr(dialect, "name", None)
    return name if type(name) is str and DIALECTS.get(name) is dialect else None


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
        return dice_step(node)  # type: ignore[arg-type]
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
    choose = None if node.keep is None else chooser(node.keep)
    success, failure = node.success, node.failure
    summed = success is None and failure is None
    every = (True,) * many

    def pooled(rng: Rng, groups: Groups, pools: Pools) -> Number:
        index = len(pools)
        pools.append(_PENDING)  # its place, before any pool inside it
        rolled = []
        for step in steps:  # (a loop: a list comprehension is a call of its own)
            rolled.append(step(rng, groups, pools))
        values = tuple(rolled)
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
