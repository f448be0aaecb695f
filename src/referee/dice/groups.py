"""One dice group rolled: what each modifier means, each written once.

A group whose dice are never followed by more throws (plain, or one that only keeps, clamps,
counts or is Fudge) is ONE `rng.throw` of all its dice: one verifiable nonce. Any other
(rerolls, explosions, d20's `ra`) is thrown die by die, each die followed at once by its
rerolls and explosions, and the die `ra` adds right after the first die that passes. Then,
either way, a face becomes a value (Fudge -1..1, clamped by `DiceFields.clamp`), keep or
drop picks the dice that count (`chooser`), and the group is worth their sum or, with a
success test, how many pass it less how many pass its failure test (`counted`).

`group_step` reads once what a roll of the group needs of it (which way it is thrown, the
values that reroll, explode or add a die, how keep chooses) and gives the step that rolls it
(`referee.dice.plan` makes a whole tree of such steps).

>>> from referee.dice import parse
>>> from referee.rng import ScriptedRng
>>> kernel, facts, most = group_step(parse("4d6kh3"), 20)
>>> groups = []
>>> kernel(facts, ScriptedRng([6, 1, 5, 4]), groups, [], None), most
(15, 4)
>>> groups[0].kept
(True, False, True, True)
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from itertools import compress
from typing import Any

from referee.dice.expr import Degrees, Dice, Explode, Keep, KeepMode, Number, Success
from referee.dice.rolling import GroupRoll, PoolRoll, over_budget
from referee.dice.tree import EVERY
from referee.rng import Rng, Throw
from referee.rng.base import one_die_at_a_time

_HIGHEST, _LOWEST = KeepMode.HIGHEST, KeepMode.LOWEST
_DROP_HIGHEST, _MATCHING = KeepMode.DROP_HIGHEST, KeepMode.MATCHING
_COMPOUND, _PENETRATE = Explode.COMPOUND, Explode.PENETRATE

Choose = Callable[[Sequence[Number]], list[bool]]
"""Which of some values count (keep or drop), in their order."""


_rolled = GroupRoll._make
"""A group's record from its eight fields (the named tuple's own maker: cheaper to call than
its constructor, which takes them by name)."""

Groups = list[GroupRoll]
Pools = list[PoolRoll]
Budget = list[int] | None
"""The dice a roll may still throw (one number, counted down), or None where the tree's worst
case fits its limit and nothing is counted."""
Kernel = Callable[[Any, Rng, Groups, Pools, Budget], Number]
"""Rolls one kind of node: `kernel(facts, rng, groups, pools, budget)`, from the source,
adding the node's groups and pools (in the order rolled) and counting its dice; its value."""
Step = tuple[Kernel, Any]
"""One node of a plan: its kernel and the facts the kernel needs of the node, read once (a
pair is cheaper to make than a function over them, which a tree read once and rolled once
would make for every node)."""


def chooser(keep: Keep | None) -> Choose | None:
    """Which values a keep or drop counts (None: every one). By rank the N highest or lowest
    are kept (or dropped), the earlier of equal values first; by test, each value passing
    (keep) or failing (drop) it.

    >>> from referee.dice.expr import Compare
    >>> chooser(Keep(KeepMode.HIGHEST, 2))([5, 6, 5, 5])
    [True, True, False, False]
    >>> chooser(Keep(KeepMode.NOT_MATCHING, 0, Success.of(Compare.LT, 3)))([1, 4])
    [False, True]
    """
    if keep is None:
        return None
    found = _CHOOSERS.get(id(keep))  # (the keeps `Keep.of` makes are shared by every tree)
    if found is not None and found[0] is keep:
        return found[1]
    made = _chooser(keep)
    if len(_CHOOSERS) >= 1024:
        _CHOOSERS.clear()
    _CHOOSERS[id(keep)] = (keep, made)  # (the keep held: its id is not reused meanwhile)
    return made


_CHOOSERS: dict[int, tuple[Keep, Choose]] = {}
"""The choosers made so far, by their keep's id (each a function of its values alone)."""


def _chooser(keep: Keep) -> Choose:
    if keep.test is not None:
        return _by_test(keep.mode is _MATCHING, keep.test)
    mode, count = keep.mode, keep.count
    high_first = mode is _HIGHEST or mode is _DROP_HIGHEST
    keeping = mode is _HIGHEST or mode is _LOWEST
    if count == 1:  # (`kh1`, `pl1`): the first highest or lowest
        best = max if high_first else min
        others = [not keeping]

        def one(values: Sequence[Number]) -> list[bool]:
            if not values:
                return []
            flags = others * len(values)
            flags[values.index(best(values))] = keeping
            return flags

        return one

    def by_rank(values: Sequence[Number]) -> list[bool]:
        # a stable sort (reversed too) leaves equal values in throw order: earlier first
        order = sorted(range(len(values)), key=values.__getitem__, reverse=high_first)
        flags = [not keeping] * len(values)
        for i in order[:count]:
            flags[i] = keeping
        return flags

    return by_rank


