"""A group battle by Monte Carlo: many battles played with a seeded numpy generator, a fighter's
attacks drawn from the rules' outcome table."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from referee.analysis.msv_outcomes import key_distribution
from referee.errors import LimitError
from referee.lab.battle_model import (
    MAX_BATTLES,
    MAX_INITIATIVE_COLUMNS,
    MAX_STEPS,
    BattleResult,
    Fighter,
    check_battle,
    exact_cells,
    make_fighters,
    ranks,
)
from referee.lab.battle_result import (
    MIN_BATTLES,
    Policy,
    Progress,
)
from referee.systems.msv.attack import D100, interpret
from referee.systems.msv.rules import MsvRules


def simulate_battle(
    first: Sequence[tuple[str, int]],
    second: Sequence[tuple[str, int]],
    rules: MsvRules,
    policy: Policy | str,
    battles: int,
    gen: np.random.Generator,
    progress: Progress | None = None,
    chunk: int = 100_000,
) -> BattleResult:
    """`battles` battles at once in numpy; `progress(done, total)` after every chunk."""
    fighters = make_fighters(first, second)
    pol = Policy.of(policy)
    if not MIN_BATTLES <= battles <= MAX_BATTLES:
        raise LimitError(
            f"battles must be in {MIN_BATTLES}..{MAX_BATTLES}, got {battles!r} "
            "(a standard error needs at least two)"
        )
    check_battle(fighters, rules)
    keys = [key_distribution(f.cs, rules) for f in fighters]
    sim = _Simulation(fighters, rules, keys, pol)
    need = [rules.defeat_threshold] * len(fighters)
    return BattleResult.simulated(fighters, pol, exact_cells(fighters, rules), need,
                                  lambda size: sim.run(size, gen), battles, chunk,
                                  progress)  # fmt: skip


class _Simulation:
    def __init__(
        self,
        fighters: tuple[Fighter, ...],
        rules: MsvRules,
        keys: list[dict[int, Fraction]],
        policy: Policy,
    ) -> None:
        self.fighters, self.t, self.policy = fighters, rules.defeat_threshold, policy
        self.n = len(fighters)
        self.side = np.array([f.side for f in fighters])
        self.first_side = self.side == 0
        self.index = np.arange(self.n)
        self.second = ~self.first_side
        self.side_columns = np.stack([self.first_side, self.second], axis=1).astype(np.float32)
        self.enemies = self.side[:, None] != self.side[None, :]  # enemies[a, b]
        self.wide, self.narrow = (self.n + 1) ** 2, self.n + 1
        self.rank = rank = ranks(fighters)
        # ties: focus-weakest prefers the lower CS, then the one listed first
        self.weak_tie = (self.n - 1 - rank) * self.narrow + (self.n - 1 - self.index)
        self.strong_base = rank * (self.t + 1) * self.narrow + (self.n - 1 - self.index)
        self.spread_tie = self.n - 1 - self.index
        # cumulative action tables, one row per fighter: P(total damage <= k)
        self.members = [np.flatnonzero(self.side == side) for side in (0, 1)]
        self.side_sizes = np.array([np.sum(self.side == 0), np.sum(self.side == 1)], np.int8)
        # per fighter and d100 face (flat: fighter * 100 + face - 1): damage and free attack
        hits = [interpret(f.cs, face, rules) for f in fighters for face in range(1, D100 + 1)]
        self.face_damage = np.array([h.damage for h in hits], dtype=np.int16)
        self.face_again = np.array([h.free_attack for h in hits], dtype=bool)
        self.key_values = [np.array(list(k)) for k in keys]
        self.key_cumulative = [np.cumsum([float(p) for p in k.values()]) for k in keys]

    def _keys(self, size: int, gen: np.random.Generator) -> np.ndarray:
        out = np.empty((size, self.n), dtype=np.int64)
        for f in range(self.n):
            pick = np.searchsorted(self.key_cumulative[f], gen.random(size), side="right")
            out[:, f] = self.key_values[f][np.minimum(pick, len(self.key_values[f]) - 1)]
        return out

    def _orders(self, size: int, gen: np.random.Generator) -> np.ndarray:
        """Initiative orders: lexicographic over fresh key rolls (MSV-5's rerolls of ties)."""
        first = self._keys(size, gen)
        columns = [first]
        pairs = [
            (a, b)
            for a in range(self.n)
            for b in range(a + 1, self.n)
            if not (len(self.key_values[a]) == 1 and len(self.key_values[b]) == 1)
        ]  # two fighters whose keys can never differ keep the listed order
        same = np.zeros((size, max(1, len(pairs))), dtype=bool)
        for j, (a, b) in enumerate(pairs):
            same[:, j] = first[:, a] == first[:, b]
        tied = np.flatnonzero(same.any(axis=1))
        for _ in range(MAX_INITIATIVE_COLUMNS):
            if tied.size == 0:
                break
            column = np.zeros((size, self.n), dtype=np.int64)
            column[tied] = self._keys(tied.size, gen)
            columns.append(column)
            for j, (a, b) in enumerate(pairs):
                same[tied, j] &= column[tied, a] == column[tied, b]
            tied = tied[same[tied].any(axis=1)]
        index = np.broadcast_to(np.arange(self.n), (size, self.n))
        keys = (index, *(-c for c in columns[::-1]))  # the first roll decides first
        result: np.ndarray = np.lexsort(keys, axis=-1)
        return result

    def _score(self, fighter: np.ndarray | int, taken: np.ndarray) -> np.ndarray:
        """The policy's score of `fighter` as a target with `taken` damage (defeated: lowest).

        Scores are distinct per fighter, so the largest names one target (see `targets`)."""
        if self.policy is Policy.FOCUS_WEAKEST:
            score = taken * self.wide + self.weak_tie[fighter]
        elif self.policy is Policy.FOCUS_STRONGEST:
            score = self.strong_base[fighter] + taken * self.narrow
        elif self.policy is Policy.SPREAD:
            score = self.spread_tie[fighter] - taken * self.wide
        else:
            score = np.zeros_like(taken)
        dead = self.spread_tie[fighter] - 10**6 * self.narrow  # below every living score
        result: np.ndarray = np.where(taken < self.t, score, dead).astype(np.int32)
        return result

    def _pick(self, who: np.ndarray, key: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The target of each attacker `who`: the best-scored enemy (`key` is (n, m))."""
        if self.policy is not Policy.RANDOM:
            # every score ends in the digit n - 1 - fighter (base n + 1): the best names itself
            best = [np.max(key[members], axis=0) for members in self.members]
            top = np.where(self.side[who] == 0, best[1], best[0])
            named: np.ndarray = self.n - 1 - top % self.narrow
            return named
        chance = gen.random(key.shape)
        picks = []
        for members in self.members:
            first = members[0]
            best = key[first] + chance[first]
            pick = np.full(who.size, first, dtype=np.intp)
            for j in members[1:]:
                score = key[j] + chance[j]
                better = score > best
                np.copyto(best, score, where=better)
                np.copyto(pick, j, where=better)
            picks.append(pick)
        result: np.ndarray = np.where(self.side[who] == 0, picks[1], picks[0])
        return result

    def run(self, size: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every battle steps through the initiative order in lockstep, one position at a time;
        a defeated fighter's position is skipped. Each attack rolls a d100 face and reads the
        attacker's damage and free attack from its face table (MSV-2..MSV-4); the rows whose
        attack gave a free attack on a foe still standing roll again (MSV-4)."""
        n, t = self.n, self.t
        orders = self._orders(size, gen).T.copy()  # (n, size): the fighter at each position
        taken = np.zeros((n, size), dtype=np.int16)  # fighter-major: rows stay contiguous
        key = np.repeat(self._score(self.index, np.zeros(n, np.int16))[:, None], size, axis=1)
        up = np.repeat(self.side_sizes[:, None], size, axis=1)  # (2, size) fighters standing
        ids = np.arange(size)
        done = np.zeros(size, dtype=bool)
        out_taken = np.zeros((size, n), dtype=np.int64)
        out_rounds = np.zeros(size, dtype=np.int64)
        steps = 0
        for round_number in itertools.count(1):
            for position in range(n):
                steps += 1
                if ids.size == 0 or steps > MAX_STEPS:
                    break
                m = ids.size
                rows = np.arange(m)
                flat_taken, flat_key, flat_up = taken.reshape(-1), key.reshape(-1), up.reshape(-1)
                who = orders[position]
                acts = (flat_taken[who * m + rows] < t) & ~done
                target = self._pick(who, key, gen)
                cell = target * m + rows  # (target, battle) in the flat fighter-major arrays
                before = flat_taken[cell]
                face = who * D100 + gen.integers(0, D100, m, dtype=np.int16)
                hurt = np.minimum(before + self.face_damage[face] * acts, t).astype(np.int16)
                chain = np.flatnonzero(self.face_again[face] & acts & (hurt < t))
                hurt = self._free_attacks(chain, who, target, hurt, gen)
                flat_taken[cell] = hurt
                flat_key[cell] = self._score(target, hurt)
                beaten = (hurt >= t) & (before < t)
                if not beaten.any():
                    continue
                side_cell = self.side[target] * m + rows
                flat_up[side_cell] -= beaten
                over = beaten & (flat_up[side_cell] == 0)
                if over.any():
                    out_taken[ids[over]] = taken[:, over].T
                    out_rounds[ids[over]] = round_number
                    done |= over
                    if 4 * int(done.sum()) >= m:  # compress now and then, not each step
                        keep = ~done
                        ids, done = ids[keep], done[keep]
                        # C order, so the flat views above stay views
                        orders, taken, up, key = (
                            np.ascontiguousarray(a[:, keep]) for a in (orders, taken, up, key)
                        )
            if ids.size == 0 or done.all():
                wins = ((out_taken < t) & (self.side == 0)).any(axis=1)
                return out_taken, wins, out_rounds
            if steps > MAX_STEPS:
                raise LimitError(f"a simulated battle ran past {MAX_STEPS} actions")
        raise AssertionError("unreachable")  # pragma: no cover

    def _free_attacks(
        self,
        chain: np.ndarray,
        who: np.ndarray,
        target: np.ndarray,
        hurt: np.ndarray,
        gen: np.random.Generator,
    ) -> np.ndarray:
        """The free attacks criticals give (MSV-4): the rows `chain` roll again on the same
        stunned foe until a roll gives none or the foe is defeated."""
        t = self.t
        for _ in range(MAX_STEPS):
            if chain.size == 0:
                return hurt
            face = who[chain] * D100 + gen.integers(0, D100, chain.size, dtype=np.int16)
            after = np.minimum(hurt[chain] + self.face_damage[face], t).astype(np.int16)
            hurt[chain] = after
            chain = chain[self.face_again[face] & (after < t)]
        raise LimitError(f"a chain of free attacks ran past {MAX_STEPS} rolls")
