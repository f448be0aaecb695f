"""Seeded Monte Carlo of MSV duels with numpy, to check the exact engine independently.

Every duel plays the rules roll by roll: initiative (MSV-5, rerolls), then attacks in turn
(MSV-6) with free attacks after criticals (MSV-4) until the damage taken reaches the defeat
threshold (MSV-7). Duels run side by side as arrays; the numpy Generator is passed in.

>>> import numpy as np
>>> from referee.systems.msv import default_rules
>>> sim = simulate_duel(60, 65, default_rules(), 2000, np.random.default_rng(1))
>>> sim.duels, sim.a_wins + sim.b_wins
(2000, 2000)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from referee.errors import LimitError, RuleError
from referee.systems.msv.attack import D100, check_cs, interpret
from referee.systems.msv.initiative import sort_key
from referee.systems.msv.rules import MsvRules

#: Bounds on one simulation: duels, and rolls of any one duel (initiative or fight).
MAX_DUELS = 10_000_000
MAX_STEPS = 1_000_000


@dataclass(frozen=True, slots=True)
class SimulatedDuel:
    """Counts from a Monte Carlo run; floats derived from them."""

    duels: int
    a_wins: int
    b_wins: int
    a_first: int
    total_rounds: int

    @property
    def p_a_wins(self) -> float:
        """The fraction of duels A won.

        >>> SimulatedDuel(4, 1, 3, 2, 40).p_a_wins
        0.25
        """
        return self.a_wins / self.duels

    @property
    def standard_error(self) -> float:
        """The standard error of `p_a_wins`.

        >>> SimulatedDuel(4, 2, 2, 2, 40).standard_error
        0.25
        """
        p = self.p_a_wins
        return math.sqrt(p * (1 - p) / self.duels)

    @property
    def mean_rounds(self) -> float:
        """Mean bout length in rounds (see `msv_duel` for what a round is).

        >>> SimulatedDuel(4, 2, 2, 2, 40).mean_rounds
        10.0
        """
        return self.total_rounds / self.duels


def _tables(cs: int, rules: MsvRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per face 1..100 (index 0 unused): damage, free attack, initiative key."""
    attacks = [interpret(cs, face, rules) for face in range(1, D100 + 1)]
    damage = np.array([0] + [a.damage for a in attacks])
    again = np.array([False] + [a.free_attack for a in attacks])
    keys = np.array([0] + [sort_key(cs, face, rules) for face in range(1, D100 + 1)])
    return damage, again, keys


def _initiative(
    keys_a: np.ndarray, keys_b: np.ndarray, n: int, gen: np.random.Generator
) -> np.ndarray:
    """True where A acts first; ties reroll until settled (MSV-5)."""
    a_first = np.zeros(n, dtype=bool)
    open_ = np.arange(n)
    for _ in range(MAX_STEPS):
        if open_.size == 0:
            return a_first
        ka = keys_a[gen.integers(1, D100 + 1, open_.size)]
        kb = keys_b[gen.integers(1, D100 + 1, open_.size)]
        a_first[open_] = ka > kb
        open_ = open_[ka == kb]
    raise LimitError(f"initiative not settled after {MAX_STEPS} rounds of rolls")


def simulate_duel(
    cs_a: int, cs_b: int, rules: MsvRules, duels: int, gen: np.random.Generator
) -> SimulatedDuel:
    """Play `duels` duels of CS A vs CS B and count the results.

    >>> import numpy as np
    >>> from referee.systems.msv import default_rules
    >>> simulate_duel(100, 0, default_rules(), 10, np.random.default_rng(0)).a_wins
    10
    """
    if check_cs(cs_a) == 0 and check_cs(cs_b) == 0 and not rules.uses_formulas:
        raise RuleError("CS 0 vs CS 0 never ends: neither fighter can ever succeed (MSV-2)")
    if not 1 <= duels <= MAX_DUELS:
        raise LimitError(f"duels must be in 1..{MAX_DUELS}, got {duels!r}")
    dmg_a, again_a, keys_a = _tables(cs_a, rules)
    dmg_b, again_b, keys_b = _tables(cs_b, rules)
    a_first = _initiative(keys_a, keys_b, duels, gen)
    damage = np.stack([dmg_a, dmg_b])  # damage[attacker, face]
    again = np.stack([again_a, again_b])
    taken = np.zeros((duels, 2), dtype=np.int64)  # damage taken by A, by B
    first = np.where(a_first, 0, 1)
    actor = first.copy()
    rounds = np.ones(duels, dtype=np.int64)
    winner = np.full(duels, -1)
    live = np.arange(duels)
    for _ in range(MAX_STEPS):
        if live.size == 0:
            break
        who = actor[live]
        faces = gen.integers(1, D100 + 1, live.size)
        hit, more = damage[who, faces], again[who, faces]
        foe = 1 - who
        taken[live, foe] += hit
        done = taken[live, foe] >= rules.defeat_threshold
        winner[live[done]] = who[done]
        passes = ~done & ~more
        actor[live[passes]] = foe[passes]
        rounds[live[passes & (foe == first[live])]] += 1
        live = live[~done]
    else:
        raise LimitError(f"a simulated duel ran past {MAX_STEPS} rolls")
    a_wins = int(np.count_nonzero(winner == 0))
    return SimulatedDuel(duels, a_wins, duels - a_wins, int(a_first.sum()), int(rounds.sum()))
