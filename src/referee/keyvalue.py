"""`key=value` words as people type them, read one way everywhere: chat lines, Discord
commands, SRP fighter specs on the command line and in the lab.

A value is a whole number (`referee.numerals.is_whole` with one optional sign, `+` or `-`;
more than `MAX_DIGITS` digits is refused), `true` or `false` in any letter case as a boolean,
or else the text as typed. Only those two words are booleans: `rear=no` is the text "no",
which an option that takes true or false refuses by name. A pair without `=`, without a key or
without a value is refused with one message (`PairError`).

>>> read_value("62"), read_value("-3"), read_value("True"), read_value("no")
(62, -3, True, 'no')
>>> read_pairs(["cs=70", "aimed=true", "defend=shield"])
{'cs': 70, 'aimed': True, 'defend': 'shield'}
>>> read_pairs(["cs70"])
Traceback (most recent call last):
...
referee.keyvalue.PairError: expected key=value, got 'cs70'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from referee.errors import LimitError, NotationError
from referee.numerals import is_whole

#: A value in `key=value`: a whole number, true/false, or words.
Value = int | bool | str

#: Most digits a typed whole number may have (chat, Discord and specs alike).
MAX_DIGITS = 6

#: The signs a number in a `key=value` word may start with.
SIGNS = "+-"
_BOOLEANS = {"true": True, "false": False}


class PairError(NotationError):
    """A word that is not `key=value` (no `=`, no key or no value), or a key given twice."""


def read_value(text: str) -> Value:
    """The value of a `key=value` word: a whole number, `true`/`false` (any letter case) as a
    boolean, anything else as the words typed; a number of more than `MAX_DIGITS` digits is a
    LimitError.

    >>> read_value("false"), read_value("Pa Kur"), read_value("007")
    (False, 'Pa Kur', 7)
    """
    if is_whole(text, signs=SIGNS):
        return read_whole(text)
    return _BOOLEANS.get(text.lower(), text)


def read_whole(word: str) -> int:
    """A word `is_whole(word, signs=SIGNS)` accepts, as a number; more than `MAX_DIGITS`
    digits is a LimitError.

    >>> read_whole("+3")
    3
    """
    digits = word.lstrip("+-")
    if len(digits) > MAX_DIGITS:
        raise LimitError(f"number {word[:12]!r}... has more than {MAX_DIGITS} digits")
    return int(word)


def split_pair(word: str) -> tuple[str, str] | None:
    """A word's key and its value as typed (maybe empty), or None when it has no `=` or no key.

    >>> split_pair("target=Pa"), split_pair("rear="), split_pair("=3"), split_pair("Kur")
    (('target', 'Pa'), ('rear', ''), None, None)
    """
    key, eq, value = word.partition("=")
    return (key, value) if eq and key else None


@dataclass(frozen=True, slots=True)
class Pair:
    """One `key=value` word read: its key as typed, its value, and the value's text as typed
    (for a field that is always text, such as a weapon's name)."""

    key: str
    value: Value
    text: str


def read_pair(word: str) -> Pair:
    """One `key=value` word; PairError when it is not one (no `=`, no key or no value).

    >>> read_pair("hits=12")
    Pair(key='hits', value=12, text='12')
    """
    found = split_pair(word)
    if found is None or not found[1]:
        raise PairError(f"expected key=value, got {word!r}")
    key, text = found
    return Pair(key, read_value(text), text)


def read_all(words: Iterable[str], *, fold: bool = False) -> dict[str, Pair]:
    """Every word as a `Pair`, by key (`fold`: keys in lower case); a key given twice is a
    PairError.

    >>> read_all(["Skill=15", "hits=12"], fold=True)["skill"].value
    15
    """
    out: dict[str, Pair] = {}
    for word in words:
        pair = read_pair(word)
        key = pair.key.lower() if fold else pair.key
        if key in out:
            raise PairError(f"{pair.key!r} given twice")
        out[key] = pair
    return out


def read_pairs(words: Iterable[str], *, fold: bool = False) -> dict[str, Value]:
    """Every word's value, by key (`read_all`)."""
    return {key: pair.value for key, pair in read_all(words, fold=fold).items()}
