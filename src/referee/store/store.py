"""`Store`: bouts, seeds, tokens and the hash chain in SQLite or PostgreSQL.

Every write is one transaction. Appending is serialized per bout (SQLite: BEGIN
IMMEDIATE; PostgreSQL: SELECT ... FOR UPDATE on the bout row) and the (bout, seq) primary
key forbids a fork even if that failed; a writer that loses a race retries. Before
anything is written the store checks that the new events extend the chain and that every
new roll verifies against the bout's secret seed, so a broken chain is never stored; with
`extend` it links the new events into the chain itself, so they extend it by construction.

>>> from referee.ledger import chain, verify_ledger
>>> store = Store.open("sqlite://")
>>> bout = store.create_bout(system="msv", name="Spar", server_seed="00" * 32,
...                          client_seed="table", bout_id="b1", created_at="2026-11-29T22:40:12Z")
>>> def note(last, events):
...     return [chain(last, "note", "ref", {"text": "begin"}, "2026-11-29T22:40:13.000000Z")]
>>> [e["seq"] for e in store.append("b1", note)]
[0]
>>> def attack(last, events, rng):
...     t = rng.throw((100,))
...     return [chain(last, "roll", "Tarl", {"nonce": t.nonce, "dice": list(t.dice),
...                   "faces": list(t.faces)}, "2026-11-29T22:40:14.000000Z")]
>>> store.append_with_rng("b1", attack)[0]["payload"]["nonce"]
0
>>> _ = store.reveal_seed("b1")
>>> verify_ledger(store.export("b1")).ok
True
"""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, delete, insert, select, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from referee.caches import SizedCache
from referee.errors import ConflictError, LimitError, RuleError, StorageError
from referee.ledger import (
    ROLL,
    SEED_ROTATED,
    Event,
    SeedPosition,
    advance,
    build_export,
    chain,
    check_roll,
    client_seed_part_of,
    dice_scheme,
    is_utc_time,
    link,
    rotation_payload,
    seed_position,
    stream_nonce,
    verify_chain,
)
from referee.ledger.seal import Draft, SealedDraft, chained, link_sealed, opening
from referee.payloads import Given
from referee.payloads.events import ClientSeedFixed, Roll
from referee.rng import (
    Throw,
    VerifiableRng,
    VerifiableStreams,
    check_server_seed,
    commitment,
    new_server_seed,
)
from referee.rng.streams import STREAMS
from referee.store.clock import utc_now
from referee.store.counters import SharedCounters
from referee.store.engine import (
    StorageErrors,
    ambient,
    default_url,
    driver_reason,
    is_postgres,
    is_transient,
    make_engine,
    migrate,
    safe_url,
    unit_of_work,
    write_transaction,
)
from referee.store.notify import Watcher, crosses_processes, flush, watch
from referee.store.raw import Statement
from referee.store.records import BoutRecord, Role, ServerSeed, TokenRecord, token_hash
from referee.store.rows import (
    Row,
    bout_and_seed,
    bout_record,
    bout_row,
    bout_seed_token,
    event_of,
    events_after,
    insert_events,
    read_after,
    read_events,
    seed_of,
    seed_records,
    seed_row,
)
from referee.store.schema import BOUTS, EVENTS, RECEIPTS, SCHEMA_VERSION, SEEDS, TOKENS
from referee.store.writers import Begun, WriterConnection, begin_now
from referee.vocabulary import EventType

#: build(last event or None, all events so far) -> the new events. May run more than once.
Build = Callable[[Event | None, list[Event]], Sequence[Event]]
#: Like Build, plus a verifiable rng at the bout's current seed and next nonce.
RngBuild = Callable[[Event | None, list[Event], VerifiableRng], Sequence[Event]]


#: The dice `Store.extend` hands its build: one verifiable sequence (a bout of dice scheme 1)
#: or a stream per owner (scheme 2), at the bout's current seed; None when nothing may roll.
Dice = VerifiableRng | VerifiableStreams
#: draft(all events so far, the bout's dice or None without dice) -> the new events,
#: unlinked. May run more than once.
DraftBuild = Callable[[list[Event], "Dice | None"], Sequence[Draft]]
#: What runs inside the bout's write lock: (connection, bout row, its current seed or None,
#: the events so far) -> the events appended.
_Work = Callable[[Connection, Row, "ServerSeed | None", list[Event]], list[Event]]

