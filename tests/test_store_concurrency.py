"""Concurrent writers never fork or interleave a bout's chain (DESIGN.md, Storage)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError

from referee.errors import ConflictError
from referee.ledger import roll_payload, verify_chain, verify_ledger
from referee.rng import VerifiableRng
from referee.store import Store
from referee.store import core as store_core
from referee.store.writers import Writers, writers_of
from tests.drafts import Draft, note

AT = "2026-11-29T22:40:12.000000Z"
WRITERS = 4
ACTIONS = 8


def action(actor: str) -> Any:
    """One action: a roll and the note that reads it, appended together."""

    def build(events: Any, rng: VerifiableRng) -> list[Any]:
        t = rng.throw((20, 20, 6))
        rolled = Draft("roll", actor, roll_payload(t.nonce or 0, t.dice, t.faces))
        return [rolled, Draft("note", actor, {"sum": sum(t.faces)})]

    return build


def hammer(stores: list[Store]) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(WRITERS)

    def writer(number: int) -> None:
        store = stores[number % len(stores)]
        try:
            start.wait()
            for _ in range(ACTIONS):
                store.extend("b1", action(f"w{number}"))
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []


def check_unforked(store: Store) -> None:
    events = store.events("b1")
    assert [e["seq"] for e in events] == list(range(2 * WRITERS * ACTIONS))
    assert verify_chain(events) == []
    rolls = [e for e in events if e["type"] == "roll"]
    assert [e["payload"]["nonce"] for e in rolls] == list(range(WRITERS * ACTIONS))
    # every roll is followed at once by its own note: no interleaving inside an append
    for rolled, noted in zip(events[::2], events[1::2], strict=True):
        assert (rolled["type"], noted["type"], rolled["actor"]) == ("roll", "note", noted["actor"])
    assert Counter(e["actor"] for e in rolls) == {f"w{n}": ACTIONS for n in range(WRITERS)}
    store.reveal_seed("b1")
    assert verify_ledger(store.export("b1")).ok


def test_threads_on_one_store(db_url: str) -> None:
    with Store.open(db_url) as store:
        store.create_bout(system="msv", name="Spar", bout_id="b1", client_seed="t")
        hammer([store])
        check_unforked(store)


def test_two_stores_on_one_database(db_url: str) -> None:
    first, second = Store.open(db_url), Store.open(db_url)
    try:
        first.create_bout(system="msv", name="Spar", bout_id="b1", client_seed="t")
        hammer([first, second])
        check_unforked(second)
    finally:
        first.close()
        second.close()


def test_a_writer_that_loses_a_race_retries(db_url: str, monkeypatch: Any) -> None:
    monkeypatch.setattr(store_core, "backoff", lambda _attempt: None)
    calls: list[int] = []

    def racing(events: list[Any], dice: Any) -> list[Any]:
        calls.append(len(events))
        if len(calls) < 3:
            raise IntegrityError("INSERT INTO events", {}, Exception("duplicate key (b1, 0)"))
        return [Draft("note", "ref", {})]

    def always_losing(events: list[Any], dice: Any) -> list[Any]:
        raise IntegrityError("INSERT INTO events", {}, Exception("duplicate key"))

    with Store.open(db_url) as store:
        store.create_bout(system="msv", name="Spar", bout_id="b1")
        assert [e["seq"] for e in store.extend("b1", racing)] == [0]
        assert calls == [0, 0, 0]
        with pytest.raises(ConflictError, match="could not append after 8 attempts"):
            store.extend("b1", always_losing)
        assert len(store.events("b1")) == 1


def test_the_primary_key_forbids_a_fork(db_url: str) -> None:
    with Store.open(db_url) as store:
        store.create_bout(system="msv", name="Spar", bout_id="b1")
        event = store.extend("b1", lambda events, dice: [Draft("note", "a", {})])[0]
        with pytest.raises(IntegrityError), store._engine.begin() as conn:
            conn.exec_driver_sql(
                "INSERT INTO events (bout_id, seq, type, actor, at, payload, prev, hash) "
                f"VALUES ('b1', 0, 'note', 'b', '{AT}', '{{}}', '{event['prev']}', 'x')"
            )


def wait_until(condition: Any, what: str, timeout: float = 30.0) -> None:
    """Wait (generously) for another thread to reach a state."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.005)


