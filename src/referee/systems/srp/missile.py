"""Missile fire: shots per round, the skill of each, the shield's missile defense (SRP-12, 13).

A volley is planned (`plan_volley`) from the fire mode, the range and the weapon's ROF,
then each shot is one roll of the three dice resolved like melee, with the missile rules:
damage is d6 + weapon damage (+ ceil(DAM / 2) for a thrown weapon), the only defense is
the shield's missile value, and a successful one works as the SRP-7 shield column.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from referee.errors import LimitError, RuleError
from referee.rng import Rng
from referee.systems.srp.gear import Shield
from referee.systems.srp.melee import THREE_DICE, Attack, Defense, Strike, resolve
from referee.systems.srp.rules import DEFAULT_RULES, SrpRules
from referee.systems.srp.sheet import DefenseKind

#: Most shots one volley may have (a stated bound on user input).
MAX_ROF = 10


class Fire(enum.Enum):
    """How the archer shoots (SRP-13)."""

    AIMED = "aimed"
    """One shot per round."""
    RAPID = "rapid"
    """The weapon's full rate of fire, at reduced skill."""


class Range(enum.Enum):
    """How far the target is (SRP-13)."""

    EFFECTIVE = "effective"
    """Within effective range: aimed at full skill, rapid at half."""
    LONG = "long"
    """Long range: aimed at half skill, rapid at a third."""


#: What the skill is divided by (rounding down), by range and rapid fire (SRP-13).
SKILL_DIVISOR = {
    (Range.EFFECTIVE, False): 1,
    (Range.EFFECTIVE, True): 2,
    (Range.LONG, False): 2,
    (Range.LONG, True): 3,
}


@dataclass(frozen=True, slots=True)
class Volley:
    """How many shots a round gives and the skill of each, explained.

    >>> plan_volley(15, rof=2, fire=Fire.RAPID, distance=Range.LONG)
    Volley(shots=2, skill=5, reason='long range, rapid fire: 2 shots at floor(15 / 3) = 5')
    """

    shots: int
    skill: int
    reason: str


def plan_volley(
    skill: int, *, rof: int = 1, fire: Fire = Fire.AIMED, distance: Range = Range.EFFECTIVE
) -> Volley:
    """Shots and skill per shot for a round of fire (SRP-13). `skill` is already modified.

    A ROF of 1 makes rapid fire the same as aimed fire.

    >>> plan_volley(15, rof=3, fire=Fire.RAPID)
    Volley(shots=3, skill=7, reason='effective range, rapid fire: 3 shots at floor(15 / 2) = 7')
    """
    if isinstance(rof, bool) or not isinstance(rof, int) or not 1 <= rof <= MAX_ROF:
        raise LimitError(f"rate of fire {rof!r} is out of range (expected 1..{MAX_ROF})")
    rapid = fire is Fire.RAPID and rof > 1
    shots = rof if rapid else 1
    divisor = SKILL_DIVISOR[distance, rapid]
    where = f"{distance.value} range, {'rapid' if rapid else 'aimed'} fire"
    plural = "shot" if shots == 1 else "shots"
    if divisor == 1:
        return Volley(shots, skill, f"{where}: {shots} {plural} at full skill {skill}")
    per_shot = skill // divisor
    return Volley(
        shots, per_shot, f"{where}: {shots} {plural} at floor({skill} / {divisor}) = {per_shot}"
    )


def missile_defense(shield: Shield | None, armor: int = 0) -> Defense:
    """The defense against missiles: the shield's missile value, or none (SRP-12).

    >>> from referee.systems.srp.gear import parse_shield
    >>> missile_defense(None).kind, missile_defense(parse_shield("large")).skill
    (<DefenseKind.NONE: 'none'>, 16)
    """
    if shield is None:
        return Defense(kind=DefenseKind.NONE, armor=armor)
    return Defense(
        kind=DefenseKind.SHIELD, skill=shield.missile_defense, armor=armor, shield=shield
    )


@dataclass(frozen=True, slots=True)
class Shot:
    """What one missile attack brings: its skill before the volley rules, and its damage terms."""

    skill: int
    weapon_damage: int = 0
    dam: int = 0
    thrown: bool = False
    modifier: int = 0
    rof: int = 1
    fire: Fire = Fire.AIMED
    distance: Range = Range.EFFECTIVE


@dataclass(frozen=True, slots=True)
class VolleyResult:
    """Every shot of a round of fire, with the plan that set their skill."""

    volley: Volley
    shots: tuple[Strike, ...]

    @property
    def hits(self) -> int:
        """Hits of all shots together."""
        return sum(s.hits for s in self.shots)


def shot_attack(shot: Shot, volley: Volley) -> Attack:
    """The `Attack` of one shot: the volley's skill, missile damage rules (SRP-13)."""
    return Attack(
        skill=volley.skill,
        weapon_damage=shot.weapon_damage,
        dam=shot.dam,
        missile=True,
        thrown=shot.thrown,
    )


def resolve_volley(
    shot: Shot,
    shield: Shield | None,
    armor: int,
    faces: Sequence[tuple[int, ...]],
    rules: SrpRules = DEFAULT_RULES,
) -> VolleyResult:
    """Resolve a volley from given faces, one (attack, defense, damage) triple per shot.

    >>> javelin = Shot(skill=15, weapon_damage=2, dam=2, thrown=True)
    >>> r = resolve_volley(javelin, None, 0, [(8, 1, 4)])
    >>> r.shots[0].damage, r.shots[0].explanation[-2]
    (7, 'armor: AP 0')
    """
    volley = plan_volley(
        shot.skill + shot.modifier, rof=shot.rof, fire=shot.fire, distance=shot.distance
    )
    if len(faces) != volley.shots:
        raise RuleError(
            f"{volley.reason}; got dice for {len(faces)} shot(s), expected {volley.shots}"
        )
    attack = shot_attack(shot, volley)
    defense = missile_defense(shield, armor)
    return VolleyResult(volley, tuple(resolve(attack, defense, f, rules) for f in faces))


def shoot(
    shot: Shot, shield: Shield | None, armor: int, rng: Rng, rules: SrpRules = DEFAULT_RULES
) -> VolleyResult:
    """Plan the volley and throw the three dice once per shot (SRP-4, SRP-13).

    >>> from referee.rng import ScriptedRng
    >>> shoot(Shot(skill=14, weapon_damage=3), None, 2, ScriptedRng([5, 1, 6])).hits
    4
    """
    volley = plan_volley(
        shot.skill + shot.modifier, rof=shot.rof, fire=shot.fire, distance=shot.distance
    )
    attack = shot_attack(shot, volley)
    defense = missile_defense(shield, armor)
    strikes = []
    for _ in range(volley.shots):
        throw = rng.throw(THREE_DICE)
        strikes.append(resolve(attack, defense, throw.faces, rules, throw.nonce))
    return VolleyResult(volley, tuple(strikes))
