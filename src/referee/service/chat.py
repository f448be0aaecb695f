"""The chat endpoint's adapter: raw body -> `referee.chat` command -> service -> one line.

The grammar (what a line means) lives in `referee.chat`; this module only checks the body,
runs the command on the service and renders its answer. Every answer and every error is one
plain-text line of at most 1,024 UTF-8 bytes; tokens are never said in chat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee import chat as k
from referee.bout import commands as c
from referee.bout.state import BoutState
from referee.dice import odds, parse
from referee.errors import AuthError, LimitError, NotationError, RefereeError, RuleError
from referee.payloads import events as p
from referee.sentences import sentence
from referee.service.bouts import Caller, Record, RefereeService, failure_of
from referee.store import Role
from referee.vocabulary import EventType

MAX_CHAT_BYTES = k.MAX_CHAT_BYTES
clip = k.clip


def read_line(body: bytes) -> str:
    """The chat line in a request body: UTF-8, not empty, at most 1,024 bytes.

    >>> read_line(b"  status  ")
    'status'
    >>> read_line(b"\\xff")
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: the chat line is not UTF-8 text
    """
    if len(body) > MAX_CHAT_BYTES:
        raise LimitError(f"the chat line is {len(body)} bytes (at most {MAX_CHAT_BYTES})")
    try:
        line = body.decode("utf-8")
    except UnicodeDecodeError:
        raise NotationError("the chat line is not UTF-8 text") from None
    if not line.strip():
        raise NotationError("the chat line is empty (say `help` for the list)")
    if any(ch in line for ch in "\r\n\x00"):
        raise NotationError("a chat line is one line (no line breaks)")
    return line.strip()


@dataclass(frozen=True, slots=True)
class Ran:
    """What one chat command did: its answer line and the events it stored (in order; none
    for a command that only reads), for a client that shows the events themselves."""

    line: str
    records: tuple[Record, ...] = ()


def roster(state: BoutState) -> k.Roster:
    """The names (fighters, sides) and dice dialect a chat line about this bout may use."""
    sides = tuple(dict.fromkeys(f.side for f in state.fighters))
    return k.Roster(tuple(f.name for f in state.fighters), sides, state.dialect)


def answer_chat(
    service: RefereeService, bout_id: str, caller: Caller, line: str, key: str | None = None
) -> str:
    """The plain-text answer to one chat line (errors raise, as `RefereeError`). `key`: the
    character key the client holds (`referee.service.chat_characters`): it runs the `char`
    lines and `join`, and acts for the fighter its character plays when no token is given."""
    from referee.service.chat_characters import CHARACTER_COMMANDS, caller_of_key, run_character

    service.store.get_bout(bout_id)  # an unknown bout is 404 whatever the line
    command = k.parse_line(line, roster(service.state(bout_id)))
    if isinstance(command, CHARACTER_COMMANDS):
        with service.unit():
            return clip(run_character(service, bout_id, caller, command, key))
    caller = caller_of_key(service, bout_id, caller, key)
    if not isinstance(command, k.Help) and caller.role is None:
        raise AuthError(
            f"`{command}` needs a token of this bout (Authorization: Bearer TOKEN) or the "
            "character key of a fighter in it"
        )
    return clip(run_command(service, bout_id, caller, command).line)


def run_command(
    service: RefereeService,
    bout_id: str,
    caller: Caller,
    command: k.ChatCommand,
    seed_part: str | None = None,
) -> Ran:
    """Run one parsed chat command for `caller` on the service, in one unit of work: every
    client that speaks the chat grammar (the chat endpoint, the HUD, the Discord bot) runs
    its commands here. `seed_part`: a part of the client seed an `add` brings (a bot draws
    one for each fighter it adds)."""
    with service.unit():
        if isinstance(command, k.Add):
            return _add(service, bout_id, caller, command, seed_part)
        return _RUN[type(command)](service, bout_id, caller, command)


def error_answer(err: RefereeError) -> str:
    """An error as the chat says it."""
    return k.error_line(err.public)


Runner = Callable[[RefereeService, str, Caller, Any], Ran]


def _help(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Help) -> Ran:
    return Ran(k.HELP)


def _status_line(service: RefereeService, bout_id: str) -> str:
    state = service.state(bout_id)
    head = k.status_line(state.name, state.status.value, state.round, state.current, state.winner)
    return head + ". " + _score_line(service, bout_id)


def _score_line(service: RefereeService, bout_id: str) -> str:
    return k.score_line(service.scoreboard(bout_id))


def _status(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Status) -> Ran:
    return Ran(_status_line(service, bout_id))


def _score(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Score) -> Ran:
    return Ran(_score_line(service, bout_id))


def _aol_roll(service: RefereeService, bout_id: str, caller: Caller, cmd: k.AolRoll) -> Ran:
    actor = caller.who
    events = service.command(bout_id, caller, c.FreeRoll(actor, (cmd.sides,) * cmd.count))
    rolled = next(e for e in events if e["type"] == EventType.ROLL)["payload"]
    # The host line with its receipt as every renderer says it (`referee.sentences.roll_line`,
    # as `referee export --chat` writes it and the judge reads it): a roll from another stream
    # than the roller's actions names it, so it is not taken for an attack.
    # Signed by the service's key (docs/ledger.md, "Signed roll lines").
    return Ran(service.key.line(bout_id, _shown(actor), rolled), tuple(events))


def _roll(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Roll) -> Ran:
    actor = caller.who
    events = service.command(bout_id, caller, c.FreeRoll(actor, expression=cmd.expression))
    rolls = [p.Roll.read(e["payload"]) for e in events if e["type"] == EventType.ROLL]
    faces = [f for r in rolls for f in r.faces]
    nonces = [r.nonce for r in rolls if r.nonce is not None]  # the service throws each with one
    line = k.roll_line(_shown(actor), cmd.expression, faces, nonces, failure_of(events))
    return Ran(line, tuple(events))


def _acted(service: RefereeService, bout_id: str, events: list[Record]) -> Ran:
    """An action's answer: its events as `referee.sentences` says them (`referee.chat.said`)."""
    return Ran(k.said(events, service.state(bout_id).system), tuple(events))


