"""Movement actions of the SRP rule system: move, step (a minimum move) and charge (SRP-15).

Options: `{"path": [[x_cm, y_cm], ...]}`, the squares walked in order, in whole
centimetres, and optionally `"facing"`, whole degrees: where the mover faces when it stops
(turning is free, SRP-14; the console sends the way to the nearest foe, so a fighter dragged
backwards keeps its face to the enemy). Without it a mover faces the way of its last step.
A charge carries on through the expanded zones of long weapons; each such defender makes
its one extra attack of the round on the mover at once (three dice each, in the order they
were crossed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from referee.errors import LimitError, RuleError
from referee.rng import Rng
from referee.systems.base import ConditionChange, Outcome, StatChange, Wound
from referee.systems.srp import melee, payloads
from referee.systems.srp.combatants import attack_from, defense_from
from referee.systems.srp.geometry import NORMAL_REACH, Body, Point, bearing, distance, move
from referee.systems.srp.sheet import Sheet

if TYPE_CHECKING:
    from referee.bout.state import BoutState
    from referee.systems.srp.system import SrpSystem

#: Most squares one move may list (a stated bound; movement rates are campaign data, SRP-19).
MAX_PATH = 40


def read_path(options: Mapping[str, Any]) -> list[Point]:
    """The path option in centimetres -> points in metres; a clear error for anything else.

    >>> read_path({"path": [[450, 0], [300, 0]]})
    [(4.5, 0.0), (3.0, 0.0)]
    """
    raw = options.get("path")
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_PATH:
        raise LimitError(f"path {raw!r} must list 1..{MAX_PATH} squares as [x_cm, y_cm]")
    points = []
    for item in raw:
        good = isinstance(item, list) and len(item) == 2
        if not good or not all(isinstance(v, int) and not isinstance(v, bool) for v in item):
            raise RuleError(f"path point {item!r} is not [x_cm, y_cm] in whole centimetres")
        points.append((item[0] / 100, item[1] / 100))
    return points


def moving(
    system: SrpSystem, bout: BoutState, actor: str, kind: str, options: Mapping[str, Any], rng: Rng
) -> Outcome:
    """Resolve a move, a step or a charge of `actor` along the given path."""
    unknown = sorted(set(options) - {"path", "facing"})
    if unknown:
        raise RuleError(f"unknown {kind} options {unknown!r} (expected ['facing', 'path'])")
    turned = options.get("facing")
    if turned is not None and (isinstance(turned, bool) or not isinstance(turned, int)):
        raise RuleError(f"facing {turned!r} is not whole degrees")
    me = system.sheet(bout.fighter(actor))
    if not me.placed:
        raise RuleError(f"{actor} has no position on the ground: give the sheet a position")
    path = read_path(options)
    if kind == "step" and (len(path) != 1 or distance((me.x, me.y), path[0]) > NORMAL_REACH):
        raise RuleError("a step (minimum move) is one square, at most 1.5 m")
    foes = [system.sheet(f) for f in bout.enemies_of(actor)]
    bodies = [Body(f.name, f.x, f.y, f.facing, f.weapon.reach) for f in foes if f.placed]
    used = [
        f.name for f in bout.enemies_of(actor) if f.stats.get("extra_attack_round") == bout.round
    ]
    walked = move(
        (me.x, me.y), path, bodies, charge=kind == "charge", extra_used=used, rules=system.srp
    )
    end = walked.end
    facing = _facing(walked.path, me.facing) if turned is None else turned % 360
    stats = [
        StatChange(actor, "x_cm", round(end[0] * 100)),
        StatChange(actor, "y_cm", round(end[1] * 100)),
        StatChange(actor, "facing", facing),
    ]
    moved_to = replace(me, x=end[0], y=end[1], facing=float(facing))
    extra, wounds, conditions = _extra_attacks(system, bout, walked.extra_attacks, moved_to, rng)
    payload = payloads.Move(
        path=tuple((round(x * 100), round(y * 100)) for x, y in walked.path),
        stopped_by=walked.stopped_by,
        explanation=tuple(walked.explanation),
        extra_attacks=tuple(extra),
    )
    stats += [StatChange(name, "extra_attack_round", bout.round) for name in walked.extra_attacks]
    where = f"({end[0]:g}, {end[1]:g}) m"
    stop = f", stopped by {walked.stopped_by}'s zone" if walked.stopped_by else ""
    return Outcome(
        kind,
        payload,
        f"{actor} {kind}s to {where}{stop}",
        wounds=tuple(wounds),
        conditions=tuple(conditions),
        stats=tuple(stats),
    )


def _facing(path: tuple[Point, ...], before: float) -> int:
    if len(path) < 2 or path[-1] == path[-2]:
        return round(before) % 360
    return round(bearing(path[-2], path[-1])) % 360


def _extra_attacks(
    system: SrpSystem, bout: BoutState, names: tuple[str, ...], mover: Sheet, rng: Rng
) -> tuple[list[payloads.ExtraStrike | payloads.ExtraSkipped], list[Wound], list[ConditionChange]]:
    """Each defender crossed makes its extra attack on the mover (SRP-15)."""
    extra: list[payloads.ExtraStrike | payloads.ExtraSkipped] = []
    wounds: list[Wound] = []
    conditions: list[ConditionChange] = []
    for name in names:
        defender = bout.fighter(name)
        reason = system.blocked(defender, "attack")
        if reason:
            extra.append(payloads.ExtraSkipped(attacker=name, skipped=reason))
            continue
        sheet = system.sheet(defender)
        attack = attack_from(sheet)
        strike = melee.strike(
            melee.Attack(attack.skill, attack.weapon_damage, attack.dam, stun=attack.stun),
            defense_from(mover),
            rng,
            system.srp,
        )
        fields = payloads.strike_fields(strike.as_dict())
        extra.append(payloads.ExtraStrike(attacker=name, **fields))
        if strike.hits:
            wounds.append(Wound(mover.name, strike.hits))
        if strike.stun:
            # the mover is stunned during its own turn, whose end ticks once
            conditions.append(ConditionChange(mover.name, "stunned", 2))
    return extra, wounds, conditions
