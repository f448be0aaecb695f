"""Group battles under any MSV pack: two sides, initiative for all, attacks in turn order.

The rules (RULINGS.md): everyone rolls initiative (MSV-5; a tied group rerolls among itself);
fighters act in that order round after round (MSV-6), each action one attack on a target the
policy names, plus the free attacks a critical gives on the same, stunned foe (MSV-4; none
once it is defeated); a fighter is defeated at the pack's threshold (MSV-7); the battle ends
when one side is left. A round is counted when its first living fighter acts.

One *action* (an attack and its chain of free attacks on one target) deals a total damage
whose distribution `action_damage` gives exactly, so both engines below draw or weigh one
action at a time:

* `exact_battle` is a Markov chain over (damage taken by every fighter, initiative order, who
  acts), swept level by level of total damage in float64; misses cycle within a level and that
  cycle is summed in closed form. It is used when the state space is at most `MAX_EXACT_CELLS`.
* `simulate_battle` is a numpy Monte Carlo of n battles at once, with standard errors.

Target policies: `focus-weakest` (the living enemy closest to defeat; ties: lower CS, then
listed first), `focus-strongest` (the highest CS; ties: closest to defeat), `spread` (the
least damaged), `random` (uniform among living enemies).

>>> from referee.systems.msv.rules import default_rules
>>> b = exact_battle(parse_side("A=60"), parse_side("B=65"), default_rules(), "focus-weakest")
>>> round(b.p_first_side, 4), round(b.expected_rounds, 3)
(0.3923, 7.8)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from referee.errors import RuleError
from referee.lab.battle_exact import exact_battle
from referee.lab.battle_model import (
    AUTO_EXACT_CELLS,
    BattleResult,
    action_damage,
    exact_cells,
    make_fighters,
    order_distribution,
    parse_side,
)
from referee.lab.battle_result import (
    Policy,
    Progress,
)
from referee.lab.battle_simulate import simulate_battle
from referee.systems.msv.rules import MsvRules

__all__ = [
    "AUTO_EXACT_CELLS",
    "BattleResult",
    "Policy",
    "action_damage",
    "battle",
    "exact_battle",
    "exact_cells",
    "make_fighters",
    "order_distribution",
    "parse_side",
    "simulate_battle",
]


def battle(
    first: Sequence[tuple[str, int]],
    second: Sequence[tuple[str, int]],
    rules: MsvRules,
    policy: Policy | str = Policy.FOCUS_WEAKEST,
    battles: int = 1_000_000,
    gen: np.random.Generator | None = None,
    progress: Progress | None = None,
    exact: bool | None = None,
) -> BattleResult:
    """Exact when the chain is small (`AUTO_EXACT_CELLS`, or `exact=True`), else Monte Carlo."""
    fighters = make_fighters(first, second)
    small = exact_cells(fighters, rules) <= AUTO_EXACT_CELLS
    if exact or (exact is None and small):
        return exact_battle(first, second, rules, policy)
    if gen is None:
        raise RuleError("a Monte Carlo battle needs a random generator (gen=)")
    return simulate_battle(first, second, rules, policy, battles, gen, progress)
