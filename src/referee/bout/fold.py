"""State as a fold of events: `project(events)` is the only way a bout's state is made.

The fold is dumb on purpose: it never decides anything, it only records what events say. Every
consequence (a defeat, whose turn it is, a condition's rounds) is an event the engine wrote.

`apply` is a true fold step, `voided` included: the state after a `voided` event equals the
state of the chain without the events it took back, so a caller folds one event at a time and
never refolds by hand. For that the state keeps the events still in force (a shared linked
list, outside equality), and a void refolds them without the voided ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from referee.bout.events import Event, EventType
from referee.bout.state import (
    ENDED,
    PAUSED,
    RUNNING,
    BoutDraft,
    BoutState,
    Fighter,
    InForce,
    StateReads,
    Status,
    evolve,
)
from referee.payloads import SHAPES, Shape
from referee.payloads import events as shapes

# Compared with every event's type: as names, not through the enum class's `__getattr__`.
_ACTION, _VOIDED = EventType.ACTION, EventType.VOIDED

#: Events a command's group may contain after its opening ACTION (always with actor "system").
GROUP_TYPES = frozenset(
    {
        EventType.ROLL,
        EventType.INITIATIVE,
        EventType.OUTCOME,
        EventType.FAILED,
        EventType.WOUND,
        EventType.CONDITION,
        EventType.STAT,
        EventType.DEFEATED,
        EventType.TURN,
        EventType.SKIPPED,
        EventType.ENDED,
    }
)


def voided_range(event: Event, seq: int) -> range:
    """The seqs the event at `seq` takes back: a `voided` event's `from`..`to`, before itself.

    Empty for any other event or a malformed one.

    >>> from referee.bout.events import Event
    >>> voided_range(Event("voided", "referee", {"from": 3, "to": 9}), 6)
    range(3, 6)
    """
    if event.type != _VOIDED:
        return range(0)
    # read by its declared names, and not trusted: a malformed void takes nothing back
    first, last = (event.payload.get(d.name) for d in shapes.Voided.declared())
    if not _whole(first) or not _whole(last):
        return range(0)
    assert isinstance(first, int) and isinstance(last, int)
    return range(max(first, 0), min(last + 1, seq))


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def voided_seqs(events: Sequence[Event]) -> frozenset[int]:
    """Every seq that a `voided` event took back."""
    out: set[int] = set()
    for seq, e in enumerate(events):
        out.update(voided_range(e, seq))
    return frozenset(out)


def project(events: Sequence[Event]) -> BoutState:
    """Fold every event (seq = its index), skipping the ones a later `voided` event took back.

    The chain is folded into one draft, frozen once at the end: one copy of the state, not
    one per event.

    >>> from referee.bout.events import Event
    >>> state = project([
    ...     Event("bout_opened", "referee", {"system": "msv", "name": "spar", "rules": {}}),
    ...     Event("fighter_added", "referee", {"name": "Tarl", "stats": {"cs": 65}}),
    ... ])
    >>> (state.system, [f.name for f in state.fighters], state.next_seq)
    ('msv', ['Tarl'], 2)
    """
    gone = voided_seqs(events)
    draft = BoutDraft.of(BoutState())
    for seq, event in enumerate(events):
        if seq not in gone:
            draft.change(_changes(draft, event, seq))
    draft.change({"next_seq": len(events)})
    return draft.freeze()


def apply(state: BoutState, event: Event, seq: int) -> BoutState:
    """The state after one more event (which has sequence number `seq`).

    A `voided` event gives the state of the chain without the events it takes back:

    >>> from dataclasses import replace
    >>> from referee.bout.events import Event
    >>> opened = apply(BoutState(), Event("bout_opened", "referee",
    ...                                   {"system": "msv", "name": "spar", "rules": {}}), 0)
    >>> added = apply(opened, Event("fighter_added", "referee", {"name": "Tarl"}), 1)
    >>> apply(added, Event("voided", "referee", {"from": 1, "to": 1}), 2) == replace(
    ...     opened, next_seq=3)
    True
    """
    taken_back = voided_range(event, seq)
    if taken_back and state.in_force is not None:
        refolded = _refolded_without(state.in_force, taken_back)
        refolded.change(_changes(refolded, event, seq))
        return refolded.freeze()
    return evolve(state, _changes(state, event, seq))  # which sets next_seq to seq + 1


def fold(draft: BoutDraft, event: Event, seq: int) -> BoutDraft:
    """`apply` on a draft: the draft, changed by the event at `seq`, or for a `voided` event
    a new draft of the chain without the events it takes back (the old one is left as it was).
    """
    taken_back = voided_range(event, seq)
    if taken_back and draft.in_force is not None:
        draft = _refolded_without(draft.in_force, taken_back)
    draft.change(_changes(draft, event, seq))
    return draft


def written_changes(state: StateReads, event: Event, payload: Shape, seq: int) -> Changes | None:
    """What the event at `seq`, just written from `payload` (its payload is `payload.to_json()`),
    changes in `state`, as the engine folds what it writes: `evolve(state, changes)` equals
    `apply(state, event, seq)`. None for a type `apply` must fold (not in `AS_WRITTEN`).

    Fast because the step takes the shape the writer holds instead of `read`ing the one it
    just came from. Still right because for the types in `AS_WRITTEN` every field the step
    reads is a scalar (text, a whole number, a boolean or null), which `to_json` writes as
    that very object and `read` gives back as it is: the step sees the same values. Any
    other type goes through `apply` (a void refolds; a stat's value or an added fighter's
    stats may hold lists). The property tests fold the engine's events both ways.
    """
    step = AS_WRITTEN.get(event.type)
    if step is None:
        return None
    return _in_force(state, event, seq, step(state, payload, event.actor, seq))


def _changes(state: StateReads, event: Event, seq: int) -> Changes:
    """What one event changes in `state` (a void's refold is `apply`'s), remembered as in
    force."""
    handler = _HANDLERS.get(event.type)
    if handler is None:
        changes: Changes = {}
    else:
        shape, step = handler
        changes = step(state, shape.read(event.payload), event.actor, seq)
    return _in_force(state, event, seq, changes)


def _in_force(state: StateReads, event: Event, seq: int, changes: Changes) -> Changes:
    """`changes`, an event's own effect, with what every event changes: the next seq, the
    action groups (when they change) and the events in force."""
    changes["next_seq"] = seq + 1
    actions = _track_group(state.actions, event, seq)
    if actions is not state.actions:
        changes["actions"] = actions
    changes["in_force"] = InForce(seq, event, state.in_force)
    return changes


def _refolded_without(in_force: InForce, gone: range) -> BoutDraft:
    """A draft of the events still in force, without those in `gone`, folded afresh."""
    kept: list[InForce] = []
    node: InForce | None = in_force
    while node is not None:
        if node.seq not in gone:
            kept.append(node)
        node = node.before
    draft = BoutDraft.of(BoutState())
    for entry in reversed(kept):
        draft.change(_changes(draft, entry.event, entry.seq))
    return draft


def _track_group(
    actions: tuple[tuple[int, int], ...], event: Event, seq: int
) -> tuple[tuple[int, int], ...]:
    """Action groups after `event`: an `action` opens one; its consequences extend it."""
    if event.type == _ACTION:
        return (*actions, (seq, seq))
    if event.actor == "system" and event.type in GROUP_TYPES and actions:
        first, last = actions[-1]
        if last == seq - 1:
            return (*actions[:-1], (first, seq))
    return actions


#: What one event changes: the state's fields by name, with their new values.
Changes = dict[str, Any]
#: One event's effect, from its payload read in its declared shape (`referee.payloads`).
Step = Callable[[StateReads, Any, str, int], Changes]


def _opened(state: StateReads, p: shapes.BoutOpened, actor: str, seq: int) -> Changes:
    return {
        "system": str(p.system),
        "name": str(p.name),
        "rules": p.rules or {},
        "dialect": str(p.dialect or "roll20"),
        "ledger": p.ledger if isinstance(p.ledger, int) else 1,
        "client_seed": p.client_seed if isinstance(p.client_seed, str) else None,
        "clock": p.clock if _whole(p.clock) else 0,
    }


def _added(state: StateReads, p: shapes.FighterAdded, actor: str, seq: int) -> Changes:
    fighter = Fighter(
        name=str(p.name),
        side=str(p.side or p.name),
        stats=dict(p.stats or {}),
        hidden=frozenset(p.hidden or ()),
        wounds=int(p.wounds or 0),
        conditions=dict(p.conditions or {}),
        character=None if p.character is None else (p.character, int(p.character_version or 1)),
    )
    changes: Changes = {"fighters": state.fighters_with(fighter)}
    if state.status is RUNNING or state.status is PAUSED:
        changes["order"] = (*state.order, fighter.name)
    if p.seed_part is not None and state.client_seed is not None:
        changes["client_seed"] = f"{state.client_seed}:{p.seed_part}"
    return changes


def _seed_fixed(state: StateReads, p: shapes.ClientSeedFixed, actor: str, seq: int) -> Changes:
    return {"seed_fixed": True}


def _fighter(state: StateReads, fighter: Fighter) -> Changes:
    """The change of one fighter."""
    return {"fighters": state.fighters_with(fighter)}


def _updated(state: StateReads, p: shapes.FighterUpdated, actor: str, seq: int) -> Changes:
    f = state.fighter(str(p.name))
    stats = {**f.stats, **(p.stats or {})}
    wounds = f.wounds if p.wounds is None else p.wounds
    hidden = f.hidden if p.hidden is None else frozenset(p.hidden)
    return _fighter(state, evolve(f, {"stats": stats, "wounds": int(wounds), "hidden": hidden}))


def _removed(state: StateReads, p: shapes.Named, actor: str, seq: int) -> Changes:
    name = str(p.name)
    current = state.current
    order = tuple(n for n in state.order if n != name)
    turn = order.index(current) if current in order else None
    return {
        "fighters": tuple(f for f in state.fighters if f.name != name),
        "order": order,
        "turn": turn,
        "free_attack": None if state.free_attack == name else state.free_attack,
    }


def _revealed(state: StateReads, p: shapes.Revealed, actor: str, seq: int) -> Changes:
    f = state.fighter(str(p.name))
    keys = set(p.keys or f.hidden)
    return _fighter(state, evolve(f, {"hidden": f.hidden - keys}))


def _action(state: StateReads, p: shapes.Action, actor: str, seq: int) -> Changes:
    if p.failed is True:  # its dice were thrown, then it could not be settled: no effect
        return {}
    if state.free_attack is not None and state.free_attack == actor:
        return {"free_attack": None}
    return {}


def _initiative(state: StateReads, p: shapes.Initiative, actor: str, seq: int) -> Changes:
    return {"order": tuple(p.order), "status": RUNNING, "round": 1, "turn": None}


def _outcome(state: StateReads, p: shapes.Outcome, actor: str, seq: int) -> Changes:
    free = p.actor if p.extra_action else None
    wounds = dict(state.outcome_wounds)
    wounds[seq] = ()
    return {
        "free_attack": str(free) if free else state.free_attack,
        "last_outcome": seq,
        "outcome_wounds": wounds,
    }


def _wound(state: StateReads, p: shapes.Wound, actor: str, seq: int) -> Changes:
    target = str(p.target)
    f = state.fighter(target)
    changes = _fighter(state, evolve(f, {"wounds": int(p.total)}))
    if state.last_outcome is not None and actor == "system":
        wounds = dict(state.outcome_wounds)
        wounds[state.last_outcome] = (*wounds.get(state.last_outcome, ()), (target, int(p.amount)))
        changes["outcome_wounds"] = wounds
    return changes


def _condition(state: StateReads, p: shapes.Condition, actor: str, seq: int) -> Changes:
    f = state.fighter(str(p.target))
    conditions = dict(f.conditions)
    if p.rounds == 0:
        conditions.pop(str(p.condition), None)
    else:
        conditions[str(p.condition)] = p.rounds
    return _fighter(state, evolve(f, {"conditions": conditions}))


def _stat(state: StateReads, p: shapes.Stat, actor: str, seq: int) -> Changes:
    f = state.fighter(str(p.target))
    return _fighter(state, evolve(f, {"stats": {**f.stats, str(p.key): p.value}}))


def _defeated(state: StateReads, p: shapes.Defeated, actor: str, seq: int) -> Changes:
    f = state.fighter(str(p.name))
    return _fighter(state, evolve(f, {"defeated": bool(p.defeated)}))


def _turn(state: StateReads, p: shapes.Turn, actor: str, seq: int) -> Changes:
    name = str(p.fighter)
    turn = state.order.index(name) if name in state.order else None
    return {"turn": turn, "round": int(state.round if p.round is None else p.round),
            "free_attack": None}  # fmt: skip


def _status(status: Status) -> Step:
    def step(state: StateReads, p: Shape, actor: str, seq: int) -> Changes:
        return {"status": status}

    return step


def _ended(state: StateReads, p: shapes.Ended, actor: str, seq: int) -> Changes:
    return {"status": ENDED, "winner": str(p.winner) if p.winner else None}


def _overridden(state: StateReads, p: shapes.Overridden, actor: str, seq: int) -> Changes:
    totals: dict[str, int] = {}  # each target's last total
    for entry in p.wounds or ():
        target = str(entry.target)
        state.fighter(target)  # NotFoundError for one not in the bout
        totals[target] = int(entry.total)
    fighters = tuple(
        evolve(f, {"wounds": totals[f.name]}) if f.name in totals else f for f in state.fighters
    )
    changes: Changes = {"fighters": fighters}
    if isinstance(p.of, int):
        wounds = dict(state.outcome_wounds)
        wounds[p.of] = tuple((str(w.target), int(w.amount)) for w in p.wounds or ())
        changes["outcome_wounds"] = wounds
    return changes


def _time_passed(state: StateReads, p: shapes.TimePassed, actor: str, seq: int) -> Changes:
    return {"clock": int(p.clock)}


def _joining_closed(state: StateReads, p: shapes.Nothing, actor: str, seq: int) -> Changes:
    return {"joining_closed": True}


def _closed(state: StateReads, p: shapes.Closed, actor: str, seq: int) -> Changes:
    return {"closed": True}


_STEPS: dict[EventType, Step] = {
    EventType.BOUT_OPENED: _opened,
    EventType.FIGHTER_ADDED: _added,
    EventType.FIGHTER_UPDATED: _updated,
    EventType.FIGHTER_REMOVED: _removed,
    EventType.REVEALED: _revealed,
    EventType.CLIENT_SEED_FIXED: _seed_fixed,
    EventType.ACTION: _action,
    EventType.INITIATIVE: _initiative,
    EventType.OUTCOME: _outcome,
    EventType.WOUND: _wound,
    EventType.CONDITION: _condition,
    EventType.STAT: _stat,
    EventType.DEFEATED: _defeated,
    EventType.TURN: _turn,
    EventType.PAUSED: _status(Status.PAUSED),
    EventType.RESUMED: _status(Status.RUNNING),
    EventType.JOINING_CLOSED: _joining_closed,
    EventType.ENDED: _ended,
    EventType.CANCELLED: _status(Status.CANCELLED),
    EventType.OVERRIDDEN: _overridden,
    EventType.CLOSED: _closed,
    EventType.TIME_PASSED: _time_passed,
}


def _no_change(state: StateReads, p: Shape, actor: str, seq: int) -> Changes:
    return {}


#: The types `written_changes` folds from the shape written (those whose step reads scalar
#: fields only, or nothing), with their steps.
AS_WRITTEN: Mapping[str, Step] = {
    kind: _STEPS.get(kind, _no_change)
    for kind in (
        EventType.FIGHTER_REMOVED,
        EventType.ACTION,
        EventType.ROLL,
        EventType.OUTCOME,
        EventType.FAILED,
        EventType.WOUND,
        EventType.CONDITION,
        EventType.DEFEATED,
        EventType.TURN,
        EventType.SKIPPED,
        EventType.PAUSED,
        EventType.RESUMED,
        EventType.JOINING_CLOSED,
        EventType.ENDED,
        EventType.CANCELLED,
    )
}

#: The fold's reading of each event: the shape its payload is read in, and its step.
_HANDLERS: dict[str, tuple[type[Shape], Step]] = {
    kind: (SHAPES[kind], step) for kind, step in _STEPS.items()
}


def fold_all(events: Iterable[Event]) -> BoutState:
    """`project` for any iterable."""
    return project(list(events))
