"""Drafts for the store's tests: events as `Store.extend` takes them (type, actor, payload;
the store links them into the chain), the builds that draft them, and a closed bout made of
them (`closed_bout`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.ledger import roll_payload
from referee.store import Store


@dataclass(frozen=True)
class Draft:
    """A new event before the store links it: its type, actor and payload."""

    type: str
    actor: str | None
    payload: dict[str, Any]


def note(text: str, actor: str | None = "ref") -> Callable[[Any, Any], list[Draft]]:
    """A build that drafts one `note` event saying `text`."""

    def build(events: Any, dice: Any) -> list[Draft]:
        return [Draft("note", actor, {"text": text})]

    return build


def roll(events: Any, dice: Any) -> list[Draft]:
    """A build that throws an SRP attack's dice (d20, d20, d6) and drafts its `roll` event."""
    t = dice.throw((20, 20, 6))
    return [Draft("roll", "Tarl", roll_payload(t.nonce or 0, t.dice, t.faces))]


#: The seed, time and header of `closed_bout`'s bout `b1`.
SEED = "00" * 32
AT = "2026-11-29T22:40:12.000000Z"
HEADER = {"id": "b1", "system": "msv", "name": "Spar", "rules": {}, "created_at": AT}


def opened(events: Any, dice: Any) -> list[Draft]:
    """A build that drafts bout b1's `bout_opened` (`HEADER`)."""
    return [Draft("bout_opened", "referee", HEADER)]


def closed(events: Any, dice: Any) -> list[Draft]:
    """A build that drafts a `closed` event revealing `SEED`."""
    return [Draft("closed", "referee", {"server_seed": SEED})]


def closed_bout(path: str, rolls: int) -> None:
    """Bout b1 in a new SQLite store at `path`: opened, `rolls` rolls, its seed revealed,
    closed."""
    with Store.open(path) as store:
        store.create_bout(
            system="msv",
            name="Spar",
            server_seed=SEED,
            client_seed="table",
            bout_id="b1",
            created_at=AT,
        )
        store.extend("b1", opened, at=AT)
        for _ in range(rolls):
            store.extend("b1", roll, at=AT)
        store.reveal_seed("b1")
        store.extend("b1", closed, at=AT)
        store.set_status("b1", "closed")
