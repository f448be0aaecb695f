"""Database URLs, engines with the right settings, error wrapping, units of work and
migrations.

SQLite: WAL, synchronous=FULL (an acknowledged roll survives a power cut), a busy
timeout, foreign keys; write transactions start with BEGIN IMMEDIATE so that writers
queue instead of failing half-way (how they queue, and commit together: `store.writers`).
PostgreSQL: the psycopg 3 driver; a pooled connection that sat idle is pinged before use.

>>> engine_url("bouts.db").startswith("sqlite:///")
True
>>> engine_url("postgresql://me@db/referee")
'postgresql+psycopg://me@db/referee'
"""

from __future__ import annotations

import contextvars
import os
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from sqlalchemy.pool import StaticPool

from referee.errors import NotationError, NotFoundError, StorageError
from referee.store.notify import committed, take_touched
from referee.store.raw import run_sql
from referee.store.schema import MIGRATIONS, SCHEMA_VERSION
from referee.store.writers import (
    BUSY_TIMEOUT_S,
    DRIVER_BEGUN,
    WRITE,
    Begun,
    grouped,
    register,
    run_begun,
    writers_of,
)

#: Environment variable naming the default database (a path or a URL).
DB_ENV = "REFEREE_DB"

#: A pooled PostgreSQL connection idle this long (seconds) is pinged before it is used: a
#: restarted server or a dropped link shows then, and a new connection takes its place. One in
#: steady use is not pinged (a round trip saved on every operation of a busy service).
PING_AFTER_IDLE_S = 1.0
_IDLE_SINCE = "referee_idle_since"

#: An arbitrary fixed key for PostgreSQL's advisory lock around migrations.
_MIGRATION_LOCK = 0x5EFE_EE01


#: The unit of work open in this context, if any: (engine, its connection in a transaction).
_UNIT: contextvars.ContextVar[tuple[Engine, Connection] | None] = contextvars.ContextVar(
    "referee_unit_of_work", default=None
)


def default_url() -> str:
    """The database used when none is given: $REFEREE_DB, else `referee.db` in the user data dir.

    >>> isinstance(default_url(), str)
    True
    """
    if os.environ.get(DB_ENV):
        return os.environ[DB_ENV]
    try:
        from platformdirs import user_data_dir
    except ImportError:  # pragma: no cover - platformdirs comes with the service extra
        return "referee.db"
    return str(Path(user_data_dir("referee")) / "referee.db")


