"""`~char set/list/show/delete/key`: a member's characters, used by `~spar:join NAME`.

They are the service's characters (`referee.service.characters`), held by the member's key,
which the bot keeps for them (`referee.discord.character_keys`): the same characters play in
the console, the chat endpoint and the HUD once the key is moved there (`~char key`), and a
spar's export names the character and the version of its sheet that fought.

An MSV character is its CS (`~char set Tarl cs=65`); an SRP character is a sheet in the same
words as a fight file's (`~char set Bran skill=13 defense=11 hits=10 weapon=mace
armor=leather shield=medium`), checked against the example gear pack (SRP-19).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from discord.ext import commands

from referee.discord import character_keys as keys
from referee.discord.links import Character, Links
from referee.discord.replies import Reply
from referee.errors import NotationError, NotFoundError, RefereeError
from referee.keyvalue import read_all
from referee.systems import find_system
from referee.systems.msv.system import MsvSystem

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
        return checked(Character(name, MsvSystem.name, {"cs": values["cs"]}))
    from referee.service.characters import sheet_of_words
    from referee.systems.srp.system import SrpSystem

    return checked(Character(name, SrpSystem.name, sheet_of_words(SrpSystem.name, name, values)))


def checked(character: Character) -> Character:
    """The character with its stats as its rule system checks a fighter's when it joins
    (`RuleSystem.check_stats`, by the text's reading), so that what `~char set` saves
    `~spar:join NAME` takes; else that check's RuleError, and nothing is saved.

    >>> checked(Character("Tarl", "msv", {"cs": 500}))
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: CS must be 0..100 (MSV-2: CS 100 always succeeds), got 500
    """
    stats = find_system(character.system)().check_stats(character.stats)
    return Character(character.name, character.system, dict(stats))


def _show(ch: Character) -> str:
    return f"{ch.name} ({ch.system.upper()}): {find_system(ch.system).describe_stats(ch.stats)}"


def character_reply(
    links: Links, user_id: int, rest: str, in_channel: bool = False, *, private: bool = False,
    url: str | None = None,
) -> Reply:  # fmt: skip
    """One `~char ...` command for the user who gave it. In a server's channel (`in_channel`)
    no stats are shown there, since they may be a hidden NPC's: `list` names the characters,
    `show` sends the stats by direct message, `set` says only what was saved. `private`: the
    words were seen by the bot alone (a slash command's, a direct message's), so a key may be
    given in them (`key ck_...`); `url`: the service's public address, for the key's link."""
    store = links.store
    words = rest.split()
    verb = words.pop(0).lower() if words else "list"
    if verb == "key":
        return _key(store, user_id, words, in_channel and not private, url)
    if verb == "set":
        character = parse_character(words)
        saved = keys.save(store, user_id, character)
        if in_channel:
            return Reply([f"Saved: {saved.name} ({saved.system.upper()})."])
        return Reply([f"Saved: {_show(saved)}"])
    mine = keys.characters(store, user_id)
    if verb == "list":
        if not mine:
            return Reply(["You have no characters yet: ~char set NAME cs=65"])
        if in_channel:
            named = ", ".join(f"{ch.name} ({ch.system.upper()})" for ch in mine)
            return Reply([f"Your characters: {named} (~char show NAME sends the stats by "
                          "direct message)."])  # fmt: skip
        return Reply([_show(ch) for ch in mine])
    name = " ".join(words)
    found = [ch for ch in mine if ch.name.casefold() == name.casefold()]
    if verb in ("show", "delete") and not found:
        raise NotFoundError(f"you have no character called {name!r} (~char list)")
    if verb == "show":
        if in_channel:
            return Reply([f"Sent you {found[0].name}'s stats by direct message."],
                         direct=[(user_id, _show(found[0]))])  # fmt: skip
        return Reply([_show(found[0])])
    if verb == "delete":
        keys.delete_character(store, user_id, found[0])
        return Reply([f"Deleted {found[0].name}."])
    raise NotationError(f"unknown ~char command {verb!r} (set, list, show, delete, key)")


def _key(store: Any, user_id: int, words: list[str], public: bool, url: str | None) -> Reply:
    """`~char key`: the member's key by direct message; `/char key ck_...`: hold that key."""
    if words:
        if public:
            # Said where others read it: it is not taken, nor said back.
            raise NotationError(
                "a key is a secret: give it with /char key (only the bot sees it) or in a "
                "direct message to the bot, never in a channel; that one was seen here, so "
                "keep its characters under a new key"
            )
        try:
            held = keys.hold_key(store, user_id, words[0])
        except RefereeError:
            raise NotationError("that is not a key this referee made") from None
        return Reply([f"Your characters are now the key's: {held} of them (~char list)."])
    key = keys.key_of(store, user_id)
    if key is None:
        return Reply(["You have no key yet: ~char set NAME cs=65 makes your first character."])
    link = f"{url}/static/characters.html#key={key}" if url else key
    said = f"Your character key (a secret: whoever holds it plays your characters): {link}"
    return Reply(["Sent you your character key by direct message."], direct=[(user_id, said)])


def register_characters(bot: Any, add: Callable[..., Any]) -> None:
    """Add `~char` to the bot."""

    def _char(ctx: commands.Context[Any], rest: str) -> Reply:
        desk = bot.desk
        private = ctx.guild is None
        return character_reply(
            desk.links, ctx.author.id, rest, ctx.guild is not None, private=private,
            url=desk.public_url,
        )  # fmt: skip

    add("char")(_char)
