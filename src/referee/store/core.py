"""`StoreCore`: what every part of the `Store` shares: the engine, the events and seed
positions it keeps in memory, and the locked, retried append every write to a ledger is.

The parts (`bouts`, `seeds`, `tokens`, `events`, `receipts`) are mixins of this class, and
`referee.store.store.Store` is all of them.
"""

from __future__ import annotations

import secrets
import threading
import time
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from referee.caches import SizedCache
from referee.errors import ConflictError
from referee.ledger import Event, SeedPosition, advance
from referee.store.clock import utc_now
from referee.store.engine import StorageErrors, is_transient, safe_url
from referee.store.records import ServerSeed
from referee.store.rolls import rolls_of
from referee.store.rows import Row, bout_and_seed, bout_row, read_after, read_events
from referee.store.units import ambient, current, write_transaction
from referee.store.writers import WriterConnection

#: What runs inside the bout's write lock: (connection, bout row, its current seed or None,
#: the events so far) -> the events appended.
Work = Callable[[Connection, Row, "ServerSeed | None", list[Event]], list[Event]]

#: Attempts of an append that loses races to other writers, before ConflictError.
MAX_ATTEMPTS = 8
#: Bouts whose seed positions a store keeps in memory (the oldest is forgotten first).
KNOWN_BOUTS = 256
#: Events of all bouts a store keeps in memory (about 1.3 KB each; the least recently used
#: bout is forgotten first, and a bout bigger than this is read afresh when it is written).
HELD_EVENTS = 150_000


