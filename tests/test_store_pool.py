"""PostgreSQL's pooled connections: one idle for `PING_AFTER_IDLE_S` or longer is pinged
before use (a dropped one is replaced, and the operation goes through); one in steady use is
not pinged at all. Against a real server: its backends are really terminated."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from referee.errors import StorageError
from referee.store import Store
from referee.store import engine as engines

pytestmark = pytest.mark.postgres

WAIT = 60.0


@pytest.fixture
def store(pg_url: str) -> Iterator[Store]:
    with Store.open(pg_url) as opened:
        opened.create_bout(system="msv", name="Spar", bout_id="b1")
        yield opened


def _pooled_backends(store: Store) -> list[int]:
    """The server process ids of the store's pooled connections (checked out and back)."""
    with store._engine.connect() as conn:
        return [conn.connection.driver_connection.info.backend_pid]  # type: ignore[union-attr]


def _drop(pg_url: str, pids: list[int]) -> None:
    """Terminate these backends, and wait until the server has let them go."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        deadline = time.monotonic() + WAIT
        while admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", (pids,)
        ).fetchone() != (0,):
            assert time.monotonic() < deadline, "the backends did not end in time"
            time.sleep(0.01)


def _counting_pings(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pings: list[int] = []
    dialect = store._engine.dialect
    ping = dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return ping(dbapi_connection)

    monkeypatch.setattr(dialect, "do_ping", counted)
    return pings


def test_an_idle_connection_the_server_dropped_is_replaced_before_use(
    store: Store, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engines, "PING_AFTER_IDLE_S", 0.0)  # every checkout counts as idle
    _drop(pg_url, _pooled_backends(store))
    assert store.get_bout("b1").id == "b1"  # pinged, replaced, answered
    assert store.events("b1") == []


def test_without_the_ping_a_dropped_connection_fails_one_operation_only(
    store: Store, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the ping saves: unpinged, the dropped connection fails the operation that
    meets it (a clear StorageError; the pool then starts afresh for the next one)."""
    monkeypatch.setattr(engines, "PING_AFTER_IDLE_S", 3600.0)
    _drop(pg_url, _pooled_backends(store))
    with pytest.raises(StorageError, match="is unavailable"):
        store.get_bout("b1")
    assert store.get_bout("b1").id == "b1"


def test_a_connection_in_steady_use_is_not_pinged(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    pings = _counting_pings(store, monkeypatch)
    monkeypatch.setattr(engines, "PING_AFTER_IDLE_S", 3600.0)
    for _ in range(20):
        store.get_bout("b1")
    assert pings == []
    monkeypatch.setattr(engines, "PING_AFTER_IDLE_S", 0.0)
    for _ in range(20):
        store.get_bout("b1")
    assert len(pings) == 20
