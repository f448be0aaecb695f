"""MSV, the Mago System of Vonda: everyone rolls 1d100 against a Combat Skill.

>>> from referee.rng import ScriptedRng
>>> str(attack(CombatSkill(65), ScriptedRng([47])))
'47 vs CS 65: hit, 4 damage'
"""

from referee.systems.msv.attack import (
    CombatSkill,
    MsvAttack,
    attack,
    check_cs,
    interpret,
)
from referee.systems.msv.convert import Conversion, cs_to_dice, dice_to_cs
from referee.systems.msv.initiative import InitiativeResult, roll_initiative
from referee.systems.msv.old import OldRoll, old_interpret, old_roll
from referee.systems.msv.rules import (
    CriticalEffect,
    MsvRules,
    TieBreak,
    default_rules,
    load_rules,
    rules_from_mapping,
)

__all__ = [
    "CombatSkill",
    "Conversion",
    "CriticalEffect",
    "InitiativeResult",
    "MsvAttack",
    "MsvRules",
    "OldRoll",
    "TieBreak",
    "attack",
    "check_cs",
    "cs_to_dice",
    "default_rules",
    "dice_to_cs",
    "interpret",
    "load_rules",
    "old_interpret",
    "old_roll",
    "roll_initiative",
    "rules_from_mapping",
]
