"""The text's three comparison tables, reproduced (MSV-10): printed, by its method, exact.

* printed: the figure in the text (`msv_text.PRINTED`).
* method: the text's own method. Old system: exact Rhy'Din enumeration (MSV-9). New system:
  hit = CS %, damage = mean MSV-3 damage ignoring criticals. Rounds = 15 / damage, rounded
  half up. Ratios: new method figure / old method figure.
* exact: the true figure. Rounds: the expected number of rounds (one attack roll each) for a
  lone attacker to deal 15 damage, with criticals as plain hits; `exact_free` the same with
  MSV-4 free attacks (a round is an action: one roll plus its free attacks), and for damage
  the mean damage of such an action.

A cell `differs` when the method figure, rounded like the printed one, is not the printed one.
Under a pack where a CS of the tables never deals damage, its rounds are None (never).

>>> cell = next(c for c in comparison_cells() if c.column == "2d21" and c.stat == "damage")
>>> cell.printed, f"{float(cell.method):.3f}", cell.differs
('0.84', '0.857', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from referee.analysis.msv_outcomes import Outcome, attack_outcomes
from referee.analysis.msv_text import NEW_SKILLS, OLD_SIDES, PRINTED, TEXT_THRESHOLD
from referee.errors import RuleError
from referee.systems.msv.attack import check_cs
from referee.systems.msv.old import old_damage_distribution, old_hit_chance, old_mean_damage
from referee.systems.msv.rules import MsvRules, face_row


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of the text's tables with the figure by its method and the exact one."""

    table: str
    stat: str
    column: str
    printed: str
    method: Fraction | None  # None: never (rounds of an attacker who never deals damage)
    exact: Fraction | None
    exact_free: Fraction | None = None
    from_printed: Fraction | None = None

    @property
    def printed_value(self) -> Fraction:
        """The printed figure as a number ("51%" -> 51, ".98" -> 49/50).

        >>> Cell("old", "hit", "2d20", "51%", Fraction(51), Fraction(51)).printed_value
        Fraction(51, 1)
        """
        return Fraction(Decimal(self.printed.rstrip("%")))

    @property
    def decimals(self) -> int:
        """How many decimals the text printed.

        >>> Cell("ratio", "hit", "s50/2d20", ".98", Fraction(1), Fraction(1)).decimals
        2
        """
        text = self.printed.rstrip("%")
        return len(text.split(".")[1]) if "." in text else 0

    @property
    def differs(self) -> bool:
        """Whether the method's figure, rounded like the printed one, is another number."""
        if self.method is None:
            return True
        return round_half_up(self.method, self.decimals) != self.printed_value

    @property
    def inconsistent(self) -> bool:
        """A ratio that is not even the quotient of the text's own printed figures."""
        if self.from_printed is None:
            return False
        return round_half_up(self.from_printed, self.decimals) != self.printed_value


def round_half_up(value: Fraction, decimals: int = 0) -> Fraction:
    """Round exactly, halves up (the rounding MSV-10 reads into the text).

    >>> round_half_up(Fraction(35, 2)), round_half_up(Fraction(857, 1000), 2)
    (Fraction(18, 1), Fraction(43, 50))
    """
    scale = 10**decimals
    return Fraction(math.floor(value * scale + Fraction(1, 2)), scale)


def rounds_to_reach(outcomes: dict[Outcome, Fraction], threshold: int) -> Fraction:
    """Exact expected rounds for a lone attacker to deal `threshold` damage.

    A round is one roll plus the free attacks its criticals give (outcomes with `again`).

    >>> rounds_to_reach({Outcome(1, False): Fraction(1, 2), Outcome(0, False): Fraction(1, 2)}, 2)
    Fraction(4, 1)
    """
    miss = outcomes.get(Outcome(0, False), Fraction(0))
    if miss == 1:
        raise RuleError(f"an attacker who never deals damage never reaches {threshold} damage")
    fresh: dict[int, Fraction] = {}  # rounds left, a new round about to start (counted)
    free: dict[int, Fraction] = {}  # rounds left after this one, inside a free-attack chain
    for x in range(threshold - 1, -1, -1):
        rest = Fraction(0)
        for out, p in outcomes.items():
            if out.damage == 0 or x + out.damage >= threshold:
                continue
            rest += p * (free if out.again else fresh)[x + out.damage]
        free[x] = (miss + rest) / (1 - miss)
        fresh[x] = 1 + free[x]
    return fresh[0]


def _old_outcomes(sides: int) -> dict[Outcome, Fraction]:
    return {Outcome(d, False): p for d, p in old_damage_distribution(sides).items()}


def _method_rounds(damage: Fraction) -> Fraction | None:
    return None if damage == 0 else round_half_up(TEXT_THRESHOLD / damage)


