"""A group battle of SRP by Monte Carlo: batches of battles played with a seeded numpy
generator, each strike drawn from its outcome table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from referee.errors import LimitError, RuleError
from referee.lab.battle_result import (
    MIN_BATTLES,
    Policy,
    Progress,
)
from referee.lab.srp_battle_model import (
    BATCH,
    MAX_BATTLES,
    MAX_TURNS,
    Setup,
    SrpBattleResult,
    exact_cells,
    make_fighters,
)
from referee.systems.srp.rules import SrpRules, TurnOrder
from referee.systems.srp.sheet import Sheet


def simulate_battle(
    first: Sequence[Sheet],
    second: Sequence[Sheet],
    rules: SrpRules,
    policy: Policy | str,
    battles: int,
    gen: np.random.Generator,
    progress: Progress | None = None,
) -> SrpBattleResult:
    """`battles` battles with numpy, batch by batch; each figure with its standard error."""
    if isinstance(battles, bool) or not MIN_BATTLES <= battles <= MAX_BATTLES:
        raise LimitError(
            f"battles {battles!r} is out of range (expected {MIN_BATTLES}..{MAX_BATTLES:,}: "
            "a standard error needs at least two)"
        )
    fighters = make_fighters(first, second, rules)
    setup = Setup(fighters, rules, Policy.of(policy))
    return SrpBattleResult.simulated(fighters, setup.policy, exact_cells(fighters, rules),
                                     setup.need, lambda count: _simulate_batch(setup, count, gen),
                                     battles, BATCH, progress)  # fmt: skip


def _tables(setup: Setup) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (attacker, target): cumulative probabilities, hits and stun of each outcome."""
    n = setup.n
    width = max(len(v) for v in setup.outcomes.values())
    cdf = np.ones((n, n, width))
    hits = np.zeros((n, n, width), dtype=np.int64)
    stun = np.zeros((n, n, width), dtype=bool)
    for (a, b), outs in setup.outcomes.items():
        probs = np.cumsum([p for _, p in outs])
        probs[-1] = 1.0
        cdf[a, b, : len(outs)] = probs
        hits[a, b, : len(outs)] = [k for (k, _), _ in outs]
        stun[a, b, : len(outs)] = [s for (_, s), _ in outs]
        hits[a, b, len(outs) :] = hits[a, b, len(outs) - 1]
    return cdf, hits, stun


def _simulate_batch(
    setup: Setup, count: int, gen: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, fighters = setup.n, setup.fighters
    cdf, table_hits, table_stun = _tables(setup)
    need = np.array(setup.need, dtype=np.int64)
    side = np.array([f.side for f in fighters])
    rank = np.array(setup.rank, dtype=np.int64)
    index = np.arange(n)
    can_stun = np.zeros(n, dtype=bool)
    can_stun[list(setup.stunnable)] = True
    if setup.rules.turn_order is TurnOrder.LISTED:
        order = np.tile(index, (count, 1))
    else:  # d20 + initiative, highest first, ties in listed order (SRP-19)
        bonus = np.array([f.sheet.initiative for f in fighters])
        totals = gen.integers(1, 21, size=(count, n)) + bonus
        order = np.argsort(-totals, axis=1, kind="stable")
    taken = np.zeros((count, n), dtype=np.int64)
    stunned = np.zeros((count, n), dtype=bool)
    pos = np.zeros(count, dtype=np.int64)
    rounds = np.ones(count, dtype=np.int64)
    active = np.ones(count, dtype=bool)
    first_wins = np.zeros(count, dtype=bool)
    for _ in range(MAX_TURNS):
        live = np.flatnonzero(active)
        if live.size == 0:
            break
        actor = order[live, pos[live]]
        lost = stunned[live, actor]
        stunned[live[lost], actor[lost]] = False
        act, who = live[~lost], actor[~lost]
        if act.size:
            target = _choose(setup.policy, taken[act], need, side, rank, who, index, gen)
            u = gen.random(act.size)
            k = np.minimum((u[:, None] >= cdf[who, target]).sum(axis=1), cdf.shape[2] - 1)
            dealt = table_hits[who, target, k]
            new = np.minimum(need[target], taken[act, target] + dealt)
            taken[act, target] = new
            up = new < need[target]
            stunned[act, target] = np.where(
                up, stunned[act, target] | (table_stun[who, target, k] & can_stun[target]), False
            )
        down = taken[live] >= need
        side0_down: np.ndarray = np.all(down[:, side == 0], axis=1)
        side1_down: np.ndarray = np.all(down[:, side == 1], axis=1)
        over = side0_down | side1_down
        first_wins[live[over]] = side1_down[over]
        active[live[over]] = False
        going = live[~over]
        if going.size:
            rows = np.arange(going.size)[:, None]
            alive_in_order = taken[going][rows, order[going]] < need[order[going]]
            cand = (pos[going, None] + np.arange(1, n + 1)) % n
            ok = alive_in_order[np.arange(going.size)[:, None], cand]
            nxt = cand[np.arange(going.size), ok.argmax(axis=1)]
            rounds[going] += nxt <= pos[going]
            pos[going] = nxt
    else:
        raise RuleError(
            f"{int(active.sum()):,} battles had not ended after {MAX_TURNS:,} turns: "
            "some fighters can never hurt the enemies the policy sends them against"
        )
    return taken, first_wins, rounds


def _choose(
    policy: Policy,
    taken: np.ndarray,
    need: np.ndarray,
    side: np.ndarray,
    rank: np.ndarray,
    who: np.ndarray,
    index: np.ndarray,
    gen: np.random.Generator,
) -> np.ndarray:
    """The target of each acting fighter by the policy (the same keys as `Setup.key`)."""
    n = len(need)
    valid = (side[None, :] != side[who][:, None]) & (taken < need)
    left = need - taken
    big = n + 1
    if policy is Policy.FOCUS_WEAKEST:
        score = (left * big + rank) * big + index
    elif policy is Policy.FOCUS_STRONGEST:
        score = ((big - rank) * 10_000 + left) * big + index
    elif policy is Policy.SPREAD:
        score = taken * big + index
    else:
        score = gen.random(taken.shape)
    score = np.where(valid, score.astype(float), np.inf)
    chosen: np.ndarray = score.argmin(axis=1)
    return chosen
