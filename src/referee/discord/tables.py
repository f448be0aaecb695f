"""The bot's own tables, made by the bot's own versioned steps through the store's public hook
(`referee.store.migrate_part`): the store knows nothing of them.

Version 1 was the store's schema version 3, version 2 its version 4: a database that ran those
is recorded at that version (the store's version 5 does that), so no step runs twice. Before
them the bot made its tables itself, in version 1's shape without `dialect`: hence IF NOT
EXISTS, then the new column. Never edit a version that has shipped: add a new one.

>>> [version for version, _ in MIGRATIONS]
[1, 2, 3, 4, 5, 6, 7]
"""

from __future__ import annotations

import json

from sqlalchemy import text

from referee.service.characters import new_character_id, new_key
from referee.store import PartMigrations, Store, migrate_part

#: The name the bot's tables go by in the store's `schema_parts`.
PART = "discord"

#: The channels, members, characters and guilds (`referee.discord.links`).
_V1 = (
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

#: The turn clocks (`referee.discord.clock`).
_V2 = (
    """CREATE TABLE IF NOT EXISTS discord_clocks (
        bout_id TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        seconds INTEGER NOT NULL,
        skip INTEGER NOT NULL,
        PRIMARY KEY (bout_id)
    )""",
)

#: The roll tables of each server (`referee.discord.rolltables`, `~table`, `~choose NAME`).
_V3 = (
    """CREATE TABLE discord_roll_tables (
        guild_id TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        entries TEXT NOT NULL,
        PRIMARY KEY (guild_id, name)
    )""",
)

#: Each member's own table ledger per channel (`referee.discord.links.LEDGERS`). The one table
#: ledger a channel had before moves in as the channel's ledger of nobody (user `''`), so it
#: stays readable and revealable (`~fair reveal all`); `discord_channels.table_bout` is kept
#: (a shipped column) but written no more.
_V4 = (
    """CREATE TABLE discord_ledgers (
        channel_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        bout_id TEXT NOT NULL,
        PRIMARY KEY (channel_id, user_id)
    )""",
    """INSERT INTO discord_ledgers (channel_id, user_id, bout_id)
        SELECT channel_id, '', table_bout FROM discord_channels WHERE table_bout IS NOT NULL""",
    "UPDATE discord_channels SET table_bout = NULL WHERE table_bout IS NOT NULL",
)

#: Each member's dice aliases (`referee.discord.aliases`, `~alias add hit 1d20+5`).
_V5 = (
    """CREATE TABLE discord_aliases (
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        expression TEXT NOT NULL,
        PRIMARY KEY (user_id, name)
    )""",
)

#: The proxy bots each server trusts beyond (or instead of) the default ones, and the fighters
#: members play through them (`referee.discord.proxy_trust`, `referee.discord.personas`).
_V6 = (
    """CREATE TABLE discord_proxies (
        guild_id TEXT NOT NULL,
        application_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        trusted INTEGER NOT NULL,
        PRIMARY KEY (guild_id, application_id)
    )""",
    """CREATE TABLE discord_personas (
        bout_id TEXT NOT NULL,
        fighter TEXT NOT NULL,
        user_id TEXT NOT NULL,
        proxy TEXT NOT NULL,
        PRIMARY KEY (bout_id, fighter)
    )""",
)

#: Each member's character key (`referee.discord.character_keys`): the bot holds it for the
#: member, as a browser or a HUD holds its own, to make, change and field the member's
#: characters in the service (`referee.service.characters`). The characters saved before
#: (`discord_characters`) move into the service under each member's key when the bot starts
#: (`move_old_characters`), and that table is left empty (a shipped table, kept).
_V7 = (
    """CREATE TABLE discord_character_keys (
        user_id TEXT NOT NULL,
        key TEXT NOT NULL,
        PRIMARY KEY (user_id)
    )""",
)

#: (version, DDL statements): the versions a database lacks run in order, in one transaction.
MIGRATIONS: PartMigrations = ((1, _V1), (2, _V2), (3, _V3), (4, _V4), (5, _V5), (6, _V6), (7, _V7))


def make_tables(store: Store) -> None:
    """Bring the bot's tables in the store's database up to the last version, and move the
    characters saved before version 7 into the service's."""
    migrate_part(store.engine, PART, MIGRATIONS)
    move_old_characters(store)


def move_old_characters(store: Store) -> int:
    """Every character left in `discord_characters` becomes a character of the service under
    its member's key (made now for a member who has none), and leaves that table, in one
    transaction: nothing lost, nothing moved twice. How many moved."""
    with store.unit():
        conn = store.client_writes()
        rows = conn.execute(
            text(
                "SELECT user_id, name, system, stats FROM discord_characters ORDER BY user_id, name"
            )
        ).all()
        for user_id, name, system, stats in rows:
            found = conn.execute(
                text("SELECT key FROM discord_character_keys WHERE user_id = :u"), {"u": user_id}
            ).scalar()
            key = str(found) if found is not None else new_key()
            if found is None:
                store.add_character_key(key)
                conn.execute(
                    text("INSERT INTO discord_character_keys (user_id, key) VALUES (:u, :k)"),
                    {"u": user_id, "k": key},
                )
            store.add_character(
                key, new_character_id(), name=name, system=system, sheet=json.loads(stats),
                gear=(), hidden=(),
            )  # fmt: skip
        if rows:
            conn.execute(text("DELETE FROM discord_characters"))
    return len(rows)
