"""PostgreSQL's `lock_timeout` (the busy timeout, docs/storage.md) cuts off a wait for a row
lock, not for an advisory lock: a process starting while another migrates, a retry with the
same Idempotency-Key while the first request runs, a process making the shared rate counters'
table while another does, each waits for as long as the other holds the lock, then goes on.

The busy timeout is 1 s here; the holder lets go only once PostgreSQL shows the waiter has
waited for its advisory lock for twice that (`pg_locks.waitstart`, the server's clock): before
the fix the waiter failed at 1 s and never got there. No sleep races a clock."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import Connection, text

from referee.errors import StorageError
from referee.store import Store
from referee.store.counters import TABLE, SharedCounters
from referee.store.engine import make_engine
from referee.store.migrations import MIGRATION_LOCK
from referee.store.units import ambient

pytestmark = pytest.mark.postgres


@dataclass(frozen=True)
class Note:
    type: str
    actor: str | None
    payload: dict[str, Any]


#: How long the test waits at most for something PostgreSQL is to show (a failure bound, not a
#: measure: the test goes on as soon as it shows).
BOUND_S = 60.0

_WAITED = text(
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
    "AND clock_timestamp() - waitstart > interval '2 seconds'"
)


@pytest.fixture
def short_lock_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The busy timeout (PostgreSQL's `lock_timeout`) at 1 s instead of 30, for the engines
    made from now on."""
    monkeypatch.setattr("referee.store.engine.BUSY_TIMEOUT_S", 1)


def hold_until_waited_out(
    pg_url: str, key: str, params: dict[str, Any], wait: Callable[[], Any]
) -> Any:
    """Hold advisory lock `key` from another session while `wait` runs in a thread; let go
    once the waiter has waited for it past twice the lock timeout (or the thread has ended);
    `wait`'s answer, or what it raised."""
    outcome: list[Any] = []
    done = threading.Event()

    def waiter() -> None:
        try:
            outcome.append(wait())
        except BaseException as err:  # handed to the test thread
            outcome.append(err)
        finally:
            done.set()

    holder_engine = make_engine(pg_url)
    try:
        with holder_engine.connect() as holder, holder_engine.connect() as watcher:
            holder.execute(text(f"SELECT pg_advisory_xact_lock({key})"), params)
            thread = threading.Thread(target=waiter)
            thread.start()
            waited = _waited_long(watcher, done)
            holder.rollback()  # lets go of the lock
            thread.join(BOUND_S)
            assert not thread.is_alive()
    finally:
        holder_engine.dispose()
    assert waited or isinstance(outcome[0], BaseException), "the waiter never waited"
    return outcome[0]


def _waited_long(watcher: Connection, done: threading.Event) -> bool:
    """Whether some session waited for an advisory lock past twice the lock timeout before
    the waiter's thread ended (polling, with BOUND_S as the bound)."""
    for _ in range(int(BOUND_S / 0.05)):
        if int(watcher.execute(_WAITED).scalar_one()):
            return True
        watcher.rollback()  # a fresh snapshot of pg_locks next time
        if done.wait(0.05):
            return False
    return False


def test_a_process_starting_while_another_migrates_waits_for_it(
    short_lock_timeout: None, pg_url: str
) -> None:
    Store.open(pg_url).close()  # the schema made: the waiter only checks it, under the lock

    def start() -> int:
        with Store.open(pg_url) as store:
            store.create_bout(system="msv", name="Spar", client_seed="t", bout_id="b1")
            return len(store.events("b1"))

    outcome = hold_until_waited_out(pg_url, ":key", {"key": MIGRATION_LOCK}, start)
    assert outcome == 0


def test_a_retry_with_the_same_idempotency_key_waits_for_the_first(
    short_lock_timeout: None, pg_url: str
) -> None:
    with Store.open(pg_url) as store:
        store.keep_receipt("d" * 64, "req", "answer")

        def retry() -> tuple[str, str] | None:
            with store.unit():
                return store.claim_receipt("d" * 64)

        key = "hashtextextended(:digest, 0)"
        assert hold_until_waited_out(pg_url, key, {"digest": "d" * 64}, retry) == (
            "req",
            "answer",
        )


def test_making_the_shared_counters_table_waits_for_another_process(
    short_lock_timeout: None, pg_url: str
) -> None:
    counters = SharedCounters(make_engine(pg_url))

    def take() -> dict[str, float]:
        return counters.take([("k", 1.0, 2.0)], 100.0)

    assert hold_until_waited_out(pg_url, "hashtext(:t)", {"t": TABLE}, take) == {}


def test_a_row_lock_after_an_advisory_lock_still_times_out(
    short_lock_timeout: None, pg_url: str
) -> None:
    """The advisory lock's wait has no timeout; the rest of its transaction has the busy
    timeout again (and the next transaction too)."""
    with Store.open(pg_url) as store:
        store.create_bout(system="msv", name="Spar", client_seed="t", bout_id="b1")
        other = make_engine(pg_url)
        with other.connect() as holder:
            holder.execute(text("SELECT id FROM bouts WHERE id = 'b1' FOR UPDATE"))
            locked = "is locked: another connection has held"
            with pytest.raises(StorageError, match=locked), store.unit():
                assert store.claim_receipt("e" * 64) is None
                store.extend("b1", lambda events, dice: [Note("note", "ref", {})])
            holder.rollback()
        other.dispose()
        with store.unit():
            assert store.claim_receipt("e" * 64) is None
            conn = ambient(store.engine)
            assert conn is not None
            assert conn.exec_driver_sql("SHOW lock_timeout").scalar() == "1s"
        with store.unit():  # the next transaction
            again = ambient(store.engine)
            assert again is not None
            assert again.exec_driver_sql("SHOW lock_timeout").scalar() == "1s"
