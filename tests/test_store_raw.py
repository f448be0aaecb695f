"""The hot statements on the driver's cursor (`referee.store.raw`): the same rows as
SQLAlchemy's own execution, the driver's errors as SQLAlchemy's (parameters hidden), on
SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, select, update
from sqlalchemy.exc import IntegrityError

from referee.ledger import chain, roll_payload
from referee.store import Store
from referee.store import rows as hot
from referee.store.raw import Statement, run_sql
from referee.store.schema import TOKENS
from tests.drafts import Draft

_BY_HASH = Statement(select(TOKENS).where(TOKENS.c.token_hash == bindparam("digest")))
_ADD = Statement(TOKENS.insert(), [column.key for column in TOKENS.c])
_RENAME = Statement(
    update(TOKENS).where(TOKENS.c.bout_id == bindparam("old")).values(bout_id=bindparam("new")),
    ["bout_id"],
)

SECRET_HASH = "ab" * 32


def _spar(store: Store) -> str:
    store.create_bout(system="msv", name="Spar", bout_id="b1", client_seed="table")

    def attack(events, rng):  # type: ignore[no-untyped-def]
        throw = rng.throw((100,))
        payload = roll_payload(throw.nonce, list(throw.dice), list(throw.faces))
        return [Draft("roll", "Tarl", payload), Draft("note", None, {"text": "hit"})]

    for _ in range(3):
        store.extend("b1", attack, at="2026-11-29T22:40:14.000000Z")
    return "b1"


def test_the_hot_selects_give_what_sqlalchemy_gives(db_url: str) -> None:
    with Store.open(db_url) as store:
        bout_id = _spar(store)
        engine = store._engine  # the store's own engine: same dialect, same schema
        with engine.connect() as conn:
            for statement, values in (
                (hot._EVENTS_AFTER, {"bout_id": bout_id, "after": 1}),
                (hot._EVENTS_AFTER, {"bout_id": bout_id, "after": -1}),
                (hot._BOUT_SEED, {"bout_id": bout_id}),
                (hot._BOUT, {"bout_id": bout_id}),
                (hot._SEEDS, {"bout_id": bout_id}),
            ):
                raw = statement.all(conn, values)
                core = conn.execute(statement.statement, values).all()
                assert [tuple(row) for row in raw] == [tuple(row) for row in core]
                assert [row._asdict() for row in raw] == [dict(row._mapping) for row in core]
            assert len(hot._EVENTS_AFTER.all(conn, {"bout_id": bout_id, "after": 1})) == 4
            assert hot._BOUT.first(conn, {"bout_id": "nobody"}) is None


def _bouts(store: Store, *ids: str) -> None:
    for bout_id in ids:
        store.create_bout(system="msv", name="Spar", bout_id=bout_id)


def test_rows_are_inserted_updated_and_read_by_name(db_url: str) -> None:
    with Store.open(db_url) as store, store._engine.begin() as conn:
        _bouts(store, "b1", "b2")
        row = {"token_hash": SECRET_HASH, "bout_id": "b1", "role": "referee", "fighter": None}
        _ADD.many(conn, [row, {**row, "token_hash": "cd" * 32, "role": "fighter"}])
        _ADD.many(conn, [])  # nothing to insert: no statement at all
        assert _RENAME.run(conn, {"old": "b1", "new": "b2"}) == 2
        found = _BY_HASH.first(conn, {"digest": SECRET_HASH})
        assert (found.token_hash, found.bout_id, found.role, found.fighter) == (
            SECRET_HASH,
            "b2",
            "referee",
            None,
        )
        assert _BY_HASH.first(conn, {"digest": "ef" * 32}) is None


def test_a_driver_error_is_sqlalchemys_with_the_parameters_hidden(db_url: str) -> None:
    """`Store` retries an append that lost a race on sqlalchemy's IntegrityError: the raw
    path must raise that, not the driver's own class, and must not show the values."""
    with Store.open(db_url) as store, store._engine.connect() as conn:
        _bouts(store, "b1")
        row = {"token_hash": SECRET_HASH, "bout_id": "b1", "role": "referee", "fighter": None}
        _ADD.many(conn, [row])
        with pytest.raises(IntegrityError) as caught:
            _ADD.many(conn, [row])
        assert "[SQL: INSERT INTO tokens" in str(caught.value)
        assert "[parameters" not in str(caught.value)  # the values sent are never listed
    with (
        Store.open(db_url) as store,
        store._engine.connect() as conn,
        pytest.raises(IntegrityError),
    ):
        run_sql(conn, "INSERT INTO tokens (token_hash) VALUES (NULL)")


def test_more_events_than_one_statement_carries_are_inserted_whole(db_url: str) -> None:
    """PostgreSQL inserts events (and the notification) in statements of at most `_PG_ROWS`
    rows: more than that (an append's own bound is lower; in one statement these would pass
    the protocol's 65,535 parameters) come back whole and in order."""
    count = 8 * hot._PG_ROWS + 7
    at = "2026-11-29T22:40:13.000000Z"
    built = []
    last = None
    for n in range(count):
        last = chain(last, "note", None, {"n": n}, at)
        built.append(last)
    with Store.open(db_url) as store:
        _bouts(store, "b1")
        with store._engine.begin() as conn:
            hot.insert_events(conn, "b1", built)
        stored = store.events("b1")
        assert [e["hash"] for e in stored] == [e["hash"] for e in built]
        assert [e["seq"] for e in stored] == list(range(count))
        assert [e["payload"]["n"] for e in stored] == list(range(count))


def test_a_statement_runs_with_positional_parameters(db_url: str) -> None:
    with Store.open(db_url) as store, store._engine.begin() as conn:
        _bouts(store, "b1")
        mark = "%s" if conn.dialect.name == "postgresql" else "?"
        run_sql(
            conn,
            f"INSERT INTO tokens (token_hash, bout_id, role) VALUES ({mark}, {mark}, {mark})",
            [SECRET_HASH, "b1", "referee"],
        )
        found = _BY_HASH.first(conn, {"digest": SECRET_HASH})
        assert (found.bout_id, found.role) == ("b1", "referee")
