"""P(row beats column) for every pairing of a CS range: the exact chain, vectorized (float64).

The same backward solution as `msv_duel` (read its docstring), run for every (first mover,
second mover) pair at once: each state's value is an (n, n) array. Checked in the tests
against the Fraction engine within 1e-12.

>>> from referee.systems.msv import default_rules
>>> m = win_matrix(range(60, 70, 5), default_rules())
>>> [[round(x, 4) for x in row] for row in m.tolist()]
[[0.5, 0.3923], [0.6077, 0.5]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from referee.analysis.msv_outcomes import Outcome, attack_outcomes, key_distribution
from referee.errors import LimitError
from referee.systems.msv.attack import check_cs
from referee.systems.msv.rules import MsvRules

#: Bound on the side of a matrix (pairs = side squared).
MAX_SIDE = 101


def _outcome_table(skills: Sequence[int], rules: MsvRules) -> tuple[list[Outcome], np.ndarray]:
    """Every outcome any of the skills can roll, and its chance per skill: shape (k, n)."""
    per_skill = [attack_outcomes(cs, rules) for cs in skills]
    kinds = sorted({o for dist in per_skill for o in dist})
    table = np.array([[float(dist.get(o, 0)) for dist in per_skill] for o in kinds])
    return kinds, table


def first_mover_matrix(skills: Sequence[int], rules: MsvRules) -> np.ndarray:
    """P(row acts first against column), rerolls included (MSV-5); NaN where it never settles.

    >>> from referee.systems.msv import default_rules
    >>> float(first_mover_matrix([50, 50], default_rules())[0, 1])
    0.5
    """
    dists = [key_distribution(cs, rules) for cs in skills]
    keys = sorted({k for dist in dists for k in dist})
    chance = np.array([[float(dist.get(k, 0)) for k in keys] for dist in dists])  # (n, keys)
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
    kinds, chance = _outcome_table(skills, rules)
    n, t = len(skills), rules.defeat_threshold
    miss = chance[kinds.index(Outcome(0, False))] if Outcome(0, False) in kinds else np.zeros(n)
    miss_f, miss_s = miss[:, None], miss[None, :]
    hits = [(o, chance[i]) for i, o in enumerate(kinds) if o.damage > 0]
    to_f = np.zeros((t + 1, t + 1, n, n))  # index t: defeated; filled as terminal values
    to_s = np.zeros((t + 1, t + 1, n, n))
    to_f[:, t] = to_s[:, t] = 1.0  # the second mover is defeated: the first has won
    with np.errstate(invalid="ignore", divide="ignore"):  # CS 0 vs CS 0: NaN, never ends
        _fill(to_f, to_s, hits, miss_f, miss_s, t)
    result: np.ndarray = to_f[0, 0]
    return result


def _fill(
    to_f: np.ndarray,
    to_s: np.ndarray,
    hits: list[tuple[Outcome, np.ndarray]],
    miss_f: np.ndarray,
    miss_s: np.ndarray,
    t: int,
) -> None:
    """The backward sweep over (f, s) states, in place; the kernel."""
    denominator = 1.0 / (1.0 - miss_f * miss_s)
    n = to_f.shape[-1]
    for f in range(t - 1, -1, -1):
        for s in range(t - 1, -1, -1):
            rest_f = np.zeros((n, n))
            rest_s = np.zeros((n, n))
            for outcome, p in hits:
                target_s, target_f = min(s + outcome.damage, t), min(f + outcome.damage, t)
                rest_f += p[:, None] * (to_f if outcome.again else to_s)[f, target_s]
                rest_s += p[None, :] * (to_s if outcome.again else to_f)[target_f, s]
            to_f[f, s] = (rest_f + miss_f * rest_s) * denominator
            to_s[f, s] = miss_s * to_f[f, s] + rest_s


def win_matrix(skills: Sequence[int], rules: MsvRules) -> np.ndarray:
    """M[i, j] = P(skills[i] beats skills[j]) with initiative; NaN for CS 0 vs CS 0.

    >>> from referee.systems.msv import default_rules
    >>> float(win_matrix([0, 40], default_rules())[1, 0])
    1.0
    """
    checked = [check_cs(cs) for cs in skills]
    if not 0 < len(checked) <= MAX_SIDE:
        raise LimitError(f"a matrix needs 1..{MAX_SIDE} skills, got {len(checked)}")
    first = first_mover_matrix(checked, rules)
    wins = first_mover_wins(checked, rules)
    matrix: np.ndarray = first * wins + (1.0 - first) * (1.0 - wins.T)
    clipped: np.ndarray = np.clip(matrix, 0.0, 1.0)  # rounding may leave -1e-17; NaN stays
    return clipped
