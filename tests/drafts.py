"""Drafts for the store's tests: events as `Store.extend` takes them (type, actor, payload;
the store links them into the chain), and the builds that draft them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.ledger import roll_payload


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