_PASSES = {">=": operator.ge, "<=": operator.le, "=": operator.eq}
_FAILS = {">=": operator.lt, "<=": operator.gt, "=": operator.ne}


def _by_test(keeping: bool, test: Success) -> Choose:
    compare = (_PASSES if keeping else _FAILS)[test.compare.value]  # `test.passes` == keeping
    target = test.target

    def by_test(values: Sequence[Number]) -> list[bool]:
        return [compare(value, target) for value in values]

    return by_test


def counted(
    success: Success | None,
    failure: Success | None,
    values: Sequence[Number],
    kept: Sequence[bool],
) -> int:
    """How many kept values pass `success`, less how many pass `failure`.

    >>> from referee.dice.expr import Compare
    >>> counted(Success(Compare.GE, 4), Success(Compare.EQ, 1), [6, 1, 4], [True, True, True])
    1
    """
    total = 0
    for value, counts in zip(values, kept, strict=True):
        if counts:
            if success is not None and success.passes(value):
                total += 1
            if failure is not None and failure.passes(value):
                total -= 1
    return total


def group_step(group: Dice, depth: int) -> tuple[Kernel, Any, int]:
    """The step that rolls `group` (its kernel and facts), explosions and repeated rerolls cut
    at `depth`, and the most dice it may throw."""
    if group.explode or group.reroll or group.add_on is not None:
        return _chain_step(group, depth)
    count, sides, keep = group.count, group.sides, group.keep
    success, failure = group.success, group.failure
    sizes, every, none = (sides,) * count, (True,) * count, (False,) * count
    if (
        keep is None
        and success is None
        and failure is None
        and not group.fudge
        and group.floor is None
        and group.ceiling is None
    ):
        return _summed, (group, count, sides, sizes, every, none), count
    shift = 2 if group.fudge else 0  # a Fudge die's d3 face 1..3 is the value -1..1
    choose = None if keep is None else chooser(keep)
    floor, ceiling = group.floor, group.ceiling
    clamps = None
    if floor is not None or ceiling is not None:  # (each die's floor and ceiling, or None)
        clamps = (
            None if floor is None else (floor,) * count,
            None if ceiling is None else (ceiling,) * count,
        )
    facts = (group, count, sides, sizes, every, none, shift, clamps, choose, success, failure)
    return _at_once, facts, count


def _summed(
    facts: tuple[Dice, int, int, tuple[int, ...], tuple[bool, ...], tuple[bool, ...]],
    rng: Rng,
    groups: Groups,
    pools: Pools,
    budget: Budget,
) -> Number:
    """A group without modifiers: one throw, the sum of its faces."""
    group, count, sides, sizes, every, none = facts
    if budget is not None:
        budget[0] -= count
        if budget[0] < 0:
            over_budget(count, sides)
    first = rng.throw(sizes)
    value = sum(first[1])  # (a throw is (sides, faces, ...))
    groups.append(_rolled((group, (first,), every, none, value, (), (), ())))
    return value


def _at_once(
    facts: tuple[Any, ...], rng: Rng, groups: Groups, pools: Pools, budget: Budget
) -> Number:
    """A group none of whose dice is followed by another throw: one throw of all of them."""
    group, count, sides, sizes, every, none, shift, clamps, choose, success, failure = facts
    if budget is not None:
        budget[0] -= count
        if budget[0] < 0:
            over_budget(count, sides)
    first = rng.throw(sizes)
    faces = values = first[1]  # (a throw is (sides, faces, ...))
    if shift:
        values = tuple([face - shift for face in faces])
    if clamps is not None:  # up to the floor, then down to the ceiling, each face in C
        lows, highs = clamps
        if highs is None:
            values = tuple(map(max, values, lows))
        elif lows is None:
            values = tuple(map(min, values, highs))
        else:
            values = tuple(map(min, map(max, values, lows), highs))
    kept = every if choose is None else tuple(choose(values))
    if success is not None or failure is not None:
        value: Number = counted(success, failure, values, kept)
    else:
        value = sum(values) if choose is None else sum(compress(values, kept))
    shown = () if values is faces or values == faces else values
    groups.append(_rolled((group, (first,), kept, none, value, (), shown, ())))
    return value


_Chained = tuple[Any, ...]


