"""The store's bouts: made with their first seed, read, listed, and their status and client
seed changed.

>>> from referee.store import Store
>>> store = Store.open("sqlite://")
>>> store.create_bout(system="msv", name="Spar", bout_id="b1").status
'open'
>>> store.set_status("b1", "ended").status
'ended'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam, insert, select, update

from referee.errors import ConflictError, LimitError
from referee.ledger import ROLL, client_seed_part_of
from referee.rng import check_server_seed, commitment, new_server_seed
from referee.store.core import StoreCore
from referee.store.fields import check_id, check_text, check_time, new_bout_id, rules_text
from referee.store.raw import Statement
from referee.store.records import BoutRecord, Role, token_hash
from referee.store.rows import bout_record, bout_row, read_events, seed_row
from referee.store.schema import BOUTS, EVENTS, SEEDS
from referee.store.tokens import insert_token
from referee.store.units import forget_held, write_transaction

#: The most bouts one `list_bouts` gives.
MAX_LIST = 1_000

_SET_STATUS = Statement(
    update(BOUTS).where(BOUTS.c.id == bindparam("bout_id")).values(status=bindparam("status"))
)


class Bouts(StoreCore):
    """The bouts part of the `Store`."""

    __slots__ = ()

    def create_bout(
        self,
        *,
        system: str,
        name: str,
        rules: Mapping[str, Any] | None = None,
        server_seed: str | None = None,
        client_seed: str = "",
        referee_token: str | None = None,
        bout_id: str | None = None,
        status: str = "open",
        created_at: str | None = None,
    ) -> BoutRecord:
        """Store a new bout with its first server seed (drawn when not given)."""
        bout_id = new_bout_id() if bout_id is None else check_id(bout_id)
        seed = check_server_seed(new_server_seed() if server_seed is None else server_seed)
        row = {
            "id": bout_id,
            "system": check_text("system", system, 32),
            "name": check_text("name", name, 200, empty=True),
            "rules": rules_text(rules or {}),
            "status": check_text("status", status, 32),
            "created_at": check_time(created_at, self.clock),
            "commitment": commitment(seed),
            "client_seed": check_text("client seed", client_seed, 2000, empty=True),
            "referee_token_hash": None if referee_token is None else token_hash(referee_token),
            "seed_index": 0,
        }
        with self._guard(), write_transaction(self._engine) as conn:
            if conn.execute(select(BOUTS.c.id).where(BOUTS.c.id == bout_id)).first():
                raise ConflictError(f"a bout with id {bout_id!r} already exists")
            conn.execute(insert(BOUTS).values(row))
            conn.execute(insert(SEEDS).values(seed_row(bout_id, 0, seed, None)))
            if referee_token is not None:
                insert_token(conn, bout_id, referee_token, Role.REFEREE, None)
        return self.get_bout(bout_id)

    def get_bout(self, bout_id: str) -> BoutRecord:
        """The bout with this id, or NotFoundError."""
        with self._guard(), self._connect() as conn:
            return bout_record(bout_row(conn, bout_id))

    def list_bouts(self, status: str | None = None, limit: int = 100) -> list[BoutRecord]:
        """Bouts, newest first, optionally only those with `status`."""
        if not 1 <= limit <= MAX_LIST:
            raise LimitError(f"limit {limit!r} is out of range (expected 1..{MAX_LIST})")
        query = select(BOUTS).order_by(BOUTS.c.created_at.desc(), BOUTS.c.id).limit(limit)
        if status is not None:
            query = query.where(BOUTS.c.status == status)
        with self._guard(), self._connect() as conn:
            return [bout_record(row) for row in conn.execute(query)]

    def set_status(self, bout_id: str, status: str) -> BoutRecord:
        """Change the bout's status (open, running, paused, ended, ...)."""
        value = check_text("status", status, 32)
        forget_held(self._engine)  # the row changes: a lock kept for the next append is dropped
        with self._guard(), write_transaction(self._engine) as conn:
            row = bout_row(conn, bout_id, lock=True)
            _SET_STATUS.run(conn, {"bout_id": bout_id, "status": value})
        return dataclasses.replace(bout_record(row), status=value)

    def set_client_seed(self, bout_id: str, client_seed: str) -> BoutRecord:
        """Set the whole client seed; ConflictError once the bout has rolled (it is fixed then)."""
        value = check_text("client seed", client_seed, 2000, empty=True)
        forget_held(self._engine)
        with self._guard(), write_transaction(self._engine) as conn:
            bout_row(conn, bout_id, lock=True)
            first = read_events(conn, bout_id, -1)[:1]
            if first and client_seed_part_of(first) is not None:
                raise ConflictError(
                    f"bout {bout_id!r} carries its client seed in its chain: each part joins "
                    "with its fighter (it cannot be set whole)"
                )
            rolled = select(EVENTS.c.seq).where(EVENTS.c.bout_id == bout_id, EVENTS.c.type == ROLL)
            if conn.execute(rolled.limit(1)).first():
                raise ConflictError(f"bout {bout_id!r} has rolled: its client seed is fixed")
            conn.execute(update(BOUTS).where(BOUTS.c.id == bout_id).values(client_seed=value))
        return self.get_bout(bout_id)
