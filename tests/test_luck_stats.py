"""The luck report's statistics: exact against brute force and closed forms, and its verdict's
false-alarm rate and power measured on simulated tables (seeded numpy, vectorised)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.analysis.luck import NO_SIGN, UNLIKELY, Swing, Throw, luck, unlikely
from referee.analysis.luck_stats import (
    chi_square_sf,
    convolve,
    face_bins,
    gamma_q,
    longest_run,
    longest_run_at_least,
    mid_p,
    poisson_binomial,
    sum_distribution,
)
from referee.errors import RuleError

#: (x, df, P(chi-square >= x)): textbook quantiles (R's qchisq, to its printed digits).
QUANTILES = [
    (3.841458820694124, 1, 0.05),
    (6.6348966010212145, 1, 0.01),
    (23.209251158954356, 10, 0.01),
    (123.22522145336181, 99, 0.05),
    (134.6416169415382, 99, 0.01),
    (0.10258658877510107, 2, 0.95),
]


@pytest.mark.parametrize(("x", "df", "p"), QUANTILES)
def test_the_chi_square_survival_matches_known_quantiles(x: float, df: int, p: float) -> None:
    assert chi_square_sf(x, df) == pytest.approx(p, rel=1e-7)


@pytest.mark.parametrize("a", [1, 2, 3, 7, 30])
@pytest.mark.parametrize("x", [0.01, 0.5, 2.0, 9.5, 40.0])
def test_gamma_q_of_a_whole_a_is_the_poisson_tail(a: int, x: float) -> None:
    exact = math.exp(-x) * sum(x**k / math.factorial(k) for k in range(a))
    assert gamma_q(a, x) == pytest.approx(exact, rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("x", [0.001, 0.3, 1.0, 4.0, 25.0])
def test_gamma_q_of_a_half_is_erfc(x: float) -> None:
    assert gamma_q(0.5, x) == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-10)


def test_gamma_q_refuses_what_it_is_not_defined_for() -> None:
    with pytest.raises(RuleError, match="a > 0"):
        gamma_q(0, 1.0)
    with pytest.raises(RuleError, match="degree of freedom"):
        chi_square_sf(1.0, 0)
    assert gamma_q(3, 0.0) == 1.0


def brute_count(chances: list[float]) -> list[float]:
    out = [0.0] * (len(chances) + 1)
    for outcome in itertools.product((False, True), repeat=len(chances)):
        chance = math.prod(p if hit else 1 - p for p, hit in zip(chances, outcome, strict=True))
        out[sum(outcome)] += chance
    return out


@pytest.mark.parametrize("seed", range(5))
def test_poisson_binomial_is_the_brute_force_count(seed: int) -> None:
    chances = np.random.default_rng(seed).random(9).round(2).tolist()
    assert poisson_binomial(chances).tolist() == pytest.approx(brute_count(chances), abs=1e-15)
    with pytest.raises(RuleError):
        poisson_binomial([1.2])


@given(st.lists(st.floats(0.0, 1.0), max_size=40))
def test_poisson_binomial_is_a_distribution_with_its_chances_mean(chances: list[float]) -> None:
    pmf = poisson_binomial(chances)
    assert len(pmf) == len(chances) + 1 and pmf.min() >= 0.0
    assert pmf.sum() == pytest.approx(1.0)
    assert float(np.dot(np.arange(len(pmf)), pmf)) == pytest.approx(sum(chances), abs=1e-9)
    p = mid_p(pmf, np.arange(len(pmf)))
    assert ((p >= 0.0) & (p <= 1.0)).all()


@given(st.floats(0.1, 60.0), st.floats(0.0, 200.0), st.floats(0.001, 20.0))
def test_gamma_q_falls_as_x_grows(a: float, x: float, more: float) -> None:
    assert 0.0 <= gamma_q(a, x + more) <= gamma_q(a, x) <= 1.0


def test_a_sum_of_damage_is_the_brute_force_sum() -> None:
    pmfs = [[0.35, 0.15, 0.15, 0.15, 0.2], [0.5, 0.5], [0.35, 0.15, 0.15, 0.15, 0.2], [0.0, 1.0]]
    brute = [0.0] * 11
    for values in itertools.product(*(range(len(p)) for p in pmfs)):
        brute[sum(values)] += math.prod(p[v] for p, v in zip(pmfs, values, strict=True))
    assert sum_distribution(pmfs).tolist() == pytest.approx(brute, abs=1e-15)


def test_the_fft_convolution_is_the_direct_one() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.random(1500), rng.random(1200)
    a, b = a / a.sum(), b / b.sum()
    assert len(a) * len(b) > 1 << 20  # the FFT path
    assert np.allclose(convolve(a, b), np.convolve(a, b), atol=1e-15)


def brute_run(misses: list[float], length: int) -> float:
    total = 0.0
    for outcome in itertools.product((False, True), repeat=len(misses)):
        if longest_run(list(outcome)) >= length:
            total += math.prod(q if m else 1 - q for q, m in zip(misses, outcome, strict=True))
    return total


@pytest.mark.parametrize("length", [0, 1, 2, 3, 5, 11])
def test_the_longest_run_dp_is_the_brute_force_chance(length: int) -> None:
    misses = np.random.default_rng(length).random(10).round(2).tolist()
    assert longest_run_at_least(misses, length) == pytest.approx(
        brute_run(misses, length), abs=1e-14
    )


def test_mid_p_values_of_a_fair_coin() -> None:
    pmf = poisson_binomial([0.5] * 6)
    assert mid_p(pmf, [0, 1, 3, 6]).tolist() == pytest.approx([1 / 64, 8 / 64, 1.0, 1 / 64])


@pytest.mark.parametrize(("sides", "rolls"), [(100, 12), (100, 499), (100, 501), (6, 31), (20, 7)])
def test_face_bins_cover_the_die_and_each_expects_five(sides: int, rolls: int) -> None:
    bins = face_bins(sides, rolls)
    if rolls / sides * sides < 10:
        assert bins == []
        return
    assert [f for b in bins for f in b] == list(range(1, sides + 1))
    assert min(len(b) for b in bins) * rolls / sides >= 5
    assert len(bins) == min(sides, rolls // 5) or len(bins) < rolls // 5


def test_a_report_of_a_short_even_table() -> None:
    swings = [
        Swing(0.6, (0.4, 0.3, 0.3), hit=i % 5 != 0, damage=(i % 5 != 0) + (i % 3 == 0))
        for i in range(50)
    ]
    throws = [Throw(100, face) for face in range(1, 101)]
    report = luck(swings, throws)
    assert report.verdict == NO_SIGN
    assert report.halves is not None and (report.halves.observed, report.halves.p_value) == (
        50,
        1.0,
    )
    assert report.hits is not None and report.hits.observed == 40
    assert report.hits.expected == pytest.approx(30.0)
    assert report.hits.p_value < 0.01  # descriptive: it does not sway the verdict
    assert report.longest_misses is not None and report.longest_misses.longest == 1
    assert report.faces is not None and report.faces.statistic == 0.0
    assert report.faces.df == 19
    assert luck([], []).verdict == "no dice to read"
    with pytest.raises(RuleError, match="not on the die"):
        luck([], [Throw(6, 7)])


#: The simulated tables: 5,000 d100 attacks at CS drawn (once) from 20..95, under MSV-2 (a hit is
#: a roll <= CS), the faces the attacks' own.
ROLLS, FAIR_TABLES, BIASED_TABLES, CHUNK = 5_000, 20_000, 2_000, 500


def tables(rng: np.random.Generator, count: int, low_share: float) -> np.ndarray:
    """`count` tables of ROLLS d100 faces, faces 1-50 coming up `low_share` of the time."""
    low = rng.random((count, ROLLS)) < low_share
    within = rng.integers(1, 51, size=(count, ROLLS))
    return np.where(low, within, within + 50)


def verdicts(rng: np.random.Generator, count: int, low_share: float) -> float:
    """The share of simulated tables the report's verdict calls unlikely at 1%."""
    pmf = poisson_binomial([0.5] * ROLLS)
    flagged = 0
    for _ in range(count // CHUNK):
        lows = (tables(rng, CHUNK, low_share) <= 50).sum(axis=1)
        flagged += int(unlikely([pmf], [lows], 0.01).sum())
    return flagged / count


def test_the_verdict_s_false_alarm_rate_at_1_percent_is_1_percent() -> None:
    rate = verdicts(np.random.default_rng(4501), FAIR_TABLES, 0.5)
    # 20,000 tables: the estimate's standard error is 0.07%, so +-0.3% is 4 of them
    assert 0.007 <= rate <= 0.013, rate
    assert rate == 0.00915
    assert rate == pytest.approx(EXACT_FALSE_ALARMS, abs=4 * math.sqrt(0.01 * 0.99 / FAIR_TABLES))


def test_a_d100_that_favours_1_to_50_by_53_percent_is_found_at_5000_rolls() -> None:
    power = verdicts(np.random.default_rng(4502), BIASED_TABLES, 0.53)
    assert power >= 0.9, power
    assert power == 0.9425
    assert power == pytest.approx(EXACT_POWER, abs=4 * math.sqrt(0.05 * 0.95 / BIASED_TABLES))


#: The verdict's exact false-alarm rate and power at 5,000 d100 faces (from the distributions).
EXACT_FALSE_ALARMS, EXACT_POWER = 0.009646306524742958, 0.9512574416326371


def test_the_verdict_s_exact_false_alarm_rate_and_power() -> None:
    fair = luck([], [Throw(100, 1 + i % 100) for i in range(ROLLS)])
    assert fair.false_alarms == pytest.approx(EXACT_FALSE_ALARMS, rel=1e-9)
    assert fair.power_at(0.53) == pytest.approx(EXACT_POWER, rel=1e-9)
    short = luck([], [Throw(100, 1 + i % 100) for i in range(100)])
    assert short.false_alarms == pytest.approx(0.012032975725363475, rel=1e-9)


def test_the_report_reads_a_simulated_table_as_the_vectorised_verdict() -> None:
    rng = np.random.default_rng(4503)
    skills = rng.integers(20, 96, ROLLS)
    pmf = poisson_binomial([0.5] * ROLLS)
    faces = tables(rng, 6, 0.53)
    called = unlikely([pmf], [(faces <= 50).sum(axis=1)], 0.01)
    for row, flagged in zip(faces, called, strict=True):
        swings = [
            Swing(cs / 100, (1 - cs / 100, cs / 100), bool(f <= cs), int(f <= cs))
            for cs, f in zip(skills.tolist(), row.tolist(), strict=True)
        ]
        report = luck(swings, [Throw(100, f) for f in row.tolist()])
        assert report.verdict == (UNLIKELY if flagged else NO_SIGN)
        assert report.hits is not None and report.hits.expected == pytest.approx(skills.sum() / 100)


def test_a_100_bin_chi_square_would_miss_that_bias_most_of_the_time() -> None:
    """Why the chi-square is descriptive: over the d100's 100 faces it finds the planted bias at
    5,000 rolls about one time in seven (noncentrality 18 over 99 df), the halves 19 in 20."""
    rng = np.random.default_rng(4504)
    found = 0
    for _ in range(BIASED_TABLES // CHUNK):
        faces = tables(rng, CHUNK, 0.53)
        counts = np.stack([np.bincount(row, minlength=101)[1:] for row in faces])
        statistics = ((counts - ROLLS / 100) ** 2 / (ROLLS / 100)).sum(axis=1)
        found += sum(chi_square_sf(float(s), 99) <= 0.01 for s in statistics)
    assert found / BIASED_TABLES == 0.1345
