"""The exact 100 x 100 matrix of a formula pack vs today's default-pack kernel.

The formula pack is the text written as formulas (src/referee/lab/packs/msv-text.toml): the
same numbers, computed through the formula evaluator. Its time includes loading the pack
(parsing, checking every roll and CS 0..100) with every cache cleared. Targets: at most 1.2x
the default kernel (the two are timed in turn, so a change of load hits both); the default
kernel itself at most 0.05 s on an idle machine. It also prints where the default pack's time
goes (face counts, initiative, the backward sweep) and the load average: the machine may be
shared.
Run: .venv/bin/python benchmarks/bench_lab_matrix.py
"""

from __future__ import annotations

import os
import statistics
import time
from importlib import resources

import numpy as np

from referee.analysis.msv_matrix import first_mover_matrix, first_mover_wins, win_matrix
from referee.analysis.msv_outcomes import face_counts, grid_arrays
from referee.systems.msv.rules import MsvRules, face_grid, rules_from_text

SKILLS = list(range(1, 101))
TEXT = resources.files("referee.lab").joinpath("packs/msv-text.toml").read_text("utf-8")


def default_kernel() -> np.ndarray:
    return win_matrix(SKILLS, MsvRules())


def formula_pack() -> np.ndarray:
    face_grid.cache_clear()
    grid_arrays.cache_clear()
    return win_matrix(SKILLS, rules_from_text(TEXT, "msv-text.toml"))


def timed(work: object, runs: int = 7) -> tuple[float, np.ndarray]:
    times, result = [], np.zeros(0)
    for _ in range(runs):
        start = time.perf_counter()
        result = work()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def alternated(first: object, second: object, runs: int = 7) -> list[tuple[float, np.ndarray]]:
    """Median time and result of two works run in turn, so that a change of load hits both."""
    pairs = [(timed(first, 1), timed(second, 1)) for _ in range(runs)]
    return [(statistics.median(p[k][0] for p in pairs), pairs[-1][k][1]) for k in range(2)]


def stages() -> str:
    """Median time of each stage of the default pack's matrix, in ms."""
    rules = MsvRules()
    parts = {
        "face counts": lambda: face_counts(SKILLS, rules, rules.defeat_threshold),
        "initiative (with its counts)": lambda: first_mover_matrix(SKILLS, rules),
        "backward sweep (with its counts)": lambda: first_mover_wins(SKILLS, rules),
    }
    return ", ".join(f"{name} {timed(work)[0] * 1000:.1f} ms" for name, work in parts.items())


def main() -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average (1, 5, 15 min): {load}")
    (base, plain), (pack, formulas) = alternated(default_kernel, formula_pack)
    same = bool(np.array_equal(plain, formulas, equal_nan=True))
    print(f"default pack, 100 x 100 exact matrix (median of 7): {base:.3f} s")
    print(f"the text as a formula pack, loaded fresh each time (median of 7): {pack:.3f} s")
    print(f"same numbers: {same}")
    print(f"ratio (formula pack / default kernel): {pack / base:.2f}x (target <= 1.2x)")
    print(f"default pack, by stage (median of 7): {stages()}")
    print(f"default pack within 0.05 s: {base <= 0.05}")


if __name__ == "__main__":
    main()
