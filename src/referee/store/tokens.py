"""The store's tokens: granted, replaced, revoked and looked up, kept only as SHA-256 hashes;
and the caller of a write read in the statement that locks its bout (`lock_bout`).

>>> from referee.store import Store
>>> store = Store.open("sqlite://")
>>> _ = store.create_bout(system="msv", name="Spar", bout_id="b1")
>>> store.add_token("b1", "fighter-token-0123456789", "fighter", "Tarl").fighter
'Tarl'
>>> store.lookup_token("fighter-token-0123456789").role
<Role.FIGHTER: 'fighter'>
"""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, delete, insert, select

from referee.errors import ConflictError, RuleError
from referee.ledger import Event
from referee.store.core import StoreCore
from referee.store.raw import Statement
from referee.store.records import Role, TokenRecord, token_hash
from referee.store.rows import Row, bout_row, bout_seed_token, event_of, events_after, seed_of
from referee.store.schema import TOKENS
from referee.store.units import Held, Unit, current, write_transaction

#: The shortest token the store grants.
MIN_TOKEN_LENGTH = 16

_TOKEN = Statement(select(TOKENS).where(TOKENS.c.token_hash == bindparam("digest")))


class Tokens(StoreCore):
    """The tokens part of the `Store`."""

    __slots__ = ()

    def add_token(
        self, bout_id: str, token: str, role: Role | str, fighter: str | None = None
    ) -> TokenRecord:
        """Grant `token` a role in the bout (stored only as its SHA-256)."""
        granted = role_named(role)
        with self._guard(), write_transaction(self._engine) as conn:
            bout_row(conn, bout_id)
            insert_token(conn, bout_id, token, granted, fighter)
        return TokenRecord(bout_id, granted, fighter)

    def replace_referee_token(self, bout_id: str, token: str) -> TokenRecord:
        """Hand the bout to another referee: `token` becomes its only referee token."""
        with self._guard(), write_transaction(self._engine) as conn:
            bout_row(conn, bout_id, lock=True)
            _delete_referee_tokens(conn, bout_id)
            insert_token(conn, bout_id, token, Role.REFEREE, None)
        return TokenRecord(bout_id, Role.REFEREE, None)

    def replace_fighter_token(self, bout_id: str, fighter: str, token: str) -> TokenRecord:
        """Reissue a fighter's link: `token` becomes its only token; the old ones stop working."""
        with self._guard(), write_transaction(self._engine) as conn:
            bout_row(conn, bout_id, lock=True)
            conn.execute(
                delete(TOKENS).where(
                    TOKENS.c.bout_id == bout_id,
                    TOKENS.c.role == Role.FIGHTER.value,
                    TOKENS.c.fighter == fighter,
                )
            )
            insert_token(conn, bout_id, token, Role.FIGHTER, fighter)
        return TokenRecord(bout_id, Role.FIGHTER, fighter)

    def revoke_referee_tokens(self, bout_id: str) -> int:
        """Revoke the bout's referee token (its evening went on to the next fight); how many
        were revoked (0: another write revoked it first)."""
        with self._guard(), write_transaction(self._engine) as conn:
            bout_row(conn, bout_id, lock=True)
            return _delete_referee_tokens(conn, bout_id)

    def revoke_fighter_tokens(self, bout_id: str, fighter: str) -> int:
        """Revoke every token of the fighter `fighter` (it quit or was removed); how many."""
        with self._guard(), write_transaction(self._engine) as conn:
            bout_row(conn, bout_id, lock=True)
            gone = conn.execute(
                delete(TOKENS).where(
                    TOKENS.c.bout_id == bout_id,
                    TOKENS.c.role == Role.FIGHTER.value,
                    TOKENS.c.fighter == fighter,
                )
            )
        return int(gone.rowcount or 0)

    def lookup_token(self, token: str) -> TokenRecord | None:
        """What the token grants, or None for an unknown token."""
        if not isinstance(token, str):
            return None
        with self._guard(), self._connect() as conn:
            row = _TOKEN.first(conn, {"digest": token_hash(token)})
        return None if row is None else TokenRecord(row.bout_id, role_of(row.role), row.fighter)

    def lock_bout(self, bout_id: str, token: str) -> TokenRecord | None:
        """`lookup_token(token)`, read in the statement that locks the bout (with its current
        seed) for a write of the open unit, whose next append to the bout then locks nothing
        again: one statement fewer per write. On PostgreSQL the transaction's BEGIN, that
        statement and the read of the bout's events since the last ones this store knows go
        in one round trip, and the append reads nothing more before it inserts.

        Outside a unit, or when the bout is not found, it is just `lookup_token` (so a bad
        token is answered 401 or 403 before anything else, as ever): the bout is not locked.
        """
        unit = current(self._engine)  # its connection: `write_transaction` would be it
        if not isinstance(token, str) or unit is None:
            return self.lookup_token(token)
        row = self._hold(unit, bout_id, token_hash(token))
        if row is None:
            return self.lookup_token(token)
        if row.token_role is None:
            return None
        return TokenRecord(row.token_bout, role_of(row.token_role), row.token_fighter)

    def hold_bout(self, bout_id: str) -> None:
        """Lock the bout for a write of the open unit, as `lock_bout` does, for a writer that
        holds no token (a bot that speaks for its members itself): whatever the unit reads of
        the bout from here on is what its next append extends, so a check made on that read
        (a Discord button's turn) still holds when the write is made. NotFoundError when
        there is no such bout; outside a unit there is nothing to hold the lock for, and
        nothing is done.
        """
        unit = current(self._engine)
        if unit is None:
            return
        if self._hold(unit, bout_id, "") is None:  # "": no token's hash, none is read
            with self._guard():  # (see `bout_and_seed`: asked again, or NotFoundError)
                bout_row(unit.connection, bout_id, lock=True)

    def _hold(self, unit: Unit, bout_id: str, digest: str) -> Row | None:
        """The bout's row with its current seed and what the token of SHA-256 `digest`
        grants, locked for the open unit's next append and kept on it with the bout's events
        (`Unit.held`); None when the bout was not found."""
        conn = unit.connection
        known = self._known.get(bout_id)
        after = known[-1]["seq"] - 1 if known else -1
        with self._guard():
            row, rows = bout_seed_token(conn, bout_id, digest, after)
            if row is None:
                return None
            events: list[Event] | None = None
            if known:
                fresh = events_after(rows, known[-1]["seq"], known[-1]["hash"])
                if fresh == []:  # nothing new: what this store remembers is the ledger still
                    events = list(known)
                elif fresh is not None:
                    events = known + fresh
                    self._remember(bout_id, events)
                    events = list(events)
            else:
                events = [event_of(r) for r in rows]
                self._remember(bout_id, events)
                events = list(events)
            unit.held = Held(bout_id, row, seed_of(row), events)
        return row


