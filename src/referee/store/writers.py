"""The writers of one SQLite engine: one at a time, group commit, and writes the event loop
runs itself.

SQLite has one writer at a time. The writers of a process queue on a lock of their own
(`Writers.lock`) rather than in SQLite's busy handler, whose sleeps grow to 100 ms. Two ways
through it:

- **On a thread, grouped** (`grouped`): writers that queue commit together. A writer that
  finishes while others wait hands the open transaction on instead of committing it; the
  last of them (at most `MAX_GROUP`) commits once, one fsync for all. Each block after the
  group's first runs in a savepoint of its own, so it is still stored whole or not at all,
  and none returns before the commit that stores it.
- **At once, on the calling thread** (`begin_now`): when no other writer of the process
  holds or waits for the lock, no other process holds SQLite's, and commits have been quick
  lately, the service's event loop runs a write itself (a hand-off to a worker thread and
  back costs more than a quick SQLite write), on a connection the store keeps for it
  (`WriterConnection`).

Either way a write is one transaction, and nothing is answered before its commit.

This module is the one owner of SQLite's write transaction: it begins it (`BEGIN IMMEDIATE`,
from the engine's "begin" event or on the driver's connection itself), groups it, and ends it;
whether one is open is the driver's own record (`sqlite3.Connection.in_transaction`), read
nowhere else. `transaction` is every write transaction outside a unit of work, PostgreSQL's
included (a plain one: the server groups WAL flushes itself).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from typing import Any

from sqlalchemy import Connection, Engine, event
from sqlalchemy.exc import DBAPIError, OperationalError

from referee.errors import StorageError
from referee.store.notify import committed, take_touched
from referee.store.raw import driver_call, rows_of_sql, run_sql

#: Seconds a SQLite writer waits for another process's writer before giving up.
BUSY_TIMEOUT_S = 30

#: Execution option that makes a SQLite transaction BEGIN IMMEDIATE (take the write lock).
WRITE = "referee_write"

#: The savepoint each grouped writer's block after the group's first runs in.
_SAVEPOINT = "referee_writer"

#: Most writers' operations one SQLite commit (one fsync) acknowledges together.
MAX_GROUP = 16

#: Seconds a SQLite commit may take (on average, lately) for a write to run on the calling
#: thread, the event loop's (`begin_now`). A commit is one fsync: about 0.1 ms on an SSD, so
#: the loop is held no longer than by any other request; on a disk whose fsync is slower the
#: writes go to worker threads, where one commit acknowledges a whole group of them.
INLINE_COMMIT_S = 0.002
#: Weight of the newest commit in that average.
_COMMIT_WEIGHT = 0.2


class _Group:
    """One SQLite transaction that several writers' operations share, each in a savepoint of
    its own; the last of them commits it (one fsync) for all."""

    __slots__ = ("broken", "connection", "done", "driver", "error")

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.driver = connection.connection.driver_connection
        begin_on_driver(connection, self.driver)
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.broken = False


class Writers:
    """The in-process writers of one SQLite engine: one at a time (`lock`), how many wait for
    it, the group of operations that the next commit acknowledges (file databases), and how
    long commits have taken lately, by `clock` (seconds; a test gives one of its own, so that
    which way a write goes does not depend on how busy the machine is)."""

    __slots__ = (
        "clock", "commit_seconds", "count", "group", "grouped", "lock", "mutex", "waiting",
    )  # fmt: skip

    def __init__(self, grouped: bool, clock: Callable[[], float] = time.perf_counter) -> None:
        self.lock = threading.Lock()
        self.mutex = threading.Lock()
        self.waiting = 0
        self.count = 0
        self.group: _Group | None = None
        self.grouped = grouped
        #: How long a commit has taken lately (a moving average, seconds).
        self.commit_seconds = 0.0
        self.clock = clock

    def timed_commit(self, commit: Callable[[], None]) -> None:
        """Run `commit` and count how long it took, by `clock`, into `commit_seconds`."""
        started = self.clock()
        commit()
        self.took(self.clock() - started)

    def took(self, seconds: float) -> None:
        """Count one commit that took `seconds` into `commit_seconds`."""
        self.commit_seconds += _COMMIT_WEIGHT * (seconds - self.commit_seconds)


#: The writers of each SQLite engine.
_WRITERS: weakref.WeakKeyDictionary[Engine, Writers] = weakref.WeakKeyDictionary()


def register(engine: Engine, *, grouped: bool) -> Writers:
    """Give a new SQLite engine its writers (`grouped`: commit queued writers together), and
    begin its transactions (`_begin`)."""
    writers = _WRITERS[engine] = Writers(grouped)
    event.listen(engine, "begin", _begin)
    return writers


def _begin(connection: Connection) -> None:
    """SQLAlchemy's "begin" event on a SQLite engine: BEGIN IMMEDIATE for a write connection
    (`WRITE`), else BEGIN, on the driver's cursor (`referee.store.raw`). Nothing when the
    driver is in a transaction already (`begin_on_driver` began it): SQLAlchemy's transaction,
    begun by a statement run through it, is that one."""
    driver = connection.connection.driver_connection
    if driver is not None and driver.in_transaction:
        return
    write = connection.get_execution_options().get(WRITE, False)
    run_sql(connection, "BEGIN IMMEDIATE" if write else "BEGIN")


def writers_of(engine: Engine) -> Writers | None:
    """The writers of a SQLite engine (None for PostgreSQL)."""
    return _WRITERS.get(engine)


def transaction(engine: Engine) -> AbstractContextManager[Connection]:
    """One write transaction on `engine` (outside a unit of work): commit on success, else roll
    back; `committed` told only after the commit.

    On a SQLite file the writers of this process queue on `Writers.lock` (not in SQLite's busy
    handler, whose sleeps grow to 100 ms; other processes on the same file still wait there),
    and those that queue commit together (`grouped`). SQLite in memory: one at a time under the
    same lock. PostgreSQL: a transaction of its own connection.
    """
    writers = _WRITERS.get(engine)
    if writers is not None and writers.grouped:
        return grouped(engine, writers)
    return _alone(engine, writers)


@contextmanager
def _alone(engine: Engine, writers: Writers | None) -> Iterator[Connection]:
    """A write transaction that commits alone (SQLite in memory, under the writers' lock;
    PostgreSQL)."""
    with writers.lock if writers is not None else nullcontext(), engine.connect() as connection:
        connection.execution_options(**{WRITE: True})
        try:
            with connection.begin():
                yield connection
        finally:
            touched = take_touched(connection)
    committed(engine, touched)  # reached only after a commit


# -- grouped, on threads ---------------------------------------------------------------------


@contextmanager
def grouped(engine: Engine, writers: Writers) -> Iterator[Connection]:
    """A write transaction on a SQLite file: this writer's block in a savepoint of the
    group's transaction; the group committed by its last writer; back only after that
    commit. If that commit fails, every writer of the group gets StorageError and nothing of
    the group is stored."""
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
            _end_group(writers, group)
        writers.lock.release()
    group.done.wait()
    if group.error is not None:
        where = engine.url.render_as_string(hide_password=True)
        raise StorageError(
            f"database {where!r} could not commit: {type(group.error).__name__}: "
            f"{_first_line(group.error)} (nothing of this request was stored)"
        ) from None
    committed(engine, touched)  # reached only after the commit that stored this block


def _open_group(engine: Engine, writers: Writers) -> _Group:
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


def _end_group(writers: Writers, group: _Group) -> None:
    """Commit the group (roll it back if broken), then wake every writer waiting for it."""
    try:
        if group.broken:
            end_on_driver(group.connection, group.driver, commit=False)
            group.error = StorageError("a write failed beyond its savepoint")
        else:
            writers.timed_commit(lambda: end_on_driver(group.connection, group.driver))
    except BaseException as err:  # every writer of the group hears of it
        group.error = err
    finally:
        writers.group = None
        with suppress(Exception):  # the pool discards a connection it cannot reset
            group.connection.close()
        group.done.set()


# -- transactions begun on the driver's connection ------------------------------------------


def begin_on_driver(connection: Connection, driver: Any) -> None:
    """BEGIN IMMEDIATE on `connection`'s driver connection (`driver`, sqlite3's) itself.

    Why: every write is one transaction, and SQLAlchemy's (`Connection.begin`, then `commit`)
    builds Transaction objects and runs its events around the driver's calls, which costs
    more Python than the BEGIN and the COMMIT themselves. Why it is still right: the
    statements are the same ones SQLAlchemy would have the driver run (BEGIN IMMEDIATE from
    the engine's "begin" event; the driver's `commit` and `rollback`, `end_on_driver`), on
    the same connection; the driver says that the transaction is open (`in_transaction`), so
    a statement run through SQLAlchemy's `Connection.execute` in it joins it (`_begin` sends
    no second BEGIN) and `end_on_driver` then ends it through SQLAlchemy, as before. The
    driver's error comes out as SQLAlchemy's (OperationalError for "database is locked").
    """
    run_sql(connection, "BEGIN IMMEDIATE")


def end_on_driver(connection: Connection, driver: Any, *, commit: bool = True) -> None:
    """Commit (or roll back) the transaction `begin_on_driver` began: on the driver when
    only the driver knows of it, else (a statement through SQLAlchemy joined it) through
    SQLAlchemy's transaction, which ends it on the driver in turn."""
    joined = connection.get_transaction()
    if joined is not None:
        joined.commit() if commit else joined.rollback()
    elif commit:
        driver_call(connection, driver.commit, "COMMIT")
    else:
        driver_call(connection, driver.rollback, "ROLLBACK")


