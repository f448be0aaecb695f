"""Group battle Monte Carlo (numpy) vs a plain-Python loop of the same rules, and vs exact.

1. Battles per second for a 3-on-3 MSV battle: `referee.lab.battle.simulate_battle` against a
   plain-Python loop that rolls every d100 (initiative with rerolls, attacks, free-attack
   chains, focus-weakest targets) through `referee.systems.msv.attack.interpret`.
2. A 2-on-2 battle: the Monte Carlo's error against the exact chain, in standard errors.
Run: .venv/bin/python benchmarks/bench_lab_battle.py
"""

from __future__ import annotations

import random
import time

import numpy as np

from referee.lab.battle import exact_battle, simulate_battle
from referee.systems.msv.attack import interpret
from referee.systems.msv.initiative import sort_key
from referee.systems.msv.rules import MsvRules

SIDE_1 = (("Tarl", 65), ("Rask", 55), ("Ana", 50))
SIDE_2 = (("Pa-Kur", 70), ("Orc", 50), ("Orc 2", 50))
PLAIN_BATTLES = 2_000
NUMPY_BATTLES = 400_000


def _order(fighters: list[tuple[str, int, int]], rules: MsvRules, rnd: random.Random) -> list[int]:
    groups = [list(range(len(fighters)))]
    out: list[int] = []
    while groups:
        group = groups.pop(0)
        if len(group) == 1:
            out.append(group[0])
            continue
        if all(fighters[i][1] == 0 for i in group):
            out.extend(group)
            continue
        keys = {i: sort_key(fighters[i][1], rnd.randint(1, 100), rules) for i in group}
        parts = [
            [i for i in group if keys[i] == k] for k in sorted(set(keys.values()), reverse=True)
        ]
        groups = parts + groups
    return out


def plain_battle(rules: MsvRules, rnd: random.Random) -> int:
    """One battle, every die rolled in Python; returns the winning side (0 or 1)."""
    fighters = [(n, cs, 0) for n, cs in SIDE_1] + [(n, cs, 1) for n, cs in SIDE_2]
    taken = [0] * len(fighters)
    t = rules.defeat_threshold
    order = _order(fighters, rules, rnd)
    while True:
        for a in order:
            if taken[a] >= t:
                continue
            enemies = [i for i, f in enumerate(fighters) if f[2] != fighters[a][2] and taken[i] < t]
            if not enemies:
                return fighters[a][2]
            target = max(enemies, key=lambda i: (taken[i], -fighters[i][1], -i))
            while True:
                hit = interpret(fighters[a][1], rnd.randint(1, 100), rules)
                taken[target] = min(t, taken[target] + hit.damage)
                if not hit.free_attack or taken[target] >= t:
                    break
            sides = {f[2] for i, f in enumerate(fighters) if taken[i] < t}
            if len(sides) == 1:
                return sides.pop()


def main() -> None:
    rules = MsvRules()
    rnd = random.Random(2026)
    start = time.perf_counter()
    wins = sum(1 - plain_battle(rules, rnd) for _ in range(PLAIN_BATTLES))
    plain = PLAIN_BATTLES / (time.perf_counter() - start)
    gen = np.random.default_rng(2026)
    start = time.perf_counter()
    sim = simulate_battle(SIDE_1, SIDE_2, rules, "focus-weakest", NUMPY_BATTLES, gen)
    fast = NUMPY_BATTLES / (time.perf_counter() - start)
    print(f"3-on-3, plain Python: {plain:,.0f} battles/s (P(side 1) = {wins / PLAIN_BATTLES:.3f})")
    print(
        f"3-on-3, numpy Monte Carlo: {fast:,.0f} battles/s "
        f"(P(side 1) = {sim.p_first_side:.4f} +- {sim.se_first_side:.4f})"
    )
    print(f"ratio (numpy / plain Python): {fast / plain:.0f}x (target >= 50x)")
    a, b = (("Tarl", 65), ("Rask", 55)), (("Pa-Kur", 70), ("Orc", 50))
    start = time.perf_counter()
    exact = exact_battle(a, b, rules, "focus-weakest")
    spent = time.perf_counter() - start
    sim = simulate_battle(a, b, rules, "focus-weakest", NUMPY_BATTLES, gen)
    error = (sim.p_first_side - exact.p_first_side) / sim.se_first_side
    rounds = (sim.expected_rounds - exact.expected_rounds) / sim.se_rounds
    print(
        f"2-on-2 exact ({exact.states:,} cells, {spent:.1f} s): "
        f"P(side 1) = {exact.p_first_side:.5f},"
        f" E[rounds] = {exact.expected_rounds:.4f}"
    )
    print(
        f"2-on-2 Monte Carlo ({NUMPY_BATTLES:,}): P(side 1) = {sim.p_first_side:.5f} "
        f"({error:+.2f} s.e.), E[rounds] = {sim.expected_rounds:.4f} ({rounds:+.2f} s.e.)"
        " (target within 3 s.e.)"
    )


if __name__ == "__main__":
    main()
