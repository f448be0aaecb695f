"""The records the store hands out: frozen, and never showing a secret in their repr."""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.ledger import SeedRecord


class Role(enum.Enum):
    """Who a token speaks for."""

    REFEREE = "referee"
    """The bout's referee (judge, proctor): may do everything, including overrides."""
    FIGHTER = "fighter"
    """One fighter: may act for that fighter only."""


@dataclass(frozen=True, slots=True)
class BoutRecord:
    """A bout as stored: its fields and its public fairness data (never the secret seed).

    `commitment` is seed 0's; `seed_index` is the seed rolls use now.
    """

    id: str
    system: str
    name: str
    rules: Mapping[str, Any]
    status: str
    created_at: str
    commitment: str
    client_seed: str
    seed_index: int

    def as_json(self) -> dict[str, Any]:
        """The bout's fields as an export's `bout` object (plus its fairness basics).

        >>> BoutRecord("b1", "msv", "Spar", {}, "open", "t", "c", "", 0).as_json()["system"]
        'msv'
        """
        return {
            "id": self.id,
            "system": self.system,
            "name": self.name,
            "rules": dict(self.rules),
            "created_at": self.created_at,
            "status": self.status,
        }


@dataclass(frozen=True, slots=True)
class ServerSeed:
    """One server seed with its secret (kept out of repr). Only the store and roller see it.

    >>> "s" * 64 in repr(ServerSeed(0, "c" * 64, "s" * 64, False, None))
    False
    """

    index: int
    commitment: str
    server_seed: str = field(repr=False)
    revealed: bool
    published_seq: int | None

    def published(self) -> SeedRecord:
        """The seed as an export shows it: the secret only once revealed.

        >>> ServerSeed(0, "c" * 64, "s" * 64, False, None).published().server_seed is None
        True
        """
        secret = self.server_seed if self.revealed else None
        return SeedRecord(self.index, self.commitment, secret, self.published_seq)


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """What a token grants: a role in one bout (and the fighter, for a fighter's token)."""

    bout_id: str
    role: Role
    fighter: str | None


def token_hash(token: str) -> str:
    """SHA-256 hex of a token's text: the only form in which tokens are stored.

    >>> token_hash("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