def _first_line(err: BaseException) -> str:
    text = str(getattr(err, "orig", None) or err).strip()
    return text.splitlines()[0] if text else "unknown"


# -- at once, on the calling thread ----------------------------------------------------------


class WriterConnection:
    """The connection a store's writes run at once on (`begin_now`), made when first needed
    and kept: such a write takes no connection from the pool and gives none back. Its busy
    timeout is 0, so a BEGIN never waits for another process's write lock; the busy timeout
    the pool gave it is set back before the connection goes back to the pool (`close`)."""

    __slots__ = ("_connection", "busy_ms", "driver", "engine")

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._connection: Connection | None = None
        #: The driver's connection under it (sqlite3's), while there is one.
        self.driver: Any = None
        #: The busy timeout (ms) the connection had from the pool, read when it is made (`get`)
        #: and set back by `close`.
        self.busy_ms = 0

    def get(self) -> Connection:
        """The connection (a new one if there is none, or the last one broke); `driver` is
        the driver's connection under it."""
        connection = self._connection
        if connection is None or connection.closed or connection.invalidated:
            connection = self.engine.connect()
            try:
                connection.execution_options(**{WRITE: True})
                busy_ms = int(rows_of_sql(connection, "PRAGMA busy_timeout")[0][0])
                run_sql(connection, "PRAGMA busy_timeout=0")
                driver = connection.connection.driver_connection
            except BaseException:
                connection.close()
                raise
            self._connection, self.driver, self.busy_ms = connection, driver, busy_ms
        return connection

    def close(self) -> None:
        """Give the connection back to the pool with the busy timeout it came with (as every
        other one's), or drop it if it cannot be trusted any more."""
        connection, self._connection, self.driver = self._connection, None, None
        if connection is None or connection.closed:
            return
        try:
            run_sql(connection, f"PRAGMA busy_timeout={self.busy_ms}")
        except DBAPIError:
            connection.invalidate()  # not back to the pool: the driver's connection is closed
        connection.close()


