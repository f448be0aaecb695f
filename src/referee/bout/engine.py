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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from referee.bout import commands as c
from referee.bout.events import Event, to_json
from referee.bout.fold import apply, fold, written_changes
from referee.bout.names import fighter_name
from referee.bout.names import name as checked_name
from referee.bout.permissions import REFEREE as REFEREE
from referee.bout.permissions import check
from referee.bout.state import (
    CANCELLED,
    ENDED,
    OPEN,
    PAUSED,
    RUNNING,
    BoutDraft,
    BoutState,
    StateReads,
    Status,
)
from referee.dice import DEFAULT_DIALECT
from referee.dice import dialect as dice_dialect
from referee.dice import parse as parse_dice
from referee.dice import roll as roll_dice
from referee.dice import write as write_dice
from referee.errors import ConflictError, NotationError, NotFoundError, RefereeError, RuleError
from referee.payloads import Shape
from referee.payloads import events as p
from referee.rng import RecordingRng, Rng, Throw, action_stream, free_stream, stream_of
from referee.systems.base import Outcome, RuleSystem, find_system
from referee.vocabulary import EventType

SYSTEM = "system"

# The event types an action writes, as names: `EventType.ROLL` goes through the enum class's
# `__getattr__` (Python code, about ten times a plain name's cost in 3.11).
ACTION, ROLL, OUTCOME = EventType.ACTION, EventType.ROLL, EventType.OUTCOME
WOUND, CONDITION, STAT = EventType.WOUND, EventType.CONDITION, EventType.STAT
CLIENT_SEED_FIXED = EventType.CLIENT_SEED_FIXED
DEFEATED, TURN, SKIPPED, ENDED_EVENT = (
    EventType.DEFEATED,
    EventType.TURN,
    EventType.SKIPPED,
    EventType.ENDED,
)

#: Options of an action that are not the acting fighter's to choose: circumstance modifiers,
#: a rear attack and the range of a shot between unplaced fighters are the referee's to rule
#: (with positions, the rear and the range follow from them), and the defense is the
#: defender's (its sheet's usual one unless the referee rules otherwise). A fighter's own
#: token may not set them; the referee may, and the action event records `by: referee`.
REFEREE_TERMS = frozenset({"modifier", "rear", "defend", "range"})


def system_of(state: BoutState) -> RuleSystem:
    """The rule system (with the bout's rule pack) a bout runs."""
    if not state.system:
        raise ConflictError("the bout is not open yet")
    return find_system(state.system)(state.rules)


class _Log:
    """Events being written by one command, with the state they fold to.

    What it writes is folded into a draft of its own (`BoutDraft`), made from the state it
    was given at the first write and frozen into the state after the command once, at the
    end (`after`): one copy of the state per command, not one per event. The handlers read
    the state as it stands from `state`: the state given until the first write, the draft
    after it.
    """

    __slots__ = ("before", "draft", "events", "state")

    def __init__(self, before: BoutState) -> None:
        self.before = before
        #: The state as it stands, every event written so far folded in.
        self.state: StateReads = before
        self.draft: BoutDraft | None = None
        self.events: list[Event] = []

    def after(self) -> BoutState:
        """The state after the events written, as a value."""
        return self.before if self.draft is None else self.draft.freeze()

    def add(self, type_: EventType, actor: str, payload: Shape) -> None:
        """Write one event, its payload in its type's declared shape (`referee.payloads`)."""
        if type(payload) is not p.SHAPES[type_]:  # pragma: no cover - a bug in the engine
            raise TypeError(f"a {type_} event's payload is a {p.SHAPES[type_].__name__}")
        self.write(Event(type_, actor, payload.to_json()), payload)

    def write(self, event: Event, written: Shape) -> None:
        """Write `event`, whose payload holds `written` as its JSON (an outcome's holds the
        rule system's part too), folding it from `written` where the fold can."""
        draft = self.draft
        if draft is None:
            draft = self.state = self.draft = BoutDraft.of(self.before)
        seq = draft.next_seq
        changes = written_changes(draft, event, written, seq)
        if changes is None:
            self.state = self.draft = fold(draft, event, seq)
        else:
            draft.change(changes)
        self.events.append(event)

    def rolls(self, throws: list[Throw]) -> None:
        for t in throws:
            roll = p.Roll(nonce=t.nonce, dice=t.dice, faces=t.faces, stream=t.stream)
            self.add(ROLL, SYSTEM, roll)

    def fix_seed(self) -> None:
        """Before a command that rolls: fix the client seed, if the chain carries it and has
        not fixed it yet (ledger 2), so that every face is made from a seed the chain holds."""
        state = self.state
        if state.client_seed is not None and not state.seed_fixed:
            self.add(CLIENT_SEED_FIXED, SYSTEM, p.ClientSeedFixed(client_seed=state.client_seed))


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
    log = _Log(state)
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
        action = p.Action(kind=command.kind, options=options, by=by, failed=True)
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
    log = _Log(state)
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
    name = _check_name(cmd.name, "bout name")
    notation = dice_dialect(cmd.dialect).name
    opened = p.BoutOpened(
        system=cmd.system,
        name=name,
        rules=rules.rules,
        # recorded only when it is not the default
        dialect=notation if notation != DEFAULT_DIALECT.name else None,
    )
    return Event(EventType.BOUT_OPENED, by, opened.to_json())


