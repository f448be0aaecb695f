"""The steps of one dice group in a plan (`referee.dice.plan`): `roll_group`'s choice of
roller made once, and each roller with what it asks of the group asked once.

Each step rolls as `roll_group` rolls the group under the default limits, the tree's worst
case within them (so no dice are counted): the same throws, flags and value.

>>> from referee.dice import parse
>>> from referee.rng import ScriptedRng
>>> groups = []
>>> dice_step(parse("4d6kh3"))(ScriptedRng([6, 1, 5, 4]), groups, [])
15
>>> groups[0].kept
(True, False, True, True)
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from itertools import compress

from referee.dice.expr import (
    Dice,
    Keep,
    Number,
    Success,
)
from referee.dice.limits import DEFAULT_LIMITS
from referee.dice.members import (
    CMP_EQ,
    CMP_GE,
    CMP_LE,
    EXPLODE_EACH,
    MODE_DROP_HIGHEST,
    MODE_HIGHEST,
    MODE_LOWEST,
    MODE_MATCHING,
)
from referee.dice.rolling import (
    _KEEP_TAIL,
    GroupRoll,
    PoolRoll,
    _count,
    _group_value,
    _new,
    _select,
    roll_group,
)
from referee.rng import Rng, Throw
from referee.rng.base import one_die_at_a_time

Groups = list[GroupRoll]
Pools = list[PoolRoll]
Step = Callable[[Rng, Groups, Pools], Number]
"""One node of a plan: rolls it from the source, adding its groups and pools in order."""
Choose = Callable[[Sequence[Number]], list[bool]]


def chooser(keep: Keep | None) -> Choose:
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


def dice_step(group: Dice) -> Step:
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
    if keep.test is None and keep.count == 1:
        return _one_kept_or_dropped(group, keep)
    choose = chooser(keep)

    def kept(rng: Rng, groups: Groups, pools: Pools) -> Number:
        first = rng.throw(sizes)
        faces = first[1]
        flags = choose(faces)
        value = sum(compress(faces, flags))
        rolled = (group, (first,), tuple(flags), none, value, (), (), ())
        groups.append(_new(GroupRoll, rolled))
        return value

    return kept


def _one_kept_or_dropped(group: Dice, keep: Keep) -> Step:
    """A group that keeps or drops its one highest or lowest die (`2d20kh1`, `4d6pl1`): one
    throw, and the first such die found (`_select` picks it so)."""
    count = group.count
    sizes = (group.sides,) * count
    none = (False,) * count
    mode = keep.mode
    best = max if mode is MODE_HIGHEST or mode is MODE_DROP_HIGHEST else min
    keeping = mode is MODE_HIGHEST or mode is MODE_LOWEST
    others = [not keeping] * count

    def one_picked(rng: Rng, groups: Groups, pools: Pools) -> Number:
        first = rng.throw(sizes)
        faces = first[1]
        picked = faces.index(best(faces))
        flags = others.copy()
        flags[picked] = keeping
        value = faces[picked] if keeping else sum(faces) - faces[picked]
        rolled = (group, (first,), tuple(flags), none, value, (), (), ())
        groups.append(_new(GroupRoll, rolled))
        return value

    return one_picked


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
    choose = None if group.keep is None and not counted else chooser(group.keep)
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
    choose = chooser(keep)
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
    choose = chooser(group.keep)
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
    choose = chooser(group.keep)
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
