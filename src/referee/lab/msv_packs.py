"""Exact analysis of any MSV pack beside another (by default the text's): duels, matrices, the
text's comparison tables, and the ladder of fighters.

>>> pack = load_pack("text")
>>> round(float(duel_pair(pack, pack, 60, 65)[0].p_a_wins), 4)
0.3923
>>> ladder = build_ladder(pack, (50, 60, 70))
>>> [round(s.p_higher_wins, 3) for s in ladder.steps]
[0.751, 0.706]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from pathlib import Path

import numpy as np

from referee.analysis.msv_duel import DuelAnalysis, analyse_duel
from referee.analysis.msv_matrix import win_matrix
from referee.analysis.msv_tables import Cell, comparison_cells
from referee.analysis.msv_text import NEW_SKILLS
from referee.errors import LimitError, RuleError
from referee.systems.msv.attack import check_fighter_cs
from referee.systems.msv.rules import MsvRules, default_rules, load_rules

#: Names that mean the text's own pack.
TEXT_NAMES = ("text", "default")
#: The text's ladder of fighters (its s50..s75 columns).
LADDER = NEW_SKILLS


def load_pack(spec: str | Path | None) -> MsvRules:
    """A pack from a TOML file, or the text's pack for None, "text" or "default".

    >>> load_pack("text") == default_rules()
    True
    """
    if spec is None or str(spec) in TEXT_NAMES:
        return default_rules()
    return load_rules(Path(spec))


def duel_pair(
    pack: MsvRules, against: MsvRules, cs_a: int, cs_b: int
) -> tuple[DuelAnalysis, DuelAnalysis]:
    """The exact duel under `pack` and under `against`.

    >>> text = load_pack("text")
    >>> [d.p_a_first for d in duel_pair(text, text, 65, 65)]
    [Fraction(1, 2), Fraction(1, 2)]
    """
    return analyse_duel(cs_a, cs_b, pack), analyse_duel(cs_a, cs_b, against)


def skill_range(low: int, high: int, step: int) -> list[int]:
    """CS low..high by step, checked (at most 101 values), each end a fighter's CS (0..100, as
    every CS a fighter is given: MSV-2, CS 100 always succeeds).

    >>> skill_range(50, 75, 5)
    [50, 55, 60, 65, 70, 75]
    >>> skill_range(95, 105, 5)
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: CS must be 0..100 (MSV-2: CS 100 always succeeds), got 105
    """
    check_fighter_cs(low)
    check_fighter_cs(high)
    if high < low:
        raise RuleError(f"the highest CS {high!r} is below the lowest {low!r}")
    if step < 1:
        raise RuleError(f"the CS step must be at least 1, got {step!r}")
    skills = list(range(low, high + 1, step))
    if len(skills) > 101:
        raise LimitError(f"a matrix has at most 101 CS values, got {len(skills)}")
    return skills


def difference_matrix(pack: MsvRules, against: MsvRules, skills: Sequence[int]) -> np.ndarray:
    """P(row beats column) under `pack` minus the same under `against` (NaN where undefined).

    >>> text = load_pack("text")
    >>> float(np.nanmax(np.abs(difference_matrix(text, text, [50, 60]))))
    0.0
    """
    result: np.ndarray = win_matrix(skills, pack) - win_matrix(skills, against)
    return result


@dataclass(frozen=True, slots=True)
class LadderStep:
    """One step up the ladder: the higher CS against the one below it."""

    low: int
    high: int
    p_higher_wins: float

    @property
    def edge_per_point(self) -> float:
        """How much each point of CS is worth on this step: (P - 1/2) / (high - low).

        >>> round(LadderStep(50, 55, 0.6).edge_per_point, 3)
        0.02
        """
        return (self.p_higher_wins - 0.5) / (self.high - self.low)


@dataclass(frozen=True, slots=True)
class Ladder:
    """Who beats whom among a list of CS, and what each step of CS is worth."""

    skills: tuple[int, ...]
    matrix: np.ndarray
    steps: tuple[LadderStep, ...]

    def to_json(self) -> dict[str, object]:
        """As JSON (floats; NaN as null).

        >>> build_ladder(load_pack("text"), (50, 55)).to_json()["steps"][0]["low"]
        50
        """
        return {
            "skills": list(self.skills),
            "matrix": [[None if v != v else v for v in row] for row in self.matrix.tolist()],
            "steps": [
                {
                    "low": s.low,
                    "high": s.high,
                    "p_higher_wins": s.p_higher_wins,
                    "edge_per_point": s.edge_per_point,
                }
                for s in self.steps
            ],
        }


def build_ladder(
    pack: MsvRules,
    skills: Sequence[int] = LADDER,
    known: tuple[Sequence[int], np.ndarray] | None = None,
) -> Ladder:
    """The ladder of `skills` (sorted, distinct) under `pack`; `known` is a matrix already
    computed for a list of CS that may hold them all.

    >>> build_ladder(load_pack("text"), (75, 50)).skills
    (50, 75)
    """
    ordered = tuple(sorted({check_fighter_cs(s) for s in skills}))
    if len(ordered) < 2:
        raise RuleError(f"a ladder needs at least two different CS, got {list(skills)!r}")
    if len(ordered) > 101:
        raise LimitError(f"a ladder has at most 101 CS values, got {len(ordered)}")
    if known is not None and set(ordered) <= set(known[0]):
        where = [list(known[0]).index(cs) for cs in ordered]
        matrix = known[1][np.ix_(where, where)]
    else:
        matrix = win_matrix(ordered, pack)
    steps = tuple(
        LadderStep(low, high, float(matrix[i + 1, i]))
        for i, (low, high) in enumerate(pairwise(ordered))
    )
    return Ladder(ordered, matrix, steps)


@dataclass(frozen=True, slots=True)
class CompareRow:
    """One row of the text's tables for two packs: the printed figures, then each pack's."""

    table: str
    stat: str
    columns: tuple[str, ...]
    printed: tuple[str, ...]
    against: tuple[Fraction | None, ...]  # None: never (rounds of a CS that deals no damage)
    pack: tuple[Fraction | None, ...]
    pack_free: tuple[Fraction | None, ...]

    def to_json(self) -> dict[str, object]:
        """As JSON (floats and exact fractions as strings).

        >>> compare_rows(load_pack("text"), load_pack("text"))[0].to_json()["stat"]
        'hit'
        """

        def fraction(x: Fraction | None) -> str | None:
            return None if x is None else f"{x.numerator}/{x.denominator}"

        return {
            "table": self.table,
            "stat": self.stat,
            "columns": list(self.columns),
            "printed": list(self.printed),
            "against": [None if x is None else float(x) for x in self.against],
            "pack": [None if x is None else float(x) for x in self.pack],
            "pack_exact": [fraction(x) for x in self.pack],
            "pack_with_free_attacks": [None if x is None else float(x) for x in self.pack_free],
        }


def _figure(cell: Cell) -> Fraction | None:
    """The figure the text's method gives, or for rounds the exact expectation."""
    return cell.exact if cell.stat == "rounds" else cell.method


def compare_rows(pack: MsvRules, against: MsvRules | None = None) -> list[CompareRow]:
    """The text's new-system and ratio tables (MSV-10) for `pack` beside `against`.

    Hit % and damage per round by the text's method (criticals as plain hits); rounds the
    exact expected rounds to 15 damage; `pack_free` the same with the pack's criticals.

    >>> rows = compare_rows(load_pack("text"))
    >>> [r.stat for r in rows]
    ['hit', 'damage', 'rounds', 'hit', 'damage']
    """
    base = comparison_cells(against or default_rules())
    mine = comparison_cells(pack)
    rows = []
    for table, stat in (("new", "hit"), ("new", "damage"), ("new", "rounds"), ("ratio", "hit"),
                        ("ratio", "damage")):  # fmt: skip
        theirs = [c for c in base if (c.table, c.stat) == (table, stat)]
        ours = [c for c in mine if (c.table, c.stat) == (table, stat)]
        rows.append(
            CompareRow(
                table,
                stat,
                tuple(c.column for c in ours),
                tuple(c.printed for c in ours),
                tuple(_figure(c) for c in theirs),
                tuple(_figure(c) for c in ours),
                tuple(c.exact_free for c in ours),
            )
        )
    return rows
