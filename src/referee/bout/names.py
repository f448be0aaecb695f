"""Names people see: fighters, sides, bouts. One rule for what a name may be.

A name is NFC-normalised, 1 to 40 characters, printable (no control characters, no bidi
overrides or isolates, no zero-width characters, no spaces other than the plain one, none at
either end) and shows something (not only combining marks or blank-looking letters). A
fighter's name may not pass for the referee or the chat host (`Referee`, `OnlineHost`,
`system`), nor for another fighter: not in any letter case or width, and not drawn with
look-alike letters (`skeleton`, UTS #39: a Cyrillic `Таrl` beside `Tarl`, `0nlineHost`). Nor
may it carry the word a host's roll line turns on (`-sided`), so that no line naming it can
pass for a roll and every roll line can name it: `Tarl rolled 1 100-sided die: 99` is refused.

>>> name("Cafe\\u0301", "fighter name")
'Café'
>>> name("Tarl\\u202e", "fighter name")
Traceback (most recent call last):
...
referee.errors.RuleError: fighter name 'Tarl\\u202e' has an invisible or control character (U+202E)
>>> same_name("TARL", "tarl"), same_name("\\uff34\\uff41\\uff52\\uff4c", "Tarl")
(True, True)
>>> skeleton("\\u041enIineHost") == skeleton("OnlineHost")  # Cyrillic O, capital I for l
True
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache
from importlib.resources import files

from referee.errors import ConflictError, RuleError

MAX_NAME = 40

#: Names a fighter may not take, compared by `key`: they would pass for the referee, the chat
#: host that says every roll, or the engine itself.
RESERVED = ("referee", "onlinehost", "system")
#: The word the chat host's roll line turns on (`OnlineHost: NAME rolled 1 100-sided die: 47`),
#: which a fighter's name may not carry (compared by `skeleton`; `referee.dice.chat` refuses a
#: screen name with it too).
HOST_WORD = "-sided"

#: Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern, ...).
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")


def key(text: str) -> str:
    """What two names are compared by: NFKC, case-folded (`TARL`, `tarl` and full-width match)."""
    return unicodedata.normalize("NFKC", text).casefold()


@cache
def _confusables() -> dict[int, str]:
    """Each character drawn like an ASCII one, to that ASCII character (`confusables.txt`)."""
    table: dict[int, str] = {}
    text = files("referee.bout").joinpath("confusables.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line and not line.startswith("#"):
            prototype, _, chars = line.partition("\t")
            table.update(dict.fromkeys(map(ord, chars), " " if prototype == "SPACE" else prototype))
    return table


def skeleton(text: str) -> str:
    """What a name looks like, for telling a look-alike: NFKC, each character drawn like an ASCII
    one replaced by it (UTS #39 confusables: Cyrillic `О`, `0` and `O` alike, `I`, `1` and `l`
    alike), accents dropped, case-folded. Equal skeletons look alike; equal `key`s are equal.

    >>> skeleton("0nl\\u0131ne\\u0397ost"), skeleton("Pa-K\\u00fcr")
    ('onlinehost', 'pa-kur')
    """
    mapped = unicodedata.normalize("NFKC", text).translate(_confusables())
    bare = "".join(c for c in unicodedata.normalize("NFD", mapped) if not unicodedata.combining(c))
    return bare.translate(_confusables()).casefold()


def same_name(a: str, b: str) -> bool:
    """Whether two names would be taken for one another."""
    return key(a) == key(b)


def name(text: object, what: str) -> str:
    """`text` as a name (NFC), or RuleError saying what is wrong with it."""
    if not isinstance(text, str):
        raise RuleError(f"{what} must be text, got {text!r}")
    value = unicodedata.normalize("NFC", text)
    if not 1 <= len(value) <= MAX_NAME:
        raise RuleError(f"{what} {text[:50]!r} must be 1 to {MAX_NAME} characters")
    for ch in value:
        if ch != " " and (not ch.isprintable() or ch in _BLANK):
            raise RuleError(
                f"{what} {text!r} has an invisible or control character (U+{ord(ch):04X})"
            )
    if value != value.strip():
        raise RuleError(f"{what} {text!r} has leading or trailing spaces")
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in value):
        raise RuleError(f"{what} {text!r} shows nothing visible")
    return value


def fighter_name(text: object, others: Iterable[str] = ()) -> str:
    """A new fighter's name: `name`, not reserved, not the host's roll-line word, and not
    another fighter's in any case, width or look-alike letters.

    >>> fighter_name("0nlineHost")
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: fighter name '0nlineHost' is reserved (it looks like OnlineHost)
    """
    value = name(text, "fighter name")
    shape = skeleton(value)
    if key(value) in RESERVED:
        raise RuleError(f"fighter name {value!r} is reserved")
    for reserved in RESERVED:
        if shape == skeleton(reserved):
            shown = {"onlinehost": "OnlineHost"}.get(reserved, reserved.capitalize())
            raise RuleError(f"fighter name {value!r} is reserved (it looks like {shown})")
    if HOST_WORD in shape:
        raise RuleError(
            f"fighter name {value!r} has {HOST_WORD!r} in it, the word of the host's roll lines"
        )
    for other in others:
        if same_name(value, other):
            raise ConflictError(f"there is already a fighter called {other!r}")
        if shape == skeleton(other):
            raise ConflictError(
                f"fighter name {value!r} looks like {other!r}, who is already fighting"
            )
    return value
