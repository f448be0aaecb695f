"""The caller of a write read with the bout's lock (`Store.lock_bout`, `RefereeService.writer`):
the same answers as a token lookup, two statements fewer on SQLite, and on PostgreSQL three round
trips per attack (BEGIN with the lock, the token and the new events; the INSERT; the COMMIT),
counted in libpq's trace of the connection."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import event

from referee.bout import commands as c
from referee.errors import AuthError, ConflictError, ForbiddenError, NotFoundError
from referee.ledger import verify_chain
from referee.service.bouts import Caller, RefereeService
from referee.store import Role, Store


def _spar(service: RefereeService) -> tuple[str, str]:
    """An MSV bout with two fighters and initiative rolled: (bout id, referee token)."""
    opened = service.create_bout("msv", "Spar")
    bout, token = opened["id"], opened["referee_token"]
    referee = service.caller(bout, token)
    for name, cs in (("A", 65), ("B", 70)):
        service.add_fighter(bout, referee, name, {"cs": cs})
    service.command(bout, referee, c.RollInitiative())
    return bout, token


def _turn(service: RefereeService, bout: str) -> str:
    actor = service.state(bout).current
    assert actor is not None
    return actor


def _attack(
    service: RefereeService, bout: str, token: str, locked: bool = True, actor: str | None = None
) -> None:
    """One attack as the attack route makes it: one unit, the caller read first."""
    actor = actor or _turn(service, bout)
    with service.unit():
        caller = service.writer(bout, token) if locked else service.caller(bout, token)
        service.act(bout, caller, actor, "attack", {"target": "B" if actor == "A" else "A"})


def test_the_writer_is_the_caller_a_lookup_gives(db_url: str) -> None:
    with Store.open(db_url) as store:
        service = RefereeService(store)
        bout, token = _spar(service)
        other, other_token = _spar(service)
        fighter = store.add_token(bout, "f" * 32, Role.FIGHTER, "A")
        with service.unit():
            assert service.writer(bout, token) == Caller(Role.REFEREE)
        with service.unit():
            assert service.writer(bout, "f" * 32) == Caller(fighter.role, "A")
        with service.unit(), pytest.raises(AuthError):
            service.writer(bout, "x" * 32)
        with service.unit(), pytest.raises(ForbiddenError):
            service.writer(bout, other_token)
        # No bout: the token is judged first, as a lookup judges it (401/403 before the 404).
        with service.unit(), pytest.raises(AuthError):
            service.writer("nothing", "x" * 32)
        with service.unit(), pytest.raises(ForbiddenError):
            service.writer("nothing", token)
        with service.unit(), pytest.raises(NotFoundError):
            service.act("nothing", Caller(Role.REFEREE), "A", "attack", {"target": "B"})
        assert service.writer(other, "") == Caller(None)
        assert service.writer(other, other_token) == Caller(Role.REFEREE)  # outside a unit


def test_a_replaced_token_is_refused_by_the_next_write(db_url: str) -> None:
    with Store.open(db_url) as store:
        service = RefereeService(store)
        bout, token = _spar(service)
        _attack(service, bout, token)
        new = service.hand_over(bout, service.caller(bout, token))["referee_token"]
        with pytest.raises(AuthError):
            _attack(service, bout, token)
        _attack(service, bout, new)
        assert verify_chain(service.records(bout)) == []


def test_a_lock_kept_for_the_next_append_is_not_reused_after_the_row_changed(
    db_url: str,
) -> None:
    with Store.open(db_url) as store:
        service = RefereeService(store)
        bout, token = _spar(service)
        actor = _turn(service, bout)
        target = "B" if actor == "A" else "A"
        # The seed the lock read is revealed before the append: the append sees it revealed.
        with pytest.raises(ConflictError, match="revealed"), service.unit():
            caller = service.writer(bout, token)
            store.reveal_seed(bout)
            service.act(bout, caller, actor, "attack", {"target": target})
        assert not [r for r in service.records(bout) if r["type"] == "outcome"]


def bout_is_free(url: str, bout: str) -> bool:
    """Whether another connection could take the bout for a write right now, asked without
    waiting: PostgreSQL's row lock with NOWAIT, SQLite's write lock with no busy timeout."""
    if url.startswith("postgresql"):
        with psycopg.connect(url) as conn:
            try:
                conn.execute("SELECT id FROM bouts WHERE id = %s FOR UPDATE NOWAIT", (bout,))
            except psycopg.errors.LockNotAvailable:
                return False
            conn.rollback()
            return True
    probe = sqlite3.connect(url, timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        return False
    else:
        probe.execute("ROLLBACK")
        return True
    finally:
        probe.close()


def test_a_bout_is_held_without_a_token(db_url: str) -> None:
    """`RefereeService.hold` (`Store.hold_bout`), the lock of a writer that holds no token (a
    bot's button, which checks its turn before it acts): in a unit the bout is held, so no
    other connection can take it, and the unit's next append is stored on it; no bout: 404;
    outside a unit nothing is held (there is nothing to hold it for)."""
    with Store.open(db_url) as store:
        service = RefereeService(store)
        bout, _ = _spar(service)
        service.hold(bout)
        service.hold("nothing")
        assert bout_is_free(db_url, bout)
        with service.unit(), pytest.raises(NotFoundError):
            service.hold("nothing")
        actor = _turn(service, bout)
        with service.unit():
            service.hold(bout)
            assert not bout_is_free(db_url, bout)
            service.act(
                bout,
                Caller(Role.REFEREE),
                actor,
                "attack",
                {"target": "B" if actor == "A" else "A"},
            )
        assert bout_is_free(db_url, bout)
        records = service.records(bout)
        assert verify_chain(records) == []
        assert [r["actor"] for r in records if r["type"] == "action"][-1] == actor
        assert len([r for r in records if r["type"] == "outcome"]) == 1


def test_the_lock_of_a_unit_that_failed_is_forgotten(db_url: str) -> None:
    with Store.open(db_url) as store:
        service = RefereeService(store)
        bout, token = _spar(service)
        with pytest.raises(RuntimeError), service.unit():
            service.writer(bout, token)
            raise RuntimeError("the request failed before its append")
        rolls = len([r for r in service.records(bout) if r["type"] == "roll"])
        _attack(service, bout, token)
        _attack(service, bout, token, locked=False)
        records = service.records(bout)
        assert verify_chain(records) == []
        assert len([r for r in records if r["type"] == "roll"]) == rolls + 2


def test_sqlite_runs_two_statements_fewer_per_attack(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "referee.db")) as store:
        service = RefereeService(store)
        bout, token = _spar(service)
        statements: list[str] = []

        def checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
            dbapi_connection.set_trace_callback(statements.append)

        def checkin(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.set_trace_callback(None)

        event.listen(store.engine, "checkout", checkout)
        event.listen(store.engine, "checkin", checkin)
        counts = []
        for locked in (True, False):
            actor = _turn(service, bout)  # read before the count: the route reads nothing first
            statements.clear()
            _attack(service, bout, token, locked, actor)
            words = [s.split()[0] for s in statements]
            # one executemany of the new events traces an INSERT per row: one statement
            counts.append(
                [w for i, w in enumerate(words) if not i or (w, words[i - 1]) != ("INSERT",) * 2]
            )
        # BEGIN IMMEDIATE; the bout with its seed, the token and the new events; INSERT; COMMIT
        assert counts[0] == ["BEGIN", "SELECT", "INSERT", "COMMIT"]
        assert counts[1] == ["BEGIN", "SELECT", "SELECT", "SELECT", "INSERT", "COMMIT"]


@pytest.fixture
def trace() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp) / "libpq.trace"


def _round_trips(text: str) -> int:
    """Round trips in a libpq trace: each time the client, having sent, reads an answer."""
    directions = [line.split("\t")[1] for line in text.splitlines() if line.count("\t") >= 3]
    return sum(1 for before, after in pairwise(directions) if (before, after) == ("F", "B"))


@pytest.mark.postgres
def test_postgres_attack_takes_three_round_trips(pg_url: str, trace: Path) -> None:
    with Store.open(pg_url) as store, trace.open("w") as log:
        service = RefereeService(store)
        bout, token = _spar(service)

        def checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
            dbapi_connection.pgconn.trace(log.fileno())

        def checkin(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.pgconn.untrace()

        trips = []
        for locked in (True, True, False):
            actor = _turn(service, bout)  # read before the count: the route reads nothing first
            log.flush()
            os.truncate(trace, 0)
            log.seek(0)
            event.listen(store.engine, "checkout", checkout)
            event.listen(store.engine, "checkin", checkin)
            _attack(service, bout, token, locked, actor)
            event.remove(store.engine, "checkout", checkout)
            event.remove(store.engine, "checkin", checkin)
            log.flush()
            trips.append(_round_trips(trace.read_text()))
        # BEGIN with the lock, the token and the new events; INSERT; COMMIT. A lookup first: 6.
        assert trips == [3, 3, 6]
        with store.engine.connect() as conn:  # psycopg begins transactions itself again
            assert conn.connection.driver_connection.autocommit is False  # type: ignore[union-attr]
        assert verify_chain(service.records(bout)) == []


def test_quotes_in_a_bout_id_are_text_not_sql(db_url: str) -> None:
    with Store.open(db_url) as store:
        service = RefereeService(store)
        bout, token = _spar(service)
        for odd in ("x'; DROP TABLE tokens; --", 'x"\\', "x%(digest)s%s", "é\u2028"):
            with service.unit(), pytest.raises(ForbiddenError):
                service.writer(odd, token)
        assert service.writer(bout, token) == Caller(Role.REFEREE)
        _attack(service, bout, token)
        assert verify_chain(service.records(bout)) == []
