"""Idempotency-Key receipts expire: within `Keep.seconds` a retry gets the first answer and
runs nothing; after it the key is forgotten and the same request runs again. The clock is the
test's own (nothing races the wall clock); SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from referee.service.receipts import Keep, digest, once
from referee.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _count(store: Store) -> int:
    with store._engine.connect() as conn:
        return int(conn.exec_driver_sql("SELECT count(*) FROM receipts").scalar() or 0)


def test_a_receipt_answers_retries_until_it_expires(db_url: str) -> None:
    clock = Clock()
    keep = Keep(seconds=3600, clock=clock, prune_every=5)
    runs: list[int] = []

    def run() -> dict[str, Any]:
        runs.append(len(runs))
        return {"answer": len(runs)}

    with Store.open(db_url) as store:
        assert once(store, "k", "tok", "req", run, keep) == {"answer": 1}
        clock.now += 3599
        assert once(store, "k", "tok", "req", run, keep) == {"answer": 1}  # a retry: kept
        assert runs == [0]
        clock.now += 2  # 3601 s after the first: expired, the key is new again
        assert once(store, "k", "tok", "req", run, keep) == {"answer": 2}
        assert once(store, "k", "tok", "req", run, keep) == {"answer": 2}
        assert runs == [0, 1]
        assert _count(store) == 1  # the expired receipt was replaced, not kept beside it
        # The fifth receipt kept deletes the expired ones ("k" and "a", kept an hour before).
        assert once(store, "a", None, "req", run, keep) == {"answer": 3}
        clock.now += 3601
        assert once(store, "b", None, "req", run, keep) == {"answer": 4}
        assert _count(store) == 3
        assert once(store, "c", None, "req", run, keep) == {"answer": 5}  # the fifth: prunes
        assert _count(store) == 2
        assert store.claim_receipt(digest("k", "tok")) is None  # "k" (an hour old) went too


def test_the_default_keeps_receipts_a_day() -> None:
    clock = Clock()
    now, since = Keep(clock=clock).times()
    assert (now, since) == ("2027-01-15T08:00:00.000000Z", "2027-01-14T08:00:00.000000Z")
