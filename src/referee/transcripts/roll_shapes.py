"""A dice bot's roll shape (`Shape`, declared in a format file) and what a roll line of it
says (`HostRoll`), read strictly by `read_shape`: the pattern's named groups `name` and
`faces` always, the dice from `expr` (`2d20+5`) or `count` and `sides` (with `noun`, `die`
or `dice`), else each face a die of the shape's `sides`; a receipt from `nonce` and `stream`,
and with `count`, the service's `signature` after it.
`referee.transcripts.rolls` finds a shape in a message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from referee.aol import AOL_DICE, AOL_SIDES
from referee.numerals import is_whole


@dataclass(frozen=True, slots=True)
class HostRoll:
    """What a roll line says: who rolled how many dice of how many sides, the faces, the
    service's receipt (nonce, and its stream when it names one), any modifier (`+5`), the
    service's signature after the receipt (`referee.aol.SIGNATURE`)."""

    name: str
    count: int
    sides: int
    faces: tuple[int, ...]
    nonce: int | None = None
    stream: str | None = None
    modifier: str = ""
    signature: str | None = field(default=None, repr=False)  # compared, not shown

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
    wording as the bot writes it, the whole message (`strict`); `words` are words every such
    message has (a quick test before the patterns); `sides` the sides of each face when the
    message does not say its dice; `aol` that the dice are AOL's (MSV-1: 1 to 15 dice of 2 to
    999 sides)."""

    name: str
    title: str
    example: str
    loose: re.Pattern[str]
    strict: re.Pattern[str]
    words: tuple[str, ...]
    sides: int = 100
    aol: bool = False

    def __repr__(self) -> str:
        return f"Shape({self.name!r})"


_EXPR = re.compile(r"(?P<count>\d{0,3})d(?P<sides>\d{1,4})(?P<modifier>.*)", re.ASCII)
_DIGITS = re.compile(r"\d+")


def read_shape(text: str, shape: Shape) -> HostRoll | str:
    """The roll a bot's whole message in `shape` says, or why it is not one its bot wrote."""
    match = shape.strict.fullmatch(text.strip())
    if match is None:
        return f"not in the shape {shape.example.splitlines()[0]!r} ({shape.title})"
    said = match.groupdict()
    if said.get("name") is None or said.get("faces") is None:  # a format file's optional group
        return f"no {'roller' if said.get('name') is None else 'faces'} in it ({shape.title})"
    # a format file's group may take more than digits (`(?P<total>\S+)`): not a number its
    # bot wrote, so no roll (`int` would fail on it)
    for group, signs in (("count", ""), ("sides", ""), ("nonce", ""), ("total", "-")):
        value = said.get(group)
        if value is not None and not is_whole(value.strip(), signs=signs):
            return f"its {group} {value.strip()!r} is not a whole number ({shape.title})"
    digits = _DIGITS.findall(match["faces"])
    if not all(is_whole(d) for d in digits):
        return f"its faces {match['faces'].strip()!r} are not whole numbers ({shape.title})"
    name = match["name"].strip()
    faces = tuple(map(int, digits))
    if said.get("count") is not None:
        return _counted(shape, match, name, faces)
    nonce = _nonce(said)
    if said.get("expr") is None:  # the faces alone (Dice Maiden's simple output, a meter)
        checked = _faces(faces, len(faces), shape.sides) or _total(said, faces)
        return checked or HostRoll(name, len(faces), shape.sides, faces, *nonce)
    expr = _EXPR.fullmatch(match["expr"].strip().lower())
    if expr is None:
        return f"dice {match['expr']!r} are not NdM"
    count, sides = int(expr["count"] or 1), int(expr["sides"])
    if not 1 <= count <= 100 or sides < 2:
        return f"{count} dice of {sides} sides"
    checked = _faces(faces, count, sides) or _total(said, faces, expr["modifier"])
    if checked:
        return checked
    return HostRoll(name, count, sides, faces, *nonce, modifier=expr["modifier"].strip())


def _counted(
    shape: Shape, match: re.Match[str], name: str, faces: tuple[int, ...]
) -> HostRoll | str:
    """A roll that says how many dice of how many sides (AOL's `1 100-sided die`)."""
    if match["sides"] is None:  # a format file's optional group
        return f"a count of dice with no sides ({shape.title})"
    count, sides, noun = int(match["count"]), int(match["sides"]), match.groupdict().get("noun")
    if noun is not None and (noun == "die") != (count == 1):
        return f"'{count} ... {noun}' where the host writes 'die' for one"
    if shape.aol and (count not in AOL_DICE or sides not in AOL_SIDES):
        return f"{count} dice of {sides} sides, which AOL never rolled (MSV-1)"
    checked = _faces(faces, count, sides)
    if checked:
        return checked
    said = match.groupdict()
    nonce, stream = _nonce(said)
    signature = said.get("signature")
    if signature is not None and nonce is None:
        return "a signature with no receipt (nonce) before it"
    return HostRoll(name, count, sides, faces, nonce, stream, "", signature)


def _nonce(said: dict[str, str | None]) -> tuple[int | None, str | None]:
    """The service's receipt a roll line carries: its nonce and stream, when it has them."""
    nonce = said.get("nonce")
    return (None if nonce is None else int(nonce)), said.get("stream")


_PLAIN_MODIFIER = re.compile(r"[+-]\d{1,6}", re.ASCII)


def _total(said: dict[str, str | None], faces: tuple[int, ...], modifier: str = "") -> str | None:
    """Why a roll's total (the group `total`: `Result: 47`, `= 47`) is not the one its bot
    writes, the faces' sum with a plain modifier (`+5`); None when it is, or when the line
    says none or the modifier is the bot's own notation (`k3`), which is not worked out."""
    total, plain = said.get("total"), "".join(modifier.split())
    if total is None or (plain and not _PLAIN_MODIFIER.fullmatch(plain)):
        return None
    want = sum(faces) + (int(plain) if plain else 0)
    return None if int(total) == want else f"its total {int(total)} is not {want}, its faces' sum"


def _faces(faces: tuple[int, ...], count: int, sides: int) -> str | None:
    if len(faces) != count:
        return f"{count} dice but {len(faces)} faces"
    bad = next((f for f in faces if not 1 <= f <= sides), None)
    return None if bad is None else f"face {bad} on a {sides}-sided die"