def _check_name(name: str, what: str) -> str:
    return checked_name(name, what)


def _require_live(state: StateReads) -> None:
    if state.status is ENDED or state.status is CANCELLED:
        raise ConflictError(f"the bout has {state.status.value}")


def _add(log: _Log, cmd: c.AddFighter, rules: RuleSystem, rng: Rng, by: str) -> None:
    state = log.state
    _require_live(state)
    name = fighter_name(cmd.name, (f.name for f in state.fighters))
    check(by, "add", name)  # the referee adds; a fighter joins only as itself
    if state.joining_closed and by != REFEREE:
        raise ConflictError(f"joining is closed: {name} cannot join (the referee may add them)")
    if cmd.hidden:
        check(by, "hide")
    side = _check_name(cmd.side or name, "side")
    unknown = set(cmd.hidden) - set(rules.hidden_stats())
    if unknown:
        raise RuleError(
            f"cannot hide {sorted(unknown)!r}: hideable stats are {list(rules.hidden_stats())!r}"
        )
    stats = rules.check_stats(cmd.stats)
    if cmd.seed_part is not None and state.seed_fixed:
        raise ConflictError(f"the client seed is fixed: {name} cannot add a part to it now")
    added = p.FighterAdded(
        name=name,
        side=side,
        stats=stats,
        hidden=tuple(cmd.hidden) or None,
        seed_part=cmd.seed_part,
    )
    log.add(EventType.FIGHTER_ADDED, by, added)


def _update(log: _Log, cmd: c.UpdateFighter, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "update")
    _require_live(log.state)
    f = log.state.fighter(cmd.name)
    stats = rules.check_stats({**f.stats, **cmd.stats}) if cmd.stats else None
    wounds = cmd.wounds
    whole = isinstance(wounds, int) and not isinstance(wounds, bool) and wounds >= 0
    if wounds is not None and not whole:
        raise RuleError(f"wounds must be a whole number >= 0, got {wounds!r}")
    if stats is None and cmd.wounds is None:
        raise RuleError("an update needs stats or wounds")
    updated = p.FighterUpdated(name=f.name, stats=stats, wounds=cmd.wounds)
    log.add(EventType.FIGHTER_UPDATED, by, updated)
    _consequences(log, rules)


def _remove(log: _Log, cmd: c.RemoveFighter, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "remove", cmd.name)
    _require_live(log.state)
    log.state.fighter(cmd.name)
    was_current = log.state.current == cmd.name
    index = log.state.order.index(cmd.name) if cmd.name in log.state.order else None
    log.add(EventType.FIGHTER_REMOVED, by, p.Named(name=cmd.name))
    if _end_if_decided(log):
        return
    if was_current and index is not None and log.state.order:
        _advance_from(log, rules, index - 1)


