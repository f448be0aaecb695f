"""The exact 100 x 100 matrix of a formula pack vs today's default-pack kernel.

The formula pack is the text written as formulas (src/referee/lab/packs/msv-text.toml): the
same numbers, computed through the formula evaluator. Its time includes loading the pack
(parsing, checking every roll and CS 0..100) with every cache cleared. Targets: at most 1.2x
the default kernel; the default kernel itself at most 0.05 s on an idle machine.
Run: .venv/bin/python benchmarks/bench_lab_matrix.py
"""

from __future__ import annotations

import statistics
import time
from importlib import resources

import numpy as np

from referee.analysis.msv_matrix import win_matrix
from referee.systems.msv.rules import MsvRules, face_grid, rules_from_text

SKILLS = list(range(1, 101))
TEXT = resources.files("referee.lab").joinpath("packs/msv-text.toml").read_text("utf-8")


def default_kernel() -> np.ndarray:
    return win_matrix(SKILLS, MsvRules())


def formula_pack() -> np.ndarray:
    face_grid.cache_clear()
    return win_matrix(SKILLS, rules_from_text(TEXT, "msv-text.toml"))


def timed(work: object, runs: int = 7) -> tuple[float, np.ndarray]:
    times, result = [], np.zeros(0)
    for _ in range(runs):
        start = time.perf_counter()
        result = work()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    base, plain = timed(default_kernel)
    pack, formulas = timed(formula_pack)
    same = bool(np.array_equal(plain, formulas, equal_nan=True))
    print(f"default pack, 100 x 100 exact matrix (median of 7): {base:.3f} s")
    print(f"the text as a formula pack, loaded fresh each time (median of 7): {pack:.3f} s")
    print(f"same numbers: {same}")
    print(f"ratio (formula pack / default kernel): {pack / base:.2f}x (target <= 1.2x)")


if __name__ == "__main__":
    main()
