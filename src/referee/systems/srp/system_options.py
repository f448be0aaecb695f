"""How the SRP rule system reads an action's options and the fighters they name: whether the
action is allowed now, its target, the weapon, reach, a rear attack, whole-number and boolean
options, what a fighter holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from referee.errors import RuleError
from referee.systems.srp.actions import (
    Condition,
)
from referee.systems.srp.gear import Weapon
from referee.systems.srp.geometry import Body, can_attack, distance, rear_attack
from referee.systems.srp.sheet import Sheet

if TYPE_CHECKING:
    from referee.bout.state import BoutState, Fighter


def allowed(options: Mapping[str, Any], kind: str, allowed: set[str]) -> None:
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise RuleError(f"unknown {kind} options {unknown!r} (expected {sorted(allowed)!r})")


def target_of(bout: BoutState, actor: str, options: Mapping[str, Any], kind: str) -> Fighter:
    enemies = bout.enemies_of(actor)
    if "target" not in options:
        if len(enemies) == 1:
            return enemies[0]
        raise RuleError(
            f"name the target of the {kind}: one of {', '.join(f.name for f in enemies)}"
        )
    name = options["target"]
    target = bout.fighter(name) if isinstance(name, str) else None
    if target is None or target not in enemies:
        raise RuleError(f"{actor} cannot {kind} {name!r}: not a standing enemy")
    return target


def weapon_of(sheet: Sheet, options: Mapping[str, Any]) -> Weapon:
    name = options.get("weapon")
    return sheet.weapon if name is None else sheet.find_weapon(str(name))


def body_of(sheet: Sheet, weapon: Weapon | None = None) -> Body:
    reach = (weapon or sheet.weapon).reach
    return Body(sheet.name, sheet.x, sheet.y, sheet.facing, reach)


def check_reach(att: Sheet, weapon: Weapon, target: Sheet) -> None:
    if att.placed and target.placed and not can_attack(body_of(att, weapon), (target.x, target.y)):
        gap = distance((att.x, att.y), (target.x, target.y))
        band = "beyond 1.5 m up to" if weapon.long else "up to"
        raise RuleError(
            f"{target.name} is {gap:g} m from {att.name}; the {weapon.name} reaches "
            f"{band} {weapon.reach:g} m (SRP-15)"
        )


def from_rear(att: Sheet, target: Sheet, options: Mapping[str, Any]) -> bool:
    rear = bool_option(options, "rear")
    if att.placed and target.placed:
        return rear_attack((att.x, att.y), body_of(target))
    return rear


def bool_option(options: Mapping[str, Any], key: str, default: bool = False) -> bool:
    """An option that is true or false: a JSON boolean, never text or a number.

    `"no"`, `"false"` and `"0"` are not false (nor true): they are a clear error naming the
    option, as is anything but `true` and `false`.

    >>> bool_option({"rear": True}, "rear"), bool_option({}, "rear")
    (True, False)
    >>> bool_option({"rear": "no"}, "rear")
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: rear 'no' is not true or false (a JSON boolean: true or false)
    """
    value = options.get(key, default)
    if not isinstance(value, bool):
        raise RuleError(f"{key} {value!r} is not true or false (a JSON boolean: true or false)")
    return value


def int_option(options: Mapping[str, Any], key: str) -> int:
    value = options.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not -50 <= value <= 50:
        raise RuleError(f"{key} {value!r} is not a whole number -50..50")
    return value


def holding(bout: BoutState, actor: Fighter, target: Fighter) -> bool:
    return (
        actor.has(Condition.GRAPPLING.value)
        and actor.stats.get("holds") == target.name
        and target.has(Condition.GRAPPLED.value)
    )
