"""The referee's rulings in a chain: what a person decided, as against what the dice did.

Verification checks the rules (every rolled outcome follows from its dice); a ruling is the
other kind of decision, one the referee made by hand and the ledger records as such: a
declared winner, an override of an outcome's wounds (SRP-20), a void, a circumstance modifier
or a defense chosen by the referee, a change to a fighter, a skipped turn, a cancelled bout.

>>> from referee.ledger.chain import chain
>>> e = chain(None, "ended", "referee", {"winner": "A", "reason": "yield"},
...           "2026-11-29T22:40:12.000000Z")
>>> [str(r) for r in rulings([e])]
["event 0 (ended): the referee declared side 'A' the winner (yield)"]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.ledger.printable import shown

#: Who makes rulings.
REFEREE = "referee"

#: Options of an action that the dice do not decide (the rules read them as given).
CHOSEN_OPTIONS = ("modifier", "rear", "defend", "defense", "range", "aim", "mounted")


@dataclass(frozen=True, slots=True)
class Ruling:
    """One decision the referee made by hand, at the event that records it."""

    seq: Any
    type: str
    text: str

    def __str__(self) -> str:
        return f"event {self.seq} ({self.type}): {self.text}"

    def as_json(self) -> dict[str, Any]:
        """The ruling as a JSON object (for `--json` reports)."""
        return {"seq": self.seq, "type": self.type, "text": str(self)}


Payload = Mapping[str, Any]


def _ended(p: Payload) -> str | None:
    reason = f" ({p['reason']})" if isinstance(p.get("reason"), str) and p["reason"] else ""
    if p.get("winner") is None:
        return f"the referee ended the bout without a winner{reason}"
    return f"the referee declared side {shown(p['winner'])} the winner{reason}"


def _overridden(p: Payload) -> str | None:
    wounds: list[Any] = p["wounds"] if isinstance(p.get("wounds"), list) else []
    given = ", ".join(f"{w.get('target')} {w.get('amount')}" for w in wounds if isinstance(w, dict))
    note = f": {p['note']}" if isinstance(p.get("note"), str) and p["note"] else ""
    of = shown(p.get("of"))
    return f"the referee replaced the wounds of event {of} with {given or 'none'}{note}"


def _voided(p: Payload) -> str | None:
    return f"the referee voided events {shown(p.get('from'))} to {shown(p.get('to'))}"


def _action(p: Payload) -> str | None:
    options: dict[str, Any] = p["options"] if isinstance(p.get("options"), dict) else {}
    chosen = [f"{key} {shown(options[key])}" for key in CHOSEN_OPTIONS if key in options]
    if p.get("by") != REFEREE or not chosen:
        return None
    return f"the referee set {', '.join(chosen)} for this {shown(p.get('kind'))}"


def _updated(p: Payload) -> str | None:
    stats: dict[str, Any] = p["stats"] if isinstance(p.get("stats"), dict) else {}
    parts = [f"stats {', '.join(sorted(stats))}"] if stats else []
    if "wounds" in p:
        parts.append(f"wounds to {shown(p['wounds'])}")
    return f"the referee changed {shown(p.get('name'))}: {'; '.join(parts) or 'nothing'}"


def _stat(p: Payload) -> str | None:
    key, target, value = shown(p.get("key")), shown(p.get("target")), shown(p.get("value"))
    return f"the referee set {key} of {target} to {value}"


#: Event types that, written by the referee, are rulings; each says what was decided.
RULING_TYPES: dict[str, Callable[[Payload], str | None]] = {
    "ended": _ended,
    "overridden": _overridden,
    "voided": _voided,
    "action": _action,
    "fighter_updated": _updated,
    "stat": _stat,
    "skipped": lambda p: f"the referee skipped the turn of {shown(p.get('name'))}",
    "cancelled": lambda p: "the referee called the bout off",
}


def rulings(events: list[Any]) -> tuple[Ruling, ...]:
    """Every ruling of the referee in the chain, in order."""
    found: list[Ruling] = []
    for event in events:
        if not isinstance(event, dict):
            continue
        kind, payload = event.get("type"), event.get("payload")
        if event.get("actor") != REFEREE and kind != "action":  # an action says `by` itself
            continue
        describe = RULING_TYPES.get(kind) if isinstance(kind, str) else None
        if describe is None or not isinstance(payload, dict):
            continue
        text = describe(payload)
        if text is not None:
            found.append(Ruling(event.get("seq"), str(kind), text))
    return tuple(found)
