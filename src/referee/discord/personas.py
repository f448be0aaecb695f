"""The fighters members play through a proxy bot (personas): which member holds which fighter
of a spar, and through which proxy it joined.

A member may hold any number of personas in a spar beside (or instead of) the fighter they
play as themselves; a persona acts only on a message its own proxy posted under its name for
the member who holds it (`referee.discord.proxies`), as that fighter, through the service's
one permission check.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Column, Table, Text, delete, insert, select

from referee.discord.links import METADATA
from referee.store import Store

PERSONAS = Table(
    "discord_personas",
    METADATA,
    Column("bout_id", Text, primary_key=True),
    Column("fighter", Text, primary_key=True),
    Column("user_id", Text, nullable=False),
    Column("proxy", Text, nullable=False),
)


@dataclass(frozen=True, slots=True)
class Persona:
    """A fighter of a spar that a member plays through a proxy."""

    fighter: str
    user_id: int
    proxy: str


class Personas:
    """The personas of every spar (the bot's own table, written in the command's unit)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def of(self, bout: str) -> list[Persona]:
        """The spar's personas, by name."""
        with self.store.client_reads() as conn:
            rows = conn.execute(
                select(PERSONAS.c.fighter, PERSONAS.c.user_id, PERSONAS.c.proxy)
                .where(PERSONAS.c.bout_id == bout)
                .order_by(PERSONAS.c.fighter)
            ).all()
        return [Persona(str(r[0]), int(r[1]), str(r[2])) for r in rows]

    def named(self, bout: str, name: str) -> Persona | None:
        """The persona of that name (any case), or None."""
        wanted = name.casefold()
        return next((p for p in self.of(bout) if p.fighter.casefold() == wanted), None)

    def hold(self, bout: str, persona: Persona) -> None:
        """Record that a member holds a fighter through a proxy (in place of a persona of that
        name that left the spar: the service refuses a name still fighting)."""
        key = (PERSONAS.c.bout_id == bout) & (PERSONAS.c.fighter == persona.fighter)
        self.store.client_writes().execute(delete(PERSONAS).where(key))
        self.store.client_writes().execute(
            insert(PERSONAS).values(
                bout_id=bout,
                fighter=persona.fighter,
                user_id=str(persona.user_id),
                proxy=persona.proxy,
            )
        )