def _reveal(log: _Log, cmd: c.Reveal, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "reveal")
    f = log.state.fighter(cmd.name)
    keys = list(cmd.keys) or sorted(f.hidden)
    if not keys:
        raise RuleError(f"{f.name!r} has no hidden stats to reveal")
    missing = set(keys) - f.hidden
    if missing:
        raise RuleError(f"{f.name!r} has no hidden {sorted(missing)!r}")
    log.add(EventType.REVEALED, by, p.Revealed(name=f.name, keys=tuple(keys)))


def _initiative(log: _Log, cmd: c.RollInitiative, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "initiative")
    state = log.state
    if state.status is not Status.OPEN:
        raise ConflictError(
            f"initiative is rolled once, before the bout starts (it is {state.status.value})"
        )
    if len(state.sides_left()) < 2:
        raise ConflictError("initiative needs fighters on at least two sides")
    recorder = RecordingRng(rng)
    settled = rules.initiative(state.living(), recorder)
    if not isinstance(settled.payload, rules.initiative_detail):
        raise RuleError(f"an initiative's detail is a {rules.initiative_detail.__name__}")
    log.fix_seed()
    log.add(EventType.ACTION, by, p.Action(kind="initiative", by=by))
    log.rolls(recorder.take())
    detail = p.Initiative(order=settled.order, detail=settled.payload.to_json())
    log.add(EventType.INITIATIVE, SYSTEM, detail)
    log.add(EventType.TURN, SYSTEM, p.Turn(fighter=settled.order[0], round=1))


class _WouldRoll(Exception):
    """Raised by `_NoDice` at the first die an action would throw: it is legal so far."""


class _NoDice:
    """The dice of a legality probe: none; an action that gets as far as its dice may be taken."""

    def throw(self, sides: Sequence[int]) -> Throw:
        raise _WouldRoll


def why_not(
    state: BoutState, actor: str, kind: str, options: Mapping[str, Any], rules: RuleSystem
) -> str | None:
    """Why `actor` may not take the action `kind` with `options` now, or None if it may: the
    engine's own checks of an action (the bout running, its turn, the rule system's conditions)
    and the rule system's own check of the action, run up to the first die it would throw
    (nothing is thrown or stored). A client offers only the actions this allows.

    >>> why_not(BoutState(), "Tarl", "attack", {}, find_system("msv")())
    'the bout has not started: roll initiative first'
    """
    try:
        if state.status is Status.OPEN:
            raise ConflictError("the bout has not started: roll initiative first")
        if state.status is not Status.RUNNING:
            raise ConflictError(f"the bout is {state.status.value}")
        fighter = state.fighter(actor)
        if kind not in rules.actions:
            raise RuleError(f"unknown action {kind!r}")
        if state.current != fighter.name:
            raise ConflictError(f"out of turn: it is {state.current}'s turn, not {actor}'s")
        reason = rules.blocked(fighter, kind)
        if reason:
            return f"{actor} cannot {kind}: {reason}"
        rules.act(state, actor, kind, options, _NoDice())
    except _WouldRoll:
        return None
    except RefereeError as err:
        return str(err)
    return None


