"""Database URLs, engines with the right settings, error wrapping and migrations.

SQLite: WAL, synchronous=FULL (an acknowledged roll survives a power cut), a busy
timeout, foreign keys; write transactions start with BEGIN IMMEDIATE so that writers
queue instead of failing half-way. PostgreSQL: the psycopg 3 driver.

>>> engine_url("bouts.db").startswith("sqlite:///")
True
>>> engine_url("postgresql://me@db/referee")
'postgresql+psycopg://me@db/referee'
"""

from __future__ import annotations

import contextvars
import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.pool import StaticPool

from referee.errors import NotationError, NotFoundError, StorageError
from referee.store.notify import committed, take_touched
from referee.store.raw import run_sql
from referee.store.schema import MIGRATIONS, SCHEMA_VERSION

#: Seconds a SQLite writer waits for another writer before giving up.
BUSY_TIMEOUT_S = 30

#: Environment variable naming the default database (a path or a URL).
DB_ENV = "REFEREE_DB"

#: Execution option that makes a SQLite transaction BEGIN IMMEDIATE (take the write lock).
WRITE = "referee_write"

#: An arbitrary fixed key for PostgreSQL's advisory lock around migrations.
_MIGRATION_LOCK = 0x5EFE_EE01


#: The savepoint each grouped writer's block after the group's first runs in.
_SAVEPOINT = "referee_writer"

#: Most writers' operations one SQLite commit (one fsync) acknowledges together.
MAX_GROUP = 16


class _Group:
    """One SQLite transaction that several writers' operations share, each in a savepoint of
    its own; the last of them commits it (one fsync) for all."""

    __slots__ = ("broken", "connection", "done", "error", "transaction")

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.transaction = connection.begin()
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.broken = False


class _Writers:
    """The in-process writers of one SQLite engine: one at a time (`lock`), how many wait for
    it, and the group of operations that the next commit acknowledges (file databases)."""

    __slots__ = ("count", "group", "grouped", "lock", "mutex", "waiting")

    def __init__(self, grouped: bool) -> None:
        self.lock = threading.Lock()
        self.mutex = threading.Lock()
        self.waiting = 0
        self.count = 0
        self.group: _Group | None = None
        self.grouped = grouped


#: The writers of each SQLite engine (see `write_transaction`).
_WRITERS: weakref.WeakKeyDictionary[Engine, _Writers] = weakref.WeakKeyDictionary()

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
        return create_engine(full, hide_parameters=True, pool_pre_ping=True)
    options: dict[str, Any] = {"hide_parameters": True}
    options["connect_args"] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_S}
    if path is None:
        options["poolclass"] = StaticPool
    elif create:
        path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(full, **options)
    _WRITERS[engine] = _Writers(grouped=path is not None)
    event.listen(engine, "connect", _sqlite_settings)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


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


@contextmanager
def unavailable_as_storage_error(engine: Engine) -> Iterator[None]:
    """Turn a driver's "cannot connect / cannot open" error into StorageError (no parameters)."""
    try:
        yield
    except OperationalError as err:
        if is_transient(err):
            raise
        reason = str(err.orig).strip().splitlines()[0] if str(err.orig).strip() else "unknown"
        raise StorageError(
            f"database {safe_url(engine)!r} is unavailable: {type(err.orig).__name__}: {reason}"
        ) from None


def ambient(engine: Engine) -> Connection | None:
    """The connection of the unit of work open on `engine` in this context, or None."""
    held = _UNIT.get()
    return held[1] if held is not None and held[0] is engine else None


