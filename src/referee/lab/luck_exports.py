"""A luck report from bouts' exports: each verified first, then read for its record and its faces.

`verified(doc, name)` runs the ledger's verifier with the rules replay (`referee verify`'s
check) and refuses an export that does not verify completely, with its first problem.
`reading(doc)` gives what a verified export holds for a luck report: the bout's fighters and
winner, each MSV attack as a `Swing` (its exact chance to hit and damage distribution from the
bout's own rules, `referee.systems.msv.rules.face_row`) and each die as a `Throw`, each under
the name of whose dice they are (a roll's stream names it; in a bout before streams, the
action's actor). `luck_report(readings, fighter)` puts them together (docs/luck.md);
`as_character(readings, id)` first makes a saved character's bouts one fighter's;
`counted_once` refuses a second export of a bout already read.

>>> report = luck_report([], None)
>>> report.exports, report.luck.verdict
(0, 'no dice to read')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from referee.analysis.luck import ALPHA, Luck, Swing, Throw, luck
from referee.bout.replay import check_export
from referee.errors import VerificationError
from referee.ledger import verify_export
from referee.ledger.record import opened_events
from referee.payloads.events import Ended, FighterAdded, Outcome, Roll
from referee.rng.streams import owner_of
from referee.systems.msv.payloads import Attack
from referee.systems.msv.rules import FACES, MsvRules, face_row, rules_from_mapping
from referee.vocabulary import EventType

_DIE = re.compile(r"d([1-9][0-9]{0,5})")


@dataclass(frozen=True, slots=True)
class BoutSide:
    """One bout as its export says it: id, name, system, each fighter's side, the winner."""

    id: str
    name: str
    system: str
    sides: tuple[tuple[str, str], ...]
    winner: str | None

    def result_of(self, fighter: str) -> str | None:
        """ "won", "lost" or "undecided" for a fighter of the bout (None: not in it)."""
        for name, side in self.sides:
            if same_name(name, fighter):
                if self.winner is None:
                    return "undecided"
                return "won" if side == self.winner else "lost"
        return None


@dataclass(frozen=True, slots=True)
class Reading:
    """What one verified export holds for a luck report."""

    bout: BoutSide
    swings: tuple[tuple[str, Swing], ...]
    throws: tuple[tuple[str, Throw], ...]
    #: Each fighter that joined as a saved character, with the character's id (its join's
    #: `character`, `referee.service.characters`).
    characters: tuple[tuple[str, str], ...] = ()

    def fighter_of(self, character: str) -> str | None:
        """The name the saved character `character` (its id) fought under here (None: it did
        not fight in this bout)."""
        return next((name for name, cid in self.characters if cid == character), None)

    def renamed(self, old: str, new: str) -> Reading:
        """The reading with the fighter `old` called `new`: one player's fighters of several
        bouts (a Discord member's, under the names they showed) read as one.

        >>> side = BoutSide("b1", "Spar", "msv", (("Tarl_nick", "Tarl_nick"),), "Tarl_nick")
        >>> Reading(side, (), (("Tarl_nick", Throw(6, 2)),)).renamed("tarl_nick", "Tarl").throws
        (('Tarl', Throw(sides=6, face=2)),)
        """

        def name(given: str) -> str:
            return new if same_name(given, old) else given

        # each side keeps its name: the winner is a side's, and who won stays who won
        sides = tuple((name(n), side) for n, side in self.bout.sides)
        return Reading(
            replace(self.bout, sides=sides),
            tuple((name(n), swing) for n, swing in self.swings),
            tuple((name(n), throw) for n, throw in self.throws),
            tuple((name(n), cid) for n, cid in self.characters),
        )


