"""A group battle worked out exactly: the Markov chain over every fighter's damage (numpy
tables, checked against exact answers), while it stays within `MAX_EXACT_CELLS`."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from referee.analysis.msv_outcomes import key_distribution
from referee.errors import LimitError
from referee.lab.battle_model import (
    MAX_EXACT_CELLS,
    BattleResult,
    Fighter,
    check_battle,
    exact_cells,
    make_fighters,
    order_distribution,
    targets,
)
from referee.lab.battle_result import (
    Policy,
)
from referee.systems.msv.rules import MsvRules


def exact_battle(
    first: Sequence[tuple[str, int]],
    second: Sequence[tuple[str, int]],
    rules: MsvRules,
    policy: Policy | str = Policy.FOCUS_WEAKEST,
) -> BattleResult:
    """The exact battle (float64 chain); LimitError past `MAX_EXACT_CELLS`."""
    fighters = make_fighters(first, second)
    pol = Policy.of(policy)
    cells = exact_cells(fighters, rules)
    if cells > MAX_EXACT_CELLS:
        raise LimitError(f"the exact chain would have {cells} cells (bound {MAX_EXACT_CELLS})")
    tables = check_battle(fighters, rules)
    keys = [key_distribution(f.cs, rules) for f in fighters]
    orders = order_distribution(keys)
    return _Chain(fighters, rules.defeat_threshold, tables, orders, pol).run(cells)


class _Chain:
    """The level-by-level forward sweep of `exact_battle`."""

    def __init__(
        self,
        fighters: tuple[Fighter, ...],
        t: int,
        tables: list[np.ndarray],
        orders: dict[tuple[int, ...], Fraction],
        policy: Policy,
    ) -> None:
        self.fighters, self.t, self.tables, self.policy = fighters, t, tables, policy
        self.n = n = len(fighters)
        self.orders = list(orders)
        self.p_orders = np.array([float(orders[o]) for o in self.orders])
        self.stride = (t + 1) ** np.arange(n)
        size = (t + 1) ** n
        digits = (np.arange(size)[:, None] // self.stride[None, :]) % (t + 1)
        self.taken = digits  # (size, n)
        self.alive = digits < t
        self.side = np.array([f.side for f in fighters])
        self.mask = (self.alive * (2 ** np.arange(n))).sum(axis=1)
        self._tables_for_masks()

    def _tables_for_masks(self) -> None:
        """NEXT, PREV and FIRST per (living mask, order, fighter)."""
        n, count = self.n, len(self.orders)
        self.next = np.zeros((2**n, count, n), dtype=np.int64)
        self.prev = np.zeros((2**n, count, n), dtype=np.int64)
        self.first = np.zeros((2**n, count), dtype=np.int64)
        for mask in range(2**n):
            for o, order in enumerate(self.orders):
                living = [f for f in order if mask >> f & 1]
                if not living:
                    continue
                self.first[mask, o] = living[0]
                for f in range(n):
                    pos = order.index(f)
                    after = [g for g in order[pos + 1 :] + order[: pos + 1] if mask >> g & 1]
                    before = [g for g in order[pos:] + order[:pos] if mask >> g & 1][::-1]
                    self.next[mask, o, f] = after[0]
                    self.prev[mask, o, f] = before[0]

    def _ended(self, index: np.ndarray) -> np.ndarray:
        alive = self.alive[index]
        ones = (alive & (self.side == 0)).any(axis=-1)
        twos = (alive & (self.side == 1)).any(axis=-1)
        result: np.ndarray = ~(ones & twos)
        return result

    def run(self, cells: int) -> BattleResult:
        n, t, count = self.n, self.t, len(self.orders)
        size = len(self.taken)
        mass = np.zeros((size, count, n))
        final = np.zeros(size)
        order_index = np.arange(count)
        for o, order in enumerate(self.orders):
            mass[0, o, order[0]] = self.p_orders[o]
        level = self.taken.sum(axis=1)
        misses = np.array([table[0] for table in self.tables])
        rounds = 0.0
        for total in range(n * t + 1):
            states = np.flatnonzero((level == total) & ~self._ended(np.arange(size)))
            if states.size == 0:
                continue
            visits = self._cycle(mass[states], states, misses)  # (k, count, n)
            masks = self.mask[states]
            first = self.first[masks]  # (k, count)
            rounds += float(np.take_along_axis(visits, first[..., None], axis=2).sum())
            weights = targets(self.policy, self.fighters, self.taken[states], t)
            for a in range(n):
                flow = visits[:, :, a]
                if not flow.any():
                    continue
                for target in range(n):
                    share = weights[:, a, target]
                    if not share.any():
                        continue
                    self._spread(mass, final, states, flow * share[:, None], a, target, order_index)
        return self._result(final, rounds, cells)

    def _cycle(self, incoming: np.ndarray, states: np.ndarray, misses: np.ndarray) -> np.ndarray:
        """Visits to each fresh turn within one damage state: the miss cycle summed exactly."""
        masks = self.mask[states]
        prev = self.prev[masks]  # (k, count, n)
        alive = self.alive[states][:, None, :]  # (k, 1, n)
        living = alive.sum(axis=-1, keepdims=True)
        visits = incoming.copy()
        carry = np.ones_like(incoming)
        source = np.broadcast_to(np.arange(self.n), incoming.shape).copy()
        for step in range(1, self.n):
            source = np.take_along_axis(prev, source, axis=2)
            carry = carry * misses[source]
            add = carry * np.take_along_axis(incoming, source, axis=2)
            visits += np.where(step < living, add, 0.0)
        loop = np.prod(np.where(alive, misses, 1.0), axis=-1, keepdims=True)
        result: np.ndarray = np.where(alive, visits / (1.0 - loop), 0.0)
        return result

    def _spread(
        self,
        mass: np.ndarray,
        final: np.ndarray,
        states: np.ndarray,
        flow: np.ndarray,
        attacker: int,
        target: int,
        order_index: np.ndarray,
    ) -> None:
        """Send `flow` (k, count) through one action of `attacker` on `target`."""
        t, table = self.t, self.tables[attacker]
        have = self.taken[states, target]
        room = t - have  # damage that defeats the target
        for k in range(1, t + 1):
            if k < t:
                p = np.where(k < room, table[k], 0.0)
            else:
                cumulative = np.concatenate([[0.0], np.cumsum(table[:t])])
                p = np.maximum(0.0, 1.0 - cumulative[room])
                k_add = room
            step = k if k < t else k_add
            live = p > 0
            if not live.any():
                continue
            dest = states[live] + step * self.stride[target] if k < t else (
                states[live] + k_add[live] * self.stride[target])  # fmt: skip
            amount = flow[live] * p[live][:, None]
            ended = self._ended(dest)
            if ended.any():
                final_add = amount[ended].sum(axis=1)
                np.add.at(final, dest[ended], final_add)
            keep = ~ended
            if keep.any():
                d = dest[keep]
                nxt = self.next[self.mask[d], :, attacker]  # (m, count)
                rows = np.broadcast_to(d[:, None], nxt.shape)
                cols = np.broadcast_to(order_index[None, :], nxt.shape)
                mass[rows, cols, nxt] += amount[keep]

    def _result(self, final: np.ndarray, rounds: float, cells: int) -> BattleResult:
        n, t = self.n, self.t
        total = final.sum()
        final = final / total if total > 0 else final
        alive = self.alive
        wins_first = float(final[(alive & (self.side == 0)).any(axis=1)].sum())
        p_survives = tuple(float(final[alive[:, f]].sum()) for f in range(n))
        damage = tuple(
            tuple(float(final[self.taken[:, f] == k].sum()) for k in range(t + 1)) for f in range(n)
        )
        mean = tuple(sum(k * p for k, p in enumerate(d)) for d in damage)
        survivors = []
        for side in (0, 1):
            members = self.side == side
            up = (alive & members).sum(axis=1)
            survivors.append(
                tuple(float(final[up == k].sum()) for k in range(int(members.sum()) + 1))
            )
        survivors[0] = (0.0, *survivors[0][1:])
        survivors[1] = (0.0, *survivors[1][1:])
        return BattleResult(
            self.fighters, self.policy, "exact", 0, cells, wins_first, rounds, p_survives,
            mean, damage, (survivors[0], survivors[1]),
        )  # fmt: skip
