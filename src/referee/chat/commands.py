"""Chat commands as frozen values whose `str` is the exact line that means them.

`referee.chat.parse_line(str(command), roster) == command` for every command whose names are
on the roster: the notation round-trips, as dice expressions do.

>>> str(Attack("Pa Kur")), str(Attack("Tarl", attacker="Bob the Bold"))
('attack Pa Kur', 'attack Bob the Bold Tarl')
>>> str(Add("Agent 47", 50)), str(Close()), str(End("Reds"))
('add "Agent 47" 50', 'close bout', 'end bout Reds')
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.keyvalue import SIGNS
from referee.keyvalue import Value as Value
from referee.numerals import is_whole

Options = tuple[tuple[str, Value], ...]


def show_value(value: Value) -> str:
    """A `key=value` value as typed: `true`, `3`, `Pa Kur`.

    >>> show_value(True), show_value(-2), show_value("Pa Kur")
    ('true', '-2', 'Pa Kur')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def show_options(options: Options) -> str:
    """`key=value` pairs as typed, with a leading space when there are any."""
    return "".join(f" {key}={show_value(value)}" for key, value in options)


@dataclass(frozen=True, slots=True)
class Help:
    """`help`: the list of commands, short."""

    def __str__(self) -> str:
        return "help"


@dataclass(frozen=True, slots=True)
class Status:
    """`status`: whose turn it is, and the score."""

    def __str__(self) -> str:
        return "status"


@dataclass(frozen=True, slots=True)
class Score:
    """`score`: wounds against thresholds."""

    def __str__(self) -> str:
        return "score"


@dataclass(frozen=True, slots=True)
class AolRoll:
    """`//roll -dice1 -sides100`: an AOL chat roll (MSV-1), answered as OnlineHost did."""

    count: int
    sides: int

    def __str__(self) -> str:
        return f"//roll -dice{self.count} -sides{self.sides}"


@dataclass(frozen=True, slots=True)
class Roll:
    """`roll 2d20+1d6`: a recorded roll in the full dice notation (also `//roll 2d20+1d6`)."""

    expression: str

    def __str__(self) -> str:
        return f"roll {self.expression}"


@dataclass(frozen=True, slots=True)
class Attack:
    """`attack TARGET` (a fighter's own attack) or `attack ATTACKER TARGET` (the referee)."""

    target: str
    attacker: str | None = None

    def __str__(self) -> str:
        if self.attacker is None:
            return f"attack {self.target}"
        return f"attack {self.attacker} {self.target}"


@dataclass(frozen=True, slots=True)
class Spirit:
    """`spirit TARGET` (one round of SRP spirit combat, SRP-17) or `spirit FIGHTER TARGET`."""

    target: str
    actor: str | None = None

    def __str__(self) -> str:
        if self.actor is None:
            return f"spirit {self.target}"
        return f"spirit {self.actor} {self.target}"


@dataclass(frozen=True, slots=True)
class Odds:
    """`odds 2d6+3`: the exact distribution of a roll's total, in the bout's dialect; no record."""

    expression: str

    def __str__(self) -> str:
        return f"odds {self.expression}"


@dataclass(frozen=True, slots=True)
class Act:
    """`act KIND key=value ...`: any action of the rule system (the referee adds `actor=`)."""

    kind: str
    options: Options = ()

    def __str__(self) -> str:
        return f"act {self.kind}{show_options(self.options)}"


@dataclass(frozen=True, slots=True)
class Init:
    """`init`: the referee rolls initiative and the bout starts."""

    def __str__(self) -> str:
        return "init"


class Power(enum.Enum):
    """The referee's powers that neither end the bout nor reveal anything: one word each."""

    PAUSE = "pause"
    """Pause the bout."""
    RESUME = "resume"
    """Resume a paused bout."""
    SKIP = "skip"
    """Pass the current fighter's turn."""
    VOID = "void"
    """Take back the last action (an undo event)."""


@dataclass(frozen=True, slots=True)
class Referee:
    """`pause`, `resume`, `skip` or `void`."""

    power: Power

    def __str__(self) -> str:
        return self.power.value


@dataclass(frozen=True, slots=True)
class Add:
    """`add NAME CS [SIDE]`: the referee adds an MSV fighter (its token is never said in chat)."""

    name: str
    cs: int
    side: str | None = None

    def __str__(self) -> str:
        name = self.name
        if any(is_whole(w, signs=SIGNS) for w in name.split()) or name.startswith('"'):
            name = f'"{name}"'
        side = f" {self.side}" if self.side else ""
        return f"add {name} {self.cs}{side}"


@dataclass(frozen=True, slots=True)
class Update:
    """`update NAME key=value ...`: the referee changes stats or wounds."""

    name: str
    options: Options

    def __str__(self) -> str:
        return f"update {self.name}{show_options(self.options)}"


@dataclass(frozen=True, slots=True)
class Remove:
    """`remove NAME`: the referee removes a fighter (a fighter may remove itself)."""

    name: str

    def __str__(self) -> str:
        return f"remove {self.name}"


@dataclass(frozen=True, slots=True)
class Quit:
    """`quit`: a fighter leaves the bout."""

    def __str__(self) -> str:
        return "quit"


@dataclass(frozen=True, slots=True)
class End:
    """`end bout [SIDE]`: the referee ends the bout, naming the winning side or none."""

    side: str | None = None

    def __str__(self) -> str:
        return "end bout" + (f" {self.side}" if self.side else "")


@dataclass(frozen=True, slots=True)
class Cancel:
    """`cancel bout`: the referee calls the bout off."""

    def __str__(self) -> str:
        return "cancel bout"


@dataclass(frozen=True, slots=True)
class CloseJoining:
    """`close joining`: the referee closes the bout to joiners (OnlineHost's close)."""

    def __str__(self) -> str:
        return "close joining"


@dataclass(frozen=True, slots=True)
class Close:
    """`close bout`: the referee ends the bout if needed and reveals the server seed."""

    def __str__(self) -> str:
        return "close bout"


@dataclass(frozen=True, slots=True)
class Characters:
    """`char list`: the characters of the key the client holds (hidden stats said hidden)."""

    def __str__(self) -> str:
        return "char list"


@dataclass(frozen=True, slots=True)
class NewCharacter:
    """`char new NAME key=value ...`: a character of the bout's rule system, under the key the
    client holds (`char new Tarl cs=65`; SRP: a sheet's keys, `skill=13 hits=10 ...`)."""

    name: str
    options: Options

    def __str__(self) -> str:
        return f"char new {self.name}{show_options(self.options)}"


@dataclass(frozen=True, slots=True)
class ChangeCharacter:
    """`char set NAME key=value ...`: the character's next version, those values changed."""

    name: str
    options: Options

    def __str__(self) -> str:
        return f"char set {self.name}{show_options(self.options)}"


@dataclass(frozen=True, slots=True)
class JoinCharacter:
    """`join CHARACTER`: one of the key's characters joins the bout; the key then acts for it."""

    name: str

    def __str__(self) -> str:
        return f"join {self.name}"


ChatCommand = (
    Help
    | Status
    | Score
    | AolRoll
    | Roll
    | Odds
    | Attack
    | Spirit
    | Act
    | Init
    | Referee
    | Add
    | Update
    | Remove
    | Quit
    | End
    | Cancel
    | Close
    | CloseJoining
    | Characters
    | NewCharacter
    | ChangeCharacter
    | JoinCharacter
)