def _act(log: _Log, cmd: c.Act, rules: RuleSystem, rng: Rng, by: str) -> None:
    state = log.before  # the rules act on the state given: nothing is written before they do
    if state.status is OPEN:
        raise ConflictError("the bout has not started: roll initiative first")
    if state.status is PAUSED:
        raise ConflictError("the bout is paused")
    _require_live(state)
    fighter = state.fighter(cmd.actor)
    actor = fighter.name
    check(by, "act", actor)
    if cmd.kind not in rules.actions:
        raise RuleError(f"unknown action {cmd.kind!r} (expected one of {', '.join(rules.actions)})")
    if not REFEREE_TERMS.isdisjoint(cmd.options):
        terms = sorted(REFEREE_TERMS & set(cmd.options))
        check(by, "circumstances", actor, what=", ".join(terms))
    if state.current != actor:
        raise ConflictError(f"out of turn: it is {state.current}'s turn, not {actor}'s")
    reason = rules.blocked(fighter, cmd.kind)
    if reason:
        raise ConflictError(f"{actor} cannot {cmd.kind}: {reason}")
    options = to_json(dict(cmd.options), "options")
    recorder = RecordingRng(stream_of(rng, action_stream(actor)))
    outcome = rules.act(state, actor, cmd.kind, cmd.options, recorder)
    assert isinstance(options, dict)
    log.fix_seed()
    log.add(ACTION, actor, p.Action(kind=cmd.kind, options=options, by=by))
    log.rolls(recorder.take())
    _record_outcome(log, actor, outcome, rules)
    if _consequences(log, rules):
        return
    if outcome.extra_action:
        return
    if outcome.uses_turn:
        _end_turn(log, rules, actor)


#: Most characters in a free roll's label (`~roll 1d20+5 to hit`).
MAX_LABEL = 100


def roll_label(text: str) -> str | None:
    """A free roll's label as stored: its words with single spaces, or None for none; one line
    of at most `MAX_LABEL` characters, no control characters (NotationError otherwise).

    >>> roll_label("  to   hit "), roll_label("")
    ('to hit', None)
    """
    label = " ".join(text.split())
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in text):
        raise NotationError("a roll's label is one line of text, without control characters")
    if len(label) > MAX_LABEL:
        raise NotationError(f"a roll's label has {len(label)} characters (at most {MAX_LABEL})")
    return label or None


def _free_roll(log: _Log, cmd: c.FreeRoll, rules: RuleSystem, rng: Rng, by: str) -> None:
    _require_live(log.state)
    actor = cmd.actor if cmd.actor == REFEREE else log.state.fighter(cmd.actor).name
    check(by, "roll", actor)
    label = roll_label(cmd.label)
    if cmd.expression:
        _notation_roll(log, cmd, rng, actor, by, label)
        return
    if not 1 <= len(cmd.sides) <= 100:
        raise RuleError(f"a free roll takes 1 to 100 dice, got {len(cmd.sides)}")
    recorder = RecordingRng(stream_of(rng, free_stream(actor)))
    recorder.throw(cmd.sides)
    dice = tuple(f"d{s}" for s in cmd.sides)
    log.fix_seed()
    log.add(EventType.ACTION, actor, p.Action(kind="roll", dice=dice, by=by, label=label))
    log.rolls(recorder.take())


def _notation_roll(
    log: _Log, cmd: c.FreeRoll, rng: Rng, actor: str, by: str, label: str | None
) -> None:
    notation = log.state.dialect
    expr = parse_dice(cmd.expression, dialect=notation)
    recorder = RecordingRng(stream_of(rng, free_stream(actor)))
    result = roll_dice(expr, rng=recorder)
    action = p.Action(
        kind="roll",
        expression=write_dice(expr, notation),  # replayed in the same dialect
        dice=tuple(f"d{d.sides}" for d in result.dice),
        total=result.total if isinstance(result.total, int) else str(result.total),
        by=by,
        label=label,
    )
    log.fix_seed()
    log.add(EventType.ACTION, actor, action)
    log.rolls(recorder.take())


