"""The chat endpoint: one line of chat in, one plain-text answer (at most 1,024 bytes) out.

A Second Life HUD or a bot posts what its wearer typed and says the answer in chat as it is.
The commands (also listed by `help`):

    //roll -sides100 -dice1     a recorded roll: "OnlineHost: NAME rolled 1 100-sided die: 47"
    attack TARGET               your attack (fighter token); referee: attack ATTACKER TARGET
    act KIND [key=value ...]    any action of the rule system (SRP: shoot, disarm, grapple, ...)
    init                        referee: roll initiative and start
    status | score              whose turn it is | wounds against thresholds
    add NAME CS [SIDE]          referee (MSV): add a fighter
    update NAME key=value ...   referee: change stats or wounds (wounds=3, cs=70)
    remove NAME | quit          referee removes a fighter | a fighter leaves
    pause | resume | skip | void | cancel | end [SIDE] | close      referee powers
    help                        this list, short
"""

from __future__ import annotations

import shlex
from typing import Any

from referee.bout import commands as c
from referee.dice.chat import format_host_line, parse_chat
from referee.errors import NotationError, RuleError
from referee.service.bouts import Caller, RefereeService
from referee.store import Role

MAX_CHAT_BYTES = 1024

HELP = (
    "referee chat: //roll -sides100 -dice1 | attack TARGET | act KIND key=value.. | status | "
    "score | quit. Referee: init, add NAME CS [SIDE], update NAME key=value.., remove NAME, "
    "attack ATTACKER TARGET, pause, resume, skip, void, cancel, end [SIDE], close"
)

_POWERS: dict[str, type[c.Pause | c.Resume | c.Skip | c.Void | c.Cancel]] = {
    "pause": c.Pause,
    "resume": c.Resume,
    "skip": c.Skip,
    "void": c.Void,
    "cancel": c.Cancel,
}


def clip(text: str, limit: int = MAX_CHAT_BYTES) -> str:
    """`text` cut to at most `limit` UTF-8 bytes, never inside a character.

    >>> len(clip("é" * 600).encode("utf-8")), clip("é" * 600)[-4:]
    (1023, 'é...')
    """
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[: limit - 3].decode("utf-8", "ignore") + "..."


def answer_chat(service: RefereeService, bout_id: str, caller: Caller, line: str) -> str:
    """The plain-text answer to one chat line."""
    return clip(_answer(service, bout_id, caller, line.strip()))


def _answer(service: RefereeService, bout_id: str, caller: Caller, line: str) -> str:
    if line.lower().startswith("//roll"):
        return _roll(service, bout_id, caller, line)
    try:
        words = shlex.split(line)
    except ValueError as err:
        raise NotationError(f"cannot read {line!r}: {err}") from None
    if not words:
        return HELP
    verb, args = words[0].lower().lstrip("!/"), words[1:]
    if verb == "help":
        return HELP
    if verb in ("status", "score", "scoreboard"):
        return _status(service, bout_id) if verb == "status" else _score(service, bout_id)
    if verb == "attack":
        return _attack(service, bout_id, caller, args)
    if verb == "act":
        return _act(service, bout_id, caller, args)
    if verb == "init":
        service.command(bout_id, caller, c.RollInitiative())
        return "Initiative: " + " > ".join(service.state(bout_id).order)
    if verb in _POWERS:
        service.command(bout_id, caller, _POWERS[verb]())
        return f"{verb}: done. " + _status(service, bout_id)
    if verb == "end":
        service.command(bout_id, caller, c.End(args[0] if args else None))
        return _status(service, bout_id)
    if verb == "close":
        seed = service.close(bout_id, caller)["server_seed"]
        return f"Bout closed. Server seed: {seed} (check it against the commitment)"
    if verb == "add":
        return _add(service, bout_id, caller, args)
    if verb == "update":
        return _update(service, bout_id, caller, args)
    if verb in ("remove", "quit"):
        name = args[0] if args else caller.fighter or ""
        service.remove(bout_id, caller, name)
        return f"{name} has left the bout. " + _status(service, bout_id)
    raise NotationError(f"unknown chat command {words[0]!r} (say 'help' for the list)")


