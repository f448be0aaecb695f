"""`~char set/list/show/delete`: characters saved per Discord user, used by `~spar:join NAME`.

An MSV character is its CS (`~char set Tarl cs=65`); an SRP character is a sheet in the same
words as a fight file's (`~char set Bran skill=13 defense=11 hits=10 weapon=mace
armor=leather shield=medium`), checked against the example gear pack (SRP-19).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from discord.ext import commands

from referee.discord.links import Character, Links
from referee.discord.replies import Reply
from referee.errors import NotationError, NotFoundError
from referee.keyvalue import read_all
from referee.systems import find_system
from referee.systems.msv.attack import check_cs
from referee.systems.msv.system import MsvSystem

MAX_CHARACTERS = 25
MAX_NAME = 40


def parse_character(words: list[str]) -> Character:
    """`Tarl cs=65` -> an MSV character; sheet keys -> an SRP character.

    >>> parse_character(["Tarl", "Cabot", "cs=65"])
    Character(name='Tarl Cabot', system='msv', stats={'cs': 65})
    """
    name = " ".join(w for w in words if "=" not in w)
    keyed = [w for w in words if "=" in w]
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise NotationError(f"say ~char set NAME cs=65 (a name of 1 to {MAX_NAME} characters)")
    if not keyed:
        raise NotationError("say ~char set NAME cs=65 (or SRP sheet keys: skill=13 hits=10 ...)")
    # each value as chat and `~spar` read it (`referee.keyvalue`): `mounted=true` is True
    pairs = read_all(keyed, fold=True)
    values: dict[str, Any] = {key: pair.value for key, pair in pairs.items()}
    if set(values) == {"cs"}:
        if isinstance(values["cs"], bool) or not isinstance(values["cs"], int):
            raise NotationError(f"cs={pairs['cs'].text!r} is not a whole number")
        return Character(name, MsvSystem.name, {"cs": check_cs(values["cs"])})
    from referee.systems.srp.gear import example_pack
    from referee.systems.srp.sheet import sheet_from_table
    from referee.systems.srp.stats import sheet_to_stats
    from referee.systems.srp.system import SrpSystem

    sheet = sheet_from_table(name, values, example_pack(), where="character")
    return Character(name, SrpSystem.name, dict(sheet_to_stats(sheet)))


def _show(ch: Character) -> str:
    return f"{ch.name} ({ch.system.upper()}): {find_system(ch.system).describe_stats(ch.stats)}"


def character_reply(links: Links, user_id: int, rest: str, in_channel: bool = False) -> Reply:
    """One `~char ...` command for the user who gave it. In a server's channel (`in_channel`)
    no stats are shown there, since they may be a hidden NPC's: `list` names the characters,
    `show` sends the stats by direct message, `set` says only what was saved."""
    words = rest.split()
    verb = words.pop(0).lower() if words else "list"
    if verb == "set":
        character = parse_character(words)
        mine = links.characters(user_id)
        if len(mine) >= MAX_CHARACTERS and all(ch.name != character.name for ch in mine):
            raise NotationError(f"at most {MAX_CHARACTERS} characters each (~char delete NAME)")
        links.save_character(user_id, character)
        if in_channel:
            return Reply([f"Saved: {character.name} ({character.system.upper()})."])
        return Reply([f"Saved: {_show(character)}"])
    if verb == "list":
        mine = links.characters(user_id)
        if not mine:
            return Reply(["You have no characters yet: ~char set NAME cs=65"])
        if in_channel:
            named = ", ".join(f"{ch.name} ({ch.system.upper()})" for ch in mine)
            return Reply([f"Your characters: {named} (~char show NAME sends the stats by "
                          "direct message)."])  # fmt: skip
        return Reply([_show(ch) for ch in mine])
    name = " ".join(words)
    found = [ch for ch in links.characters(user_id) if ch.name.casefold() == name.casefold()]
    if verb in ("show", "delete") and not found:
        raise NotFoundError(f"you have no character called {name!r} (~char list)")
    if verb == "show":
        if in_channel:
            return Reply([f"Sent you {found[0].name}'s stats by direct message."],
                         direct=[(user_id, _show(found[0]))])  # fmt: skip
        return Reply([_show(found[0])])
    if verb == "delete":
        links.delete_character(user_id, found[0].name)
        return Reply([f"Deleted {found[0].name}."])
    raise NotationError(f"unknown ~char command {verb!r} (set, list, show, delete)")


def register_characters(bot: Any, add: Callable[..., Any]) -> None:
    """Add `~char` to the bot."""

    def _char(ctx: commands.Context[Any], rest: str) -> Reply:
        return character_reply(bot.desk.links, ctx.author.id, rest, ctx.guild is not None)

    add("char")(_char)
