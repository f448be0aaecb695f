"""Storage: bouts, seeds, tokens and hash-chained events in SQLite (default) or PostgreSQL.

>>> store = Store.open("sqlite://")
>>> store.create_bout(system="msv", name="Spar", bout_id="b1").status
'open'

A client package (the Discord bot) may keep tables of its own in the same database: it makes
them with `migrate_part(store.engine, part, migrations)` and writes them in
`write_transaction(store.engine)`. This module is the store's public interface; its submodules
are its own (the service and the Discord bot import this module only).
"""

from referee.errors import StorageError
from referee.store.characters import CharacterRecord
from referee.store.counters import SharedCounters, counter_key
from referee.store.engine import default_url, engine_url
from referee.store.migrations import PartMigrations, migrate_part
from referee.store.records import BoutRecord, Role, ServerSeed, TokenRecord, token_hash
from referee.store.schema import SCHEMA_VERSION
from referee.store.store import (
    HELD_EVENTS,
    MAX_EVENTS_PER_BOUT,
    MAX_NEW_EVENTS,
    Dice,
    DraftBuild,
    Store,
)
from referee.store.units import write_transaction

__all__ = [
    "HELD_EVENTS",
    "MAX_EVENTS_PER_BOUT",
    "MAX_NEW_EVENTS",
    "SCHEMA_VERSION",
    "BoutRecord",
    "CharacterRecord",
    "Dice",
    "DraftBuild",
    "PartMigrations",
    "Role",
    "ServerSeed",
    "SharedCounters",
    "StorageError",
    "Store",
    "TokenRecord",
    "counter_key",
    "default_url",
    "engine_url",
    "migrate_part",
    "token_hash",
    "write_transaction",
]