def insert_token(
    conn: Connection, bout_id: str, token: str, role: Role, fighter: str | None
) -> None:
    """Grant `token` (stored as its SHA-256) `role` in the bout, in `conn`'s transaction."""
    if not isinstance(token, str) or len(token) < MIN_TOKEN_LENGTH:
        raise RuleError(f"a token needs at least {MIN_TOKEN_LENGTH} characters")
    if (role is Role.FIGHTER) != (fighter is not None):
        raise RuleError(
            f"a {role.value} token {'needs' if role is Role.FIGHTER else 'has no'}"
            f" fighter name, got {fighter!r}"
        )
    digest = token_hash(token)
    if conn.execute(select(TOKENS.c.token_hash).where(TOKENS.c.token_hash == digest)).first():
        raise ConflictError("this token is already in use")
    row = {"token_hash": digest, "bout_id": bout_id, "role": role.value, "fighter": fighter}
    conn.execute(insert(TOKENS).values(row))


#: Each role by its stored value.
_ROLES = {role.value: role for role in Role}


def role_of(value: str) -> Role:
    """`Role(value)` for a stored role, by a dictionary look-up (an Enum call runs Python)."""
    found = _ROLES.get(value)
    return Role(value) if found is None else found


def role_named(role: Role | str) -> Role:
    """`role` as a Role, or RuleError for a name that is none."""
    try:
        return role if isinstance(role, Role) else Role(role)
    except ValueError:
        raise RuleError(f"role {role!r} is not one of referee, fighter") from None


def _delete_referee_tokens(conn: Connection, bout_id: str) -> int:
    """Delete the bout's referee tokens (a hand-over, the next fight); how many there were."""
    gone = conn.execute(
        delete(TOKENS).where(TOKENS.c.bout_id == bout_id, TOKENS.c.role == Role.REFEREE.value)
    )
    return int(gone.rowcount or 0)