def _record_outcome(log: _Log, actor: str, outcome: Outcome, rules: RuleSystem) -> None:
    declared = rules.outcomes.get(outcome.kind)
    if declared is None or type(outcome.payload) is not declared:
        raise RuleError(
            f"the {rules.name} outcome {outcome.kind!r} is not in the shape its system declares"
        )
    engine = p.Outcome(
        kind=outcome.kind, actor=actor, summary=outcome.summary, extra_action=outcome.extra_action
    )
    # the rule system's part first, in the shape it declares for the kind, then the engine's
    # (whose keys the fold reads: `engine` is what it folds)
    log.write(Event(OUTCOME, SYSTEM, {**outcome.payload.to_json(), **engine.to_json()}), engine)
    for wound in outcome.wounds:
        if wound.amount:
            total = log.state.fighter(wound.target).wounds + wound.amount
            taken = p.Wound(target=wound.target, amount=wound.amount, total=total)
            log.add(WOUND, SYSTEM, taken)
    for change in outcome.conditions:
        condition = p.Condition(
            target=change.target, condition=change.condition, rounds=change.rounds
        )
        log.add(CONDITION, SYSTEM, condition)
    for stat in outcome.stats:
        log.add(STAT, SYSTEM, p.Stat(target=stat.target, key=stat.key, value=stat.value))


def _consequences(log: _Log, rules: RuleSystem) -> bool:
    """Write defeats (and revivals) the wounds now call for; end the bout if one side is left."""
    for f in log.state.fighters:
        down = f.wounds >= rules.defeat_threshold(f)
        if down != f.defeated:
            log.add(DEFEATED, SYSTEM, p.Defeated(name=f.name, defeated=down))
    return _end_if_decided(log)


def _end_if_decided(log: _Log) -> bool:
    status = log.state.status
    if status is not RUNNING and status is not PAUSED:
        return status is ENDED or status is CANCELLED
    sides = log.state.sides_left()
    if len(sides) > 1:
        return False
    winner = sides[0] if sides else None
    log.add(ENDED_EVENT, SYSTEM, p.Ended(winner=winner, reason="one side is left"))
    return True


def _end_turn(log: _Log, rules: RuleSystem, name: str) -> None:
    """Tick `name`'s timed conditions, then give the turn to the next fighter able to act."""
    _tick(log, name)
    order = log.state.order
    if name in order:
        _advance_from(log, rules, order.index(name))


def _tick(log: _Log, name: str) -> None:
    if not log.state.has_fighter(name):
        return
    for condition, rounds in sorted(log.state.fighter(name).conditions.items()):
        if rounds is not None:
            ticked = p.Condition(target=name, condition=condition, rounds=max(0, rounds - 1))
            log.add(CONDITION, SYSTEM, ticked)


def _advance_from(log: _Log, rules: RuleSystem, index: int) -> None:
    """Give the turn to the first fighter after position `index` in the order who can act.

    Passing the end of the order starts a new round. Fighters a condition keeps from acting
    are skipped (an event says why) and their conditions tick as if they had acted.
    """
    order = log.state.order
    round_ = log.state.round
    position = index
    for _ in range(4 * len(order)):
        position += 1
        if position >= len(order):
            position, round_ = 0, round_ + 1
        f = log.state.fighter(order[position])
        if f.defeated:
            continue
        reason = rules.blocked(f, "turn")
        if reason:
            log.add(SKIPPED, SYSTEM, p.Skipped(name=f.name, reason=reason))
            _tick(log, f.name)
            continue
        log.add(TURN, SYSTEM, p.Turn(fighter=f.name, round=round_))
        return
    raise ConflictError("no fighter is able to act")


def _skip(log: _Log, cmd: c.Skip, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "skip")
    current = log.state.current
    if log.state.status is not Status.RUNNING or current is None:
        raise ConflictError("there is no turn to skip")
    if cmd.at_seq is not None and cmd.at_seq != log.state.next_seq:
        raise ConflictError(f"the bout moved on since event {cmd.at_seq}: the turn was not skipped")
    if cmd.expected is not None and cmd.expected != current:
        raise ConflictError(f"the turn moved: {current} acts now, not {cmd.expected}")
    log.add(EventType.SKIPPED, by, p.Skipped(name=current, reason="skipped by the referee"))
    _end_turn(log, rules, current)


def _pause(log: _Log, cmd: c.Pause, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "pause")
    if log.state.status is not Status.RUNNING:
        raise ConflictError(f"only a running bout can be paused (it is {log.state.status.value})")
    log.add(EventType.PAUSED, by, p.Nothing())


