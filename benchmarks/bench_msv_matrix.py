"""Exact MSV win matrix (CS 1..100 x 1..100) vs a per-pair Monte Carlo of equal accuracy.

Equal accuracy: a standard error of 1e-3 on P(A wins) needs p(1-p)/n <= 1e-6, i.e. up to
250,000 duels per pair. The Monte Carlo is timed on a few random pairs (scaled linearly
if DUELS_TIMED is set below 250,000: its cost is linear in the number of duels) and
extrapolated to all 10,000 pairs. Run: .venv/bin/python benchmarks/bench_msv_matrix.py
"""

from __future__ import annotations

import random
import statistics
import time

import numpy as np

from referee.analysis.msv_matrix import win_matrix
from referee.analysis.msv_simulate import simulate_duel
from referee.systems.msv.rules import MsvRules

SKILLS = list(range(1, 101))
DUELS_FOR_EQUAL_ACCURACY = 250_000
DUELS_TIMED = 250_000
SAMPLE_PAIRS = 12


def time_exact(rules: MsvRules) -> tuple[float, np.ndarray]:
    times, matrix = [], np.zeros(0)
    for _ in range(3):
        start = time.perf_counter()
        matrix = win_matrix(SKILLS, rules)
        times.append(time.perf_counter() - start)
    return statistics.median(times), matrix


def time_monte_carlo(rules: MsvRules, matrix: np.ndarray) -> tuple[float, float]:
    """Seconds per pair at 250,000 duels (scaled), and the worst error in standard errors."""
    pick = random.Random(2026)
    pairs = [(pick.choice(SKILLS), pick.choice(SKILLS)) for _ in range(SAMPLE_PAIRS)]
    gen = np.random.default_rng(2026)
    spent, worst = 0.0, 0.0
    for a, b in pairs:
        start = time.perf_counter()
        sim = simulate_duel(a, b, rules, DUELS_TIMED, gen)
        spent += time.perf_counter() - start
        exact = float(matrix[a - 1, b - 1])
        se = max(exact * (1 - exact), 1e-12) ** 0.5 / DUELS_TIMED**0.5
        worst = max(worst, abs(sim.p_a_wins - exact) / se)
    per_pair = spent / len(pairs) * DUELS_FOR_EQUAL_ACCURACY / DUELS_TIMED
    return per_pair, worst


def main() -> None:
    rules = MsvRules()
    exact, matrix = time_exact(rules)
    per_pair, worst = time_monte_carlo(rules, matrix)
    monte_carlo = per_pair * len(SKILLS) ** 2
    print(f"exact matrix 100 x 100 (float64 kernel, median of 3): {exact:.3f} s")
    print(
        f"Monte Carlo, {DUELS_FOR_EQUAL_ACCURACY:,} duels per pair (SE <= 1e-3): "
        f"{per_pair:.2f} s per pair (mean of {SAMPLE_PAIRS} random pairs "
        f"timed at {DUELS_TIMED:,} duels), {monte_carlo / 3600:.1f} h for 10,000 pairs"
    )
    print(f"Monte Carlo vs exact on the timed pairs: worst |error| = {worst:.2f} standard errors")
    print(f"ratio (Monte Carlo / exact): {monte_carlo / exact:,.0f}x (target >= 100x)")


if __name__ == "__main__":
    main()
