"""The service's signing key and the signed lines it says (docs/ledger.md, "Signed roll lines").

The key is made at the service's first start and kept in its database (`Store.signing_key`),
so a restart signs with the same key; the private key stays in the store and in this object
(no answer, log, export or chat line holds it). Every roll receipt the service says is signed
here: `sign` gives a roll's signature, `signed_rolls` adds it (`signature`) and the line the
roll is said in (`line`) to each roll of an answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import RuleError
from referee.ledger.signatures import ALGORITHM, PrivateKey, PublicKey
from referee.payloads.events import Roll
from referee.rng.streams import owner_of
from referee.sentences import roll_line, who
from referee.store import Store
from referee.vocabulary import EventType

#: The key's name in the store.
KEY_NAME = "roll-receipts"


class ServiceKey:
    """The service's signing key, read from the store when the service starts (made and kept
    there first when it holds none): never inside a bout's transaction, so a roll's write
    reads nothing more for it."""

    __slots__ = ("_key",)

    def __init__(self, store: Store) -> None:
        _, secret, _ = store.signing_key(KEY_NAME, _new_key)
        self._key = PrivateKey.from_text(secret)

    def _private(self) -> PrivateKey:
        return self._key

    @property
    def public(self) -> PublicKey:
        """The public key (made and kept first when the store holds none)."""
        return self._private().public

    def sign(self, bout_id: str, roller: str, payload: Mapping[str, Any]) -> str | None:
        """The signature of one roll as `roller` is shown rolling it (None for dice the
        service did not throw, or faces a caller may not see)."""
        roll = Roll.given(payload)
        nonce, faces = roll.nonce, roll.faces
        if not isinstance(nonce, int) or not isinstance(faces, list | tuple):
            return None
        if not all(isinstance(f, int) and not isinstance(f, bool) for f in faces):
            return None
        return self._private().sign_roll(bout_id, roller, payload)

    def line(self, bout_id: str, roller: str, payload: Mapping[str, Any]) -> str:
        """The roll said as the host line (or a line of mixed dice), signed."""
        return roll_line(roller, payload, self.sign(bout_id, roller, payload))

    def signed_rolls(
        self, bout_id: str, actor: str, rolls: Sequence[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        """Each roll of an answer with its `signature` and its `line`, said as its stream's
        owner rolling it (the action's `actor` for a roll of no stream)."""
        out = []
        for roll in rolls:
            roller = roller_of(roll, actor)
            token = self.sign(bout_id, roller, roll)
            out.append({**roll, "signature": token, "line": roll_line(roller, roll, token)})
        return out

    def signed_events(self, bout_id: str, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """An answer's events (`seq`, `type`, `payload`), each roll with its `signature` beside
        its payload (initiative's answer, which grows with the fighters: the Second Life table
        reads it whole, in at most 16 KiB, and says each roll with its signature after it)."""
        out = []
        for entry in entries:
            if entry.get("type") == EventType.ROLL:
                payload = entry.get("payload") or {}
                token = self.sign(bout_id, roller_of(payload, "referee"), payload)
                entry = {**entry, "signature": token}
            out.append(entry)
        return out


def roller_of(payload: Mapping[str, Any], actor: str) -> str:
    """Who a roll is said as: its stream's owner (the referee as `Referee`), else the actor.

    >>> roller_of({"stream": "free:Tarl"}, "referee"), roller_of({"stream": "referee"}, "x")
    ('Tarl', 'Referee')
    """
    stream = Roll.given(payload).stream
    if isinstance(stream, str):
        try:
            return who(owner_of(stream)[1])
        except RuleError:
            pass
    return who(actor)


def _new_key() -> tuple[str, str, str]:
    key = PrivateKey.generate()
    return ALGORITHM, key.secret_text, key.public.text
