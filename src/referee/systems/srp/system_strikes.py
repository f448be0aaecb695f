"""Strikes of the SRP rule system: a melee attack (three dice, SRP-7) and a shot with a missile
weapon at a range (SRP-12)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from referee.errors import RuleError
from referee.rng import Rng
from referee.systems.base import (
    ConditionChange,
    Outcome,
    Wound,
)
from referee.systems.srp import melee, missile, payloads
from referee.systems.srp.actions import (
    Condition,
)
from referee.systems.srp.combatants import attack_from, defense_from
from referee.systems.srp.gear import Weapon
from referee.systems.srp.geometry import distance
from referee.systems.srp.sheet import Sheet, parse_defense

if TYPE_CHECKING:
    from referee.bout.state import BoutState
    from referee.systems.srp.system import SrpSystem

from referee.systems.srp.system_options import (
    allowed,
    check_reach,
    from_rear,
    holding,
    int_option,
    target_of,
    weapon_of,
)


def attack_handler(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    allowed(options, "attack", {"target", "weapon", "defend", "rear", "modifier"})
    me, foe = bout.fighter(actor), target_of(bout, actor, options, "attack")
    att, tgt = system.sheet(me), system.sheet(foe)
    weapon = weapon_of(att, options)
    if weapon.missile and not weapon.thrown:
        raise RuleError(f"the {weapon.name} is a missile weapon: use 'shoot'")
    check_reach(att, weapon, tgt)
    rear = from_rear(att, tgt, options)
    attack = attack_from(
        att,
        weapon=weapon,
        rear=rear,
        modifier=int_option(options, "modifier"),
        automatic=holding(bout, me, foe),
    )
    attack = replace(attack, missile=False, thrown=False)
    kind = parse_defense(options["defend"]) if "defend" in options else None
    result = melee.strike(attack, defense_from(tgt, kind), rng, system.srp)
    return _strike_outcome("attack", actor, foe.name, weapon, rear, result)


def with_weapon(weapon: Weapon) -> str:
    """How a summary names the weapon used.

    >>> with_weapon(Weapon("mace")), with_weapon(Weapon("unarmed"))
    ('with the mace', 'bare-handed')
    """
    return "bare-handed" if weapon.name == "unarmed" else f"with the {weapon.name}"


def _strike_outcome(
    kind: str, actor: str, target: str, weapon: Weapon, rear: bool, result: melee.Strike
) -> Outcome:
    strike = payloads.strike_fields(result.as_dict())
    payload = payloads.Attack(target=target, weapon=weapon.name, rear=rear, **strike)
    if result.hit_level is None:
        said = "no effect"
    else:
        said = f"{result.hit_level.label} hit, {result.hits} hit{'s' if result.hits != 1 else ''}"
    stun = (ConditionChange(target, Condition.STUNNED.value, 1),) if result.stun else ()
    return Outcome(
        kind,
        payload,
        f"{actor} {kind}s {target} {with_weapon(weapon)}: {said}" + (", stunned" if stun else ""),
        wounds=(Wound(target, result.hits),) if result.hits else (),
        conditions=stun,
    )


def shoot_handler(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    allowed(options, "shoot", {"target", "weapon", "fire", "range", "modifier"})
    foe = target_of(bout, actor, options, "shoot")
    att, tgt = system.sheet(bout.fighter(actor)), system.sheet(foe)
    weapon = weapon_of(att, options)
    if not weapon.missile:
        raise RuleError(f"the {weapon.name} is not a missile weapon (it has no range)")
    shot = missile.Shot(
        skill=att.skill(weapon.name), weapon_damage=weapon.damage, dam=att.dam,
        thrown=weapon.thrown, modifier=int_option(options, "modifier"), rof=weapon.rof,
        fire=_fire(options), distance=_range(att, tgt, weapon, options),
    )  # fmt: skip
    result = missile.shoot(shot, tgt.shield, tgt.armor, rng, system.srp)
    shots = tuple(payloads.Shot(**payloads.strike_fields(s.as_dict())) for s in result.shots)
    payload = payloads.Shoot(
        target=foe.name, weapon=weapon.name, range=shot.distance.value,
        fire=shot.fire.value, skill=result.volley.skill, reason=result.volley.reason,
        shots=shots, hits=result.hits,
    )  # fmt: skip
    summary = f"{actor} shoots {foe.name} {with_weapon(weapon)}: {result.hits} hits"
    wounds = (Wound(foe.name, result.hits),) if result.hits else ()
    return Outcome("shoot", payload, summary, wounds=wounds)


def _fire(options: Mapping[str, Any]) -> missile.Fire:
    value = options.get("fire", "aimed")
    try:
        return missile.Fire(value)
    except ValueError:
        kinds = ", ".join(f.value for f in missile.Fire)
        raise RuleError(f"fire {value!r} is not one of: {kinds}") from None


def _range(att: Sheet, tgt: Sheet, weapon: Weapon, options: Mapping[str, Any]) -> missile.Range:
    if not (att.placed and tgt.placed):
        try:
            return missile.Range(options.get("range", "effective"))
        except ValueError:
            raise RuleError(f"range {options.get('range')!r} is not effective or long") from None
    gap = distance((att.x, att.y), (tgt.x, tgt.y))
    effective = weapon.effective_range or 0.0
    if gap <= effective:
        return missile.Range.EFFECTIVE
    if gap <= (weapon.long_range or effective):
        return missile.Range.LONG
    raise RuleError(f"{tgt.name} is {gap:g} m away, beyond the {weapon.name}'s range")
