"""Which proxy bots a server trusts to speak for its members' characters (`~proxy`).

A proxy bot (PluralKit, Tupperbox) deletes a member's message and posts it again through a
webhook under a character's name and avatar. The bot acts on such a message only when the
webhook belongs to an application the server trusts, and the kind of that proxy says how the
member who wrote it is found (`referee.discord.proxy_owners`). Until a server's admins say
otherwise it trusts the two known proxies, by their Discord application ids (each one's bot
user id, as its invite link names it):

>>> {kind: app for app, kind in DEFAULT_PROXIES.items()}
{'pluralkit': 466378653216014359, 'tupperbox': 431544605209788416}
>>> proxy_kind("PluralKit"), proxy_kind("tupperbox")
('pluralkit', 'tupperbox')
"""

from __future__ import annotations

from types import MappingProxyType

from sqlalchemy import Column, Integer, Table, Text, delete, insert, select

from referee.discord.links import METADATA
from referee.discord.replies import Person, Place, Reply
from referee.errors import ForbiddenError, NotationError
from referee.store import Store

PLURALKIT, TUPPERBOX = "pluralkit", "tupperbox"
#: The kinds of proxy the bot can find the owner of a message for, and how each is written.
KINDS = MappingProxyType({PLURALKIT: "PluralKit", TUPPERBOX: "Tupperbox"})

#: The proxies a server trusts until its admins change it: application id -> kind.
DEFAULT_PROXIES: MappingProxyType[int, str] = MappingProxyType(
    {466378653216014359: PLURALKIT, 431544605209788416: TUPPERBOX}
)

PROXIES = Table(
    "discord_proxies",
    METADATA,
    Column("guild_id", Text, primary_key=True),
    Column("application_id", Text, primary_key=True),
    Column("kind", Text, nullable=False),
    Column("trusted", Integer, nullable=False),
)

USAGE = (
    "say ~proxy (the trusted proxies), ~proxy trust pluralkit|tupperbox [APPLICATION_ID], "
    "~proxy distrust pluralkit|tupperbox|APPLICATION_ID or ~proxy default"
)


def proxy_kind(word: str) -> str:
    """A kind of proxy by its name (any case)."""
    kind = word.strip().lower()
    if kind not in KINDS:
        raise NotationError(f"no proxy kind {word!r} (expected pluralkit or tupperbox)")
    return kind


def application_id(word: str) -> int:
    """A Discord application id: a snowflake, 17 to 20 digits.

    >>> application_id("466378653216014359")
    466378653216014359
    """
    if not (word.isascii() and word.isdigit()) or not 17 <= len(word) <= 20:
        raise NotationError(f"{word!r} is not a Discord application id (17 to 20 digits)")
    return int(word)


class ProxyTrust:
    """The proxies each server trusts: the defaults, with the server's own changes over them
    (the bot's own table, written in the unit of the command that changes it)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def trusted(self, guild_id: int) -> dict[int, str]:
        """The proxies the server trusts: application id -> kind."""
        with self.store.client_reads() as conn:
            rows = conn.execute(
                select(PROXIES.c.application_id, PROXIES.c.kind, PROXIES.c.trusted).where(
                    PROXIES.c.guild_id == str(guild_id)
                )
            ).all()
        found = dict(DEFAULT_PROXIES)
        for app, kind, trusted in rows:
            if trusted:
                found[int(app)] = str(kind)
            else:
                found.pop(int(app), None)
        return found

    def _set(self, guild_id: int, app: int, kind: str, trusted: bool) -> None:
        conn = self.store.client_writes()
        key = (PROXIES.c.guild_id == str(guild_id)) & (PROXIES.c.application_id == str(app))
        conn.execute(delete(PROXIES).where(key))
        conn.execute(
            insert(PROXIES).values(
                guild_id=str(guild_id), application_id=str(app), kind=kind, trusted=int(trusted)
            )
        )

    def command(self, place: Place, who: Person, rest: str) -> Reply:
        """`~proxy`, `~proxy trust KIND [ID]`, `~proxy distrust KIND|ID`, `~proxy default`:
        anyone may read the list; only members with Manage Server change it."""
        if place.guild is None:
            raise NotationError("proxies are trusted per server: say ~proxy in a server")
        words = rest.split()
        verb = words[0].lower() if words else "list"
        if verb == "list" and len(words) <= 1:
            return Reply([self.listing(place.guild)])
        if verb not in ("trust", "distrust", "default"):
            raise NotationError(USAGE)
        if not who.admin:
            raise ForbiddenError("only members with Manage Server can choose the proxies")
        if verb == "default" and len(words) == 1:
            where = PROXIES.c.guild_id == str(place.guild)
            self.store.client_writes().execute(delete(PROXIES).where(where))
            return Reply([self.listing(place.guild)])
        if verb == "trust" and len(words) in (2, 3):
            kind = proxy_kind(words[1])
            default = next(a for a, k in DEFAULT_PROXIES.items() if k == kind)
            app = application_id(words[2]) if len(words) == 3 else default
            self._set(place.guild, app, kind, True)
            return Reply([self.listing(place.guild)])
        if verb == "distrust" and len(words) == 2:
            known = self.trusted(place.guild)
            if words[1].lower() in KINDS:
                apps = [a for a, k in known.items() if k == words[1].lower()]
            else:
                apps = [application_id(words[1])]
            for app in apps:
                self._set(place.guild, app, known.get(app, DEFAULT_PROXIES.get(app, "")), False)
            return Reply([self.listing(place.guild)])
        raise NotationError(USAGE)

    def listing(self, guild_id: int) -> str:
        """The line that names the trusted proxies."""
        known = self.trusted(guild_id)
        if not known:
            return "No proxy is trusted here: messages of proxy bots are ignored (~proxy trust)."
        named = ", ".join(f"{KINDS[k]} ({app})" for app, k in sorted(known.items()))
        return f"Proxies trusted here: {named}."
