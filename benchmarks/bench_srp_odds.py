"""Benchmark: SRP exact hit distribution, grouped by level, against icepool on the same question.

Both compute P(hits = k) for one attack over the 20 x 20 x 6 faces, for the same sheets,
in the same process. icepool maps a lean per-face hits function over d20, d20, d6 (2,400
outcomes); ours applies the chart once per level pair and damage face (at most 96 cells).
Run: .venv/bin/python benchmarks/bench_srp_odds.py
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction

import icepool

from referee.analysis.srp_odds import hit_distribution, hits_of
from referee.systems.srp.gear import parse_shield
from referee.systems.srp.levels import Level, level
from referee.systems.srp.melee import Attack, Defense, chart
from referee.systems.srp.rules import DEFAULT_RULES
from referee.systems.srp.sheet import DefenseKind

SHEETS = [
    (Attack(skill=s, weapon_damage=w, dam=d), Defense(kind=k, skill=ds, armor=ap, shield=sh))
    for s, w, d, k, ds, ap, sh in [
        (12, 3, 1, DefenseKind.WEAPON, 10, 4, None),
        (15, 2, 0, DefenseKind.SHIELD, 12, 4, parse_shield("medium")),
        (22, 4, 2, DefenseKind.AVOID, 14, 6, None),
        (30, 5, 3, DefenseKind.SHIELD, 20, 8, parse_shield("large")),
        (9, 1, 0, DefenseKind.NONE, 10, 2, None),
    ]
]


def per_face_hits(attack: Attack, defense: Defense) -> Callable[[int, int, int], int]:
    """The hits of one face triple, without building explanations (icepool's workload)."""

    def hits(a: int, d: int, k: int) -> int:
        att = level(a, attack.effective_skill)
        dfn = None if defense.kind is DefenseKind.NONE else level(d, defense.skill)
        hit, shield_on, _ = chart(att, dfn, defense.kind, DEFAULT_RULES)
        return 0 if hit is None else hits_of(attack, defense, Level(hit), k, shield_on)

    return hits


def with_icepool(attack: Attack, defense: Defense) -> dict[int, Fraction]:
    die = icepool.map(per_face_hits(attack, defense), icepool.d20, icepool.d20, icepool.d6)
    return {k: Fraction(n, die.denominator()) for k, n in die.items()}


def timed(work: Callable[[], object], repeats: int) -> float:
    start = time.perf_counter()
    for _ in range(repeats):
        work()
    return (time.perf_counter() - start) / repeats


def main() -> None:
    for attack, defense in SHEETS:  # same answers first
        assert hit_distribution(attack, defense) == with_icepool(attack, defense)
    ours = timed(lambda: [hit_distribution(a, d) for a, d in SHEETS], 200)
    theirs = timed(lambda: [with_icepool(a, d) for a, d in SHEETS], 10)
    print(f"sheets: {len(SHEETS)}, identical distributions: yes")
    print(f"referee grouped by level: {ours * 1e3:8.3f} ms per {len(SHEETS)} distributions")
    print(f"icepool.map d20,d20,d6:   {theirs * 1e3:8.3f} ms per {len(SHEETS)} distributions")
    print(f"ratio (icepool / referee): {theirs / ours:.1f}x faster")


if __name__ == "__main__":
    main()
