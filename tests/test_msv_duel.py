"""Exact MSV duels: hand formulas, a forward brute force, the numpy matrix, Monte Carlo."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from referee.analysis.msv_duel import analyse_duel, length_distribution, solve_order
from referee.analysis.msv_matrix import win_matrix
from referee.analysis.msv_outcomes import (
    Outcome,
    attack_outcomes,
    face_counts,
    first_mover_chance,
    key_distribution,
)
from referee.analysis.msv_simulate import simulate_duel
from referee.errors import RuleError
from referee.systems.msv.attack import CombatSkill, interpret
from referee.systems.msv.initiative import sort_key
from referee.systems.msv.rules import MsvRules, rules_from_mapping

TEXT = MsvRules()
PACKS = {
    "text": TEXT,
    "none": rules_from_mapping({"critical_effect": "none"}),
    "extra": rules_from_mapping({"critical_effect": "extra-damage", "critical_extra_damage": 2}),
    "raw": rules_from_mapping({"tie_break": "higher-raw-roll", "defeat_threshold": 9}),
    "bands": rules_from_mapping({"band_width": 10, "damage_cap": 6, "defeat_threshold": 8}),
}


def brute_force(cs_a: int, cs_b: int, rules: MsvRules) -> tuple[float, float, list[float]]:
    """Oracle: push probability forward roll by roll (floats) until < 1e-15 is left.

    Independent of the engine: initiative from all 100 x 100 face pairs, then every live
    state (taken by A, taken by B, who acts, who is first) rolls every d100 face through
    `interpret`. Returns P(A wins), E[rounds] and P(length = k).
    """
    ahead = Counter(
        (sort_key(cs_a, x, rules) > sort_key(cs_b, y, rules))
        - (sort_key(cs_a, x, rules) < sort_key(cs_b, y, rules))
        for x in range(1, 101)
        for y in range(1, 101)
    )
    p_a_first = ahead[1] / (ahead[1] + ahead[-1])
    faces = {
        who: Counter(
            (hit.damage, hit.free_attack)
            for hit in (interpret(CombatSkill(cs), r, rules) for r in range(1, 101))
        )
        for who, cs in ((0, cs_a), (1, cs_b))
    }
    # state: (taken by A, taken by B, who acts, who was first, round number)
    live = {(0, 0, 0, 0, 1): p_a_first, (0, 0, 1, 1, 1): 1 - p_a_first}
    a_wins, lengths = 0.0, [0.0]
    while sum(live.values()) > 1e-15:
        nxt: dict[tuple[int, int, int, int, int], float] = {}
        for (ta, tb, actor, first, k), mass in live.items():
            for (damage, again), n in faces[actor].items():
                p = mass * n / 100
                taken = [ta, tb]
                taken[1 - actor] += damage
                if taken[1 - actor] >= rules.defeat_threshold:
                    a_wins += p if actor == 0 else 0.0
                    lengths += [0.0] * (k + 1 - len(lengths))
                    lengths[k] += p
                    continue
                who = actor if again else 1 - actor
                key = (taken[0], taken[1], who, first, k + (who == first and not again))
                nxt[key] = nxt.get(key, 0.0) + p
        live = nxt
    rounds = sum(k * p for k, p in enumerate(lengths))
    return a_wins, rounds, lengths[1:]


@pytest.mark.parametrize(
    ("cs_a", "cs_b", "pack"),
    [(60, 65, "text"), (100, 100, "text"), (0, 30, "text"), (40, 40, "none"),
     (55, 70, "extra"), (45, 65, "raw"), (65, 60, "bands"), (8, 12, "raw")],
)  # fmt: skip
def test_exact_engine_against_forward_brute_force(cs_a: int, cs_b: int, pack: str) -> None:
    rules = PACKS[pack]
    duel = analyse_duel(cs_a, cs_b, rules)
    p_a, rounds, lengths = brute_force(cs_a, cs_b, rules)
    assert abs(float(duel.p_a_wins) - p_a) < 1e-12
    assert abs(float(duel.expected_rounds) - rounds) < 1e-10
    fast = length_distribution(cs_a, cs_b, rules, tail=1e-15)
    assert max(abs(x - y) for x, y in zip(fast, lengths, strict=False)) < 1e-12


def test_threshold_one_hand_formula() -> None:
    # MSV-7 threshold 1: the first hit ends it.
    # F wins w.p. pF / (1 - mF mS); E[rounds] = 1 / (1 - mF mS)
    rules = rules_from_mapping({"defeat_threshold": 1})
    for cs_f, cs_s in [(30, 70), (65, 60), (5, 100)]:
        p_f, p_s = Fraction(cs_f, 100), Fraction(min(cs_s, 100), 100)
        cycle = (1 - p_f) * (1 - p_s)
        order = solve_order(cs_f, cs_s, rules)
        assert order.first_wins == p_f / (1 - cycle)
        assert order.expected_rounds == 1 / (1 - cycle)


def test_first_mover_hand_formula() -> None:
    # MSV-5, two fighters, CS 15 vs CS 15: effect 1 on 1..15 for both. Exact tie 15^2 + 85^2.
    # A ahead only if A succeeds and B fails: 15 * 85 of 10000, same for B -> 1/2
    assert first_mover_chance(15, 15, TEXT) == Fraction(1, 2)
    # CS 15 vs CS 0: A ahead whenever A succeeds (15 of 100), B never ahead -> 1
    assert first_mover_chance(15, 0, TEXT) == 1
    with pytest.raises(RuleError, match="never settles"):
        first_mover_chance(0, 0, TEXT)


def test_symmetry_and_exactness() -> None:
    duel = analyse_duel(60, 65, TEXT)
    back = analyse_duel(65, 60, TEXT)
    assert isinstance(duel.p_a_wins, Fraction)
    assert duel.p_a_wins + back.p_a_wins == 1
    assert duel.expected_rounds == back.expected_rounds
    assert analyse_duel(70, 70, TEXT).p_a_wins == Fraction(1, 2)
    assert analyse_duel(0, 40, TEXT).p_b_wins == 1


def test_cs_zero_against_cs_zero_is_a_clear_error() -> None:
    with pytest.raises(RuleError, match="CS 0 vs CS 0 never ends"):
        analyse_duel(0, 0, TEXT)


def test_length_distribution_sums_and_mean() -> None:
    # the float distribution must add to 1 and have the exact mean (rounds, MSV-6)
    for cs_a, cs_b in [(60, 65), (5, 3)]:
        lengths = length_distribution(cs_a, cs_b, TEXT, tail=1e-13)
        mean = sum(k * p for k, p in enumerate(lengths, start=1))
        assert abs(sum(lengths) - 1) < 1e-12
        assert abs(mean - float(analyse_duel(cs_a, cs_b, TEXT).expected_rounds)) < 1e-8


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_matrix_kernel_against_fraction_engine(pack: str) -> None:
    rules = PACKS[pack]
    skills = list(range(1, 101))
    matrix = win_matrix(skills, rules)
    for a, b in [(1, 100), (37, 64), (60, 65), (99, 100), (12, 7), (50, 50)]:
        exact = analyse_duel(a, b, rules).p_a_wins
        assert abs(matrix[a - 1, b - 1] - float(exact)) < 1e-12


def test_matrix_nan_for_cs_zero_pair_only() -> None:
    matrix = win_matrix([0, 40], TEXT)
    assert math.isnan(matrix[0, 0])
    assert matrix.tolist()[0][1:] == [0.0]
    assert matrix.tolist()[1] == [1.0, 0.5]


@pytest.mark.parametrize(("cs_a", "cs_b", "pack"), [(60, 65, "text"), (45, 55, "extra")])
def test_monte_carlo_within_four_standard_errors(cs_a: int, cs_b: int, pack: str) -> None:
    rules = PACKS[pack]
    duel = analyse_duel(cs_a, cs_b, rules)
    sim = simulate_duel(cs_a, cs_b, rules, 40_000, np.random.default_rng(20261129))
    assert abs(sim.p_a_wins - float(duel.p_a_wins)) < 4 * sim.standard_error
    p_first = float(duel.p_a_first)
    assert abs(sim.a_first / sim.duels - p_first) < 4 * math.sqrt(
        p_first * (1 - p_first) / sim.duels
    )
    lengths = length_distribution(cs_a, cs_b, rules)
    mean = float(duel.expected_rounds)
    sd = math.sqrt(sum((k - mean) ** 2 * p for k, p in enumerate(lengths, start=1)))
    assert abs(sim.mean_rounds - mean) < 4 * sd / math.sqrt(sim.duels)


#: Formula packs that reach the kernel's corners: damages past the threshold (merged at it),
#: criticals that deal nothing and attack again (folded away), extra damage by formula, a
#: one-point threshold, and initiative keys of their own.
CORNERS = {
    "past-threshold": rules_from_mapping({"damage": "roll % 17", "defeat_threshold": 12}),
    "free-miss": rules_from_mapping({"damage": "(roll > 20) * 3", "critical": "roll % 10 == 0"}),
    "extra-formula": rules_from_mapping(
        {
            "critical_effect": "extra-damage",
            "critical_extra_damage": "1 + (cs > 50)",
            "success": "roll <= cs + 5",
        }
    ),
    "one-point": rules_from_mapping({"defeat_threshold": 1}),
    "raw-keys": rules_from_mapping(
        {"tie_break": "higher-raw-roll", "initiative": "roll % 5 - 2", "damage": "ceil(roll / 30)"}
    ),
}


@pytest.mark.parametrize("pack", sorted(PACKS) + sorted(CORNERS))
def test_face_counts_are_the_exact_one_roll_distributions(pack: str) -> None:
    # the matrix's vectorised face counts are attack_outcomes and key_distribution (MSV-1..5)
    rules = {**PACKS, **CORNERS}[pack]
    skills = [0, 1, 9, 10, 37, 50, 50, 65, 99, 100, 101, 130]
    cap = rules.defeat_threshold
    counts = face_counts(skills, rules, cap)
    for i, cs in enumerate(skills):
        merged: Counter[Outcome] = Counter()
        for o, p in attack_outcomes(cs, rules).items():
            merged[Outcome(min(o.damage, cap), o.again)] += p
        total = int(counts.totals[i])
        got = {Outcome(0, False): Fraction(int(counts.misses[i]), total)} | {
            Outcome(d + 1, bool(a)): Fraction(int(counts.hits[i, d, a]), total)
            for d in range(cap)
            for a in (0, 1)
        }
        assert {o: p for o, p in got.items() if p} == dict(merged)
        keys = {
            int(k): Fraction(int(c), 100)
            for k, c in zip(counts.keys, counts.key_counts[i], strict=True)
            if c
        }
        assert keys == key_distribution(cs, rules)


@pytest.mark.parametrize("pack", sorted(CORNERS))
def test_matrix_kernel_corners_against_fraction_engine(pack: str) -> None:
    rules = CORNERS[pack]
    skills = [0, 3, 40, 100, 40, 130]  # a CS twice, and one past the face table's 0..100
    matrix = win_matrix(skills, rules)
    for i, a in enumerate(skills[:-2]):
        for j, b in enumerate(skills):
            try:
                exact = analyse_duel(a, b, rules).p_a_wins
            except RuleError:  # neither can ever deal damage: the matrix says NaN
                assert math.isnan(matrix[i, j]), (a, b)
                continue
            assert abs(matrix[i, j] - float(exact)) < 1e-12, (a, b)
    # the same CS twice: the same row (BLAS may round its sums by position, in the last bit)
    assert np.allclose(matrix[4], matrix[2], rtol=0, atol=1e-15, equal_nan=True)