def _rounds_if_ever(outcomes: dict[Outcome, Fraction]) -> Fraction | None:
    """`rounds_to_reach` the text's 15 damage, or None for an attacker who never deals any."""
    if outcomes.get(Outcome(0, False), Fraction(0)) == 1:
        return None
    return rounds_to_reach(outcomes, TEXT_THRESHOLD)


@lru_cache(maxsize=16)
def _old_cells(sides: int) -> list[Cell]:
    column, printed = f"2d{sides}", PRINTED["old"]
    hit, damage = 100 * old_hit_chance(sides), old_mean_damage(sides)  # MSV-9
    index = OLD_SIDES.index(sides)
    rounds = rounds_to_reach(_old_outcomes(sides), TEXT_THRESHOLD)
    return [
        Cell("old", "hit", column, printed["hit"][index], hit, hit),
        Cell("old", "damage", column, printed["damage"][index], damage, damage),
        Cell("old", "rounds", column, printed["rounds"][index], _method_rounds(damage), rounds),
    ]


def _mean_plain_damage(cs: int, rules: MsvRules) -> Fraction:
    outcomes = attack_outcomes(cs, rules.without_criticals())
    return sum((o.damage * p for o, p in outcomes.items()), Fraction(0))


def success_chance(cs: int, rules: MsvRules) -> Fraction:
    """P(one roll succeeds) under the pack (MSV-2: CS / 100, capped at 1).

    >>> success_chance(65, MsvRules()), success_chance(130, MsvRules())
    (Fraction(13, 20), Fraction(1, 1))
    """
    if not rules.uses_formulas:
        return Fraction(min(check_cs(cs), 100), 100)
    return Fraction(sum(face_row(rules, check_cs(cs)).success), 100)


def _new_cells(cs: int, rules: MsvRules) -> list[Cell]:
    column, printed, index = f"s{cs}", PRINTED["new"], NEW_SKILLS.index(cs)
    hit, damage = 100 * success_chance(cs, rules), _mean_plain_damage(cs, rules)  # MSV-2, -3
    with_free = attack_outcomes(cs, rules)
    crit = sum((p for o, p in with_free.items() if o.again), Fraction(0))
    plain_rounds = _rounds_if_ever(attack_outcomes(cs, rules.without_criticals()))
    free_rounds = _rounds_if_ever(with_free)
    # An action is a roll and its chain of free attacks (MSV-4); when every roll gives one,
    # the chain only ends at the defeat, and its mean damage is unbounded (None).
    mean_with_free = (
        None
        if crit == 1
        else sum((o.damage * p for o, p in with_free.items()), Fraction(0)) / (1 - crit)
    )
    return [
        Cell("new", "hit", column, printed["hit"][index], hit, hit),
        Cell("new", "damage", column, printed["damage"][index], damage, damage, mean_with_free),
        Cell(
            "new",
            "rounds",
            column,
            printed["rounds"][index],
            _method_rounds(damage),
            plain_rounds,
            free_rounds,
        ),
    ]


def _ratio(new: Cell, old: Cell, printed: str) -> Cell:
    """A hit or damage ratio (those figures are always numbers; only rounds may be None)."""
    column = f"{new.column}/{old.column}"
    free = None if new.exact_free is None else new.exact_free / _number(old.exact)
    from_printed = new.printed_value / old.printed_value
    return Cell(
        "ratio",
        new.stat,
        column,
        printed,
        _number(new.method) / _number(old.method),
        _number(new.exact) / _number(old.exact),
        free,
        from_printed,
    )


def _number(value: Fraction | None) -> Fraction:
    if value is None:  # pragma: no cover - hit and damage figures are never None
        raise RuleError("a ratio of a figure that is not a number")
    return value


@lru_cache(maxsize=64)
def comparison_cells(rules: MsvRules | None = None) -> tuple[Cell, ...]:
    """Every cell of the three tables: old, new, ratio; row by row as the text prints them.

    `rules` changes the new system's figures (default: the text's pack).

    >>> len(comparison_cells())
    48
    """
    rules = rules or MsvRules()
    old = [c for sides in OLD_SIDES for c in _old_cells(sides)]
    new = [c for cs in NEW_SKILLS for c in _new_cells(cs, rules)]
    ratios = [
        _ratio(n, o, PRINTED["ratio"][stat][i])
        for stat in ("hit", "damage")
        for i, (n, o) in enumerate(
            zip([c for c in new if c.stat == stat], [c for c in old if c.stat == stat], strict=True)
        )
    ]
    by_row = sorted(old, key=lambda c: ("hit", "damage", "rounds").index(c.stat))
    by_row += sorted(new, key=lambda c: ("hit", "damage", "rounds").index(c.stat))
    return (*by_row, *ratios)
