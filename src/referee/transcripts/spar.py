"""An MSV spar followed one roll line at a time, as the bout engine would referee it.

Initiative (MSV-5): everyone rolls once; the higher effect acts first; a tied group rerolls
among itself, the best-placed group first (a group of CS 0 fighters keeps the given order).
Then turns in that order, round after round, skipping the defeated (MSV-6); an attack is the
attacker's next 1d100 against the named target (MSV-2, MSV-3); a critical gives a free attack
on the stunned foe at once (MSV-4); a fighter is defeated at the pack's threshold, and the
spar ends when one side is left (MSV-7). Only the first valid 1d100 host roll of the fighter
whose turn it is counts; every other roll line is an anomaly and changes nothing.

Readings and anomalies are kept in columns (`referee.transcripts.columns`): a line number, and
tuples shared by the lines read alike (who rolled what, what it was, why it does not count),
so that following a long log makes no object per line.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.systems.msv.attack import effect_number, interpret
from referee.systems.msv.initiative import sort_key
from referee.systems.msv.rules import MsvRules
from referee.transcripts.authors import name_key
from referee.transcripts.columns import Anomalies, Readings, What, Who, Why
from referee.transcripts.fighters import Fighter
from referee.transcripts.reader import HostRoll
from referee.transcripts.targets import TargetBook
from referee.transcripts.verdict import Kind, Use

_ANOMALY = Use.ANOMALY

#: What is known of one roll whatever the turn: the roll (kept, so that its id, the key, stays
#: its own), the fighter it names, the anomaly it is when it cannot count (not in the spar,
#: the wrong dice), who rolled as its readings show it (by the roll's name, by the fighter's).
Known = tuple[HostRoll, Fighter | None, tuple[Why, What] | None, Who, Who]


class Spar:
    """The spar as the judge follows it (see the module text): the fighters, the rule pack,
    the targets named (a group spar), and where the spar is."""

    def __init__(
        self, fighters: tuple[Fighter, ...], rules: MsvRules, targets: TargetBook | None = None
    ) -> None:
        self.fighters = fighters
        self.rules = rules
        self.targets = TargetBook() if targets is None else targets
        self.phase = "initiative"
        self.rolled: dict[str, int] = {}
        self.initiative_round = 1
        self.order: tuple[str, ...] = ()
        self.turn = ""
        self.stunned: str | None = None
        self.winner: str | None = None
        self.won_on = 0
        self.attacks = 0
        self.anomalies = Anomalies()
        self.readings = Readings()
        self.last_roll: dict[str, int] = {}
        self.aims: dict[str, str] = {}
        self.dealt = {f.name: 0 for f in self.fighters}
        self.taken = {f.name: 0 for f in self.fighters}
        self.by_key = {f.key: f for f in self.fighters}
        self.by_name = {f.name: f for f in self.fighters}
        self.team_of = {f.name: name_key(f.team) for f in self.fighters}
        self.slots = [tuple(f.name for f in self.fighters)]
        self._standing: list[Fighter] = list(self.fighters)
        self._foes: dict[str, list[Fighter]] = {}
        self._hits: dict[tuple[str, str, int, bool], tuple[int, bool, What]] = {}
        self._after: dict[str, str] = {}
        self._over: tuple[Why, What] | None = None
        self._known: dict[int, Known] = {}
        self._whos: dict[tuple[int, str], tuple[HostRoll, Who]] = {}
        self._whys: dict[str, tuple[Why, What]] = {}
        self._waits: dict[tuple[str, bool], tuple[Why, What]] = {}
        # the columns are appended to directly: a line's reading or anomaly is three or two
        # appends, no call
        readings, anomalies = self.readings, self.anomalies
        self._read_at, self._read_who = readings.lines.append, readings.whos.append
        self._read_what = readings.whats.append
        self._flag_at, self._flag_why = anomalies.lines.append, anomalies.whys.append
        self._settle_unrollable()

    # -- bookkeeping ---------------------------------------------------------------------

    def fighter(self, roll: HostRoll) -> Fighter | None:
        """The fighter a roll names, by AOL's rule (case and spaces do not count)."""
        return self.know(roll)[1]

    def know(self, roll: HostRoll) -> Known:
        """What is known of a roll whatever the turn (found once for all its lines)."""
        known = self._known.get(id(roll))
        if known is not None:
            return known
        name = roll.name
        fighter = self.by_key.get(name_key(name))
        refused: tuple[Why, What] | None = None
        if fighter is None:
            names = _names([f.name for f in self.fighters])
            refused = self._why(Kind.NOT_A_FIGHTER, f"{name} is not in the spar ({names})")
        elif not roll.is_d100:
            reason = f"{fighter.name} rolled {roll.dice}; MSV rolls one 100-sided die (MSV-1)"
            refused = self._why(Kind.WRONG_DICE, reason)
        who = self.who(roll, name)
        own = who if fighter is None else self.who(roll, fighter.name)
        known = self._known[id(roll)] = (roll, fighter, refused, who, own)
        return known

    def who(self, roll: HostRoll, name: str) -> Who:
        """Who rolled what, as a reading shows it (one tuple for every line of the roll)."""
        key = (id(roll), name)
        kept = self._whos.get(key)
        if kept is None:  # the roll is kept with it: its id stays its own
            dice = "1d100" if roll.is_d100 else roll.dice
            kept = self._whos[key] = (roll, (name, dice, roll.faces, roll.nonce))
        return kept[1]

    def flag(self, number: int, kind: Kind, reason: str) -> None:
        """Note an anomaly of a line with no roll of its own to read."""
        self._flag_at(number)
        self._flag_why(self._why(kind, reason)[0])

    def _why(self, kind: Kind, reason: str) -> tuple[Why, What]:
        """An anomaly's kind and reason, and the reading of its roll (one pair per reason)."""
        found = self._whys.get(reason)
        if found is None or found[0][0] is not kind:
            found = self._whys[reason] = ((kind, reason), (_ANOMALY, reason, 0, None))
        return found

    def anomaly(self, number: int, kind: Kind, reason: str, roll: HostRoll | None) -> None:
        """Note an anomaly (and, when the line's roll could be read, its reading)."""
        why, what = self._why(kind, reason)
        self._flag_at(number)
        self._flag_why(why)
        if roll is not None:
            self._read_at(number)
            self._read_who(self.who(roll, roll.name))
            self._read_what(what)

    def _refuse(self, number: int, refused: tuple[Why, What], who: Who) -> None:
        """Note an anomaly of a roll read already (its reason and reading found before)."""
        self._flag_at(number)
        self._flag_why(refused[0])
        self._read_at(number)
        self._read_who(who)
        self._read_what(refused[1])

    def read(self, number: int, roll: HostRoll, name: str, use: Use, text: str) -> None:
        """Note how a roll line was read."""
        self._read_at(number)
        self._read_who(self.who(roll, name))
        self._read_what((use, text, 0, None))

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

    def take(self, number: int, roll: HostRoll, until: int) -> None:
        """A fighter's valid host roll on line `number` (the next roll line is `until`)."""
        self.take_known(number, self._known.get(id(roll)) or self.know(roll), until)

    def take_known(self, number: int, known: Known, until: int) -> None:
        """`take`, with what is known of the roll already found (`know`)."""
        roll, fighter, refused, who, _ = known
        if fighter is None:  # not in the spar
            assert refused is not None
            self._refuse(number, refused, who)
            return
        if refused is not None:  # the wrong dice
            self._refuse(number, refused, who)
        elif self.phase == "fight":
            self._attack(number, roll, fighter, known, until)
        elif self.phase == "initiative":
            self._initiative(number, roll, fighter)
        else:  # the spar stays over: its reason (and reading) is made once
            if self._over is None:
                over = f"the spar is over ({self.winner} won on line {self.won_on})"
                self._over = self._why(Kind.OUT_OF_TURN, over)
            self._refuse(number, self._over, who)
        self.last_roll[fighter.name] = number

    # -- initiative (MSV-5) ----------------------------------------------------------------

    def _group(self) -> tuple[str, ...]:
        return next(slot for slot in self.slots if len(slot) > 1)

    def _initiative(self, number: int, roll: HostRoll, fighter: Fighter) -> None:
        face, name, group = roll.faces[0], fighter.name, self._group()
        if name in self.rolled:
            reason = (
                f"{name} already rolled initiative (round {self.initiative_round}, "
                f"{self.rolled[name]}); the first roll counts"
            )
            self.anomaly(number, Kind.OUT_OF_TURN, reason, roll)
            return
        if name not in group:
            reason = f"{name} does not roll initiative now: {_names(group)} reroll a tie (MSV-5)"
            self.anomaly(number, Kind.OUT_OF_TURN, reason, roll)
            return
        self.rolled[name] = face
        effect = effect_number(fighter.cs, face, self.rules)
        text = (
            f"initiative round {self.initiative_round}: {face} vs CS {fighter.cs}, effect {effect}"
        )
        if len(self.rolled) == len(group):
            text += self._settle(group)
        self.read(number, roll, name, Use.INITIATIVE, text)

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

    def _attack(
        self, number: int, roll: HostRoll, fighter: Fighter, known: Known, until: int
    ) -> None:
        name = fighter.name
        stunned = self.stunned
        if name != self.turn:  # its reason is made once for each turn
            waiting = self._waits.get((self.turn, stunned is not None))
            if waiting is None:
                whose = "free attack (MSV-4)" if stunned else "turn"
                reason = f"it is {self.turn}'s {whose}"
                waiting = self._waits[self.turn, stunned is not None] = self._why(
                    Kind.OUT_OF_TURN, reason
                )
            self._refuse(number, waiting, known[3])
            return
        if stunned is not None:
            target: Fighter | None = self.by_name[stunned]
        else:  # the one foe standing, else the one named (a group spar)
            foes = self._foes.get(self.team_of[name]) or self.foes(fighter)
            target = foes[0] if len(foes) == 1 else self._target(fighter, number, until)
        if target is None:
            among = _names([f.name for f in self.foes(fighter)])
            reason = f"{name} names no target among {among} (MSV-6): the roll counts for nothing"
            self.anomaly(number, Kind.NO_TARGET, reason, roll)
            return
        face = roll.faces[0]
        hit = self._hits.get((name, target.name, face, stunned is not None))
        damage, free_attack, what = hit or self._hit(fighter, target.name, face)
        self.attacks += 1
        self.dealt[name] += damage
        taken = self.taken[target.name] = self.taken[target.name] + damage
        if taken >= self.rules.defeat_threshold:  # MSV-7
            text = f"{what[1]}; {target.name} is defeated"
            self._defeated(target.name)
            if len(self.sides_left()) <= 1:
                self.phase, self.won_on = "over", number
                self.winner = fighter.team if self._standing else None
                text += f": {self.winner} wins" if self.winner else ": nobody is left"
            else:
                self.stunned, self.turn = None, self._next(name)
            what = (what[0], text, damage, what[3])
        elif free_attack:  # MSV-4: the foe is stunned, a free attack at once
            self.stunned = target.name
        else:
            self.stunned, self.turn = None, self._next(name)
        self._read_at(number)
        self._read_who(known[4])
        self._read_what(what)

    def _hit(self, fighter: Fighter, target: str, face: int) -> tuple[int, bool, What]:
        """An attack's damage, whether it gives a free attack, and what it was to the spar:
        an attack, or the free attack on a stunned foe (MSV-2..MSV-4)."""
        free = self.stunned is not None
        key = (fighter.name, target, face, free)
        found = self._hits.get(key)
        if found is None:
            result = interpret(fighter.cs, face, self.rules)
            text = f"{fighter.name} attacks {target}: {result}"
            use = Use.FREE_ATTACK if free else Use.ATTACK
            what = (use, text, result.damage, target)
            found = self._hits[key] = (result.damage, result.free_attack, what)
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
