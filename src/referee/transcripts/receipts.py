"""The service's receipts in a log checked against the bout's export (its ledger).

Every roll the service makes is a `roll` event with a nonce in its owner's dice stream; its chat
receipt is the host line with ` (nonce N)` after it (` (nonce N, STREAM)` when the stream is
not the roller's own actions'). Given the export, each receipt must name a roll the ledger
holds (same roller's stream and nonce, same faces) whose faces pass the fairness check of
`referee verify`; every ledger roll that no receipt names is *missing* from the log.

>>> from referee.transcripts.reader import HostRoll
>>> ledger = Ledger.from_rolls([LedgerRoll(3, 0, "Tarl", (100,), (47,), "attack")])
>>> held, forged = ledger.claim(HostRoll("Tarl", 1, 100, (47,), 0))
>>> str(held), forged
('nonce 0 (Tarl, 1d100: 47)', None)
>>> ledger.claim(HostRoll("Tarl", 1, 100, (99,), 1))[1]
"the ledger holds no roll of Tarl's with nonce 1"
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from referee.errors import NotationError, RuleError, VerificationError
from referee.systems.msv.attack import check_cs
from referee.systems.msv.rules import MsvRules, rules_from_mapping
from referee.transcripts.authors import name_key
from referee.transcripts.fighters import Fighter
from referee.transcripts.rolls import HostRoll
from referee.vocabulary import EventType

if TYPE_CHECKING:
    from referee.payloads.events import Roll
    from referee.payloads.fields import Given

# The event payloads' shapes are loaded by the functions that read an export's events (only a
# judge given an export reads them): `referee judge` on a log alone starts without them.

#: How the chat shows a roll made by the referee (as the chat endpoint answers it).
REFEREE_NAME = "Referee"


@dataclass(frozen=True, slots=True)
class LedgerRoll:
    """One `roll` event: seq, nonce, who rolled (as chat shows it), dice, faces, what for, its
    dice stream (None before streams) and the attack's target."""

    seq: int
    nonce: int
    name: str
    sides: tuple[int, ...]
    faces: tuple[int, ...]
    use: str
    voided: bool = False
    stream: str | None = None
    target: str | None = None

    def __str__(self) -> str:
        dice = f"{len(self.sides)}d{self.sides[0]}" if self.sides else "no dice"
        return f"nonce {self.nonce} ({self.name}, {dice}: {' '.join(map(str, self.faces))})"


