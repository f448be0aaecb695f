"""Migrations: the store's schema (`referee.store.schema.MIGRATIONS`) and a client
package's own tables (`migrate_part`), each version applied once, in one transaction with its
record, safe when several processes start at once (PostgreSQL: under an advisory lock,
waited for however long another process migrates).

>>> from referee.store.engine import make_engine
>>> engine = make_engine("sqlite://")
>>> migrate(engine) == SCHEMA_VERSION
True
>>> migrate_part(engine, "notes", ((1, ("CREATE TABLE notes (text TEXT)",)),))
1
"""

from __future__ import annotations

from sqlalchemy import Engine, text

from referee.errors import StorageError
from referee.store.engine import StorageErrors, advisory_lock, is_postgres, safe_url
from referee.store.rows import backfill_character_joins
from referee.store.schema import MIGRATIONS, SCHEMA_VERSION
from referee.store.units import write_transaction

#: The version that made `character_bouts`: a database reaching it from an earlier one gets
#: the joins its events already hold (the referees before it fielded saved characters too).
CHARACTER_JOINS_VERSION = 9

#: An arbitrary fixed key for PostgreSQL's advisory lock around migrations.
MIGRATION_LOCK = 0x5EFE_EE01


def migrate(engine: Engine) -> int:
    """Bring the schema up to `SCHEMA_VERSION`: every version of `MIGRATIONS` the database has
    not recorded, in order; safe when several processes start at once."""
    with StorageErrors(engine), write_transaction(engine) as connection:
        if is_postgres(engine):
            advisory_lock(connection, ":key", {"key": MIGRATION_LOCK})
        connection.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
        )
        applied = {
            int(row[0]) for row in connection.execute(text("SELECT version FROM schema_version"))
        }
        current = max(applied, default=0)
        if current > SCHEMA_VERSION:
            raise StorageError(
                f"database {safe_url(engine)!r} has schema version {current}, newer than "
                f"this referee knows ({SCHEMA_VERSION}); upgrade referee"
            )
        # Every version the database lacks, in order, not only those above its highest: two
        # parts made at once may number theirs 7 and 8, and a database that ran 8 first
        # still gets 7.
        for version, steps in MIGRATIONS:
            if version not in applied:
                for statement in steps:
                    connection.exec_driver_sql(statement)
                if version == CHARACTER_JOINS_VERSION:
                    backfill_character_joins(connection)
                connection.execute(
                    text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": version}
                )
        return SCHEMA_VERSION


#: A client package's own migrations: (version, DDL statements), versions 1, 2, 3, ...
PartMigrations = tuple[tuple[int, tuple[str, ...]], ...]


def migrate_part(engine: Engine, part: str, migrations: PartMigrations) -> int:
    """Bring a client package's own tables (`part`, e.g. "discord") up to its last version.

    The store's public hook for a client's tables: the client owns its DDL; the store applies
    each version once, in one transaction with the record of it (`schema_parts`), safe when
    several processes start at once. Returns the part's version.
    """
    with StorageErrors(engine), write_transaction(engine) as connection:
        if is_postgres(engine):
            advisory_lock(connection, ":key", {"key": MIGRATION_LOCK})
        found = connection.execute(
            text("SELECT version FROM schema_parts WHERE part = :part"), {"part": part}
        ).scalar()
        current = int(found or 0)
        latest = migrations[-1][0] if migrations else 0
        if current > latest:
            raise StorageError(
                f"database {safe_url(engine)!r} has {part} tables of version {current}, newer "
                f"than this referee knows ({latest}); upgrade referee"
            )
        for version, steps in migrations:
            if version > current:
                for statement in steps:
                    connection.exec_driver_sql(statement)
        if latest > current:
            record = "UPDATE schema_parts SET version = :v WHERE part = :part"
            if not current:
                record = "INSERT INTO schema_parts (part, version) VALUES (:part, :v)"
            connection.execute(text(record), {"part": part, "v": latest})
        return latest