#: Stated bounds.
MAX_EVENTS_PER_BOUT = 100_000
#: The most events one append may add: more than any command writes (a free roll of the most
#: dice the notation allows, 1,000 throws, with its action, its failure and the client seed's
#: fixing), so that no roll is refused by this bound once its dice are thrown.
MAX_NEW_EVENTS = 1_100
MAX_ATTEMPTS = 8
#: Bouts whose seed positions a store keeps in memory (the oldest is forgotten first).
KNOWN_BOUTS = 256
#: Events of all bouts a store keeps in memory (about 1.3 KB each; the least recently used
#: bout is forgotten first, and a bout bigger than this is read afresh when it is written).
HELD_EVENTS = 150_000
MAX_LIST = 1_000
MIN_TOKEN_LENGTH = 16

#: What `Store.unit()` is inside a unit already: it joins it.
_JOINED: AbstractContextManager[None] = nullcontext()

_TOKEN = Statement(select(TOKENS).where(TOKENS.c.token_hash == bindparam("digest")))
_SET_STATUS = Statement(
    update(BOUTS).where(BOUTS.c.id == bindparam("bout_id")).values(status=bindparam("status"))
)

_BOUT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True, slots=True)
class _Held:
    """A bout locked by the open unit (`Store.lock_bout`) for its next append: the locked
    row, with its current seed, on the unit's connection; and the bout's events, read once
    the lock was held (None: to be read)."""

    connection: Connection
    bout_id: str
    row: Row
    seed: ServerSeed
    events: list[Event] | None


#: The bout the open unit has locked and not yet appended to (one unit per context: a unit is
#: entered and left in one thread or task).
_HELD: ContextVar[_Held | None] = ContextVar("referee_held_bout", default=None)


class _Unit:
    """`Store.unit()`'s unit of work (`transaction`), its errors turned into StorageError
    (`errors`); a bout locked in it (`_HELD`) is forgotten with it.

    Written out as the nested `with errors, transaction:` it stands for (a class rather than
    a generator: every write of the service is one): `errors` sees whatever leaves
    `transaction`, its entering and its end (the commit) included. (Entering a
    `StorageErrors` does nothing, so it is not entered.)
    """

    __slots__ = ("errors", "held", "transaction")

    def __init__(self, errors: StorageErrors, transaction: AbstractContextManager[Any]) -> None:
        self.errors = errors
        self.transaction = transaction

    def __enter__(self) -> None:
        try:
            self.transaction.__enter__()
        except BaseException as err:
            self.errors.__exit__(type(err), err, err.__traceback__)
            raise
        self.held = _HELD.set(None)  # a lock taken in this unit is forgotten with it

    def __exit__(self, kind: Any, err: BaseException | None, trace: Any) -> bool:
        _HELD.reset(self.held)
        try:
            suppressed = self.transaction.__exit__(kind, err, trace)
        except BaseException as raised:
            self.errors.__exit__(type(raised), raised, raised.__traceback__)
            raise
        if suppressed:
            kind = err = trace = None
        self.errors.__exit__(kind, err, trace)
        return bool(suppressed)