def _chain_step(group: Dice, depth: int) -> tuple[Kernel, _Chained, int]:
    """The step of a group thrown die by die: `_die_by_die` and what a roll needs of the group,
    read once, and the most dice it may throw (`DiceFields.most_dice`). Each test is the values
    passing it that a die can stand at (`_span`), which `in` tells at once."""
    count, reroll, explode, adds = group.count, group.reroll, group.explode, group.add_on
    floor, ceiling, keep = group.floor, group.ceiling, group.keep
    kind = group.explode_kind
    penetrate = explode and kind is _PENETRATE
    shift = 2 if group.fudge else 0  # a Fudge die's d3 face 1..3 is the value -1..1
    low, high = (-1, 1) if shift else (1, group.sides)  # what a die can stand at: a face,
    clamps = floor is not None or ceiling is not None
    if clamps:  # or a face raised or lowered by `mi` and `ma`
        low, high = min(low, group.clamp(low)), max(high, group.clamp(high))
    rerolls = chain_most = 0
    again = _NONE
    if reroll:
        rerolls = 1 if group.reroll_once else depth
        if len(reroll) == 1:
            again = _passing(reroll[0], low, high)
        elif (span := group.reroll_span()) is None:  # (the tests leave a gap)
            again = frozenset(filter(group.rerolls, group.faces()))
        else:
            again = _span(span, low, high)
    boom = _NONE
    if explode:
        chain_most = depth
        on, top = group.explode_on, 1 if shift else group.sides  # (`!` alone: the top face)
        boom = frozenset((top,)) if on is None else _passing(on, low, high)
    facts = (
        group,
        count,
        group.sides,
        shift,
        (-EVERY if floor is None else floor) if clamps else None,
        EVERY if ceiling is None else ceiling,
        rerolls,
        again,
        chain_most,
        boom,
        explode and kind is _COMPOUND,
        penetrate,
        adds is not None,
        _NONE if adds is None else _passing(adds, low, high),
        bool(shift) or clamps or penetrate,  # a value may not be its face
        None if keep is None else chooser(keep),
        group.success,
        group.failure,
    )
    return _die_by_die, facts, count * (chain_most + 1) * (rerolls + 1) + (adds is not None)


_Values = range | frozenset[int]
_NONE: _Values = frozenset()
"""The values a test no group has passes: none."""


def _span(bounds: tuple[int, int], low: int, high: int) -> _Values:
    """The values in the inclusive range `bounds` from `low` to `high` (those a die can stand
    at): a frozenset where they are few (`in` one is cheaper than `in` a range), else a range."""
    start, stop = max(bounds[0], low), min(bounds[1], high) + 1
    return range(start, stop) if stop - start > 128 else frozenset(range(start, stop))


def _passing(test: Success, low: int, high: int) -> _Values:
    """`_span` of the values passing a test, made once for each (`Success.of` shares tests)."""
    key = (id(test), low, high)
    found = _PASSING.get(key)
    if found is not None and found[0] is test:
        return found[1]
    made = _span(test.passing_range(), low, high)
    if len(_PASSING) >= 1024:
        _PASSING.clear()
    _PASSING[key] = (test, made)  # (the test held: its id is not reused meanwhile)
    return made


_PASSING: dict[tuple[int, int, int], tuple[Success, _Values]] = {}
"""The values `_passing` made so far, by their test's id and the values a die can stand at."""


