"""SRP exact odds: the grouped computation against brute force, icepool, and simulation."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from pathlib import Path

import icepool
import pytest
from click.testing import CliRunner

from referee.analysis.srp_odds import (
    OUTCOMES,
    attack_odds,
    duel_odds,
    hit_counts,
    hit_distribution,
)
from referee.cli.main import cli
from referee.errors import LimitError
from referee.systems.srp.gear import parse_shield
from referee.systems.srp.melee import Attack, Defense, resolve
from referee.systems.srp.rules import Down, SrpRules
from referee.systems.srp.sheet import DefenseKind

W, SH, AV, NO = DefenseKind.WEAPON, DefenseKind.SHIELD, DefenseKind.AVOID, DefenseKind.NONE

CASES = [
    (Attack(skill=12, weapon_damage=3, dam=1), Defense(kind=W, skill=10, armor=4), SrpRules()),
    (
        Attack(skill=15, weapon_damage=2),
        Defense(kind=SH, skill=12, armor=4, shield=parse_shield("medium")),
        SrpRules(),
    ),
    (
        Attack(skill=27, weapon_damage=4, dam=2, rear=True),
        Defense(kind=SH, skill=22, armor=9, shield=parse_shield("[8]")),
        SrpRules(shield_keeps_level=True, defense_twenty_fails=False),
    ),
    (Attack(skill=8, weapon_damage=-2), Defense(kind=AV, skill=15, armor=0), SrpRules()),
    (
        Attack(skill=14, weapon_damage=1, automatic=True),
        Defense(kind=W, skill=18, armor=3),
        SrpRules(),
    ),
    (
        Attack(skill=30, weapon_damage=3, missile=True, thrown=True, dam=3),
        Defense(kind=NO, armor=6),
        SrpRules(),
    ),
]


def brute_force(attack: Attack, defense: Defense, rules: SrpRules) -> dict[int, int]:
    out: dict[int, int] = {}
    for faces in itertools.product(range(1, 21), range(1, 21), range(1, 7)):
        hits = resolve(attack, defense, faces, rules).hits
        out[hits] = out.get(hits, 0) + 1
    return dict(sorted(out.items()))


@pytest.mark.parametrize(("attack", "defense", "rules"), CASES)
def test_grouped_counts_equal_brute_force(
    attack: Attack, defense: Defense, rules: SrpRules
) -> None:
    assert hit_counts(attack, defense, rules) == brute_force(attack, defense, rules)


@pytest.mark.parametrize(("attack", "defense", "rules"), CASES)
def test_icepool_agrees(attack: Attack, defense: Defense, rules: SrpRules) -> None:
    die = icepool.map(
        lambda a, d, k: resolve(attack, defense, (a, d, k), rules).hits,
        icepool.d20,
        icepool.d20,
        icepool.d6,
    )
    oracle = {k: Fraction(n, die.denominator()) for k, n in die.items()}
    assert hit_distribution(attack, defense, rules) == oracle


def test_summaries_by_hand() -> None:
    # skill 10 vs no defense, AP 20: only the critical (roll 1) gets a hit -> 1/20
    odds = attack_odds(Attack(skill=10), Defense(kind=NO, armor=20))
    assert (odds.p_hit, odds.mean) == (Fraction(1, 20), Fraction(1, 20))
    assert sum(odds.distribution.values()) == 1 and OUTCOMES == 2400


def test_duel_by_hand() -> None:
    half = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    # first to land one hit wins; the first attacker: p / (1 - (1-p)(1-q)) = 2/3
    assert duel_odds(half, half, 1, 1).first == Fraction(2, 3)
    never = {0: Fraction(1)}
    assert duel_odds(never, never, 3, 3).never == 1
    assert duel_odds(never, half, 3, 3).second == 1
    # "down" means exceeding: one more hit needed
    assert (
        duel_odds(half, half, 1, 1, SrpRules(down=Down.EXCEED)).first
        == duel_odds(half, half, 2, 2).first
    )


def iterate(
    first: dict[int, Fraction], second: dict[int, Fraction], hp_a: int, hp_b: int, steps: int = 400
) -> float:
    """Power iteration of the duel chain in floats: mass absorbed at 'first wins'."""
    mass = {(0, 0): 1.0}
    won = 0.0
    for _ in range(steps):
        after_a: dict[tuple[int, int], float] = {}
        for (ta, tb), m in mass.items():
            for k, p in first.items():
                if tb + k >= hp_b:
                    won += m * float(p)
                else:
                    after_a[ta, tb + k] = after_a.get((ta, tb + k), 0.0) + m * float(p)
        mass = {}
        for (ta, tb), m in after_a.items():
            for k, p in second.items():
                if ta + k < hp_a:
                    mass[ta + k, tb] = mass.get((ta + k, tb), 0.0) + m * float(p)
    return won


def test_duel_equals_iterated_chain() -> None:
    a = hit_distribution(*CASES[0][:2])
    b = hit_distribution(*CASES[1][:2])
    exact = duel_odds(a, b, 6, 5)
    assert abs(float(exact.first) - iterate(a, b, 6, 5)) < 1e-9
    assert exact.first + exact.second == 1


def test_duel_monte_carlo_within_tolerance() -> None:
    a = hit_distribution(*CASES[0][:2])
    b = hit_distribution(*CASES[1][:2])
    exact = float(duel_odds(a, b, 6, 5).first)
    rng = random.Random(20)
    ka, wa = list(a), [float(p) for p in a.values()]
    kb, wb = list(b), [float(p) for p in b.values()]
    trials, wins = 20000, 0
    for _ in range(trials):
        ta = tb = 0
        while True:
            tb += rng.choices(ka, wa)[0]
            if tb >= 5:
                wins += 1
                break
            ta += rng.choices(kb, wb)[0]
            if ta >= 6:
                break
    # 4 standard errors of a proportion near 0.5 over 20,000 trials is about 0.014
    assert abs(wins / trials - exact) < 0.015


def test_hit_total_bound() -> None:
    with pytest.raises(LimitError, match="101"):
        duel_odds({1: Fraction(1)}, {1: Fraction(1)}, 101, 5)


def test_cli_odds(tmp_path: Path) -> None:
    plot = tmp_path / "hits.png"
    result = CliRunner().invoke(
        cli,
        [
            "srp",
            "odds",
            "--attacker",
            "skill=10 hits=1",
            "--defender",
            "defend=none armor=20 hits=1",
            "--plot",
            str(plot),
        ],
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "one attack: P(at least one hit) = 1/20 (5.00%), mean hits 1/20 (0.0500)",
        "hits  probability",
        "   0  19/20 (95.00%)",
        "   1  1/20 (5.00%)",
        "duel to 1 / 1 hits, attacker first: attacker wins 100.00%, defender wins 0.00%",  # skill 0
        f"plot written to {plot}",
    ]
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_cli_odds_json() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "srp",
            "odds",
            "--attacker",
            "skill=15 damage=3 hits=12",
            "--defender",
            "defense=12 defend=shield shield=medium armor=4 hits=10",
            "--json",
        ],
    )
    data = json.loads(result.stdout)
    assert result.exit_code == 0
    assert set(data) >= {"distribution", "p_hit", "mean_hits", "duel"}
    assert Fraction(data["p_hit"]) == 1 - Fraction(data["distribution"]["0"])


def test_cli_odds_bad_spec() -> None:
    result = CliRunner().invoke(
        cli, ["srp", "odds", "--attacker", "skill=15 speed=3", "--defender", "hits=2"]
    )
    assert result.exit_code == 2 and "'speed'" in result.stderr
