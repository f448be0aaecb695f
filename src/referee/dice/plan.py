"""Rolling a tree: the tree made into a plan, one small function per node, run on a source.

`roll(expr, rng=...)` is `plan(expr)(rng)`: the plan reads once what every roll needs of the
tree (each group's step, `referee.dice.groups`; each operator; the values of the parts that
throw nothing) and then throws. A tree whose worst case fits the dice limit counts no dice;
one whose worst case could pass it counts every die as it is thrown, and the die that would
pass it is refused before it is thrown. `roll_text` keeps the plans of the last 512 texts.

>>> from referee.dice import parse
>>> from referee.rng import ScriptedRng
>>> result = roll(parse("2d20+1d6"), rng=ScriptedRng([14, 3, 5]))
>>> str(result)
'2d20+1d6 = [14, 3] + [5] = 22'
>>> roll_text("4d6k3", rng=ScriptedRng([3, 1, 3, 6]), dialect="d20").total
6
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from itertools import compress
from typing import Any

from referee.dice.bounds import whole
from referee.dice.dialects import DEFAULT_DIALECT, DIALECTS, Dialect
from referee.dice.expr import BinOp, Call, Const, Degrees, Dice, Expr, Label, Neg, Number, Op, Pool
from referee.dice.groups import (
    Budget,
    Groups,
    Kernel,
    Pools,
    Step,
    chooser,
    counted,
    degrees_step,
    group_step,
)
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.dice.parser import parse_cached
from referee.dice.rolling import GroupRoll, PoolRoll, RollResult, apply, call
from referee.errors import RefereeError
from referee.rng import Rng

_FLOORDIV = Op.FLOORDIV

_result, _pool_rolled = RollResult._make, PoolRoll._make
"""A roll's and a pool's record from their fields (the named tuples' own makers: cheaper to
call than their constructors, which take them by name)."""

Plan = Callable[[Rng], RollResult]
"""A tree made ready to roll: one roll of it from a source."""


def roll(expr: Expr, *, rng: Rng, limits: Limits = DEFAULT_LIMITS) -> RollResult:
    """Roll a parsed expression with dice from `rng`: its plan (`plan`), made and run once.

    `limits` caps explosion chains and rerolls (`max_explode_depth`) and, as a last guard
    when the tree was parsed under other limits, the dice thrown (`max_dice`).

    >>> from referee.dice import parse
    >>> from referee.rng import ScriptedRng
    >>> roll(parse("4d6kh3"), rng=ScriptedRng([6, 1, 5, 4])).total
    15
    """
    try:
        kernel, facts, most = _STEPS[type(expr)](expr, limits.max_explode_depth)
    except KeyError:
        raise AssertionError(f"not a dice expression: {expr!r}") from None
    groups: Groups = []
    pools: Pools = []
    budget = [limits.max_dice] if most > limits.max_dice else None
    total = kernel(facts, rng, groups, pools, budget)
    return _result((expr, tuple(groups), total, tuple(pools)))


def roll_group(
    group: Dice, rng: Rng, limits: Limits = DEFAULT_LIMITS, budget: list[int] | None = None
) -> GroupRoll:
    """Roll one dice group; `budget` (a one-item list), when given, is the dice it may throw,
    counted down as they are thrown.

    >>> from referee.rng import ScriptedRng
    >>> roll_group(Dice(2, 6, explode=True), ScriptedRng([6, 2, 3])).faces
    (6, 2, 3)
    """
    groups: Groups = []
    kernel, facts, _ = group_step(group, limits.max_explode_depth)
    kernel(facts, rng, groups, [], budget)
    return groups[0]


def roll_text(
    text: str,
    *,
    rng: Rng,
    limits: Limits = DEFAULT_LIMITS,
    dialect: str | Dialect = DEFAULT_DIALECT,
) -> RollResult:
    """Parse (through the cache) and roll in one call; the plans of the last 512 texts read
    under the default limits in a registered dialect are kept.

    >>> from referee.rng import ScriptedRng
    >>> roll_text("d%", rng=ScriptedRng([100])).total
    100
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
    return plan(parse_cached(text, dialect=dialect))


