"""What a dice bot says when it rolls: the roll shapes, as data, and reading one strictly.

Each `Shape` is one bot's wording: AOL's OnlineHost (MSV-1) with the service's receipt
`(nonce N)` or `(nonce N, STREAM)`, a Second Life combat meter (`Tarl rolled 42`, a d100),
Dice Maiden and Avrae (Discord), an IRC DiceBot (`Tarl rolls 1d100: [47] = 47`). `find_roll`
finds a shape anywhere in a message; `read_roll` checks it as its bot writes it, and says why
not when it is not.

>>> read_roll("Tarl rolled 1 100-sided die: 47 (nonce 4)")
HostRoll(name='Tarl', count=1, sides=100, faces=(47,), nonce=4, stream=None, modifier='')
>>> read_roll("Tarl rolled 1 100-sided dice: 47")
"'1 ... dice' where the host writes 'die' for one"
>>> read_roll("@Tarl Request: `[1d100]` Roll: `[47]` Result: `47`").faces
(47,)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from referee.aol import AOL_DICE, AOL_SIDES, HOST_PREFIX, HOST_ROLL

#: A roller's name as a bot writes it: no colon, at most 64 characters.
_NAME = r"(?P<name>[^:\s@`*](?:[^:`*\n]{0,62}?[^:\s`*])?)"


@dataclass(frozen=True, slots=True)
class HostRoll:
    """What a roll line says: who rolled how many dice of how many sides, the faces, the
    service's receipt (nonce, and its stream when it names one), any modifier (`+5`)."""

    name: str
    count: int
    sides: int
    faces: tuple[int, ...]
    nonce: int | None = None
    stream: str | None = None
    modifier: str = ""

    @property
    def dice(self) -> str:
        """The dice in notation: `1d100`.

        >>> HostRoll("Tarl", 2, 20, (14, 17)).dice
        '2d20'
        >>> HostRoll("Tarl", 1, 100, (5,), modifier="+5").dice
        '1d100+5'
        """
        return f"{self.count}d{self.sides}{self.modifier}"

    @property
    def is_d100(self) -> bool:
        """One plain 100-sided die, the only MSV roll (MSV-1)."""
        return self.count == 1 and self.sides == 100 and not self.modifier

    @property
    def receipt(self) -> str:
        """The receipt as the service writes it, or '' for a roll without one.

        >>> HostRoll("Tarl", 1, 100, (5,), 3, "free:Tarl").receipt
        'nonce 3, free:Tarl'
        """
        if self.nonce is None:
            return ""
        return f"nonce {self.nonce}" + (f", {self.stream}" if self.stream else "")


@dataclass(frozen=True, slots=True)
class Shape:
    """One bot's roll wording: a pattern found anywhere in a message (`loose`) and the same
    wording as the bot writes it, the whole message (`strict`)."""

    name: str
    title: str
    example: str
    loose: re.Pattern[str]
    strict: re.Pattern[str]


#: The roll shapes the judge reads, by bot.
SHAPES: tuple[Shape, ...] = (
    Shape(
        "onlinehost",
        "AOL's OnlineHost (MSV-1), with the service's receipt",
        "Tarl rolled 1 100-sided die: 47 (nonce 4)",
        re.compile(r"\brolled[ \t]+\S{1,4}[ \t]+\S{1,5}-sided[ \t]+di(?:e|ce)\b", re.I),
        re.compile(
            # the host line's one pattern (`referee.aol`: HOST_PREFIX, HOST_ROLL), after
            # a bot's name
            rf"(?:{HOST_PREFIX})?{_NAME}[ \t]+{HOST_ROLL}[ \t]*",
            re.ASCII,  # the host writes ASCII digits; `٤٧` in a host line is typed, not rolled
        ),
    ),
    Shape(
        # the code marks (backticks) are gone in a copy from Discord's window; without its
        # `Request:` (Dice Maiden's simple output) the dice are not said: one d100 per face
        "dice-maiden",
        "Dice Maiden (Discord)",
        "@Tarl Request: `[1d100]` Roll: `[47]` Result: `47`",
        re.compile(
            r"Request:[ \t]*`?\[[^\]`\n]*\]`?[ \t]*Roll:"
            r"|Roll:[ \t]*`?\[[^\]`\n]*\]`?[ \t]*Result:"
        ),
        re.compile(
            r"@?(?P<name>[^@`\n][^`\n]{0,63}?)[ \t]+"
            r"(?:Request:[ \t]*(?P<tick>`?)\[(?P<expr>[^\]`]{1,40})\](?P=tick)[ \t]*)?"
            r"Roll:[ \t]*(?P<tick2>`?)\[(?P<faces>\d{1,4}(?:,[ \t]*\d{1,4})*)\](?P=tick2)"
            r"[ \t]*Result:[ \t]*(?P<tick3>`?)(?P<total>-?\d{1,6})(?P=tick3).*",
            re.ASCII | re.S,
        ),
    ),
    Shape(
        "dicebot",
        "an IRC DiceBot",
        "Tarl rolls 1d100: [47] = 47",
        re.compile(r"\brolls[ \t]+\d{0,3}d\d{1,4}[^:\n]{0,20}:[ \t]*\["),
        re.compile(
            rf"{_NAME}[ \t]+rolls[ \t]+(?P<expr>\d{{0,3}}d\d{{1,4}}(?:[ \t]*[+-][ \t]*\d{{1,4}})?):"
            r"[ \t]*\[(?P<faces>\d{1,4}(?:,[ \t]*\d{1,4})*)\](?:[ \t]*[+-][ \t]*\d{1,4})?"
            r"[ \t]*=[ \t]*(?P<total>-?\d{1,6})",
            re.ASCII,
        ),
    ),
    Shape(
        "avrae",
        "Avrae (Discord)",
        "@Tarl  🎲\n**Result**: 1d100 (47)\n**Total**: 47",
        re.compile(r"\*\*Result\*\*:[ \t]*\d*d\d"),
        re.compile(
            r"@?(?P<name>[^@\n][^\n]{0,63}?)[ \t]*(?:🎲|:game_die:)[ \t]*\n"
            r"\*\*Result\*\*:[ \t]*(?P<expr>\d{0,3}d\d{1,4}[^(\n]{0,20}?)[ \t]*"
            r"\((?P<faces>[*~ \t\d,]{1,80})\)[^\n]*(?:\n\*\*Total\*\*:[ \t]*-?\d{1,6})?[ \t]*",
            re.ASCII,
        ),
    ),
    Shape(
        "meter",
        "a Second Life combat meter (one d100)",
        "Tarl Cabot rolled 42",
        re.compile(r"^[^:\n]{1,64}? rolled (?:a )?\d{1,3}[.!]?$"),
        re.compile(rf"{_NAME} rolled (?:a )?(?P<faces>\d{{1,3}})[.!]?", re.ASCII),
    ),
)

