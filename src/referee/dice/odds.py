"""Exact odds of a roll: the probability of every total, as fractions.

Chains of explosions and repeated rerolls are cut at `Limits.max_explode_depth` (20 by
default), exactly as a roll cuts them; `Odds.capped` is the probability that some chain
reached that cap, so an answer always says how much the cap matters. A tree that can
divide by zero has no distribution: `RuleError` says so.

>>> from referee.dice import parse
>>> result = odds(parse("2d6"))
>>> result.mean, result.probability(7), result.at_least(11)
(Fraction(7, 1), Fraction(1, 6), Fraction(1, 12))
>>> odds(parse("1d6!")).capped == Fraction(1, 6**21)  # the 21st die shows a 6 again
True
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeGuard, cast

from referee.dice.bounds import whole
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
    Number,
    Op,
    Pool,
    Success,
)
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.dice.rolling import apply, call
from referee.errors import LimitError, RuleError

Dist = dict[Number, Fraction]
MAX_STATES = 250_000
"""Most states one step of the computation may hold before it gives up (LimitError)."""


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact distribution of a roll's total.

    >>> from referee.dice import parse
    >>> odds(parse("1d4")).table()[0]
    (1, Fraction(1, 4), Fraction(1, 1))
    """

    expression: Expr
    distribution: tuple[tuple[Number, Fraction], ...]
    """Every total that can come up, lowest first, with its probability."""
    capped: Fraction
    """The probability that a chain of explosions or rerolls reached the depth cap."""
    depth: int
    """The depth cap used (Limits.max_explode_depth)."""
    chained: bool = False
    """Whether some die can explode or reroll again and again (so the cap applies)."""

    @property
    def mean(self) -> Fraction:
        """The expected total."""
        return sum((Fraction(v) * p for v, p in self.distribution), Fraction(0))

    @property
    def variance(self) -> Fraction:
        """The variance of the total."""
        mean = self.mean
        return sum(((Fraction(v) - mean) ** 2 * p for v, p in self.distribution), Fraction(0))

    @property
    def sd(self) -> float:
        """The standard deviation of the total."""
        return math.sqrt(self.variance)

    def probability(self, total: Number) -> Fraction:
        """P(the total is exactly `total`)."""
        return dict(self.distribution).get(total, Fraction(0))

    def at_least(self, total: Number) -> Fraction:
        """P(the total is `total` or more)."""
        return sum((p for v, p in self.distribution if v >= total), Fraction(0))

    def table(self) -> list[tuple[Number, Fraction, Fraction]]:
        """(total, P(exactly), P(at least)) for every total, lowest first."""
        rows = []
        left = Fraction(1)
        for value, p in self.distribution:
            rows.append((value, p, left))
            left -= p
        return rows


def odds(expr: Expr, limits: Limits = DEFAULT_LIMITS) -> Odds:
    """The exact distribution of `expr`'s total under `limits`.

    >>> from referee.dice import parse
    >>> odds(parse("4d6kh3")).mean
    Fraction(15869, 1296)
    """
    worker = _Worker(limits.max_explode_depth, limits.max_odds_work)
    dist = worker.dist(expr)
    return Odds(
        expr, tuple(sorted(dist.items())), worker.capped(), limits.max_explode_depth, _chained(expr)
    )


def _chained(node: Expr) -> bool:
    if isinstance(node, Dice):
        return node.explode or (bool(node.reroll) and not node.reroll_once)
    if isinstance(node, BinOp):
        return _chained(node.left) or _chained(node.right)
    if isinstance(node, Neg | Label | Call):
        return _chained(node.operand)
    if isinstance(node, Pool):
        return any(_chained(item) for item in node.items)
    return False


