"""What SRP writes into its events, declared once: each action's outcome and the initiative.

Each field says who may see it while a fighter the outcome names keeps stats hidden (SRP-10,
`referee.payloads`). Public: who did what to whom, the dice, the levels they reached, the
damage rolled and the hits (docs/api.md). Hidden until the reveal: anything worked out from a
hidden stat (the effective skill, a volley's skill and the reason that gives it, the armor, the
explanation lines, the defense a break-free roll is measured against, a spirit round's totals
and PM). A field added later must be declared here, public or hidden, or the engine refuses it.

>>> [d.name for d in Attack.declared() if d.visibility.value == "hidden"]
['effective_skill', 'armor', 'explanation']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.payloads import Shape, hidden, public


@dataclass(frozen=True, slots=True, kw_only=True)
class Strike(Shape):
    """One strike's reading (SRP-4..SRP-9): the three dice, the levels, damage and hits."""

    dice: tuple[int, ...] = public()
    effective_skill: int = hidden()
    attack_level: str = public()
    #: The kind of defense: weapon, shield, avoid or none.
    defense: str = public()
    defense_level: str | None = public()
    hit_level: str | None = public()
    damage: int = public()
    armor: int = hidden()
    hits: int = public()
    stun: bool = public()
    explanation: tuple[str, ...] = hidden()


def strike_fields(strike: Mapping[str, Any]) -> dict[str, Any]:
    """A strike's JSON (`melee.Strike.as_dict`) as `Strike`'s fields (its nonce is the roll
    event's, not the outcome's)."""
    return {d.attribute: strike[d.name] for d in Strike.declared()}


@dataclass(frozen=True, slots=True, kw_only=True)
class Attack(Shape):
    """A melee attack."""

    target: str = public()
    weapon: str = public()
    rear: bool = public()
    dice: tuple[int, ...] = public()
    effective_skill: int = hidden()
    attack_level: str = public()
    defense: str = public()
    defense_level: str | None = public()
    hit_level: str | None = public()
    damage: int = public()
    armor: int = hidden()
    hits: int = public()
    stun: bool = public()
    explanation: tuple[str, ...] = hidden()


@dataclass(frozen=True, slots=True, kw_only=True)
class Shoot(Shape):
    """A round of missile fire (SRP-13): each shot a strike, the hits of them all."""

    target: str = public()
    weapon: str = public()
    range: str = public()
    fire: str = public()
    skill: int = hidden()
    reason: str = hidden()
    shots: tuple[Shot, ...] = public()
    hits: int = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Shot(Shape):
    """One shot of a volley: the dice, the levels and the hits are public."""

    dice: tuple[int, ...] = public()
    effective_skill: int = hidden()
    attack_level: str = public()
    defense: str = hidden()
    defense_level: str | None = hidden()
    hit_level: str | None = public()
    damage: int = hidden()
    armor: int = hidden()
    hits: int = public()
    stun: bool = hidden()
    explanation: tuple[str, ...] = hidden()


@dataclass(frozen=True, slots=True, kw_only=True)
class Effect(Shape):
    """A condition a special action left on the attacker or the defender."""

    on: str = public()
    condition: str = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Special(Shape):
    """Disarm, entangle, grapple or unhorse (SRP-16): whether it worked, what it left."""

    target: str = public()
    action: str = public()
    dice: tuple[int, ...] = public()
    attack_level: str = public()
    defense_level: str | None = public()
    worked: bool = public()
    effects: tuple[Effect, ...] = public()
    explanation: tuple[str, ...] = hidden()


@dataclass(frozen=True, slots=True, kw_only=True)
class BreakFree(Shape):
    """Breaking free of a grapple: the first of two actions, or the second with its roll
    against the defense (SRP-16)."""

    step: int = public()
    roll: int | None = public(omit=True)
    defense: int | None = hidden(omit=True)
    freed: bool | None = public(omit=True)
    explanation: tuple[str, ...] | None = hidden(omit=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Empty(Shape):
    """An action with nothing to record but its summary (pick up, pass)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Release(Shape):
    """Letting go of the fighter held."""

    released: str = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtraStrike(Shape):
    """An extra attack a defender made on a mover through its zone (SRP-15)."""

    attacker: str = public()
    dice: tuple[int, ...] = public()
    effective_skill: int = hidden()
    attack_level: str = public()
    defense: str = public()
    defense_level: str | None = public()
    hit_level: str | None = public()
    damage: int = public()
    armor: int = hidden()
    hits: int = public()
    stun: bool = public()
    explanation: tuple[str, ...] = hidden()


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtraSkipped(Shape):
    """An extra attack a defender could not make, and why."""

    attacker: str = public()
    skipped: str = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Move(Shape):
    """A move, a step or a charge: the path walked, the zone that stopped it, and each extra
    attack made on the mover (SRP-15)."""

    path: tuple[tuple[int, ...], ...] = public()
    stopped_by: str | None = public()
    explanation: tuple[str, ...] = hidden()
    extra_attacks: tuple[ExtraStrike | ExtraSkipped, ...] = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Face(Shape):
    """Turning to a new facing (a free action)."""

    facing: int = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Member(Shape):
    """A side's member and its PM after a spirit round."""

    name: str = public()
    pm: int = hidden()


@dataclass(frozen=True, slots=True, kw_only=True)
class Spirit(Shape):
    """One round of spirit combat (SRP-17): who led, who helped, the dice, who lost PM and who
    passed out. The totals (2d6 + Spirit) and the PM after it are the summary's, which says `?`
    for a hidden one."""

    target: str = public()
    helpers: tuple[str, ...] = public()
    leads: tuple[str | None, ...] = public()
    dice: tuple[tuple[int, ...] | None, ...] = public()
    totals: tuple[int | None, ...] = hidden()
    lost_pm: tuple[str, ...] = public()
    passed_out: tuple[str, ...] = public()
    explanation: tuple[str, ...] = hidden()
    pm_after: tuple[tuple[Member, ...], ...] = hidden()
    #: Who is at 0 PM: command, bind and ally may be cast on it.
    bindable: tuple[str, ...] = hidden()


@dataclass(frozen=True, slots=True, kw_only=True)
class InitiativeRoll(Shape):
    """One fighter's d20 + initiative (SRP-19)."""

    name: str = public()
    d20: int = public()
    initiative: int = public()
    total: int = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Initiative(Shape):
    """An initiative's `detail`: the listed order, or every fighter's roll."""

    method: str = public()
    rolls: tuple[InitiativeRoll, ...] | None = public(omit=True)


#: Each action kind's outcome shape.
OUTCOMES: Mapping[str, type[Shape]] = {
    "attack": Attack,
    "shoot": Shoot,
    **{kind: Special for kind in ("disarm", "entangle", "grapple", "unhorse")},
    "break_free": BreakFree,
    "pick_up": Empty,
    "release": Release,
    **{kind: Move for kind in ("move", "step", "charge")},
    "face": Face,
    "spirit": Spirit,
    "pass": Empty,
}
