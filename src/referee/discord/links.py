"""What the bot remembers beside the bouts: which bout a channel plays, who is who, characters.

Small tables in the referee's own database (SQLite or PostgreSQL), the bot's own, made by
its own versioned steps (`referee.discord.tables`) through the store's public hook, so a restart
picks every spar up where it was. The bouts themselves, their events and
their seeds stay in the store's tables; nothing here is needed to verify a bout.

- `discord_channels`: per channel, the open spar's bout and the dice dialect set with
  `~dialect` (its `table_bout`, the one table ledger a channel had before version 4, is no
  longer written: version 4 moved it to `discord_ledgers`).
- `discord_ledgers`: per channel and member, that member's own table ledger; the user `''`
  (nobody) holds a channel's table ledger from before version 4 until it is revealed.
- `discord_members`: per bout, which Discord user plays which fighter, and who is the proctor
  (in a table ledger: the member whose ledger it is, as its one fighter).
- `discord_characters`: saved characters per Discord user, before version 7 (empty since:
  they are the service's characters now, `referee.service.characters`).
- `discord_character_keys`: each member's character key (`referee.discord.character_keys`).
- `discord_guilds`: a server's own command prefix.
- `discord_roll_tables`: a server's roll tables (`~table`, `~choose NAME`).
- `discord_aliases`: each member's dice aliases (`~alias`; `referee.discord.aliases`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    Integer,
    MetaData,
    Table,
    Text,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from referee.discord.rolltables import RollTable
from referee.discord.tables import make_tables
from referee.store import Store

METADATA = MetaData()

CHANNELS = Table(
    "discord_channels",
    METADATA,
    Column("channel_id", Text, primary_key=True),
    Column("guild_id", Text),
    Column("spar_bout", Text),
    Column("table_bout", Text),
    Column("dialect", Text),
)

LEDGERS = Table(
    "discord_ledgers",
    METADATA,
    Column("channel_id", Text, primary_key=True),
    Column("user_id", Text, primary_key=True),
    Column("bout_id", Text, nullable=False),
)

#: The `user_id` of a channel's ledger of nobody (its one table ledger from before version 4).
NOBODY = ""

MEMBERS = Table(
    "discord_members",
    METADATA,
    Column("bout_id", Text, primary_key=True),
    Column("user_id", Text, primary_key=True),
    Column("fighter", Text),
    Column("name", Text),
    Column("proctor", Integer, nullable=False),
    Column("target", Text),
)

CHARACTERS = Table(
    "discord_characters",
    METADATA,
    Column("user_id", Text, primary_key=True),
    Column("name", Text, primary_key=True),
    Column("system", Text, nullable=False),
    Column("stats", Text, nullable=False),
)

GUILDS = Table(
    "discord_guilds",
    METADATA,
    Column("guild_id", Text, primary_key=True),
    Column("prefix", Text, nullable=False),
)

ROLL_TABLES = Table(
    "discord_roll_tables",
    METADATA,
    Column("guild_id", Text, primary_key=True),
    Column("name", Text, primary_key=True),
    Column("description", Text, nullable=False),
    Column("entries", Text, nullable=False),
)


@dataclass(frozen=True, slots=True)
class Member:
    """One Discord user in one bout: the fighter they play (if any), proctor or not."""

    user_id: str
    fighter: str | None
    proctor: bool
    target: str | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Character:
    """A saved character: its name, rule system and stats; once saved, its id and version in
    the service (`referee.service.characters`) and the stats it hides as an NPC."""

    name: str
    system: str
    stats: dict[str, Any]
    id: str | None = field(default=None, repr=False)
    version: int = field(default=0, repr=False)
    hidden: tuple[str, ...] = field(default=(), repr=False)


class Links:
    """Reads and writes the bot's tables. It opens no transaction: its writes join the unit of
    work the command runs in (`Store.unit`, through the service), so each command stores its
    bout events and these rows together, or nothing."""

    def __init__(self, store: Store) -> None:
        make_tables(store)
        self.store = store
        #: Each server's own prefix, read once (asked for every message of the server).
        self._prefixes: dict[int, str | None] = {}

    # -- channels ------------------------------------------------------------------------

    def channel(self, channel_id: int) -> tuple[str | None, str | None]:
        """The channel's open spar bout and its ledger of nobody (the one table ledger the
        channel had before each member got their own), None when there is none."""
        return self.spar(channel_id), self.ledger(channel_id, None)

    def spar(self, channel_id: int) -> str | None:
        """The channel's spar bout (None when there is none)."""
        with self.store.client_reads() as conn:
            row = conn.execute(
                select(CHANNELS.c.spar_bout).where(CHANNELS.c.channel_id == str(channel_id))
            ).first()
        return row[0] if row else None

    def set_channel(self, channel_id: int, guild_id: int | None, *, spar: str | None) -> None:
        """Set the channel's spar bout (None: no spar)."""
        key = str(channel_id)
        conn = self.store.client_writes()
        found = conn.execute(
            select(CHANNELS.c.channel_id).where(CHANNELS.c.channel_id == key)
        ).first()
        if found:
            conn.execute(
                update(CHANNELS).where(CHANNELS.c.channel_id == key).values(spar_bout=spar)
            )
        else:
            guild = None if guild_id is None else str(guild_id)
            conn.execute(insert(CHANNELS).values(channel_id=key, guild_id=guild, spar_bout=spar))

    def hold_channel(self, channel_id: int, guild_id: int | None) -> None:
        """Take the channel's row for the rest of the command's unit (made if missing): one
        command at a time per channel, so two that arrive at once cannot both open a spar or
        a table ledger (on SQLite the unit's write lock does that already)."""
        conn = self.store.client_writes()
        guild = None if guild_id is None else str(guild_id)
        add = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
        conn.execute(
            add(CHANNELS)
            .values(channel_id=str(channel_id), guild_id=guild)
            .on_conflict_do_nothing()
        )
        conn.execute(
            select(CHANNELS.c.channel_id)
            .where(CHANNELS.c.channel_id == str(channel_id))
            .with_for_update()
        )

    def dialect(self, channel_id: int) -> str | None:
        """The channel's dice dialect, if its proctor or a server admin set one."""
        with self.store.client_reads() as conn:
            row = conn.execute(
                select(CHANNELS.c.dialect).where(CHANNELS.c.channel_id == str(channel_id))
            ).first()
        return row[0] if row else None

    def set_dialect(self, channel_id: int, guild_id: int | None, dialect: str) -> None:
        """Set the channel's dice dialect."""
        key = str(channel_id)
        conn = self.store.client_writes()
        found = conn.execute(
            select(CHANNELS.c.channel_id).where(CHANNELS.c.channel_id == key)
        ).first()
        if found:
            conn.execute(
                update(CHANNELS).where(CHANNELS.c.channel_id == key).values(dialect=dialect)
            )
        else:
            guild = None if guild_id is None else str(guild_id)
            conn.execute(insert(CHANNELS).values(channel_id=key, guild_id=guild, dialect=dialect))

    # -- table ledgers -------------------------------------------------------------------

    def ledger(self, channel_id: int, user_id: int | None) -> str | None:
        """A member's own table ledger in the channel (`user_id` None: the channel's ledger of
        nobody), or None."""
        who = NOBODY if user_id is None else str(user_id)
        where = (LEDGERS.c.channel_id == str(channel_id)) & (LEDGERS.c.user_id == who)
        with self.store.client_reads() as conn:
            row = conn.execute(select(LEDGERS.c.bout_id).where(where)).first()
        return row[0] if row else None

    def ledgers(self, channel_id: int) -> list[tuple[int | None, str]]:
        """Every table ledger of the channel: (member, bout), the ledger of nobody (None)
        first, then by member."""
        with self.store.client_reads() as conn:
            rows = conn.execute(
                select(LEDGERS.c.user_id, LEDGERS.c.bout_id).where(
                    LEDGERS.c.channel_id == str(channel_id)
                )
            ).all()
        found = [(None if r[0] == NOBODY else int(r[0]), str(r[1])) for r in rows]
        return sorted(found, key=lambda row: -1 if row[0] is None else row[0])

    def set_ledger(self, channel_id: int, user_id: int | None, bout_id: str | None) -> None:
        """Make `bout_id` the member's table ledger in the channel (None: they have none)."""
        who = NOBODY if user_id is None else str(user_id)
        where = (LEDGERS.c.channel_id == str(channel_id)) & (LEDGERS.c.user_id == who)
        conn = self.store.client_writes()
        conn.execute(delete(LEDGERS).where(where))
        if bout_id is not None:
            conn.execute(
                insert(LEDGERS).values(channel_id=str(channel_id), user_id=who, bout_id=bout_id)
            )

    # -- members -------------------------------------------------------------------------

    def members(self, bout_id: str) -> list[Member]:
        """Everyone the bot knows in a bout."""
        with self.store.client_reads() as conn:
            rows = conn.execute(
                select(
                    MEMBERS.c.user_id, MEMBERS.c.fighter, MEMBERS.c.proctor, MEMBERS.c.target,
                    MEMBERS.c.name,
                )
                .where(MEMBERS.c.bout_id == bout_id)
                .order_by(MEMBERS.c.user_id)
            ).all()  # fmt: skip
        return [Member(r[0], r[1], bool(r[2]), r[3], r[4]) for r in rows]

    def fought(
        self, *, user_id: int | None = None, fighter: str | None = None
    ) -> list[tuple[str, str]]:
        """(bout, fighter) of every bout the bot knows a member fought in: one member's
        (`user_id`), or every member's who fought under the name `fighter`."""
        where: list[ColumnElement[bool]] = [MEMBERS.c.fighter.is_not(None)]
        if user_id is not None:
            where.append(MEMBERS.c.user_id == str(user_id))
        if fighter is not None:
            where.append(MEMBERS.c.fighter == fighter)
        with self.store.client_reads() as conn:
            rows = conn.execute(select(MEMBERS.c.bout_id, MEMBERS.c.fighter).where(*where)).all()
        return [(str(r[0]), str(r[1])) for r in rows]

    def member(self, bout_id: str, user_id: int) -> Member | None:
        """One user in a bout, or None."""
        return next((m for m in self.members(bout_id) if m.user_id == str(user_id)), None)

    def set_member(self, bout_id: str, user_id: int, **values: Any) -> None:
        """Insert or change a user's row in a bout (fighter=, proctor=, target=)."""
        key = {"bout_id": bout_id, "user_id": str(user_id)}
        where = (MEMBERS.c.bout_id == bout_id) & (MEMBERS.c.user_id == str(user_id))
        if "proctor" in values:
            values["proctor"] = int(bool(values["proctor"]))
        conn = self.store.client_writes()
        if conn.execute(select(MEMBERS.c.user_id).where(where)).first():
            conn.execute(update(MEMBERS).where(where).values(**values))
        else:
            conn.execute(insert(MEMBERS).values(**{"proctor": 0, **key, **values}))

    def proctor(self, bout_id: str) -> str | None:
        """The proctor's user id."""
        return next((m.user_id for m in self.members(bout_id) if m.proctor), None)

    def hand_over(self, bout_id: str, user_id: int) -> None:
        """Make `user_id` the one proctor of the bout."""
        conn = self.store.client_writes()
        conn.execute(update(MEMBERS).where(MEMBERS.c.bout_id == bout_id).values(proctor=0))
        self.set_member(bout_id, user_id, proctor=True)

    # -- roll tables ---------------------------------------------------------------------

    def roll_tables(self, guild_id: int) -> list[RollTable]:
        """A server's roll tables, by name."""
        with self.store.client_reads() as conn:
            rows = conn.execute(
                select(ROLL_TABLES.c.name, ROLL_TABLES.c.description, ROLL_TABLES.c.entries)
                .where(ROLL_TABLES.c.guild_id == str(guild_id))
                .order_by(ROLL_TABLES.c.name)
            ).all()
        return [RollTable.read(r[0], r[1], r[2]) for r in rows]

    def roll_table(self, guild_id: int, name: str) -> RollTable | None:
        """A server's roll table by name, without regard to letter case."""
        found = [t for t in self.roll_tables(guild_id) if t.name.casefold() == name.casefold()]
        return found[0] if found else None

    def save_roll_table(self, guild_id: int, table: RollTable) -> None:
        """Save (or replace) a server's roll table."""
        self.delete_roll_table(guild_id, table.name)
        self.store.client_writes().execute(
            insert(ROLL_TABLES).values(
                guild_id=str(guild_id), name=table.name,
                description=table.description, entries=table.to_json(),
            )
        )  # fmt: skip

    def delete_roll_table(self, guild_id: int, name: str) -> bool:
        """Delete a server's roll table; whether there was one."""
        where = (ROLL_TABLES.c.guild_id == str(guild_id)) & (ROLL_TABLES.c.name == name)
        return bool(self.store.client_writes().execute(delete(ROLL_TABLES).where(where)).rowcount)

    # -- server settings -----------------------------------------------------------------

    def prefix(self, guild_id: int) -> str | None:
        """The server's own prefix, if its admins set one (read once per server, then kept)."""
        if guild_id not in self._prefixes:
            with self.store.client_reads() as conn:
                row = conn.execute(
                    select(GUILDS.c.prefix).where(GUILDS.c.guild_id == str(guild_id))
                ).first()
            self._prefixes[guild_id] = row[0] if row else None
        return self._prefixes[guild_id]

    def set_prefix(self, guild_id: int, prefix: str) -> None:
        """Set the server's prefix."""
        conn = self.store.client_writes()
        conn.execute(delete(GUILDS).where(GUILDS.c.guild_id == str(guild_id)))
        conn.execute(insert(GUILDS).values(guild_id=str(guild_id), prefix=prefix))
        self._prefixes.pop(guild_id, None)  # read again, once the unit committed or not
