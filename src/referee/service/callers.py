"""Who is asking: a bearer token as a `Caller` of one bout (the referee, one fighter, or
nobody), and fresh tokens.

>>> Caller(Role.FIGHTER, "Tarl").who, ANONYMOUS.role is None
('Tarl', True)
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from referee.bout.commands import Via
from referee.bout.engine import REFEREE
from referee.errors import AuthError, ForbiddenError
from referee.store import Role, TokenRecord


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is asking: the referee, one fighter, or nobody (no token)."""

    role: Role | None
    fighter: str | None = None
    #: The person and the proxy a client speaks for the fighter through (its own actions).
    via: Via | None = None

    @property
    def who(self) -> str:
        """ "referee" or the fighter's name, as the engine's `by`."""
        if self.role is Role.REFEREE:
            return REFEREE
        if self.fighter is None:
            raise AuthError("this needs a token (Authorization: Bearer TOKEN)")
        return self.fighter


ANONYMOUS = Caller(None)


def new_token() -> str:
    """A fresh bearer token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def caller_of(bout_id: str, record: TokenRecord | None) -> Caller:
    """The caller a token's record (None: an unknown token) stands for in the bout."""
    if record is None:
        raise AuthError("unknown token")
    if record.bout_id != bout_id:
        raise ForbiddenError("this token belongs to another bout")
    return Caller(record.role, record.fighter)
