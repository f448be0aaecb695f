"""Schema migrations, tested from the first schema: a database built with version 1's DDL (as
shipped) and filled with a closed spar is opened by the current code, which brings it to the
current schema (the same tables and columns as a fresh database), and every bout still exports
and verifies. Every later version is also upgraded from, empty. On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, inspect, text

from referee.errors import StorageError
from referee.ledger import verify_export
from referee.store import Store
from referee.store.engine import make_engine
from referee.store.migrations import migrate, migrate_part
from referee.store.schema import MIGRATIONS, RETIRED_VERSIONS, SCHEMA_VERSION
from tests.test_deploy import closed_spar

#: The columns of version 1, the schema as first shipped (frozen: shipped steps never change).
V1_COLUMNS = {
    "bouts": [
        "id",
        "system",
        "name",
        "rules",
        "status",
        "created_at",
        "commitment",
        "client_seed",
        "referee_token_hash",
        "seed_index",
    ],
    "seeds": ["bout_id", "idx", "commitment", "server_seed", "revealed", "published_seq"],
    "tokens": ["token_hash", "bout_id", "role", "fighter"],
    "events": ["bout_id", "seq", "type", "actor", "at", "payload", "extra", "prev", "hash"],
}


#: Numbers held by a part made on another branch beside this one (7: the signed roll lines).
OTHERS_VERSIONS = tuple(n for n in (7,) if n not in {v for v, _ in MIGRATIONS})

#: Every version a referee has shipped, retired ones included.
SHIPPED = sorted([number for number, _ in MIGRATIONS] + list(RETIRED_VERSIONS))


def shipped_steps(number: int) -> tuple[str, ...]:
    """The DDL a referee of version `number` ran for it: a retired version's steps are the
    Discord bot's own versions now (its version = the retired one - 2)."""
    if number in RETIRED_VERSIONS:
        from referee.discord.tables import MIGRATIONS as DISCORD_MIGRATIONS

        return dict(DISCORD_MIGRATIONS)[number - 2]
    return dict(MIGRATIONS)[number]