class _Worker:
    def __init__(self, depth: int, budget: int = DEFAULT_LIMITS.max_odds_work) -> None:
        self.depth = depth
        self.reach_cap: list[Fraction] = []
        self.budget = budget
        self.work = 0
        """Steps taken so far (one state meeting one outcome), against `budget`."""

    def spend(self, steps: int, node: Expr) -> None:
        """Count `steps` before taking them; past the budget, `LimitError` naming it."""
        self.work += steps
        if self.work > self.budget:
            raise LimitError(
                f"the exact odds of {str(node)!r:.60} need more than {self.budget} steps "
                f"(Limits.max_odds_work): ask for a smaller one, or raise the budget"
            )

    def capped(self) -> Fraction:
        none = Fraction(1)
        for p in self.reach_cap:
            none *= 1 - p
        return 1 - none

    def dist(self, node: Expr) -> Dist:
        if isinstance(node, Const):
            return {node.value: Fraction(1)}
        if isinstance(node, Dice):
            return self.group(node)
        if isinstance(node, Neg):
            return _map(self.dist(node.operand), lambda v: -v)
        if isinstance(node, Label):
            return self.dist(node.operand)
        if isinstance(node, Call):
            function = node.function
            return _map(self.dist(node.operand), lambda v: call(function, v))
        if isinstance(node, BinOp):
            return self.binop(node)
        if isinstance(node, Pool):
            return self.pool(node)
        assert isinstance(node, Degrees)
        target = node
        return _map(_uniform(range(1, 101)), lambda v: target.degrees(int(v)))

    def binop(self, node: BinOp) -> Dist:
        left, right = self.dist(node.left), self.dist(node.right)
        if len(left) * len(right) > 4 * MAX_STATES:
            _too_large(node)
        self.spend(len(left) * len(right), node)
        if node.op in (Op.DIV, Op.FLOORDIV, Op.MOD) and 0 in right:
            raise RuleError(
                f"{str(node)!r} has no finite distribution: it divides by zero with "
                f"probability {right[0]}"
            )
        out: dict[Number, int] = defaultdict(int)
        op = node.op
        (lefts, left_den), (rights, right_den) = _ints(left), _ints(right)
        if (op is Op.ADD or op is Op.SUB) and _whole_keys(lefts) and _whole_keys(rights):
            if op is Op.SUB:
                return _fractions(
                    _product(lefts, {-b: q for b, q in rights.items()}), left_den * right_den
                )
            return _fractions(_product(lefts, rights), left_den * right_den)
        if op is Op.ADD or op is Op.SUB or op is Op.MUL:
            for a, p in lefts.items():
                for b, q in rights.items():
                    out[a + b if op is Op.ADD else a - b if op is Op.SUB else a * b] += p * q
        else:
            for a, p in lefts.items():
                for b, q in rights.items():
                    out[apply(op, a, b)] += p * q
        return _fractions(out, left_den * right_den)

    def pool(self, node: Pool) -> Dist:
        if node.dice_level:
            units = [
                _uniform(range(1, g.sides + 1))
                for g in _dice_of(node.items[0])
                for _ in range(g.count)
            ]
        else:
            units = [self.dist(item) for item in node.items]
        agg = _aggregator(node.keep, node.success, node.failure)
        frontier: dict[Hashable, int] = {agg.start: 1}
        den = 1
        for unit in units:
            counts, unit_den = _ints(unit)
            self.spend(len(frontier) * len(counts), node)
            step: dict[Hashable, int] = defaultdict(int)
            for state, p in frontier.items():
                for value, q in counts.items():
                    step[agg.add(state, value)] += p * q
            frontier = _checked(step, node)
            den *= unit_den
        out: dict[Number, int] = defaultdict(int)
        for state, p in frontier.items():
            out[whole(agg.result(state))] += p
        return _fractions(out, den)

    def group(self, group: Dice) -> Dist:
        faces = group.faces()
        if group.plain:
            return _sum_of(_uniform(faces), group.count, group)
        agg = _aggregator(group.keep, group.success, group.failure)
        if not group.explode:
            return self.unchained(group, agg)
        settled = self.settled(group)
        extra = _map(_uniform(faces), lambda v: group.clamp(int(v)))
        compound = group.explode_kind is Explode.COMPOUND
        # a state: (aggregate, `ra` used, a chain was capped)
        frontier: dict[tuple[Hashable, bool, bool], Fraction] = {
            (agg.start, group.add_on is None, False): Fraction(1)
        }
        chain = self.compound_chain(group, settled) if compound else None
        if chain is not None and group.add_on is None and isinstance(agg, _ByRank):
            return self.kept_compounding(group, chain, agg)
        if isinstance(agg, _ByRank):
            split = _exploding_split(group)
            if split is not None:
                return self.kept_exploding(group, agg, *split)

        def one_die(
            frontier: dict[tuple[Hashable, bool, bool], Fraction],
        ) -> dict[tuple[Hashable, bool, bool], Fraction]:
            if chain is None:
                return self.chains(frontier, agg, group, settled, extra)
            self.spend(len(frontier) * len(chain), group)
            step: dict[tuple[Hashable, bool, bool], Fraction] = defaultdict(Fraction)
            for (state, used, cut), p in frontier.items():
                for (first, total, capped), q in chain.items():
                    after = agg.add(state, total)
                    self.finish(step, agg, group, extra, after, used, cut or capped, first, p * q)
            return _checked(step, group)

        if group.add_on is None and not isinstance(agg, _ByRank):  # dice add up independently
            die: Dist = defaultdict(Fraction)
            cut_one = Fraction(0)
            for (state, _used, cut), p in one_die(frontier).items():
                die[state] += p  # type: ignore[index]
                if cut:
                    cut_one += p
            if cut_one:
                self.reach_cap.append(1 - (1 - cut_one) ** group.count)
            return _map(_sum_of(dict(die), group.count, group), lambda v: v)
        for _ in range(group.count):
            frontier = one_die(frontier)
        out: Dist = defaultdict(Fraction)
        cap = Fraction(0)
        for (state, _used, cut), p in frontier.items():
            out[whole(agg.result(state))] += p
            if cut:
                cap += p
        if cap:
            self.reach_cap.append(cap)
        return dict(out)

    def spender(self, node: Expr) -> Callable[[int], None]:
        """`spend` for one node, for helpers that count their own steps."""
        return lambda steps: self.spend(steps, node)

    def kept_compounding(
        self, group: Dice, chain: dict[tuple[Number, Number, bool], Fraction], agg: _ByRank
    ) -> Dist:
        """Keep or drop by rank among compounding dice: each die is one value (its chain's
        total), so the dice are alike and their order statistics are those of any pool
        (icepool evaluates `d6.explode()` in a pool so)."""
        die: Dist = defaultdict(Fraction)
        cut_one = Fraction(0)
        for (_first, total, capped), p in chain.items():
            die[total] += p
            if capped:
                cut_one += p
        if cut_one:
            self.reach_cap.append(1 - (1 - cut_one) ** group.count)
        weights, den = _ints(dict(die))
        return _kept_of_alike(weights, den, group.count, agg, self.spender(group))

    def kept_exploding(
        self, group: Dice, agg: _ByRank, exploding: list[int], standing: list[int]
    ) -> Dist:
        """Keep or drop by rank among dice that explode into dice of their own (`12d10!kh5`),
        when every exploding face is above every other face, or below.

        Each die's chain is j exploding faces and then one that does not explode (j up to the
        depth cap), or depth+1 exploding faces when the cap cuts it. So the roll is T dice
        showing exploding faces and K showing the others, each face uniform within its part
        and independent of the rest; the (T, K) are found by one polynomial power, and the
        kept dice of each are the highest (or lowest) of the part on the kept side first,
        then of the other: order statistics of alike dice (`_kept_of_alike`), as icepool
        keeps from a pool."""
        sides, depth, count = group.sides, self.depth, group.count
        spend = self.spender(group)
        # A chain that stands after j < depth+1 explosions has weight sides^(depth-j) over
        # sides^(depth+1) (its faces are counted in each part), so `rest` such chains with
        # T' explosions in all weigh sides^(depth*rest - T') times the ways to split T'
        # into `rest` parts of 0..depth: the coefficients of a power of (1 + x + ... + x^depth),
        # small numbers, packed into one big integer and multiplied up one chain at a time.
        bits = _bits((depth + 1) ** count)
        shapes_count = sum(rest * depth + 1 for rest in range(count + 1))
        spend(shapes_count + shapes_count * bits // 64_000)  # before any of it is made
        cut_one = Fraction(len(exploding) ** (depth + 1), sides ** (depth + 1))
        self.reach_cap.append(1 - (1 - cut_one) ** count)
        # (T, K) -> weight: `cut` chains cut at the cap (depth+1 exploding dice each, no other)
        shapes: dict[tuple[int, int], int] = {}
        one_chain = _pack(dict.fromkeys(range(depth + 1), 1), 0, bits)
        packed = 1  # the splits of T' among `rest` standing chains, rest = 0, 1, ...
        for rest in range(count + 1):
            if rest:
                packed *= one_chain
            cut = count - rest
            ways = math.comb(count, cut)
            for extra, splits in _unpack(packed, 0, bits).items():
                weight = ways * splits * sides ** (depth * rest - int(extra))
                shapes[(cut * (depth + 1) + int(extra), rest)] = weight
        high_side = agg.high == agg.keep_extremes  # the highest dice count
        upper_explodes = exploding[0] > standing[-1]
        parts = {True: exploding, False: standing}
        memo: dict[tuple[bool, int, int, bool], dict[Number, int]] = {}

        def kept(faces_explode: bool, dice: int, keep: int, high: bool) -> dict[Number, int]:
            """Counts of the kept worth of `keep` of `dice` dice of one part (all of them:
            their sum)."""
            key = (faces_explode, dice, keep, high)
            found = memo.get(key)
            if found is None:
                faces: dict[Number, int] = dict.fromkeys(parts[faces_explode], 1)
                if keep == 0:
                    found = {0: len(faces) ** dice}
                elif keep >= dice:
                    size = dice * (len(faces) - 1) + 1  # the faces of a part are one run
                    spend(size + size * _bits(len(faces) ** dice) // 64_000)
                    found = _power(faces, dice, group)
                else:
                    mode = KeepMode.HIGHEST if high else KeepMode.LOWEST
                    rank = _ByRank(agg.worth, Keep(mode, keep))
                    found = {
                        v: int(p) for v, p in _kept_of_alike(faces, 1, dice, rank, spend).items()
                    }
                spend(len(found))
                memo[key] = found
            return found

        out: dict[Number, int] = defaultdict(int)
        for (tops, others), weight in shapes.items():
            dice = tops + others
            keep = min(agg.m, dice) if agg.keep_extremes else max(dice - agg.m, 0)
            # the part on the kept side first: the exploding dice if they are the higher ones
            # and the highest count, or the lower ones and the lowest count
            first_explodes = upper_explodes == high_side
            first = tops if first_explodes else others
            second = others if first_explodes else tops
            far: dict[Number, int]
            if keep <= first:
                near = kept(first_explodes, first, keep, high_side)
                far = {0: len(parts[not first_explodes]) ** second}
            else:
                near = kept(first_explodes, first, first, high_side)
                far = kept(not first_explodes, second, keep - first, high_side)
            spend(len(near) * len(far) * (1 + weight.bit_length() // 64_000))
            for a, p in near.items():
                for b, q in far.items():
                    out[a + b] += weight * p * q
        return _fractions(dict(out), sides ** ((depth + 1) * count))

    def unchained(self, group: Dice, agg: _Aggregator) -> Dist:
        """A group without explosions, die by die in whole weights (`ra` may add one die)."""
        faces, face_den = self.settled_ints(group)
        adding = group.add_on
        if adding is None and isinstance(agg, _ByRank):
            return _kept_of_alike(faces, face_den, group.count, agg, self.spender(group))
        if adding is None:  # a sum or a count: each die adds its own part, independently
            part: dict[Number, int] = defaultdict(int)
            for value, c in faces.items():
                part[agg.add(agg.start, value)] += c  # type: ignore[index]
            return _fractions(_power(dict(part), group.count, group), face_den**group.count)
        adds: dict[Number, int] = defaultdict(int)
        for face in group.faces():
            adds[group.clamp(face)] += 1
        add_den = len(group.faces())
        scale = add_den if adding is not None else 1
        frontier: dict[tuple[Hashable, bool], int] = {(agg.start, adding is None): 1}
        den = 1
        for _ in range(group.count):
            self.spend(len(frontier) * len(faces) * len(adds), group)
            step: dict[tuple[Hashable, bool], int] = defaultdict(int)
            for (state, used), w in frontier.items():
                for first, c in faces.items():
                    after = agg.add(state, first)
                    if not used and adding is not None and adding.passes(first):
                        for value, e in adds.items():
                            step[(agg.add(after, value), True)] += w * c * e
                    else:
                        step[(after, used)] += w * c * scale
            frontier = _checked(step, group)
            den *= face_den * scale
        out: dict[Number, int] = defaultdict(int)
        for (state, _used), w in frontier.items():
            out[whole(agg.result(state))] += w
        return _fractions(out, den)

    def chains(
        self,
        frontier: dict[tuple[Hashable, bool, bool], Fraction],
        agg: _Aggregator,
        group: Dice,
        settled: Dist,
        extra: Dist,
    ) -> dict[tuple[Hashable, bool, bool], Fraction]:
        """One more die of the group, with its whole explosion chain, from every state."""
        penetrate = group.explode_kind is Explode.PENETRATE
        adding = group.add_on
        # (aggregate, ra used, capped, this die adds one with ra, the last face explodes)
        live: dict[tuple[Hashable, bool, bool, bool, bool], Fraction] = defaultdict(Fraction)
        self.spend(len(frontier) * len(settled), group)
        for (state, used, cut), p in frontier.items():
            for first, q in settled.items():
                adds = not used and adding is not None and adding.passes(first)
                key = (agg.add(state, first), used, cut, adds, group.explodes(int(first)))
                live[key] += p * q
        step: dict[tuple[Hashable, bool, bool], Fraction] = defaultdict(Fraction)
        for level in range(self.depth + 1):
            more: dict[tuple[Hashable, bool, bool, bool, bool], Fraction] = defaultdict(Fraction)
            self.spend(len(live) * len(settled), group)
            for (state, used, cut, adds, again), q in live.items():
                if not again or level == self.depth:
                    self.close(step, agg, extra, state, used, cut or again, adds, q)
                    continue
                for value, r in settled.items():
                    unit = value - 1 if penetrate else value
                    key = (agg.add(state, unit), used, cut, adds, group.explodes(int(value)))
                    more[key] += q * r
            if not more:
                break
            live = _checked(more, group)
        return _checked(step, group)

    def close(
        self,
        step: dict[tuple[Hashable, bool, bool], Fraction],
        agg: _Aggregator,
        extra: Dist,
        state: Hashable,
        used: bool,
        cut: bool,
        adds: bool,
        p: Fraction,
    ) -> None:
        """A die's chain is over; with d20's `ra` it adds one more die."""
        if adds:
            for value, q in extra.items():
                step[(agg.add(state, value), True, cut)] += p * q
        else:
            step[(state, used, cut)] += p

    def finish(
        self,
        step: dict[tuple[Hashable, bool, bool], Fraction],
        agg: _Aggregator,
        group: Dice,
        extra: Dist,
        state: Hashable,
        used: bool,
        cut: bool,
        first: Number,
        p: Fraction,
    ) -> None:
        """A die's chain is over; d20's `ra` may add one more die."""
        if not used and group.add_on is not None and group.add_on.passes(first):
            for value, q in extra.items():
                step[(agg.add(state, value), True, cut)] += p * q
        else:
            step[(state, used, cut)] += p

    def compound_chain(
        self, group: Dice, settled: Dist
    ) -> dict[tuple[Number, Number, bool], Fraction]:
        """One compounding die: (first value, chain total, capped) -> probability."""
        out: dict[tuple[Number, Number, bool], Fraction] = defaultdict(Fraction)
        for first, p in settled.items():
            totals: dict[tuple[Number, Number], Fraction] = {(first, first): p}
            for level in range(self.depth + 1):
                more: dict[tuple[Number, Number], Fraction] = defaultdict(Fraction)
                self.spend(len(totals) * len(settled), group)
                for (face, total), q in totals.items():
                    if not group.explodes(int(face)):
                        out[(first, total, False)] += q
                    elif level == self.depth:
                        out[(first, total, True)] += q
                    else:
                        for value, r in settled.items():
                            more[(value, total + value)] += q * r
                totals = more
                if not totals:
                    break
        return dict(out)

    def settled(self, group: Dice) -> Dist:
        """Where one throw of a die stands after its rerolls and clamp."""
        counts, den = self.settled_ints(group)
        return _fractions(counts, den)

    def settled_ints(self, group: Dice) -> tuple[dict[Number, int], int]:
        """`settled` in whole weights over one denominator, in closed form.

        With n faces of which m reroll and at most k rerolls, a face that stays is reached
        on attempt a with weight m^a n^(k-a) (over n^(k+1)): summed over a = 0..k; a face
        that rerolls only counts on the last attempt, with weight m^k.
        """
        faces = group.faces()
        n = len(faces)
        if not group.reroll:
            out: dict[Number, int] = defaultdict(int)
            for face in faces:
                out[group.clamp(face)] += 1
            return dict(out), n
        most = 1 if group.reroll_once else self.depth
        again = [group.rerolls(f) for f in faces]
        m = sum(again)
        stays = sum(m**a * n ** (most - a) for a in range(most + 1))
        last = m**most
        out = defaultdict(int)
        for face, rerolls in zip(faces, again, strict=True):
            out[group.clamp(face)] += last if rerolls else stays
        return dict(out), n ** (most + 1)


def _exploding_split(group: Dice) -> tuple[list[int], list[int]] | None:
    """The faces that explode and the others (each sorted), for a group that only explodes
    into dice of its own and keeps or drops by rank, when every exploding face is above every
    other face or below; else None."""
    if (
        group.explode_kind is not Explode.EACH
        or group.reroll
        or group.add_on is not None
        or group.floor is not None
        or group.ceiling is not None
        or group.fudge
        or group.success is not None
        or group.failure is not None
    ):
        return None
    exploding = [face for face in group.faces() if group.explodes(face)]
    standing = [face for face in group.faces() if not group.explodes(face)]
    if not exploding or not standing:
        return None
    if exploding[0] > standing[-1] or exploding[-1] < standing[0]:
        return exploding, standing
    return None


def _dice_of(node: Expr) -> list[Dice]:
    if isinstance(node, Dice):
        return [node]
    if isinstance(node, BinOp):
        return _dice_of(node.left) + _dice_of(node.right)
    return []


class _Aggregator:
    """How the units of a group or pool make its value: a start state, a step, a result."""

    start: Hashable = 0

    def add(self, state: Hashable, value: Number) -> Hashable:
        raise NotImplementedError

    def result(self, state: Hashable) -> Number:
        raise NotImplementedError


class _Sum(_Aggregator):
    def __init__(self, worth: Callable[[Number], Number]) -> None:
        self.worth = worth

    def add(self, state: Hashable, value: Number) -> Hashable:
        return state + self.worth(value)  # type: ignore[operator]

    def result(self, state: Hashable) -> Number:
        return state  # type: ignore[return-value]


class _ByTest(_Aggregator):
    def __init__(self, worth: Callable[[Number], Number], keep: Keep) -> None:
        assert keep.test is not None
        self.worth = worth
        self.test = keep.test
        self.keeping = keep.mode is KeepMode.MATCHING

    def add(self, state: Hashable, value: Number) -> Hashable:
        if self.test.passes(value) == self.keeping:
            return state + self.worth(value)  # type: ignore[operator]
        return state

    def result(self, state: Hashable) -> Number:
        return state  # type: ignore[return-value]


class _ByRank(_Aggregator):
    """Keeps the m most extreme values seen (sorted) and the worth of the rest."""

    def __init__(self, worth: Callable[[Number], Number], keep: Keep) -> None:
        self.worth = worth
        self.m = keep.count
        self.high = keep.mode in (KeepMode.HIGHEST, KeepMode.DROP_HIGHEST)
        self.keep_extremes = keep.mode in (KeepMode.HIGHEST, KeepMode.LOWEST)
        self.start = ((), 0)

    def add(self, state: Hashable, value: Number) -> Hashable:
        extremes, rest = cast(tuple[tuple[Number, ...], Number], state)
        if self.m == 0:
            return extremes, rest + self.worth(value)
        merged = sorted((*extremes, value), reverse=self.high)
        if len(merged) > self.m:
            if self.keep_extremes:  # what falls out no longer matters: fewer states
                return tuple(merged[: self.m]), rest
            return tuple(merged[: self.m]), rest + self.worth(merged[-1])
        return tuple(merged), rest

    def result(self, state: Hashable) -> Number:
        extremes, rest = cast(tuple[tuple[Number, ...], Number], state)
        if self.keep_extremes:
            total: Number = 0
            for value in extremes:
                total += self.worth(value)
            return total
        return rest


def _kept_of_alike(
    faces: dict[Number, int], den: int, count: int, agg: _ByRank, spend: Callable[[int], None]
) -> Dist:
    """Keep or drop by rank among `count` alike dice, by order statistics.

    Faces are taken from the kept end, with how many dice show each (multinomial weights)
    instead of one die at a time; once the kept dice are all placed, the other dice can
    only show faces further in, which is one power of those faces' weight, so that state
    is finished at once (as icepool evaluates a pool over sorted outcomes).
    """
    keep = agg.m if agg.keep_extremes else max(count - agg.m, 0)
    keep = min(keep, count)
    from_top = agg.high == agg.keep_extremes  # keep the highest, or drop the lowest
    order = sorted(faces, reverse=from_top)
    if keep == 0:
        return {0: Fraction(1)}
    below = sum(faces.values())
    worths: dict[Number, int] = {}
    for value in order:  # a face counts for itself, or for +1/0/-1 in a count
        worth = agg.worth(value)
        assert type(worth) is int, worth
        worths[value] = worth
    least = min(worths.values())
    bits = _bits(below**count)
    # Each packed weight holds up to keep * span coefficients of `bits` bits; a step on one
    # costs about its size, so a step is charged once more per 2000 machine words (about what
    # one state step costs), and the frontier's room before it is made (`1000d10000kh500`
    # would need gigabytes).
    words = keep * (max(worths.values()) - least + 1) * bits // 64 + 1
    size = 1 + words // 2000
    spend(keep * size)
    # frontier[placed]: (worth of the kept dice so far - placed * least) -> weight, packed
    # into one big integer (bits per coefficient); `placed` < keep
    frontier = [0] * keep
    frontier[0] = 1
    out = 0
    for value in order:
        weight = faces[value]
        below -= weight
        shift = (worths[value] - least) * bits
        step = [0] * keep
        for placed, packed in enumerate(frontier):
            if not packed:
                continue
            left, need = count - placed, keep - placed
            spend((need + left + 1) * size)
            # j more dice show this face: j < need stay in the frontier; j >= need place
            # every kept die, and the other dice show faces further in (`below`)
            share = packed
            for j in range(need):
                if j:
                    share = share * weight * (left - j + 1) // j
                step[placed + j] += share << (shift * j)
            done = 0
            ways = 1
            for j in range(left + 1):
                if j:
                    ways = ways * weight * (left - j + 1) // j
                if j >= need:
                    done += ways * below ** (left - j)
            if done:
                out += (packed * done) << (shift * need)
        frontier = step
    weights = _unpack(out, keep * least, bits)
    return _fractions({whole(v): w for v, w in weights.items()}, den**count)


def _aggregator(keep: Keep | None, success: Success | None, failure: Success | None) -> _Aggregator:
    if success is None and failure is None:

        def worth(value: Number) -> Number:
            return value

    else:

        def worth(value: Number) -> Number:
            hit = 1 if success is not None and success.passes(value) else 0
            miss = 1 if failure is not None and failure.passes(value) else 0
            return hit - miss

    if keep is None:
        return _Sum(worth)
    if keep.test is not None:
        return _ByTest(worth, keep)
    return _ByRank(worth, keep)


def _uniform(faces: range) -> Dist:
    share = Fraction(1, len(faces))
    return {f: share for f in faces}


def _map(dist: Dist, fn: Callable[[Number], Number]) -> Dist:
    out: Dist = defaultdict(Fraction)
    for value, p in dist.items():
        out[whole(fn(value))] += p
    return dict(out)


def _sum_of(one: Dist, count: int, node: Expr) -> Dist:
    """The distribution of the sum of `count` independent copies of `one`."""
    weights, den = _ints(one)
    return _fractions(_power(weights, count, node), den**count)


def _power(one: dict[Number, int], count: int, node: Expr) -> dict[Number, int]:
    """Whole weights of the sum of `count` independent copies of `one`.

    Whole-number outcomes go through one big-integer power (`_packed`); others are
    convolved by repeated squaring. Either way the size checks are those of squaring.
    """
    size, total_size, left = len(one), 1, count
    while left:  # the sizes repeated squaring would meet, for the same limit as ever
        if left & 1:
            if total_size * size > 4 * MAX_STATES:
                _too_large(node)
            total_size = min(total_size * size, total_size + size)
        left >>= 1
        if left:
            if size * size > 4 * MAX_STATES:
                _too_large(node)
            size = 2 * size - 1
    if _whole_keys(one):
        low = min(one)
        bits = _bits(sum(one.values()) ** count)
        return _unpack(_pack(one, low, bits) ** count, low * count, bits)
    total: dict[Number, int] = {0: 1}
    power = one
    while count:
        if count & 1:
            total = _convolve_ints(total, power, node)
        count >>= 1
        if count:
            power = _convolve_ints(power, power, node)
    return total


def _product(a: dict[int, int], b: dict[int, int]) -> dict[Number, int]:
    """The weights of the sum of two independent whole-number outcomes (one big product)."""
    low_a, low_b = min(a), min(b)
    bits = _bits(sum(a.values()) * sum(b.values()))
    packed = _pack(a, low_a, bits) * _pack(b, low_b, bits)
    return _unpack(packed, low_a + low_b, bits)


def _whole_keys(weights: dict[Number, int]) -> TypeGuard[dict[int, int]]:
    return all(type(v) is int for v in weights)


def _bits(most: int) -> int:
    """Bits per coefficient (a whole number of bytes) that hold any weight up to `most`."""
    return (most.bit_length() + 8) // 8 * 8


def _pack(weights: dict[int, int], low: int, bits: int) -> int:
    """Weights as one big integer: the weight of v in bits (v-low)*bits onward."""
    packed = 0
    for value, weight in weights.items():
        packed |= weight << ((value - low) * bits)
    return packed


def _unpack(packed: int, low: int, bits: int) -> dict[Number, int]:
    width = bits // 8
    raw = packed.to_bytes((packed.bit_length() + 7) // 8 or 1, "little")
    out: dict[Number, int] = {}
    for index, start in enumerate(range(0, len(raw), width)):
        weight = int.from_bytes(raw[start : start + width], "little")
        if weight:
            out[low + index] = weight
    return out


def _convolve_ints(a: dict[Number, int], b: dict[Number, int], node: Expr) -> dict[Number, int]:
    if len(a) * len(b) > 4 * MAX_STATES:
        _too_large(node)
    if len(a) < len(b):
        a, b = b, a
    out: dict[Number, int] = defaultdict(int)
    for y, q in b.items():
        for x, p in a.items():
            out[x + y] += p * q
    return out


def _ints(dist: Dist) -> tuple[dict[Number, int], int]:
    """A distribution as whole weights over one denominator (whole numbers add fast)."""
    den = math.lcm(*(p.denominator for p in dist.values()))
    return {v: p.numerator * (den // p.denominator) for v, p in dist.items()}, den


def _fractions(weights: dict[Number, int], den: int) -> Dist:
    common = math.gcd(den, *weights.values())
    if common > 1:
        den //= common
        return {v: Fraction(w // common, den) for v, w in weights.items() if w}
    return {v: Fraction(w, den) for v, w in weights.items() if w}


def _checked(states: dict, node: Expr) -> dict:  # type: ignore[type-arg]
    if len(states) > MAX_STATES:
        _too_large(node)
    return states


def _collect(frontier: dict[Hashable, Fraction], result: Callable[[Hashable], Number]) -> Dist:
    out: Dist = defaultdict(Fraction)
    for state, p in frontier.items():
        out[whole(result(state))] += p
    return dict(out)


def _too_large(node: Expr) -> None:
    raise LimitError(
        f"{str(node)!r:.60} has too many outcomes to compute exactly here "
        f"(more than {MAX_STATES} states in one step)"
    )
