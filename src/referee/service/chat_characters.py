"""The chat endpoint's character lines (`char list`, `char new`, `char set`, `join`), run with
the character key the client sends (`X-Character-Key`), and whom that key acts for in a bout.

A chat line never says the key, and never a hidden stat: `char list` says each hidden one
`hidden`, as every list does. `join CHARACTER` joins one of the key's characters as itself (its
id and version in the join); the key then acts for that fighter in this bout, so a chat client
needs no token of its own (the join's token is never said in chat).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee import chat as k
from referee.errors import AuthError, NotFoundError
from referee.service import characters as ch
from referee.service.bouts import Caller, RefereeService
from referee.store import Role
from referee.systems.base import find_system

#: The chat commands that need a character key.
CHARACTER_COMMANDS = (k.Characters, k.NewCharacter, k.ChangeCharacter, k.JoinCharacter)


def caller_of_key(service: RefereeService, bout_id: str, caller: Caller, key: str | None) -> Caller:
    """`caller` when it has a token; else the fighter the key's character plays in the bout
    (a key that plays none, or no key: nobody)."""
    if caller.role is not None or key is None:
        return caller
    fighter = ch.character_of_fighter(service, bout_id, key)
    return caller if fighter is None else Caller(Role.FIGHTER, fighter)


def run_character(
    service: RefereeService, bout_id: str, caller: Caller, command: Any, key: str | None
) -> str:
    """One character line's answer (in the caller's unit of work)."""
    if key is None:
        raise AuthError(f"`{command}` needs a character key (the {ch.KEY_HEADER} header)")
    store = service.store
    system = service.state(bout_id).system
    if isinstance(command, k.Characters):
        mine = ch.listed(store, key)
        if not mine:
            return "You have no characters yet: char new NAME cs=65"
        return "Your characters: " + "; ".join(_said(c) for c in mine)
    if isinstance(command, k.NewCharacter):
        sheet = ch.sheet_of_words(system, command.name, dict(command.options))
        made = ch.create(store, key, command.name, system, sheet)["character"]
        return f"Saved {made['name']} ({system.upper()}, version 1)."
    found = _named(store, key, command.name)
    if isinstance(command, k.ChangeCharacter):
        # The words given are the whole new sheet (MSV: its CS; SRP: every key of the sheet).
        sheet = ch.sheet_of_words(found["system"], found["name"], dict(command.options))
        changed = ch.change(store, key, found["id"], sheet=sheet)
        return (
            f"Saved {changed['name']} ({changed['system'].upper()}, version {changed['version']})."
        )
    joined = ch.join_character(service, bout_id, caller, key, found["id"])
    version = joined["character"]["version"]
    return (
        f"{joined['name']} joins the bout (your character, version {version}); your key acts "
        "for it here (tokens are never said in chat)."
    )


def _said(character: Mapping[str, Any]) -> str:
    words = find_system(character["system"]).describe_stats(character["sheet"])
    return f"{character['name']} ({character['system'].upper()} v{character['version']}: {words})"


def _named(store: Any, key: str, name: str) -> dict[str, Any]:
    wanted = " ".join(name.split()).casefold()
    for character in ch.listed(store, key):
        if character["name"].casefold() == wanted:
            return character
    raise NotFoundError(f"your key holds no character called {name!r} (say `char list`)")
