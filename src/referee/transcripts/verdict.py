"""What the judge says about a log: the verdict, each roll line's reading, every anomaly."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from referee.transcripts.fighters import Fighter


class Kind(enum.Enum):
    """The kinds of anomaly, by their names in JSON."""

    FORGED = "forged"
    """A roll line the host did not write: posted by someone else, inside an emote, broken,
    a receipt or commitment reused, or one the ledger does not hold."""
    WRONG_DICE = "wrong-dice"
    """A fighter's roll whose dice are not one 100-sided die (MSV-1)."""
    NOT_A_FIGHTER = "not-a-fighter"
    """A roll of someone who is not in the spar."""
    OUT_OF_TURN = "out-of-turn"
    """A fighter's roll when it is not their turn, including a second roll in one turn."""
    NO_TARGET = "no-target"
    """An attack in a group spar that names no target among the foes standing (MSV-6)."""
    MISSING = "missing"
    """A ledger roll the log lacks (with an export): someone edited the log."""


class Use(enum.Enum):
    """What a roll line was to the spar."""

    INITIATIVE = "initiative"
    """An initiative roll (MSV-5); not an attack."""
    ATTACK = "attack"
    """An attack that counted (MSV-2..MSV-4, MSV-6)."""
    FREE_ATTACK = "free-attack"
    """A free attack after a critical (MSV-4); it counts as an attack."""
    FREE_ROLL = "free-roll"
    """A roll the ledger records outside the fight (a `//roll` on the service)."""
    VOIDED = "voided"
    """A roll of an action the referee voided in the ledger."""
    QUOTED = "quoted"
    """A genuine roll quoted again (`> `, `(( ))`): not a roll, no effect."""
    ANOMALY = "anomaly"
    """A roll line that changes nothing (see its anomaly)."""


class Anomaly(NamedTuple):
    """A roll line (or a ledger roll) that changes nothing, and why."""

    line: int
    kind: Kind
    reason: str

    def to_json(self) -> dict[str, Any]:
        """`{"line", "kind", "reason"}` as `--json` prints it."""
        return {"line": self.line, "kind": self.kind.value, "reason": self.reason}


class Reading(NamedTuple):
    """How the judge read one roll line: whose, the dice, what for, and what it did."""

    line: int
    name: str
    dice: str
    faces: tuple[int, ...]
    nonce: int | None
    use: Use
    text: str
    damage: int = 0
    target: str | None = None

    def to_json(self) -> dict[str, Any]:
        """One entry of `rolls` in `--json`."""
        return {
            "line": self.line,
            "name": self.name,
            "dice": self.dice,
            "faces": list(self.faces),
            "nonce": self.nonce,
            "use": self.use.value,
            "damage": self.damage,
            "target": self.target,
            "reading": self.text,
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judged spar: the side that won (None: unfinished), each fighter's damage dealt and
    taken, the attacks that counted, every anomaly and every roll line's reading."""

    fighters: tuple[Fighter, ...]
    winner: str | None
    damage_dealt: dict[str, int]
    attacks: int
    anomalies: Sequence[Anomaly]
    rolls: Sequence[Reading]
    order: tuple[str, ...] = ()
    threshold: int = 15
    notes: tuple[str, ...] = ()
    damage_taken: dict[str, int] = field(default_factory=dict)

    def to_json(self, entries: bool = True) -> dict[str, Any]:
        """Exactly the `--json` document: winner, damage_dealt, attacks, anomalies, rolls
        (`entries=False`: the lists of anomalies and rolls left empty, for a writer that
        writes their entries itself, `referee.transcripts.json_report`)."""
        return {
            "winner": self.winner,
            "damage_dealt": dict(self.damage_dealt),
            "attacks": self.attacks,
            "anomalies": [a.to_json() for a in self.anomalies] if entries else [],
            "rolls": [r.to_json() for r in self.rolls] if entries else [],
        }
