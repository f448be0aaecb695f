"""Each member's character key, held by the bot, and their characters through it: `~char` is a
client of the service's characters (`referee.service.characters`), as the console and the HUD
are. The bot makes a member's key on their first `~char set`; `~char key` sends it to them by
direct message (a link the console opens, to play the same characters there), and
`/char key ck_...` (words only the bot sees) makes the bot hold a key moved from another door.

The key is kept in the bot's own table (`discord_character_keys`), since the bot must present
it; the service keeps only its hash. No answer in a channel and no log line says it.
"""

from __future__ import annotations

from sqlalchemy import Column, Table, Text, delete, insert, select

from referee.discord.links import METADATA, Character
from referee.service import characters as ch
from referee.store import Store

KEYS = Table(
    "discord_character_keys",
    METADATA,
    Column("user_id", Text, primary_key=True),
    Column("key", Text, nullable=False),
)


def key_of(store: Store, user_id: int) -> str | None:
    """The member's key, or None (they have saved no character yet)."""
    with store.client_reads() as conn:
        found = conn.execute(select(KEYS.c.key).where(KEYS.c.user_id == str(user_id))).scalar()
    return None if found is None else str(found)


def hold_key(store: Store, user_id: int, key: str) -> int:
    """The bot holds `key` for the member from now on (a key the service made: 401 else);
    how many characters it holds. The member's key before is no longer held by the bot (its
    characters stay the service's, under that key)."""
    with store.unit():
        mine = ch.listed(store, key)
        conn = store.client_writes()
        conn.execute(delete(KEYS).where(KEYS.c.user_id == str(user_id)))
        conn.execute(insert(KEYS).values(user_id=str(user_id), key=key))
    return len(mine)


def characters(store: Store, user_id: int) -> list[Character]:
    """The member's characters, by name (whole: the bot fields them; what it shows where is
    `referee.discord.characters`'s)."""
    key = key_of(store, user_id)
    if key is None:
        return []
    with store.unit():
        records = store.characters_of(ch.known_key(store, key))
    return [Character(r.name, r.system, dict(r.sheet), r.id, r.version, r.hidden) for r in records]


def save(store: Store, user_id: int, character: Character) -> Character:
    """Save the member's character in the service: a new one, or the next version of theirs of
    that name (of another rule system: that one is retired and a new one made)."""
    with store.unit():
        key = key_of(store, user_id)
        same = [
            c for c in characters(store, user_id) if c.name.casefold() == character.name.casefold()
        ]
        if same and same[0].system == character.system and same[0].id is not None:
            changed = ch.change(
                store, str(key), same[0].id, name=character.name, sheet=character.stats
            )
            return _of(changed)
        if same and same[0].id is not None:
            ch.retire(store, str(key), same[0].id)
        made = ch.create(store, key, character.name, character.system, character.stats)
        if key is None:
            store.client_writes().execute(
                insert(KEYS).values(user_id=str(user_id), key=made["key"])
            )
        return _of(made["character"])


def delete_character(store: Store, user_id: int, character: Character) -> None:
    """Take the member's character off their list (its versions stay, as its bouts do)."""
    key = key_of(store, user_id)
    if key is not None and character.id is not None:
        ch.retire(store, key, character.id)


def _of(view: dict[str, object]) -> Character:
    sheet = view["sheet"]
    hidden = view["hidden"]
    assert isinstance(sheet, dict) and isinstance(hidden, list)
    return Character(
        str(view["name"]), str(view["system"]), dict(sheet), str(view["id"]),
        int(str(view["version"])), tuple(hidden),
    )  # fmt: skip