def as_character(readings: Sequence[Reading], character: str) -> tuple[list[Reading], str | None]:
    """The readings of the bouts the saved character `character` (its id) fought, with its
    fighter in each called by the name it first fought under (another fighter of that name
    in a bout is told apart: `NAME (another)`), and that name (None: it fought in none).
    A character's record and luck are then one fighter's, whatever names it fought under.

    >>> side = BoutSide("b1", "Spar", "msv", (("Tarl II", "Tarl II"), ("Tarl", "Tarl")), None)
    >>> read = Reading(side, (), (("Tarl II", Throw(6, 2)),), (("Tarl II", "ch1"),))
    >>> first = Reading(replace(side, id="b0"), (), (), (("Tarl", "ch1"),))
    >>> kept, label = as_character([first, read, Reading(side, (), ())], "ch1")
    >>> label, [r.bout.id for r in kept], kept[1].throws
    ('Tarl', ['b0', 'b1'], (('Tarl', Throw(sides=6, face=2)),))
    >>> kept[1].bout.sides  # each side keeps its name
    (('Tarl', 'Tarl II'), ('Tarl (another)', 'Tarl'))
    """
    label: str | None = None
    kept: list[Reading] = []
    for read in readings:
        name = read.fighter_of(character)
        if name is None:
            continue
        label = label or name
        if not same_name(name, label):
            if any(same_name(other, label) for other, _ in read.bout.sides):
                read = read.renamed(label, f"{label} (another)")
            read = read.renamed(name, label)
        kept.append(read)
    return kept, label


@dataclass(frozen=True, slots=True)
class Record:
    """A fighter's record over the exports: bouts fought, won, lost, neither."""

    name: str
    fought: int
    won: int
    lost: int
    undecided: int

    def as_json(self) -> dict[str, Any]:
        """The record as JSON."""
        return {
            "name": self.name,
            "fought": self.fought,
            "won": self.won,
            "lost": self.lost,
            "undecided": self.undecided,
        }


@dataclass(frozen=True, slots=True)
class LuckReport:
    """A luck report: whose (None: every fighter's dice), of how many exports, the records,
    the bouts read and the luck."""

    fighter: str | None
    exports: int
    records: tuple[Record, ...]
    bouts: tuple[BoutSide, ...]
    luck: Luck

    def as_json(self) -> dict[str, Any]:
        """The report as JSON (the `--json` of `referee luck`, the console's)."""
        return {
            "fighter": self.fighter,
            "exports": self.exports,
            "bouts": [{"id": b.id, "name": b.name, "system": b.system} for b in self.bouts],
            "records": [r.as_json() for r in self.records],
            "luck": self.luck.as_json(),
        }


def same_name(a: str, b: str) -> bool:
    """Whether two fighter names are the same, case aside.

    >>> same_name("Pa-Kur", "pa-kur")
    True
    """
    return a.casefold() == b.casefold()


def verified(doc: Any, name: str) -> Any:
    """The export, once it verifies completely (chain, seeds, faces, rules, the close), else
    VerificationError with the first problem; a luck report reads nothing else."""
    report = verify_export(doc, replay=check_export)
    if report.first is not None:
        raise VerificationError(f"{name} does not verify: {report.first}")
    if report.verdict != "verified":
        raise VerificationError(f"{name} is not of a closed bout: its seed is not revealed")
    return doc


def counted_once(read: Reading, seen: dict[str, str], source: str) -> Reading:
    """`read`, the first reading of its bout, noted in `seen` (bout id -> where it was read);
    a second export of a bout read already is refused (VerificationError): its dice and its
    result would count twice, and the same export given ten times would make fair dice look
    loaded.

    >>> seen = {}
    >>> side = BoutSide("b1", "Spar", "msv", (), None)
    >>> counted_once(Reading(side, (), ()), seen, "'a.json'").bout.id, seen
    ('b1', {'b1': "'a.json'"})
    >>> counted_once(Reading(side, (), ()), seen, "'b.json'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.VerificationError: 'b.json' is of bout 'b1', read already from 'a.json': ...
    """
    earlier = seen.get(read.bout.id)
    if earlier is not None:
        raise VerificationError(
            f"{source} is of bout {read.bout.id!r}, read already from {earlier}: "
            "each bout counts once"
        )
    seen[read.bout.id] = source
    return read