class StoreCore:
    """The engine of one database and what a store keeps in memory of its bouts."""

    __slots__ = (
        "__weakref__",
        "_engine",
        "_errors",
        "_known",
        "_known_lock",
        "_positions",
        "_writer",
        "clock",
        "held_events",
    )

    def __init__(
        self, engine: Engine, clock: Callable[[], str] = utc_now, held_events: int = HELD_EVENTS
    ) -> None:
        """`clock`: the time stamps of what is stored (RFC 3339 UTC, as `utc_time` writes
        them); the system's clock (`referee.store.clock.utc_now`: `utc_time()`'s text,
        cheaper) unless a test passes one of its own. `held_events`: the most events of all
        bouts kept in memory (`HELD_EVENTS`)."""
        self._engine = engine
        self.clock = clock
        self._errors = StorageErrors(engine)
        # The connection this store's writes on the event loop use (`unit_now`), kept; given
        # back to the pool when the store is closed, or garbage.
        self._writer = WriterConnection(engine)
        weakref.finalize(self, self._writer.close)
        # Events already read, per bout. Events are never changed once stored, so a cached
        # list is still a prefix of the ledger whenever its last event is still there with
        # the same hash; only the rows after it are read again.
        self._known: SizedCache[str, list[Event]] = SizedCache(held_events)
        self.held_events = held_events
        self._known_lock = threading.Lock()
        # Where each bout's next roll stands after how many of its events (and the hash of the
        # last of them), so a roll reads only the events since (`_position`).
        # With it, the nonce of each stream's last roll since the last rotation (`rolls_of`),
        # so that a stream's next nonce is a look-up, not a read back through the events.
        self._positions: dict[str, tuple[int, str, SeedPosition, dict[str, Any]]] = {}

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return safe_url(self._engine)

    @property
    def engine(self) -> Engine:
        """The database's engine, for a client package's own tables beside the store's
        (`referee.store.migrate_part` makes them); the store's own tables are this class's."""
        return self._engine

    def _guard(self) -> StorageErrors:
        return self._errors

    def _connect(self) -> AbstractContextManager[Connection]:
        held = ambient(self._engine)
        return nullcontext(held) if held is not None else self._engine.connect()

    def _all_events(self, conn: Connection, bout_id: str) -> list[Event]:
        """Every event of the bout, reading only those this store has not seen yet."""
        known = self._known.get(bout_id) or []
        events: list[Event] | None = None
        if known:
            # One query: the last known event again (is it still there, same hash?) and
            # every one after it.
            fresh = read_after(conn, bout_id, known[-1]["seq"], known[-1]["hash"])
            events = None if fresh is None else known + fresh
        if events is None:
            events = read_events(conn, bout_id, -1)
        self._remember(bout_id, events)
        return list(events)

    def _position(self, bout_id: str, current: list[Event]) -> tuple[SeedPosition, dict[str, Any]]:
        """`seed_position(current)` and `rolls_of({}, current)`, from where this store last
        saw the bout stand when those events are still the start of `current` (same count,
        same last hash)."""
        with self._known_lock:
            known = self._positions.get(bout_id)
        start, position, rolls = 0, SeedPosition(0, 0), {}
        if known is not None:
            count, last, at, then = known
            if 0 < count <= len(current) and current[count - 1]["hash"] == last:
                start, position, rolls = count, at, then
        new = current[start:]
        position, rolls = advance(position, new), rolls_of(rolls, new)
        if current:
            with self._known_lock:
                if len(self._positions) >= KNOWN_BOUTS and bout_id not in self._positions:
                    self._positions.pop(next(iter(self._positions)))
                self._positions[bout_id] = (len(current), current[-1]["hash"], position, rolls)
        return position, rolls

    def _remember(self, bout_id: str, events: list[Event]) -> None:
        """Keep `events` as the bout's ledger so far (it is checked against the database,
        by its last event's hash, before it is used again: an append that was rolled back
        afterwards, or another process's append, makes the next read read again)."""
        self._known.put(bout_id, events, len(events))

    def _locked_append(self, bout_id: str, work: Work, *, seeded: bool = False) -> list[Event]:
        """`work` in a write transaction that holds the bout's row lock (with its current seed
        when `seeded`); retried, with a back-off, when another writer got in the way."""
        if ambient(self._engine) is not None:
            # Inside a unit of work: no retry of a part of it (SQLite's BEGIN IMMEDIATE and
            # PostgreSQL's row lock already keep other writers of this bout out).
            try:
                with self._guard(), write_transaction(self._engine) as conn:
                    return self._locked_work(conn, bout_id, work, seeded)
            except IntegrityError:
                raise ConflictError(
                    f"bout {bout_id!r}: another writer got in the way; try again"
                ) from None
        for attempt in range(MAX_ATTEMPTS):
            try:
                with self._guard(), write_transaction(self._engine) as conn:
                    return self._locked_work(conn, bout_id, work, seeded)
            except (IntegrityError, OperationalError) as err:
                if isinstance(err, OperationalError) and not is_transient(err):
                    raise
                backoff(attempt)
        raise ConflictError(
            f"bout {bout_id!r}: could not append after {MAX_ATTEMPTS} attempts "
            "(other writers kept winning); try again"
        )

    def _locked_work(self, conn: Connection, bout_id: str, work: Work, seeded: bool) -> list[Event]:
        """`work` on the locked bout row (with its current seed when `seeded`)."""
        unit = current(self._engine)
        held = None
        if unit is not None:
            held, unit.held = unit.held, None  # used once: this append may change the row
        seed: ServerSeed | None = None
        events: list[Event] | None = None
        if held is not None and held.bout_id == bout_id:
            # Locked by this unit already (`lock_bout`), and unchanged since.
            bout, seed, events = held.row, (held.seed if seeded else None), held.events
        elif seeded:
            bout, seed = bout_and_seed(conn, bout_id)
        else:
            bout = bout_row(conn, bout_id, lock=True)
        if events is None:
            events = self._all_events(conn, bout_id)
        new = work(conn, bout, seed, events)
        if new:
            self._remember(bout_id, events + new)
        return new


def backoff(attempt: int) -> None:
    """Wait a little longer after each lost race, with jitter so writers do not collide again."""
    time.sleep(0.01 * (attempt + 1) + secrets.randbelow(10) / 1000)