_EXPR = re.compile(r"(?P<count>\d{0,3})d(?P<sides>\d{1,4})(?P<modifier>.*)", re.ASCII)


def find_roll(text: str) -> Shape | None:
    """The first shape whose wording is somewhere in `text` (None: no roll is said).

    >>> find_roll("Bosk: OnlineHost: Tarl rolled 1 100-sided die: 60").name
    'onlinehost'
    >>> find_roll("did the OnlineHost: say I rolled well?") is None
    True
    """
    if "rolled" not in text and "Re" not in text and "rolls" not in text:
        return None
    for shape in SHAPES:
        if shape.loose.search(text):
            return shape
    return None


def read_roll(text: str, shape: Shape | None = None) -> HostRoll | str:
    """The roll a bot's whole message says, or why it is not one its bot wrote."""
    shape = shape or find_roll(text)
    if shape is None:
        return "no roll in it"
    match = shape.strict.fullmatch(text.strip())
    if match is None:
        return f"not in the shape {shape.example.splitlines()[0]!r} ({shape.title})"
    if shape.name == "onlinehost":
        return _host(match)
    if shape.name == "meter":
        return HostRoll(match["name"], 1, 100, (int(match["faces"]),))
    return _bot(match)


def _host(match: re.Match[str]) -> HostRoll | str:
    count, sides, noun = int(match["count"]), int(match["sides"]), match["noun"]
    faces = tuple(map(int, match["faces"].split()))
    if (noun == "die") != (count == 1):
        return f"'{count} ... {noun}' where the host writes 'die' for one"
    if count not in AOL_DICE or sides not in AOL_SIDES:
        return f"{count} dice of {sides} sides, which AOL never rolled (MSV-1)"
    checked = _faces(faces, count, sides)
    if checked:
        return checked
    nonce = match["nonce"]
    return HostRoll(
        match["name"], count, sides, faces, None if nonce is None else int(nonce), match["stream"]
    )


def _bot(match: re.Match[str]) -> HostRoll | str:
    if match["expr"] is None:  # Dice Maiden's simple output: the faces alone, d100s (MSV-1)
        faces = tuple(int(f) for f in re.findall(r"\d+", match["faces"]))
        checked = _faces(faces, len(faces), 100)
        return checked or HostRoll(match["name"].strip(), len(faces), 100, faces)
    expr = _EXPR.fullmatch(match["expr"].strip().lower())
    if expr is None:
        return f"dice {match['expr']!r} are not NdM"
    count, sides = int(expr["count"] or 1), int(expr["sides"])
    faces = tuple(int(f) for f in re.findall(r"\d+", match["faces"]))
    if not 1 <= count <= 100 or sides < 2:
        return f"{count} dice of {sides} sides"
    checked = _faces(faces, count, sides)
    if checked:
        return checked
    return HostRoll(match["name"].strip(), count, sides, faces, modifier=expr["modifier"].strip())


def _faces(faces: tuple[int, ...], count: int, sides: int) -> str | None:
    if len(faces) != count:
        return f"{count} dice but {len(faces)} faces"
    bad = next((f for f in faces if not 1 <= f <= sides), None)
    return None if bad is None else f"face {bad} on a {sides}-sided die"
