"""Dice notation throughput against the `d20` package, and verifiable vs seeded dice.

Run: python benchmarks/bench_dice.py

- fresh: parse the text and roll it, every time (ours: `parse` + `roll`; d20: its
  lark parser on the text, then `Roller.roll` on the tree, so its parse cache is
  not used).
- cached: parse once through the cache, roll many times (ours: `roll_text`, whose
  parse is an lru_cache; d20: `d20.roll(text)`, whose Roller keeps an LFU parse cache).
- rng: one d100 throw from `VerifiableRng` (HMAC-SHA256) vs `SeededRng`.

Both sides draw from a seeded generator; timing only, no asserts. Prints ratios
(ours / d20 throughput: higher is better; verifiable / seeded cost: lower is better).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import d20
from d20 import diceast

from referee.dice import parse, roll, roll_text
from referee.rng import SeededRng, VerifiableRng

TEXTS = ("1d100", "2d20+1d6")
ROUNDS = 300  # alternate short batches of the two sides; keep each side's best batch
BATCH = 0.001  # seconds per batch, roughly: short enough to often run undisturbed

Call = Callable[[], object]


def batch_size(fn: Call) -> int:
    """How many calls take about BATCH seconds."""
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        if time.perf_counter() - start > BATCH / 4:
            return calls * 4
        calls *= 2


def best_per_call(fns: list[Call]) -> list[float]:
    """Best microseconds per call of each function, measured in alternating batches.

    Alternating and keeping the best batch makes the ratio robust against other
    processes sharing the machine.
    """
    sizes = [batch_size(fn) for fn in fns]
    best = [float("inf")] * len(fns)
    for _ in range(ROUNDS):
        for i, (fn, calls) in enumerate(zip(fns, sizes, strict=True)):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            best[i] = min(best[i], (time.perf_counter() - start) / calls * 1e6)
    return best


def contenders(text: str, rng: SeededRng, roller: d20.Roller) -> dict[str, list[Call]]:
    """For one text: [ours, d20's] on the fresh path and on the cached path."""

    def ours_fresh() -> int:
        return roll(parse(text), rng=rng).total

    def d20_fresh() -> int:
        return int(roller.roll(diceast.parser.parse(text, start="expr")).total)

    def ours_cached() -> int:
        return roll_text(text, rng=rng).total

    def d20_cached() -> int:
        return int(d20.roll(text).total)

    return {"fresh ": [ours_fresh, d20_fresh], "cached": [ours_cached, d20_cached]}


def main() -> None:
    random.seed(1)  # d20 draws from the global generator
    rng = SeededRng(1)
    roller = d20.Roller()
    rows: list[tuple[str, float, float]] = []
    for text in TEXTS:
        for path, fns in contenders(text, rng, roller).items():
            ours, theirs = best_per_call(fns)
            rows.append((f"{path} {text}", ours, theirs))
    print(f"{'case':<18} {'ours us':>9} {'d20 us':>9} {'speed-up':>9}  target")
    for name, ours, theirs in rows:
        target = ">= 5x" if name.startswith("fresh") else ">= 2x"
        print(f"{name:<18} {ours:>9.2f} {theirs:>9.2f} {theirs / ours:>8.1f}x  {target}")
    seeded = SeededRng(1)
    verifiable = VerifiableRng("ab" * 32, "bench")
    seeded_us, verifiable_us = best_per_call(
        [lambda: seeded.throw((100,)), lambda: verifiable.throw((100,))]
    )
    print()
    print(f"{'d100 throw':<18} {'us':>9}")
    print(f"{'SeededRng':<18} {seeded_us:>9.2f}")
    print(f"{'VerifiableRng':<18} {verifiable_us:>9.2f}")
    ratio = verifiable_us / seeded_us
    print(f"verifiable / seeded cost: {ratio:.2f}x  (target <= 2x)")


if __name__ == "__main__":
    main()