@contextmanager
def unit_of_work(engine: Engine) -> Iterator[Connection]:
    """One transaction around everything the store does on `engine` in this context.

    Every read and write of the store inside it uses its connection, and it commits only when
    the block ends without an exception: an operation of several steps is stored whole or not
    at all. Nested units are part of the outer one.
    """
    held = ambient(engine)
    if held is not None:
        yield held
        return
    with write_transaction(engine) as connection:
        token = _UNIT.set((engine, connection))
        try:
            yield connection
        finally:
            _UNIT.reset(token)


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """One write transaction: BEGIN IMMEDIATE on SQLite; commit on success, else roll back.

    SQLite has one writer at a time; the writers of this process queue on a lock rather than
    in SQLite's busy handler, whose sleeps grow to 100 ms and make the slowest answers slow.
    (Other processes on the same file still wait in the busy handler.) Inside a unit of work
    (`unit_of_work`) it is the unit's transaction.

    On a SQLite file, writers that queue commit together (group commit): a writer that
    finishes while others wait hands the open transaction on to the next one instead of
    committing it, and the last of them (at most `MAX_GROUP`) commits once, one fsync for all.
    Each writer's block after the group's first runs in a savepoint of its own, so it is still
    stored whole or not at all (an exception rolls back its savepoint only; a failing first
    block rolls back the group, which holds nothing else yet); and none returns before the
    commit that stores it: what is acknowledged is on disk. If that commit fails, every writer
    of the group gets StorageError and nothing of the group is stored.
    """
    held = ambient(engine)
    if held is not None:
        yield held
        return
    writers = _WRITERS.get(engine)
    if writers is not None and writers.grouped:
        with _grouped(engine, writers) as connection:
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


@contextmanager
def _grouped(engine: Engine, writers: _Writers) -> Iterator[Connection]:
    """`write_transaction` on a SQLite file: this writer's block in a savepoint of the group's
    transaction; the group committed by its last writer; back only after that commit."""
    with writers.mutex:
        writers.waiting += 1
    writers.lock.acquire()
    with writers.mutex:
        writers.waiting -= 1
    try:
        group = writers.group or _open_group(engine, writers)
    except BaseException:
        writers.lock.release()
        raise
    connection = group.connection
    touched: set[str] = set()
    clean = False
    try:
        # The group's first block needs no savepoint: if it fails, there is nothing of anyone
        # else to keep, and the whole transaction is rolled back (one writer alone, the usual
        # case, makes two statements fewer).
        # The savepoint's statements go straight to the driver (`referee.store.raw`), as
        # BEGIN does: nothing else on this connection takes savepoints.
        nested = writers.count > 0
        if nested:
            run_sql(connection, f"SAVEPOINT {_SAVEPOINT}")
        try:
            yield connection
        except BaseException:
            take_touched(connection)
            if nested:
                with suppress(DBAPIError):  # else the group is broken: see below
                    run_sql(connection, f"ROLLBACK TO {_SAVEPOINT}")  # this block leaves nothing
                    run_sql(connection, f"RELEASE {_SAVEPOINT}")
                    clean = True
            raise
        if nested:
            run_sql(connection, f"RELEASE {_SAVEPOINT}")
        touched = take_touched(connection)
        clean = True
        writers.count += 1
    finally:
        # After a failure that SQLite did not confine to the savepoint (the transaction is
        # gone), or with no one waiting, or a full group: this writer ends the group.
        group.broken = group.broken or not clean
        with writers.mutex:
            last = group.broken or writers.waiting == 0 or writers.count >= MAX_GROUP
        if last:
            _end_group(engine, writers, group)
        writers.lock.release()
    group.done.wait()
    if group.error is not None:
        raise StorageError(
            f"database {safe_url(engine)!r} could not commit: {type(group.error).__name__}: "
            f"{_first_line(group.error)} (nothing of this request was stored)"
        ) from None
    committed(engine, touched)  # reached only after the commit that stored this block


def _open_group(engine: Engine, writers: _Writers) -> _Group:
    """A new group: a connection in BEGIN IMMEDIATE (the caller holds `writers.lock`)."""
    connection = engine.connect()
    try:
        connection.execution_options(**{WRITE: True})
        group = _Group(connection)
    except BaseException:
        connection.close()
        raise
    writers.group, writers.count = group, 0
    return group


def _end_group(engine: Engine, writers: _Writers, group: _Group) -> None:
    """Commit the group (roll it back if broken), then wake every writer waiting for it."""
    try:
        if group.broken:
            group.transaction.rollback()
            group.error = StorageError("a write failed beyond its savepoint")
        else:
            group.transaction.commit()
    except BaseException as err:  # every writer of the group hears of it
        group.error = err
    finally:
        writers.group = None
        with suppress(Exception):  # the pool discards a connection it cannot reset
            group.connection.close()
        group.done.set()


def _first_line(err: BaseException) -> str:
    text = str(getattr(err, "orig", None) or err).strip()
    return text.splitlines()[0] if text else "unknown"


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
