"""What everyone but the referee sees of a bout while some of its stats are hidden (SRP-10).

The referee may keep a fighter's stats hidden (SRP-10; MSV: an NPC's CS) until it reveals them
or the bout closes. Until then every view but the referee's (answers to actions, the log, the
live stream, the export, chat answers, Discord messages) goes through `redact_hidden`, which
reads who may see each field from the payload's declared shape (`referee.payloads`; an outcome's
and an initiative's rule-system part from the system's `outcomes` and `initiative_detail`):

- a private field (`Visibility.PRIVATE`: one fighter's stat, as a `fighter_added` sheet, a
  `stat` event's value, an MSV initiative roll's CS) shows "hidden" while that stat is hidden;
- an event that names a fighter with hidden stats anywhere (its actor, its target, a helper, a
  defender making an extra attack on a charge) loses its hidden fields (`Visibility.HIDDEN`:
  worked out from a hidden stat) and every key its shape does not declare; an outcome keeps
  only its public fields, with the summary saying "hidden" for a stat it names.

Bouts of ledger 2 (every bout made now) seal such an event when it is written (`seal_hidden`,
`referee.ledger.seal`): the chain holds its public part and a salted seal of the whole, so
everyone is given every event's hash as it is written and none gives a hidden value away; the
opening is shown once nothing it holds is hidden any more (a reveal), and to all at the close.

In a bout made before, a redacted event carries `"redacted": true`, and it and every event
after it show `hash` and `prev` as null: a stat has few values, so the hash of an event that
holds one (and so every later hash, which chains it) would let anyone hash the event with every
value until one fits. Such a bout's public export before the close is a preview, not a proof.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.errors import NotFoundError
from referee.ledger import WHOLE_RECORD, ledger_format
from referee.ledger.seal import HIDDEN, SEAL, Draft, SealedDraft, chained, without_seal
from referee.payloads import SHAPES, Declared, Shape, Visibility
from referee.payloads import events as p
from referee.payloads.fields import pick, shapes_in
from referee.systems.base import RuleSystem, find_system
from referee.vocabulary import EventType

Record = dict[str, Any]
Hidden = Mapping[str, frozenset[str]]


def hidden_stats(events: Sequence[Record]) -> dict[str, frozenset[str]]:
    """Each fighter's stats still hidden after `events` (all of a bout's, from the start)."""
    hidden: dict[str, set[str]] = {}
    for e in events:
        kind, payload = e["type"], e.get("payload") or {}
        if kind == EventType.FIGHTER_ADDED:
            added = p.FighterAdded.read(payload)
            hidden[str(added.name)] = set(added.hidden or ())
        elif kind == EventType.FIGHTER_UPDATED and "hidden" in payload:
            updated = p.FighterUpdated.read(payload)
            hidden[str(updated.name)] = set(updated.hidden or ())
        elif kind == EventType.REVEALED:
            revealed = p.Revealed.read(payload)
            hidden.get(str(revealed.name), set()).difference_update(revealed.keys or ())
    return {name: frozenset(keys) for name, keys in hidden.items() if keys}


def redact_hidden(
    events: list[Record],
    hidden: Hidden | None = None,
    system: str | None = None,
    *,
    ledger: int | None = None,
) -> list[Record]:
    """Events as everyone but the referee sees them while stats are hidden (SRP-10).

    `hidden` maps each fighter to its stats still hidden (`hidden_stats` of the whole bout;
    by default, of `events`); `system` names the bout's rule system (by default, the one its
    opening event names, when `events` hold it), whose declared shapes say what stays public;
    `ledger` is the bout's ledger format (by default, what the events' header says).

    In a bout of ledger 2 (`referee.ledger.seal`) every event that held a hidden value when it
    was written is sealed: it shows as the chain holds it (its public part, its seal, its
    hash) until nothing it holds is hidden any more, and then whole; every other event is
    public as it is. In a bout made before, each event naming a hidden stat is redacted here,
    and from the first such event on `hash` and `prev` are null.
    """
    if hidden is None:
        hidden = hidden_stats(events)
    if (ledger_format(events) if ledger is None else ledger) >= WHOLE_RECORD:
        return _sealed_view(events, hidden, system)
    if not hidden:
        return events
    rules = _system(system if system is not None else _system_of(events))
    out = []
    for e in events:
        public = public_payload(e, hidden, rules)
        if public is not None:
            e = {**e, "payload": public, "redacted": True}
        out.append(e)
    return _unchained(out)


def public_payload(
    event: Record, hidden: Hidden, rules: type[RuleSystem] | None
) -> dict[str, Any] | None:
    """The payload of `event` as everyone but the referee may see it while `hidden` stats are
    hidden, or None when they may see it whole."""
    if not hidden:
        return None
    shape = _shape_of(event, rules)
    payload = event.get("payload")
    if shape is None or not isinstance(payload, dict):
        return None
    seen = _Redaction(hidden, _names_hidden(payload, hidden))
    public = seen.object(shape, payload)
    if not seen.changed:
        return None
    if issubclass(shape, _Merged):
        public["summary"] = _summary_public(payload, hidden, rules)
    return public


def seal_hidden(
    events: Sequence[Draft], hidden: Hidden, system: str, salt: Callable[[], str]
) -> list[Draft]:
    """A command's new events, each that holds a hidden value (`public_payload`) as a sealed
    draft (`referee.ledger.seal`; `salt()` gives each seal's salt): what a bout of ledger 2
    writes, so that the chain holds only what everyone may see, and every hash is public."""
    if not hidden:
        return list(events)
    rules = _system(system)
    out: list[Draft] = []
    for e in events:
        public = public_payload(
            {"type": e.type, "actor": e.actor, "payload": e.payload}, hidden, rules
        )
        if public is None:
            out.append(e)
        else:
            out.append(SealedDraft(e.type, e.actor, dict(e.payload), public, salt()))
    return out


def openable(record: Record, hidden: Hidden, rules: type[RuleSystem] | None) -> bool:
    """Whether a sealed record holds nothing hidden any more (its opening may be shown)."""
    return public_payload(record, hidden, rules) is None


def _sealed_view(events: list[Record], hidden: Hidden, system: str | None) -> list[Record]:
    """A ledger-2 bout's events as the public sees them: each sealed one as the chain holds it
    until it may be opened, then whole (without the seal's salt)."""
    rules: type[RuleSystem] | None = None
    if hidden:
        rules = _system(system if system is not None else _system_of(events))
    out = []
    for e in events:
        if SEAL in e:
            e = without_seal(e) if openable(e, hidden, rules) else chained(e)
        out.append(e)
    return out


class _Merged(Shape):
    """An outcome's whole shape: the engine's part and the system's for its kind."""

    __slots__ = ()
    redact_when_named = True


def _shape_of(event: Record, rules: type[RuleSystem] | None) -> type[Shape] | None:
    """The declared shape of an event's whole payload (an outcome: both parts)."""
    try:
        kind = EventType(str(event.get("type")))
    except ValueError:
        return None
    shape = SHAPES[kind]
    payload = event.get("payload") or {}
    if kind is EventType.OUTCOME:
        part = rules.outcomes.get(str(payload.get("kind"))) if rules is not None else None
        return _merged(part)
    if kind is EventType.INITIATIVE and rules is not None:
        return _initiative(rules.initiative_detail)
    return shape


_MERGED: dict[type[Shape] | None, type[Shape]] = {}


def _merged(part: type[Shape] | None) -> type[Shape]:
    """The outcome's engine fields and the system's for the kind, as one shape to redact by."""
    found = _MERGED.get(part)
    if found is None:
        fields = (*(part.declared() if part is not None else ()), *p.Outcome.declared())
        found = type("Merged", (_Merged,), {"_declared_cache": fields, "__slots__": ()})
        _MERGED[part] = found
    return found


def _initiative(detail: type[Shape]) -> type[Shape]:
    """The initiative event with its `detail` in the system's declared shape."""
    found = _MERGED.get(detail)
    if found is None:
        fields = tuple(
            Declared(d.name, d.attribute, d.visibility, d.omit, kind=detail)
            if d.name == "detail"
            else d
            for d in p.Initiative.declared()
        )
        found = type("Initiative", (Shape,), {"_declared_cache": fields, "__slots__": ()})
        _MERGED[detail] = found
    return found


@dataclass(slots=True)
class _Redaction:
    """One event's redaction: what is hidden, whether the event names a hidden fighter, and
    whether anything was left out or said "hidden"."""

    hidden: Hidden
    named: bool
    changed: bool = False

    def object(self, shape: type[Shape], value: Mapping[str, Any]) -> dict[str, Any]:
        """The public part of an object of `shape`."""
        strict = self.named and (shape.redact_when_named or _has_hidden(shape))
        if strict:
            self.changed = True
        out: dict[str, Any] = {}
        declared = {d.name: d for d in shape.declared()}
        for key, item in value.items():
            field = declared.get(key)
            if field is None:
                if strict:
                    continue  # a key no shape declares is nobody's business
                out[key] = item
            elif field.visibility is Visibility.HIDDEN and self.named:
                self.changed = True
            elif field.visibility is Visibility.PRIVATE:
                out[key] = self.private(field, value, item)
            else:
                out[key] = self.inner(field, item)
        return out

    def inner(self, field: Declared, item: Any) -> Any:
        """A public field's value, its own declared parts redacted in turn."""
        shapes = shapes_in(field.kind)
        if not shapes:
            return item
        if isinstance(item, list):
            return [self.inner(field, v) for v in item]
        if isinstance(item, Mapping):
            shape = pick(shapes, item)
            return dict(item) if shape is None else self.object(shape, item)
        return item

    def private(self, field: Declared, value: Mapping[str, Any], item: Any) -> Any:
        """A fighter's own stat (or map of stats) as others may see it."""
        keys = self.hidden.get(str(value.get(field.owner or "")), frozenset())
        if not keys:
            return item
        if field.stat is None and field.stat_field is None:
            if isinstance(item, Mapping):
                self.changed = True
                return {k: (HIDDEN if k in keys else v) for k, v in item.items()}
            return item
        stat = field.stat if field.stat is not None else value.get(field.stat_field or "")
        if stat in keys:
            self.changed = True
            return HIDDEN
        return item


def _has_hidden(shape: type[Shape]) -> bool:
    return any(d.visibility is Visibility.HIDDEN for d in shape.declared())


def _names_hidden(payload: Mapping[str, Any], hidden: Hidden) -> bool:
    return any(text in hidden for text in _texts(payload))


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
    system = p.BoutOpened.given(opened.get("payload")).system if opened else None
    return system if isinstance(system, str) else None


def _system(name: str | None) -> type[RuleSystem] | None:
    """The rule system, whose shapes say what stays public; none known: only who did what."""
    if name is None:
        return None
    try:
        return find_system(name)
    except NotFoundError:
        return None


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


def _summary_public(p_: Mapping[str, Any], hidden: Hidden, rules: type[RuleSystem] | None) -> Any:
    """The summary with each stat it names said "hidden" (the system's outcome shape says how
    a stat is written in it: MSV `CS 70`)."""
    summary = p_.get("summary")
    part = rules.outcomes.get(str(p_.get("kind"))) if rules is not None else None
    if not isinstance(summary, str) or part is None:
        return summary
    written = getattr(part, "summary_stats", {})
    for key in sorted(hidden.get(str(p_.get("actor")), frozenset()) & written.keys()):
        if key in p_:
            shown = written[key]
            summary = summary.replace(shown.format(p_[key]), shown.format(HIDDEN))
    return summary
