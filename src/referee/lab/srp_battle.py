"""Group battles under any SRP pack: two sides of sheets, attacks in turn order.

The rules (RULINGS.md): the turn order is the listed one (side 1 as listed, then side 2), or
with `turn_order = "roll"` each fighter rolls d20 + its sheet's `initiative` once, highest
first, ties in listed order (SRP-19). Each turn the fighter makes one melee attack with the
weapon in hand on the enemy the policy names: attack d20, defense d20 (the target's own
defense kind and skill) and damage d6 (SRP-4), levels by the pack (SRP-5, formulas too), the
outcome chart with shields (SRP-7, 11), damage with the high-skill and level bonuses
(SRP-8), hits over armor, criticals halving AP with at least one hit (SRP-9). A weapon marked
S* that hits at special or better stuns: the target loses its next turn (SRP-16). A fighter
is down when its hits reach its total (SRP-9, the pack's `down`); the battle ends when one
side is down. Movement, facing, missiles and declared special actions are not played.

* `exact_battle`: a Markov chain over (hits taken by each fighter, who is stunned, whose turn)
  for each turn order. Hits only grow, so the hit vectors are visited in order of their sum;
  within one vector the turns that deal no hits (and stuns) cycle, solved as one small linear
  system. Cells: the product of every fighter's hits to down x 2^(stunnable fighters) x
  fighters x turn orders.
* `simulate_battle`: numpy, every battle of a batch at once, each attack one draw from the
  same exact per-pair outcome distribution; every figure with its standard error.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from referee.errors import RuleError
from referee.lab.battle_result import (
    Policy,
    Progress,
)
from referee.lab.srp_battle_exact import exact_battle
from referee.lab.srp_battle_model import (
    AUTO_EXACT_CELLS,
    MAX_EXACT_ROLLERS,
    SrpBattleResult,
    exact_cells,
    make_fighters,
    parse_srp_side,
    strike_outcomes,
)
from referee.lab.srp_battle_simulate import simulate_battle
from referee.systems.srp.rules import SrpRules, TurnOrder
from referee.systems.srp.sheet import Sheet

__all__ = [
    "AUTO_EXACT_CELLS",
    "SrpBattleResult",
    "battle",
    "exact_battle",
    "exact_cells",
    "make_fighters",
    "parse_srp_side",
    "simulate_battle",
    "strike_outcomes",
]


def battle(
    first: Sequence[Sheet],
    second: Sequence[Sheet],
    rules: SrpRules,
    policy: Policy | str = Policy.FOCUS_WEAKEST,
    battles: int = 200_000,
    gen: np.random.Generator | None = None,
    progress: Progress | None = None,
    exact: bool | None = None,
) -> SrpBattleResult:
    """Exact when the chain is small (`AUTO_EXACT_CELLS`, or `exact=True`), else Monte Carlo."""
    fighters = make_fighters(first, second, rules)
    cells = exact_cells(fighters, rules)
    rollers_ok = rules.turn_order is TurnOrder.LISTED or len(fighters) <= MAX_EXACT_ROLLERS
    if exact or (exact is None and cells <= AUTO_EXACT_CELLS and rollers_ok):
        return exact_battle(first, second, rules, policy)
    if gen is None:
        raise RuleError("a Monte Carlo battle needs a random generator (gen=)")
    return simulate_battle(first, second, rules, policy, battles, gen, progress)
