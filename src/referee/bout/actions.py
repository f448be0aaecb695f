"""The commands that throw dice: a fighter's action, a free roll and initiative; and
`why_not`, the engine's checks of an action without its dice (what a client may offer).

Whose dice: an action's dice come from its actor's stream, a free roll's from its roller's
free stream, initiative's from each fighter's own (`referee.rng.streams`); a source that
keeps no streams serves them all from its one sequence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.bout import commands as c
from referee.bout.events import Event, to_json
from referee.bout.log import ACTION, CONDITION, OUTCOME, STAT, SYSTEM, WOUND, Log
from referee.bout.permissions import REFEREE, check
from referee.bout.state import OPEN, PAUSED, BoutState, Status
from referee.bout.turns import consequences, end_turn, require_live
from referee.dice import parse as parse_dice
from referee.dice import roll as roll_dice
from referee.dice import write as write_dice
from referee.errors import ConflictError, NotationError, RefereeError, RuleError
from referee.payloads import events as p
from referee.rng import RecordingRng, Rng, Throw, action_stream, free_stream, stream_of
from referee.systems.base import Outcome, RuleSystem
from referee.vocabulary import EventType

#: Options of an action that are not the acting fighter's to choose: circumstance modifiers,
#: a rear attack and the range of a shot between unplaced fighters are the referee's to rule
#: (with positions, the rear and the range follow from them), and the defense is the
#: defender's (its sheet's usual one unless the referee rules otherwise). A fighter's own
#: token may not set them; the referee may, and the action event records `by: referee`.
REFEREE_TERMS = frozenset({"modifier", "rear", "defend", "range"})


def act(log: Log, cmd: c.Act, rules: RuleSystem, rng: Rng, by: str) -> None:
    state = log.before  # the rules act on the state given: nothing is written before they do
    if state.status is OPEN:
        raise ConflictError("the bout has not started: roll initiative first")
    if state.status is PAUSED:
        raise ConflictError("the bout is paused")
    require_live(state)
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
    via = cmd.via.as_json() if cmd.via is not None else None
    log.add(ACTION, actor, p.Action(kind=cmd.kind, options=options, by=by, via=via))
    log.rolls(recorder.take())
    _record_outcome(log, actor, outcome, rules)
    if consequences(log, rules):
        return
    if outcome.extra_action:
        return
    if outcome.uses_turn:
        end_turn(log, rules, actor)


def _record_outcome(log: Log, actor: str, outcome: Outcome, rules: RuleSystem) -> None:
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


def free_roll(log: Log, cmd: c.FreeRoll, rules: RuleSystem, rng: Rng, by: str) -> None:
    require_live(log.state)
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
    log: Log, cmd: c.FreeRoll, rng: Rng, actor: str, by: str, label: str | None
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


def roll_initiative(log: Log, cmd: c.RollInitiative, rules: RuleSystem, rng: Rng, by: str) -> None:
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
    state: BoutState,
    actor: str,
    kind: str,
    options: Mapping[str, Any],
    rules: RuleSystem,
    by: str = REFEREE,
) -> str | None:
    """Why `actor` may not take the action `kind` with `options` now, asked by `by`, or None if
    it may: the engine's own checks of an action (the bout running, the referee's terms only
    from the referee, its turn, the rule system's conditions) and the rule system's own check
    of the action, run up to the first die it would throw (nothing is thrown or stored). A
    client offers only the actions this allows.

    >>> from referee.systems.base import find_system
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
        if not REFEREE_TERMS.isdisjoint(options):  # as `act` checks them, before the turn
            terms = sorted(REFEREE_TERMS & set(options))
            check(by, "circumstances", fighter.name, what=", ".join(terms))
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
