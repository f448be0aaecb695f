"""Check that every rolled outcome in a log follows the rules, by deciding it again.

Each group of events that a command caused (it opens with an `action` event) is decided again
from the state before it, with the very faces its `roll` events recorded (and, in a bout with
dice streams, each roll must come from the stream the engine takes it from). Any difference in
what follows is a problem; so is a group that needs more or other dice than it recorded. A
group that records a failure after its throws must fail again the same way with those dice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.bout import commands as c
from referee.bout.engine import decide, failed, system_of
from referee.bout.events import Event, EventType
from referee.bout.fold import GROUP_TYPES, apply
from referee.bout.state import BoutState
from referee.errors import RefereeError, ScriptError
from referee.rng import RecordingRng, Rng, ScriptedRng, ScriptedStreams
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


def _group_end(events: Sequence[Event], start: int) -> int:
    """Where the group opened at `start` ends: after the consequences that follow its action
    (the fold's `GROUP_TYPES`, by "system"; a seed rotation by "system" is not one of them)."""
    end = start + 1
    while end < len(events) and events[end].actor == "system" and events[end].type in GROUP_TYPES:
        end += 1
    return end


def _command(action: Event) -> c.Command:
    kind = action.payload.get("kind")
    if kind == "initiative":
        return c.RollInitiative()
    label = str(action.payload.get("label") or "")
    if kind == "roll" and action.payload.get("expression"):
        return c.FreeRoll(action.actor, expression=str(action.payload["expression"]), label=label)
    if kind == "roll":
        dice = action.payload.get("dice") or []
        sides = tuple(int(str(d)[1:]) for d in dice) if isinstance(dice, list) else ()
        return c.FreeRoll(action.actor, sides, label=label)
    options = action.payload.get("options") or {}
    if not isinstance(options, dict):
        options = {}
    return c.Act(action.actor, str(kind), options)


def _comparable(event: Event) -> tuple[str, str, dict[str, JSON]]:
    payload = dict(event.payload)
    if event.type == EventType.ROLL:
        payload.pop("nonce", None)
    return event.type, event.actor, payload


def check_export(doc: Mapping[str, Any]) -> list[Problem]:
    """The rules replay as a checker for `verify_export(doc, replay=check_export)`.

    The verifier runs it only once the chain and the dice hold, so every record is an event.
    Beyond the outcomes, the export's `bout.status` must be the status its events fold to
    (the header check covers only whether a closed bout ends with the close).
    """
    problems, state = _replay([Event.from_dict(record) for record in doc["events"]])
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
        if event.type == EventType.ACTION:
            end = _group_end(events, seq)
            problem = _check_group(state, events, seq, end)
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
            raw = e.payload.get("faces")
            if isinstance(raw, list):
                faces.extend(f for f in raw if isinstance(f, int))
            streams = streams or "stream" in e.payload
    by = str(recorded[0].payload.get("by") or recorded[0].actor)
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