def _attack(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Attack) -> Ran:
    attacker = cmd.attacker
    if attacker is None:
        if caller.role is Role.REFEREE:
            raise RuleError(f"the referee names both: `attack ATTACKER {cmd.target}`")
        attacker = caller.fighter or ""
    events = service.act_events(bout_id, caller, attacker, "attack", {"target": cmd.target})
    return _acted(service, bout_id, events)


def _spirit(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Spirit) -> Ran:
    actor = cmd.actor
    if actor is None:
        if caller.role is Role.REFEREE:
            raise RuleError(f"the referee names both: `spirit FIGHTER {cmd.target}`")
        actor = caller.fighter or ""
    events = service.act_events(bout_id, caller, actor, "spirit", {"target": cmd.target})
    return _acted(service, bout_id, events)


def _odds(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Odds) -> Ran:
    """Exact odds in the bout's dialect, under `referee roll --odds`'s limits; writes nothing."""
    notation = service.state(bout_id).dialect
    return Ran(k.odds_line(odds(parse(cmd.expression, dialect=notation)), notation))


def _act(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Act) -> Ran:
    options = dict(cmd.options)
    actor = str(options.pop("actor", caller.fighter or ""))
    if caller.role is Role.REFEREE and "actor" not in dict(cmd.options):
        raise RuleError(f"the referee names who acts: `act {cmd.kind} actor=NAME ...`")
    events = service.act_events(bout_id, caller, actor, cmd.kind, options)
    return _acted(service, bout_id, events)


