"""What a group battle of MSV is made of, for both ways of working it out (`battle_exact`,
`battle_simulate`): its bounds, the fighters of two sides, the damage of an action, the
initiative's orders, whom a policy attacks, and the result."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from referee.analysis.msv_outcomes import Outcome, attack_outcomes
from referee.errors import LimitError, RuleError
from referee.lab.battle_result import (
    BattleFigures,
    Policy,
    check_side,
    line_up,
)
from referee.systems.msv.attack import check_fighter_cs
from referee.systems.msv.notation import read_fighter
from referee.systems.msv.rules import MsvRules

#: Bounds on untrusted input (DESIGN: budgets).
MAX_BATTLES = 10_000_000


MAX_EXACT_CELLS = 8_000_000


AUTO_EXACT_CELLS = 1_000_000  # above this, `battle` answers by Monte Carlo unless told


MAX_STEPS = 100_000


MAX_INITIATIVE_COLUMNS = 1000


@dataclass(frozen=True, slots=True)
class Fighter:
    """One fighter of a battle."""

    name: str
    cs: int
    side: int


def parse_side(text: str) -> tuple[tuple[str, int], ...]:
    """`"Tarl=65,Rask=55"` -> (("Tarl", 65), ("Rask", 55)); each fighter read as
    `referee.systems.msv.notation.read_fighter` reads it (old dice `2dN` too).

    >>> parse_side("Tarl=65, Orc=50")
    (('Tarl', 65), ('Orc', 50))
    """
    out = []
    for part in text.split(","):
        name, cs = read_fighter(part.strip())
        out.append((name, int(cs)))
    check_side(len(out))
    return tuple(out)


def make_fighters(
    first: Sequence[tuple[str, int]], second: Sequence[tuple[str, int]]
) -> tuple[Fighter, ...]:
    """Both sides as one list; a repeated name gets a number ("Orc", "Orc 2").

    >>> [f.name for f in make_fighters([("Orc", 50)], [("Orc", 50), ("Orc", 50)])]
    ['Orc', 'Orc 2', 'Orc 3']
    """
    return line_up(
        (first, second),
        lambda entry: entry[0],
        lambda label, side, entry: Fighter(label, int(check_fighter_cs(entry[1])), side),
    )


def action_damage(outcomes: dict[Outcome, Fraction], threshold: int) -> np.ndarray:
    """P(one action deals total damage k) for k = 0..threshold-1, then P(>= threshold).

    An action is a roll plus the free attacks its criticals chain (MSV-4).

    >>> from referee.systems.msv.rules import default_rules
    >>> g = action_damage(attack_outcomes(100, default_rules()), 15)
    >>> round(float(g[0]), 3), round(float(g.sum()), 12)
    (0.0, 1.0)
    """
    # A free attack that deals nothing (MSV-4 on a 0-damage critical) is rolled again: the
    # action's total then follows the rest, scaled by 1 / (1 - P(that outcome)).
    loop = sum((p for out, p in outcomes.items() if out.again and out.damage == 0), Fraction(0))
    if loop >= 1:
        raise RuleError("every attack is a free attack that deals no damage: an action never ends")
    exact = [Fraction(0)] * threshold
    for k in range(threshold):
        total = Fraction(0)
        for out, p in outcomes.items():
            if out.again and 1 <= out.damage <= k:
                total += p * exact[k - out.damage]
            elif not out.again and out.damage == k:
                total += p
        exact[k] = total / (1 - loop)
    values = [float(x) for x in exact]
    return np.array([*values, max(0.0, 1.0 - math.fsum(values))])


def order_distribution(keys: Sequence[dict[int, Fraction]]) -> dict[tuple[int, ...], Fraction]:
    """Exact P(initiative order) for fighters with these key distributions (MSV-5 rerolls).

    A group that can never settle (every key always equal) keeps the listed order.

    >>> from referee.analysis.msv_outcomes import key_distribution
    >>> from referee.systems.msv.rules import default_rules
    >>> d = order_distribution([key_distribution(65, default_rules())] * 2)
    >>> d[(0, 1)]
    Fraction(1, 2)
    """
    size = math.prod(len(k) for k in keys)
    if size > 200_000:
        raise LimitError(f"initiative has {size} key combinations, more than the exact bound")

    @cache
    def settle(group: tuple[int, ...]) -> dict[tuple[int, ...], Fraction]:
        if len(group) == 1:
            return {group: Fraction(1)}
        result: dict[tuple[int, ...], Fraction] = {}
        stuck = Fraction(0)
        for combo in itertools.product(*(keys[i].items() for i in group)):
            p = math.prod((c[1] for c in combo), start=Fraction(1))
            values = [c[0] for c in combo]
            if len(set(values)) == 1:
                stuck += p
                continue
            blocks = [
                tuple(i for i, v in zip(group, values, strict=True) if v == level)
                for level in sorted(set(values), reverse=True)
            ]
            partial: dict[tuple[int, ...], Fraction] = {(): p}
            for block in blocks:
                sub = settle(block)
                partial = {a + b: pa * pb for a, pa in partial.items() for b, pb in sub.items()}
            for order, q in partial.items():
                result[order] = result.get(order, Fraction(0)) + q
        if stuck == 1:
            return {group: Fraction(1)}
        return {order: q / (1 - stuck) for order, q in result.items()}

    return settle(tuple(range(len(keys))))


@dataclass(frozen=True, slots=True)
class BattleResult(BattleFigures[Fighter]):
    """What a battle gives: win chances, rounds, survivors and damage (with standard errors)."""

    @property
    def mean_damage(self) -> tuple[float, ...]:
        """Per fighter: the mean damage taken."""
        return self.mean_taken

    @property
    def damage(self) -> tuple[tuple[float, ...], ...]:
        """Per fighter: P(damage taken = k), k = 0..threshold."""
        return self.taken

    def to_json(self) -> dict[str, object]:
        """As JSON (floats).

        >>> from referee.lab.battle_exact import exact_battle
        >>> from referee.systems.msv.rules import default_rules
        >>> f = parse_side("A=60")
        >>> exact_battle(f, parse_side("B=60"), default_rules(), "spread").to_json()["method"]
        'exact'
        """
        fighters = [{"name": f.name, "cs": f.cs, "side": f.side + 1} for f in self.fighters]
        return self.figures_json(fighters, "mean_damage", "damage_distribution")


def ranks(fighters: Sequence[Fighter]) -> np.ndarray:
    """Each fighter's CS as a dense rank (equal CS, equal rank)."""
    result: np.ndarray = np.unique([f.cs for f in fighters], return_inverse=True)[1]
    return result.reshape(-1)


