"""One key holds one character of a name, and at most 50: two creates or renames under one
key at once queue on the key's row (`Store.lock_character_key`), so the second reads what the
first wrote and is refused (409), on SQLite and PostgreSQL alike.

Over HTTP two threads start together (a Barrier). On PostgreSQL a second test makes the order
certain: one unit has made "Tarl" and not committed; a second create of the name, in another
thread, is seen waiting for the key's row lock (pg_locks) before the first commits. Without
the lock it did not wait, and both were kept."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from referee.errors import ConflictError
from referee.service import characters
from referee.store import Store
from referee.store.engine import make_engine
from tests.service_fixtures import LiveServer
from tests.test_characters_api import made

#: How long the test waits at most for something to show (a failure bound, not a measure).
BOUND_S = 60.0


def together(*calls: Any) -> list[httpx.Response]:
    """Each call in a thread of its own, all let go at once; their answers, in order."""
    start = threading.Barrier(len(calls))
    answers: list[Any] = [None] * len(calls)

    def run(n: int) -> None:
        start.wait(BOUND_S)
        answers[n] = calls[n]()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(BOUND_S)
    assert all(isinstance(answer, httpx.Response) for answer in answers)
    return answers


def names(live: LiveServer, key: str) -> list[str]:
    return [c["name"] for c in live.get("/api/characters", key).json()["characters"]]


def test_two_creates_of_one_name_under_one_key_at_once_keep_one(live: LiveServer) -> None:
    key = made(live, name="Pa-Kur")["key"]
    body = {"name": "Tarl", "system": "msv", "sheet": {"cs": 65}}
    answers = together(
        lambda: live.post("/api/characters", key, json=body),
        lambda: live.post("/api/characters", key, json={**body, "name": "TARL"}),
    )
    assert sorted(a.status_code for a in answers) == [201, 409], [a.text for a in answers]
    assert sorted(n.lower() for n in names(live, key)) == ["pa-kur", "tarl"]


def test_two_renames_to_one_name_under_one_key_at_once_keep_one(live: LiveServer) -> None:
    first = made(live, name="Pa-Kur")
    key = first["key"]
    second = made(live, key, name="Kamchak")
    answers = together(
        *(
            lambda cid=c["character"]["id"]: live.request(
                "PATCH", f"/api/characters/{cid}", key, json={"name": "Tarl"}
            )
            for c in (first, second)
        )
    )
    assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
    assert sorted(names(live, key)) in (["Kamchak", "Tarl"], ["Pa-Kur", "Tarl"])


@pytest.mark.postgres
def test_a_create_waits_for_another_units_create_under_the_key(pg_url: str) -> None:
    sheet = {"cs": 65}
    with Store.open(pg_url) as store:
        key = characters.create(store, None, "Pa-Kur", "msv", sheet)["key"]
        outcome: list[Any] = []
        done = threading.Event()

        def second() -> None:
            try:
                outcome.append(characters.create(store, key, "tarl", "msv", sheet))
            except ConflictError as err:
                outcome.append(err)
            finally:
                done.set()

        watcher_engine = make_engine(pg_url)
        try:
            with watcher_engine.connect() as watcher, store.unit():
                characters.create(store, key, "Tarl", "msv", sheet)  # joins this unit
                thread = threading.Thread(target=second)
                thread.start()
                seen_waiting = _waits_for_a_row(watcher, done)
            thread.join(BOUND_S)  # the unit committed: the second goes on
            assert not thread.is_alive()
        finally:
            watcher_engine.dispose()
        assert seen_waiting, f"the second create did not wait: {outcome}"
        assert isinstance(outcome[0], ConflictError)
        assert "already holds a character called 'Tarl'" in str(outcome[0])
        assert [c.name for c in store.characters_of(key)] == ["Pa-Kur", "Tarl"]


def _waits_for_a_row(watcher: Any, done: threading.Event) -> bool:
    """Whether some session waits for a row lock (a transaction's or a tuple's, as
    PostgreSQL shows them in pg_locks) before `done` (polling, BOUND_S the bound)."""
    waiting = text(
        "SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype IN ('transactionid', 'tuple')"
    )
    for _ in range(int(BOUND_S / 0.05)):
        if int(watcher.execute(waiting).scalar_one()):
            return True
        watcher.rollback()
        if done.wait(0.05):
            return False
    return False