def _roll(service: RefereeService, bout_id: str, caller: Caller, line: str) -> str:
    dice = parse_chat(line)
    service.require_token(caller)
    actor = caller.who
    events = service.command(bout_id, caller, c.FreeRoll(actor, (dice.sides,) * dice.count))
    roll = next(e for e in events if e["type"] == "roll")
    faces = roll["payload"]["faces"]
    name = "Referee" if actor == "referee" else actor
    return f"{format_host_line(name, dice.sides, faces)} (nonce {roll['payload']['nonce']})"


def _attack(service: RefereeService, bout_id: str, caller: Caller, args: list[str]) -> str:
    if caller.role is Role.FIGHTER and len(args) == 1:
        attacker, target = caller.fighter or "", args[0]
    elif len(args) == 2:
        attacker, target = args
    else:
        raise NotationError("say 'attack TARGET' (referee: 'attack ATTACKER TARGET')")
    return _said(service.act(bout_id, caller, attacker, "attack", {"target": target}))


def _act(service: RefereeService, bout_id: str, caller: Caller, args: list[str]) -> str:
    if not args:
        raise NotationError("say 'act KIND key=value ...' (e.g. 'act shoot target=Orc')")
    kind, rest = args[0], args[1:]
    actor = caller.fighter or ""
    options = _pairs(rest)
    if caller.role is Role.REFEREE:
        actor = str(options.pop("actor", ""))
        if not actor:
            raise NotationError("the referee names who acts: act KIND actor=NAME ...")
    return _said(service.act(bout_id, caller, actor, kind, options))


def _add(service: RefereeService, bout_id: str, caller: Caller, args: list[str]) -> str:
    if len(args) not in (2, 3) or not args[1].isdigit():
        raise NotationError("say 'add NAME CS [SIDE]' (e.g. 'add Tarl 65')")
    side = args[2] if len(args) == 3 else None
    added = service.add_fighter(bout_id, caller, args[0], {"cs": int(args[1])}, side)
    return f"{added['name']} joins the bout. Fighter token: {added['token']}"


def _update(service: RefereeService, bout_id: str, caller: Caller, args: list[str]) -> str:
    if len(args) < 2:
        raise NotationError("say 'update NAME key=value ...' (e.g. 'update Tarl wounds=3')")
    options = _pairs(args[1:])
    wounds = options.pop("wounds", None)
    if wounds is not None and not isinstance(wounds, int):
        raise RuleError(f"wounds must be a whole number, got {wounds!r}")
    service.command(bout_id, caller, c.UpdateFighter(args[0], options, wounds))
    return f"{args[0]} updated. " + _score(service, bout_id)


def _pairs(words: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for word in words:
        key, eq, value = word.partition("=")
        if not eq or not key:
            raise NotationError(f"expected key=value, got {word!r}")
        out[key] = int(value) if value.lstrip("-").isdigit() else _word(value)
    return out


def _word(value: str) -> Any:
    return {"true": True, "false": False}.get(value.lower(), value)


def _said(answer: dict[str, Any]) -> str:
    text = str(answer.get("summary") or "done")
    rolls = answer.get("rolls") or []
    if rolls:
        nonces = ", ".join(str(r.get("nonce")) for r in rolls)
        text += f" [nonce {nonces}]"
    if answer.get("winner"):
        text += f" {answer['winner']} wins the bout."
    elif answer.get("extra_action"):
        text += f" {answer.get('actor')} acts again at once."
    elif answer.get("next"):
        text += f" Next: {answer['next']}."
    return text


def _status(service: RefereeService, bout_id: str) -> str:
    state = service.state(bout_id)
    parts = [f"{state.name}: {state.status.value}"]
    if state.current:
        parts.append(f"round {state.round}, {state.current} to act")
    if state.winner:
        parts.append(f"winner {state.winner}")
    return ", ".join(parts) + ". " + _score(service, bout_id)


def _score(service: RefereeService, bout_id: str) -> str:
    rows = service.scoreboard(bout_id)
    return " | ".join(
        f"{r['name']} {r['wounds']}/{r['threshold']}{' down' if r['defeated'] else ''}"
        for r in rows
    )
