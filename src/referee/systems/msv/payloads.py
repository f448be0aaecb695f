"""What MSV writes into its events, declared once: the attack's outcome and initiative's record.

Each field says who may see it while a fighter keeps its CS hidden (`referee.payloads`): the
roll, hit or miss, the damage and a critical's stun are public; the CS is not (the summary
says `CS hidden`, `SUMMARY_STATS`), and in an initiative roll the CS is the roller's own.

>>> [d.name for d in Attack.declared() if d.visibility.value != "public"]
['cs']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from referee.payloads import Shape, hidden, private, public


@dataclass(frozen=True, slots=True, kw_only=True)
class Attack(Shape):
    """One d100 against the attacker's CS (MSV-2..MSV-4, MSV-6)."""

    #: How a stat shows in the summary (`47 vs CS 70: hit`), said `CS hidden` while hidden.
    summary_stats: ClassVar[Mapping[str, str]] = {"cs": "CS {}"}
    cs: int = hidden()
    roll: int = public()
    success: bool = public()
    damage: int = public()
    critical: bool = public()
    free_attack: bool = public()
    extra_damage: int = public()
    target: str = public()
    #: This is the free attack a critical gave (MSV-4).
    free: bool = public()
    #: It stuns the target: the attacker acts again at once.
    stuns: bool = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class InitiativeRoll(Shape):
    """One fighter's initiative roll: its CS (its own, hidden or not), the roll, the effect."""

    name: str = public()
    cs: int = private("name", stat="cs")
    roll: int = public()
    effect: int = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class InitiativeRound(Shape):
    """One round of rolls by one group, and the groups that tied and roll again (MSV-5)."""

    round: int = public()
    group: tuple[str, ...] = public()
    rolls: tuple[InitiativeRoll, ...] = public()
    ties: tuple[tuple[str, ...], ...] = public()
    #: Nobody in the group can succeed (CS 0): kept in the order given.
    unrollable: bool = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Initiative(Shape):
    """An initiative's `detail`: the order and every round that settled it."""

    order: tuple[str, ...] = public()
    rounds: tuple[InitiativeRound, ...] = public()


#: Each action kind's outcome shape.
OUTCOMES: Mapping[str, type[Shape]] = {"attack": Attack}
