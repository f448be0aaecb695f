"""The store's signing keys: the service's key, made once and kept with the database.

The store keeps a key's text and never makes one (it holds no cryptography): the caller hands
`signing_key` the function that makes a key, called only when the database holds none yet.
Two processes starting at once keep one key: the first insert wins, the other reads it.

>>> from referee.store import Store
>>> store = Store.open("sqlite://")
>>> store.signing_key("roll-receipts", lambda: ("Ed25519", "secret", "public"))
('Ed25519', 'secret', 'public')
>>> store.signing_key("roll-receipts", lambda: ("Ed25519", "other", "other"))
('Ed25519', 'secret', 'public')
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select, text

from referee.store.core import StoreCore
from referee.store.schema import SIGNING_KEYS
from referee.store.units import write_transaction

_KEEP = text(
    "INSERT INTO signing_keys (name, algorithm, private_key, public_key, created_at) "
    "VALUES (:name, :algorithm, :private_key, :public_key, :created_at) "
    "ON CONFLICT (name) DO NOTHING"
)

#: A key as kept: (algorithm, private key text, public key text).
KeptKey = tuple[str, str, str]


class Keys(StoreCore):
    """The signing keys part of the `Store`."""

    __slots__ = ()

    def signing_key(self, name: str, make: Callable[[], KeptKey]) -> KeptKey:
        """The key kept as `name`; made by `make()` and kept first when there is none."""
        found = self._read_key(name)
        if found is not None:
            return found
        algorithm, private, public = make()
        row = {
            "name": name,
            "algorithm": algorithm,
            "private_key": private,
            "public_key": public,
            "created_at": self.clock(),
        }
        # another process may keep one first: that one is the key, and this one is dropped
        with self._guard(), write_transaction(self._engine) as conn:
            conn.execute(_KEEP, row)
        kept = self._read_key(name)
        assert kept is not None
        return kept

    def _read_key(self, name: str) -> KeptKey | None:
        columns = (SIGNING_KEYS.c.algorithm, SIGNING_KEYS.c.private_key, SIGNING_KEYS.c.public_key)
        with self._guard(), self._connect() as conn:
            row = conn.execute(select(*columns).where(SIGNING_KEYS.c.name == name)).first()
        return None if row is None else (str(row[0]), str(row[1]), str(row[2]))
