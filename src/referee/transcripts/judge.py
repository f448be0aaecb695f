"""The judge: rebuild a two-fighter MSV spar from the roll lines of a log, and flag the rest.

Initiative first: each fighter's first valid 1d100 roll; ties and double failures reroll
(MSV-5). Then the fighter whose turn it is attacks with their next valid 1d100 roll; a critical
gives a free attack at once (MSV-4); turns alternate otherwise (MSV-6); the spar ends when one
fighter's damage taken reaches the pack's threshold (MSV-7). **Only the first valid 1d100 host
roll of the fighter whose turn it is counts**; every other roll line is an anomaly and changes
nothing.

>>> from referee.transcripts.reader import read_lines
>>> from referee.transcripts.fighters import parse_fighter
>>> log = '''OnlineHost: Tarl rolled 1 100-sided die: 47
... OnlineHost: PaKur rolled 1 100-sided die: 12
... OnlineHost: Tarl rolled 1 100-sided die: 40
... OnlineHost: Tarl rolled 1 100-sided die: 55'''
>>> verdict = decide(list(read_lines(log)), [parse_fighter("Tarl=65"), parse_fighter("PaKur=70")])
>>> verdict.damage_dealt, verdict.attacks, verdict.anomalies
({'Tarl': 7, 'PaKur': 0}, 2, ())
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from referee.systems.msv.attack import effect_number, interpret
from referee.systems.msv.initiative import sort_key
from referee.systems.msv.rules import MsvRules, default_rules
from referee.transcripts.fighters import Fighter, check_pair
from referee.transcripts.reader import HostRoll, LogLine
from referee.transcripts.receipts import Ledger


class Kind(enum.Enum):
    """The kinds of anomaly, by their names in JSON."""

    FORGED = "forged"
    """A host line the host did not write: typed after a name, broken, or not in the ledger."""
    WRONG_DICE = "wrong-dice"
    """A fighter's host line whose dice are not one 100-sided die (MSV-1)."""
    NOT_A_FIGHTER = "not-a-fighter"
    """A host line of someone who is not in the spar."""
    OUT_OF_TURN = "out-of-turn"
    """A fighter's roll when it is not their turn, including a second roll in one turn."""
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
    ANOMALY = "anomaly"
    """A roll line that changes nothing (see its anomaly)."""


class Anomaly(NamedTuple):
    """A roll line (or a ledger roll) that changes nothing, and why (a named tuple: a long
    log may have many)."""

    line: int
    kind: Kind
    reason: str

    def to_json(self) -> dict[str, Any]:
        """`{"line", "kind", "reason"}` as `--json` prints it."""
        return {"line": self.line, "kind": self.kind.value, "reason": self.reason}


