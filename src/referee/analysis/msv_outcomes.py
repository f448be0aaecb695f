"""Exact one-roll distributions for MSV: an attack's outcome, an initiative key.

Everything here enumerates the 100 faces of the d100 (MSV-1) with `Fraction` weights.

>>> from referee.systems.msv import default_rules
>>> outcomes = attack_outcomes(65, default_rules())
>>> outcomes[Outcome(damage=0, again=False)]
Fraction(7, 20)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from referee.errors import RuleError
from referee.systems.msv.attack import D100, check_cs, interpret
from referee.systems.msv.initiative import sort_key
from referee.systems.msv.rules import (
    GRID_SKILLS,
    FaceRow,
    MsvRules,
    TieBreak,
    face_grid,
    face_row,
)

FACES = range(1, D100 + 1)


@dataclass(frozen=True, slots=True, order=True)
class Outcome:
    """What one attack roll does to a duel: damage dealt, and whether the attacker goes again."""

    damage: int
    again: bool


def attack_outcomes(cs: int, rules: MsvRules) -> dict[Outcome, Fraction]:
    """Exact distribution of one attack roll's outcome (MSV-2..MSV-4), sorted by outcome.

    >>> from referee.systems.msv import default_rules
    >>> sorted(attack_outcomes(10, default_rules()).items())[-1]
    (Outcome(damage=1, again=True), Fraction(1, 100))
    """
    if rules.uses_formulas:
        return _formula_outcomes(check_cs(cs), rules)
    weights: defaultdict[Outcome, int] = defaultdict(int)
    for face in FACES:
        hit = interpret(cs, face, rules)
        weights[Outcome(hit.damage, hit.free_attack)] += 1
    return {o: Fraction(n, D100) for o, n in sorted(weights.items())}


def _formula_outcomes(cs: int, rules: MsvRules) -> dict[Outcome, Fraction]:
    """`attack_outcomes` for a formula pack, from the pack's face table.

    A pack may make a critical that deals no damage and gives a free attack: the attacker
    then simply rolls again in the same state, so that outcome is folded away (the others
    scaled by 1 / (1 - its chance)); free attacks are not rounds, so nothing else changes.
    """
    row = face_row(rules, cs)
    weights: defaultdict[Outcome, int] = defaultdict(int)
    for d, critical in zip(row.damage, row.critical, strict=True):
        weights[Outcome(d, critical and rules.free_attacks)] += 1
    loop = weights.pop(Outcome(0, True), 0)
    if loop == D100:
        raise RuleError(
            f"CS {cs}: every roll is a critical with no damage and a free attack, so the "
            "attack never ends (check the pack's success, damage and critical formulas)"
        )
    return {o: Fraction(n, D100 - loop) for o, n in sorted(weights.items())}


def key_distribution(cs: int, rules: MsvRules) -> dict[int, Fraction]:
    """Exact distribution of one fighter's initiative sort key (MSV-5).

    >>> from referee.systems.msv import default_rules
    >>> key_distribution(50, default_rules())[4]
    Fraction(1, 20)
    """
    weights: defaultdict[int, int] = defaultdict(int)
    if rules.uses_formulas and rules.tie_break is TieBreak.REROLL:
        for key in face_row(rules, check_cs(cs)).effect:
            weights[key] += 1
        return {k: Fraction(n, D100) for k, n in sorted(weights.items())}
    for face in FACES:
        weights[sort_key(check_cs(cs), face, rules)] += 1
    return {k: Fraction(n, D100) for k, n in sorted(weights.items())}


def first_mover_chance(cs_a: int, cs_b: int, rules: MsvRules) -> Fraction:
    """Exact chance that A acts first in a two-fighter initiative, rerolls included (MSV-5).

    Each round A goes first with p(A > B), B with p(B > A), otherwise they roll again, so
    A goes first with p(A > B) / (p(A > B) + p(B > A)).

    >>> from referee.systems.msv import default_rules
    >>> first_mover_chance(65, 65, default_rules())
    Fraction(1, 2)
    """
    keys_a, keys_b = key_distribution(cs_a, rules), key_distribution(cs_b, rules)
    a_ahead = sum(
        (pa * pb for ka, pa in keys_a.items() for kb, pb in keys_b.items() if ka > kb), Fraction(0)
    )
    b_ahead = sum(
        (pa * pb for ka, pa in keys_a.items() for kb, pb in keys_b.items() if ka < kb), Fraction(0)
    )
    if a_ahead + b_ahead == 0:
        raise RuleError(
            f"CS {cs_a} vs CS {cs_b}: initiative never settles and the bout never ends "
            "(every initiative roll ties, so it is rerolled forever; MSV-5)"
        )
    return a_ahead / (a_ahead + b_ahead)


@dataclass(frozen=True, slots=True)
class FaceCounts:
    """The one-roll distributions of many skills at once, as whole counts over the 100 faces.

    `hits[i, d - 1, a]`: how many faces of skill i deal damage d (damages of `cap` and more
    are counted at `cap`) with `a` = 1 when the attacker goes again (MSV-4); `misses[i]`: faces
    that deal nothing; `totals[i]`: the faces that count (100 less the rolls that
    `attack_outcomes` folds away), so a chance is a count over its total, exactly as there.
    `key_counts[i, k]`: faces of skill i whose initiative sort key is `keys[k]` (MSV-5),
    out of 100, exactly `key_distribution`.
    """

    hits: np.ndarray
    misses: np.ndarray
    totals: np.ndarray
    keys: np.ndarray
    key_counts: np.ndarray


#: The columns of a face table (`referee.systems.msv.rules.FaceRow`), as numpy arrays.
_COLUMNS = ("success", "damage", "critical", "extra", "effect")


def _arrays(rows: Sequence[FaceRow]) -> tuple[np.ndarray, ...]:
    return tuple(np.array([getattr(row, name) for row in rows]) for name in _COLUMNS)


@lru_cache(maxsize=128)
def grid_arrays(rules: MsvRules) -> tuple[np.ndarray, ...]:
    """`face_grid` as arrays of shape (101, 100), CS 0..100 (made once per pack)."""
    return _arrays(face_grid(rules))


def face_rows(rules: MsvRules, skills: Sequence[int]) -> tuple[np.ndarray, ...]:
    """The pack's face table for many CS at once: (success, damage, critical, extra, effect),
    each an array of shape (len(skills), 100).

    >>> from referee.systems.msv import default_rules
    >>> [int(x) for x in face_rows(default_rules(), [65, 130])[1][:, 99]]
    [0, 4]
    """
    if all(0 <= cs < GRID_SKILLS for cs in skills):
        at = np.asarray(skills, dtype=np.int64)
        return tuple(column[at] for column in grid_arrays(rules))
    return _arrays([face_row(rules, cs) for cs in skills])


def face_counts(skills: Sequence[int], rules: MsvRules, cap: int) -> FaceCounts:
    """`attack_outcomes` and `key_distribution` of every skill, vectorised over faces.

    The faces come from the pack's face table (`face_rows`), which reads the fixed options
    and the formulas alike; `attack_outcomes` and `key_distribution` stay the exact
    reference they are checked against (tests/test_msv_duel.py). Damages of `cap` and
    more are counted at `cap` (the defeat threshold: any of them defeats a fresh foe).

    >>> from referee.systems.msv import default_rules
    >>> counts = face_counts([65], default_rules(), cap=15)
    >>> counts.hits[0, :4].tolist(), int(counts.misses[0]), int(counts.totals[0])
    ([[14, 1], [13, 2], [14, 1], [18, 2]], 35, 100)
    """
    checked = [check_cs(cs) for cs in skills]
    success, damage, critical, _, effect = face_rows(rules, checked)
    again = critical & rules.free_attacks  # MSV-4
    n = len(checked)
    loop = np.count_nonzero((damage == 0) & again, axis=1)
    if np.any(loop == D100):
        attack_outcomes(checked[int(np.flatnonzero(loop == D100)[0])], rules)  # the RuleError
    row = np.arange(n)[:, None]
    hit = damage > 0
    slot = (row * cap + np.minimum(damage, cap) - 1) * 2 + again  # (skill, damage, again)
    hits = np.bincount(slot[hit], minlength=n * cap * 2).reshape(n, cap, 2)
    misses = np.count_nonzero(~hit & ~again, axis=1)
    if rules.tie_break is TieBreak.HIGHER_RAW_ROLL:  # MSV-5, as `sort_key`
        raw = np.where(success, np.arange(1, D100 + 1), 0)
        key = effect * 101 + raw if rules.uses_formulas else raw
    else:
        key = effect
    keys, inverse = np.unique(key, return_inverse=True)
    where = row * len(keys) + inverse.reshape(key.shape)
    key_counts = np.bincount(where.ravel(), minlength=n * len(keys)).reshape(n, len(keys))
    return FaceCounts(hits, misses, D100 - loop, keys, key_counts)