@dataclass
class Ledger:
    """The rolls of an export, which receipts claim one by one (`claim`), then `missing()`."""

    rolls: list[LedgerRoll]
    unfair: dict[int, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    fighters: tuple[Fighter, ...] = ()
    rules: MsvRules | None = None
    claimed_on: dict[int, int] = field(default_factory=dict)
    _claimed: set[int] = field(default_factory=set)
    _by_nonce: dict[int, list[LedgerRoll]] = field(default_factory=dict)
    _last: int = -1

    @classmethod
    def from_rolls(cls, rolls: Sequence[LedgerRoll]) -> Ledger:
        """A ledger of the given rolls only (no export, nothing verified)."""
        return cls(list(rolls))

    @classmethod
    def from_export(cls, doc: Any) -> Ledger:
        """Read and verify an export document (`referee export`); errors name what is wrong."""
        from referee.bout.replay import check_export
        from referee.ledger import verify_export

        report = verify_export(doc, replay=check_export)
        events = [e for e in doc["events"] if isinstance(e, dict)]
        bout = doc["bout"]
        if bout.get("system") != "msv":
            raise RuleError(
                f"the judge decides MSV spars; this export is a {bout.get('system')!r} bout"
            )
        ledger = cls(ledger_rolls(events))
        roll_seqs = {r.seq for r in ledger.rolls}
        for problem in report.problems:
            if problem.seq in roll_seqs:
                ledger.unfair.setdefault(problem.seq, problem.message)
            elif problem.seq is None and "not revealed yet" in problem.message:
                ledger.notes.append(f"not checked: {problem.message}")
            elif problem.check == "rules":
                ledger.notes.append(f"the ledger's own outcomes: {problem}")
            elif problem.check == "complete" and bout.get("status") != "closed":
                continue  # a bout still going has no close yet: judged as far as it goes
            else:
                raise VerificationError(
                    f"the export does not verify: {problem} (see referee verify)"
                )
        ledger.fighters = _fighters(events)
        ledger.rules = _rules(bout.get("rules"))
        return ledger

    def claim(self, roll: HostRoll) -> tuple[LedgerRoll | None, str | None]:
        """The ledger roll a receipt names, and why the receipt is forged (None: it holds)."""
        if roll.nonce is None:
            return None, "not a receipt of the service (no nonce) though the export is given"
        if not self._by_nonce:
            for held_roll in self.rolls:
                self._by_nonce.setdefault(held_roll.nonce, []).append(held_roll)
        same = [r for r in self._by_nonce.get(roll.nonce, []) if _owns(r, roll)]
        free = [r for r in same if r.seq not in self._claimed]
        if not free:
            if same:
                return None, f"a second receipt of nonce {roll.nonce} (the ledger has one)"
            return None, f"the ledger holds no roll of {roll.name}'s with nonce {roll.nonce}"
        exact = [r for r in free if _same(r, roll)]  # nonces start again after a rotation
        held = _next(exact, self._last) if exact else free[0]
        self._claimed.add(held.seq)
        self._last = held.seq
        if not exact:
            return held, f"the ledger holds {held}, not what this line says"
        if held.seq in self.unfair:
            return held, f"the ledger's {held} fails the fairness check: {self.unfair[held.seq]}"
        return held, None

    def missing(self) -> list[LedgerRoll]:
        """The ledger rolls that no receipt claimed, in ledger order."""
        return [r for r in self.rolls if r.seq not in self._claimed]


def _next(rolls: Sequence[LedgerRoll], after: int) -> LedgerRoll:
    """Of rolls a receipt matches equally (one nonce under two seeds, same fighter and faces),
    the first after the last one claimed: a log reads in ledger order, so a receipt past a
    rotation is the later seed's even when the earlier seed's own receipt is missing."""
    return next((r for r in rolls if r.seq > after), rolls[0])


def _owns(held: LedgerRoll, roll: HostRoll) -> bool:
    """Whether a ledger roll is in the stream a receipt names (its roller's actions when it
    names none; any stream before streams)."""
    if held.stream is None:
        return True
    if roll.stream is not None:
        return held.stream == roll.stream
    owner = held.stream.partition(":")[2] or REFEREE_NAME
    return name_key(owner) == name_key(roll.name)


def _same(held: LedgerRoll, roll: HostRoll) -> bool:
    return (
        name_key(held.name) == name_key(roll.name)
        and held.faces == roll.faces
        and held.sides == (roll.sides,) * roll.count
    )


def ledger_rolls(events: Sequence[Mapping[str, Any]]) -> list[LedgerRoll]:
    """Every roll event of an export with who rolled it and what for.

    An initiative's rolls are named by its `detail` (in rolling order); a voided action's
    rolls are marked `voided`.
    """
    from referee.payloads.events import Action, Roll
    from referee.systems.msv.payloads import Attack, InitiativeRoll

    voided = _voided(events)
    rolls: list[LedgerRoll] = []
    pending: list[LedgerRoll] = []
    actor, kind = "", ""
    for event in events:
        kind_of = event.get("type")
        payload = event.get("payload")
        if kind_of == EventType.ACTION:
            actor, kind, pending = str(event.get("actor")), str(Action.given(payload).kind), []
        elif kind_of == EventType.OUTCOME and rolls:
            target = Attack.given(payload).target
            if isinstance(target, str) and rolls[-1].use == "attack" and rolls[-1].target is None:
                rolls[-1] = replace(rolls[-1], target=target)
        elif kind_of == EventType.ROLL and Roll.given(payload).nonce is not None:
            roll = _roll(event, Roll.given(payload), actor, kind, voided)
            rolls.append(roll)
            pending.append(roll)
        elif kind_of == EventType.INITIATIVE:
            names = [InitiativeRoll.given(r).name for rnd in _rounds(payload) for r in rnd]
            for roll, name in zip(pending, names, strict=False):
                rolls[rolls.index(roll)] = _renamed(roll, str(name))
            pending = []
    return rolls


def _roll(
    event: Mapping[str, Any], given: Given[Roll], actor: str, kind: str, voided: set[int]
) -> LedgerRoll:
    from referee.payloads.events import Roll

    wrong = given.wrong()
    try:
        if wrong is not None:
            raise ValueError(str(wrong))
        roll = Roll.read(given.payload)
        sides = tuple(int(d.lstrip("d")) for d in roll.dice)
        nonce, seq = int(given.nonce), int(event["seq"])
    except (KeyError, TypeError, ValueError) as err:
        why = f": {wrong}" if wrong is not None else f" ({err})"
        raise NotationError(
            f"export event {event.get('seq')!r} is not a readable roll{why}"
        ) from None
    use = {"initiative": "initiative", "attack": "attack"}.get(kind, "free-roll")
    name = REFEREE_NAME if actor == "referee" else actor
    faces = tuple(roll.faces)
    return LedgerRoll(seq, nonce, name, sides, faces, use, seq in voided, roll.stream)


def _renamed(roll: LedgerRoll, name: str) -> LedgerRoll:
    return replace(roll, name=name)


def _rounds(payload: Any) -> list[list[Any]]:
    """Each round's rolls of an MSV initiative's detail, as given (what is not a list left out)."""
    from referee.payloads.events import Initiative as InitiativeEvent
    from referee.systems.msv.payloads import Initiative, InitiativeRound

    rounds = Initiative.given(InitiativeEvent.given(payload).detail).rounds
    if not isinstance(rounds, list):
        return []
    found = (InitiativeRound.given(r).rolls for r in rounds)
    return [r for r in found if isinstance(r, list)]


def _voided(events: Sequence[Mapping[str, Any]]) -> set[int]:
    from referee.payloads.events import Voided

    out: set[int] = set()
    for event in events:
        if event.get("type") == EventType.VOIDED:
            voided = Voided.given(event.get("payload"))
            low, high = voided.first, voided.last
            if isinstance(low, int) and isinstance(high, int):
                out.update(range(low, min(high, low + 100_000) + 1))
    return out


def _fighters(events: Sequence[Mapping[str, Any]]) -> tuple[Fighter, ...]:
    """The fighters the export adds, when each CS is known (none while a CS is hidden)."""
    from referee.payloads.events import FighterAdded

    out = []
    for event in events:
        if event.get("type") == EventType.FIGHTER_ADDED:
            added = FighterAdded.given(event.get("payload"))
            if not added.is_object:
                return ()
            stats = added.stats
            cs = stats.get("cs") if isinstance(stats, Mapping) else None
            if not isinstance(cs, int) or isinstance(cs, bool):
                return ()
            name, side = str(added.name), added.side
            team = side if isinstance(side, str) and side != name else None
            out.append(Fighter(name, check_cs(cs), team))
    return tuple(out)


def _rules(data: Any) -> MsvRules | None:
    return rules_from_mapping(data, "the export's rules") if isinstance(data, Mapping) else None
