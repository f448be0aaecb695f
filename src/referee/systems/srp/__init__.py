"""SRP, Simple Role Playing: combat and contest rules (RULINGS.md SRP-1..SRP-20).

>>> from referee.rng import ScriptedRng
>>> from referee.systems.srp import Attack, Defense, strike
>>> strike(Attack(skill=15, weapon_damage=3), Defense(armor=5), ScriptedRng([3, 14, 6])).hits
4
"""

from referee.systems.srp.actions import (
    Condition,
    Special,
    SpecialResult,
    break_free,
    resolve_special,
    special_action,
    why_blocked,
)
from referee.systems.srp.combatants import attack_from, defense_from, sheet_from_spec
from referee.systems.srp.contest import (
    Assistant,
    Side,
    Winner,
    challenge,
    opposed,
    resolve_challenge,
    resolve_opposed,
)
from referee.systems.srp.gear import (
    Code,
    GearPack,
    Shield,
    ShieldKind,
    Weapon,
    example_pack,
    load_pack,
    parse_shield,
    read_pack,
)
from referee.systems.srp.geometry import Body, can_attack, in_rear_arc, in_zone, move
from referee.systems.srp.levels import Level, high_skill_bonus, level, level_table
from referee.systems.srp.magic import Cast, Spell, magic_round, resolve_magic
from referee.systems.srp.melee import Attack, Defense, Strike, chart, resolve, strike
from referee.systems.srp.missile import Fire, Range, Shot, plan_volley, resolve_volley, shoot
from referee.systems.srp.rules import SrpRules, load_rules
from referee.systems.srp.sheet import DefenseKind, Sheet, parse_defense, sheet_from_table
from referee.systems.srp.spirit import SpiritFighter, resolve_round, spirit_combat

__all__ = [
    "Assistant",
    "Attack",
    "Body",
    "Cast",
    "Code",
    "Condition",
    "Defense",
    "DefenseKind",
    "Fire",
    "GearPack",
    "Level",
    "Range",
    "Sheet",
    "Shield",
    "ShieldKind",
    "Shot",
    "Side",
    "Special",
    "SpecialResult",
    "Spell",
    "SpiritFighter",
    "SrpRules",
    "Strike",
    "Weapon",
    "Winner",
    "attack_from",
    "break_free",
    "can_attack",
    "challenge",
    "chart",
    "defense_from",
    "example_pack",
    "high_skill_bonus",
    "in_rear_arc",
    "in_zone",
    "level",
    "level_table",
    "load_pack",
    "load_rules",
    "magic_round",
    "move",
    "opposed",
    "parse_defense",
    "parse_shield",
    "plan_volley",
    "read_pack",
    "resolve",
    "resolve_challenge",
    "resolve_magic",
    "resolve_opposed",
    "resolve_round",
    "resolve_special",
    "resolve_volley",
    "sheet_from_spec",
    "sheet_from_table",
    "shoot",
    "special_action",
    "spirit_combat",
    "strike",
    "why_blocked",
]
