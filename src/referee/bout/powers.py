"""The commands that throw no dice: the roster (a fighter added, changed, removed, its hidden
stats revealed) and the referee's powers over the bout (skip a turn, pause, resume, close
joining, override an outcome's wounds, void the last action, end or cancel the bout)."""

from __future__ import annotations

from referee.bout import commands as c
from referee.bout.log import SYSTEM, Log
from referee.bout.names import fighter_name
from referee.bout.names import name as checked_name
from referee.bout.permissions import REFEREE, check
from referee.bout.state import Status
from referee.bout.turns import advance_from, consequences, end_if_decided, end_turn, require_live
from referee.errors import ConflictError, NotFoundError, RuleError
from referee.payloads import events as p
from referee.rng import Rng
from referee.systems.base import RuleSystem
from referee.vocabulary import EventType


def add_fighter(log: Log, cmd: c.AddFighter, rules: RuleSystem, rng: Rng, by: str) -> None:
    state = log.state
    require_live(state)
    name = fighter_name(cmd.name, (f.name for f in state.fighters))
    check(by, "add", name)  # the referee adds; a fighter joins only as itself
    if state.joining_closed and by != REFEREE:
        raise ConflictError(f"joining is closed: {name} cannot join (the referee may add them)")
    if cmd.hidden:
        check(by, "hide")
    side = checked_name(cmd.side or name, "side")
    unknown = set(cmd.hidden) - set(rules.hidden_stats())
    if unknown:
        raise RuleError(
            f"cannot hide {sorted(unknown)!r}: hideable stats are {list(rules.hidden_stats())!r}"
        )
    stats = rules.check_stats(cmd.stats)
    if cmd.seed_part is not None and state.seed_fixed:
        raise ConflictError(f"the client seed is fixed: {name} cannot add a part to it now")
    if not cmd.carried and (cmd.wounds or cmd.conditions):
        raise RuleError(
            "only a fighter carried from the last fight joins with wounds or conditions"
        )
    if cmd.carried:
        check(by, "carry")
    added = p.FighterAdded(
        name=name,
        side=side,
        stats=stats,
        hidden=tuple(cmd.hidden) or None,
        seed_part=cmd.seed_part,
        character=None if cmd.character is None else cmd.character[0],
        character_version=None if cmd.character is None else cmd.character[1],
        carried=True if cmd.carried else None,
        wounds=_wounds(cmd.wounds) if cmd.carried else None,
        conditions=_conditions(cmd.conditions) if cmd.carried else None,
    )
    log.add(EventType.FIGHTER_ADDED, by, added)
    if cmd.carried:
        consequences(log, rules)  # one carried at its hit total starts the fight down


#: Most minutes of play time one `time_passed` may hold (a week), and longest reason.
MAX_MINUTES = 7 * 24 * 60
MAX_REASON = 200


def _wounds(wounds: object) -> int:
    if isinstance(wounds, bool) or not isinstance(wounds, int) or wounds < 0:
        raise RuleError(f"wounds must be a whole number >= 0, got {wounds!r}")
    return wounds


def _conditions(conditions: object) -> dict[str, int | None]:
    if not isinstance(conditions, dict):
        raise RuleError(f"conditions {conditions!r} are not a map of condition to turns")
    out: dict[str, int | None] = {}
    for key, turns in conditions.items():
        whole = isinstance(turns, int) and not isinstance(turns, bool) and turns > 0
        if not isinstance(key, str) or not key or not (turns is None or whole):
            raise RuleError(f"condition {key!r}: {turns!r} is not a number of turns >= 1 or null")
        out[key] = turns
    return out


def reason_text(reason: object, required: bool = False, what: str = "reason") -> str | None:
    """A reason (`what`: a note) as the referee gave it: text of 1..200 printable characters
    (None when not given and not required). The engine's check, as every recorded bout was
    decided under; the service refuses more in what it is given from now on (one line, no
    control character at all: `referee.breaks`)."""
    if reason in (None, "") and not required:
        return None
    ok = isinstance(reason, str) and 0 < len(reason.strip()) <= MAX_REASON
    if not ok or any(ord(ch) < 32 for ch in str(reason)):
        raise RuleError(f"{what} {reason!r} must be 1 to {MAX_REASON} printable characters")
    return str(reason).strip()


def pass_time(log: Log, cmd: c.PassTime, rules: RuleSystem, rng: Rng, by: str) -> None:
    """Play time passes (SRP-17's hour): the clock moves on, then whatever it restores."""
    check(by, "pass time")
    require_live(log.state)
    minutes = cmd.minutes
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= MAX_MINUTES:
        raise RuleError(f"minutes {minutes!r} must be a whole number 1..{MAX_MINUTES}")
    reason = reason_text(cmd.reason, required=True)
    assert reason is not None
    clock = log.state.clock + minutes
    log.add(EventType.TIME_PASSED, by, p.TimePassed(minutes=minutes, clock=clock, reason=reason))
    for f in log.state.fighters:
        restored = rules.recovered(f, clock)
        if restored is not None:
            stats, why = restored
            checked = rules.check_stats({**f.stats, **stats})
            log.add(
                EventType.FIGHTER_UPDATED,
                SYSTEM,
                p.FighterUpdated(name=f.name, stats=checked, reason=why),
            )
    consequences(log, rules)


