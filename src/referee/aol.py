"""AOL's chat dice as the host wrote them (MSV-1): how many dice of how many sides one roll
could throw, and the host's answer line as one pattern; and the service's roll lines in that
shape (a receipt after the faces, a signature after the receipt), with its line of mixed dice
(SRP's d20, d20, d6): the text of every roll line, written and read here alone.

Written once, here, below the dice and the judge: the dice's reader of host lines
(`referee.dice.chat`) and the judge's reader of logs (`referee.transcripts.rolls`) both build
on it, and the judge loads it without the dice grammar.

>>> import re
>>> line = "OnlineHost: Tarl rolled 1 100-sided die: 47"
>>> found = re.fullmatch(HOST_PREFIX + r"Tarl " + HOST_ROLL, line)
>>> found["count"], found["sides"], found["faces"], 100 in AOL_SIDES
('1', '100', '47', True)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

AOL_DICE = range(1, 16)
"""How many dice one AOL roll could throw (MSV-1)."""
AOL_SIDES = range(2, 1000)
"""How many sides an AOL die could have (MSV-1)."""
SIGNATURE = r"sig:[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{86}"
"""The service's signature after a receipt, as every signed line carries it (docs/ledger.md,
"Signed roll lines"): `sig:`, the key id (8 hex digits), `.`, the bout's tag (16 base64url
characters), `.`, the Ed25519 signature (64 bytes, 86 base64url characters). Its meaning is
`referee.ledger.signatures`'; this is its text, the one pattern every reader finds it by (a
Discord bot may set it in code marks, `` `sig:...` ``, which are read too)."""
HOST_ROLL = (
    r"rolled[ \t]+(?P<count>\d{1,3})[ \t]+(?P<sides>\d{1,4})-sided[ \t]+(?P<noun>die|dice):"
    r"[ \t]*(?P<faces>\d{1,4}(?:[ \t]+\d{1,4})*)"
    r"(?:[ \t]+\(nonce[ \t]+(?P<nonce>\d{1,12})"
    r"(?:,[ \t]*(?P<stream>[a-z]+(?::[^()\n]{1,64})?))?\))?"
    rf"(?:[ \t]+`?(?P<signature>{SIGNATURE})`?)?"
)
"""The host line after the roller's name, as AOL wrote it (MSV-1), with the receipt the
service adds (` (nonce 4)`, ` (nonce 0, free:Tarl)`) and its signature (`SIGNATURE`): the one
pattern of it, which `referee.dice.chat.parse_host_line` and the judge's reader of logs
(`referee.transcripts.rolls`) both build on. ASCII digits only: the host wrote no others."""
HOST_PREFIX = r"OnlineHost:[ \t]+"
"""The host's name before a roll line, as AOL wrote it (MSV-1): `OnlineHost:` and a space
(`OnlineHost:Tarl rolled ...` is no host line); `parse_host_line` and the judge both read it."""


def receipt_text(roller: str, nonce: int | None, stream: str | None) -> str:
    """A roll's receipt as every line of the service's writes it: ` (nonce 4)`, with the
    stream when it is not the roller's own actions' (` (nonce 0, free:Tarl)`); '' for dice
    the service did not throw.

    >>> receipt_text("Tarl", 4, "act:Tarl"), receipt_text("Tarl", 0, "free:Tarl")
    (' (nonce 4)', ' (nonce 0, free:Tarl)')
    """
    if nonce is None:
        return ""
    named = f", {stream}" if stream and stream != f"act:{roller}" else ""
    return f" (nonce {nonce}{named})"


def receipt_stream(roller: str, stream: str | None) -> str:
    """The stream a receipt stands for: the one it names, else the roller's actions'.

    >>> receipt_stream("Tarl", None), receipt_stream("Tarl", "free:Tarl")
    ('act:Tarl', 'free:Tarl')
    """
    return stream or f"act:{roller}"


def signed(line: str, signature: str | None) -> str:
    """A roll line with its signature after it (the line itself when there is none): the one
    way a signed line is written.

    >>> signed("OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 3)", None)
    'OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 3)'
    """
    return line if not signature else f"{line} {signature}"


MIXED_LINE = re.compile(
    r"(?P<name>\S.{0,63}?)[ \t]+rolls[ \t]+(?P<dice>d\d{1,4}(?:[ \t]+d\d{1,4})+):"
    r"[ \t]*(?P<faces>\d{1,4}(?:[ \t]+\d{1,4})*)"
    r"[ \t]+\(nonce[ \t]+(?P<nonce>\d{1,12})(?:,[ \t]*(?P<stream>[a-z]+(?::[^()\n]{1,64})?))?\)"
    rf"(?:[ \t]+`?(?P<signature>{SIGNATURE})`?)?[ \t]*",
    re.ASCII,
)
"""A roll of mixed dice as the service says it (SRP's attack, defense and damage:
`Ann rolls d20 d20 d6: 14 3 5 (nonce 0)`), with its receipt and its signature; `mixed_line`
writes it."""


def mixed_line(
    roller: str,
    dice: Sequence[str],
    faces: Sequence[int],
    nonce: int | None,
    stream: str | None,
    signature: str | None = None,
) -> str:
    """The line of a roll of mixed dice (`MIXED_LINE`).

    >>> mixed_line("Ann", ["d20", "d20", "d6"], [14, 3, 5], 0, "act:Ann")
    'Ann rolls d20 d20 d6: 14 3 5 (nonce 0)'
    """
    said = " ".join(str(f) for f in faces)
    line = f"{roller} rolls {' '.join(dice)}: {said}{receipt_text(roller, nonce, stream)}"
    return signed(line, signature if nonce is not None else None)
