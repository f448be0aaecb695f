"""What a dice bot says when it rolls: the roll shapes, as data, and reading one strictly.

Each `Shape` is one bot's wording, declared in a format file (`builtin_formats/rolls.toml`,
docs/judge.md's "Format files"): AOL's OnlineHost (MSV-1) with the service's receipt
`(nonce N)` or `(nonce N, STREAM)`, a Second Life combat meter (`Tarl rolled 42`, a d100),
Dice Maiden and Avrae (Discord), an IRC DiceBot (`Tarl rolls 1d100: [47] = 47`). `find_roll`
finds a shape anywhere in a message; `read_roll` checks it as its bot writes it, and says why
not when it is not. What a roll says is read from the strict pattern's named groups: `name`
and `faces` always, the dice from `expr` (`2d20+5`) or `count` and `sides` (with `noun`,
`die` or `dice`), else each face is a die of the shape's `sides`; a receipt from `nonce` and
`stream`.

>>> read_roll("Tarl rolled 1 100-sided die: 47 (nonce 4)")
HostRoll(name='Tarl', count=1, sides=100, faces=(47,), nonce=4, stream=None, modifier='')
>>> read_roll("Tarl rolled 1 100-sided dice: 47")
"'1 ... dice' where the host writes 'die' for one"
>>> read_roll("@Tarl Request: `[1d100]` Roll: `[47]` Result: `47`").faces
(47,)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee.transcripts.formats import builtin
from referee.transcripts.roll_shapes import HostRoll, Shape, read_shape

__all__ = ["HostRoll", "Shape", "find_roll", "read_roll"]


if TYPE_CHECKING:
    #: The built-in roll shapes, by bot, tried in this order (read when first asked for).
    SHAPES: tuple[Shape, ...]


def __getattr__(name: str) -> object:
    """`SHAPES`, read from the built-in format files when first asked for."""
    if name == "SHAPES":
        return _builtin_shapes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _builtin_shapes() -> tuple[Shape, ...]:
    return builtin().shapes


def find_roll(text: str, shapes: Sequence[Shape] | None = None) -> Shape | None:
    """The first shape (of `shapes`, or the built-in ones) whose wording is somewhere in
    `text`: one of its words, then its loose pattern (None: no roll is said).

    >>> find_roll("Bosk: OnlineHost: Tarl rolled 1 100-sided die: 60").name
    'onlinehost'
    >>> find_roll("did the OnlineHost: say I rolled well?") is None
    True
    """
    for shape in _builtin_shapes() if shapes is None else shapes:
        for word in shape.words:
            if word in text:
                if shape.loose.search(text):
                    return shape
                break
    return None


def read_roll(
    text: str, shape: Shape | None = None, shapes: Sequence[Shape] | None = None
) -> HostRoll | str:
    """The roll a bot's whole message says (in `shape`, else the first of `shapes`, or of the
    built-in ones, found in it), or why it is not one its bot wrote."""
    shape = shape or find_roll(text, shapes)
    if shape is None:
        return "no roll in it"
    return read_shape(text, shape)
