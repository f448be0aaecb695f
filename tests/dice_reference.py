"""A brute-force roller of dice trees, for the tests: each modifier written the plainest way,
die by die, with no plan, no shortcut and nothing read ahead. `referee.dice.roll` (the plan)
must throw, flag and total exactly as this does, errors and dice budgets included.

Every group is thrown die by die through `one_die_at_a_time` except one whose dice are never
followed by another throw (no reroll, explosion or `ra`): that is one `throw` of all its dice,
as the real roller does (one verifiable nonce per group).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from referee.dice import Limits, Number
from referee.dice.expr import (
    BinOp,
    Call,
    Const,
    Degrees,
    Dice,
    Explode,
    Expr,
    Keep,
    KeepMode,
    Label,
    Neg,
    Op,
    Pool,
    Success,
)
from referee.dice.rolling import GroupRoll, PoolRoll, RollResult, over_budget
from referee.errors import RuleError
from referee.rng import Rng, Throw
from referee.rng.base import one_die_at_a_time


def reference_roll(expr: Expr, rng: Rng, limits: Limits) -> RollResult:
    """`expr` rolled from `rng` under `limits`, every die counted against `max_dice`."""
    state = _State(rng, limits)
    total = state.value(expr)
    return RollResult(expr, tuple(state.groups), total, tuple(state.pools))


def reference_group(group: Dice, rng: Rng, limits: Limits, budget: list[int]) -> GroupRoll:
    """One group rolled from `rng`, its dice counted down from `budget`."""
    if not (group.explode or group.reroll or group.add_on is not None):
        return _at_once(group, rng, budget)
    if budget[0] < group.count:
        over_budget(group.count, group.sides)
    return _Chains(group, rng, limits, budget).roll()


def select(keep: Keep | None, values: Sequence[Number]) -> list[bool]:
    """Which values count: by rank the N highest or lowest (the earlier of equal values
    first), by test each passing (keep) or failing (drop) it; without a keep every one."""
    if keep is None:
        return [True] * len(values)
    if keep.test is not None:
        passing = keep.mode is KeepMode.MATCHING
        return [keep.test.passes(v) == passing for v in values]
    high_first = keep.mode in (KeepMode.HIGHEST, KeepMode.DROP_HIGHEST)
    keeping = keep.mode in (KeepMode.HIGHEST, KeepMode.LOWEST)
    ranked = sorted(range(len(values)), key=lambda i: (-values[i] if high_first else values[i], i))
    chosen = set(ranked[: keep.count])
    return [(i in chosen) == keeping for i in range(len(values))]


def _worth(
    success: Success | None, failure: Success | None, values: Sequence[Number], kept: Sequence[bool]
) -> Number:
    if success is None and failure is None:
        return sum((v for v, k in zip(values, kept, strict=True) if k), 0)
    hits = sum(1 for v, k in zip(values, kept, strict=True) if k and success and success.passes(v))
    misses = sum(
        1 for v, k in zip(values, kept, strict=True) if k and failure and failure.passes(v)
    )
    return hits - misses


def _clamp(group: Dice, value: int) -> int:
    if group.floor is not None and value < group.floor:
        value = group.floor
    if group.ceiling is not None and value > group.ceiling:
        value = group.ceiling
    return value


def _at_once(group: Dice, rng: Rng, budget: list[int]) -> GroupRoll:
    budget[0] -= group.count
    if budget[0] < 0:
        over_budget(group.count, group.sides)
    first = rng.throw((group.sides,) * group.count)
    faces = first.faces
    values = tuple(_clamp(group, f - 2 if group.fudge else f) for f in faces)
    kept = select(group.keep, values)
    value = _worth(group.success, group.failure, values, kept)
    shown = () if values == faces else values
    return GroupRoll(group, (first,), tuple(kept), (False,) * group.count, value, (), shown, ())


class _Chains:
    """A group whose dice are thrown one by one, each followed by its rerolls and explosions;
    the die `ra` adds right after the first die whose first value passes its test."""

    def __init__(self, group: Dice, rng: Rng, limits: Limits, budget: list[int]) -> None:
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
        self.budget[0] -= 1
        if self.budget[0] < 0:
            over_budget(1, self.group.sides)
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
        """One die and its rerolls; the value it stands at, clamped."""
        group = self.group
        value = self.one()
        most = 1 if group.reroll_once else self.depth
        tries = 0
        while group.reroll and tries < most and any(t.passes(value) for t in group.reroll):
            self.rerolled[-1] = True
            tries += 1
            value = self.one()
        value = _clamp(group, value)
        self.values[-1] = value
        return value

    def unit(self, value: int) -> None:
        self.unit_of[-1] = len(self.units)
        self.units.append(value)

    def explodes(self, value: int) -> bool:
        group = self.group
        if group.explode_on is None:
            return value == (1 if group.fudge else group.sides)
        return group.explode_on.passes(value)

    def roll(self) -> GroupRoll:
        group = self.group
        adding = group.add_on
        for _ in range(group.count):
            value = self.settle()
            self.unit(value)
            first = value
            chain = 0
            while group.explode and chain < self.depth and self.explodes(value):
                self.exploded[-1] = True
                chain += 1
                value = self.settle()
                if group.explode_kind is Explode.COMPOUND:
                    self.joined[-1] = True
                    self.unit_of[-1] = len(self.units) - 1
                    self.units[-1] += value
                elif group.explode_kind is Explode.PENETRATE:
                    self.values[-1] = value - 1
                    self.unit(value - 1)
                else:
                    self.unit(value)
            if adding is not None and adding.passes(first):
                adding = None
                extra = _clamp(group, self.one())
                self.values[-1] = extra
                self.unit(extra)
        kept_units = select(group.keep, self.units)
        value = _worth(group.success, group.failure, self.units, kept_units)
        kept = tuple(u >= 0 and kept_units[u] for u in self.unit_of)
        return GroupRoll(
            group,
            tuple(self.throws),
            kept,
            tuple(self.exploded),
            value,
            tuple(self.rerolled) if any(self.rerolled) else (),
            tuple(self.values) if self.values != self.faces else (),
            tuple(self.joined) if any(self.joined) else (),
        )


def _whole(value: Number) -> Number:
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    return value


def _operate(op: Op, left: Number, right: Number, node: BinOp) -> Number:
    if op in (Op.DIV, Op.FLOORDIV, Op.MOD) and right == 0:
        raise RuleError(f"division by zero in {str(node)!r}: the divisor rolled 0")
    if op is Op.ADD:
        return left + right
    if op is Op.SUB:
        return left - right
    if op is Op.MUL:
        return left * right
    if op is Op.DIV:
        return _whole(Fraction(left) / right)
    if op is Op.FLOORDIV:
        return _whole(left // right)
    if op is Op.MOD:
        rest = abs(left) % abs(right)
        return _whole(-rest if left < 0 else rest)
    compare = {
        Op.EQ: left == right,
        Op.NE: left != right,
        Op.GT: left > right,
        Op.GE: left >= right,
        Op.LT: left < right,
        Op.LE: left <= right,
    }
    return int(compare[op])


def _function(name: str, value: Number) -> Number:
    if name == "floor":
        return math.floor(value)
    if name == "ceil":
        return math.ceil(value)
    if name == "round":
        return math.floor(value + Fraction(1, 2))
    return abs(value)


class _State:
    def __init__(self, rng: Rng, limits: Limits) -> None:
        self.rng = rng
        self.limits = limits
        self.budget = [limits.max_dice]
        self.groups: list[GroupRoll] = []
        self.pools: list[PoolRoll] = []

    def value(self, node: Expr) -> Number:
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Dice):
            rolled = reference_group(node, self.rng, self.limits, self.budget)
            self.groups.append(rolled)
            return rolled.value
        if isinstance(node, Label):
            return self.value(node.operand)
        if isinstance(node, Neg):
            return -self.value(node.operand)
        if isinstance(node, Call):
            return _function(node.function, self.value(node.operand))
        if isinstance(node, BinOp):
            left = self.value(node.left)
            return _operate(node.op, left, self.value(node.right), node)
        if isinstance(node, Pool):
            return self.pool(node)
        assert isinstance(node, Degrees)
        rolled = reference_group(Dice(1, 100), self.rng, self.limits, self.budget)
        value = node.degrees(rolled.faces[0])
        self.groups.append(rolled._replace(value=value))
        return value

    def pool(self, node: Pool) -> Number:
        index = len(self.pools)
        self.pools.append(PoolRoll(node, (), (), 0))  # its place, before any pool inside it
        if node.dice_level:  # roll20's `{4d6+3d8}k4`: keep among every die of the item
            start = len(self.groups)
            self.value(node.items[0])
            rolled = self.groups[start:]
            kept = iter(select(node.keep, [f for g in rolled for f in g.faces]))
            total = 0
            for i, group in enumerate(rolled):
                flags = tuple(next(kept) for _ in group.faces)
                value = sum(f for f, k in zip(group.faces, flags, strict=True) if k)
                self.groups[start + i] = group._replace(kept=flags, value=value)
                total += value
            self.pools[index] = PoolRoll(node, (total,), (True,), total)
            return total
        values = tuple(self.value(item) for item in node.items)
        flags = select(node.keep, values)
        value = _whole(_worth(node.success, node.failure, values, flags))
        self.pools[index] = PoolRoll(node, values, tuple(flags), value)
        return value
