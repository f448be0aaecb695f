"""The tables (SQLAlchemy Core, for queries) and the migrations that create them (plain DDL).

One schema serves SQLite and PostgreSQL: only TEXT and INTEGER columns, composite primary
keys, no vendor types. JSON is stored as text. Migrations are a versioned list of DDL
steps; the `schema_version` table holds one row per applied version. Never edit a step
that has shipped: add a new version.

>>> [version for version, _ in MIGRATIONS]
[1, 2, 3, 4]
>>> sorted(METADATA.tables)
['bouts', 'events', 'receipts', 'seeds', 'tokens']
"""

from __future__ import annotations

from sqlalchemy import Column, Integer, MetaData, Table, Text

METADATA = MetaData()

#: One row per bout. `commitment` is seed 0's (published before the first roll);
#: `seed_index` is the seed rolls use now (see `seeds`).
BOUTS = Table(
    "bouts",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("system", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("rules", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("created_at", Text, nullable=False),
    Column("commitment", Text, nullable=False),
    Column("client_seed", Text, nullable=False),
    Column("referee_token_hash", Text),
    Column("seed_index", Integer, nullable=False),
)

#: Every server seed of a bout: secret until `revealed` is 1. `published_seq` is the
#: `seed_rotated` event that published a later seed's commitment (NULL for seed 0).
SEEDS = Table(
    "seeds",
    METADATA,
    Column("bout_id", Text, primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("commitment", Text, nullable=False),
    Column("server_seed", Text, nullable=False),
    Column("revealed", Integer, nullable=False),
    Column("published_seq", Integer),
)

#: Access tokens, stored only as SHA-256 hex of the token text.
TOKENS = Table(
    "tokens",
    METADATA,
    Column("token_hash", Text, primary_key=True),
    Column("bout_id", Text, nullable=False),
    Column("role", Text, nullable=False),
    Column("fighter", Text),
)

#: The hash chain. `payload` is canonical JSON; `extra` holds any further top-level keys.
EVENTS = Table(
    "events",
    METADATA,
    Column("bout_id", Text, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("type", Text, nullable=False),
    Column("actor", Text),
    Column("at", Text, nullable=False),
    Column("payload", Text, nullable=False),
    Column("extra", Text),
    Column("prev", Text, nullable=False),
    Column("hash", Text, nullable=False),
)

#: The first answer to a request sent with an `Idempotency-Key`, kept so that a retry gets it
#: again instead of acting twice. `digest` is SHA-256 hex of (caller, key); `request` is SHA-256
#: hex of the request; `answer` is the answer sealed with a key only the caller's key gives.
RECEIPTS = Table(
    "receipts",
    METADATA,
    Column("digest", Text, primary_key=True),
    Column("request", Text, nullable=False),
    Column("answer", Text, nullable=False),
    Column("created_at", Text, nullable=False),
)

_V1 = (
    """CREATE TABLE bouts (
        id TEXT PRIMARY KEY,
        system TEXT NOT NULL,
        name TEXT NOT NULL,
        rules TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        commitment TEXT NOT NULL,
        client_seed TEXT NOT NULL,
        referee_token_hash TEXT,
        seed_index INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX bouts_by_status ON bouts (status, created_at)",
    """CREATE TABLE seeds (
        bout_id TEXT NOT NULL REFERENCES bouts (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        commitment TEXT NOT NULL,
        server_seed TEXT NOT NULL,
        revealed INTEGER NOT NULL DEFAULT 0,
        published_seq INTEGER,
        PRIMARY KEY (bout_id, idx)
    )""",
    """CREATE TABLE tokens (
        token_hash TEXT PRIMARY KEY,
        bout_id TEXT NOT NULL REFERENCES bouts (id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('referee', 'fighter')),
        fighter TEXT
    )""",
    "CREATE INDEX tokens_by_bout ON tokens (bout_id)",
    """CREATE TABLE events (
        bout_id TEXT NOT NULL REFERENCES bouts (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL CHECK (seq >= 0),
        type TEXT NOT NULL,
        actor TEXT,
        at TEXT NOT NULL,
        payload TEXT NOT NULL,
        extra TEXT,
        prev TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (bout_id, seq)
    )""",
)

_V2 = (
    """CREATE TABLE receipts (
        digest TEXT PRIMARY KEY,
        request TEXT NOT NULL,
        answer TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
)

#: The Discord bot's tables (`referee.discord.links` queries them). Before version 3 the bot
#: created them itself when it started, so a database may already hold them (without
#: `dialect`): hence IF NOT EXISTS, in the shape that bot created, then the new column.
_V3 = (
    """CREATE TABLE IF NOT EXISTS discord_channels (
        channel_id TEXT NOT NULL,
        guild_id TEXT,
        spar_bout TEXT,
        table_bout TEXT,
        PRIMARY KEY (channel_id)
    )""",
    """CREATE TABLE IF NOT EXISTS discord_members (
        bout_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        fighter TEXT,
        name TEXT,
        proctor INTEGER NOT NULL,
        target TEXT,
        PRIMARY KEY (bout_id, user_id)
    )""",
    """CREATE TABLE IF NOT EXISTS discord_characters (
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        system TEXT NOT NULL,
        stats TEXT NOT NULL,
        PRIMARY KEY (user_id, name)
    )""",
    """CREATE TABLE IF NOT EXISTS discord_guilds (
        guild_id TEXT NOT NULL,
        prefix TEXT NOT NULL,
        PRIMARY KEY (guild_id)
    )""",
    "ALTER TABLE discord_channels ADD COLUMN dialect TEXT",
)

#: The Discord bot's turn clocks (`referee.discord.clock`), also created by the bot itself
#: before this version: hence IF NOT EXISTS, in that shape.
_V4 = (
    """CREATE TABLE IF NOT EXISTS discord_clocks (
        bout_id TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        seconds INTEGER NOT NULL,
        skip INTEGER NOT NULL,
        PRIMARY KEY (bout_id)
    )""",
)

#: (version, DDL statements), applied in order, each version in one transaction.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, _V1),
    (2, _V2),
    (3, _V3),
    (4, _V4),
)

#: The schema version this code reads and writes.
SCHEMA_VERSION = MIGRATIONS[-1][0]
