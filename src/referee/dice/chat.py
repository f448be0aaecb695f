"""AOL chat dice (MSV-1): the `//roll` command and the `OnlineHost:` answer line.

AOL allowed 1..15 dice of 2..999 sides. A bare `//roll` threw two six-sided dice
(`OnlineHost: NAME rolled 2 6-sided dice: 1 6`), so a missing `-dice` means 2 and
a missing `-sides` means 6.

>>> parse_chat("//roll -sides100 -dice1")
parse('1d100')
>>> format_host_line("Tarl", 20, (14, 17))
'OnlineHost: Tarl rolled 2 20-sided dice: 14 17'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from referee.aol import AOL_DICE as AOL_DICE
from referee.aol import AOL_SIDES as AOL_SIDES
from referee.aol import HOST_PREFIX as HOST_PREFIX
from referee.aol import HOST_ROLL as HOST_ROLL
from referee.aol import MIXED_LINE as MIXED_LINE
from referee.aol import SIGNATURE as SIGNATURE
from referee.aol import mixed_line as mixed_line
from referee.aol import receipt_stream as receipt_stream
from referee.aol import receipt_text as receipt_text
from referee.aol import signed as signed
from referee.dice.expr import Dice
from referee.errors import LimitError, NotationError, RuleError

DEFAULT_DICE = 2
"""Dice thrown by a bare `//roll`."""
DEFAULT_SIDES = 6
"""Sides of each die of a bare `//roll`."""
MAX_NAME = 64
"""Longest screen name a host line may carry."""

_COMMAND = re.compile(r"\s*//roll", re.IGNORECASE)
_FLAG = re.compile(r"\s*-\s*(dice|sides)\s*([0-9]+)", re.IGNORECASE)
_STREAM = re.compile(r"[a-z]+(?::[^()\n]{1,64})?")
HOST_LINE = re.compile(rf"{HOST_PREFIX}(?P<name>\S.*?)[ \t]+{HOST_ROLL}[ \t]*", re.ASCII)
"""A whole host line (`parse_host_line` reads it and checks what it says)."""
_SHAPE = "'OnlineHost: NAME rolled 2 20-sided dice: 14 17'"
_SIGNATURE = re.compile(SIGNATURE, re.ASCII)
_SIG_SHAPE = "sig:KEYID.BOUTTAG.SIGNATURE"


def parse_chat(text: str) -> Dice:
    """Read `//roll -dice2 -sides20` (flags in any order, spaces optional) as a dice group.

    >>> parse_chat("//roll-sides100-dice1"), parse_chat("//roll")
    (parse('1d100'), parse('2d6'))
    """
    if not isinstance(text, str):
        raise NotationError(f"a chat roll must be text, got {text!r}")
    if len(text) > 200:
        raise LimitError(f"chat roll {text[:40]!r}... is {len(text)} characters (at most 200)")
    start = _COMMAND.match(text)
    if start is None:
        raise NotationError(f"{text!r} is not a chat roll (expected '//roll -dice1 -sides100')")
    flags: dict[str, int] = {}
    pos = start.end()
    while text[pos:].strip():
        flag = _FLAG.match(text, pos)
        if flag is None:
            pos += len(text[pos:]) - len(text[pos:].lstrip())
            raise NotationError(
                f"unexpected {text[pos]!r} at column {pos + 1} in {text!r} "
                "(expected '-dice' or '-sides' and a number)"
            )
        name = flag.group(1).lower()
        if name in flags:
            raise NotationError(f"'-{name}' given twice in {text!r}")
        flags[name] = int(flag.group(2))
        pos = flag.end()
    return aol_dice(flags.get("dice", DEFAULT_DICE), flags.get("sides", DEFAULT_SIDES), text)


def aol_dice(count: int, sides: int, source: str = "") -> Dice:
    """The dice group of an AOL roll; `RuleError` outside AOL's 1..15 dice of 2..999 sides.

    >>> aol_dice(1, 100)
    parse('1d100')
    """
    where = f" in {source!r}" if source else ""
    if count not in AOL_DICE:
        raise RuleError(f"AOL rolled 1..15 dice, got {count!r}{where} (MSV-1)")
    if sides not in AOL_SIDES:
        raise RuleError(f"AOL dice had 2..999 sides, got {sides!r}{where} (MSV-1)")
    return Dice(count, sides)


@dataclass(frozen=True, slots=True)
class HostLine:
    """One `OnlineHost:` answer: who rolled, how many dice of how many sides, the faces, and
    the service's receipt when it threw them (`nonce`, and the `stream` when named).

    >>> str(HostLine("Tarl", 1, 100, (47,)))
    'OnlineHost: Tarl rolled 1 100-sided die: 47'
    >>> str(HostLine("Tarl", 1, 100, (47,), nonce=0, stream="free:Tarl"))
    'OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 0, free:Tarl)'

    A signed line (`signature`, a `SIGNATURE`) has it after the receipt, one space apart.
    """

    name: str
    count: int
    sides: int
    faces: tuple[int, ...]
    nonce: int | None = None
    stream: str | None = None
    signature: str | None = field(default=None, repr=False)  # compared, not shown

    def __post_init__(self) -> None:
        _check_name(self.name)
        aol_dice(self.count, self.sides)
        if len(self.faces) != self.count:
            raise RuleError(
                f"{self.count} dice named but {len(self.faces)} faces shown: {self.faces!r}"
            )
        for face in self.faces:
            if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= self.sides:
                raise RuleError(f"face {face!r} does not fit a {self.sides}-sided die")
        if self.nonce is not None and (
            isinstance(self.nonce, bool) or not isinstance(self.nonce, int) or self.nonce < 0
        ):
            raise RuleError(f"a receipt's nonce is a whole number >= 0, got {self.nonce!r}")
        if self.stream is not None and (self.nonce is None or not _STREAM.fullmatch(self.stream)):
            raise RuleError(
                f"stream {self.stream!r} is no receipt's (a nonce and NAME or NAME:WHO)"
            )
        if self.signature is not None and (
            self.nonce is None or not _SIGNATURE.fullmatch(self.signature)
        ):
            raise RuleError(f"{self.signature!r} is no signature of a receipt ({_SIG_SHAPE})")

    def __str__(self) -> str:
        noun = "die" if self.count == 1 else "dice"
        faces = " ".join(str(f) for f in self.faces)
        line = f"OnlineHost: {self.name} rolled {self.count} {self.sides}-sided {noun}: {faces}"
        if self.nonce is None:
            return line
        return signed(f"{line}{receipt_text(self.name, self.nonce, self.stream)}", self.signature)


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not name or name != name.strip():
        raise RuleError(f"a screen name must be text without outer spaces, got {name!r}")
    if len(name) > MAX_NAME:
        raise LimitError(f"screen name {name[:20]!r}... is longer than {MAX_NAME} characters")
    if not name.isprintable() or "-sided" in name:
        raise RuleError(f"screen name {name!r} has a control character or '-sided' in it")


def format_host_line(name: str, sides: int, faces: Sequence[int]) -> str:
    """The line AOL's OnlineHost wrote for a roll.

    >>> format_host_line("Tarl", 100, [47])
    'OnlineHost: Tarl rolled 1 100-sided die: 47'
    """
    return str(HostLine(name, len(faces), sides, tuple(faces)))


def parse_host_line(text: str) -> HostLine:
    """Read an `OnlineHost:` line back, checking the count and every face against the dice;
    the service's own lines, with their receipt, read too.

    >>> parse_host_line("OnlineHost: Tarl rolled 2 20-sided dice: 14 17").faces
    (14, 17)
    >>> parse_host_line("OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 3)").nonce
    3
    """
    if not isinstance(text, str):
        raise NotationError(f"a host line must be text, got {text!r}")
    if len(text) > 1024:
        raise LimitError(f"host line {text[:40]!r}... is {len(text)} characters (at most 1024)")
    match = HOST_LINE.fullmatch(text.strip())
    if match is None:
        raise NotationError(f"{text!r} is not an OnlineHost roll line (expected {_SHAPE})")
    count = int(match["count"])
    if (match["noun"] == "die") != (count == 1):
        raise NotationError(
            f"{text!r} says {count} {match['noun']} (expected 'die' for 1, 'dice' for more)"
        )
    faces = tuple(int(f) for f in match["faces"].split())
    try:
        nonce = None if match["nonce"] is None else int(match["nonce"])
        return HostLine(
            match["name"],
            count,
            int(match["sides"]),
            faces,
            nonce,
            match["stream"],
            match["signature"],
        )
    except RuleError as err:
        raise RuleError(f"{err} in {text!r}") from None
