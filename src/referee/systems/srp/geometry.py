"""Positions, facing, the rear arc, zones of control and movement through them (SRP-14, 15).

Positions are in metres on a grid of 1.5 m squares; facing is in degrees (0 = +x,
90 = +y). Distance is grid distance: the larger of |dx| and |dy|, so all eight squares
around a combatant are adjacent (reach 1.5 m), as SRP-15 reads "an adjacent square".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.systems.srp.rules import DEFAULT_RULES, SrpRules

#: The normal reach, in metres (SRP-15).
NORMAL_REACH = 1.5
#: Half the rear arc, in degrees: 90 degrees directly behind (SRP-14).
REAR_HALF_ARC = 45.0
_EPS = 1e-9

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Body:
    """A combatant on the ground: where it stands, where it faces, how far it reaches.

    >>> Body("Ann", 0, 0, facing=90, reach=3).long
    True
    """

    name: str
    x: float
    y: float
    facing: float = 0.0
    reach: float = NORMAL_REACH

    @property
    def at(self) -> Point:
        """The body's position."""
        return (self.x, self.y)

    @property
    def long(self) -> bool:
        """Whether it holds a long weapon (reach beyond 1.5 m)."""
        return self.reach > NORMAL_REACH + _EPS


def distance(a: Point, b: Point) -> float:
    """Grid distance in metres: max(|dx|, |dy|).

    >>> distance((0, 0), (1.5, 1.5)), distance((0, 0), (3, 1.5))
    (1.5, 3)
    """
    return max(abs(b[0] - a[0]), abs(b[1] - a[1]))


def bearing(frm: Point, to: Point) -> float:
    """Direction from `frm` to `to` in degrees 0..360 (0 = +x, 90 = +y).

    >>> bearing((0, 0), (0, 2)), bearing((0, 0), (-1, -1))
    (90.0, 225.0)
    """
    return math.degrees(math.atan2(to[1] - frm[1], to[0] - frm[0])) % 360.0


def angle_between(a: float, b: float) -> float:
    """The smaller angle between two directions, 0..180.

    >>> angle_between(350, 10)
    20.0
    """
    diff = abs(a - b) % 360.0
    return float(min(diff, 360.0 - diff))


def in_rear_arc(defender: Body, point: Point) -> bool:
    """Whether `point` lies in the 90 degrees straight behind the defender (SRP-14).

    The arc's edges (exactly 45 degrees off straight back) count as rear.

    >>> ann = Body("Ann", 0, 0, facing=0)
    >>> in_rear_arc(ann, (-1.5, 0)), in_rear_arc(ann, (-1.5, 1.5)), in_rear_arc(ann, (0, 1.5))
    (True, True, False)
    """
    if distance(defender.at, point) < _EPS:
        return False
    back = (defender.facing + 180.0) % 360.0
    return angle_between(bearing(defender.at, point), back) <= REAR_HALF_ARC + _EPS


def rear_attack(attacker: Point, defender: Body) -> bool:
    """Whether an attack from `attacker` gets the +4 rear bonus (SRP-14)."""
    return in_rear_arc(defender, attacker)


def in_zone(body: Body, point: Point) -> bool:
    """Whether `body` controls `point`: within its reach and not in its rear arc (SRP-15).

    >>> ann = Body("Ann", 0, 0, facing=0, reach=3)
    >>> in_zone(ann, (3, 0)), in_zone(ann, (4.5, 0)), in_zone(ann, (-1.5, 0))
    (True, False, False)
    """
    gap = distance(body.at, point)
    return _EPS < gap <= body.reach + _EPS and not in_rear_arc(body, point)


def in_expanded_zone(body: Body, point: Point) -> bool:
    """Whether `point` is in the part of a long weapon's zone beyond 1.5 m (SRP-15)."""
    return in_zone(body, point) and distance(body.at, point) > NORMAL_REACH + _EPS


def can_attack(attacker: Body, target: Point) -> bool:
    """Whether `attacker` can reach `target`: long weapons only beyond 1.5 m (SRP-15).

    >>> pike = Body("P", 0, 0, reach=4.5)
    >>> can_attack(pike, (1.5, 0)), can_attack(pike, (4.5, 0))
    (False, True)
    >>> can_attack(Body("S", 0, 0), (1.5, 0))
    True
    """
    gap = distance(attacker.at, target)
    if attacker.long:
        return NORMAL_REACH + _EPS < gap <= attacker.reach + _EPS
    return _EPS < gap <= NORMAL_REACH + _EPS


@dataclass(frozen=True, slots=True)
class MoveResult:
    """Where a move ended, who stopped it, who gets an extra attack, and why."""

    path: tuple[Point, ...]
    stopped_by: str | None
    extra_attacks: tuple[str, ...]
    explanation: tuple[str, ...]

    @property
    def end(self) -> Point:
        """The point the mover ends on."""
        return self.path[-1]


def move(
    start: Point,
    path: Sequence[Point],
    enemies: Iterable[Body],
    *,
    charge: bool = False,
    extra_used: Iterable[str] = (),
    rules: SrpRules = DEFAULT_RULES,
) -> MoveResult:
    """Walk `path` square by square from `start`, stopping on entering an enemy's zone.

    Zones the mover starts in do not stop it (it may leave, or move on into another
    zone). Charging carries it through the expanded part of a long weapon's zone (any
    zone with the `charge_any_zone` option); each such defender gets one extra attack,
    at most one per round (`extra_used` lists who has had theirs this round).

    >>> pike = Body("Pike", 0, 0, facing=0, reach=4.5)
    >>> steps = [(6.0, 0.0), (4.5, 0.0), (3.0, 0.0), (1.5, 0.0)]
    >>> move((7.5, 0), steps, [pike]).stopped_by, move((7.5, 0), steps, [pike]).end
    ('Pike', (4.5, 0.0))
    >>> run = move((7.5, 0), steps, [pike], charge=True)
    >>> run.end, run.extra_attacks
    ((1.5, 0.0), ('Pike',))
    """
    foes = tuple(enemies)
    started_in = {b.name for b in foes if in_zone(b, start)}
    inside = f", inside the zone of {', '.join(sorted(started_in))}" if started_in else ""
    lines = [f"start at {_fmt(start)}{inside}"]
    walked: list[Point] = [start]
    extra: list[str] = []
    for point in path:
        walked.append(point)
        crossing = [f for f in foes if f.name not in started_in and in_zone(f, point)]
        for foe in crossing:
            if not (charge and (in_expanded_zone(foe, point) or rules.charge_any_zone)):
                lines.append(f"{_fmt(point)}: enters the zone of {foe.name}: movement stops")
                return MoveResult(tuple(walked), foe.name, tuple(extra), tuple(lines))
            lines.append(_charge_line(point, foe.name, extra, set(extra_used)))
        if not crossing:
            lines.append(f"{_fmt(point)}: moves on")
    return MoveResult(tuple(walked), None, tuple(extra), tuple(lines))


def _charge_line(point: Point, foe: str, extra: list[str], used: set[str]) -> str:
    if foe in extra:
        return f"{_fmt(point)}: charges on through the zone of {foe}"
    if foe in used:
        return f"{_fmt(point)}: charges through the zone of {foe} (its extra attack is used up)"
    extra.append(foe)
    return f"{_fmt(point)}: charges through the zone of {foe}, who gets one extra attack"


def _fmt(point: Point) -> str:
    return f"({point[0]:g}, {point[1]:g})"
