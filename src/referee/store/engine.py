"""Database URLs, engines with the right settings, and the driver's errors as the store's.

SQLite: WAL, synchronous=FULL (an acknowledged roll survives a power cut), a busy
timeout, foreign keys; its write transactions are `referee.store.writers`'s (BEGIN
IMMEDIATE, so that writers queue instead of failing half-way, and commit together).
PostgreSQL: the psycopg 3 driver; a pooled connection that sat idle is pinged before use; a
row lock is waited for as long as SQLite's busy timeout (`lock_timeout`); an advisory lock
(`advisory_lock`: the migrations', an idempotency key's) is waited for as long as it is held.

>>> engine_url("bouts.db").startswith("sqlite:///")
True
>>> engine_url("postgresql://me@db/referee")
'postgresql+psycopg://me@db/referee'
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import DatabaseError, DBAPIError, DisconnectionError, OperationalError
from sqlalchemy.pool import StaticPool

from referee.errors import NotationError, NotFoundError, StorageError
from referee.store.writers import BUSY_TIMEOUT_S, register

#: Environment variable naming the default database (a path or a URL).
DB_ENV = "REFEREE_DB"

#: A pooled PostgreSQL connection idle this long (seconds) is pinged before it is used: a
#: restarted server or a dropped link shows then, and a new connection takes its place. One in
#: steady use is not pinged (a round trip saved on every operation of a busy service).
PING_AFTER_IDLE_S = 1.0
_IDLE_SINCE = "referee_idle_since"


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
        event.listen(engine, "connect", _postgres_settings)
        _ping_when_idle(engine)
        event.listen(engine, "checkin", _autocommit_off)
        return engine
    options: dict[str, Any] = {"hide_parameters": True}
    options["connect_args"] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_S}
    if path is None:
        options["poolclass"] = StaticPool
    elif create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StorageError(
                f"cannot make the folder of database {full!r}: {err.strerror or err}"
            ) from None
    engine = create_engine(full, **options)
    register(engine, grouped=path is not None)
    event.listen(engine, "connect", _sqlite_settings)
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


def _postgres_settings(dbapi_connection: Any, _record: Any) -> None:
    """A lock another session holds is waited for as long as SQLite's busy timeout, then the
    statement fails (55P03, a StorageError): a writer never waits for ever."""
    with dbapi_connection.cursor() as cursor:
        cursor.execute(f"SET lock_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    dbapi_connection.commit()


def advisory_lock(connection: Connection, key: str, params: dict[str, Any]) -> None:
    """Take the transaction-level advisory lock `key` (an SQL expression of `params`) on
    PostgreSQL, waiting for as long as another session holds it: `lock_timeout` is off for that
    wait only (SET LOCAL), then back at the busy timeout for the rest of the transaction, whose
    row locks are still waited out as a StorageError. An advisory lock is held by a peer doing
    its work (migrating, answering the same Idempotency-Key), not by a stuck writer."""
    connection.exec_driver_sql("SET LOCAL lock_timeout = 0")
    connection.execute(text(f"SELECT pg_advisory_xact_lock({key})"), params)
    connection.exec_driver_sql(f"SET LOCAL lock_timeout = {int(BUSY_TIMEOUT_S * 1000)}")


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


def is_postgres(engine: Engine) -> bool:
    """Whether the engine talks to PostgreSQL."""
    return engine.dialect.name == "postgresql"


def safe_url(engine: Engine) -> str:
    """The engine's URL with any password hidden, for messages."""
    return engine.url.render_as_string(hide_password=True)


#: SQLite's result codes (the low byte of an extended code): the busy handler gave up (after
#: the busy timeout, when another connection held the write lock all along), a damaged file,
#: a file that is not a database.
_SQLITE_BUSY, _SQLITE_CORRUPT, _SQLITE_NOTADB = 5, 11, 26
_UNUSABLE = (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def _sqlite_code(err: DBAPIError) -> int | None:
    code = getattr(err.orig, "sqlite_errorcode", None)
    return code if isinstance(code, int) else None


def lock_waited_out(err: DBAPIError) -> bool:
    """Whether the database waited its whole busy timeout for another connection's lock:
    SQLite's plain SQLITE_BUSY (a lost race within WAL, SQLITE_BUSY_SNAPSHOT, is worth a
    retry), PostgreSQL's lock_timeout (55P03)."""
    if getattr(err.orig, "sqlstate", None) == "55P03":
        return True
    return _sqlite_code(err) == _SQLITE_BUSY


def is_transient(err: DBAPIError) -> bool:
    """Whether another writer got in the way: retry (SQLite busy, PG serialization/deadlock).

    Not when SQLite already waited the busy timeout out: retrying would wait it out again."""
    sqlstate = getattr(err.orig, "sqlstate", None)
    if sqlstate in ("40001", "40P01"):
        return True
    return "database is locked" in str(err.orig) and not lock_waited_out(err)


def unusable_file(err: DBAPIError) -> bool:
    """Whether the SQLite file is damaged or not a database at all."""
    code = _sqlite_code(err)
    return isinstance(err, DatabaseError) and code is not None and code & 0xFF in _UNUSABLE


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
        if not isinstance(err, DBAPIError):
            return
        if isinstance(err, OperationalError) and lock_waited_out(err):
            raise StorageError(
                f"database {safe_url(self.engine)!r} is locked: another connection has held "
                "its write lock for longer than the busy timeout; nothing was changed"
            ) from None
        if (isinstance(err, OperationalError) and not is_transient(err)) or unusable_file(err):
            raise StorageError(
                f"database {safe_url(self.engine)!r} is unavailable: {driver_reason(err)}"
            ) from None


def driver_reason(err: DBAPIError) -> str:
    """The driver's error class and the first line of its message, for a StorageError."""
    text = str(err.orig).strip()
    return f"{type(err.orig).__name__}: {text.splitlines()[0] if text else 'unknown'}"
