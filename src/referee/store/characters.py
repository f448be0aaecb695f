"""The store's characters: held by a player's key (kept only as its SHA-256, like a token),
each version of each kept for good, so a bout's chain can name the sheet that fought.

A key is made on first use (`add_character_key`); a character belongs to one key; a change
writes the next version and never touches the last. The bounds (names, sheet sizes, how many
characters a key holds) are the service's (`referee.service.characters`); this part only
stores and finds.

>>> from referee.store import Store
>>> store = Store.open("sqlite://")
>>> store.add_character_key("ck_" + "k" * 32)
>>> record = store.add_character(
...     "ck_" + "k" * 32, "c1", name="Tarl", system="msv", sheet={"cs": 65}, gear=(), hidden=()
... )
>>> record.version, record.sheet
(1, {'cs': 65})
>>> store.change_character("ck_" + "k" * 32, "c1", name="Tarl", system="msv",
...                        sheet={"cs": 70}, gear=("rope",), hidden=()).version
2
>>> [c.name for c in store.characters_of("ck_" + "k" * 32)]
['Tarl']
>>> store.character_version("c1", 1).sheet
{'cs': 65}
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from referee.errors import ForbiddenError, NotFoundError
from referee.store.core import StoreCore
from referee.store.records import token_hash
from referee.store.schema import CHARACTER_BOUTS, CHARACTER_KEYS, CHARACTER_VERSIONS, CHARACTERS
from referee.store.units import write_transaction


@dataclass(frozen=True, slots=True)
class CharacterRecord:
    """One version of a character: its id, version, name, rule system, sheet, gear and which
    of its stats are hidden (an NPC's, shown only to its key's holder)."""

    id: str
    version: int
    name: str
    system: str
    sheet: Mapping[str, Any] = field(repr=False)
    gear: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    at: str = ""


def _record(row: Any) -> CharacterRecord:
    return CharacterRecord(
        id=row.character_id,
        version=int(row.version),
        name=row.name,
        system=row.system,
        sheet=json.loads(row.sheet),
        gear=tuple(json.loads(row.gear)),
        hidden=tuple(json.loads(row.hidden)),
        at=row.at,
    )


_VERSION_COLUMNS = (
    CHARACTER_VERSIONS.c.character_id,
    CHARACTER_VERSIONS.c.version,
    CHARACTER_VERSIONS.c.name,
    CHARACTER_VERSIONS.c.system,
    CHARACTER_VERSIONS.c.sheet,
    CHARACTER_VERSIONS.c.gear,
    CHARACTER_VERSIONS.c.hidden,
    CHARACTER_VERSIONS.c.at,
)


class Characters(StoreCore):
    """The characters part of the `Store`."""

    __slots__ = ()

    def add_character_key(self, key: str) -> None:
        """Keep a new key (as its SHA-256): it may hold characters from now on."""
        with self._guard(), write_transaction(self._engine) as conn:
            conn.execute(
                insert(CHARACTER_KEYS).values(key_hash=token_hash(key), created_at=self.clock())
            )

    def has_character_key(self, key: str) -> bool:
        """Whether `key` is one this store made."""
        with self._guard(), self._connect() as conn:
            found = conn.execute(
                select(CHARACTER_KEYS.c.key_hash).where(
                    CHARACTER_KEYS.c.key_hash == token_hash(key)
                )
            ).first()
        return found is not None

    def lock_character_key(self, key: str) -> bool:
        """Whether `key` is one this store made, its row locked until the open unit ends
        (PostgreSQL: SELECT ... FOR UPDATE; SQLite's unit holds the database's write lock
        already): what the unit then reads of the key's characters no other unit changes
        before it commits. Outside a unit it is just `has_character_key`."""
        with self._guard(), self._connect() as conn:
            found = conn.execute(
                select(CHARACTER_KEYS.c.key_hash)
                .where(CHARACTER_KEYS.c.key_hash == token_hash(key))
                .with_for_update()
            ).first()
        return found is not None

    def count_characters(self, key: str) -> int:
        """How many characters `key` holds."""
        with self._guard(), self._connect() as conn:
            count = conn.execute(
                select(func.count())
                .select_from(CHARACTERS)
                .where(CHARACTERS.c.key_hash == token_hash(key))
            ).scalar()
        return int(count or 0)

    def add_character(
        self,
        key: str,
        character_id: str,
        *,
        name: str,
        system: str,
        sheet: Mapping[str, Any],
        gear: Sequence[str],
        hidden: Sequence[str],
    ) -> CharacterRecord:
        """A new character of `key` (which must be kept already), at version 1."""
        at = self.clock()
        with self._guard(), write_transaction(self._engine) as conn:
            conn.execute(
                insert(CHARACTERS).values(
                    id=character_id,
                    key_hash=token_hash(key),
                    version=1,
                    created_at=at,
                    retired=0,
                )
            )
            return _write_version(conn, character_id, 1, name, system, sheet, gear, hidden, at)

    def change_character(
        self,
        key: str,
        character_id: str,
        *,
        name: str,
        system: str,
        sheet: Mapping[str, Any],
        gear: Sequence[str],
        hidden: Sequence[str],
    ) -> CharacterRecord:
        """The character's next version (404 unknown, 403 another key's)."""
        at = self.clock()
        with self._guard(), write_transaction(self._engine) as conn:
            version = _owned_version(conn, key, character_id, lock=True) + 1
            conn.execute(
                update(CHARACTERS).where(CHARACTERS.c.id == character_id).values(version=version)
            )
            return _write_version(
                conn, character_id, version, name, system, sheet, gear, hidden, at
            )

    def character(self, key: str, character_id: str) -> CharacterRecord:
        """The last version of one of `key`'s characters (404 unknown, 403 another key's)."""
        with self._guard(), self._connect() as conn:
            version = _owned_version(conn, key, character_id)
            row = conn.execute(
                select(*_VERSION_COLUMNS).where(
                    CHARACTER_VERSIONS.c.character_id == character_id,
                    CHARACTER_VERSIONS.c.version == version,
                )
            ).one()
        return _record(row)

    def characters_of(self, key: str) -> list[CharacterRecord]:
        """The last version of each of `key`'s characters, by name then id."""
        joined = CHARACTERS.join(
            CHARACTER_VERSIONS,
            (CHARACTER_VERSIONS.c.character_id == CHARACTERS.c.id)
            & (CHARACTER_VERSIONS.c.version == CHARACTERS.c.version),
        )
        with self._guard(), self._connect() as conn:
            rows = conn.execute(
                select(*_VERSION_COLUMNS)
                .select_from(joined)
                .where(CHARACTERS.c.key_hash == token_hash(key), CHARACTERS.c.retired == 0)
            ).all()
        return sorted((_record(r) for r in rows), key=lambda c: (c.name.casefold(), c.id))

    def bouts_of_character(self, character_id: str) -> list[str]:
        """The bouts the character joined (any version of it), in the order it first joined
        each: the store keeps each join as it appends it."""
        with self._guard(), self._connect() as conn:
            rows = conn.execute(
                select(CHARACTER_BOUTS.c.bout_id, func.min(CHARACTER_BOUTS.c.at))
                .where(CHARACTER_BOUTS.c.character_id == character_id)
                .group_by(CHARACTER_BOUTS.c.bout_id)
            ).all()
        return [str(r[0]) for r in sorted(rows, key=lambda r: (str(r[1]), str(r[0])))]

    def retire_character(self, key: str, character_id: str) -> None:
        """Take one of `key`'s characters off its list for good (404 unknown, 403 another
        key's); its versions stay, as the bouts that name them do."""
        with self._guard(), write_transaction(self._engine) as conn:
            _owned_version(conn, key, character_id, lock=True)
            conn.execute(
                update(CHARACTERS).where(CHARACTERS.c.id == character_id).values(retired=1)
            )

    def character_version(self, character_id: str, version: int) -> CharacterRecord:
        """One version of a character, whoever holds it (a bout's chain names it)."""
        with self._guard(), self._connect() as conn:
            row = conn.execute(
                select(*_VERSION_COLUMNS).where(
                    CHARACTER_VERSIONS.c.character_id == character_id,
                    CHARACTER_VERSIONS.c.version == version,
                )
            ).first()
        if row is None:
            raise NotFoundError(f"no character {character_id!r} at version {version}")
        return _record(row)


def _owned_version(conn: Connection, key: str, character_id: str, lock: bool = False) -> int:
    query = select(CHARACTERS.c.key_hash, CHARACTERS.c.version, CHARACTERS.c.retired).where(
        CHARACTERS.c.id == character_id
    )
    row = conn.execute(query.with_for_update() if lock else query).first()
    if row is None or row.retired:
        raise NotFoundError(f"no character {character_id!r}")
    if row.key_hash != token_hash(key):
        raise ForbiddenError(f"character {character_id!r} is held by another key")
    return int(row.version)


def _write_version(
    conn: Connection,
    character_id: str,
    version: int,
    name: str,
    system: str,
    sheet: Mapping[str, Any],
    gear: Sequence[str],
    hidden: Sequence[str],
    at: str,
) -> CharacterRecord:
    conn.execute(
        insert(CHARACTER_VERSIONS).values(
            character_id=character_id,
            version=version,
            name=name,
            system=system,
            sheet=json.dumps(dict(sheet), sort_keys=True),
            gear=json.dumps(list(gear)),
            hidden=json.dumps(list(hidden)),
            at=at,
        )
    )
    return CharacterRecord(
        character_id, version, name, system, dict(sheet), tuple(gear), tuple(hidden), at
    )