def engine_url(url: str) -> str:
    """The SQLAlchemy URL for a path, `sqlite:///path`, `sqlite://` (memory) or `postgresql://`.

    >>> engine_url("sqlite:///x.db"), engine_url("postgres://h/db")
    ('sqlite:///x.db', 'postgresql+psycopg://h/db')
    """
    if not isinstance(url, str) or not url.strip():
        raise NotationError(f"database URL {url!r} is empty (expected a path or a URL)")
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    if url.startswith("sqlite://"):
        return url
    if "://" in url:
        raise NotationError(
            f"database URL {url.split('://')[0] + '://...'!r} is not supported "
            "(expected a SQLite file path, sqlite:///path or postgresql://...)"
        )
    return f"sqlite:///{Path(url).expanduser().resolve()}"


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for memory or PostgreSQL).

    >>> sqlite_path("sqlite:///tmp/x.db"), sqlite_path("sqlite://")
    (PosixPath('tmp/x.db'), None)
    """
    if not url.startswith("sqlite:///") or url in ("sqlite:///", "sqlite:///:memory:"):
        return None
    return Path(url[len("sqlite:///") :])


def make_engine(url: str, *, create: bool = True) -> Engine:
    """An engine for `url` (see `engine_url`) with the settings above; nothing connects yet."""
    full = engine_url(url)
    path = sqlite_path(full)
    if path is not None and not create and not path.exists():
        raise NotFoundError(f"no database file at {str(path)!r}")
    if full.startswith("postgresql"):
        engine = create_engine(full, hide_parameters=True)
        _ping_when_idle(engine)
        event.listen(engine, "checkin", _autocommit_off)
        return engine
    options: dict[str, Any] = {"hide_parameters": True}
    options["connect_args"] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_S}
    if path is None:
        options["poolclass"] = StaticPool
    elif create:
        path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(full, **options)
    register(engine, grouped=path is not None)
    event.listen(engine, "connect", _sqlite_settings)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _ping_when_idle(engine: Engine) -> None:
    """Ping a pooled connection at checkout when it has been idle `PING_AFTER_IDLE_S` or
    longer (SQLAlchemy's "pessimistic" disconnect handling, by idle time): a failed ping
    raises DisconnectionError, and the pool replaces the connection and checks out again."""

    def idle_from_now(_dbapi_connection: Any, record: Any) -> None:
        record.info[_IDLE_SINCE] = time.monotonic()

    def checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get(_IDLE_SINCE)
        if since is not None and time.monotonic() - since < PING_AFTER_IDLE_S:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as err:
            raise DisconnectionError("the pooled connection is gone") from err
        if not alive:
            raise DisconnectionError("the pooled connection is gone")

    event.listen(engine, "connect", idle_from_now)
    event.listen(engine, "checkin", idle_from_now)
    event.listen(engine, "checkout", checkout)


def _autocommit_off(dbapi_connection: Any, record: Any) -> None:
    """Back in the pool, a PostgreSQL connection is out of psycopg's autocommit mode again
    (`referee.store.raw.together` turns it on to send its own BEGIN), before anyone else can
    take it: so psycopg begins every transaction, as everywhere else."""
    if dbapi_connection is not None and getattr(dbapi_connection, "autocommit", False):
        try:
            dbapi_connection.autocommit = False
        except Exception:  # still in a transaction, or closed: no one may use it again
            record.invalidate()


def _sqlite_settings(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # SQLAlchemy's "begin" event issues BEGIN itself
    cursor = dbapi_connection.cursor()
    for pragma in (
        "PRAGMA journal_mode=WAL",
        "PRAGMA synchronous=FULL",
        f"PRAGMA busy_timeout={BUSY_TIMEOUT_S * 1000}",
        "PRAGMA foreign_keys=ON",
    ):
        cursor.execute(pragma)
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    if connection.info.get(DRIVER_BEGUN):
        # A write transaction begun on the driver itself (`store.writers.begin_on_driver`):
        # SQLAlchemy's transaction, begun by a statement run through it, is that one.
        driver = connection.connection.driver_connection
        if driver is not None and driver.in_transaction:
            return
    write = connection.get_execution_options().get(WRITE, False)
    # On the driver's cursor (`referee.store.raw`): every write begins here.
    run_sql(connection, "BEGIN IMMEDIATE" if write else "BEGIN")


def is_postgres(engine: Engine) -> bool:
    """Whether the engine talks to PostgreSQL."""
    return engine.dialect.name == "postgresql"


def safe_url(engine: Engine) -> str:
    """The engine's URL with any password hidden, for messages."""
    return engine.url.render_as_string(hide_password=True)


def is_transient(err: DBAPIError) -> bool:
    """Whether another writer got in the way: retry (SQLite busy, PG serialization/deadlock)."""
    sqlstate = getattr(err.orig, "sqlstate", None)
    return sqlstate in ("40001", "40P01") or "database is locked" in str(err.orig)


class StorageErrors:
    """Turns a driver's "cannot connect / cannot open" error into StorageError (no
    parameters); a transient one (another writer got in the way) passes through for a retry.
    A reusable context manager (a store keeps one: it guards every call)."""

    __slots__ = ("engine",)

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, err: BaseException | None, _trace: object) -> None:
        if isinstance(err, OperationalError) and not is_transient(err):
            raise StorageError(
                f"database {safe_url(self.engine)!r} is unavailable: {driver_reason(err)}"
            ) from None


def driver_reason(err: DBAPIError) -> str:
    """The driver's error class and the first line of its message, for a StorageError."""
    text = str(err.orig).strip()
    return f"{type(err.orig).__name__}: {text.splitlines()[0] if text else 'unknown'}"


def unavailable_as_storage_error(engine: Engine) -> StorageErrors:
    """Turn a driver's "cannot connect / cannot open" error into StorageError (no parameters)."""
    return StorageErrors(engine)


def ambient(engine: Engine) -> Connection | None:
    """The connection of the unit of work open on `engine` in this context, or None."""
    held = _UNIT.get()
    return held[1] if held is not None and held[0] is engine else None


def unit_of_work(engine: Engine, begun: Begun | None = None) -> AbstractContextManager[Connection]:
    """One transaction around everything the store does on `engine` in this context.

    Every read and write of the store inside it uses its connection, and it commits only when
    the block ends without an exception: an operation of several steps is stored whole or not
    at all. Nested units are part of the outer one. `begun`: a transaction
    `store.writers.begin_now` began on this thread (else `write_transaction`'s).
    """
    held = ambient(engine)
    if held is not None:
        return nullcontext(held)
    return _new_unit(engine, begun)


