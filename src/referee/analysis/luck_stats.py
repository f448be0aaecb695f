"""The exact distributions a luck report reads faces against (docs/luck.md). Pure; numpy only.

- `poisson_binomial(chances)`: the distribution of how many of independent trials succeed, each
  with its own chance (the hits of attacks at different CS).
- `sum_distribution(pmfs)`: the distribution of a sum of independent whole numbers, each with
  its own distribution (the total damage of attacks), by convolution.
- `longest_run_at_least(chances, length)`: the chance that a sequence of independent trials,
  each failing with its own chance, holds a run of `length` failures in a row (a DP).
- `gamma_q(a, x)` and `chi_square_sf(x, df)`: the regularized upper incomplete gamma function
  and the chi-square survival function it gives, by series and continued fraction.
- `mid_p(pmf, observed)`: the two-sided mid-p value of a count against its distribution.

>>> [round(float(p), 4) for p in poisson_binomial([0.5, 0.5])]
[0.25, 0.5, 0.25]
>>> round(chi_square_sf(3.841458820694124, 1), 6)
0.05
>>> round(longest_run_at_least([0.5] * 3, 2), 4)  # MMx, xMM, MMM of 8
0.375
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.errors import RuleError

#: Past this many products a convolution goes through the FFT instead of directly.
DIRECT_LIMIT = 1 << 20

#: The series and continued fraction of `gamma_q` stop when a term changes the sum by less.
_EPSILON = 1e-15
_ITERATIONS = 10_000

Floats = NDArray[np.float64]


def convolve(a: Floats, b: Floats) -> Floats:
    """The distribution of the sum of two independent whole numbers from 0 (a[i] = P(i)).

    >>> convolve(np.array([0.5, 0.5]), np.array([0.5, 0.5])).tolist()
    [0.25, 0.5, 0.25]
    """
    if len(a) * len(b) <= DIRECT_LIMIT:
        return np.convolve(a, b)
    size = len(a) + len(b) - 1
    length = 1 << (size - 1).bit_length()
    out = np.fft.irfft(np.fft.rfft(a, length) * np.fft.rfft(b, length), length)[:size]
    out = np.clip(out, 0.0, None)  # the FFT's rounding leaves tiny negatives in the tails
    return np.asarray(out / out.sum(), dtype=np.float64)


def power(pmf: Floats, times: int) -> Floats:
    """The distribution of the sum of `times` independent draws of `pmf` (repeated squaring).

    >>> power(np.array([0.5, 0.5]), 3).tolist()
    [0.125, 0.375, 0.375, 0.125]
    """
    out: Floats = np.ones(1)
    base = pmf
    while times:
        if times & 1:
            out = convolve(out, base)
        times >>= 1
        if times:
            base = convolve(base, base)
    return out


def sum_distribution(pmfs: Sequence[Sequence[float]]) -> Floats:
    """The distribution of the sum of independent whole numbers, pmfs[i][v] = P(i-th is v).

    Equal distributions are grouped and raised to their count, so a thousand attacks at a few
    CS cost a few convolutions.

    >>> [round(p * 36) for p in sum_distribution([[0] + [1 / 6] * 6] * 2)]
    [0, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]
    """
    counts = Counter(tuple(float(p) for p in pmf) for pmf in pmfs)
    out: Floats = np.ones(1)
    for pmf, times in sorted(counts.items()):
        out = convolve(out, power(np.asarray(pmf, dtype=np.float64), times))
    return out


def poisson_binomial(chances: Sequence[float] | ArrayLike) -> Floats:
    """The distribution of the number of successes of independent trials with these chances.

    >>> [round(float(p), 3) for p in poisson_binomial([0.2, 0.7])]
    [0.24, 0.62, 0.14]
    """
    values = np.asarray(chances, dtype=np.float64).ravel()
    if values.size and (values.min() < 0.0 or values.max() > 1.0):
        raise RuleError("a chance is a number in 0..1")
    return sum_distribution([(1.0 - p, p) for p in values.tolist()])


def mid_p(pmf: Floats, observed: ArrayLike) -> NDArray[np.float64]:
    """The two-sided mid-p value of each observed count: twice the smaller tail, each tail
    counting half the chance of the count itself, at most 1.

    Under its distribution a mid-p value falls at or below a level about that often (an exact
    p-value of a count falls there less often: it is conservative).

    >>> pmf = poisson_binomial([0.5] * 4)
    >>> mid_p(pmf, [0, 2, 4]).tolist()
    [0.0625, 1.0, 0.0625]
    """
    k = np.asarray(observed, dtype=np.int64)
    below = np.concatenate(([0.0], np.cumsum(pmf)))  # below[k] = P(X < k)
    above = np.concatenate((np.cumsum(pmf[::-1])[::-1], [0.0]))  # above[k] = P(X >= k)
    inside = (k >= 0) & (k < len(pmf))
    at = np.where(inside, pmf[np.clip(k, 0, len(pmf) - 1)], 0.0)
    lower = below[np.clip(k, 0, len(pmf))] + at / 2
    upper = above[np.clip(k + 1, 0, len(pmf))] + at / 2  # each tail summed from its own end
    return np.asarray(np.clip(2 * np.minimum(lower, upper), 0.0, 1.0), dtype=np.float64)


def tail_at_most(pmf: Floats, observed: int) -> float:
    """P(X <= observed).

    >>> tail_at_most(np.array([0.25, 0.5, 0.25]), 1)
    0.75
    """
    return float(min(1.0, pmf[: max(0, observed + 1)].sum()))


def longest_run_at_least(miss_chances: Sequence[float], length: int) -> float:
    """The chance that independent trials, the i-th a miss with chance miss_chances[i], in this
    order, miss `length` times or more in a row somewhere. Exact (a DP over the current run).

    >>> longest_run_at_least([0.9, 0.9], 2), longest_run_at_least([0.3], 0)
    (0.81, 1.0)
    """
    if length <= 0:
        return 1.0
    # state[j]: the chance of standing on a run of j misses (j < length), none reached yet
    state: Floats = np.zeros(length)
    state[0] = 1.0
    reached = 0.0
    for q in miss_chances:
        carried = state * q
        reached += float(carried[-1])
        state = np.concatenate(([float(state.sum()) * (1.0 - q)], carried[:-1]))
    return min(1.0, reached)


def longest_run(misses: Sequence[bool]) -> int:
    """The longest run of True in a row.

    >>> longest_run([True, False, True, True, False])
    2
    """
    best = current = 0
    for miss in misses:
        current = current + 1 if miss else 0
        best = max(best, current)
    return best


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a).

    By its series below a + 1 and its continued fraction (modified Lentz) above.

    >>> round(gamma_q(1.0, 2.0), 12) == round(math.exp(-2.0), 12)
    True
    """
    if a <= 0 or x < 0:
        raise RuleError(f"gamma_q needs a > 0 and x >= 0, got a={a}, x={x}")
    if x == 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        shift = a
        for _ in range(_ITERATIONS):
            shift += 1
            term *= x / shift
            total += term
            if abs(term) < abs(total) * _EPSILON:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, _ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON:
            break
    return min(1.0, math.exp(log_front) * h)


