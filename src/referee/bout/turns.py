"""What follows a command's events: defeats (and revivals) the wounds call for, the end of a
bout with one side left, and the next fighter's turn (with the timed conditions ticked)."""

from __future__ import annotations

from referee.bout.log import CONDITION, DEFEATED, ENDED_EVENT, SKIPPED, SYSTEM, TURN, Log
from referee.bout.state import CANCELLED, ENDED, PAUSED, RUNNING, StateReads
from referee.errors import ConflictError
from referee.payloads import events as p
from referee.systems.base import RuleSystem


def require_live(state: StateReads) -> None:
    if state.status is ENDED or state.status is CANCELLED:
        raise ConflictError(f"the bout has {state.status.value}")


def consequences(log: Log, rules: RuleSystem) -> bool:
    """Write defeats (and revivals) the wounds now call for; end the bout if one side is left."""
    for f in log.state.fighters:
        down = f.wounds >= rules.defeat_threshold(f)
        if down != f.defeated:
            log.add(DEFEATED, SYSTEM, p.Defeated(name=f.name, defeated=down))
    return end_if_decided(log)


def end_if_decided(log: Log) -> bool:
    status = log.state.status
    if status is not RUNNING and status is not PAUSED:
        return status is ENDED or status is CANCELLED
    sides = log.state.sides_left()
    if len(sides) > 1:
        return False
    winner = sides[0] if sides else None
    log.add(ENDED_EVENT, SYSTEM, p.Ended(winner=winner, reason="one side is left"))
    return True


def end_turn(log: Log, rules: RuleSystem, name: str) -> None:
    """Tick `name`'s timed conditions, then give the turn to the next fighter able to act."""
    tick(log, name)
    order = log.state.order
    if name in order:
        advance_from(log, rules, order.index(name))


def tick(log: Log, name: str) -> None:
    if not log.state.has_fighter(name):
        return
    for condition, rounds in sorted(log.state.fighter(name).conditions.items()):
        if rounds is not None:
            ticked = p.Condition(target=name, condition=condition, rounds=max(0, rounds - 1))
            log.add(CONDITION, SYSTEM, ticked)


def advance_from(log: Log, rules: RuleSystem, index: int) -> None:
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
            tick(log, f.name)
            continue
        log.add(TURN, SYSTEM, p.Turn(fighter=f.name, round=round_))
        return
    raise ConflictError("no fighter is able to act")
