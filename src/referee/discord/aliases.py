"""Each member's dice aliases, as OnlineHost's players keep macros and Avrae's keep `!alias`:
`~alias add hit 1d20+5` names an expression, `~hit` (or `~roll hit`) rolls it as that member's
verifiable free roll, the same as `~roll 1d20+5`. Kept per Discord user, in every server.

>>> alias_name("Hit"), alias_name("fire_bolt")
('hit', 'fire_bolt')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import Column, Table, Text, delete, insert, select

from referee.discord.links import METADATA
from referee.errors import NotationError
from referee.store import Store

#: Most aliases a member keeps; most characters of an alias's expression.
MAX_ALIASES, MAX_EXPRESSION = 50, 200
_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")

ALIASES = Table(
    "discord_aliases",
    METADATA,
    Column("user_id", Text, primary_key=True),
    Column("name", Text, primary_key=True),
    Column("expression", Text, nullable=False),
)


@dataclass(frozen=True, slots=True)
class Alias:
    """A member's name for a dice expression."""

    name: str
    expression: str


def alias_name(word: str) -> str:
    """An alias's name: a letter, then up to 31 letters, digits, `_` or `-` (any case, kept
    in lower case).

    >>> try:
    ...     alias_name("1d20")
    ... except NotationError as err:
    ...     str(err).endswith("not '1d20'")
    True
    """
    name = word.strip().lower()
    if not _NAME.fullmatch(name):
        raise NotationError(
            f"an alias's name is a letter, then up to 31 letters, digits, _ or -; not {word!r}"
        )
    return name


class Aliases:
    """The members' aliases in the store's database (the bot's own table, written in the unit
    of the command that changes them)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def of(self, user_id: int) -> list[Alias]:
        """A member's aliases, by name."""
        with self.store.client_reads() as conn:
            rows = conn.execute(
                select(ALIASES.c.name, ALIASES.c.expression)
                .where(ALIASES.c.user_id == str(user_id))
                .order_by(ALIASES.c.name)
            ).all()
        return [Alias(str(r[0]), str(r[1])) for r in rows]

    def find(self, user_id: int, name: str) -> Alias | None:
        """A member's alias by name (any case), or None."""
        wanted = name.strip().lower()
        return next((a for a in self.of(user_id) if a.name == wanted), None)

    def save(self, user_id: int, alias: Alias) -> None:
        """Save (or replace) a member's alias."""
        self.remove(user_id, alias.name)
        self.store.client_writes().execute(
            insert(ALIASES).values(
                user_id=str(user_id), name=alias.name, expression=alias.expression
            )
        )

    def remove(self, user_id: int, name: str) -> bool:
        """Delete a member's alias; whether there was one."""
        where = (ALIASES.c.user_id == str(user_id)) & (ALIASES.c.name == name)
        return bool(self.store.client_writes().execute(delete(ALIASES).where(where)).rowcount)