def _die_by_die(facts: _Chained, rng: Rng, groups: Groups, pools: Pools, budget: Budget) -> Number:
    """A group whose dice may be followed by more throws: each die thrown on its own, then at
    once its rerolls (while a test passes, or once: at most `most` of them), then its
    explosions (at most `chain_most`), each of them its own die (`!`, `e`), one less (`!p`)
    or added into the die (`!!`); after the first die whose first value passes `ra`'s test,
    one more die. Explosions test a die's value once rerolled and clamped."""
    (
        group,
        count,
        sides,
        shift,
        raised_to,  # (`mi` and `ma`: the value is min(max(value, raised_to), lowered_to))
        lowered_to,
        most,
        again,  # (the values a die is thrown again on)
        chain_most,
        boom,  # (the values a die explodes on)
        compound,
        penetrate,
        adding,
        adds,  # (the first die whose first value is one of these adds one more)
        changes,
        choose,
        success,
        failure,
    ) = facts
    if budget is not None and budget[0] < count:
        over_budget(count, sides)  # (not every die of the group would fit)
    throw = one_die_at_a_time(rng, sides)
    if budget is not None:
        throw = _budgeted(throw, budget, sides)
    throws: list[Throw] = []
    values: list[int] = []  # each throw's value, where one may not be its face (`changes`)
    units: list[int] = []  # each die's value (a compounding die's chain added into one)
    again_at: list[int] = []  # the throws thrown again (they count for nothing)
    burst: list[int] = []  # the throws that exploded
    joined: list[int] = []  # the throws added into the die before (`!!`)
    first = 0
    for _ in range(count):
        chain = 0
        while True:  # each die of the chain: the first, then each explosion
            thrown = throw()
            throws.append(thrown)
            value = thrown[1][0] - shift  # (a throw is (sides, faces, ...))
            if value in again:
                tries = 0
                while tries < most and value in again:
                    tries += 1
                    again_at.append(len(throws) - 1)
                    if changes:
                        values.append(value)
                    thrown = throw()
                    throws.append(thrown)
                    value = thrown[1][0] - shift
            if raised_to is not None:
                value = min(max(value, raised_to), lowered_to)
            if not chain:
                first = value
                units.append(value)
                if changes:
                    values.append(value)
            elif compound:
                joined.append(len(throws) - 1)
                units[-1] += value
                if changes:
                    values.append(value)
            else:  # (`!p`: worth one less; the next explosion tests the face as it stands)
                worth = value - 1 if penetrate else value
                units.append(worth)
                if changes:
                    values.append(worth)
            if value in boom and chain < chain_most:
                burst.append(len(throws) - 1)
                chain += 1
                continue
            break
        if adding and first in adds:
            adding = False
            thrown = throw()
            throws.append(thrown)
            value = thrown[1][0] - shift
            if raised_to is not None:
                value = min(max(value, raised_to), lowered_to)
            units.append(value)
            if changes:
                values.append(value)
    many = len(throws)
    picked = None if choose is None else choose(units)
    if success is not None or failure is not None:
        total: Number = counted(success, failure, units, picked or [True] * len(units))
    else:
        total = sum(units) if picked is None else sum(compress(units, picked))
    kept: tuple[bool, ...]
    if joined:  # a compounding die's later throws count as the die does
        unit_of = _dice_of(many, again_at, joined)
        kept = tuple([unit >= 0 and (picked is None or picked[unit]) for unit in unit_of])
    elif again_at:  # a throw thrown again counts for nothing: its flag put in its place
        flags = [True] * len(units) if picked is None else picked
        for i in again_at:  # (in throw order, so each goes where it was thrown)
            flags.insert(i, False)
        kept = tuple(flags)
    else:
        kept = (True,) * many if picked is None else tuple(picked)
    shown: tuple[int, ...] = ()
    if changes and values != [t[1][0] for t in throws]:
        shown = tuple(values)
    rolled = _rolled(
        (
            group,
            tuple(throws),
            kept,
            _flags(burst, many) if burst else (False,) * many,
            total,
            _flags(again_at, many) if again_at else (),
            shown,
            _flags(joined, many) if joined else (),
        )
    )
    groups.append(rolled)
    return total


def _budgeted(throw: Callable[[], Throw], budget: list[int], sides: int) -> Callable[[], Throw]:
    """`throw`, each die counted against the roll's dice budget first: the die that would
    pass it is refused before it is thrown."""

    def counted_throw() -> Throw:
        budget[0] -= 1
        if budget[0] < 0:
            over_budget(1, sides)
        return throw()

    return counted_throw


def _dice_of(many: int, again_at: list[int], joined: list[int]) -> list[int]:
    """For each of `many` throws, the die it counts in: -1 for a throw thrown again, the die
    before for one added into it (`!!`), else a die of its own.

    >>> _dice_of(5, [0], [3])
    [-1, 0, 1, 1, 2]
    """
    dice: list[int] = []
    unit = -1
    again, into = set(again_at), set(joined)
    for i in range(many):
        if i in again:
            dice.append(-1)
        else:
            unit += i not in into
            dice.append(unit)
    return dice


def _flags(marked: list[int], many: int) -> tuple[bool, ...]:
    """`many` flags, True at the indices `marked`."""
    flags = [False] * many
    for i in marked:
        flags[i] = True
    return tuple(flags)


def degrees_step(node: Degrees) -> tuple[Kernel, Any, int]:
    """onlinehost's `dh50`: one d100, worth its degrees of success against the target (the
    step and the one die it throws)."""
    return _degrees, (node, Dice(1, 100)), 1


def _degrees(
    facts: tuple[Degrees, Dice], rng: Rng, groups: Groups, pools: Pools, budget: Budget
) -> Number:
    node, group = facts
    if budget is not None:
        budget[0] -= 1
        if budget[0] < 0:
            over_budget(1, 100)
    first = rng.throw((100,))
    value = node.degrees(first[1][0])
    groups.append(_rolled((group, (first,), (True,), (False,), value, (), (), ())))
    return value