def targets(policy: Policy, fighters: Sequence[Fighter], taken: np.ndarray, t: int) -> np.ndarray:
    """Weights W[..., attacker, target] for damage arrays `taken` of shape (..., n)."""
    n = len(fighters)
    cs = ranks(fighters)
    side = np.array([f.side for f in fighters])
    alive = taken < t
    weights = np.zeros((*taken.shape[:-1], n, n))
    for a in range(n):
        enemy = alive & (side != side[a])  # (..., n)
        if policy is Policy.RANDOM:
            count = enemy.sum(axis=-1, keepdims=True)
            weights[..., a, :] = np.where(enemy, 1.0 / np.maximum(count, 1), 0.0)
            continue
        big = 10**6
        if policy is Policy.FOCUS_WEAKEST:
            score = taken * 1000 - cs  # most damage first, then the lower CS
        elif policy is Policy.FOCUS_STRONGEST:
            score = cs * 1000 + taken
        else:
            score = -taken
        score = np.where(enemy, score * 16 - np.arange(n), -big * 1000)  # listed first wins
        best = np.argmax(score, axis=-1)
        one = np.zeros_like(weights[..., a, :])
        np.put_along_axis(one, best[..., None], 1.0, axis=-1)
        weights[..., a, :] = np.where(enemy.any(axis=-1, keepdims=True), one, 0.0)
    return weights


def check_battle(fighters: Sequence[Fighter], rules: MsvRules) -> list[np.ndarray]:
    tables = [action_damage(attack_outcomes(f.cs, rules), rules.defeat_threshold) for f in fighters]
    for side in (0, 1):
        if all(tables[i][0] == 1.0 for i, f in enumerate(fighters) if f.side == side):
            other = [i for i, f in enumerate(fighters) if f.side != side]
            if all(tables[i][0] == 1.0 for i in other):
                raise RuleError("nobody can ever deal damage: the battle would never end")
    return tables


def exact_cells(fighters: Sequence[Fighter], rules: MsvRules) -> int:
    """The size of the exact chain: damage states x initiative orders x who acts.

    >>> from referee.systems.msv.rules import default_rules
    >>> exact_cells(make_fighters([("A", 60), ("B", 55)], [("C", 65), ("D", 50)]), default_rules())
    6291456
    """
    n = len(fighters)
    return int((rules.defeat_threshold + 1) ** n * math.factorial(n) * n)