def in_one_group(writers: Writers, first: Any, second: Any) -> None:
    """Run `first` on a thread until it holds the writers' lock, then `second` on another;
    wait for both (a generous bound: neither waits on a clock)."""
    one = threading.Thread(target=first)
    one.start()
    wait_until(lambda: writers.group is not None, "the first writer holds the lock")
    two = threading.Thread(target=second)
    two.start()
    for thread in (one, two):
        thread.join(60)
        assert not thread.is_alive(), "a writer did not finish"


def test_group_commit_acknowledges_a_writer_only_with_the_commit_that_stores_it(
    tmp_path: Path,
) -> None:
    """SQLite group commit: a writer that finishes while another waits hands the transaction
    on without committing, and returns only when the last one commits (one fsync for both);
    the other's failure rolls back its own savepoint only, never the first one's events."""
    url = str(tmp_path / "referee.db")
    with Store.open(url) as store, Store.open(url) as reader:
        for bout in ("b1", "b2"):
            store.create_bout(system="msv", name=bout, bout_id=bout, created_at=AT)
        writers = writers_of(store._engine)
        assert writers is not None
        first_done = threading.Event()
        errors: list[BaseException] = []

        def first() -> None:
            try:
                with store.unit():
                    store.extend("b1", note("kept"))
                    wait_until(lambda: writers.waiting == 1, "the second writer waits")
            except BaseException as err:
                errors.append(err)
            first_done.set()

        def second() -> None:
            try:
                with store.unit():
                    store.extend("b2", note("dropped"))
                    # The first writer's events are not committed yet: it has not returned.
                    assert reader.events("b1") == [] and not first_done.is_set()
                    raise ConflictError("changed my mind")
            except ConflictError as err:
                if str(err) != "changed my mind":
                    errors.append(err)
            except BaseException as err:
                errors.append(err)

        in_one_group(writers, first, second)
        assert not errors and first_done.is_set()
        assert [e["payload"]["text"] for e in reader.events("b1")] == ["kept"]
        assert reader.events("b2") == []
        assert writers.group is None  # the failing writer was the last: it committed
        store.extend("b2", note("later"))  # and the next writer opens a new group
        assert [e["payload"]["text"] for e in reader.events("b2")] == ["later"]


def test_a_group_whose_first_writer_fails_stores_nothing_of_it_and_the_next_writer_starts_anew(
    tmp_path: Path,
) -> None:
    """The group's first block runs without a savepoint: when it fails (here while another
    writer waits for the lock), the whole transaction is rolled back, and the waiting writer
    opens a new group whose events are stored."""
    url = str(tmp_path / "referee.db")
    with Store.open(url) as store, Store.open(url) as reader:
        for bout in ("b1", "b2"):
            store.create_bout(system="msv", name=bout, bout_id=bout, created_at=AT)
        writers = writers_of(store._engine)
        assert writers is not None
        errors: list[BaseException] = []
        groups: list[object] = []

        def first() -> None:
            try:
                with store.unit():
                    store.extend("b1", note("dropped"))
                    groups.append(writers.group)
                    wait_until(lambda: writers.waiting == 1, "the second writer waits")
                    raise ConflictError("changed my mind")
            except ConflictError as err:
                if str(err) != "changed my mind":
                    errors.append(err)
            except BaseException as err:
                errors.append(err)

        def second() -> None:
            try:
                with store.unit():
                    groups.append(writers.group)
                    store.extend("b2", note("kept"))
            except BaseException as err:
                errors.append(err)

        in_one_group(writers, first, second)
        assert not errors
        assert reader.events("b1") == []
        assert [e["payload"]["text"] for e in reader.events("b2")] == ["kept"]
        first_group, second_group = groups
        assert first_group is not second_group  # the failed group was not handed on
        assert writers.group is None
