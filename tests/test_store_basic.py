"""The store on SQLite and PostgreSQL: bouts, seeds, tokens, events, atomic writes, errors."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text

from referee.errors import ConflictError, LimitError, NotationError, NotFoundError, RuleError
from referee.ledger import roll_payload, verify_chain, verify_ledger
from referee.ledger.seal import SealedDraft
from referee.rng import VerifiableRng, commitment
from referee.store import Role, StorageError, Store, TokenRecord, token_hash
from referee.store.schema import METADATA, MIGRATIONS
from tests.drafts import Draft, note, roll

SEED = "00" * 32
NEXT_SEED = "11" * 32
AT = "2026-11-29T22:40:12.000000Z"
TOKEN = "referee-token-0123456789"


@pytest.fixture
def store(db_url: str) -> Any:
    with Store.open(db_url, clock=lambda: AT) as opened:
        yield opened


def new_bout(store: Store, bout_id: str = "b1", **extra: Any) -> Any:
    options: dict[str, Any] = {
        "system": "msv",
        "name": "Spar",
        "server_seed": SEED,
        "client_seed": "table",
        "bout_id": bout_id,
        "created_at": AT,
    }
    return store.create_bout(**(options | extra))


def test_create_and_get_bout(store: Store) -> None:
    bout = new_bout(store, rules={"defeat": 15, "name": "é"}, referee_token=TOKEN)
    assert bout == store.get_bout("b1")
    assert (bout.system, bout.name, bout.status, bout.created_at) == ("msv", "Spar", "open", AT)
    assert (bout.commitment, bout.client_seed, bout.seed_index) == (commitment(SEED), "table", 0)
    assert bout.rules == {"defeat": 15, "name": "é"}
    assert store.lookup_token(TOKEN) is not None
    assert store.lookup_token(TOKEN).role is Role.REFEREE  # type: ignore[union-attr]


def test_unknown_and_duplicate_bouts(store: Store) -> None:
    new_bout(store)
    with pytest.raises(NotFoundError, match="no bout 'zz'"):
        store.get_bout("zz")
    with pytest.raises(NotFoundError):
        store.events("zz")
    with pytest.raises(NotFoundError):
        store.extend("zz", note("x"))
    with pytest.raises(ConflictError, match="a bout with id 'b1' already exists"):
        new_bout(store)


@pytest.mark.parametrize(
    ("extra", "error", "message"),
    [
        ({"bout_id": "a b"}, RuleError, "bout id 'a b' must be 1..64 letters"),
        ({"system": ""}, RuleError, "system must be a non-empty string"),
        ({"name": "x" * 201}, LimitError, "is longer than 200 characters"),
        ({"created_at": "yesterday"}, RuleError, "time 'yesterday' is not RFC 3339 UTC"),
        ({"rules": {"x": object()}}, RuleError, "are not JSON"),
    ],
)
def test_bad_bout_fields(store: Store, extra: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        new_bout(store, **extra)


def test_list_and_status(store: Store) -> None:
    new_bout(store, "b1")
    new_bout(store, "b2", created_at="2026-11-29T23:00:00.000000Z")
    assert [b.id for b in store.list_bouts()] == ["b2", "b1"]
    assert store.set_status("b1", "ended") == store.get_bout("b1")
    assert store.get_bout("b1").status == "ended"
    assert [b.id for b in store.list_bouts(status="ended")] == ["b1"]
    with pytest.raises(LimitError):
        store.list_bouts(limit=0)


def test_tokens_are_stored_only_as_hashes(store: Store) -> None:
    new_bout(store)
    fighter_token = "fighter-token-abcdefghij"
    record = store.add_token("b1", fighter_token, "fighter", "Tarl")
    assert store.lookup_token(fighter_token) == record
    assert (record.role, record.fighter) == (Role.FIGHTER, "Tarl")
    assert store.lookup_token("unknown-token-0000000") is None
    with store._engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT token_hash FROM tokens").all()
    assert [r[0] for r in rows] == [token_hash(fighter_token)]
    with pytest.raises(ConflictError, match="already in use"):
        store.add_token("b1", fighter_token, "fighter", "Tarl")
    with pytest.raises(RuleError, match="needs fighter name"):
        store.add_token("b1", "another-token-abcdefgh", "fighter")
    with pytest.raises(RuleError, match="role 'judge' is not one of referee, fighter"):
        store.add_token("b1", "another-token-abcdefgh", "judge")
    with pytest.raises(RuleError, match="at least 16 characters"):
        store.add_token("b1", "short", "referee")


def test_append_and_read_events(store: Store) -> None:
    new_bout(store)
    first = store.extend("b1", note("one"))
    second = store.extend("b1", note("two"))
    events = store.events("b1")
    assert events == first + second
    assert [e["seq"] for e in events] == [0, 1]
    assert store.events("b1", after_seq=0) == second


SALT = "ab" * 16


def test_extra_keys_and_unicode_survive_the_round_trip(store: Store) -> None:
    new_bout(store)
    said = {"text": "ça ✓", "n": 10**15}
    sealed = SealedDraft("say", "Élise", said, {"text": "hidden", "n": 10**15}, SALT)
    written = store.extend("b1", lambda events, dice: [sealed])
    assert written[0]["sealed"] and written[0]["payload"] == said
    assert store.events("b1") == written


def test_a_batch_of_events_with_and_without_extra_keys_is_stored_as_written(store: Store) -> None:
    """`insert_events` leaves `extra` out of a batch none of whose events has extra keys, and
    puts it in, NULL for the events without any, when one of them has some (a sealed event's
    seal is such a key)."""
    new_bout(store)

    def build(events: Any, dice: Any) -> list[Any]:
        more = SealedDraft("say", "ref", {"text": "more"}, {"text": "hidden"}, SALT)
        return [Draft("note", None, {"text": "plain"}), more, Draft("note", None, {})]

    store.extend("b1", note("alone"))  # a batch without extra keys
    written = store.extend("b1", build)
    assert store.events("b1")[1:] == written
    with store.engine.connect() as conn:
        extras = conn.execute(text("SELECT extra FROM events ORDER BY seq")).scalars().all()
    assert extras == [
        None,
        None,
        json.dumps({"sealed": written[1]["sealed"]}, separators=(",", ":")),
        None,
    ]


def test_a_batch_with_a_malformed_draft_is_refused_and_nothing_written(store: Store) -> None:
    """The store links the drafts into the chain itself, so a new event extends it by
    construction; a draft that is no event (here: no type) refuses the whole batch."""
    new_bout(store)
    store.extend("b1", note("one"))

    def malformed(events: Any, dice: Any) -> list[Any]:
        return [Draft("note", "ref", {}), Draft("", "ref", {})]

    with pytest.raises(RuleError, match="event type must be a non-empty string"):
        store.extend("b1", malformed)
    assert len(store.events("b1")) == 1


def test_failing_build_leaves_nothing_behind(store: Store) -> None:
    new_bout(store)

    def failing(events: Any, dice: Any) -> list[Any]:
        raise ConflictError("not your turn")

    with pytest.raises(ConflictError, match="not your turn"):
        store.extend("b1", failing)
    assert store.events("b1") == []


def test_rolls_must_verify_against_the_secret_seed(store: Store) -> None:
    new_bout(store)
    written = store.extend("b1", roll)
    assert written[0]["payload"] == {"nonce": 0, "dice": ["d20", "d20", "d6"], "faces": [6, 14, 6]}

    def forged(events: Any, dice: Any) -> list[Any]:
        return [Draft("roll", "Tarl", roll_payload(1, ["d20"], [20]))]

    with pytest.raises(RuleError, match=r"event 1 \(roll\) would not verify: face 20 does not"):
        store.extend("b1", forged)

    def skipped(events: Any, dice: Any) -> list[Any]:
        return [Draft("roll", "Tarl", roll_payload(5, ["d20"], [1]))]

    with pytest.raises(RuleError, match=r"nonce 5 \(expected 1"):
        store.extend("b1", skipped)
    assert len(store.events("b1")) == 1


def test_client_seed_is_fixed_by_the_first_roll(store: Store) -> None:
    new_bout(store)
    assert store.set_client_seed("b1", "table:tarl").client_seed == "table:tarl"
    store.extend("b1", roll)
    with pytest.raises(ConflictError, match="its client seed is fixed"):
        store.set_client_seed("b1", "table:tarl:pa-kur")


def test_reveal_stops_rolls_and_rotation_restarts_them(store: Store) -> None:
    new_bout(store)
    store.extend("b1", roll)
    store.extend("b1", roll)
    rotated = store.rotate_seed("b1", actor="system", at=AT, new_seed=NEXT_SEED)
    assert (rotated["seq"], rotated["type"]) == (2, "seed_rotated")
    assert rotated["payload"] == {
        "index": 1,
        "server_seed": SEED,
        "next_commitment": commitment(NEXT_SEED),
    }
    third = store.extend("b1", roll)[0]
    assert third["payload"]["nonce"] == 0
    assert store.current_seed("b1").index == 1
    revealed = store.reveal_seed("b1")
    assert revealed.revealed and revealed.server_seed == NEXT_SEED
    with pytest.raises(ConflictError, match="server seed 1 is revealed; rotate it"):
        store.extend("b1", roll)
    doc = store.export("b1")
    assert doc["fairness"] == {
        "commitment": commitment(SEED),
        "client_seed": "table",
        "server_seed": SEED,
        "rotations": [
            {"index": 1, "seq": 2, "commitment": commitment(NEXT_SEED), "server_seed": NEXT_SEED}
        ],
    }
    report = verify_ledger(doc)
    assert report.ok, report.problems
    assert (report.rolls, report.seeds) == (3, 2)


def test_export_hides_the_seed_until_revealed(store: Store) -> None:
    secret = "ab" * 32
    new_bout(store, server_seed=secret)
    store.extend("b1", roll)
    doc = store.export("b1")
    assert doc["bout"] == {
        "id": "b1",
        "system": "msv",
        "name": "Spar",
        "rules": {},
        "created_at": AT,
        "status": "open",
    }
    assert doc["fairness"]["server_seed"] is None
    assert secret not in repr(doc) and secret not in repr(store.current_seed("b1"))
    assert secret not in repr(store.get_bout("b1"))


def test_migrations_are_idempotent_and_match_the_tables(db_url: str) -> None:
    Store.open(db_url).close()
    with Store.open(db_url) as store:
        with store._engine.connect() as conn:
            versions = [r[0] for r in conn.exec_driver_sql("SELECT version FROM schema_version")]
        inspector = inspect(store._engine)
        for table in METADATA.sorted_tables:
            columns = [c["name"] for c in inspector.get_columns(table.name)]
            assert columns == [c.name for c in table.columns]
    assert versions == [number for number, _ in MIGRATIONS]


def test_newer_schema_is_refused(db_url: str) -> None:
    with Store.open(db_url) as store, store._engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO schema_version (version) VALUES (99)")
    with pytest.raises(StorageError, match="has schema version 99, newer than"):
        Store.open(db_url)


def test_sqlite_settings(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store.open(str(path)) as store, store._engine.connect() as conn:
        pragma = {
            name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")
        }
    assert pragma == {
        "journal_mode": "wal",
        "synchronous": 2,
        "busy_timeout": 30000,
        "foreign_keys": 1,
    }
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_urls(tmp_path: Path) -> None:
    with pytest.raises(NotationError, match=r"database URL 'mysql://\.\.\.' is not supported"):
        Store.open("mysql://u:secret@h/db")
    with pytest.raises(NotFoundError, match="no database file at"):
        Store.open(str(tmp_path / "missing.db"), create=False)
    store = Store.open(f"sqlite:///{tmp_path / 'u.db'}")
    assert store.url == f"sqlite:///{tmp_path / 'u.db'}"
    store.close()


def test_unreachable_postgres_is_a_storage_error_without_the_password() -> None:
    with pytest.raises(StorageError) as err:
        Store.open("postgresql://u:hunter2@127.0.0.1:1/db?connect_timeout=2")
    assert "hunter2" not in str(err.value)
    assert str(err.value).startswith(
        "database 'postgresql+psycopg://u:***@127.0.0.1:1/db?connect_timeout=2' is unavailable"
    )


def test_a_joining_fighter_is_stored_whole_or_not_at_all(store: Store) -> None:
    new_bout(store, referee_token=TOKEN)
    fighter_token = "fighter-token-0123456789"
    grant = (fighter_token, Role.FIGHTER, "Tarl")
    store.extend("b1", note("Tarl joins"), client_seed_part="tarl", grant=grant)
    assert store.get_bout("b1").client_seed == "table:tarl"
    assert store.lookup_token(fighter_token) == TokenRecord("b1", Role.FIGHTER, "Tarl")
    assert [e["payload"]["text"] for e in store.events("b1")] == ["Tarl joins"]
    # A token already in use: neither the event nor the seed part is stored.
    with pytest.raises(ConflictError, match="already in use"):
        store.extend("b1", note("again"), client_seed_part="again", grant=grant)
    assert store.get_bout("b1").client_seed == "table:tarl"
    assert len(store.events("b1")) == 1
    # After the first roll the client seed is fixed, and the joining event is not stored.
    store.extend("b1", roll)
    with pytest.raises(ConflictError, match="its client seed is fixed"):
        store.extend("b1", note("late"), client_seed_part="late")
    assert len(store.events("b1")) == 2
    assert store.get_bout("b1").client_seed == "table:tarl"


def draft_roll(events: list[Any], rng: VerifiableRng | None) -> list[Draft]:
    assert rng is not None
    t = rng.throw((20, 20, 6))
    return [
        Draft("roll", "Tarl", roll_payload(t.nonce or 0, t.dice, t.faces)),
        Draft("x", None, {}),
    ]


def test_extend_links_the_drafts_itself_and_the_export_verifies(store: Store) -> None:
    new_bout(store)
    store.extend("b1", note("one"))
    written = store.extend("b1", draft_roll, at=AT)
    assert [(e["seq"], e["type"], e["at"]) for e in written] == [(1, "roll", AT), (2, "x", AT)]
    assert written[0]["prev"] == store.events("b1")[0]["hash"]
    assert written[1]["prev"] == written[0]["hash"]
    assert written[0]["payload"] == {"nonce": 0, "dice": ["d20", "d20", "d6"], "faces": [6, 14, 6]}
    assert store.events("b1")[1:] == written
    assert store.extend("b1", lambda events, rng: [], at=AT) == []
    store.reveal_seed("b1")
    report = verify_ledger(store.export("b1"))
    assert report.ok, report.problems
    assert report.rolls == 1


def test_extend_refuses_a_roll_that_is_not_a_throw_of_its_rng(store: Store) -> None:
    new_bout(store)

    def forged(events: list[Any], rng: VerifiableRng | None) -> list[Draft]:
        assert rng is not None
        t = rng.throw((20,))
        return [Draft("roll", "Tarl", roll_payload(0, ["d20"], [t.faces[0] % 20 + 1]))]

    def unthrown(events: list[Any], rng: VerifiableRng | None) -> list[Draft]:
        return [Draft("roll", "Tarl", roll_payload(0, ["d20"], [20]))]

    def no_dice(events: list[Any], rng: VerifiableRng | None) -> list[Draft]:
        assert rng is None
        return [Draft("roll", "Tarl", roll_payload(0, ["d20", "d20", "d6"], [6, 14, 6]))]

    with pytest.raises(RuleError, match=r"event 0 \(roll\) would not verify: face"):
        store.extend("b1", forged, at=AT)
    with pytest.raises(RuleError, match=r"event 0 \(roll\) would not verify: face 20 does"):
        store.extend("b1", unthrown, at=AT)
    assert store.events("b1") == []
    # Without dice nothing is thrown: a roll is checked against the seed itself.
    assert store.extend("b1", no_dice, dice=False, at=AT)[0]["payload"]["faces"] == [6, 14, 6]


def test_extend_after_a_rolled_back_unit_and_another_writer_links_to_what_is_stored(
    db_url: str,
) -> None:
    """The store keeps the events it appended, and checks them against the database before
    it links to them: a unit rolled back afterwards, or another process's append, is seen."""
    with Store.open(db_url) as first, Store.open(db_url) as second:
        new_bout(first)
        first.extend("b1", lambda events, rng: [Draft("a", None, {})], at=AT)
        with pytest.raises(ConflictError, match="changed my mind"), first.unit():
            first.extend("b1", lambda events, rng: [Draft("gone", None, {})], at=AT)
            raise ConflictError("changed my mind")
        second.extend("b1", lambda events, rng: [Draft("b", None, {})], at=AT)
        first.extend("b1", lambda events, rng: [Draft("c", None, {})], at=AT)
        events = first.events("b1")
        assert [(e["seq"], e["type"]) for e in events] == [(0, "a"), (1, "b"), (2, "c")]
        assert verify_chain(events) == []
        assert second.events("b1") == events
