"""The engine: `decide(state, command, rng, by)` -> the events that command causes, and the
state they fold to. Whether `by` may give the command is checked here, against the one table
of `referee.bout.permissions`.

Pure: it reads a state, draws dice only from `rng`, and returns events with the state it
folded along the way (so no caller folds them again); it stores nothing.
It calls the rule system's hooks and never asks which system it runs.

Whose dice: an action's dice come from its actor's stream, a free roll's from its roller's
free stream, initiative's from each fighter's own (`referee.rng.streams`); a source that
keeps no streams serves them all from its one sequence. A command that fails after it has
thrown dice is recorded by `failed` (its action, its rolls and the error), never dropped:
whoever stores decisions calls it, so that no answer shows a face that was not recorded.

Each command has its handler: those that throw dice in `referee.bout.actions`, the roster and
the referee's powers in `referee.bout.powers`; what follows them (defeats, the end, the next
turn) is `referee.bout.turns`, and the events they write go into a `referee.bout.log.Log`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from referee.bout import commands as c
from referee.bout import powers
from referee.bout.actions import MAX_LABEL as MAX_LABEL
from referee.bout.actions import act, free_roll, roll_initiative, roll_label
from referee.bout.actions import why_not as why_not
from referee.bout.events import Event, to_json
from referee.bout.fold import apply
from referee.bout.log import SYSTEM as SYSTEM
from referee.bout.log import Log
from referee.bout.names import name as checked_name
from referee.bout.permissions import REFEREE as REFEREE
from referee.bout.state import BoutState
from referee.dice import DEFAULT_DIALECT
from referee.dice import dialect as dice_dialect
from referee.dice import parse as parse_dice
from referee.dice import write as write_dice
from referee.errors import ConflictError, RefereeError, RuleError
from referee.payloads import events as p
from referee.rng import Rng, Throw
from referee.systems.base import RuleSystem, find_system
from referee.vocabulary import EventType


def system_of(state: BoutState) -> RuleSystem:
    """The rule system (with the bout's rule pack) a bout runs."""
    if not state.system:
        raise ConflictError("the bout is not open yet")
    return find_system(state.system)(state.rules)


class Decision(NamedTuple):
    """What a command caused: its events, and the state after them (folded as they were
    written: `state` equals `apply`ing each event, at seq `before.next_seq` on)."""

    events: list[Event]
    state: BoutState


def decide(
    state: BoutState,
    command: c.Command,
    rng: Rng,
    by: str = REFEREE,
    system: RuleSystem | None = None,
) -> Decision:
    """The events `command`, given by `by` ("referee" or a fighter), causes in `state`, and
    the state they lead to."""
    if isinstance(command, c.Open):
        opened = _open(state, command, by)
        return Decision([opened], apply(state, opened, state.next_seq))
    if state.closed:
        raise ConflictError("the bout is closed")
    rules = system or system_of(state)
    log = Log(state)
    handler = _HANDLERS.get(type(command))
    if handler is None:  # pragma: no cover - every command has a handler
        raise RuleError(f"unknown command {command!r}")
    handler(log, command, rules, rng, by)
    return Decision(log.events, log.after())


def failed(
    state: BoutState, command: c.Command, by: str, throws: list[Throw], error: BaseException
) -> Decision:
    """The record of `command` when it failed (`error`) after it had thrown dice: its action
    event (marked `failed`, so it changes nothing), every throw as a roll, and a `failed`
    event with the error. Thrown dice are spent: storing this, rather than nothing, keeps any
    answer from showing a face before it is recorded (no preview, no stringing).

    >>> from referee.rng import Throw
    >>> events, _ = failed(BoutState(next_seq=5), c.FreeRoll("Tarl", (6,)), "Tarl",
    ...                    [Throw((6,), (4,), 2, "free:Tarl")], RuleError("no"))
    >>> [(str(e.type), e.payload.get("failed"), e.payload.get("error")) for e in events]
    [('action', True, None), ('roll', None, None), ('failed', None, 'no')]
    """
    if isinstance(command, c.Act):
        actor = command.actor
        options = to_json(dict(command.options), "options")
        assert isinstance(options, dict)
        via = command.via.as_json() if command.via is not None else None
        action = p.Action(kind=command.kind, options=options, by=by, failed=True, via=via)
    elif isinstance(command, c.FreeRoll) and command.expression:
        actor = command.actor
        written = write_dice(parse_dice(command.expression, dialect=state.dialect), state.dialect)
        label = roll_label(command.label)
        action = p.Action(kind="roll", expression=written, by=by, failed=True, label=label)
    elif isinstance(command, c.FreeRoll):
        actor, dice = command.actor, tuple(f"d{s}" for s in command.sides)
        label = roll_label(command.label)
        action = p.Action(kind="roll", dice=dice, by=by, failed=True, label=label)
    elif isinstance(command, c.RollInitiative):
        actor, action = by, p.Action(kind="initiative", by=by, failed=True)
    else:  # no other command throws dice
        raise error
    log = Log(state)
    log.fix_seed()
    log.add(EventType.ACTION, actor, action)
    log.rolls(throws)
    log.add(EventType.FAILED, SYSTEM, p.Failed(error=failure_text(error)))
    return Decision(log.events, log.after())


def failure_text(error: BaseException) -> str:
    """What a `failed` event says: the rules' own message, or a plain line for anything else
    (an internal error's text is no business of the log's)."""
    if isinstance(error, RefereeError):
        return str(error)
    return "the rules could not settle it (an internal error)"


def _open(state: BoutState, cmd: c.Open, by: str) -> Event:
    if state.system:
        raise ConflictError("the bout is already open")
    rules = find_system(cmd.system)(cmd.rules)
    name = checked_name(cmd.name, "bout name")
    notation = dice_dialect(cmd.dialect).name
    opened = p.BoutOpened(
        system=cmd.system,
        name=name,
        rules=rules.rules,
        # recorded only when it is not the default
        dialect=notation if notation != DEFAULT_DIALECT.name else None,
    )
    return Event(EventType.BOUT_OPENED, by, opened.to_json())


#: How a command is decided: into the log, by the rules, with the dice, given by `by`.
Handler = Callable[[Log, c.Command, RuleSystem, Rng, str], None]
_HANDLERS: dict[type, Handler] = {
    c.AddFighter: powers.add_fighter,  # type: ignore[dict-item]
    c.UpdateFighter: powers.update_fighter,  # type: ignore[dict-item]
    c.PassTime: powers.pass_time,  # type: ignore[dict-item]
    c.RemoveFighter: powers.remove_fighter,  # type: ignore[dict-item]
    c.Reveal: powers.reveal,  # type: ignore[dict-item]
    c.RollInitiative: roll_initiative,  # type: ignore[dict-item]
    c.Act: act,  # type: ignore[dict-item]
    c.FreeRoll: free_roll,  # type: ignore[dict-item]
    c.Skip: powers.skip,  # type: ignore[dict-item]
    c.Pause: powers.pause,  # type: ignore[dict-item]
    c.CloseJoining: powers.close_joining,  # type: ignore[dict-item]
    c.Resume: powers.resume,  # type: ignore[dict-item]
    c.Override: powers.override,  # type: ignore[dict-item]
    c.Void: powers.void,  # type: ignore[dict-item]
    c.End: powers.end,  # type: ignore[dict-item]
    c.Cancel: powers.cancel,  # type: ignore[dict-item]
}