def update_fighter(log: Log, cmd: c.UpdateFighter, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "update")
    require_live(log.state)
    f = log.state.fighter(cmd.name)
    stats = rules.check_stats({**f.stats, **cmd.stats}) if cmd.stats else None
    wounds = cmd.wounds
    whole = isinstance(wounds, int) and not isinstance(wounds, bool) and wounds >= 0
    if wounds is not None and not whole:
        raise RuleError(f"wounds must be a whole number >= 0, got {wounds!r}")
    if stats is None and cmd.wounds is None and not cmd.clear:
        raise RuleError("an update needs stats, wounds or conditions to clear")
    reason = reason_text(cmd.reason)
    missing = sorted(set(cmd.clear) - set(f.conditions))
    if missing:
        raise RuleError(f"{f.name} is not under {missing!r} (it is under {sorted(f.conditions)!r})")
    refused = None if stats is None else rules.refuse_change(f, stats, log.state.clock)
    if refused is not None:
        raise RuleError(refused)
    if stats is not None or cmd.wounds is not None:
        updated = p.FighterUpdated(name=f.name, stats=stats, wounds=cmd.wounds, reason=reason)
        log.add(EventType.FIGHTER_UPDATED, by, updated)
    for condition in dict.fromkeys(cmd.clear):
        log.add(EventType.CONDITION, by, p.Condition(target=f.name, condition=condition, rounds=0))
    consequences(log, rules)


def remove_fighter(log: Log, cmd: c.RemoveFighter, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "remove", cmd.name)
    require_live(log.state)
    log.state.fighter(cmd.name)
    was_current = log.state.current == cmd.name
    index = log.state.order.index(cmd.name) if cmd.name in log.state.order else None
    log.add(EventType.FIGHTER_REMOVED, by, p.Named(name=cmd.name))
    if end_if_decided(log):
        return
    if was_current and index is not None and log.state.order:
        advance_from(log, rules, index - 1)


def reveal(log: Log, cmd: c.Reveal, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "reveal")
    f = log.state.fighter(cmd.name)
    keys = list(cmd.keys) or sorted(f.hidden)
    if not keys:
        raise RuleError(f"{f.name!r} has no hidden stats to reveal")
    missing = set(keys) - f.hidden
    if missing:
        raise RuleError(f"{f.name!r} has no hidden {sorted(missing)!r}")
    log.add(EventType.REVEALED, by, p.Revealed(name=f.name, keys=tuple(keys)))


def skip(log: Log, cmd: c.Skip, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "skip")
    current = log.state.current
    if log.state.status is not Status.RUNNING or current is None:
        raise ConflictError("there is no turn to skip")
    if cmd.at_seq is not None and cmd.at_seq != log.state.next_seq:
        raise ConflictError(f"the bout moved on since event {cmd.at_seq}: the turn was not skipped")
    if cmd.expected is not None and cmd.expected != current:
        raise ConflictError(f"the turn moved: {current} acts now, not {cmd.expected}")
    log.add(EventType.SKIPPED, by, p.Skipped(name=current, reason="skipped by the referee"))
    end_turn(log, rules, current)


def pause(log: Log, cmd: c.Pause, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "pause")
    if log.state.status is not Status.RUNNING:
        raise ConflictError(f"only a running bout can be paused (it is {log.state.status.value})")
    log.add(EventType.PAUSED, by, p.Nothing())


def close_joining(log: Log, cmd: c.CloseJoining, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "close joining")
    if log.state.status is not Status.OPEN:
        raise ConflictError(
            f"joining ends when the bout begins (it is {log.state.status.value}): nothing to "
            "close (to end the bout: end bout)"
        )
    if log.state.joining_closed:
        raise ConflictError("joining is already closed")
    log.add(EventType.JOINING_CLOSED, by, p.Nothing())


def resume(log: Log, cmd: c.Resume, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "resume")
    if log.state.status is not Status.PAUSED:
        raise ConflictError(f"only a paused bout can be resumed (it is {log.state.status.value})")
    log.add(EventType.RESUMED, by, p.Nothing())


def override(log: Log, cmd: c.Override, rules: RuleSystem, rng: Rng, by: str) -> None:
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
    consequences(log, rules)


def void(log: Log, cmd: c.Void, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "void")
    if log.state.status is Status.CANCELLED:
        raise ConflictError("the bout was cancelled")
    if not log.state.actions:
        raise ConflictError("there is no action to void")
    first, last = log.state.actions[-1]
    log.add(EventType.VOIDED, by, p.Voided(first=first, last=last))


def end(log: Log, cmd: c.End, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "end")
    require_live(log.state)
    if cmd.winner is not None and cmd.winner not in {f.side for f in log.state.fighters}:
        raise NotFoundError(f"no side called {cmd.winner!r} in this bout")
    log.add(EventType.ENDED, by, p.Ended(winner=cmd.winner, reason=cmd.reason))


def cancel(log: Log, cmd: c.Cancel, rules: RuleSystem, rng: Rng, by: str) -> None:
    check(by, "cancel")
    require_live(log.state)
    log.add(EventType.CANCELLED, by, p.Cancelled(reason=cmd.reason))
