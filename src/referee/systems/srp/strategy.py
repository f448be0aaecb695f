"""A simple default play for SRP fights that the referee did not script: deal with any
condition first, attack the weakest enemy in reach, else step toward the nearest one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.systems.srp.actions import Condition
from referee.systems.srp.gear import Weapon
from referee.systems.srp.geometry import NORMAL_REACH, Body, can_attack, distance
from referee.systems.srp.sheet import Sheet

if TYPE_CHECKING:
    from referee.bout.state import BoutState
    from referee.systems.srp.system import SrpSystem

Action = tuple[str, dict[str, Any]]


def next_action(system: SrpSystem, state: BoutState, actor: str) -> Action:
    """The action `actor` takes by default (see the module docstring)."""
    me = state.fighter(actor)
    held = me.stats.get("holds")
    if me.has(Condition.DISARMED.value):
        return "pick_up", {}
    if me.has(Condition.GRAPPLED.value):
        return "break_free", {}
    if me.has(Condition.ENTANGLING.value):
        return "release", {}
    if me.has(Condition.GRAPPLING.value) and isinstance(held, str) and _standing(state, held):
        return "attack", {"target": held}
    sheet = system.sheet(me)
    order = {name: i for i, name in enumerate(state.order)}
    enemies = sorted(state.enemies_of(actor), key=lambda f: (-f.wounds, order.get(f.name, 0)))
    foes = [system.sheet(f) for f in enemies]
    for foe in foes:
        for weapon in sheet.weapons:
            action = _strike(sheet, weapon, foe, me.has(Condition.GRAPPLED.value))
            if action is not None:
                return action
    if sheet.placed and foes:
        return _step(sheet, foes, state)
    return "pass", {}


def _standing(state: BoutState, name: str) -> bool:
    return state.has_fighter(name) and not state.fighter(name).defeated


def _strike(me: Sheet, weapon: Weapon, foe: Sheet, grappled: bool) -> Action | None:
    if grappled and weapon.hands > 1:
        return None
    options = {"target": foe.name, "weapon": weapon.name}
    placed = me.placed and foe.placed
    if weapon.missile and not weapon.thrown:
        gap = distance((me.x, me.y), (foe.x, foe.y)) if placed else 0.0
        longest = weapon.long_range or weapon.effective_range or 0.0
        return ("shoot", options) if gap <= longest else None
    body = Body(me.name, me.x, me.y, me.facing, weapon.reach)
    return ("attack", options) if not placed or can_attack(body, (foe.x, foe.y)) else None


def _step(me: Sheet, foes: list[Sheet], state: BoutState) -> Action:
    placed = [f for f in foes if f.placed]
    if not placed:
        return "pass", {}
    nearest = min(placed, key=lambda f: distance((me.x, me.y), (f.x, f.y)))
    dx = _sign(nearest.x - me.x) * NORMAL_REACH
    dy = _sign(nearest.y - me.y) * NORMAL_REACH
    if distance((me.x, me.y), (nearest.x, nearest.y)) <= NORMAL_REACH:
        dx, dy = -dx, -dy  # too close for a long weapon: step back
    taken = {(round(f.x * 100), round(f.y * 100)) for f in foes if f.placed}
    square = (round((me.x + dx) * 100), round((me.y + dy) * 100))
    if square in taken or (dx, dy) == (0, 0):
        return "pass", {}
    return "step", {"path": [list(square)]}


def _sign(value: float) -> int:
    return (value > 1e-9) - (value < -1e-9)
