"""Exact and simulated analysis of the rule systems (MSV so far).

>>> from referee.systems.msv import default_rules
>>> analyse_duel(60, 60, default_rules()).p_a_wins
Fraction(1, 2)
"""

from referee.analysis.msv_duel import DuelAnalysis, analyse_duel, length_distribution
from referee.analysis.msv_matrix import win_matrix
from referee.analysis.msv_simulate import SimulatedDuel, simulate_duel
from referee.analysis.msv_tables import Cell, comparison_cells

__all__ = [
    "Cell",
    "DuelAnalysis",
    "SimulatedDuel",
    "analyse_duel",
    "comparison_cells",
    "length_distribution",
    "simulate_duel",
    "win_matrix",
]
