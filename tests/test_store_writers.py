"""Writes the event loop runs itself (`Store.unit_now`, `referee.store.writers.begin_now`): only
where they need not wait, whole or nothing, on a kept connection that never waits for another
process and goes back to the pool as it came.

Which way a write goes depends on how long commits took lately; every test here times them by
a clock of its own (`Ticking`), never by the machine's, so a busy machine changes nothing."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from referee.errors import ConflictError
from referee.service.app import create_app
from referee.service.bouts import Caller
from referee.service.routing import Ask, Write
from referee.store import Store
from referee.store.writers import (
    BUSY_TIMEOUT_S,
    INLINE_COMMIT_S,
    Writers,
    writers_of,
)
from tests.drafts import note

AT = "2026-11-29T22:40:12.000000Z"


class Ticking:
    """A clock for a store's writers: each reading is `step` seconds after the one before, so
    every commit takes exactly `step` by it (0: every commit is instant)."""

    def __init__(self, step: float = 0.0) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def writers(store: Store) -> Writers:
    found = writers_of(store.engine)
    assert found is not None
    return found


def quick(store: Store) -> Writers:
    """The store's commits timed by a clock on which each takes no time, as if none so far had
    taken any (whatever opening the database took on this machine)."""
    w = writers(store)
    w.clock = Ticking(0.0)
    w.commit_seconds = 0.0
    return w


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with Store.open(str(tmp_path / "referee.db")) as opened:
        quick(opened)
        opened.create_bout(system="msv", name="b1", bout_id="b1", created_at=AT)
        yield opened


def texts(store: Store) -> list[str]:
    return [e["payload"]["text"] for e in store.events("b1")]


def test_a_unit_begun_now_stores_all_of_its_block_or_none_and_frees_the_lock(store: Store) -> None:
    unit = store.unit_now()
    assert unit is not None
    with unit:
        assert writers(store).lock.locked()
        store.extend("b1", note("one"))
        store.extend("b1", note("two"))
    assert texts(store) == ["one", "two"]
    assert not writers(store).lock.locked()
    unit = store.unit_now()
    assert unit is not None
    with pytest.raises(ConflictError), unit:
        store.extend("b1", note("three"))
        raise ConflictError("changed my mind")
    assert texts(store) == ["one", "two"]
    assert not writers(store).lock.locked()
    unit = store.unit_now()  # the kept connection is usable again after the rollback
    assert unit is not None
    with unit:
        store.extend("b1", note("four"))
    assert texts(store) == ["one", "two", "four"]


def test_no_unit_begins_now_inside_a_unit(store: Store) -> None:
    with store.unit():
        assert store.unit_now() is None


def test_no_unit_begins_now_while_another_writer_of_the_process_holds_or_waits_for_the_lock(
    store: Store,
) -> None:
    w = writers(store)
    with w.lock:
        assert store.unit_now() is None
    w.waiting += 1
    try:
        assert store.unit_now() is None
    finally:
        w.waiting -= 1
    unit = store.unit_now()
    assert unit is not None
    with unit:
        pass


def test_no_unit_begins_now_while_commits_are_slow_and_one_does_again_once_they_are_quick(
    store: Store,
) -> None:
    w = writers(store)
    w.clock = Ticking(100 * INLINE_COMMIT_S)  # a disk whose fsync stalls
    with store.unit():
        store.extend("b1", note("slow"))
    assert w.commit_seconds == pytest.approx(20 * INLINE_COMMIT_S)  # the average moved a fifth
    assert store.unit_now() is None
    w.clock = Ticking(0.0)
    quick_commits = 0
    while w.commit_seconds > INLINE_COMMIT_S:  # quick commits, on threads, bring it back
        assert store.unit_now() is None
        with store.unit():
            store.extend("b1", note("quick"))
        quick_commits += 1
    assert quick_commits == 14  # 20 x 0.8**14 = 0.88 <= 1 < 20 x 0.8**13
    unit = store.unit_now()
    assert unit is not None
    with unit:
        store.extend("b1", note("now"))
    assert texts(store)[-1] == "now"


def test_the_moving_average_of_commit_times(store: Store) -> None:
    w = Writers(grouped=True)
    w.took(0.010)
    assert w.commit_seconds == pytest.approx(0.002)
    w.took(0.0)
    assert w.commit_seconds == pytest.approx(0.0016)


def test_no_unit_begins_now_while_another_process_holds_sqlites_write_lock_and_none_waits(
    tmp_path: Path,
) -> None:
    """Another store on the same file stands for another process: its open write transaction
    makes `unit_now` answer None at once (no busy-timeout wait), and nothing of it is lost."""
    url = str(tmp_path / "referee.db")
    with Store.open(url) as store, Store.open(url) as other:
        quick(store)
        store.create_bout(system="msv", name="b1", bout_id="b1", created_at=AT)
        with other.unit():
            other.extend("b1", note("other"))
            assert store.unit_now() is None
            assert not writers(store).lock.locked()
        unit = store.unit_now()
        assert unit is not None
        with unit:
            store.extend("b1", note("mine"))
        assert texts(store) == ["other", "mine"]


@pytest.mark.parametrize("busy_s", [BUSY_TIMEOUT_S, 2], ids=["usual", "shorter"])
def test_the_kept_connection_goes_back_with_the_busy_timeout_its_engine_gave_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, busy_s: int
) -> None:
    """The kept connection's busy timeout is 0 while it is kept; it goes back to the pool with
    the one its engine gave it: the usual one, or another (a test's shorter one, say), so that a
    write that then takes a thread waits no longer than the engine says."""
    monkeypatch.setattr("referee.store.engine.BUSY_TIMEOUT_S", busy_s)
    with Store.open(str(tmp_path / "referee.db")) as store:
        quick(store)  # however long opening the database took on a busy machine
        unit = store.unit_now()
        assert unit is not None
        with unit:
            kept = store._writer.get()
            assert kept.execute(text("PRAGMA busy_timeout")).scalar() == 0
        store._writer.close()
        with store.engine.connect() as again:  # the pool's only idle connection: the kept one
            assert again.execute(text("PRAGMA busy_timeout")).scalar() == busy_s * 1000


@pytest.mark.parametrize("now", [True, False], ids=["begun-now", "grouped"])
def test_a_statement_through_sqlalchemy_joins_the_transaction_begun_on_the_driver(
    store: Store, now: bool
) -> None:
    """Both ways begin and end their transaction on the driver's connection itself
    (`begin_on_driver`); a statement run through SQLAlchemy in the block (`set_client_seed`'s
    UPDATE) joins that transaction: stored with the block's appends or not at all, and no
    trace of it left on the connection afterwards."""

    def unit() -> Any:
        if not now:
            return store.unit()
        begun = store.unit_now()
        assert begun is not None
        return begun

    with unit():
        store.set_client_seed("b1", "kept")
        store.extend("b1", note("one"))
    with pytest.raises(ConflictError), unit():
        store.set_client_seed("b1", "dropped")
        store.extend("b1", note("two"))
        raise ConflictError("changed my mind")
    assert store.get_bout("b1").client_seed == "kept"
    assert texts(store) == ["one"]
    with unit():  # a block with no statement through SQLAlchemy: ended on the driver
        store.extend("b1", note("three"))
    assert texts(store) == ["one", "three"]
    assert not writers(store).lock.locked()
    kept = store._writer.get()
    assert kept.get_transaction() is None
    assert not store._writer.driver.in_transaction


def test_a_write_runs_on_the_event_loop_on_sqlite(tmp_path: Path) -> None:
    """`Write.once` on SQLite runs the write on the loop's own thread (no hand-off)."""
    with Store.open(str(tmp_path / "referee.db")) as store:
        quick(store)
        ask = create_app(store).state.ask
        assert isinstance(ask, Ask)
        threads: list[int] = []

        def run(_caller: Caller) -> dict[str, Any]:
            threads.append(threading.get_ident())
            return {}

        async def scenario() -> int:
            scope = {"type": "http", "method": "POST", "path": "/", "headers": []}
            await Write(ask, scope, None, None, None).once(None, run)
            return threading.get_ident()

        loop_thread = asyncio.run(scenario())
        assert threads == [loop_thread]


@pytest.mark.postgres
def test_postgresql_never_begins_a_unit_now(pg_url: str) -> None:
    with Store.open(pg_url) as store:
        assert store.unit_now() is None
