"""`Store`: bouts, seeds, tokens and the hash chain in SQLite or PostgreSQL.

Every write is one transaction. Appending is serialized per bout (SQLite: BEGIN
IMMEDIATE; PostgreSQL: SELECT ... FOR UPDATE on the bout row) and the (bout, seq) primary
key forbids a fork even if that failed; a writer that loses a race retries. The store links
the new events into the chain itself (`extend`), so they extend it by construction, and
every new roll must be a throw of the dice it handed out, at the bout's secret seed.

A `Store` is its parts, one module each: `bouts`, `seeds`, `tokens`, `events`, `receipts` and
`characters` and `keys`, over what they share (`core`); this module adds opening, closing and
units of work
(`referee.store.units`). SQLite's write transaction has one owner, `referee.store.writers`.

>>> from dataclasses import dataclass
>>> from referee.ledger import roll_payload, verify_ledger
>>> @dataclass(frozen=True)
... class Draft:
...     type: str
...     actor: str | None
...     payload: dict
>>> store = Store.open("sqlite://")
>>> bout = store.create_bout(system="msv", name="Spar", server_seed="00" * 32,
...                          client_seed="table", bout_id="b1", created_at="2026-11-29T22:40:12Z")
>>> [e["seq"] for e in store.extend("b1", lambda events, dice: [Draft("note", "ref", {})])]
[0]
>>> def attack(events, dice):
...     t = dice.throw((100,))
...     return [Draft("roll", "Tarl", roll_payload(t.nonce, t.dice, t.faces))]
>>> store.extend("b1", attack)[0]["payload"]["nonce"]
0
>>> _ = store.reveal_seed("b1")
>>> verify_ledger(store.export("b1")).ok
True
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError

from referee.errors import StorageError
from referee.store.bouts import Bouts
from referee.store.characters import Characters
from referee.store.clock import utc_now
from referee.store.core import HELD_EVENTS
from referee.store.counters import SharedCounters
from referee.store.engine import default_url, driver_reason, make_engine
from referee.store.events import MAX_EVENTS_PER_BOUT, MAX_NEW_EVENTS, Dice, DraftBuild, Events
from referee.store.keys import Keys
from referee.store.migrations import migrate
from referee.store.notify import Watcher, crosses_processes, flush, watch
from referee.store.receipts import Receipts
from referee.store.schema import SCHEMA_VERSION
from referee.store.seeds import Seeds
from referee.store.tokens import Tokens
from referee.store.units import Unit, ambient, write_transaction
from referee.store.writers import Begun, begin_now

__all__ = ["HELD_EVENTS", "MAX_EVENTS_PER_BOUT", "MAX_NEW_EVENTS", "Dice", "DraftBuild", "Store"]

#: What `Store.unit()` is inside a unit already: it joins it.
_JOINED: AbstractContextManager[None] = nullcontext()


class Store(Bouts, Seeds, Tokens, Events, Receipts, Characters, Keys):
    """Bouts and their ledgers in one database. Thread-safe; one per process is enough."""

    __slots__ = ()

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        create: bool = True,
        clock: Callable[[], str] = utc_now,
        held_events: int = HELD_EVENTS,
    ) -> Store:
        """Open (and migrate) the database at `url`: a path, sqlite:///..., postgresql://...

        `create=False` refuses to create a missing SQLite file (NotFoundError); `clock` stamps
        what is stored (the system's; a test may pass its own, see `Store.__init__`);
        `held_events`: the most events of all bouts kept in memory.
        """
        engine = make_engine(default_url() if url is None else url, create=create)
        migrate(engine)
        return cls(engine, clock, held_events)

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Call `watcher(bout_id)` after each commit that appends events to a bout, from any
        thread (on PostgreSQL also other processes' commits, via LISTEN/NOTIFY; `None` means
        "any bout may have changed"). Returns the function that stops watching."""
        return watch(self._engine, watcher)

    @property
    def notifies_across_processes(self) -> bool:
        """Whether other service processes' writes are notified (PostgreSQL), not polled for."""
        return crosses_processes(self._engine)

    def shared_counters(self) -> SharedCounters | None:
        """Rate counters every process on this database shares (PostgreSQL), else None."""
        return SharedCounters(self._engine) if crosses_processes(self._engine) else None

    def schema_version(self) -> int:
        """The database's schema version, read from it now (a health check): StorageError when
        the database cannot be reached or read, or holds another version than this code's."""
        try:
            with self._guard(), self._connect() as conn:
                found = conn.execute(text("SELECT max(version) FROM schema_version")).scalar()
        except DBAPIError as err:  # reached, but not usable (a table gone, say)
            raise StorageError(f"database {self.url!r} is unusable: {driver_reason(err)}") from None
        if found != SCHEMA_VERSION:
            raise StorageError(
                f"database {self.url!r} has schema version {found}; this referee reads "
                f"version {SCHEMA_VERSION}"
            )
        return SCHEMA_VERSION

    def close(self) -> None:
        """Send the live-update notifications still due (PostgreSQL) and close every pooled
        connection."""
        flush(self._engine)
        self._writer.close()
        self._engine.dispose()

    def unit(self) -> AbstractContextManager[None]:
        """One transaction around every read and write of this store in the block.

        An operation of several steps (open a bout with its first events, close it with the
        seed reveal, hand it over) is stored whole or not at all: an exception anywhere in the
        block, or a crash, leaves the database as it was. Nested units join the outer one.
        """
        if ambient(self._engine) is not None:
            return _JOINED
        return self._new_unit(None)

    def unit_now(self) -> AbstractContextManager[None] | None:
        """A `unit()` begun now on the calling thread, or None where it would have to wait.

        The service's event loop runs a write in it itself, rather than handing it to a worker
        thread, when it can start at once: on SQLite while no other writer holds or waits for
        the write lock and commits are quick (see `referee.store.writers.begin_now`). It is the
        same transaction as `unit()`'s: whole or nothing, answered only once committed.
        """
        if ambient(self._engine) is not None:
            return None
        with self._guard():
            begun = begin_now(self._engine, self._writer)
        return None if begun is None else self._new_unit(begun)

    def _new_unit(self, begun: Begun | None) -> AbstractContextManager[None]:
        transaction = write_transaction(self._engine) if begun is None else begun
        return Unit(self._engine, self._errors, transaction)

    def client_reads(self) -> AbstractContextManager[Connection]:
        """A connection to read a client package's own tables (the Discord bot's): the open
        unit's, so a read sees what the unit wrote, else a fresh one."""
        return self._connect()

    def client_writes(self) -> Connection:
        """The open unit's connection, for a client package's writes to its own tables: they
        are stored with the unit's other writes, or not at all. A client opens no transaction
        of its own: outside a `unit()` this is a StorageError."""
        held = ambient(self._engine)
        if held is None:
            raise StorageError("a client's tables are written inside a unit of work only")
        return held

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.url!r})"
