"""P(row beats column) for every pairing of a CS range: the exact chain, vectorized (float64).

The same backward solution as `msv_duel` (read its docstring), run for every (first mover,
second mover) pair at once: each state's value is an (n, n) array. The one-roll chances come
as whole face counts per CS (`face_counts`, exactly `attack_outcomes`), and each state is two
batched matrix products over its successors, kept in small rings so that they stay in cache.
Checked in the tests against the Fraction engine within 1e-12 (in practice about 2e-15).

>>> from referee.systems.msv import default_rules
>>> m = win_matrix(range(60, 70, 5), default_rules())
>>> [[round(x, 4) for x in row] for row in m.tolist()]
[[0.5, 0.3923], [0.6077, 0.5]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.analysis.msv_outcomes import FaceCounts, face_counts
from referee.errors import LimitError
from referee.systems.msv.attack import D100, check_cs
from referee.systems.msv.rules import MsvRules

#: Bound on the side of a matrix (pairs = side squared).
MAX_SIDE = 101


def first_mover_matrix(skills: Sequence[int], rules: MsvRules) -> np.ndarray:
    """P(row acts first against column), rerolls included (MSV-5); NaN where it never settles.

    >>> from referee.systems.msv import default_rules
    >>> float(first_mover_matrix([50, 50], default_rules())[0, 1])
    0.5
    """
    return _first_mover(face_counts(skills, rules, cap=1))


def _first_mover(counts: FaceCounts) -> np.ndarray:
    chance = counts.key_counts / D100  # (n, keys): exactly float(key_distribution)
    below = np.cumsum(chance, axis=1) - chance  # P(key < this key), per skill
    ahead = chance @ below.T  # ahead[i, j] = P(key_i > key_j)
    total = ahead + ahead.T
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, ahead / np.where(total > 0, total, 1.0), np.nan)


def first_mover_wins(skills: Sequence[int], rules: MsvRules) -> np.ndarray:
    """V[i, j] = P(first mover with skills[i] beats second mover with skills[j]).

    >>> from referee.systems.msv import default_rules
    >>> float(first_mover_wins([100, 1], default_rules())[0, 1])
    1.0
    """
    return _first_mover_wins(face_counts(skills, rules, cap=rules.defeat_threshold), rules)


def _first_mover_wins(counts: FaceCounts, rules: MsvRules) -> np.ndarray:
    t = rules.defeat_threshold
    totals = counts.totals.astype(np.float64)
    miss = counts.misses / totals
    with np.errstate(invalid="ignore", divide="ignore"):  # CS 0 vs CS 0: NaN, never ends
        return _sweep(counts.hits, totals, miss[:, None], miss[None, :], t)


@dataclass(frozen=True, slots=True)
class _Coefficients:
    """The chances that multiply a state's successors, laid out for `np.matmul` on the rings.

    A ring keeps `width` consecutive values of one coordinate (damage taken) in slots
    `value % width`; `ahead[s]` weighs the first mover's ring (successors (f, s + d), to_f
    and to_s per slot) and `tail[s]` adds the first mover's hits that defeat the second
    mover from s (worth 1); `behind[f]` weighs the second mover's ring (successors
    (f + d, s)); a hit that defeats the first mover is worth 0 and has no weight.
    """

    width: int
    ahead: list[np.ndarray]
    tail: list[np.ndarray | None]
    behind: list[np.ndarray]


def _coefficients(hits: np.ndarray, totals: np.ndarray, t: int) -> _Coefficients:
    n = hits.shape[0]
    dealt = np.flatnonzero(hits.any(axis=(0, 2)))  # damages (capped at t) some skill deals
    width = int(dealt[-1]) + 1 if len(dealt) else 1
    scale = totals[:, None, None]
    ahead, tail, behind = [], [], []
    for at in range(t):
        slots = np.zeros((n, width, 2), dtype=np.int64)
        back = np.zeros((n, width, 2), dtype=np.int64)
        for d in range(1, width + 1):
            if at + d < t:  # a free attack stays with the first mover (to_f), a hit hands over
                slots[:, (at + d) % width] = hits[:, d - 1, ::-1]
            if at + d <= t - 1:  # the second mover: a hit hands back (to_f), a free attack not
                back[:, (at + d) % width] = hits[:, d - 1]
        down = hits[:, max(t - at, 1) - 1 :].sum(axis=(1, 2))  # MSV-7: the foe is defeated
        ahead.append((slots / scale).reshape(n, 1, 2 * width))
        tail.append((down / totals)[:, None] if down.any() else None)
        behind.append((back / scale).reshape(n, 1, 2 * width))
    return _Coefficients(width, ahead, tail, behind)


def _sweep(
    hits: np.ndarray, totals: np.ndarray, miss_f: np.ndarray, miss_s: np.ndarray, t: int
) -> np.ndarray:
    """The backward sweep over (f, s) states (damage taken by first, second mover); the kernel.

    Each state's value for every pair is one batched matrix product per mover over its
    successors: `row[i, slot, k, j]` holds (to_f, to_s)[f, s] of the current f for first
    mover i and second mover j, `col[s][j, slot, k, i]` the same of the last few f,
    transposed, so that both products read contiguous blocks that stay in cache.
    """
    n = hits.shape[0]
    coef = _coefficients(hits, totals, t)
    width = coef.width
    denominator = 1.0 / (1.0 - miss_f * miss_s)
    row = np.zeros((n, width, 2, n))
    col = np.zeros((t, n, width, 2, n))
    rest_s = np.zeros((n, n))
    to_f, to_s = np.empty((n, n)), np.empty((n, n))
    for f in range(t - 1, -1, -1):
        for s in range(t - 1, -1, -1):
            rest_f = np.matmul(coef.ahead[s], row.reshape(n, 2 * width, n))[:, 0]
            tail = coef.tail[s]
            if tail is not None:
                rest_f += tail
            if f < t - 1:
                behind = np.matmul(coef.behind[f], col[s].reshape(n, 2 * width, n))
                np.copyto(rest_s, behind[:, 0].T)
            np.multiply(miss_f, rest_s, out=to_f)
            to_f += rest_f
            to_f *= denominator
            np.multiply(miss_s, to_f, out=to_s)
            to_s += rest_s
            row[:, s % width, 0], row[:, s % width, 1] = to_f, to_s
            col[s, :, f % width, 0], col[s, :, f % width, 1] = to_f.T, to_s.T
    result: np.ndarray = row[:, 0, 0].copy()
    return result


def win_matrix(skills: Sequence[int], rules: MsvRules) -> np.ndarray:
    """M[i, j] = P(skills[i] beats skills[j]) with initiative; NaN for CS 0 vs CS 0.

    >>> from referee.systems.msv import default_rules
    >>> float(win_matrix([0, 40], default_rules())[1, 0])
    1.0
    """
    checked = [check_cs(cs) for cs in skills]
    if not 0 < len(checked) <= MAX_SIDE:
        raise LimitError(f"a matrix needs 1..{MAX_SIDE} skills, got {len(checked)}")
    counts = face_counts(checked, rules, cap=rules.defeat_threshold)
    first = _first_mover(counts)
    wins = _first_mover_wins(counts, rules)
    matrix: np.ndarray = first * wins + (1.0 - first) * (1.0 - wins.T)
    clipped: np.ndarray = np.clip(matrix, 0.0, 1.0)  # rounding may leave -1e-17; NaN stays
    return clipped
