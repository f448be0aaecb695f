"""One MSV attack: a d100 roll read against a Combat Skill (MSV-1..MSV-4).

>>> str(interpret(CombatSkill(65), 47))
'47 vs CS 65: hit, 4 damage'
>>> interpret(CombatSkill(65), 40).free_attack
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NewType

from referee.errors import RuleError
from referee.systems.msv.rules import CriticalEffect, MsvRules, default_rules, interpret_face

if TYPE_CHECKING:  # the dice sources are loaded to roll: reading a roll (the judge) needs none
    from referee.rng import Rng

#: A Combat Skill: a whole number >= 0 (MSV-2). Not a roll.
CombatSkill = NewType("CombatSkill", int)

D100 = 100  # MSV-1
#: The largest CS a fighter may be given (MSV-2: CS 100 already always succeeds, so no larger
#: CS means anything): a bout's fighters, the CLI's and the Discord characters' CS alike.
MAX_CS = 100


def check_cs(value: Any) -> CombatSkill:
    """A valid CS (an int >= 0), or RuleError quoting the bad value. # MSV-2

    >>> check_cs(65)
    65
    >>> check_cs(-5)
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: CS must be a whole number >= 0 (MSV-2), got -5
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RuleError(f"CS must be a whole number >= 0 (MSV-2), got {value!r}")
    return CombatSkill(value)


def check_fighter_cs(value: Any) -> CombatSkill:
    """A fighter's CS: a valid CS (`check_cs`) of at most MAX_CS, or RuleError. # MSV-2

    >>> check_fighter_cs(100)
    100
    >>> check_fighter_cs(101)
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: CS must be 0..100 (MSV-2: CS 100 always succeeds), got 101
    """
    skill = check_cs(value)
    if skill > MAX_CS:
        raise RuleError(f"CS must be 0..{MAX_CS} (MSV-2: CS {MAX_CS} always succeeds), got {skill}")
    return skill


def check_roll(value: Any) -> int:
    """A d100 face (1..100), or RuleError. # MSV-1

    >>> check_roll(100)
    100
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= D100:
        raise RuleError(f"a d100 roll must be a whole number in 1..100, got {value!r}")
    return value


def succeeds(cs: int, roll: int) -> bool:
    """MSV-2: success iff roll <= CS (CS 0 never, CS >= 100 always).

    >>> succeeds(65, 65), succeeds(65, 66)
    (True, False)
    """
    return roll <= cs


def band_damage(roll: int, rules: MsvRules) -> int:
    """MSV-3: ceil(roll / band width), capped; the damage of a *successful* roll.

    >>> [band_damage(r, default_rules()) for r in (1, 15, 16, 30, 31, 45, 46, 100)]
    [1, 1, 2, 2, 3, 3, 4, 4]
    """
    return min(rules.damage_cap, -(-roll // rules.band_width))


def effect_number(cs: int, roll: int, rules: MsvRules) -> int:
    """MSV-5: the MSV-3 damage of the roll, 0 on failure (criticals add nothing).

    >>> effect_number(65, 47, default_rules()), effect_number(65, 80, default_rules())
    (4, 0)
    """
    if rules.uses_formulas:
        return interpret_face(rules, cs, roll)[4]
    return band_damage(roll, rules) if succeeds(cs, roll) else 0


def is_critical(cs: int, roll: int) -> bool:
    """MSV-4: a successful roll whose last digit is 0.

    >>> is_critical(65, 40), is_critical(65, 70), is_critical(65, 41)
    (True, False, False)
    """
    return succeeds(cs, roll) and roll % 10 == 0


@dataclass(frozen=True, slots=True)
class MsvAttack:
    """What one d100 attack roll did. `free_attack`: the attacker attacks again at once."""

    cs: CombatSkill
    roll: int
    success: bool
    damage: int
    critical: bool
    free_attack: bool
    extra_damage: int

    def to_json(self) -> dict[str, int | bool]:
        """The attack as a JSON object (no floats).

        >>> interpret(CombatSkill(65), 80).to_json()["success"]
        False
        """
        return {
            "cs": self.cs,
            "roll": self.roll,
            "success": self.success,
            "damage": self.damage,
            "critical": self.critical,
            "free_attack": self.free_attack,
            "extra_damage": self.extra_damage,
        }

    def __str__(self) -> str:
        return f"{self.roll} vs CS {self.cs}: {describe(self)}"


def describe(result: MsvAttack) -> str:
    """The interpretation without the roll: `hit, 4 damage`, `miss`, `critical hit, ...`.

    >>> describe(interpret(CombatSkill(65), 80))
    'miss'
    """
    if not result.success:
        return "miss"
    if not result.critical:
        return f"hit, {result.damage} damage"
    if result.free_attack:
        return (
            f"critical hit, {result.damage} damage"
            " - the foe is stunned and the attacker makes a free attack at once"
        )
    if result.extra_damage:
        base = result.damage - result.extra_damage
        return f"critical hit, {result.damage} damage ({base} + {result.extra_damage} extra)"
    return f"critical hit, {result.damage} damage"


def interpret(cs: int, roll: int, rules: MsvRules | None = None) -> MsvAttack:
    """Read one d100 roll against a CS (MSV-2, MSV-3, MSV-4). Pure.

    >>> hit = interpret(CombatSkill(65), 40)
    >>> hit.damage, hit.critical, hit.free_attack
    (3, True, True)
    """
    rules = rules or default_rules()
    skill, face = check_cs(cs), check_roll(roll)
    if rules.uses_formulas:
        return _interpret_formulas(skill, face, rules)
    success = succeeds(skill, face)
    critical = is_critical(skill, face)
    effect = rules.critical_effect if critical else CriticalEffect.NONE
    extra = rules.critical_extra_damage if effect is CriticalEffect.EXTRA_DAMAGE else 0
    damage = band_damage(face, rules) + extra if success else 0
    return MsvAttack(
        cs=skill,
        roll=face,
        success=success,
        damage=damage,
        critical=critical,
        free_attack=effect is CriticalEffect.STUN_FREE_ATTACK,
        extra_damage=extra,
    )


def _interpret_formulas(cs: CombatSkill, roll: int, rules: MsvRules) -> MsvAttack:
    """`interpret` for a formula pack: the pack's own success, damage and critical."""
    success, damage, critical, extra, _ = interpret_face(rules, cs, roll)
    effect = rules.critical_effect if critical else CriticalEffect.NONE
    return MsvAttack(
        cs=cs,
        roll=roll,
        success=success,
        damage=damage,
        critical=critical,
        free_attack=effect is CriticalEffect.STUN_FREE_ATTACK,
        extra_damage=extra,
    )


def attack(cs: int, rng: Rng, rules: MsvRules | None = None) -> MsvAttack:
    """Roll one d100 from `rng` (one roll, one nonce) and interpret it.

    >>> from referee.rng import ScriptedRng
    >>> str(attack(CombatSkill(65), ScriptedRng([80])))
    '80 vs CS 65: miss'
    """
    from referee.rng import die

    return interpret(check_cs(cs), die(rng, D100), rules)
