"""Check that every rolled outcome in a log follows the rules, by deciding it again.

Each group of events that a command caused (it opens with an `action` event) is decided again
from the state before it, with the very faces its `roll` events recorded (and, in a bout with
dice streams, each roll must come from the stream the engine takes it from). Any difference in
what follows is a problem; so is a group that needs more or other dice than it recorded. A
group that records a failure after its throws must fail again the same way with those dice.

Play time passing (`time_passed`) is decided again too, with what the rules restore by it
(SRP-17: 0 PM an hour after passing out), so an evening's recoveries are checked as rules.

Before any of that, every event's payload is checked against its declared shape
(`referee.payloads`; an outcome's and an initiative's rule-system part by the bout's system):
the first key that is missing or of the wrong JSON type is the problem, named with its event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.bout import commands as c
from referee.bout.engine import decide, failed, system_of
from referee.bout.events import Event, EventType
from referee.bout.fold import GROUP_TYPES, apply
from referee.bout.state import BoutState
from referee.errors import NotFoundError, RefereeError, ScriptError
from referee.payloads.events import (
    SHAPES,
    Action,
    BoutOpened,
    Initiative,
    Outcome,
    Roll,
    TimePassed,
)
from referee.payloads.fields import Shape, Wrong
from referee.rng import RecordingRng, Rng, ScriptedRng, ScriptedStreams
from referee.systems.base import RuleSystem, find_system
from referee.vocabulary import JSON, Problem

#: What folding or deciding an event of the wrong shape raises: an export is untrusted text, and
#: its chain may hold (a forger hashes again) around a payload the rules never wrote.
_MALFORMED = (TypeError, ValueError, KeyError, AttributeError, IndexError)


def _fold(state: BoutState, event: Event, seq: int) -> BoutState | Problem:
    """`apply`, or the problem of an event it cannot fold."""
    try:
        return apply(state, event, seq)
    except RefereeError as err:
        return Problem(seq, event.type, f"the event cannot be applied: {err}")
    except _MALFORMED as err:
        message = f"the {event.type} event is not one the rules write ({err})"
        return Problem(seq, event.type, message)


#: What may follow `time_passed` as its consequences (by "system"): what time restores.
_AFTER_TIME = frozenset({EventType.FIGHTER_UPDATED, EventType.DEFEATED, EventType.ENDED})


def _group_end(
    events: Sequence[Event], start: int, types: frozenset[EventType] | None = None
) -> int:
    """Where the group opened at `start` ends: after the consequences that follow its action
    (the fold's `GROUP_TYPES`, by "system"; a seed rotation by "system" is not one of them)."""
    kinds = GROUP_TYPES if types is None else types
    end = start + 1
    while end < len(events) and events[end].actor == "system" and events[end].type in kinds:
        end += 1
    return end


def _check_time(state: BoutState, events: Sequence[Event], start: int, end: int) -> Problem | None:
    """`time_passed` and what it restored, decided again from the state before it."""
    recorded = list(events[start:end])
    given = TimePassed.given(recorded[0].payload)
    try:
        command = c.PassTime(given.minutes, given.reason)
        again, _ = decide(state, command, ScriptedRng([]), by=recorded[0].actor)
    except (RefereeError, *_MALFORMED) as err:
        return Problem(start, recorded[0].type, f"the time cannot be passed again: {err}")
    if [_comparable(e) for e in again] != [_comparable(e) for e in recorded]:
        return Problem(
            start,
            recorded[0].type,
            f"time_passed does not follow the rules: recorded {[e.payload for e in recorded]!r}, "
            f"the rules give {[e.payload for e in again]!r}",
        )
    return None


def _command(action: Event) -> c.Command:
    given = Action.given(action.payload)
    kind = given.kind
    if kind == "initiative":
        return c.RollInitiative()
    label = str(given.label or "")
    if kind == "roll" and given.expression:
        return c.FreeRoll(action.actor, expression=str(given.expression), label=label)
    if kind == "roll":
        dice = given.dice or []
        sides = tuple(int(str(d)[1:]) for d in dice) if isinstance(dice, list) else ()
        return c.FreeRoll(action.actor, sides, label=label)
    options = given.options or {}
    if not isinstance(options, dict):
        options = {}
    via = given.via
    if isinstance(via, dict):
        return c.Act(
            action.actor, str(kind), options, c.Via(str(via.get("member")), str(via.get("proxy")))
        )
    return c.Act(action.actor, str(kind), options)


def _comparable(event: Event) -> tuple[str, str, dict[str, JSON]]:
    payload = dict(event.payload)
    if event.type == EventType.ROLL:
        payload.pop("nonce", None)
    return event.type, event.actor, payload


def check_export(doc: Mapping[str, Any]) -> list[Problem]:
    """The rules replay as a checker for `verify_export(doc, replay=check_export)`.

    The verifier runs it only once the chain and the dice hold, so every record is an event.
    Every payload must fit its declared shape (`shape_problem`: the first that does not is the
    one problem). Beyond the outcomes, the export's `bout.status` must be the status its events
    fold to (the header check covers only whether a closed bout ends with the close).
    """
    events = [Event.from_dict(record) for record in doc["events"]]
    misshapen = shape_problem(events)
    if misshapen is not None:
        return [misshapen]
    problems, state = _replay(events)
    bout = doc.get("bout")
    if problems or not isinstance(bout, Mapping) or "status" not in bout:
        return problems
    if bout["status"] != state.status_name:
        message = (
            f"bout.status {bout['status']!r} differs from {state.status_name!r}, the status "
            "the events give"
        )
        return [Problem(None, None, message)]
    return []


def shape_problem(events: Sequence[Event]) -> Problem | None:
    """The first event whose payload does not fit its declared shape, with the key at fault.

    An outcome is checked against the engine's part and its system's shape for its kind, an
    initiative's `detail` against its system's; the system is the one the bout opens with
    (an unknown one: those parts go unchecked, and the replay says the system is unknown).
    """
    system = _system(events)
    for seq, event in enumerate(events):
        try:
            kind = EventType(event.type)
        except ValueError:
            continue  # an event type the rules never write: the fold says so
        wrong = SHAPES[kind].given(event.payload).wrong()
        if wrong is None and system is not None:
            wrong = _system_part(kind, event.payload, system)
        if wrong is not None:
            return Problem(seq, kind, f"the {kind} event is not one the rules write: {wrong}")
    return None


def _system(events: Sequence[Event]) -> type[RuleSystem] | None:
    opened = BoutOpened.given(events[0].payload) if events else None
    if opened is None or not isinstance(opened.system, str):
        return None
    try:
        return find_system(opened.system)
    except NotFoundError:
        return None


def _system_part(
    kind: EventType, payload: Mapping[str, Any], system: type[RuleSystem]
) -> Wrong | None:
    """What is wrong with the rule system's part of an outcome or an initiative, if anything."""
    shape: type[Shape] | None = None
    if kind is EventType.OUTCOME:
        shape = system.outcomes.get(str(Outcome.given(payload).kind))
        part: Any = payload
    elif kind is EventType.INITIATIVE:
        shape, part = system.initiative_detail, Initiative.given(payload).detail
    if shape is None:
        return None
    wrong = shape.given(part).wrong()
    if wrong is not None and kind is EventType.INITIATIVE:
        return Wrong(f"detail.{wrong.key}".rstrip("."), wrong.value, wrong.expected, wrong.missing)
    return wrong


def check_outcomes(events: Sequence[Event]) -> list[Problem]:
    """Every event whose recorded outcome differs from what the rules give for its dice."""
    return _replay(events)[0]


def _replay(events: Sequence[Event]) -> tuple[list[Problem], BoutState]:
    """The problems of `check_outcomes` (the first one found), and the state folded so far."""
    problems: list[Problem] = []
    state = BoutState()
    seq = 0
    while seq < len(events):
        event = events[seq]
        if event.type == EventType.ACTION or event.type == EventType.TIME_PASSED:
            end = _group_end(events, seq, _AFTER_TIME if event.type != EventType.ACTION else None)
            check = _check_group if event.type == EventType.ACTION else _check_time
            problem = check(state, events, seq, end)
            if problem:
                problems.append(problem)
                return problems, state
            for i in range(seq, end):
                folded = _fold(state, events[i], i)
                if isinstance(folded, Problem):
                    return [*problems, folded], state
                state = folded
            seq = end
            continue
        folded = _fold(state, event, seq)
        if isinstance(folded, Problem):
            return [*problems, folded], state
        state = folded
        seq += 1
    return problems, state


def _check_group(state: BoutState, events: Sequence[Event], start: int, end: int) -> Problem | None:
    recorded = list(events[start:end])
    faces: list[int] = []
    streams = False
    for e in recorded:
        if e.type == EventType.ROLL:
            roll = Roll.given(e.payload)
            if isinstance(roll.faces, list):
                faces.extend(f for f in roll.faces if isinstance(f, int))
            streams = streams or roll.has("stream")
    by = str(Action.given(recorded[0].payload).by or recorded[0].actor)
    source: Rng = ScriptedStreams(faces) if streams else ScriptedRng(faces)
    dice = RecordingRng(source)
    try:
        command = _command(recorded[0])
        again, _ = decide(state, command, dice, by=by, system=system_of(state))
    except (RefereeError, *_MALFORMED) as err:
        stopped = isinstance(err, ScriptError) or not dice.throws
        if stopped or not any(e.type == EventType.FAILED for e in recorded):
            message = f"the action cannot be decided again from its dice: {err}"
            return Problem(start, recorded[0].type, message)
        again, _ = failed(state, command, by, dice.throws, err)
    for offset, (mine, theirs) in enumerate(zip(again, recorded, strict=False)):
        if _comparable(mine) != _comparable(theirs):
            return Problem(
                start + offset,
                theirs.type,
                f"{theirs.type} does not follow the rules: recorded {theirs.payload!r}, "
                f"the rules give {mine.payload!r}",
            )
    if len(again) != len(recorded):
        at = start + min(len(again), len(recorded))
        kind = events[at].type if at < len(events) else None
        return Problem(
            at, kind, f"the action should cause {len(again)} events, the log has {len(recorded)}"
        )
    return None
