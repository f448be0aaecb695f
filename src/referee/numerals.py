"""Whole numbers as people type them: ASCII digits 0-9 only, and not too many of them.

Python's `str.isdigit` is true for `²` and `٦`, and `int()` reads `٦٥` as 65 but fails on
`²`; both took a number that looked like one thing as another, or crashed. Every reader of
typed numbers outside the dice grammar asks here instead, `key=value` words too
(`referee.keyvalue`, whose numbers may carry a `+` or a `-`).

One predicate, one answer: a sign is a digit only where the caller says which signs may lead
(`signs`); "-2" is whole with `signs="-"` or `signs="+-"`, and not without.

>>> is_whole("65"), is_whole("٦٥"), is_whole("²"), is_whole("-3"), is_whole("-3", signs="-")
(True, False, False, False, True)
"""

from __future__ import annotations

#: More digits than any number the project reads (a nonce has at most 12); longer is refused
#: before `int()`, which would otherwise spend time on, or refuse, thousands of digits.
MAX_DIGITS = 18


def is_whole(text: str, *, signs: str = "") -> bool:
    """True when `text` is 1..MAX_DIGITS ASCII digits, after at most one leading sign of
    `signs` ("": none; "-": a minus; "+-": a plus or a minus).

    >>> is_whole(""), is_whole("--3", signs="-"), is_whole("1" * 19), is_whole(" 7")
    (False, False, False, False)
    >>> is_whole("+3", signs="-"), is_whole("+3", signs="+-"), is_whole("+-3", signs="+-")
    (False, True, False)
    """
    body = text[1:] if signs and text[:1] and text[:1] in signs else text
    return 0 < len(body) <= MAX_DIGITS and body.isascii() and body.isdigit()
