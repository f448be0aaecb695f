"""A group battle's figures as text, for every system (`referee lab battle`).

What differs between systems comes in as data: how each fighter is written, what fighters
take ("damage", "hits"), a prefix naming the system and the width of the name column.

>>> from referee.lab.battle import exact_battle, parse_side
>>> from referee.systems.msv.rules import default_rules
>>> r = exact_battle(parse_side("A=60"), parse_side("B=65"), default_rules(), "focus-weakest")
>>> print("\\n".join(battle_lines(r, [f.name for f in r.fighters], "damage", width=6)))
exact, policy focus-weakest (a chain of 1,024 cells)
P(side 1 wins)    0.3923   A
P(side 2 wins)    0.6077   B
expected rounds   7.800
fighter P(standing at the end)   mean damage taken
  A     0.3923                   13.028
  B     0.6077                   11.448
side 1 wins with: 1 up 0.3923
side 2 wins with: 1 up 0.6077
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.lab.battle_result import BattleFigures


def figure(value: float, se: float | None, digits: int = 4) -> str:
    """A figure, with its standard error when it has one.

    >>> figure(0.25, None), figure(7.5, 0.0123, 3)
    ('0.2500', '7.500 +- 0.012')
    """
    return f"{value:.{digits}f}" if se is None else f"{value:.{digits}f} +- {se:.{digits}f}"


def battle_lines(
    result: BattleFigures[Any],
    labels: Sequence[str],
    taken: str,
    *,
    prefix: str = "",
    width: int = 16,
) -> list[str]:
    """The battle's figures as text, fighter i written `labels[i]`; Monte Carlo figures carry
    their standard errors."""
    mc = result.method == "monte-carlo"
    if mc:
        head = (
            f"{prefix}Monte Carlo, {result.battles:,} battles, policy {result.policy.value} "
            f"(+- one standard error; the exact chain would need {result.states:,} cells)"
        )
    else:
        head = f"{prefix}exact, policy {result.policy.value} (a chain of {result.states:,} cells)"
    sides = [
        ", ".join(n for n, f in zip(labels, result.fighters, strict=True) if f.side == s)
        for s in (0, 1)
    ]
    se = result.se_first_side if mc else None
    lines = [
        head,
        f"P(side 1 wins)    {figure(result.p_first_side, se)}   {sides[0]}",
        f"P(side 2 wins)    {figure(result.p_second_side, se)}   {sides[1]}",
        f"expected rounds   {figure(result.expected_rounds, result.se_rounds if mc else None, 3)}",
        f"{'fighter':<{width + 2}}P(standing at the end)   mean {taken} taken",
    ]
    for i, name in enumerate(labels):
        p = figure(result.p_survives[i], result.se_survives[i] if mc else None)
        lines.append(f"  {name:<{width}}{p:<25}{result.mean_taken[i]:.3f}")
    for s, dist in enumerate(result.survivors, start=1):
        shown = ", ".join(f"{k} up {p:.4f}" for k, p in enumerate(dist) if k)
        lines.append(f"side {s} wins with: {shown}")
    return lines
