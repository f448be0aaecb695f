"""`~odds EXPR`: the exact distribution of a roll, short enough for one Discord message.

The numbers are `referee.dice.odds`'s (the same limits as `referee roll --odds`); this only
chooses what fits: the mean, the spread, and P(= total) and P(>= total) for every total, or
for `ROWS` totals spread evenly over the range when there are more.

>>> from referee.dice import odds, parse
>>> print("\\n".join(odds_message(odds(parse("2d6")), "roll20")))
Odds of 2d6 (roll20, exact): mean 7, sd 2.415, totals 2..12
```
total    P(=)    P(>=)
2       2.78%  100.00%
3       5.56%   97.22%
4       8.33%   91.67%
5      11.11%   83.33%
6      13.89%   72.22%
7      16.67%   58.33%
8      13.89%   41.67%
9      11.11%   27.78%
10      8.33%   16.67%
11      5.56%    8.33%
12      2.78%    2.78%
```
"""

from __future__ import annotations

from fractions import Fraction

from referee.dice import Odds
from referee.dice.render import number

#: Rows of the table at most (a Discord message holds 2,000 characters).
ROWS = 16


def _percent(p: Fraction) -> str:
    if p and p < Fraction(1, 10**4):
        return f"{float(p):.1e}"
    return f"{float(p) * 100:.2f}%"


def _picked(count: int) -> list[int]:
    """Which rows to show: all, or `ROWS` spread evenly, first and last included.

    >>> _picked(3)
    [0, 1, 2]
    >>> len(_picked(100)), _picked(100)[0], _picked(100)[-1]
    (16, 0, 99)
    """
    if count <= ROWS:
        return list(range(count))
    return sorted({round(i * (count - 1) / (ROWS - 1)) for i in range(ROWS)})


def odds_message(answer: Odds, dialect: str) -> list[str]:
    """The lines of the answer: a header, the explosion cap where it applies, a table."""
    table = answer.table()
    mean = answer.mean
    shown_mean = str(mean) if mean.denominator == 1 else f"{float(mean):.3f}"
    low, high = number(table[0][0]), number(table[-1][0])
    lines = [
        f"Odds of {answer.expression} ({dialect}, exact): mean {shown_mean}, "
        f"sd {answer.sd:.3f}, totals {low}..{high}"
    ]
    if answer.chained:
        lines.append(
            f"Explosions and rerolls stop at depth {answer.depth}; a chain reaches it with "
            f"P = {_percent(answer.capped)}."
        )
    picked = _picked(len(table))
    rows = [(number(table[i][0]), _percent(table[i][1]), _percent(table[i][2])) for i in picked]
    width = max(len("total"), *(len(r[0]) for r in rows))
    lines.append("```")
    lines.append(f"{'total'.ljust(width)} {'P(=)':>7} {'P(>=)':>8}")
    lines += [f"{t.ljust(width)} {p:>7} {a:>8}" for t, p, a in rows]
    lines.append("```")
    if len(picked) < len(table):
        lines.append(
            f"{len(picked)} of {len(table)} totals shown; referee roll EXPR --odds prints all."
        )
    return lines