def _close_joining(log: _Log, cmd: c.CloseJoining, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "close joining")
    if log.state.status is not Status.OPEN:
        raise ConflictError(
            f"joining ends when the bout begins (it is {log.state.status.value}): nothing to "
            "close (to end the bout: end bout)"
        )
    if log.state.joining_closed:
        raise ConflictError("joining is already closed")
    log.add(EventType.JOINING_CLOSED, by, p.Nothing())


def _resume(log: _Log, cmd: c.Resume, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "resume")
    if log.state.status is not Status.PAUSED:
        raise ConflictError(f"only a paused bout can be resumed (it is {log.state.status.value})")
    log.add(EventType.RESUMED, by, p.Nothing())


def _override(log: _Log, cmd: c.Override, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "override")
    state = log.state
    if state.status is Status.CANCELLED:
        raise ConflictError("the bout was cancelled")
    if cmd.of not in state.outcome_wounds:
        raise NotFoundError(f"event {cmd.of!r} is not an outcome in force")
    original = state.outcome_wounds[cmd.of]
    totals = {f.name: f.wounds for f in state.fighters}
    for target, amount in original:
        if target in totals:
            totals[target] -= amount
    entries: list[p.Total] = []
    for target, amount in cmd.wounds.items():
        state.fighter(target)
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise RuleError(f"wounds for {target!r} must be a whole number >= 0, got {amount!r}")
        totals[target] += amount
    touched = {t for t, _ in original} | set(cmd.wounds)
    for target in sorted(touched):
        if target in totals:
            amount = cmd.wounds.get(target, 0)
            entries.append(p.Total(target=target, amount=amount, total=totals[target]))
    overridden = p.Overridden(
        of=cmd.of,
        original=tuple(p.Taken(target=t, amount=a) for t, a in original),
        wounds=tuple(entries),
        note=cmd.note,
    )
    log.add(EventType.OVERRIDDEN, by, overridden)
    _consequences(log, rules)


def _void(log: _Log, cmd: c.Void, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "void")
    if log.state.status is Status.CANCELLED:
        raise ConflictError("the bout was cancelled")
    if not log.state.actions:
        raise ConflictError("there is no action to void")
    first, last = log.state.actions[-1]
    log.add(EventType.VOIDED, by, p.Voided(first=first, last=last))


def _end(log: _Log, cmd: c.End, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "end")
    _require_live(log.state)
    if cmd.winner is not None and cmd.winner not in {f.side for f in log.state.fighters}:
        raise NotFoundError(f"no side called {cmd.winner!r} in this bout")
    log.add(EventType.ENDED, by, p.Ended(winner=cmd.winner, reason=cmd.reason))


def _cancel(log: _Log, cmd: c.Cancel, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "cancel")
    _require_live(log.state)
    log.add(EventType.CANCELLED, by, p.Cancelled(reason=cmd.reason))


Handler = Callable[[_Log, c.Command, RuleSystem, Rng, str], None]
_HANDLERS: dict[type, Handler] = {
    c.AddFighter: _add,  # type: ignore[dict-item]
    c.UpdateFighter: _update,  # type: ignore[dict-item]
    c.RemoveFighter: _remove,  # type: ignore[dict-item]
    c.Reveal: _reveal,  # type: ignore[dict-item]
    c.RollInitiative: _initiative,  # type: ignore[dict-item]
    c.Act: _act,  # type: ignore[dict-item]
    c.FreeRoll: _free_roll,  # type: ignore[dict-item]
    c.Skip: _skip,  # type: ignore[dict-item]
    c.Pause: _pause,  # type: ignore[dict-item]
    c.CloseJoining: _close_joining,  # type: ignore[dict-item]
    c.Resume: _resume,  # type: ignore[dict-item]
    c.Override: _override,  # type: ignore[dict-item]
    c.Void: _void,  # type: ignore[dict-item]
    c.End: _end,  # type: ignore[dict-item]
    c.Cancel: _cancel,  # type: ignore[dict-item]
}