def _init(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Init) -> Ran:
    events = service.command(bout_id, caller, c.RollInitiative())
    settled = next(e for e in events if e["type"] == EventType.INITIATIVE)
    return Ran(sentence(settled, service.state(bout_id).system), tuple(events))


_POWERS: dict[k.Power, Callable[[], c.Command]] = {
    k.Power.PAUSE: c.Pause,
    k.Power.RESUME: c.Resume,
    k.Power.SKIP: c.Skip,
    k.Power.VOID: c.Void,
}


def _power(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Referee) -> Ran:
    events = service.command(bout_id, caller, _POWERS[cmd.power]())
    return Ran(f"{cmd.power.value}: done. " + _status_line(service, bout_id), tuple(events))


def _end(service: RefereeService, bout_id: str, caller: Caller, cmd: k.End) -> Ran:
    events = service.command(bout_id, caller, c.End(cmd.side))
    return Ran(_status_line(service, bout_id), tuple(events))


def _cancel(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Cancel) -> Ran:
    events = service.command(bout_id, caller, c.Cancel())
    return Ran(_status_line(service, bout_id), tuple(events))


def _close_joining(
    service: RefereeService, bout_id: str, caller: Caller, cmd: k.CloseJoining
) -> Ran:
    events = service.command(bout_id, caller, c.CloseJoining())
    return Ran("Joining is closed. " + _status_line(service, bout_id), tuple(events))


def _close(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Close) -> Ran:
    seed = service.close(bout_id, caller)["server_seed"]
    return Ran(f"Bout closed. Server seed: {seed} (check it against the commitment)")


def _add(
    service: RefereeService,
    bout_id: str,
    caller: Caller,
    cmd: k.Add,
    seed_part: str | None = None,
) -> Ran:
    added = service.add_fighter(
        bout_id, caller, cmd.name, {"cs": cmd.cs}, cmd.side, client_seed=seed_part
    )
    # The token stays off the chat: the referee gives the fighter its link from the console.
    return Ran(
        f"{added['name']} joins the bout. Its invite link is on the referee's console "
        "(tokens are never said in chat)."
    )


def _update(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Update) -> Ran:
    options = dict(cmd.options)
    wounds = options.pop("wounds", None)
    if wounds is not None and (isinstance(wounds, bool) or not isinstance(wounds, int)):
        raise RuleError(f"wounds must be a whole number, got {wounds!r}")
    events = service.command(bout_id, caller, c.UpdateFighter(cmd.name, options, wounds))
    return Ran(f"{cmd.name} updated. " + _score_line(service, bout_id), tuple(events))


def _remove(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Remove) -> Ran:
    events = service.remove(bout_id, caller, cmd.name)
    line = f"{cmd.name} has left the bout. " + _status_line(service, bout_id)
    return Ran(line, tuple(events))


def _quit(service: RefereeService, bout_id: str, caller: Caller, cmd: k.Quit) -> Ran:
    if caller.role is not Role.FIGHTER or caller.fighter is None:
        raise RuleError("`quit` is a fighter's; the referee says `remove NAME`")
    return _remove(service, bout_id, caller, k.Remove(caller.fighter))


def _shown(actor: str) -> str:
    return "Referee" if actor == "referee" else actor


_RUN: dict[type, Runner] = {
    k.Help: _help,
    k.Status: _status,
    k.Score: _score,
    k.AolRoll: _aol_roll,
    k.Roll: _roll,
    k.Odds: _odds,
    k.Attack: _attack,
    k.Spirit: _spirit,
    k.Act: _act,
    k.Init: _init,
    k.Referee: _power,
    k.End: _end,
    k.Cancel: _cancel,
    k.Close: _close,
    k.CloseJoining: _close_joining,
    k.Update: _update,
    k.Remove: _remove,
    k.Quit: _quit,
}

__all__ = [
    "MAX_CHAT_BYTES",
    "Ran",
    "answer_chat",
    "clip",
    "error_answer",
    "read_line",
    "roster",
    "run_command",
]
