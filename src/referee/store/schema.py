"""The tables (SQLAlchemy Core, for queries) and the migrations that create them (plain DDL).

One schema serves SQLite and PostgreSQL: only TEXT and INTEGER columns, composite primary
keys, no vendor types. JSON is stored as text. Migrations are a versioned list of DDL
steps; the `schema_version` table holds one row per applied version. Never edit a step
that has shipped: add a new version. A client package (the Discord bot) keeps tables of its
own beside these, made by its own versioned steps (`referee.store.engine.migrate_part`).

>>> [version for version, _ in MIGRATIONS]
[1, 2, 5, 6, 7, 8]
>>> sorted(METADATA.tables)  # doctest: +NORMALIZE_WHITESPACE
['bouts', 'character_keys', 'character_versions', 'characters', 'events', 'receipts',
 'seeds', 'signing_keys', 'tokens']
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

#: The hash chain. `payload` is canonical JSON; `extra` holds any further top-level keys;
#: `opening` is a sealed event's opening (`referee.ledger.seal`: its salt and whole payload,
#: secret until the reveal or the close), NULL for every other event.
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
    Column("opening", Text),
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

#: The service's signing keys (docs/ledger.md, "Signed roll lines"): one row per purpose
#: (`roll-receipts`), made at the service's first start. `private_key` never leaves the store:
#: no answer, log, export or chat line holds it; `public_key` is published.
SIGNING_KEYS = Table(
    "signing_keys",
    METADATA,
    Column("name", Text, primary_key=True),
    Column("algorithm", Text, nullable=False),
    Column("private_key", Text, nullable=False),
    Column("public_key", Text, nullable=False),
    Column("created_at", Text, nullable=False),
)

#: A player's character keys, stored only as SHA-256 hex of the key (a bearer secret, like a
#: token: `referee.store.characters`).
CHARACTER_KEYS = Table(
    "character_keys",
    METADATA,
    Column("key_hash", Text, primary_key=True),
    Column("created_at", Text, nullable=False),
)

#: One row per character: whose key holds it, its last version, and whether it was retired
#: (no longer listed nor joined; its versions stay, as the chains that name them do).
CHARACTERS = Table(
    "characters",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("key_hash", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("created_at", Text, nullable=False),
    Column("retired", Integer, nullable=False),
)

#: Every version of every character, never changed once written: its name, rule system, sheet
#: (the stats as its rule system checks them, JSON), gear (JSON) and hidden stats (JSON).
CHARACTER_VERSIONS = Table(
    "character_versions",
    METADATA,
    Column("character_id", Text, primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("name", Text, nullable=False),
    Column("system", Text, nullable=False),
    Column("sheet", Text, nullable=False),
    Column("gear", Text, nullable=False),
    Column("hidden", Text, nullable=False),
    Column("at", Text, nullable=False),
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

#: Versions 3 and 4 created the Discord bot's tables. Those tables are the bot's own now: the
#: `discord` package creates them through `referee.store.migrate_part`, with versions of its own
#: kept in `schema_parts` (one row per client package). Version 5 makes that table and records
#: how far a database that ran the old versions 3 and 4 already is (part version 1 = the old
#: version 3, 2 = the old version 4), so those steps never run twice.
_V5 = (
    """CREATE TABLE schema_parts (
        part TEXT PRIMARY KEY,
        version INTEGER NOT NULL
    )""",
    """INSERT INTO schema_parts (part, version)
        SELECT 'discord', version - 2 FROM schema_version
        WHERE version = (SELECT max(version) FROM schema_version WHERE version IN (3, 4))""",
)

#: Version 6: a sealed event's opening beside it (docs/ledger.md, "Sealed events").
_V6 = ("ALTER TABLE events ADD COLUMN opening TEXT",)

#: Version 7: the service's signing keys (`SIGNING_KEYS`).
_V7 = (
    """CREATE TABLE signing_keys (
        name TEXT PRIMARY KEY,
        algorithm TEXT NOT NULL,
        private_key TEXT NOT NULL,
        public_key TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
)

#: Version 8: characters that last beyond one bout, held by a player's key (docs/api.md,
#: "Characters"). (`migrate` applies every version a database lacks, so versions may arrive in
#: any order.)
_V8 = (
    """CREATE TABLE character_keys (
        key_hash TEXT PRIMARY KEY,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE characters (
        id TEXT PRIMARY KEY,
        key_hash TEXT NOT NULL REFERENCES character_keys (key_hash),
        version INTEGER NOT NULL CHECK (version >= 1),
        created_at TEXT NOT NULL,
        retired INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX characters_by_key ON characters (key_hash)",
    """CREATE TABLE character_versions (
        character_id TEXT NOT NULL REFERENCES characters (id) ON DELETE CASCADE,
        version INTEGER NOT NULL CHECK (version >= 1),
        name TEXT NOT NULL,
        system TEXT NOT NULL,
        sheet TEXT NOT NULL,
        gear TEXT NOT NULL,
        hidden TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (character_id, version)
    )""",
)

#: Versions no longer in `MIGRATIONS`: their steps belong to a client package now (`_V5`).
RETIRED_VERSIONS = (3, 4)

#: (version, DDL statements), applied in order, each version in one transaction.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, _V1),
    (2, _V2),
    (5, _V5),
    (6, _V6),
    (7, _V7),
    (8, _V8),
)

#: The schema version this code reads and writes (the highest it knows).
SCHEMA_VERSION = max(version for version, _ in MIGRATIONS)
