"""A group battle of SRP worked out exactly: every order of the turns and every strike's
outcome, while the chain stays within `MAX_EXACT_CELLS`."""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from referee.errors import LimitError, RuleError
from referee.lab.battle_result import (
    Policy,
)
from referee.lab.srp_battle_model import (
    MAX_EXACT_CELLS,
    Setup,
    SrpBattleResult,
    exact_cells,
    make_fighters,
    summarise,
)
from referee.systems.srp.rules import SrpRules
from referee.systems.srp.sheet import Sheet


def exact_battle(
    first: Sequence[Sheet],
    second: Sequence[Sheet],
    rules: SrpRules,
    policy: Policy | str = Policy.FOCUS_WEAKEST,
) -> SrpBattleResult:
    """The battle's exact chain (floats; see the module docstring), up to `MAX_EXACT_CELLS`.

    >>> from referee.lab.srp_battle_model import parse_srp_side
    >>> a, b = parse_srp_side("A=skill=14 damage=3 hits=4"), parse_srp_side("B=skill=12 hits=4")
    >>> r = exact_battle(a, b, SrpRules())
    >>> round(r.p_first_side, 4), r.states
    (0.7557, 32)
    """
    fighters = make_fighters(first, second, rules)
    cells = exact_cells(fighters, rules)
    if cells > MAX_EXACT_CELLS:
        raise LimitError(
            f"the exact chain would have {cells:,} cells (at most {MAX_EXACT_CELLS:,}); "
            "use the Monte Carlo"
        )
    setup = Setup(fighters, rules, Policy.of(policy))
    ends: dict[tuple[int, ...], float] = {}
    rounds = 1.0
    for order, weight in setup.orders().items():
        got, more = _exact_order(setup, order)
        for k, p in got.items():
            ends[k] = ends.get(k, 0.0) + weight * p
        rounds += weight * more
    total = sum(ends.values())
    if abs(total - 1.0) > 1e-9:
        raise RuleError(
            f"the battle can go on forever (it ends with probability {total:.6f}): "
            "some fighters can never hurt the enemies the policy sends them against"
        )
    p_first, survive, means, hits, survivors = summarise(setup, ends)
    return SrpBattleResult(
        fighters, setup.policy, "exact", 0, cells, p_first, rounds, survive, means, hits,
        (tuple(survivors[0]), tuple(survivors[1])),
    )  # fmt: skip


def _exact_order(
    setup: Setup, order: tuple[int, ...]
) -> tuple[dict[tuple[int, ...], float], float]:
    """Terminal hit vectors and expected wraps (new rounds) for one turn order."""
    n = setup.n
    size = (1 << len(setup.stunnable)) * n
    start = tuple([0] * n)
    mass: dict[tuple[int, ...], np.ndarray] = {start: np.zeros(size)}
    mass[start][0] = 1.0  # no one stunned, position 0 of the order
    heap = [(0, start)]
    ends: dict[tuple[int, ...], float] = {}
    wraps = 0.0
    while heap:
        _, taken = heapq.heappop(heap)
        entering = mass.pop(taken)
        inside = np.zeros((size, size))
        leaving: list[tuple[int, tuple[int, ...], int, float, bool]] = []
        for state in np.flatnonzero(entering >= 0).tolist():
            for p, nxt, nstate, wrap in _moves(setup, order, taken, state):
                if nxt == taken:
                    inside[state, nstate] += p
                leaving.append((state, nxt, nstate, p, wrap))
        try:
            visits = np.linalg.solve((np.eye(size) - inside).T, entering)
        except np.linalg.LinAlgError:
            raise RuleError(
                "the battle can go on forever: some fighters can never hurt the enemies "
                "the policy sends them against"
            ) from None
        if not np.all(np.isfinite(visits)) or visits.max() > 1e12:
            raise RuleError("the battle can go on forever: a cycle of turns never deals a hit")
        for state, nxt, nstate, p, wrap in leaving:
            flow = float(visits[state]) * p
            if flow == 0.0:
                continue
            if nxt != taken and setup.winner(nxt) is not None:
                ends[nxt] = ends.get(nxt, 0.0) + flow
                continue
            if wrap:
                wraps += flow
            if nxt != taken:
                if nxt not in mass:
                    mass[nxt] = np.zeros(size)
                    heapq.heappush(heap, (sum(nxt), nxt))
                mass[nxt][nstate] += flow
    return ends, wraps


def _moves(
    setup: Setup, order: tuple[int, ...], taken: tuple[int, ...], state: int
) -> list[tuple[float, tuple[int, ...], int, bool]]:
    """Every next (probability, hits taken, local state, starts a new round) from one state."""
    n = setup.n
    flags, pos = divmod(state, n)
    actor = order[pos]
    if taken[actor] >= setup.need[actor]:
        return []  # never occupied: the pointer only rests on fighters still up
    bit = setup.bit.get(actor, 0)
    if flags & bit:  # stunned: loses this turn (SRP-16)
        npos, wrap = _advance(setup, order, taken, pos)
        return [(1.0, taken, (flags & ~bit) * n + npos, wrap)]
    out = []
    for target, q in setup.targets(actor, taken):
        for (hits, stun), p in setup.outcomes[actor, target]:
            nxt = list(taken)
            nxt[target] = min(setup.need[target], taken[target] + hits)
            new = tuple(nxt)
            tbit = setup.bit.get(target, 0)
            nflags = flags | tbit if stun else flags
            if new[target] >= setup.need[target]:
                nflags &= ~tbit
            if setup.winner(new) is not None:
                out.append((q * p, new, 0, False))
                continue
            npos, wrap = _advance(setup, order, new, pos)
            out.append((q * p, new, nflags * n + npos, wrap))
    return out


def _advance(
    setup: Setup, order: tuple[int, ...], taken: Sequence[int], pos: int
) -> tuple[int, bool]:
    n = setup.n
    for step in range(1, n + 1):
        cand = (pos + step) % n
        if taken[order[cand]] < setup.need[order[cand]]:
            return cand, cand <= pos
    return pos, True  # unreachable: the actor itself is up
