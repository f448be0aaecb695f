"""The service's receipts checked from the text alone: none seen twice, none out of order.

Every roll the service makes has a receipt `(nonce N)`: nonces run from 0 in each dice
stream (a fighter's actions, that fighter's free rolls, the referee's; a receipt that is not
from the roller's action stream names its stream, `(nonce 3, free:Tarl)`), and start again
from 0 when the server seed is rotated (the service says so: `server seed 0 revealed, nonces
from 0`). So without the export a judge can still tell a receipt pasted twice (the same
roller's nonce again) or one out of order (a nonce lower than one already seen), and a
commitment announced twice (a seed used again): each is `forged`.

>>> from referee.transcripts.rolls import HostRoll
>>> book = ReceiptBook()
>>> book.check(HostRoll("Tarl", 1, 100, (64,), 5), 10) is None
True
>>> book.check(HostRoll("Pa-Kur", 1, 100, (12,), 5), 11) is None  # another fighter's stream
True
>>> book.check(HostRoll("Tarl", 1, 100, (64,), 5), 14)
"a receipt seen before: Tarl's nonce 5 is on line 10 (reused)"
>>> book.check(HostRoll("Tarl", 1, 100, (30,), 4), 15)
"out of order: Tarl's nonce 4 after nonce 5 on line 10 (reused)"
"""

from __future__ import annotations

import re

from referee.transcripts.authors import name_key
from referee.transcripts.rolls import HostRoll

#: What the service says when a server seed is revealed and nonces start again, and how it
#: names a commitment.
ROTATION_RE = re.compile(r"nonces from 0|server seed \d+ revealed|new table ledger", re.I)
COMMITMENT_RE = re.compile(r"\bcommitment:?\s+(?P<hex>[0-9a-f]{64})\b", re.I)


class ReceiptBook:
    """The receipts and commitments seen so far, per stream and per server seed."""

    def __init__(self) -> None:
        self.seed = 0
        self.seen: dict[tuple[int, str, int], int] = {}
        self.last: dict[tuple[int, str], tuple[int, int]] = {}
        self.commitments: dict[str, int] = {}
        self.current = ""

    def check(self, roll: HostRoll, line: int) -> str | None:
        """Why a receipt is reused (None: it is new and in order); an accepted one is kept."""
        if roll.nonce is None:
            return None
        stream = roll.stream or f"act:{name_key(roll.name)}"
        whose = f"{roll.name}'s" if roll.stream is None else f"{roll.name}'s {roll.stream}"
        first = self.seen.get((self.seed, stream, roll.nonce))
        if first is not None:
            return f"a receipt seen before: {whose} nonce {roll.nonce} is on line {first} (reused)"
        before = self.last.get((self.seed, stream))
        if before is not None and roll.nonce < before[0]:
            return (
                f"out of order: {whose} nonce {roll.nonce} after nonce {before[0]} on line "
                f"{before[1]} (reused)"
            )
        self.seen[(self.seed, stream, roll.nonce)] = line
        self.last[(self.seed, stream)] = (roll.nonce, line)
        return None

    def rotated(self) -> None:
        """The server seed was revealed: nonces start again from 0."""
        self.seed += 1

    def commitment(self, digest: str, line: int) -> str | None:
        """Why a commitment is one in force before another (None: new, or the one in force)."""
        digest = digest.lower()
        first = self.commitments.setdefault(digest, line)
        if first == line or digest == self.current:
            self.current = digest
            return None
        return (
            f"commitment {digest[:12]}... was in force before, from line {first}, and another "
            "since (a server seed used twice)"
        )