def plan(expr: Expr, limits: Limits = DEFAULT_LIMITS) -> Plan:
    """The plan that rolls `expr` under `limits`. A tree that throws no dice has one result,
    worked out once.

    >>> from referee.dice import parse
    >>> from referee.rng import ScriptedRng
    >>> plan(parse("4d6kh3+2"))(ScriptedRng([6, 1, 5, 4])).total
    17
    """
    kernel, facts, most = _top_step(expr, limits)
    if most == 0:
        pools: Pools = []
        result = RollResult(expr, (), kernel(facts, _NO_DICE, [], pools, None), tuple(pools))

        def fixed(rng: Rng) -> RollResult:
            return result

        return fixed
    allowed = limits.max_dice if most > limits.max_dice else None

    def rolled(rng: Rng) -> RollResult:
        groups: Groups = []
        pools: Pools = []
        total = kernel(facts, rng, groups, pools, None if allowed is None else [allowed])
        return _result((expr, tuple(groups), total, tuple(pools)))

    return rolled


def _top_step(expr: Expr, limits: Limits) -> Compiled:
    """The step of a whole tree and the most dice it may throw."""
    try:
        make = _STEPS[type(expr)]
    except KeyError:
        raise AssertionError(f"not a dice expression: {expr!r}") from None
    return make(expr, limits.max_explode_depth)


class _NoDice:
    """The source of a tree that throws no dice: never asked."""

    def throw(self, sides: object) -> object:  # pragma: no cover
        raise AssertionError("a tree without dice threw one")


_NO_DICE: Rng = _NoDice()  # type: ignore[assignment]

Compiled = tuple[Kernel, Any, int]
"""A node's step (its kernel and facts) and the most dice it can throw, every reroll and
explosion included: one flat triple."""


def _number(value: Number, rng: Rng, groups: Groups, pools: Pools, budget: Budget) -> Number:
    """A part of the tree that throws nothing and holds no pool: its one value."""
    return value


def _const_step(node: Const, depth: int) -> Compiled:
    return _number, node.value, 0


def _label_step(node: Label, depth: int) -> Compiled:
    operand = node.operand
    return _STEPS[type(operand)](operand, depth)


def _degrees_step(node: Degrees, depth: int) -> Compiled:
    return degrees_step(node)


def _neg_step(node: Neg, depth: int) -> Compiled:
    operand = node.operand
    kernel, facts, most = _STEPS[type(operand)](operand, depth)
    if kernel is _number:
        return _number, -facts, most
    return _negated, (kernel, facts), most


def _negated(inner: Step, rng: Rng, groups: Groups, pools: Pools, budget: Budget) -> Number:
    return -inner[0](inner[1], rng, groups, pools, budget)


def _call_step(node: Call, depth: int) -> Compiled:
    operand, function = node.operand, node.function
    kernel, facts, most = _STEPS[type(operand)](operand, depth)
    if kernel is _number:
        return _number, call(function, facts), most
    return _called, (function, (kernel, facts)), most


def _called(
    facts: tuple[str, Step], rng: Rng, groups: Groups, pools: Pools, budget: Budget
) -> Number:
    function, (kernel, inner) = facts
    return call(function, kernel(inner, rng, groups, pools, budget))


def _binop_step(node: BinOp, depth: int) -> Compiled:
    left, right, op = node.left, node.right, node.op
    first, first_facts, left_most = _STEPS[type(left)](left, depth)
    then, then_facts, right_most = _STEPS[type(right)](right, depth)
    most = left_most + right_most
    combine = _COMBINE.get(id(op)) or functools.partial(_other, op, node)
    if first is _number and then is _number:
        try:
            return _number, combine(first_facts, then_facts), most
        except RefereeError:  # (a tree built by hand that divides by 0: refused when rolled)
            pass
    if then is _number:
        return _number_after, (combine, first, first_facts, then_facts), most
    if first is _number:
        return _number_before, (combine, first_facts, then, then_facts), most
    return _both, (combine, first, first_facts, then, then_facts), most