def sides_of(die: Any) -> int | None:
    """The sides of a die as a roll names it (`d100`), or None.

    >>> sides_of("d100"), sides_of("x")
    (100, None)
    """
    found = _DIE.fullmatch(die) if isinstance(die, str) else None
    return int(found.group(1)) if found else None


def attack_swing(rules: MsvRules, cs: int, hit: bool, damage: int) -> Swing:
    """An MSV attack at this CS, under these rules, as the report reads it.

    >>> swing = attack_swing(MsvRules(), 65, True, 4)
    >>> swing.hit_chance, [round(p, 2) for p in swing.damage_chances]
    (0.65, [0.35, 0.15, 0.15, 0.15, 0.2])
    """
    row = face_row(rules, cs)
    faces = [0] * (max(row.damage) + 1)
    for success, value in zip(row.success, row.damage, strict=True):
        faces[value if success else 0] += 1
    return Swing(sum(row.success) / FACES, tuple(n / FACES for n in faces), hit, damage)


def reading(doc: Mapping[str, Any]) -> Reading:
    """What a verified export holds for a luck report (see the module text)."""
    bout = doc["bout"]
    system = str(bout.get("system"))
    rules = rules_from_mapping(bout.get("rules") or {}) if system == "msv" else None
    sides: dict[str, str] = {}
    winner: str | None = None
    swings: list[tuple[str, Swing]] = []
    throws: list[tuple[str, Throw]] = []
    characters: list[tuple[str, str]] = []
    actor = "referee"
    for event in opened_events(doc):
        kind, payload = event.get("type"), event.get("payload")
        if kind == EventType.FIGHTER_ADDED:
            added = FighterAdded.given(payload)
            sides.setdefault(str(added.name), str(added.side or added.name))
            if isinstance(added.character, str):
                characters.append((str(added.name), added.character))
        elif kind == EventType.ACTION:
            actor = str(event.get("actor"))
        elif kind == EventType.ROLL:
            roll = Roll.given(payload)
            owner = owner_of(roll.stream)[1] if isinstance(roll.stream, str) else actor
            for die, face in zip(roll.dice, roll.faces, strict=True):
                count = sides_of(die)
                if count is not None:
                    throws.append((owner, Throw(count, int(face))))
        elif kind == EventType.OUTCOME and rules is not None:
            said = Outcome.given(payload)
            if said.kind == "attack":
                attack = Attack.given(payload)
                swing = attack_swing(rules, attack.cs, bool(attack.success), attack.damage)
                swings.append((str(said.actor), swing))
        elif kind == EventType.ENDED:
            ended = Ended.given(payload).winner
            winner = ended if isinstance(ended, str) else None
    side = BoutSide(
        str(bout.get("id")), str(bout.get("name")), system, tuple(sides.items()), winner
    )
    return Reading(side, tuple(swings), tuple(throws), tuple(characters))


def records(readings: Sequence[Reading], fighter: str | None) -> tuple[Record, ...]:
    """Each fighter's record (only `fighter`'s when given), in the order they first fought."""
    names: list[str] = []
    for read in readings:
        for name, _ in read.bout.sides:
            if fighter is not None and not same_name(name, fighter):
                continue
            if not any(same_name(name, known) for known in names):
                names.append(name)
    out = []
    for name in names:
        results = [r for read in readings if (r := read.bout.result_of(name)) is not None]
        out.append(
            Record(
                name,
                len(results),
                results.count("won"),
                results.count("lost"),
                results.count("undecided"),
            )
        )
    return tuple(out)


def luck_report(
    readings: Sequence[Reading], fighter: str | None, alpha: float = ALPHA
) -> LuckReport:
    """The luck of `fighter`'s dice (None: every fighter's, the referee's left out) over the
    readings, in their order, with the records."""

    def whose(name: str) -> bool:
        if fighter is None:
            return name != "referee"
        return same_name(name, fighter)

    swings = [s for read in readings for name, s in read.swings if whose(name)]
    throws = [t for read in readings for name, t in read.throws if whose(name)]
    found = luck(swings, throws, alpha)
    bouts = tuple(r.bout for r in readings)
    return LuckReport(fighter, len(readings), records(readings, fighter), bouts, found)