def chi_square_sf(statistic: float, df: int) -> float:
    """P(a chi-square variable of `df` degrees of freedom >= statistic).

    >>> round(chi_square_sf(23.209251158954356, 10), 6)
    0.01
    """
    if df < 1:
        raise RuleError(f"a chi-square needs at least 1 degree of freedom, got {df}")
    return gamma_q(df / 2.0, max(0.0, statistic) / 2.0)


#: The least expected count of a chi-square bin (below it the approximation does not hold).
MIN_EXPECTED = 5.0


def face_bins(sides: int, rolls: int) -> list[range]:
    """Faces 1..sides in runs of neighbours, as many runs as keep `rolls / sides` times a
    run's size at least MIN_EXPECTED (none: too few rolls for two bins).

    >>> face_bins(100, 12), face_bins(6, 600)[:2], face_bins(20, 9)
    ([range(1, 51), range(51, 101)], [range(1, 2), range(2, 3)], [])
    """
    count = min(sides, int(rolls // MIN_EXPECTED))
    while count >= 2:
        edges = np.linspace(0, sides, count + 1).round().astype(int).tolist()
        bins = [range(lo + 1, hi + 1) for lo, hi in pairwise(edges)]
        if min(len(b) for b in bins) * rolls / sides >= MIN_EXPECTED:
            return bins
        count -= 1
    return []