def _new_unit(engine: Engine, begun: Begun | None) -> AbstractContextManager[Connection]:
    return _Unit(engine, write_transaction(engine) if begun is None else run_begun(begun))


class _Unit:
    """A unit of work: `transaction`'s connection is the unit's (`ambient`) while it is open.
    (A class rather than a generator: every write of the service is one.)"""

    __slots__ = ("engine", "token", "transaction")

    def __init__(self, engine: Engine, transaction: AbstractContextManager[Connection]) -> None:
        self.engine = engine
        self.transaction = transaction

    def __enter__(self) -> Connection:
        connection = self.transaction.__enter__()
        self.token = _UNIT.set((self.engine, connection))
        return connection

    def __exit__(self, kind: Any, err: BaseException | None, trace: Any) -> bool | None:
        _UNIT.reset(self.token)
        return self.transaction.__exit__(kind, err, trace)


def write_transaction(engine: Engine) -> AbstractContextManager[Connection]:
    """One write transaction: BEGIN IMMEDIATE on SQLite; commit on success, else roll back.

    SQLite has one writer at a time; the writers of this process queue on a lock rather than
    in SQLite's busy handler, whose sleeps grow to 100 ms and make the slowest answers slow.
    (Other processes on the same file still wait in the busy handler.) Inside a unit of work
    (`unit_of_work`) it is the unit's transaction. On a SQLite file, writers that queue
    commit together (`store.writers.grouped`): one fsync for the group, each writer's block
    still stored whole or not at all, none answered before the commit that stores it.
    """
    held = ambient(engine)
    if held is not None:
        return nullcontext(held)
    return _write_transaction(engine)


@contextmanager
def _write_transaction(engine: Engine) -> Iterator[Connection]:
    writers = writers_of(engine)
    if writers is not None and writers.grouped:
        with grouped(engine, writers) as connection:
            yield connection
        return
    with writers.lock if writers is not None else nullcontext(), engine.connect() as connection:
        connection.execution_options(**{WRITE: True})
        try:
            with connection.begin():
                yield connection
        finally:
            touched = take_touched(connection)
    committed(engine, touched)  # reached only after a commit


def migrate(engine: Engine) -> int:
    """Bring the schema up to `SCHEMA_VERSION`; safe when several processes start at once."""
    with unavailable_as_storage_error(engine), write_transaction(engine) as connection:
        if is_postgres(engine):
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
        connection.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
        )
        current = connection.execute(text("SELECT max(version) FROM schema_version")).scalar()
        current = int(current or 0)
        if current > SCHEMA_VERSION:
            raise StorageError(
                f"database {safe_url(engine)!r} has schema version {current}, newer than "
                f"this referee knows ({SCHEMA_VERSION}); upgrade referee"
            )
        for version, steps in MIGRATIONS:
            if version > current:
                for statement in steps:
                    connection.exec_driver_sql(statement)
                connection.execute(
                    text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": version}
                )
        return SCHEMA_VERSION


#: A client package's own migrations: (version, DDL statements), versions 1, 2, 3, ...
PartMigrations = tuple[tuple[int, tuple[str, ...]], ...]


def migrate_part(engine: Engine, part: str, migrations: PartMigrations) -> int:
    """Bring a client package's own tables (`part`, e.g. "discord") up to its last version.

    The store's public hook for a client's tables: the client owns its DDL; the store applies
    each version once, in one transaction with the record of it (`schema_parts`), safe when
    several processes start at once. Returns the part's version.
    """
    with unavailable_as_storage_error(engine), write_transaction(engine) as connection:
        if is_postgres(engine):
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
        found = connection.execute(
            text("SELECT version FROM schema_parts WHERE part = :part"), {"part": part}
        ).scalar()
        current = int(found or 0)
        latest = migrations[-1][0] if migrations else 0
        if current > latest:
            raise StorageError(
                f"database {safe_url(engine)!r} has {part} tables of version {current}, newer "
                f"than this referee knows ({latest}); upgrade referee"
            )
        for version, steps in migrations:
            if version > current:
                for statement in steps:
                    connection.exec_driver_sql(statement)
        if latest > current:
            record = "UPDATE schema_parts SET version = :v WHERE part = :part"
            if not current:
                record = "INSERT INTO schema_parts (part, version) VALUES (:part, :v)"
            connection.execute(text(record), {"part": part, "v": latest})
        return latest
