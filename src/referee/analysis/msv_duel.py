"""Exact MSV duels: a Markov chain over (damage taken by each fighter, whose action) states.

A *round* is one action of each fighter in initiative order (MSV-6); an action is one attack
roll plus any free attacks its criticals give (MSV-4). The bout's length is the number of the
round in which a fighter is defeated (MSV-7): a bout that ends during the first mover's action
in round 3 lasts 3 rounds.

States are solved backwards from the defeat threshold. Free attacks always add damage, so
they only lead to states already solved; a miss passes the action to the foe, and two misses
in a row return to the same state. That 2-cycle is a geometric series, summed exactly:
with mF, mS the miss chances and RF, RS the known rest of each side's equation,
    XF = c + mF * XS + RF,   XS = mS * XF + RS   =>   XF = (c + RF + mF * RS) / (1 - mF * mS)
where c is 1 for "rounds begun" (counted at the first mover's fresh action) and 0 for wins.

>>> from referee.systems.msv import default_rules
>>> duel = analyse_duel(60, 60, default_rules())
>>> duel.p_a_wins
Fraction(1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from referee.analysis.msv_outcomes import Outcome, attack_outcomes, first_mover_chance
from referee.errors import LimitError, RuleError
from referee.systems.msv.attack import check_cs
from referee.systems.msv.rules import MsvRules

Table = dict[tuple[int, int], Fraction]
Outcomes = dict[Outcome, Fraction]

#: Bound on the rounds a length distribution may list.
MAX_LENGTH_ROUNDS = 100_000


@dataclass(frozen=True, slots=True)
class Order:
    """One initiative order's solution: the first mover's win chance and expected rounds."""

    first_wins: Fraction
    expected_rounds: Fraction


@dataclass(frozen=True, slots=True)
class DuelAnalysis:
    """The exact answer for CS A vs CS B under one rule pack."""

    cs_a: int
    cs_b: int
    rules: MsvRules
    p_a_first: Fraction
    p_a_wins: Fraction
    expected_rounds: Fraction

    @property
    def p_b_wins(self) -> Fraction:
        """B wins whenever A does not: the bout ends with probability 1.

        >>> from referee.systems.msv import default_rules
        >>> analyse_duel(0, 50, default_rules()).p_b_wins
        Fraction(1, 1)
        """
        return 1 - self.p_a_wins


def _check_pair(cs_a: int, cs_b: int, rules: MsvRules | None = None) -> None:
    if rules is not None and rules.uses_formulas:
        check_cs(cs_a), check_cs(cs_b)
        misses = [attack_outcomes(cs, rules).get(Outcome(0, False), 0) for cs in (cs_a, cs_b)]
        if misses == [1, 1]:
            raise RuleError(
                f"CS {cs_a} vs CS {cs_b} never ends under this pack: neither fighter can "
                "ever deal damage"
            )
        return
    if check_cs(cs_a) == 0 and check_cs(cs_b) == 0:
        raise RuleError("CS 0 vs CS 0 never ends: neither fighter can ever succeed (MSV-2)")


def _solve(
    first: Outcomes, second: Outcomes, threshold: int, cost: Fraction, first_win: Fraction
) -> Table:
    """Backward solution: the value with the first mover to act, per (f, s) damage taken.

    `first_win` is the value when the first mover defeats the second (0 the other way round);
    `cost` is added at each fresh action of the first mover, not at its free attacks.
    """
    miss_f = first.get(Outcome(0, False), Fraction(0))
    miss_s = second.get(Outcome(0, False), Fraction(0))
    to_f: Table = {}
    to_s: Table = {}
    for f in range(threshold - 1, -1, -1):
        for s in range(threshold - 1, -1, -1):
            rest_f = Fraction(0)
            for out, p in first.items():
                if out.damage == 0:
                    continue
                if s + out.damage >= threshold:
                    rest_f += p * first_win
                elif out.again:  # a free attack is not a fresh action: no cost
                    rest_f += p * (to_f[f, s + out.damage] - cost)
                else:
                    rest_f += p * to_s[f, s + out.damage]
            rest_s = Fraction(0)
            for out, p in second.items():
                if out.damage == 0 or f + out.damage >= threshold:
                    continue
                rest_s += p * (to_s if out.again else to_f)[f + out.damage, s]
            to_f[f, s] = (cost + rest_f + miss_f * rest_s) / (1 - miss_f * miss_s)
            to_s[f, s] = miss_s * to_f[f, s] + rest_s
    return to_f


def solve_order(cs_first: int, cs_second: int, rules: MsvRules) -> Order:
    """Exact answer when the order is fixed: `cs_first` acts first in every round.

    >>> from referee.systems.msv import default_rules
    >>> solve_order(100, 0, default_rules()).first_wins
    Fraction(1, 1)
    """
    _check_pair(cs_first, cs_second, rules)
    first, second = attack_outcomes(cs_first, rules), attack_outcomes(cs_second, rules)
    threshold = rules.defeat_threshold
    wins_f = _solve(first, second, threshold, Fraction(0), Fraction(1))
    rounds_f = _solve(first, second, threshold, Fraction(1), Fraction(0))
    return Order(wins_f[0, 0], rounds_f[0, 0])


def analyse_duel(cs_a: int, cs_b: int, rules: MsvRules) -> DuelAnalysis:
    """P(A wins), P(B wins) and expected rounds, exactly, initiative included (MSV-5).

    >>> from referee.systems.msv import default_rules
    >>> round(float(analyse_duel(60, 65, default_rules()).p_a_wins), 4)
    0.3923
    """
    _check_pair(cs_a, cs_b, rules)
    p_first = first_mover_chance(cs_a, cs_b, rules)
    a_first, b_first = solve_order(cs_a, cs_b, rules), solve_order(cs_b, cs_a, rules)
    p_a = p_first * a_first.first_wins + (1 - p_first) * (1 - b_first.first_wins)
    rounds = p_first * a_first.expected_rounds + (1 - p_first) * b_first.expected_rounds
    return DuelAnalysis(cs_a, cs_b, rules, p_first, p_a, rounds)


def _action_map(out: Outcomes, threshold: int, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """One whole action (free attacks included) as a linear map on flat (f, s) states.

    Returns (moves, wins): moves[i, j] is the chance state i ends the action in state j with
    the foe to act; wins[i] the chance the action defeats the foe. `axis` is the damaged one.
    """
    size = threshold * threshold
    moves = np.zeros((size, size))
    wins = np.zeros(size)
    order = range(threshold - 1, -1, -1)
    for f in order:
        for s in order:
            i = f * threshold + s
            for outcome, p in out.items():
                hit = (f + outcome.damage, s) if axis == 0 else (f, s + outcome.damage)
                if max(hit) >= threshold:
                    wins[i] += float(p)
                    continue
                j = hit[0] * threshold + hit[1]
                if outcome.again:
                    moves[i] += float(p) * moves[j]
                    wins[i] += float(p) * wins[j]
                else:
                    moves[i, j] += float(p)
    return moves, wins


def _order_lengths(
    cs_first: int, cs_second: int, rules: MsvRules, tail: float, max_rounds: int
) -> list[float]:
    threshold = rules.defeat_threshold
    move_f, win_f = _action_map(attack_outcomes(cs_first, rules), threshold, axis=1)
    move_s, win_s = _action_map(attack_outcomes(cs_second, rules), threshold, axis=0)
    mass = np.zeros(threshold * threshold)
    mass[0] = 1.0
    ends: list[float] = []
    while mass.sum() > tail:
        if len(ends) >= max_rounds:
            raise LimitError(f"bout length not settled to {tail!r} within {max_rounds} rounds")
        after_f = mass @ move_f
        ends.append(float(mass @ win_f + after_f @ win_s))
        mass = after_f @ move_s
    return ends


def length_distribution(
    cs_a: int, cs_b: int, rules: MsvRules, tail: float = 1e-12, max_rounds: int = MAX_LENGTH_ROUNDS
) -> tuple[float, ...]:
    """P(the bout lasts k rounds) for k = 1, 2, ... until less than `tail` is left (float).

    Checked in the tests against `analyse_duel(...).expected_rounds` and a brute force.

    >>> from referee.systems.msv import default_rules
    >>> [round(p, 3) for p in length_distribution(100, 100, default_rules())[:4]]
    [0.001, 0.015, 0.14, 0.456]
    """
    _check_pair(cs_a, cs_b, rules)
    p_first = float(first_mover_chance(cs_a, cs_b, rules))
    a_first = _order_lengths(cs_a, cs_b, rules, tail, max_rounds)
    b_first = _order_lengths(cs_b, cs_a, rules, tail, max_rounds)
    size = max(len(a_first), len(b_first))
    a_first += [0.0] * (size - len(a_first))
    b_first += [0.0] * (size - len(b_first))
    return tuple(p_first * a + (1 - p_first) * b for a, b in zip(a_first, b_first, strict=True))
