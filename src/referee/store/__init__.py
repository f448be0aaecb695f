"""Storage: bouts, seeds, tokens and hash-chained events in SQLite (default) or PostgreSQL.

>>> store = Store.open("sqlite://")
>>> store.create_bout(system="msv", name="Spar", bout_id="b1").status
'open'
"""

from referee.errors import StorageError
from referee.store.engine import default_url, engine_url
from referee.store.records import BoutRecord, Role, ServerSeed, TokenRecord, token_hash
from referee.store.schema import SCHEMA_VERSION
from referee.store.store import Build, Dice, RngBuild, Store

__all__ = [
    "SCHEMA_VERSION",
    "BoutRecord",
    "Build",
    "Dice",
    "RngBuild",
    "Role",
    "ServerSeed",
    "StorageError",
    "Store",
    "TokenRecord",
    "default_url",
    "engine_url",
    "token_hash",
]
