"""AOL's chat dice as the host wrote them (MSV-1): how many dice of how many sides one roll
could throw, and the host's answer line as one pattern.

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