_COMBINE: dict[int, Callable[[Number, Number], Number]] = {
    id(Op.ADD): operator.add,
    id(Op.SUB): operator.sub,
    id(Op.MUL): operator.mul,
}
"""The operators whose values combine as Python's do, by their member's id (a member is one
object; hashing it runs Python code, `Enum.__hash__`)."""


def _other(op: Op, node: BinOp, left: Number, right: Number) -> Number:
    """What a binary node other than `+ - *` does with the values of its sides (`apply`;
    `//` of whole numbers without its call)."""
    if op is _FLOORDIV and right and type(left) is int and type(right) is int:
        return left // right
    return apply(op, left, right, node)


def _both(facts: tuple[Any, ...], rng: Rng, groups: Groups, pools: Pools, budget: Budget) -> Number:
    combine, first, first_facts, then, then_facts = facts
    left = first(first_facts, rng, groups, pools, budget)
    value: Number = combine(left, then(then_facts, rng, groups, pools, budget))
    return value


def _number_after(
    facts: tuple[Any, ...], rng: Rng, groups: Groups, pools: Pools, budget: Budget
) -> Number:
    combine, first, first_facts, number = facts
    value: Number = combine(first(first_facts, rng, groups, pools, budget), number)
    return value


def _number_before(
    facts: tuple[Any, ...], rng: Rng, groups: Groups, pools: Pools, budget: Budget
) -> Number:
    combine, number, then, then_facts = facts
    value: Number = combine(number, then(then_facts, rng, groups, pools, budget))
    return value


def _pool_step(node: Pool, depth: int) -> Compiled:
    steps = []
    most = 0
    for item in node.items:
        kernel, facts, item_most = _STEPS[type(item)](item, depth)
        steps.append((kernel, facts))
        most += item_most
    keep = node.keep
    choose = None if keep is None else chooser(keep)
    if node.dice_level:
        return _dice_pooled, (node, steps[0], choose), most
    every = (True,) * len(steps)
    return _pooled, (node, tuple(steps), choose, node.success, node.failure, every), most


def _pooled(
    facts: tuple[Any, ...], rng: Rng, groups: Groups, pools: Pools, budget: Budget
) -> Number:
    node, steps, choose, success, failure, every = facts
    index = len(pools)
    pools.append(_PENDING)  # its place, before any pool inside it
    rolled = []
    for kernel, inner in steps:  # (a loop: a list comprehension is a call of its own)
        rolled.append(kernel(inner, rng, groups, pools, budget))
    values = tuple(rolled)
    kept = every if choose is None else tuple(choose(values))
    value: Number
    if success is None and failure is None:
        value = sum(compress(values, kept), 0)
        if type(value) is not int:
            value = whole(value)
    else:
        value = counted(success, failure, values, kept)
    pools[index] = _pool_rolled((node, values, kept, value))
    return value


_PENDING = PoolRoll(Pool(()), (), (), 0)
"""A pool's place in the roll until it is rolled (the pools inside it come after)."""


def _dice_pooled(
    facts: tuple[Any, ...], rng: Rng, groups: Groups, pools: Pools, budget: Budget
) -> Number:
    """roll20's `{4d6+3d8}k4`: keep or drop among every die of the one item."""
    node, (kernel, item), choose = facts
    index, start = len(pools), len(groups)
    pools.append(PoolRoll(node, (), (), 0))
    kernel(item, rng, groups, pools, budget)
    rolled = groups[start:]
    faces = [face for group in rolled for face in group.faces]
    kept = iter([True] * len(faces) if choose is None else choose(faces))
    total = 0
    for i, group in enumerate(rolled):
        flags = tuple(next(kept) for _ in group.faces)
        value = sum(compress(group.faces, flags))
        groups[start + i] = group._replace(kept=flags, value=value)
        total += value
    pools[index] = PoolRoll(node, (total,), (True,), total)
    return total


_STEPS: dict[type, Callable[[Any, int], Compiled]] = {
    Const: _const_step,
    Dice: group_step,
    BinOp: _binop_step,
    Label: _label_step,
    Neg: _neg_step,
    Call: _call_step,
    Pool: _pool_step,
    Degrees: _degrees_step,
}
"""How each type of node is made into its step."""
