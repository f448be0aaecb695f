"""What everyone but the referee sees of a bout while some of its stats are hidden (SRP-10).

The referee may keep a fighter's stats hidden (SRP-10; MSV: an NPC's CS) until it reveals them
or the bout closes. Until then every view but the referee's (answers to actions, the log, the
live stream, the export, chat answers, Discord messages) goes through `redact_hidden`:

- a hidden stat's value shows as "hidden" where it is written (`fighter_added`,
  `fighter_updated`, `stat`, an MSV initiative roll's CS);
- an outcome that names a fighter with hidden stats anywhere (its actor, its target, a helper, a
  defender making an extra attack on a charge) keeps only the public part its rule system
  declares for that kind of outcome (`RuleSystem.public_outcomes`: who did what to whom, the
  dice, the levels, the damage rolled, the hits), with the summary saying "hidden" for a
  stat it names. Everything else, and every key a system has not declared public, is left out.

A redacted event carries `"redacted": true`. It and every event after it show `hash` and
`prev` as null: a stat has few values, so the hash of an event that holds one (and so every
later hash, which chains it) would let anyone hash the event with every value until one fits.
A public export before the close is a preview, not a proof; after the close (or once every
hidden stat is revealed) every event is shown whole, hashes and all.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from referee.bout.events import EventType
from referee.errors import NotFoundError
from referee.systems.base import PublicShape, find_system

Record = dict[str, Any]

#: What the engine writes into every outcome besides the rule system's payload; the summary is
#: said again with hidden stats as "hidden" (`SUMMARY_STATS`).
ENGINE_OUTCOME = ("kind", "actor", "summary", "extra_action")


def hidden_stats(events: Sequence[Record]) -> dict[str, frozenset[str]]:
    """Each fighter's stats still hidden after `events` (all of a bout's, from the start)."""
    hidden: dict[str, set[str]] = {}
    for e in events:
        p = e.get("payload") or {}
        if e["type"] == EventType.FIGHTER_ADDED or (
            e["type"] == EventType.FIGHTER_UPDATED and "hidden" in p
        ):
            hidden[str(p.get("name"))] = set(p.get("hidden") or ())
        elif e["type"] == EventType.REVEALED:
            hidden.get(str(p.get("name")), set()).difference_update(p.get("keys") or ())
    return {name: frozenset(keys) for name, keys in hidden.items() if keys}


def redact_hidden(
    events: list[Record],
    hidden: Mapping[str, frozenset[str]] | None = None,
    system: str | None = None,
) -> list[Record]:
    """Events with hidden stats left out (SRP-10), as everyone but the referee sees them.

    `hidden` maps each fighter to its stats still hidden (`hidden_stats` of the whole bout;
    by default, of `events`); `system` names the bout's rule system (by default, the one its
    opening event names, when `events` hold it), whose `public_outcomes` say what of each
    outcome stays public.
    """
    if hidden is None:
        hidden = hidden_stats(events)
    if not hidden:
        return events
    shapes = _public_outcomes(system if system is not None else _system_of(events))
    out = []
    for e in events:
        p = e.get("payload") or {}
        kind = e["type"]
        name = str(p.get("name"))
        if kind in (EventType.FIGHTER_ADDED, EventType.FIGHTER_UPDATED) and name in hidden:
            stats = {
                k: ("hidden" if k in hidden[name] else v) for k, v in (p.get("stats") or {}).items()
            }
            e = {**e, "payload": {**p, "stats": stats}, "redacted": True}
        elif kind == EventType.STAT and p.get("key") in hidden.get(str(p.get("target")), ()):
            e = {**e, "payload": {**p, "value": "hidden"}, "redacted": True}
        elif kind == EventType.INITIATIVE and _hides_a_roll(p, hidden):
            e = {**e, "payload": _initiative_public(p, hidden), "redacted": True}
        elif kind == EventType.OUTCOME and any(n in hidden for n in _texts(p)):
            shape = shapes.get(str(p.get("kind")), {})
            public = {k: p[k] for k in ENGINE_OUTCOME if k in p}
            public.update(_public(p, shape))
            public["summary"] = _summary_public(p, hidden.get(str(p.get("actor")), frozenset()))
            e = {**e, "payload": public, "redacted": True}
        out.append(e)
    return _unchained(out)


def _unchained(events: list[Record]) -> list[Record]:
    """The events with `hash` and `prev` null from the first redacted one on (its `prev` is a
    public event's hash and stays): every such hash is computed over a hidden value."""
    first = next((i for i, e in enumerate(events) if e.get("redacted")), None)
    if first is None:
        return events
    out = events[:first]
    for i, e in enumerate(events[first:]):
        blank = {"hash": None} if i == 0 else {"hash": None, "prev": None}
        out.append({**e, **{k: v for k, v in blank.items() if k in e}})
    return out


def _system_of(events: Sequence[Record]) -> str | None:
    opened = next((e for e in events if e.get("type") == EventType.BOUT_OPENED), None)
    system = (opened.get("payload") or {}).get("system") if opened else None
    return system if isinstance(system, str) else None


def _public_outcomes(system: str | None) -> Mapping[str, PublicShape]:
    """The rule system's public parts of outcomes; none known: nothing but who did what."""
    if system is None:
        return {}
    try:
        return find_system(system).public_outcomes
    except NotFoundError:
        return {}


def _texts(value: Any) -> Iterator[str]:
    """Every text in a JSON value (the names an outcome mentions among them)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)


def _public(value: Mapping[str, Any], shape: PublicShape) -> dict[str, Any]:
    """The keys of `value` that `shape` names; nested shapes applied to objects and lists."""
    out: dict[str, Any] = {}
    for key, inner in shape.items():
        if key not in value:
            continue
        kept = value[key]
        if inner is True:
            out[key] = kept
        elif isinstance(kept, dict):
            out[key] = _public(kept, inner)
        elif isinstance(kept, list):
            out[key] = [_public(item, inner) for item in kept if isinstance(item, dict)]
    return out


#: How a stat is written in an outcome's summary, so the summary can say "hidden" instead
#: (MSV: `Orc attacks Tarl: 47 vs CS 70: hit` -> `47 vs CS hidden`; the CS is the attacker's).
SUMMARY_STATS = {"cs": "CS {}"}


def _summary_public(p: Mapping[str, Any], hidden: frozenset[str]) -> Any:
    summary = p.get("summary")
    if not isinstance(summary, str):
        return summary
    for key in sorted(hidden & SUMMARY_STATS.keys()):
        if key in p:
            written = SUMMARY_STATS[key]
            summary = summary.replace(written.format(p[key]), written.format("hidden"))
    return summary


def _rolls_of(p: Mapping[str, Any]) -> list[Any]:
    detail = p.get("detail")
    rounds = detail.get("rounds") if isinstance(detail, Mapping) else None
    return list(rounds) if isinstance(rounds, list) else []


def _hides_a_roll(p: Mapping[str, Any], hidden: Mapping[str, frozenset[str]]) -> bool:
    return any(
        isinstance(r, Mapping) and set(r) & hidden.get(str(r.get("name")), frozenset())
        for record in _rolls_of(p)
        if isinstance(record, Mapping)
        for r in record.get("rolls") or []
    )


def _initiative_public(
    p: Mapping[str, Any], hidden: Mapping[str, frozenset[str]]
) -> dict[str, Any]:
    """An initiative with each hidden stat of each roll (MSV: the CS) as "hidden"; the rolls,
    effect numbers, ties and the order stay (they are what the dice said)."""

    def roll(r: Any) -> Any:
        if not isinstance(r, Mapping):
            return r
        keys = hidden.get(str(r.get("name")), frozenset())
        return {k: ("hidden" if k in keys else v) for k, v in r.items()}

    rounds = [
        {**record, "rolls": [roll(r) for r in record.get("rolls") or []]}
        if isinstance(record, Mapping)
        else record
        for record in _rolls_of(p)
    ]
    detail = p.get("detail")
    assert isinstance(detail, Mapping)
    return {**p, "detail": {**detail, "rounds": rounds}}
