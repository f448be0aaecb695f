"""Live-update notifications on PostgreSQL: sent after the commit by the engine's notifier, in
batches, never from inside the write transaction; flushed when the store closes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from referee.ledger import chain
from referee.store import Store
from referee.store.engine import ambient
from referee.store.notify import CHANNEL, listener_of

pytestmark = pytest.mark.postgres

WAIT = 60.0


def wait_for(condition: Callable[[], bool], timeout: float = WAIT) -> None:
    """Wait until `condition()` holds (checked often; generous timeout, no fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.01)


def _note(last: Any, events: list[Any]) -> list[Any]:
    return [chain(last, "note", None, {"n": len(events)}, "2026-11-29T22:40:13.000000Z")]


def _listening(store: Store) -> tuple[list[str | None], Callable[[], None]]:
    heard: list[str | None] = []
    stop = store.watch(heard.append)
    listener = listener_of(store.engine)
    assert listener is not None and listener.listening.wait(WAIT)
    return heard, stop


def test_the_write_transaction_itself_notifies_no_one(pg_url: str) -> None:
    """The append's own statements hold no pg_notify (a transaction that notifies commits under
    PostgreSQL's one lock for the database, so writers that notified committed one at a time);
    the commit is notified afterwards, once."""
    with Store.open(pg_url) as store:
        store.create_bout(system="msv", name="Spar", bout_id="quiet")
        conninfo = store.engine.url.set(drivername="postgresql").render_as_string(
            hide_password=False
        )
        with psycopg.connect(conninfo, autocommit=True) as watching:
            watching.execute(f"LISTEN {CHANNEL}")
            with store.unit():
                unit = ambient(store.engine)
                assert unit is not None
                pid = unit.exec_driver_sql("SELECT pg_backend_pid()").scalar()
                store.append("quiet", _note)
                last = watching.execute(
                    "SELECT query FROM pg_stat_activity WHERE pid = %s", (pid,)
                ).fetchone()
                assert last is not None and "INSERT INTO events" in last[0]
                assert "notify" not in last[0].lower()
            got = [n.payload for n in watching.notifies(timeout=WAIT, stop_after=1)]
            assert got == ["quiet"]


def test_commits_from_many_threads_are_all_heard_on_another_engine(pg_url: str) -> None:
    with Store.open(pg_url) as listening, Store.open(pg_url) as writing:
        heard, stop = _listening(listening)
        try:
            bouts = [f"b{i}" for i in range(12)]
            for bout in bouts:
                writing.create_bout(system="msv", name="Spar", bout_id=bout)

            def write(bout: str) -> None:
                for _ in range(5):
                    writing.append(bout, _note)

            threads = [threading.Thread(target=write, args=(bout,)) for bout in bouts]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wait_for(lambda: set(bouts) <= set(heard))
        finally:
            stop()


def test_a_rolled_back_append_is_not_notified(pg_url: str) -> None:
    with Store.open(pg_url) as listening, Store.open(pg_url) as writing:
        heard, stop = _listening(listening)
        try:
            writing.create_bout(system="msv", name="Spar", bout_id="kept")
            writing.create_bout(system="msv", name="Spar", bout_id="undone")
            with pytest.raises(RuntimeError), writing.unit():
                writing.append("undone", _note)
                raise RuntimeError("the request fails after its append")
            writing.append("kept", _note)
            wait_for(lambda: "kept" in heard)
            writing.append("kept", _note)  # sent after the one before: "undone" had its turn
            wait_for(lambda: heard.count("kept") >= 2)
            assert "undone" not in heard
        finally:
            stop()


def test_closing_the_store_sends_what_is_due(pg_url: str) -> None:
    """A command that writes and exits at once: its commit is notified before `close` returns,
    not left to the streams' next poll."""
    with Store.open(pg_url) as listening:
        heard, stop = _listening(listening)
        try:
            writing = Store.open(pg_url)
            writing.create_bout(system="msv", name="Spar", bout_id="last")
            writing.append("last", _note)
            writing.close()
            wait_for(lambda: "last" in heard)
        finally:
            stop()
