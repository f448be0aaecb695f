"""Telling live streams that a bout has new events: in-process, and across processes on
PostgreSQL (LISTEN/NOTIFY).

Every transaction that inserts events marks the bout (`appended`). After a commit,
`write_transaction` calls `committed`, which tells this process's watchers at once, and on
PostgreSQL hands the bouts to the engine's `Notifier`: a thread with a session of its own
that runs `pg_notify('referee_events', BOUT_ID)` for every bout committed since its last
round trip, in one statement and its own transaction (which PostgreSQL need not flush to disk:
`synchronous_commit` off), so one notification serves many commits. A rolled-back
transaction notifies no one. The write transactions themselves do not notify: PostgreSQL
takes one lock for the whole database from the commit of a transaction that notifies to its
end (its WAL flush included), so writers that notified committed one at a time;
`benchmarks/bench_scale.py` measured the difference. A `Listener` thread per engine holds
one extra PostgreSQL session with `LISTEN referee_events` and hands every notification
(from any service process on the database) to the watchers; after it (re)connects it says
`None` ("anything may have changed"). SQLite has no cross-process notification: other
processes' writes are found by polling (see service/live.py), which on PostgreSQL remains
the safety net (a process killed between a commit and its notification).

>>> from referee.store import Store
>>> store = Store.open("sqlite://")
>>> heard = []
>>> stop = store.watch(heard.append)
>>> _ = store.create_bout(system="msv", name="Spar", bout_id="b1")
>>> from types import SimpleNamespace
>>> note = SimpleNamespace(type="note", actor=None, payload={})
>>> _ = store.extend("b1", lambda events, dice: [note])
>>> heard
['b1']
>>> stop()
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections.abc import Callable

from sqlalchemy import Connection, Engine

log = logging.getLogger("referee.store")

#: The PostgreSQL notification channel; the payload is the bout id.
CHANNEL = "referee_events"
#: Key in a connection's `info` holding the bouts the open transaction appended to.
_TOUCHED = "referee_touched"
#: Seconds the listener waits for a notification before checking whether to stop.
_LISTEN_TICK = 1.0

#: A watcher: called with a bout id, or None when any bout may have changed.
Watcher = Callable[[str | None], None]

#: Seconds `Store.close` (and the interpreter's exit) waits for the notifications still due.
FLUSH_SECONDS = 5.0

_WATCHERS: weakref.WeakKeyDictionary[Engine, list[Watcher]] = weakref.WeakKeyDictionary()
_LISTENERS: weakref.WeakKeyDictionary[Engine, Listener] = weakref.WeakKeyDictionary()
_NOTIFIERS: weakref.WeakKeyDictionary[Engine, Notifier] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()

#: Notify every bout of a batch, one statement (PostgreSQL drops repeats in a transaction).
_NOTIFY_ALL = "SELECT pg_notify(%s, bout) FROM unnest(%s::text[]) AS bout"


def appended(conn: Connection, bout_id: str) -> None:
    """Mark `bout_id` as changed by the open transaction: it is notified after the commit."""
    touched: set[str] = conn.info.setdefault(_TOUCHED, set())
    touched.add(bout_id)


def take_touched(conn: Connection) -> set[str]:
    """The bouts the transaction just ended appended to (and forget them)."""
    touched: set[str] = conn.info.pop(_TOUCHED, set())
    return touched


def committed(engine: Engine, bouts: set[str]) -> None:
    """Tell this process's watchers that `bouts` have new committed events, and on PostgreSQL
    every other session listening (soon after, by the engine's `Notifier`)."""
    if not bouts:
        return
    with _LOCK:
        watchers = list(_WATCHERS.get(engine, ()))
        notifier = None
        if crosses_processes(engine):
            notifier = _NOTIFIERS.get(engine)
            if notifier is None or not notifier.is_alive():
                notifier = _NOTIFIERS[engine] = Notifier(engine)
                notifier.start()
    if notifier is not None:
        notifier.add(bouts)
    for watcher in watchers:
        for bout_id in sorted(bouts):
            _call(watcher, bout_id)


def flush(engine: Engine, seconds: float = FLUSH_SECONDS) -> bool:
    """Send the notifications of `engine`'s commits still due and stop its notifier (at
    `Store.close`); whether they were all sent within `seconds`."""
    with _LOCK:
        notifier = _NOTIFIERS.pop(engine, None)
    return True if notifier is None else notifier.finish(seconds)


@atexit.register
def _flush_all() -> None:
    """At the interpreter's exit, the notifications still due of every engine (a command
    that wrote and exits: the service's streams hear of it now, not at their next poll)."""
    with _LOCK:
        notifiers = list(_NOTIFIERS.values())
        _NOTIFIERS.clear()
    deadline = time.monotonic() + FLUSH_SECONDS
    for notifier in notifiers:
        notifier.finish(max(0.0, deadline - time.monotonic()))


def watch(engine: Engine, watcher: Watcher) -> Callable[[], None]:
    """Call `watcher(bout_id)` after every commit that appends events (from any thread;
    on PostgreSQL also for other processes' commits). Returns the function that stops it."""
    with _LOCK:
        _WATCHERS.setdefault(engine, []).append(watcher)
        if engine.dialect.name == "postgresql" and engine not in _LISTENERS:
            listener = Listener(engine)
            _LISTENERS[engine] = listener
            listener.start()

    def stop() -> None:
        with _LOCK:
            watchers = _WATCHERS.get(engine, [])
            if watcher in watchers:
                watchers.remove(watcher)
            if not watchers:
                listener = _LISTENERS.pop(engine, None)
                if listener is not None:
                    listener.stop()

    return stop


def crosses_processes(engine: Engine) -> bool:
    """Whether other processes' writes are notified (PostgreSQL) rather than polled for."""
    return engine.dialect.name == "postgresql"


def _call(watcher: Watcher, bout_id: str | None) -> None:
    try:
        watcher(bout_id)
    except Exception:  # a watcher's bug must not fail the write that already committed
        log.exception("a live-update watcher failed")


def _conninfo(engine: Engine) -> str:
    """A plain libpq URL of the engine's database, for psycopg (the password stays in memory)."""
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


class Notifier(threading.Thread):
    """One PostgreSQL session that notifies the bouts this process committed to, after the
    commits, in batches: every bout committed to while the last round trip ran goes in the
    next one (so under load one notification serves many commits)."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(name="referee-notify", daemon=True)
        self._conninfo = _conninfo(engine)
        self._engine = weakref.ref(engine)
        self._due: set[str] = set()
        self._sending = False
        self._stopping = False
        self._done = False
        self._changed = threading.Condition()

    def add(self, bouts: set[str]) -> None:
        """Notify `bouts` soon (they have committed)."""
        with self._changed:
            self._due |= bouts
            self._changed.notify_all()

    def finish(self, seconds: float) -> bool:
        """Send what is due, then stop; whether it was all sent within `seconds`."""
        deadline = time.monotonic() + seconds
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
            while self._due or self._sending:
                left = deadline - time.monotonic()
                if left <= 0 or self._done or not self.is_alive():
                    return False
                self._changed.wait(left)
        return True

    def run(self) -> None:
        import psycopg

        conn: psycopg.Connection[tuple[object, ...]] | None = None
        try:
            while True:
                batch = self._next()
                if batch is None:
                    return
                try:
                    if conn is None or conn.closed:
                        conn = psycopg.connect(self._conninfo, autocommit=True, connect_timeout=10)
                        # A notification need not wait for a disk: nothing is stored by it.
                        conn.execute("SET synchronous_commit TO off")
                    conn.execute(_NOTIFY_ALL, (CHANNEL, sorted(batch)))
                    self._sent()
                except psycopg.Error as err:
                    log.warning(
                        "live-update notifier lost PostgreSQL (%s); retrying", type(err).__name__
                    )
                    if conn is not None:
                        conn.close()
                    conn = None
                    self._sent(again=batch)
                    with self._changed:
                        self._changed.wait_for(lambda: self._stopping, 1.0)
                        if self._stopping:  # not forever at exit: the listeners' poll finds it
                            return
        finally:
            if conn is not None:
                conn.close()
            with self._changed:
                self._sending = False
                self._done = True
                self._changed.notify_all()

    def _next(self) -> set[str] | None:
        """The bouts due (waiting for some), or None to stop."""
        with self._changed:
            while not self._due:
                if self._stopping or self._engine() is None:
                    return None
                self._changed.wait(_LISTEN_TICK)
            batch, self._due = self._due, set()
            self._sending = True
            return batch

    def _sent(self, again: set[str] | None = None) -> None:
        with self._changed:
            if again:
                self._due |= again
            self._sending = False
            self._changed.notify_all()


class Listener(threading.Thread):
    """One PostgreSQL session that LISTENs on CHANNEL and passes notifications on."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(name="referee-listen", daemon=True)
        self._conninfo = _conninfo(engine)
        self._engine = weakref.ref(engine)
        self._stopped = threading.Event()
        #: Set once the first LISTEN is in place (tests wait for it).
        self.listening = threading.Event()

    def stop(self) -> None:
        self._stopped.set()

    def run(self) -> None:
        import psycopg

        while not self._stopped.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    self._tell(None)  # notifications may have been missed while away
                    while not self._stopped.is_set():
                        for note in conn.notifies(timeout=_LISTEN_TICK):
                            self._tell(note.payload)
            except psycopg.Error as err:
                log.warning(
                    "live-update listener lost PostgreSQL (%s); retrying", type(err).__name__
                )
                self._stopped.wait(1.0)

    def _tell(self, bout_id: str | None) -> None:
        engine = self._engine()
        if engine is None:
            self._stopped.set()
            return
        with _LOCK:
            watchers = list(_WATCHERS.get(engine, ()))
        for watcher in watchers:
            _call(watcher, bout_id)


def listener_of(engine: Engine) -> Listener | None:
    """The engine's running listener (PostgreSQL with watchers), if any."""
    with _LOCK:
        return _LISTENERS.get(engine)


__all__ = [
    "CHANNEL",
    "Listener",
    "Notifier",
    "Watcher",
    "appended",
    "committed",
    "crosses_processes",
    "flush",
    "listener_of",
    "take_touched",
    "watch",
]
