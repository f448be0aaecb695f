"""Exact odds and simulated analysis of the rule systems, one module per system: MSV's
(`msv_duel`, `msv_matrix`, `msv_outcomes`, `msv_tables`, `msv_simulate`) and SRP's
(`srp_odds`). The lab builds its battles and reports on these; the exact odds of a dice
expression are `referee.dice.odds`.

>>> from referee.systems.msv import default_rules
>>> analyse_duel(60, 60, default_rules()).p_a_wins
Fraction(1, 2)
"""

from referee.analysis.msv_duel import DuelAnalysis, analyse_duel, length_distribution
from referee.analysis.msv_matrix import win_matrix
from referee.analysis.msv_simulate import SimulatedDuel, simulate_duel
from referee.analysis.msv_tables import Cell, comparison_cells
from referee.analysis.srp_odds import AttackOdds, DuelOdds, attack_odds, duel_odds, hit_distribution

__all__ = [
    "AttackOdds",
    "Cell",
    "DuelAnalysis",
    "DuelOdds",
    "SimulatedDuel",
    "analyse_duel",
    "attack_odds",
    "comparison_cells",
    "duel_odds",
    "hit_distribution",
    "length_distribution",
    "simulate_duel",
    "win_matrix",
]
