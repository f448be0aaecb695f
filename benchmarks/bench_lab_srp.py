"""Benchmark: the SRP side of the balance lab, each part against a baseline in the same process.

1. `hit_distribution` under the shipped formula pack `srp-text.toml` against the default pack
   (the same numbers; the formulas' levels are cached per skill).
2. `simulate_battle` (numpy, every battle of a batch at once) against a plain Python loop that
   plays the same battles one at a time, drawing from the same per-pair outcome tables.
3. The exact chain of a 2-on-2 battle, for scale.
Run: .venv/bin/python benchmarks/bench_lab_srp.py
"""

from __future__ import annotations

import bisect
import random
import time
import tomllib
from collections.abc import Callable
from importlib import resources

import numpy as np

from referee.analysis.srp_odds import hit_distribution
from referee.lab.battle import Policy
from referee.lab.srp_battle import (
    exact_battle,
    make_fighters,
    parse_srp_side,
    simulate_battle,
)
from referee.lab.srp_battle_model import Setup
from referee.systems.srp.gear import parse_shield
from referee.systems.srp.melee import Attack, Defense
from referee.systems.srp.rules import SrpRules, load_rules
from referee.systems.srp.sheet import DefenseKind

SIDE_1 = "Ann=skill=15 damage=3 hits=12 codes=S*; Bo=skill=12 damage=2 hits=7"
SIDE_2 = "Orc=skill=13 damage=2 hits=9 armor=2; Orc=skill=11 damage=1 hits=6"


def timed(work: Callable[[], object], repeats: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeats):
        work()
    return (time.perf_counter() - start) / repeats


def python_battles(setup: Setup, count: int, rng: random.Random) -> float:
    """P(side 1 wins) by the obvious loop: one battle, one turn, one draw at a time."""
    n, need = setup.n, setup.need
    tables = {
        k: ([0.0, *np.cumsum([p for _, p in v]).tolist()], [o for o, _ in v])
        for k, v in setup.outcomes.items()
    }
    wins = 0
    for _ in range(count):
        taken, stunned, pos = [0] * n, set(), 0
        while True:
            actor = pos
            if actor in stunned:
                stunned.discard(actor)
            else:
                target = setup.targets(actor, taken)[0][0]
                cdf, outs = tables[actor, target]
                hits, stun = outs[min(bisect.bisect_right(cdf, rng.random()) - 1, len(outs) - 1)]
                taken[target] = min(need[target], taken[target] + hits)
                if stun and taken[target] < need[target] and target in setup.bit:
                    stunned.add(target)
            side = setup.winner(taken)
            if side is not None:
                wins += side == 0
                break
            for step in range(1, n + 1):
                cand = (pos + step) % n
                if taken[cand] < need[cand]:
                    pos = cand
                    break
    return wins / count


def main() -> None:
    text = load_rules(tomllib.loads(
        resources.files("referee.lab").joinpath("packs/srp-text.toml").read_text("utf-8")
    ))  # fmt: skip
    sheets = [
        (Attack(skill=s, weapon_damage=3), Defense(kind=k, skill=d, armor=4, shield=sh))
        for s in range(5, 41, 5)
        for k, d, sh in [(DefenseKind.WEAPON, 12, None),
                         (DefenseKind.SHIELD, 14, parse_shield("medium"))]
    ]  # fmt: skip
    assert all(hit_distribution(a, d, text) == hit_distribution(a, d) for a, d in sheets)
    default = timed(lambda: [hit_distribution(a, d) for a, d in sheets], 20)
    formula = timed(lambda: [hit_distribution(a, d, text) for a, d in sheets], 20)
    print(f"1. {len(sheets)} hit distributions: default pack {default * 1e3:.2f} ms, "
          f"srp-text.toml {formula * 1e3:.2f} ms "
          f"(formula / default: {formula / default:.2f}x)")  # fmt: skip

    first, second = parse_srp_side(SIDE_1), parse_srp_side(SIDE_2)
    setup = Setup(make_fighters(first, second, SrpRules()), SrpRules(), Policy.FOCUS_WEAKEST)
    count = 200_000
    gen = np.random.default_rng(1)
    ours = timed(lambda: simulate_battle(first, second, SrpRules(), "focus-weakest", count, gen))
    loop_count = 20_000
    loop = timed(lambda: python_battles(setup, loop_count, random.Random(1))) * count / loop_count
    print(f"2. Monte Carlo 2-on-2: numpy {count / ours:,.0f} battles/s, Python loop "
          f"{count / loop:,.0f} battles/s (numpy / loop: {loop / ours:.1f}x)")  # fmt: skip

    exact = timed(lambda: exact_battle(first, second, SrpRules()))
    cells = exact_battle(first, second, SrpRules()).states
    print(
        f"3. exact chain 2-on-2 ({cells:,} cells): {exact:.2f} s; "
        f"Monte Carlo of {count:,} battles: {ours:.2f} s"
    )


if __name__ == "__main__":
    main()
