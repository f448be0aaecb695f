"""Telling live streams that a bout has new events: in-process, and across processes on
PostgreSQL (LISTEN/NOTIFY).

Every transaction that inserts events marks the bout (`appended`). On PostgreSQL it also
runs `pg_notify('referee_events', BOUT_ID)`, which the server delivers to every listening
session when (and only if) the transaction commits. After a commit, `write_transaction`
calls `committed`, which tells this process's watchers at once. A `Listener` thread per
engine holds one extra PostgreSQL session with `LISTEN referee_events` and hands every
notification (from any service process on the database) to the watchers; after it
(re)connects it says `None` ("anything may have changed"). SQLite has no cross-process
notification: other processes' writes are found by polling (see service/live.py).

>>> from referee.store import Store
>>> store = Store.open("sqlite://")
>>> heard = []
>>> stop = store.watch(heard.append)
>>> _ = store.create_bout(system="msv", name="Spar", bout_id="b1")
>>> from referee.ledger import chain
>>> def note(last, events):
...     return [chain(last, "note", None, {}, "2026-11-29T22:40:13.000000Z")]
>>> _ = store.append("b1", note)
>>> heard
['b1']
>>> stop()
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable

from sqlalchemy import Connection, Engine, text

log = logging.getLogger("referee.store")

#: The PostgreSQL notification channel; the payload is the bout id.
CHANNEL = "referee_events"
#: Key in a connection's `info` holding the bouts the open transaction appended to.
_TOUCHED = "referee_touched"
#: Seconds the listener waits for a notification before checking whether to stop.
_LISTEN_TICK = 1.0

#: A watcher: called with a bout id, or None when any bout may have changed.
Watcher = Callable[[str | None], None]

_WATCHERS: weakref.WeakKeyDictionary[Engine, list[Watcher]] = weakref.WeakKeyDictionary()
_LISTENERS: weakref.WeakKeyDictionary[Engine, Listener] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()

_NOTIFY = text("SELECT pg_notify(:channel, :bout_id)")


def appended(conn: Connection, bout_id: str, *, notified: bool = False) -> None:
    """Mark `bout_id` as changed by the open transaction (and NOTIFY on PostgreSQL, unless
    the statement that appended already did: `notified`)."""
    touched: set[str] = conn.info.setdefault(_TOUCHED, set())
    if bout_id in touched:
        return
    touched.add(bout_id)
    if conn.dialect.name == "postgresql" and not notified:
        conn.execute(_NOTIFY, {"channel": CHANNEL, "bout_id": bout_id})


def take_touched(conn: Connection) -> set[str]:
    """The bouts the transaction just ended appended to (and forget them)."""
    touched: set[str] = conn.info.pop(_TOUCHED, set())
    return touched


def committed(engine: Engine, bouts: set[str]) -> None:
    """Tell this process's watchers that `bouts` have new committed events."""
    if not bouts:
        return
    with _LOCK:
        watchers = list(_WATCHERS.get(engine, ()))
    for watcher in watchers:
        for bout_id in sorted(bouts):
            _call(watcher, bout_id)


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


class Listener(threading.Thread):
    """One PostgreSQL session that LISTENs on CHANNEL and passes notifications on."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(name="referee-listen", daemon=True)
        # A plain libpq URL for psycopg (the password stays in memory only).
        self._conninfo = engine.url.set(drivername="postgresql").render_as_string(
            hide_password=False
        )
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
    "Watcher",
    "appended",
    "committed",
    "crosses_processes",
    "listener_of",
    "take_touched",
    "watch",
]