class Store:
    """Bouts and their ledgers in one database. Thread-safe; one per process is enough."""

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
        # With it, the nonce of each stream's last roll since the last rotation (`_rolls_of`),
        # so that a stream's next nonce is a look-up, not a read back through the events.
        self._positions: dict[str, tuple[int, str, SeedPosition, dict[str, Any]]] = {}

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
        """`seed_position(current)` and `_rolls_of(current)`, from where this store last saw
        the bout stand when those events are still the start of `current` (same count, same
        last hash)."""
        with self._known_lock:
            known = self._positions.get(bout_id)
        start, position, rolls = 0, SeedPosition(0, 0), {}
        if known is not None:
            count, last, at, then = known
            if 0 < count <= len(current) and current[count - 1]["hash"] == last:
                start, position, rolls = count, at, then
        new = current[start:]
        position, rolls = advance(position, new), _rolls_of(rolls, new)
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

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return safe_url(self._engine)

    @property
    def engine(self) -> Engine:
        """The database's engine, for a client package's own tables beside the store's
        (`referee.store.migrate_part` makes them); the store's own tables are this class's."""
        return self._engine

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
        the write lock and commits are quick (see `referee.store.engine.begin_now`). It is the
        same transaction as `unit()`'s: whole or nothing, answered only once committed.
        """
        if ambient(self._engine) is not None:
            return None
        with self._guard():
            begun = begin_now(self._engine, self._writer)
        return None if begun is None else self._new_unit(begun)

    def _new_unit(self, begun: Begun | None) -> AbstractContextManager[None]:
        return _Unit(self._errors, unit_of_work(self._engine, begun))

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

    def _connect(self) -> AbstractContextManager[Connection]:
        held = ambient(self._engine)
        return nullcontext(held) if held is not None else self._engine.connect()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    # -- bouts ---------------------------------------------------------------------------

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
        bout_id = new_bout_id() if bout_id is None else _check_id(bout_id)
        seed = check_server_seed(new_server_seed() if server_seed is None else server_seed)
        row = {
            "id": bout_id,
            "system": _check_text("system", system, 32),
            "name": _check_text("name", name, 200, empty=True),
            "rules": _rules_text(rules or {}),
            "status": _check_text("status", status, 32),
            "created_at": _check_time(created_at, self.clock),
            "commitment": commitment(seed),
            "client_seed": _check_text("client seed", client_seed, 2000, empty=True),
            "referee_token_hash": None if referee_token is None else token_hash(referee_token),
            "seed_index": 0,
        }
        with self._guard(), write_transaction(self._engine) as conn:
            if conn.execute(select(BOUTS.c.id).where(BOUTS.c.id == bout_id)).first():
                raise ConflictError(f"a bout with id {bout_id!r} already exists")
            conn.execute(insert(BOUTS).values(row))
            conn.execute(insert(SEEDS).values(seed_row(bout_id, 0, seed, None)))
            if referee_token is not None:
                self._insert_token(conn, bout_id, referee_token, Role.REFEREE, None)
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
        value = _check_text("status", status, 32)
        _HELD.set(None)  # the bout's row changes: a lock kept for the next append is not reused
        with self._guard(), write_transaction(self._engine) as conn:
            row = bout_row(conn, bout_id, lock=True)
            _SET_STATUS.run(conn, {"bout_id": bout_id, "status": value})
        return dataclasses.replace(bout_record(row), status=value)

    def set_client_seed(self, bout_id: str, client_seed: str) -> BoutRecord:
        """Set the whole client seed; ConflictError once the bout has rolled (it is fixed then)."""
        value = _check_text("client seed", client_seed, 2000, empty=True)
        _HELD.set(None)
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

    # -- seeds ---------------------------------------------------------------------------

    def seeds(self, bout_id: str) -> list[ServerSeed]:
        """Every server seed of the bout, first to current (secrets inside: do not log)."""
        with self._guard(), self._connect() as conn:
            bout_row(conn, bout_id)
            return seed_records(conn, bout_id)

    def current_seed(self, bout_id: str) -> ServerSeed:
        """The seed rolls use now."""
        return self.seeds(bout_id)[-1]

    def reveal_seed(self, bout_id: str) -> ServerSeed:
        """Reveal the current seed (at the bout's end): no more rolls until it is rotated."""
        _HELD.set(None)
        with self._guard(), write_transaction(self._engine) as conn:
            bout = bout_row(conn, bout_id, lock=True)
            conn.execute(
                update(SEEDS)
                .where(SEEDS.c.bout_id == bout_id, SEEDS.c.idx == bout.seed_index)
                .values(revealed=1)
            )
            return seed_records(conn, bout_id)[-1]

    def rotate_seed(
        self,
        bout_id: str,
        *,
        actor: str | None,
        at: str | None = None,
        new_seed: str | None = None,
    ) -> Event:
        """Append a `seed_rotated` event revealing the current seed; later rolls use a new one."""
        fresh = check_server_seed(new_server_seed() if new_seed is None else new_seed)

        def work(
            conn: Connection, bout: Row, old: ServerSeed | None, current: list[Event]
        ) -> list[Event]:
            assert old is not None  # a seeded append
            index = old.index + 1
            payload = rotation_payload(index, old.server_seed, commitment(fresh))
            last = current[-1] if current else None
            event = chain(last, SEED_ROTATED, actor, payload, at or self.clock())
            insert_events(conn, bout_id, [event])
            conn.execute(
                update(SEEDS)
                .where(SEEDS.c.bout_id == bout_id, SEEDS.c.idx == old.index)
                .values(revealed=1)
            )
            conn.execute(insert(SEEDS).values(seed_row(bout_id, index, fresh, event["seq"])))
            conn.execute(update(BOUTS).where(BOUTS.c.id == bout_id).values(seed_index=index))
            return [event]

        return self._locked_append(bout_id, work, seeded=True)[0]

    # -- events --------------------------------------------------------------------------

    def events(self, bout_id: str, after_seq: int = -1) -> list[Event]:
        """The bout's events with seq > after_seq, in order."""
        with self._guard(), self._connect() as conn:
            bout_row(conn, bout_id)
            if after_seq < 0:
                return self._all_events(conn, bout_id)
            return read_events(conn, bout_id, after_seq)

    def append(
        self,
        bout_id: str,
        build: Build,
        *,
        client_seed_part: str | None = None,
        grant: tuple[str, Role, str | None] | None = None,
    ) -> list[Event]:
        """Append the events `build(last, events)` returns, atomically; retried on a race.

        `build` runs inside the bout's write lock and may run more than once (after a
        lost race), so it must only compute from its arguments. In the same transaction,
        `client_seed_part` is added to the client seed (`:` and the part; refused once the
        bout has rolled) and `grant` = (token, role, fighter) gives a token its role, so a
        fighter joining is stored whole or not at all.
        """

        def work(
            conn: Connection, bout: Row, _seed: ServerSeed | None, current: list[Event]
        ) -> list[Event]:
            last = current[-1] if current else None
            new = self._add(conn, bout, current, list(build(last, current)))
            self._join(conn, bout, current, client_seed_part, grant)
            return new

        return self._locked_append(bout_id, work)

    def append_with_rng(self, bout_id: str, build: RngBuild) -> list[Event]:
        """Like `append`, and `build` gets a VerifiableRng at the current seed and next nonce."""

        def work(
            conn: Connection, bout: Row, seed: ServerSeed | None, current: list[Event]
        ) -> list[Event]:
            assert seed is not None  # a seeded append
            # A revealed seed is refused by `_check_rolls` once `build` has rolled with it, so
            # that `build` may first say why nothing is rolled (the bout is closed, say).
            rng = VerifiableRng(seed.server_seed, bout.client_seed, seed_position(current).nonce)
            last = current[-1] if current else None
            return self._add(conn, bout, current, list(build(last, current, rng)), seed)

        return self._locked_append(bout_id, work, seeded=True)

    def extend(
        self,
        bout_id: str,
        build: DraftBuild,
        *,
        dice: bool = True,
        at: str | None = None,
        client_seed_part: str | None = None,
        grant: tuple[str, Role, str | None] | None = None,
    ) -> list[Event]:
        """Link the events `build(events, rng)` drafts into the chain and append them,
        atomically; retried on a race. The stored events come back.

        The store gives each event its `seq`, `prev` and `hash` (all at `at`, default now)
        inside the bout's write lock, so what it appends extends the chain by construction and
        nothing is checked twice. `build` gets the bout's dice at its current seed (None when
        `dice` is False: nothing may roll): a VerifiableRng at the next nonce in a bout of
        dice scheme 1, a VerifiableStreams whose every stream stands at its next nonce in
        scheme 2 (the bout's first event says which). Each roll event must be one of their
        throws (stream, nonce, dice and faces), else it is refused like any roll that would not
        verify. `build` may run more than once, so it must only compute from its arguments.
        `client_seed_part` and `grant` are as in `append`.
        """

        def work(
            conn: Connection, bout: Row, seed: ServerSeed | None, current: list[Event]
        ) -> list[Event]:
            rng: _Thrown | _ThrownStreams | None = None
            if seed is not None:
                rng = _dice_of(seed, bout.client_seed, current, *self._position(bout.id, current))
            drafts = build(current, rng)
            self._check_size(bout.id, current, len(drafts))
            when = _check_time(at, self.clock)
            last = current[-1] if current else None
            new: list[Event] = []
            texts: list[str] = []
            for draft in drafts:
                if type(draft) is SealedDraft:
                    last, text = link_sealed(last, draft, when)
                else:
                    if draft.type == _SEED_FIXED:
                        _check_fixed(bout, draft.payload)
                    last, text = link(last, draft.type, draft.actor, draft.payload, when)
                new.append(last)
                texts.append(text)
            if new:
                self._check_rolls(conn, bout, current, new, seed, rng)
                insert_events(conn, bout.id, new, texts)
            self._join(conn, bout, current, client_seed_part, grant)
            return new

        return self._locked_append(bout_id, work, seeded=dice)

    def export(self, bout_id: str) -> dict[str, Any]:
        """The bout's export document (see `referee.ledger.build_export`), one snapshot: every
        event as the chain holds it, and the opening of every sealed one (secret until the
        reveal or the close: the service gives them only to whoever may see them)."""
        with self._guard(), self._connect() as conn:
            if is_postgres(self._engine) and ambient(self._engine) is None:
                conn.execution_options(isolation_level="REPEATABLE READ")
            bout = bout_record(bout_row(conn, bout_id))
            seeds = [seed.published() for seed in seed_records(conn, bout_id)]
            records = read_events(conn, bout_id, -1)
        openings = {}
        for record in records:
            found = opening(record)
            if found is not None:
                openings[str(record["seq"])] = found
        events = [chained(record) for record in records]
        return build_export(bout.as_json(), seeds, bout.client_seed, events, openings)

    # -- tokens --------------------------------------------------------------------------

    def add_token(
        self, bout_id: str, token: str, role: Role | str, fighter: str | None = None
    ) -> TokenRecord:
        """Grant `token` a role in the bout (stored only as its SHA-256)."""
        granted = _role(role)
        with self._guard(), write_transaction(self._engine) as conn:
            bout_row(conn, bout_id)
            self._insert_token(conn, bout_id, token, granted, fighter)
        return TokenRecord(bout_id, granted, fighter)

    def replace_referee_token(self, bout_id: str, token: str) -> TokenRecord:
        """Hand the bout to another referee: `token` becomes its only referee token."""
        with self._guard(), write_transaction(self._engine) as conn:
            bout_row(conn, bout_id, lock=True)
            conn.execute(
                delete(TOKENS).where(
                    TOKENS.c.bout_id == bout_id, TOKENS.c.role == Role.REFEREE.value
                )
            )
            self._insert_token(conn, bout_id, token, Role.REFEREE, None)
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
            self._insert_token(conn, bout_id, token, Role.FIGHTER, fighter)
        return TokenRecord(bout_id, Role.FIGHTER, fighter)

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
        return None if row is None else TokenRecord(row.bout_id, Role(row.role), row.fighter)

    def lock_bout(self, bout_id: str, token: str) -> TokenRecord | None:
        """`lookup_token(token)`, read in the statement that locks the bout (with its current
        seed) for a write of the open unit, whose next append to the bout then locks nothing
        again: one statement fewer per write. On PostgreSQL the transaction's BEGIN, that
        statement and the read of the bout's events since the last ones this store knows go
        in one round trip, and the append reads nothing more before it inserts.

        Outside a unit, or when the bout is not found, it is just `lookup_token` (so a bad
        token is answered 401 or 403 before anything else, as ever): the bout is not locked.
        """
        conn = ambient(self._engine)  # the unit's connection: `write_transaction` would be it
        if not isinstance(token, str) or conn is None:
            return self.lookup_token(token)
        known = self._known.get(bout_id)
        after = known[-1]["seq"] - 1 if known else -1
        digest = token_hash(token)
        with self._guard():
            row, rows = bout_seed_token(conn, bout_id, digest, after)
            if row is None:
                return self.lookup_token(token)
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
            _HELD.set(_Held(conn, bout_id, row, seed_of(row), events))
        if row.token_role is None:
            return None
        return TokenRecord(row.token_bout, _role_of(row.token_role), row.token_fighter)

    # -- receipts (Idempotency-Key) ------------------------------------------------------

    def claim_receipt(self, digest: str, kept_since: str = "") -> tuple[str, str] | None:
        """The (request, answer) kept under `digest` at `kept_since` (an RFC 3339 UTC time) or
        later, or None; an older one is deleted (it has expired). Call it inside a unit.

        On PostgreSQL it first takes a transaction lock on the digest, so two requests with the
        same key wait for each other and the second finds the first one's receipt.
        """
        with self._guard(), write_transaction(self._engine) as conn:
            if is_postgres(self._engine):
                lock = text("SELECT pg_advisory_xact_lock(hashtextextended(:digest, 0))")
                conn.execute(lock, {"digest": digest})
            row = conn.execute(
                select(RECEIPTS.c.request, RECEIPTS.c.answer, RECEIPTS.c.created_at).where(
                    RECEIPTS.c.digest == digest
                )
            ).first()
            if row is not None and str(row.created_at) < kept_since:
                conn.execute(delete(RECEIPTS).where(RECEIPTS.c.digest == digest))
                return None
        return None if row is None else (str(row.request), str(row.answer))

    def keep_receipt(self, digest: str, request: str, answer: str, at: str | None = None) -> None:
        """Keep the answer to a request under `digest` (in the unit that wrote its events),
        made `at` (default: now)."""
        row = {"digest": digest, "request": request, "answer": answer, "created_at": at}
        row["created_at"] = at or self.clock()
        with self._guard(), write_transaction(self._engine) as conn:
            conn.execute(insert(RECEIPTS).values(row))

    def forget_receipts(self, before: str) -> int:
        """Delete the receipts kept before `before` (an RFC 3339 UTC time); how many."""
        with self._guard(), write_transaction(self._engine) as conn:
            done = conn.execute(delete(RECEIPTS).where(RECEIPTS.c.created_at < before))
        return int(done.rowcount or 0)

    # -- internals -----------------------------------------------------------------------

    def _guard(self) -> StorageErrors:
        return self._errors

    def _insert_token(
        self, conn: Connection, bout_id: str, token: str, role: Role, fighter: str | None
    ) -> None:
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

    def _locked_append(self, bout_id: str, work: _Work, *, seeded: bool = False) -> list[Event]:
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
                _backoff(attempt)
        raise ConflictError(
            f"bout {bout_id!r}: could not append after {MAX_ATTEMPTS} attempts "
            "(other writers kept winning); try again"
        )

    def _locked_work(
        self, conn: Connection, bout_id: str, work: _Work, seeded: bool
    ) -> list[Event]:
        """`work` on the locked bout row (with its current seed when `seeded`)."""
        held = _HELD.get()
        if held is not None:
            _HELD.set(None)  # used once: this append may change the row
        seed: ServerSeed | None = None
        current: list[Event] | None = None
        if held is not None and held.bout_id == bout_id and held.connection is conn:
            # Locked by this unit already (`lock_bout`), and unchanged since.
            bout, seed, current = held.row, (held.seed if seeded else None), held.events
        elif seeded:
            bout, seed = bout_and_seed(conn, bout_id)
        else:
            bout = bout_row(conn, bout_id, lock=True)
        if current is None:
            current = self._all_events(conn, bout_id)
        new = work(conn, bout, seed, current)
        if new:
            self._remember(bout_id, current + new)
        return new

    def _join(
        self,
        conn: Connection,
        bout: Row,
        current: list[Event],
        client_seed_part: str | None,
        grant: tuple[str, Role, str | None] | None,
    ) -> None:
        """Add a part to the client seed and grant a token, in the append's transaction."""
        if client_seed_part is not None:
            if any(event["type"] in (ROLL, _SEED_FIXED) for event in current):
                raise ConflictError(f"bout {bout.id!r} has rolled: its client seed is fixed")
            joined = _check_text("client seed", f"{bout.client_seed}:{client_seed_part}", 2000)
            conn.execute(update(BOUTS).where(BOUTS.c.id == bout.id).values(client_seed=joined))
        if grant is not None:
            token, role, fighter = grant
            self._insert_token(conn, bout.id, token, _role(role), fighter)

    @staticmethod
    def _check_size(bout_id: str, current: list[Event], count: int) -> None:
        if count > MAX_NEW_EVENTS or len(current) + count > MAX_EVENTS_PER_BOUT:
            raise LimitError(f"bout {bout_id!r}: too many events (at most {MAX_EVENTS_PER_BOUT})")

    def _add(
        self,
        conn: Connection,
        bout: Row,
        current: list[Event],
        new: list[Event],
        seed: ServerSeed | None = None,
    ) -> list[Event]:
        self._check_size(bout.id, current, len(new))
        last = current[-1] if current else None
        problems = verify_chain(new, start=last)
        if problems:
            raise RuleError(f"bout {bout.id!r}: new events do not extend the chain: {problems[0]}")
        if new:
            self._check_rolls(conn, bout, current, new, seed)
            insert_events(conn, bout.id, new)
        return new

    def _check_rolls(
        self,
        conn: Connection,
        bout: Row,
        current: list[Event],
        new: list[Event],
        seed: ServerSeed | None = None,
        rng: _Thrown | _ThrownStreams | None = None,
    ) -> None:
        """Refuse rolls that would not verify: nonces in order from the ledger's position (per
        stream in a bout of dice scheme 2, whose every roll names its stream), at the store's
        current seed, unrevealed, and faces that the seed gives (a throw of `rng` is compared,
        not derived again)."""
        if not any(event["type"] in (ROLL, SEED_ROTATED) for event in new):
            return
        if seed is None:
            seed = seed_records(conn, bout.id)[-1]
        position = rng.position if rng is not None else self._position(bout.id, current)[0]
        if position.index != seed.index:
            raise ConflictError(
                f"bout {bout.id!r}: the ledger is at seed {position.index}, the store at "
                f"seed {seed.index}; refusing to roll"
            )
        # The dice were made for these same events (`_dice_of`), by their dice scheme: which
        # kind they are says the scheme, without reading the bout's header again.
        if rng is None:
            streams = dice_scheme(current) == STREAMS
        else:
            streams = isinstance(rng, _ThrownStreams)
        thrown = None if rng is None else rng.thrown
        nonces: dict[str | None, int] = {None: position.nonce}
        for event in new:
            if event["type"] == SEED_ROTATED:
                raise RuleError(f"event {event['seq']}: rotate seeds with Store.rotate_seed")
            if event["type"] != ROLL:
                continue
            _check_unrevealed(bout.id, seed)
            payload = event["payload"]
            roll = Roll.given(payload)
            stream = _stream_of(event, streams, roll)
            nonce = nonces.get(stream)
            if nonce is None:
                nonce = nonces[stream] = _stream_start(current, str(stream), rng)
            nonces[stream] = nonce + 1
            if _was_thrown(roll, stream, nonce, thrown) and not check_roll(
                payload, nonce, None, "", stream
            ):
                continue
            found = check_roll(payload, nonce, seed.server_seed, bout.client_seed, stream)
            if found is not None:
                raise RuleError(f"event {event['seq']} (roll) would not verify: {found[1]}")


#: The event that fixes a bout's client seed before its first roll (ledger 2).
_SEED_FIXED = EventType.CLIENT_SEED_FIXED.value


def _check_fixed(bout: Row, payload: Mapping[str, Any]) -> None:
    """Refuse a `client_seed_fixed` event that fixes another client seed than the one the
    bout's dice are made from (the chain and the dice must tell one story)."""
    fixed = ClientSeedFixed.given(payload).client_seed
    if fixed != bout.client_seed:
        raise RuleError(
            f"bout {bout.id!r}: the client seed fixed in the chain is not the bout's client seed"
        )


def _dice_of(
    seed: ServerSeed,
    client_seed: str,
    current: list[Event],
    position: SeedPosition,
    rolls: Mapping[str, Any],
) -> _Thrown | _ThrownStreams:
    """The bout's dice at its current seed (`position`, where the ledger stands; `rolls`, its
    streams' last rolls, `_rolls_of(current)`), by its dice scheme, keeping what they
    throw."""
    if dice_scheme(current) == STREAMS:
        return _ThrownStreams(seed.server_seed, client_seed, rolls, position)
    return _Thrown(seed.server_seed, client_seed, position)


def _rolls_of(rolls: Mapping[str, Any], events: list[Event]) -> dict[str, Any]:
    """`rolls` (the nonce of each stream's last roll since the last rotation, as the roll's
    payload has it, in the events before `events`) moved on by `events`: a new dictionary.

    What `stream_nonce` reads back through the events for one stream, read forwards for all
    of them: a rotation forgets every stream; a later roll of a stream replaces its earlier
    one. Only streams that are text are kept (`stream_nonce` is asked for those only).
    """
    moved = dict(rolls)
    for event in events:
        kind = event.get("type")
        if kind == SEED_ROTATED:
            moved = {}
        elif kind == ROLL:
            roll = Roll.given(event.get("payload"))
            if isinstance(roll.stream, str):
                moved[roll.stream] = roll.nonce
    return moved


def _next_nonce(rolls: Mapping[str, Any], stream: str) -> int:
    """`stream_nonce(events, stream)` for the events `rolls` is `_rolls_of`."""
    return int(rolls[stream]) + 1 if stream in rolls else 0


def _stream_start(current: list[Event], stream: str, rng: _Thrown | _ThrownStreams | None) -> int:
    """`stream_nonce(current, stream)`: the one the dice worked out for these same events when
    they drew from the stream (`_ThrownStreams.starts`), else read from the events."""
    if isinstance(rng, _ThrownStreams):
        start = rng.starts.get(stream)
        if start is not None:
            return start
    return stream_nonce(current, stream)


def _stream_of(event: Event, streams: bool, roll: Given[Roll]) -> str | None:
    """The stream a new roll (`roll`, its payload) names: one in a bout with streams, none in
    one without."""
    stream = roll.stream
    if streams != isinstance(stream, str):
        raise RuleError(
            f"event {event['seq']} (roll): stream {stream!r} in a bout of dice scheme "
            f"{STREAMS if streams else 1} (a roll names its stream exactly when the bout has them)"
        )
    return stream if isinstance(stream, str) else None


class _Thrown(VerifiableRng):
    """A VerifiableRng that keeps what it threw, by nonce (for `Store._check_rolls`), and the
    ledger's position it started from."""

    __slots__ = ("position", "thrown")

    def __init__(self, server_seed: str, client_seed: str, position: SeedPosition) -> None:
        super().__init__(server_seed, client_seed, position.nonce)
        self.position = position
        self.thrown: dict[tuple[str | None, int], Throw] = {}

    def throw(self, sides: Sequence[int]) -> Throw:
        done = super().throw(sides)
        self.thrown[None, done.nonce or 0] = done
        return done

    @property
    def rolls(self) -> int:
        """Rolls under the current seed, these included."""
        return self.nonce


class _ThrownStreams(VerifiableStreams):
    """VerifiableStreams that say what they threw, by stream and nonce, and the ledger's
    position they started from (for `Store._check_rolls` and the rotation of long bouts)."""

    __slots__ = ("_rolls", "position", "starts")

    def __init__(
        self,
        server_seed: str,
        client_seed: str,
        rolls: Mapping[str, Any],
        position: SeedPosition,
    ) -> None:
        #: The nonce each stream drawn from started at: `stream_nonce(current, stream)`.
        self.starts: dict[str, int] = {}
        super().__init__(server_seed, client_seed, self._start)
        self.position = position
        self._rolls = rolls

    def _start(self, stream: str) -> int:
        start = self.starts[stream] = _next_nonce(self._rolls, stream)
        return start

    @property
    def thrown(self) -> dict[tuple[str | None, int], Throw]:  # type: ignore[override]
        return {(t.stream, t.nonce or 0): t for t in self.throws}

    @property
    def rolls(self) -> int:
        """Rolls under the current seed, of every stream, these included."""
        return self.position.nonce + len(self.throws)


def _was_thrown(
    roll: Given[Roll],
    stream: str | None,
    nonce: int,
    thrown: Mapping[tuple[str | None, int], Throw] | None,
) -> bool:
    """Whether a roll (`roll`, its payload) shows what the dice threw at (`stream`, `nonce`;
    `thrown`, their throws by stream and nonce): its dice and faces."""
    done = None if thrown is None else thrown.get((stream, nonce))
    if done is None:
        return False
    return roll.is_object and roll.dice == list(done.dice) and roll.faces == list(done.faces)


def new_bout_id() -> str:
    """A fresh bout id: 12 URL-safe random characters, never starting with `-` (so that every
    command line takes it as an argument, not an option: `referee export -EYGVDQ_VdEx` would
    be read as options).

    >>> all(not new_bout_id().startswith("-") for _ in range(200))
    True
    """
    while True:
        bout_id = secrets.token_urlsafe(9)
        if not bout_id.startswith("-"):
            return bout_id


def _backoff(attempt: int) -> None:
    """Wait a little longer after each lost race, with jitter so writers do not collide again."""
    time.sleep(0.01 * (attempt + 1) + secrets.randbelow(10) / 1000)


def _check_id(bout_id: Any) -> str:
    if not isinstance(bout_id, str) or not _BOUT_ID.fullmatch(bout_id):
        raise RuleError(f"bout id {bout_id!r} must be 1..64 letters, digits, '-' or '_'")
    return bout_id


def _check_text(what: str, value: Any, limit: int, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise RuleError(f"{what} must be a {'' if empty else 'non-empty '}string, got {value!r}")
    if len(value) > limit:
        raise LimitError(f"{what} {value[:40]!r}... is longer than {limit} characters")
    return value


def _check_time(at: str | None, clock: Callable[[], str]) -> str:
    if at is None:
        return clock()
    if not is_utc_time(at):
        raise RuleError(f"time {at!r} is not RFC 3339 UTC like '2026-11-29T22:40:12.123456Z'")
    return at


def _rules_text(rules: Mapping[str, Any]) -> str:
    try:
        return json.dumps(dict(rules), sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise RuleError(f"rules {rules!r} are not JSON: {err}") from None


#: Each role by its stored value.
_ROLES = {role.value: role for role in Role}


def _role_of(value: str) -> Role:
    """`Role(value)` for a stored role, by a dictionary look-up (an Enum call runs Python)."""
    found = _ROLES.get(value)
    return Role(value) if found is None else found


def _role(role: Role | str) -> Role:
    try:
        return role if isinstance(role, Role) else Role(role)
    except ValueError:
        raise RuleError(f"role {role!r} is not one of referee, fighter") from None


def _check_unrevealed(bout_id: str, seed: ServerSeed) -> None:
    if seed.revealed:
        raise ConflictError(
            f"bout {bout_id!r}: server seed {seed.index} is revealed; rotate it before rolling"
        )
