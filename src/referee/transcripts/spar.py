"""An MSV spar followed one roll line at a time, as the bout engine would referee it.

Initiative (MSV-5): everyone rolls once; the higher effect acts first; a tied group rerolls
among itself, the best-placed group first (a group of CS 0 fighters keeps the given order).
Then turns in that order, round after round, skipping the defeated (MSV-6); an attack is the
attacker's next 1d100 against the named target (MSV-2, MSV-3); a critical gives a free attack
on the stunned foe at once (MSV-4); a fighter is defeated at the pack's threshold, and the
spar ends when one side is left (MSV-7). Only the first valid 1d100 host roll of the fighter
whose turn it is counts; every other roll line is an anomaly and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from referee.systems.msv.attack import effect_number, interpret
from referee.systems.msv.initiative import sort_key
from referee.systems.msv.rules import MsvRules
from referee.transcripts.authors import name_key
from referee.transcripts.fighters import Fighter
from referee.transcripts.reader import HostRoll, LogLine
from referee.transcripts.targets import TargetBook
from referee.transcripts.verdict import Anomaly, Kind, Reading, Use

#: Readings and anomalies are made by the tens of thousands: from a tuple of every field, which
#: is about twice as fast as by the named fields.
_reading = Reading._make
_anomaly = Anomaly._make
_ANOMALY = Use.ANOMALY


@dataclass
class Spar:
    """The spar as the judge follows it (see the module text)."""

    fighters: tuple[Fighter, ...]
    rules: MsvRules
    targets: TargetBook = field(default_factory=TargetBook)
    phase: str = "initiative"
    slots: list[tuple[str, ...]] = field(default_factory=list)
    rolled: dict[str, int] = field(default_factory=dict)
    initiative_round: int = 1
    order: tuple[str, ...] = ()
    turn: str = ""
    stunned: str | None = None
    winner: str | None = None
    won_on: int = 0
    attacks: int = 0
    dealt: dict[str, int] = field(default_factory=dict)
    taken: dict[str, int] = field(default_factory=dict)
    anomalies: list[Anomaly] = field(default_factory=list)
    readings: list[Reading] = field(default_factory=list)
    last_roll: dict[str, int] = field(default_factory=dict)
    aims: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.dealt = {f.name: 0 for f in self.fighters}
        self.taken = {f.name: 0 for f in self.fighters}
        self.by_key = {f.key: f for f in self.fighters}
        self.by_name = {f.name: f for f in self.fighters}
        self.team_of = {f.name: name_key(f.team) for f in self.fighters}
        self.slots = [tuple(f.name for f in self.fighters)]
        self._standing: list[Fighter] = list(self.fighters)
        self._foes: dict[str, list[Fighter]] = {}
        self._named: dict[str, Fighter | None] = {}
        self._hits: dict[tuple[str, str, int], tuple[int, bool, str]] = {}
        self._after: dict[str, str] = {}
        self._strangers: dict[str, str] = {}
        self._over = ""
        self._settle_unrollable()

    # -- bookkeeping ---------------------------------------------------------------------

    def fighter(self, roll: HostRoll) -> Fighter | None:
        """The fighter a roll names, by AOL's rule (case and spaces do not count)."""
        if roll.name not in self._named:
            self._named[roll.name] = self.by_key.get(name_key(roll.name))
        return self._named[roll.name]

    def anomaly(self, line: LogLine, kind: Kind, reason: str, roll: HostRoll | None) -> None:
        """Note an anomaly (and, when the line's roll could be read, its reading)."""
        number = line.number
        self.anomalies.append(_anomaly((number, kind, reason)))
        if roll is not None:
            dice = "1d100" if roll.is_d100 else roll.dice
            self.readings.append(
                _reading(
                    (number, roll.name, dice, roll.faces, roll.nonce, _ANOMALY, reason, 0, None)
                )
            )

    def read(self, number: int, roll: HostRoll, name: str, use: Use, text: str) -> None:
        """Note how a roll line was read."""
        dice = "1d100" if roll.is_d100 else roll.dice
        self.readings.append(
            _reading((number, name, dice, roll.faces, roll.nonce, use, text, 0, None))
        )

    def living(self) -> list[Fighter]:
        """The fighters not defeated, in the given order."""
        return self._standing

    def foes(self, fighter: Fighter) -> list[Fighter]:
        """The fighters standing on other sides than `fighter`'s."""
        team = self.team_of[fighter.name]
        found = self._foes.get(team)
        if found is None:
            found = self._foes[team] = [f for f in self._standing if self.team_of[f.name] != team]
        return found

    def sides_left(self) -> set[str]:
        """The sides that still have a fighter standing (MSV-7)."""
        return {self.team_of[f.name] for f in self._standing}

    def _defeated(self, name: str) -> None:
        self._standing = [f for f in self._standing if f.name != name]
        self._foes, self._after = {}, {}

    # -- one roll ------------------------------------------------------------------------

    def take(self, line: LogLine, roll: HostRoll, until: int) -> None:
        """A fighter's valid host roll on `line` (the next roll line is `until`)."""
        name = roll.name
        fighter = self._named[name] if name in self._named else self.fighter(roll)
        if fighter is None:
            reason = self._strangers.get(name)
            if reason is None:
                names = _names([f.name for f in self.fighters])
                reason = self._strangers[name] = f"{name} is not in the spar ({names})"
            self.anomaly(line, Kind.NOT_A_FIGHTER, reason, roll)
            return
        if not roll.is_d100:
            reason = f"{fighter.name} rolled {roll.dice}; MSV rolls one 100-sided die (MSV-1)"
            self.anomaly(line, Kind.WRONG_DICE, reason, roll)
        elif self.phase == "fight":
            self._attack(line, roll, fighter, until)
        elif self.phase == "initiative":
            self._initiative(line, roll, fighter)
        else:  # the spar stays over: its reason is made once
            if not self._over:
                self._over = f"the spar is over ({self.winner} won on line {self.won_on})"
            self.anomaly(line, Kind.OUT_OF_TURN, self._over, roll)
        self.last_roll[fighter.name] = line.number

    # -- initiative (MSV-5) ----------------------------------------------------------------

    def _group(self) -> tuple[str, ...]:
        return next(slot for slot in self.slots if len(slot) > 1)

    def _initiative(self, line: LogLine, roll: HostRoll, fighter: Fighter) -> None:
        face, name, group = roll.faces[0], fighter.name, self._group()
        if name in self.rolled:
            reason = (
                f"{name} already rolled initiative (round {self.initiative_round}, "
                f"{self.rolled[name]}); the first roll counts"
            )
            self.anomaly(line, Kind.OUT_OF_TURN, reason, roll)
            return
        if name not in group:
            reason = f"{name} does not roll initiative now: {_names(group)} reroll a tie (MSV-5)"
            self.anomaly(line, Kind.OUT_OF_TURN, reason, roll)
            return
        self.rolled[name] = face
        effect = effect_number(fighter.cs, face, self.rules)
        text = (
            f"initiative round {self.initiative_round}: {face} vs CS {fighter.cs}, effect {effect}"
        )
        if len(self.rolled) == len(group):
            text += self._settle(group)
        self.read(line.number, roll, name, Use.INITIATIVE, text)

    def _settle(self, group: tuple[str, ...]) -> str:
        """The group has rolled: its places, and a reroll of any tie (MSV-5)."""
        keys = {n: sort_key(self.by_name[n].cs, self.rolled[n], self.rules) for n in group}
        parts = [
            tuple(n for n in group if keys[n] == k)
            for k in sorted(set(keys.values()), reverse=True)
        ]
        index = self.slots.index(group)
        self.slots[index : index + 1] = parts
        self.rolled = {}
        self.initiative_round += 1
        ties = [p for p in parts if len(p) > 1]
        self._settle_unrollable()
        if self.phase == "fight":
            return f" - {self.order[0]} acts first"
        if len(group) == 2 and ties:
            return " - tied: both reroll (MSV-5)"
        return f" - tied: {_names(self._group())} reroll (MSV-5)"

    def _settle_unrollable(self) -> None:
        """Groups of CS 0 fighters keep the given order; with every group placed, the fight."""
        while any(len(slot) > 1 for slot in self.slots):
            group = self._group()
            if any(self.by_name[n].cs for n in group):
                return
            index = self.slots.index(group)
            self.slots[index : index + 1] = [(n,) for n in group]
        self.order = tuple(slot[0] for slot in self.slots)
        self.phase, self.turn = "fight", self.order[0]

    # -- the fight (MSV-2..MSV-7) ----------------------------------------------------------

    def _attack(self, line: LogLine, roll: HostRoll, fighter: Fighter, until: int) -> None:
        name = fighter.name
        if name != self.turn:
            what = "free attack (MSV-4)" if self.stunned else "turn"
            self.anomaly(line, Kind.OUT_OF_TURN, f"it is {self.turn}'s {what}", roll)
            return
        target = self._target(fighter, line.number, until)
        if target is None:
            foes = _names([f.name for f in self.foes(fighter)])
            reason = f"{name} names no target among {foes} (MSV-6): the roll counts for nothing"
            self.anomaly(line, Kind.NO_TARGET, reason, roll)
            return
        damage, free_attack, text = self._hit(fighter, target.name, roll.faces[0])
        use = Use.FREE_ATTACK if self.stunned else Use.ATTACK
        self.attacks += 1
        self.dealt[name] += damage
        self.taken[target.name] += damage
        down = self.taken[target.name] >= self.rules.defeat_threshold  # MSV-7
        if down:
            text += f"; {target.name} is defeated"
            self._defeated(target.name)
        if down and len(self.sides_left()) <= 1:
            self.phase, self.won_on = "over", line.number
            self.winner = fighter.team if self._standing else None
            text += f": {self.winner} wins" if self.winner else ": nobody is left"
        elif free_attack and not down:  # MSV-4: the foe is stunned, a free attack at once
            self.stunned = target.name
        else:
            self.stunned, self.turn = None, self._next(name)
        self.readings.append(
            _reading(
                (line.number, name, "1d100", roll.faces, roll.nonce, use, text, damage, target.name)
            )
        )

    def _hit(self, fighter: Fighter, target: str, face: int) -> tuple[int, bool, str]:
        """An attack's damage, whether it gives a free attack, and its reading (MSV-2..MSV-4)."""
        key = (fighter.name, target, face)
        found = self._hits.get(key)
        if found is None:
            result = interpret(fighter.cs, face, self.rules)
            text = f"{fighter.name} attacks {target}: {result}"
            found = self._hits[key] = (result.damage, result.free_attack, text)
        return found

    def _target(self, fighter: Fighter, number: int, until: int) -> Fighter | None:
        if self.stunned is not None:
            return self.by_name[self.stunned]
        foes = self.foes(fighter)
        if len(foes) == 1:
            return foes[0]
        after = self.last_roll.get(fighter.name, 0)
        named = self.targets.named(fighter.key, after, number, until) or self.aims.get(fighter.key)
        target = next((f for f in foes if f.key == named), None)
        if target is not None:
            self.aims[fighter.key] = target.key
        return target

    def _next(self, name: str) -> str:
        """The next fighter in the order still standing (MSV-6)."""
        found = self._after.get(name)
        if found is None:
            found = self._after[name] = self._next_standing(name)
        return found

    def _next_standing(self, name: str) -> str:
        index = self.order.index(name)
        for step in range(1, len(self.order) + 1):
            candidate = self.order[(index + step) % len(self.order)]
            if self.taken[candidate] < self.rules.defeat_threshold:
                return candidate
        return name


def _names(names: Sequence[str]) -> str:
    """`A and B`, `A, B and C`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