class Begun:
    """A SQLite write transaction begun on the calling thread (`begin_now`), on the driver's
    connection itself (`begin_on_driver`), holding the writers' lock until it is left as a
    context manager (`run_begun`): committed then, else rolled back."""

    __slots__ = ("connection", "driver", "engine", "writer", "writers")

    def __init__(self, engine: Engine, writers: Writers, writer: WriterConnection) -> None:
        self.engine = engine
        self.writers = writers
        self.writer = writer
        self.connection = writer.get()
        self.driver = writer.driver
        begin_on_driver(self.connection, self.driver)

    def __enter__(self) -> Connection:
        return self.connection

    def __exit__(self, kind: object, err: BaseException | None, _trace: object) -> None:
        """Commit (timed, for `begin_now`) when the block ended well, else roll back; the
        writers' lock is released either way, and `committed` told only after a commit.
        (A class rather than a generator: this is every write the event loop runs.)"""
        writers, writer, connection = self.writers, self.writer, self.connection
        touched: set[str] = set()
        try:
            if err is not None:
                take_touched(connection)
                try:
                    end_on_driver(connection, self.driver, commit=False)
                except DBAPIError:
                    writer.close()
                return
            try:
                writers.timed_commit(self._commit)
            except BaseException:
                writer.close()  # whatever SQLite left of the transaction goes with the connection
                raise
            touched = take_touched(connection)
        finally:
            writers.lock.release()
        committed(self.engine, touched)  # reached only after the commit

    def _commit(self) -> None:
        end_on_driver(self.connection, self.driver)


def begin_now(engine: Engine, writer: WriterConnection) -> Begun | None:
    """A write transaction begun now on the calling thread, on `writer`, or None where it
    would have to wait.

    For the event loop, which then runs a write itself instead of handing it to a worker
    thread (the hand-off costs more than a quick SQLite write). None, so the caller takes the
    usual way (a unit of work on a thread): on PostgreSQL (every statement is a round trip);
    while another writer of this process holds or waits for the writers' lock (a group may be
    open), or another process holds SQLite's (the BEGIN IMMEDIATE is tried once, without the
    busy timeout's wait); and while commits have been slow lately (more than
    `INLINE_COMMIT_S` on average: a slow fsync would hold the loop, and on threads one
    commit serves a whole group of writers).
    """
    writers = _WRITERS.get(engine)
    if writers is None or writers.waiting or writers.commit_seconds > INLINE_COMMIT_S:
        return None
    if not writers.lock.acquire(blocking=False):
        return None
    try:
        if writers.group is not None:
            writers.lock.release()
            return None
        return Begun(engine, writers, writer)
    except OperationalError as err:
        writers.lock.release()
        writer.close()  # after a failed BEGIN the connection's state is not to be trusted
        if "database is locked" in str(err.orig):  # another process writes: take a thread
            return None
        raise
    except BaseException:
        writers.lock.release()
        raise