def build_at(engine: Engine, version: int) -> None:
    """Apply the migrations up to `version` only, as a referee of that version did."""
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for number in SHIPPED:
            if number > version:
                break
            for statement in shipped_steps(number):
                conn.exec_driver_sql(statement)
            conn.execute(text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": number})


def shape(engine: Engine) -> dict[str, list[tuple[str, bool]]]:
    """Tables -> (column, nullable), sorted: what a schema is, for comparing two databases."""
    found = inspect(engine)
    return {
        table: sorted((c["name"], bool(c["nullable"])) for c in found.get_columns(table))
        for table in sorted(found.get_table_names())
    }


def columns(engine: Engine) -> dict[str, list[str]]:
    """Tables -> column names (comparable across SQLite and PostgreSQL)."""
    return {table: [name for name, _ in cols] for table, cols in shape(engine).items()}


def copy_v1_rows(source: Engine, target: Engine) -> None:
    """The rows of every v1 table, v1 columns only, from a current database into a v1 one."""
    with source.connect() as read, target.begin() as write:
        for table in ("bouts", "seeds", "tokens", "events"):
            columns = V1_COLUMNS[table]
            names = ", ".join(columns)
            rows = [dict(r._mapping) for r in read.execute(text(f"SELECT {names} FROM {table}"))]
            if rows:
                marks = ", ".join(f":{c}" for c in columns)
                write.execute(text(f"INSERT INTO {table} ({names}) VALUES ({marks})"), rows)


def test_the_first_schema_is_version_1_as_shipped() -> None:
    assert MIGRATIONS[0][0] == 1
    # Every version up to the current one is shipped, but a number another part holds
    # (`OTHERS_VERSIONS`): `migrate` applies whatever a database lacks, in any order.
    assert sorted(SHIPPED + list(OTHERS_VERSIONS)) == list(range(1, SCHEMA_VERSION + 1))
    engine = make_engine("sqlite://")
    build_at(engine, 1)
    assert {t: [c for c, _ in cols] for t, cols in shape(engine).items() if t in V1_COLUMNS} == {
        t: sorted(cols) for t, cols in V1_COLUMNS.items()
    }


def test_a_filled_first_schema_database_upgrades_and_still_verifies(
    db_url: str, tmp_path: Any
) -> None:
    # A closed spar written by the current code, in a scratch database...
    scratch_url = str(tmp_path / "scratch.db")
    bout_id = closed_spar(scratch_url)
    with Store.open(scratch_url) as scratch:
        expected = scratch.export(bout_id)
    # ...copied, v1 columns only, into a database built with version 1's DDL.
    old = make_engine(db_url)
    build_at(old, 1)
    copy_v1_rows(make_engine(scratch_url), old)
    old.dispose()
    with Store.open(db_url) as store:
        exported = store.export(bout_id)
        assert verify_export(exported).ok
        assert [e["hash"] for e in exported["events"]] == [e["hash"] for e in expected["events"]]
        assert store.get_bout(bout_id).status == expected["bout"]["status"]
    upgraded = make_engine(db_url)
    fresh = make_engine(str(tmp_path / "fresh.db"))
    migrate(fresh)
    assert columns(upgraded) == columns(fresh)
    with upgraded.connect() as conn:
        versions = [r[0] for r in conn.execute(text("SELECT version FROM schema_version"))]
    assert sorted(versions) == [1, *(n for n, _ in MIGRATIONS if n > 1)]
    upgraded.dispose()
    fresh.dispose()


@pytest.mark.parametrize("version", SHIPPED)
def test_every_version_upgrades_to_the_current_schema(version: int, tmp_path: Any) -> None:
    from referee.discord.tables import MIGRATIONS as DISCORD_MIGRATIONS
    from referee.discord.tables import PART

    old = make_engine(str(tmp_path / f"v{version}.db"))
    build_at(old, version)
    assert migrate(old) == SCHEMA_VERSION
    assert migrate(old) == SCHEMA_VERSION  # running it again changes nothing
    # The bot's tables: a database that ran the retired versions runs none of their steps
    # again (an ALTER TABLE twice would fail); any other gets them all.
    last = DISCORD_MIGRATIONS[-1][0]
    assert migrate_part(old, PART, DISCORD_MIGRATIONS) == last
    assert migrate_part(old, PART, DISCORD_MIGRATIONS) == last
    fresh = make_engine(str(tmp_path / "fresh.db"))
    migrate(fresh)
    migrate_part(fresh, PART, DISCORD_MIGRATIONS)
    assert shape(old) == shape(fresh)


def test_a_version_below_the_databases_highest_is_applied_when_it_lacks_it() -> None:
    # A database that ran every version but 6 (as one that ran a later-numbered part made
    # beside it first would lack the earlier one): migrating applies 6, and only 6.
    engine = make_engine("sqlite://")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for number in SHIPPED:
            if number == 6:
                continue
            for statement in shipped_steps(number):
                conn.exec_driver_sql(statement)
            conn.execute(text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": number})
    assert "opening" not in [c["name"] for c in inspect(engine).get_columns("events")]
    assert migrate(engine) == SCHEMA_VERSION
    assert "opening" in [c["name"] for c in inspect(engine).get_columns("events")]
    with engine.connect() as conn:
        versions = sorted(r[0] for r in conn.execute(text("SELECT version FROM schema_version")))
    assert versions == SHIPPED


def test_a_fresh_database_has_none_of_the_bots_tables_until_the_bot_makes_them() -> None:
    from referee.discord.tables import MIGRATIONS as DISCORD_MIGRATIONS
    from referee.discord.tables import PART

    engine = make_engine("sqlite://")
    migrate(engine)
    assert not [t for t in inspect(engine).get_table_names() if t.startswith("discord_")]
    migrate_part(engine, PART, DISCORD_MIGRATIONS)
    assert len([t for t in inspect(engine).get_table_names() if t.startswith("discord_")]) == 11
    with engine.connect() as conn:
        assert conn.execute(text("SELECT part, version FROM schema_parts")).all() == [(PART, 7)]


def test_a_part_newer_than_the_code_is_refused() -> None:
    engine = make_engine("sqlite://")
    migrate(engine)
    migrate_part(engine, "extra", ((1, ("CREATE TABLE extra_one (x TEXT)",)),))
    with pytest.raises(StorageError, match="has extra tables of version 1, newer than"):
        migrate_part(engine, "extra", ())


def test_a_database_newer_than_the_code_is_refused(tmp_path: Any) -> None:
    path = str(tmp_path / "newer.db")
    engine = make_engine(path)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": 999})
    engine.dispose()
    with pytest.raises(StorageError, match="has schema version 999, newer than this referee"):
        Store.open(path)


#: The Discord bot's tables as the bot created them itself (create_all) before version 3.
PRE_V3_DISCORD = (
    "CREATE TABLE discord_channels (channel_id TEXT NOT NULL, guild_id TEXT, spar_bout TEXT, "
    "table_bout TEXT, PRIMARY KEY (channel_id))",
    "CREATE TABLE discord_members (bout_id TEXT NOT NULL, user_id TEXT NOT NULL, fighter TEXT, "
    "name TEXT, proctor INTEGER NOT NULL, target TEXT, PRIMARY KEY (bout_id, user_id))",
    "CREATE TABLE discord_characters (user_id TEXT NOT NULL, name TEXT NOT NULL, "
    "system TEXT NOT NULL, stats TEXT NOT NULL, PRIMARY KEY (user_id, name))",
    "CREATE TABLE discord_guilds (guild_id TEXT NOT NULL, prefix TEXT NOT NULL, "
    "PRIMARY KEY (guild_id))",
    "CREATE TABLE discord_clocks (bout_id TEXT NOT NULL, channel_id TEXT NOT NULL, "
    "seconds INTEGER NOT NULL, skip INTEGER NOT NULL, PRIMARY KEY (bout_id))",
    "INSERT INTO discord_clocks VALUES ('b1', '10', 120, 1)",
    "INSERT INTO discord_channels VALUES ('10', '1', 'b1', 't1')",
    "INSERT INTO discord_members VALUES ('b1', '20', 'Tarl', 'Tarl', 1, NULL)",
    "INSERT INTO discord_characters VALUES ('20', 'Tarl', 'msv', '{\"cs\": 65}')",
    "INSERT INTO discord_guilds VALUES ('1', '!')",
)


def test_the_bots_own_tables_keep_what_the_bot_made_before_version_3(
    db_url: str, tmp_path: Any
) -> None:
    from referee.discord.aliases import ALIASES  # noqa: F401  (its table is in METADATA)
    from referee.discord.character_keys import characters, key_of
    from referee.discord.clock import Clocks
    from referee.discord.links import METADATA as DISCORD_METADATA
    from referee.discord.links import Links
    from referee.discord.personas import PERSONAS  # noqa: F401  (likewise)
    from referee.discord.proxy_trust import PROXIES  # noqa: F401  (likewise)
    from referee.discord.tables import MIGRATIONS as DISCORD_MIGRATIONS
    from referee.discord.tables import PART

    old = make_engine(db_url)
    build_at(old, 2)
    with old.begin() as conn:
        for statement in PRE_V3_DISCORD:
            conn.exec_driver_sql(statement)
    old.dispose()
    with Store.open(db_url) as store:
        links = Links(store)
        assert links.channel(10) == ("b1", "t1")
        assert links.dialect(10) is None
        assert links.proctor("b1") == "20"
        # The bot's saved characters moved into the service, under the member's new key:
        # nothing lost, and the old table left empty.
        assert [(c.name, c.system, c.stats, c.version) for c in characters(store, 20)] == [
            ("Tarl", "msv", {"cs": 65}, 1)
        ]
        assert key_of(store, 20) is not None and key_of(store, 21) is None
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM discord_characters").scalar() == 0
        assert links.prefix(1) == "!"
        assert [(c.bout_id, c.channel_id, c.seconds, c.skip) for c in Clocks(links).all()] == [
            ("b1", 10, 120, True)
        ]
        with store.unit():  # the bot writes its rows inside a command's unit only
            links.set_dialect(10, 1, "d20")
        assert links.dialect(10) == "d20"
        assert links.channel(10) == ("b1", "t1")
    upgraded = make_engine(db_url)
    fresh = make_engine(str(tmp_path / "fresh.db"))
    migrate(fresh)
    migrate_part(fresh, PART, DISCORD_MIGRATIONS)
    assert columns(upgraded) == columns(fresh)
    # The bot's queries name exactly the columns the migrations made, in order.
    found = inspect(fresh)
    assert {t.name for t in DISCORD_METADATA.sorted_tables} == {
        t for t in found.get_table_names() if t.startswith("discord_")
    }
    for table in DISCORD_METADATA.sorted_tables:
        assert [c["name"] for c in found.get_columns(table.name)] == [c.name for c in table.columns]
    upgraded.dispose()
    fresh.dispose()
