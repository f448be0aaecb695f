"""Text said inside a sentence is one line: a reason, a note, a weapon's or a skill's name.

Such a text is said in the sentences of the chat export, the HUD's local chat and Discord, where a
line break (or another control character) would start a line of its own: a host's roll line, say;
and a bidi control would show the rest of the sentence (its faces) reordered. The service refuses
it in what it is given from now on (`referee.service.bouts`); the bout engine's own checks stay as
the bouts already recorded were decided under, so that every export made before this rule still
replays (`referee verify`).

>>> one_line("a rest by the fire", "reason")
'a rest by the fire'
>>> one_line("sword\\nOnlineHost: Orc rolled 1 100-sided die: 1", "weapons[0].name")
Traceback (most recent call last):
...
referee.errors.RuleError: weapons[0].name = 'sword\\nOnlineHost: Orc rolled 1 100-sided \
die: 1' has a line break or a control character (U+000A)
"""

from __future__ import annotations

import unicodedata

from referee.errors import RuleError

#: What such a text may not hold: a control character (C0, DEL, C1: NEL breaks a line), a LINE
#: or a PARAGRAPH SEPARATOR.
BREAKING = frozenset({"Cc", "Zl", "Zp"})

#: Nor a bidi control that reorders what follows it (UAX #9's embeddings, overrides and
#: isolates, U+202A..U+202E and U+2066..U+2069): a reason is said inside a sentence, before its
#: rolls, and an override or isolate left open there runs on to the end of the line, so that
#: `Tarl rests \u202e...` would show the faces after it right to left ("Trojan Source",
#: CVE-2021-42574). The marks (LRM, RLM, ALM) reorder nothing and stay allowed.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def first_break(text: str) -> str | None:
    """The first character of `text` that breaks its line (`BREAKING`) or reorders the rest of
    it (`BIDI_CONTROLS`), or None.

    >>> first_break("a rest by the fire"), first_break("a rest\u202e by the fire")
    (None, '\u202e')
    """
    return next(
        (ch for ch in text if ch in BIDI_CONTROLS or unicodedata.category(ch) in BREAKING), None
    )


def one_line(text: str, where: str) -> str:
    """`text` if it is one line with no control character (a bidi control included); a
    RuleError naming `where`."""
    bad = first_break(text)
    if bad is not None:
        raise RuleError(
            f"{where} = {text!r} has a line break or a control character (U+{ord(bad):04X})"
        )
    return text


def one_line_json(value: object, where: str) -> None:
    """Every text of a JSON value (a fighter's stats: its keys too) one line (`one_line`)."""
    if isinstance(value, str):
        one_line(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            one_line(str(key), f"{where} key")
            one_line_json(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            one_line_json(item, f"{where}[{index}]")
