"""Live-update notifications on PostgreSQL: sent after the commit by the engine's notifier, in
batches, never from inside the write transaction; flushed when the store closes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from referee.store import Store
from referee.store.notify import CHANNEL, listener_of
from tests.drafts import Draft

pytestmark = pytest.mark.postgres

WAIT = 60.0


def wait_for(condition: Callable[[], bool], timeout: float = WAIT) -> None:
    """Wait until `condition()` holds (checked often; generous timeout, no fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.01)


def _note(events: list[Any], dice: Any) -> list[Any]:
    return [Draft("note", None, {"n": len(events)})]


def _listening(store: Store) -> tuple[list[str | None], Callable[[], None]]:
    heard: list[str | None] = []
    stop = store.watch(heard.append)
    listener = listener_of(store.engine)
    assert listener is not None and listener.listening.wait(WAIT)
    return heard, stop


def _heard_until(watching: psycopg.Connection[Any], bout: str) -> list[str]:
    """The bouts heard on the channel until `bout` (or for WAIT seconds). Every test on the
    server shares its one database and so the channel: other tests' bouts are heard too."""
    heard: list[str] = []
    for note in watching.notifies(timeout=WAIT):
        heard.append(note.payload)
        if note.payload == bout:
            break
    return heard


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
                pid = store.client_writes().exec_driver_sql("SELECT pg_backend_pid()").scalar()
                store.extend("quiet", _note)
                last = watching.execute(
                    "SELECT query FROM pg_stat_activity WHERE pid = %s", (pid,)
                ).fetchone()
                assert last is not None and "INSERT INTO events" in last[0]
                assert "notify" not in last[0].lower()
            assert _heard_until(watching, "quiet")[-1:] == ["quiet"]


def test_commits_from_many_threads_are_all_heard_on_another_engine(pg_url: str) -> None:
    with Store.open(pg_url) as listening, Store.open(pg_url) as writing:
        heard, stop = _listening(listening)
        try:
            bouts = [f"b{i}" for i in range(12)]
            for bout in bouts:
                writing.create_bout(system="msv", name="Spar", bout_id=bout)

            def write(bout: str) -> None:
                for _ in range(5):
                    writing.extend(bout, _note)

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
                writing.extend("undone", _note)
                raise RuntimeError("the request fails after its append")
            writing.extend("kept", _note)
            wait_for(lambda: "kept" in heard)
            writing.extend("kept", _note)  # sent after the one before: "undone" had its turn
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
            writing.extend("last", _note)
            writing.close()
            wait_for(lambda: "last" in heard)
        finally:
            stop()


def test_a_commit_is_notified_only_after_it_is_visible(pg_url: str) -> None:
    """A unit still open has told no one, though a later write's commit has been heard (one
    notifier sends in order: a bout handed over before the commit would have gone with or
    before it); once the unit commits it is heard, and whoever hears it can read its event."""
    with Store.open(pg_url) as listening, Store.open(pg_url) as writing:
        writing.create_bout(system="msv", name="Spar", bout_id="held")
        writing.create_bout(system="msv", name="Spar", bout_id="other")
        seen: dict[str, int] = {}

        def heard(bout: str | None) -> None:
            if bout is not None and bout not in seen:
                seen[bout] = len(listening.events(bout))

        stop = listening.watch(heard)
        listener = listener_of(listening.engine)
        assert listener is not None and listener.listening.wait(WAIT)
        try:
            with writing.unit():
                writing.extend("held", _note)
                other = threading.Thread(target=writing.extend, args=("other", _note))
                other.start()
                other.join(WAIT)
                wait_for(lambda: "other" in seen)
                assert "held" not in seen
            wait_for(lambda: "held" in seen)
            assert seen == {"other": 1, "held": 1}
        finally:
            stop()


_WRITE_AND_EXIT = """
import sys
from types import SimpleNamespace
from referee.store import Store

store = Store.open(sys.argv[1])
store.extend("exiting", lambda events, dice: [SimpleNamespace(type="note", actor=None, payload={})])
print("written", flush=True)
# no close: the interpreter's exit sends the notification still due
"""


def test_a_process_that_writes_and_exits_without_closing_is_heard(pg_url: str) -> None:
    with Store.open(pg_url) as store:
        store.create_bout(system="msv", name="Spar", bout_id="exiting")
    conninfo = pg_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(conninfo, autocommit=True) as watching:
        watching.execute(f"LISTEN {CHANNEL}")
        done = subprocess.run(
            [sys.executable, "-c", _WRITE_AND_EXIT, pg_url],
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )
        assert done.returncode == 0 and done.stdout == "written\n", done.stderr
        assert _heard_until(watching, "exiting")[-1:] == ["exiting"]
