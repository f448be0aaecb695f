"""Group battles: the exact chain against duels and a roll-by-roll brute force, Monte Carlo
against exact, initiative orders, the CLI."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from referee.analysis.msv_duel import analyse_duel
from referee.analysis.msv_outcomes import first_mover_chance, key_distribution
from referee.cli.main import cli
from referee.errors import LimitError, NotationError
from referee.lab.battle import (
    Policy,
    exact_battle,
    make_fighters,
    order_distribution,
    parse_side,
    simulate_battle,
)
from referee.systems.msv.attack import interpret
from referee.systems.msv.rules import MsvRules, rules_from_mapping

FORMULA = rules_from_mapping({"damage": "min(5, ceil(roll / 12))", "critical": "roll % 9 == 0"})


@pytest.mark.parametrize("rules", [MsvRules(), FORMULA], ids=["text", "formula"])
@pytest.mark.parametrize("pair", [(60, 65), (40, 75), (100, 0)])
def test_one_on_one_is_the_exact_duel(rules: MsvRules, pair: tuple[int, int]) -> None:
    duel = analyse_duel(*pair, rules)
    fight = exact_battle([("A", pair[0])], [("B", pair[1])], rules, "focus-weakest")
    assert fight.p_first_side == pytest.approx(float(duel.p_a_wins), abs=1e-12)
    assert fight.expected_rounds == pytest.approx(float(duel.expected_rounds), abs=1e-9)


def test_order_distribution_matches_two_fighters_and_sums_to_one() -> None:
    rules = MsvRules()
    keys = [key_distribution(cs, rules) for cs in (60, 65)]
    assert order_distribution(keys)[(0, 1)] == first_mover_chance(60, 65, rules)
    three = order_distribution([key_distribution(cs, rules) for cs in (0, 0, 50)])
    assert sum(three.values()) == 1
    assert three[(2, 0, 1)] == Fraction(1)  # CS 0 never succeeds: listed order behind (MSV-5)


def brute_force(
    sides: tuple[tuple[int, ...], tuple[int, ...]], rules: MsvRules, policy: str
) -> float:
    """P(side 1 wins), every d100 roll one transition (free attacks too), one linear system."""
    cs = list(sides[0] + sides[1])
    side = [0] * len(sides[0]) + [1] * len(sides[1])
    n, t = len(cs), rules.defeat_threshold
    keys = [key_distribution(c, rules) for c in cs]
    orders = order_distribution(keys)
    states = [
        (taken, order, pos, free)
        for taken in itertools.product(range(t + 1), repeat=n)
        for order in orders
        for pos in range(n)
        for free in [None, *range(n)]
    ]
    index = {s: i for i, s in enumerate(states)}
    hits = {c: [interpret(c, roll, rules) for roll in range(1, 101)] for c in set(cs)}
    a = np.eye(len(states))
    b = np.zeros(len(states))

    def over(taken: tuple[int, ...]) -> int | None:
        up = {side[i] for i in range(n) if taken[i] < t}
        return up.pop() if len(up) == 1 else (None if up else 0)

    def targets(taken: tuple[int, ...], me: int) -> list[tuple[int, float]]:
        enemies = [i for i in range(n) if side[i] != side[me] and taken[i] < t]
        if policy == "random":
            return [(i, 1 / len(enemies)) for i in enemies]
        best = max(enemies, key=lambda i: (taken[i], -cs[i], -i))
        return [(best, 1.0)]

    for (taken, order, pos, free), i in index.items():
        if over(taken) is not None or taken[order[pos]] >= t:
            continue
        me = order[pos]
        choices = [(free, 1.0)] if free is not None else targets(taken, me)
        for target, share in choices:
            for hit in hits[cs[me]]:
                after = list(taken)
                after[target] = min(t, after[target] + hit.damage)
                p = share / 100
                won = over(tuple(after))
                if won is not None:
                    b[i] += p * (won == 0)
                    continue
                if hit.free_attack and after[target] < t:
                    nxt = (tuple(after), order, pos, target)
                else:
                    step = 1
                    while after[order[(pos + step) % n]] >= t:
                        step += 1
                    nxt = (tuple(after), order, (pos + step) % n, None)
                a[i, index[nxt]] -= p
    values = np.linalg.solve(a, b)
    start = tuple([0] * n)
    return sum(float(q) * values[index[(start, o, 0, None)]] for o, q in orders.items())


@pytest.mark.parametrize("policy", ["focus-weakest", "random"])
def test_two_on_one_against_a_roll_by_roll_brute_force(policy: str) -> None:
    rules = rules_from_mapping({"defeat_threshold": 2, "damage": "1 + (roll > 40)"})
    exact = exact_battle([("A", 55), ("B", 30)], [("C", 80)], rules, policy)
    assert exact.p_first_side == pytest.approx(
        brute_force(((55, 30), (80,)), rules, policy), abs=1e-9
    )


@pytest.mark.parametrize("policy", [p.value for p in Policy])
def test_monte_carlo_within_four_standard_errors_of_exact(policy: str) -> None:
    rules = MsvRules()
    sides = ([("A", 60), ("B", 50)], [("C", 70)])
    exact = exact_battle(*sides, rules, policy)
    sim = simulate_battle(*sides, rules, policy, 40_000, np.random.default_rng(7))
    assert abs(sim.p_first_side - exact.p_first_side) <= 4 * sim.se_first_side
    assert abs(sim.expected_rounds - exact.expected_rounds) <= 4 * sim.se_rounds
    for f in range(3):
        assert abs(sim.p_survives[f] - exact.p_survives[f]) <= 4 * max(sim.se_survives[f], 1e-4)
    assert sum(exact.survivors[0]) + sum(exact.survivors[1]) == pytest.approx(1.0, abs=1e-12)
    assert all(sum(d) == pytest.approx(1.0, abs=1e-12) for d in exact.damage)


@pytest.mark.parametrize("policy", ["focus-weakest", "random"])
def test_monte_carlo_face_tables_follow_a_formula_pack(policy: str) -> None:
    """The Monte Carlo reads each d100 face from the pack (MSV-2..MSV-4), free attacks too."""
    sides = ([("A", 60), ("B", 45)], [("C", 75)])
    exact = exact_battle(*sides, FORMULA, policy)
    sim = simulate_battle(*sides, FORMULA, policy, 40_000, np.random.default_rng(11))
    assert abs(sim.p_first_side - exact.p_first_side) <= 4 * sim.se_first_side
    assert abs(sim.expected_rounds - exact.expected_rounds) <= 4 * sim.se_rounds


def test_monte_carlo_progress_and_seed() -> None:
    seen: list[tuple[int, int]] = []

    def note(done: int, total: int) -> None:
        seen.append((done, total))

    one = simulate_battle([("A", 60)], [("B", 60)], MsvRules(), "spread", 2500,
                          np.random.default_rng(3), note, chunk=1000)  # fmt: skip
    two = simulate_battle([("A", 60)], [("B", 60)], MsvRules(), "spread", 2500,
                          np.random.default_rng(3), chunk=1000)  # fmt: skip
    assert seen == [(1000, 2500), (2000, 2500), (2500, 2500)]
    assert one == two


def test_bounds_and_names() -> None:
    # A standard error needs two battles: one is refused (it was NaN, not valid JSON).
    with pytest.raises(LimitError, match=r"battles must be in 2\.\.10000000, got 1"):
        simulate_battle([("A", 60)], [("B", 60)], MsvRules(), "spread", 1, np.random.default_rng(1))
    two = simulate_battle(
        [("A", 60)], [("B", 60)], MsvRules(), "spread", 2, np.random.default_rng(1)
    )
    assert math.isfinite(two.se_first_side) and math.isfinite(two.se_rounds)
    assert [f.name for f in make_fighters([("Orc", 50)], [("Orc", 50)])] == ["Orc", "Orc 2"]
    with pytest.raises(NotationError, match="bad fighter 'Tarl' \\(expected NAME=CS"):
        parse_side("Tarl")
    with pytest.raises(LimitError, match=r"a side has 1\.\.6 fighters, got 7"):
        parse_side(",".join(["O=50"] * 7))
    with pytest.raises(LimitError, match="the exact chain would have"):
        exact_battle(parse_side("A=50,B=50,C=50"), parse_side("D=50,E=50"), MsvRules())


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["lab", "battle", *args])
    return result.exit_code, result.stdout, result.stderr


def test_battle_cli_exact_and_monte_carlo() -> None:
    code, out, err = run("Tarl=65", "Orc=50,Orc=50")
    assert (code, err) == (0, "")
    assert out.splitlines()[:4] == [
        "exact, policy focus-weakest (a chain of 73,728 cells)",
        "P(side 1 wins)    0.0503   Tarl (CS 65)",
        "P(side 2 wins)    0.9497   Orc (CS 50), Orc 2 (CS 50)",
        "expected rounds   7.705",
    ]
    args = ("Tarl=65,Rask=55", "PaKur=70,Orc=50", "--n", "2000", "--seed", "1", "--json")
    data = json.loads(run(*args)[1])
    assert data["method"] == "monte-carlo" and data["battles"] == 2000
    assert data["states"] == 6_291_456 and data["se_side_wins"] > 0
    assert json.loads(run(*args)[1]) == data  # the seed reproduces it
    code, out, _ = run("A=60", "B=60", "--monte-carlo", "--n", "500", "--seed", "2")
    assert code == 0 and "+- " in out.splitlines()[1]


@pytest.mark.parametrize(
    ("args", "err"),
    [
        (
            ["Tarl", "Orc=50"],
            "error: bad fighter 'Tarl' (expected NAME=CS, e.g. 'Tarl Cabot=65', or old dice "
            "NAME=2dN, e.g. 'PaKur=2d24')\n",
        ),
        (["A=50", "B=50", "--n", "0", "--monte-carlo"], "error: battles must be in "
         "2..10000000, got 0 (a standard error needs at least two)\n"),
        (["A=50", "B=50", "--n", "1", "--monte-carlo"], "error: battles must be in "
         "2..10000000, got 1 (a standard error needs at least two)\n"),
        (["A=0", "B=0"], "error: nobody can ever deal damage: the battle would never end\n"),
    ],
)  # fmt: skip
def test_battle_cli_bad_input(args: list[str], err: str) -> None:
    assert run(*args) == (2, "", err)


def test_a_free_attack_that_deals_nothing_is_rolled_again_in_the_exact_chain() -> None:
    # MSV-4: a critical gives a free attack even when it deals 0 damage. With P(free, 0) = 1/4,
    # P(no free, 2) = 1/2 and P(no free, 0) = 1/4, the action ends with 0 with probability
    # (1/4) / (3/4) = 1/3 and with 2 with probability 2/3; nothing is a defeat (threshold 5).
    from fractions import Fraction

    from referee.analysis.msv_outcomes import Outcome
    from referee.errors import RuleError
    from referee.lab.battle import action_damage

    outcomes = {
        Outcome(0, True): Fraction(1, 4),
        Outcome(2, False): Fraction(1, 2),
        Outcome(0, False): Fraction(1, 4),
    }
    got = action_damage(outcomes, 5)
    assert got.tolist() == pytest.approx([1 / 3, 0, 2 / 3, 0, 0, 0], abs=1e-15)
    with pytest.raises(RuleError):
        action_damage({Outcome(0, True): Fraction(1)}, 5)