class Reading(NamedTuple):
    """How the judge read one roll line: whose, the dice, what for, and what it did (a named
    tuple, one per roll line)."""

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
    """The judged spar: who won, each fighter's damage dealt, the attacks that counted, every
    anomaly and every roll line's reading. `winner` is None for an unfinished spar."""

    fighters: tuple[Fighter, Fighter]
    winner: str | None
    damage_dealt: dict[str, int]
    attacks: int
    anomalies: tuple[Anomaly, ...]
    rolls: tuple[Reading, ...]
    order: tuple[str, ...] = ()
    threshold: int = 15
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Exactly the `--json` document: winner, damage_dealt, attacks, anomalies, rolls."""
        return {
            "winner": self.winner,
            "damage_dealt": dict(self.damage_dealt),
            "attacks": self.attacks,
            "anomalies": [a.to_json() for a in self.anomalies],
            "rolls": [r.to_json() for r in self.rolls],
        }


@dataclass
class _Spar:
    """The spar as the judge follows it, one roll line at a time."""

    fighters: tuple[Fighter, Fighter]
    rules: MsvRules
    ledger: Ledger | None
    phase: str = "initiative"
    initiative: dict[str, int] = field(default_factory=dict)
    initiative_round: int = 1
    order: tuple[str, ...] = ()
    turn: str = ""
    free: bool = False
    winner: str | None = None
    won_on: int = 0
    attacks: int = 0
    dealt: dict[str, int] = field(default_factory=dict)
    anomalies: list[Anomaly] = field(default_factory=list)
    readings: list[Reading] = field(default_factory=list)
    claims: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.dealt = {f.name: 0 for f in self.fighters}
        self.by_key = {f.key: f for f in self.fighters}
        if all(f.cs == 0 for f in self.fighters):  # MSV-5: a CS 0 group keeps the given order
            self._start(tuple(f.name for f in self.fighters))

    def _start(self, order: tuple[str, ...]) -> None:
        self.phase, self.order, self.turn = "fight", order, order[0]

    def foe(self, name: str) -> str:
        return next(f.name for f in self.fighters if f.name != name)

    def anomaly(self, line: LogLine, kind: Kind, reason: str, roll: HostRoll | None) -> None:
        self.anomalies.append(Anomaly(line.number, kind, reason))
        if roll is not None:
            self._read(line, roll, roll.name, Use.ANOMALY, reason)

    def _read(
        self, line: LogLine, roll: HostRoll, name: str, use: Use, text: str, **more: Any
    ) -> None:
        reading = Reading(line.number, name, roll.dice, roll.faces, roll.nonce, use, text, **more)
        self.readings.append(reading)

    def take(self, line: LogLine) -> None:
        """Read one roll line (real or forged)."""
        roll = line.roll
        if line.forged is not None:
            self.anomaly(line, Kind.FORGED, line.forged, roll)
            return
        assert roll is not None
        if self.ledger is not None and not self._ledger_allows(line, roll):
            return
        fighter = self.by_key.get(_key(roll.name))
        if fighter is None:
            names = " and ".join(f.name for f in self.fighters)
            self.anomaly(
                line, Kind.NOT_A_FIGHTER, f"{roll.name} is not in the spar ({names})", roll
            )
            return
        if roll.count != 1 or roll.sides != 100:
            reason = f"{fighter.name} rolled {roll.dice}; MSV rolls one 100-sided die (MSV-1)"
            self.anomaly(line, Kind.WRONG_DICE, reason, roll)
            return
        if self.phase == "initiative":
            self._initiative(line, roll, fighter)
        elif self.phase == "fight":
            self._attack(line, roll, fighter)
        else:
            reason = f"the spar is over ({self.winner} won on line {self.won_on})"
            self.anomaly(line, Kind.OUT_OF_TURN, reason, roll)

    def _ledger_allows(self, line: LogLine, roll: HostRoll) -> bool:
        """A receipt the ledger holds for the fight; free rolls and voided ones are set aside."""
        assert self.ledger is not None
        held, forged = self.ledger.claim(roll)
        if held is not None:
            self.claims[held.seq] = line.number
        if forged is not None:
            self.anomaly(line, Kind.FORGED, forged, roll)
            return False
        assert held is not None
        if held.voided:
            self._read(line, roll, roll.name, Use.VOIDED, "voided by the referee (ledger)")
            return False
        if held.use == "free-roll":
            self._read(line, roll, roll.name, Use.FREE_ROLL, "a free roll (ledger): no effect")
            return False
        return True

    def _initiative(self, line: LogLine, roll: HostRoll, fighter: Fighter) -> None:
        face, name = roll.faces[0], fighter.name
        if name in self.initiative:
            reason = (
                f"{name} already rolled initiative (round {self.initiative_round}, "
                f"{self.initiative[name]}); the first roll counts"
            )
            self.anomaly(line, Kind.OUT_OF_TURN, reason, roll)
            return
        self.initiative[name] = face
        effect = effect_number(fighter.cs, face, self.rules)
        text = (
            f"initiative round {self.initiative_round}: {face} vs CS {fighter.cs}, effect {effect}"
        )
        if len(self.initiative) == 2:
            text += self._settle()
        self._read(line, roll, name, Use.INITIATIVE, text)

    def _settle(self) -> str:
        """Both have rolled: an order, or a reroll (MSV-5)."""
        a, b = self.fighters
        key_a = sort_key(a.cs, self.initiative[a.name], self.rules)
        key_b = sort_key(b.cs, self.initiative[b.name], self.rules)
        self.initiative = {}
        if key_a == key_b:
            self.initiative_round += 1
            return " - tied: both reroll (MSV-5)"
        first, second = (a, b) if key_a > key_b else (b, a)
        self._start((first.name, second.name))
        return f" - {first.name} acts first"

    def _attack(self, line: LogLine, roll: HostRoll, fighter: Fighter) -> None:
        name = fighter.name
        if name != self.turn:
            what = "free attack (MSV-4)" if self.free else "turn"
            self.anomaly(line, Kind.OUT_OF_TURN, f"it is {self.turn}'s {what}", roll)
            return
        result = interpret(fighter.cs, roll.faces[0], self.rules)
        foe = self.foe(name)
        use = Use.FREE_ATTACK if self.free else Use.ATTACK
        self.attacks += 1
        self.dealt[name] += result.damage
        text = f"{name} attacks {foe}: {result}"
        if self.dealt[name] >= self.rules.defeat_threshold:  # MSV-7
            self.phase, self.winner, self.won_on = "over", name, line.number
            text += f"; {foe} is defeated: {name} wins"
        elif result.free_attack:  # MSV-4: the foe is stunned, the attacker goes again at once
            self.free = True
        else:
            self.free, self.turn = False, foe
        self._read(line, roll, name, use, text, damage=result.damage, target=foe)


def _key(name: str) -> str:
    return "".join(name.split()).casefold()


def decide(
    lines: Sequence[LogLine],
    fighters: Sequence[Fighter],
    rules: MsvRules | None = None,
    ledger: Ledger | None = None,
) -> Verdict:
    """Judge the roll lines of a read log for two fighters; see the module text."""
    pair = check_pair(fighters)
    spar = _Spar(pair, rules or default_rules(), ledger)
    last = 0
    for line in lines:
        last = line.number
        if line.is_roll:
            spar.take(line)
    if ledger is not None:
        _missing(spar, ledger, last)
    anomalies = sorted(spar.anomalies, key=lambda a: a.line)
    return Verdict(
        fighters=pair,
        winner=spar.winner,
        damage_dealt=spar.dealt,
        attacks=spar.attacks,
        anomalies=tuple(anomalies),
        rolls=tuple(spar.readings),
        order=spar.order,
        threshold=spar.rules.defeat_threshold,
        notes=tuple(ledger.notes) if ledger is not None else (),
    )


def _missing(spar: _Spar, ledger: Ledger, last: int) -> None:
    """Each ledger roll no receipt claimed, placed on the line of the next claimed receipt."""
    claimed = sorted(spar.claims.items())
    seqs = [seq for seq, _ in claimed]
    for held in ledger.missing():
        later = bisect.bisect_right(seqs, held.seq)
        where = claimed[later][1] if later < len(claimed) else last
        reason = f"the ledger's roll {held} is not in the log"
        spar.anomalies.append(Anomaly(where, Kind.MISSING, reason))
