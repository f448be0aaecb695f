"""Characters that speak through a proxy bot: a message PluralKit or Tupperbox posted through a
webhook, under a character's name, acts for that character (a persona) as the member who wrote
it, when the server trusts that proxy (`referee.discord.proxy_trust`) and that member holds
that fighter (`referee.discord.personas`).

What the bot reads of a message from a bot or a webhook:

- its own messages, and any bot's (not a webhook's): never;
- a webhook's that names none of the bot's commands (role-play through a proxy): never;
- a webhook's of no proxy the server trusts: never, but for a known proxy (PluralKit's or
  Tupperbox's application) that the server's admins distrust: a refusal, nothing changes;
- a trusted proxy's: its author is found (`referee.discord.proxy_owners`), then the command
  runs as that member speaking as the persona the proxy posted under, through the same
  command tree, desk and service as any other command. Only a persona's own commands
  (`PERSONA_COMMANDS`) are taken; the service's one permission check (`referee.bout.
  permissions`) and the turn order then decide, and the action's event records the member
  and the proxy (`via`).

No loop between bots: every action needs a person's original message (PluralKit's `sender`,
Tupperbox's deleted original), proxies never repost a bot's message, and the bot answers as
itself, never through a webhook.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import discord
from discord.ext import commands

from referee.discord.desk import Desk
from referee.discord.messages import person, place, refusal
from referee.discord.proxy_owners import Originals, PluralKit, Seen
from referee.discord.proxy_trust import DEFAULT_PROXIES, KINDS, PLURALKIT, ProxyTrust
from referee.discord.replies import Person, Reply
from referee.errors import ForbiddenError, RefereeError

#: The commands a persona gives through a proxy: its own joining, actions and leaving, and
#: what anyone may read. Anything else (the proctor's powers, `~char`, `~proxy`) is given as
#: oneself.
PERSONA_COMMANDS = frozenset(
    {"spar:join", "spar:attack", "spar:act", "spar:spirit", "spar:quit", "spar:status",
     "spar:score", "spar:scoreboard"}
)  # fmt: skip


class ProxyDoor:
    """How the bot hears proxied messages: the owner lookups, and who speaks in each message
    being run (`speaker`)."""

    def __init__(self, bot: commands.Bot, desk: Desk) -> None:
        self.bot, self.desk = bot, desk
        #: PluralKit's API (replace it to point elsewhere: `referee discord --pluralkit-api`).
        self.pluralkit = PluralKit()
        #: The people's recent messages, Tupperbox's record of who sent what.
        self.originals = Originals()
        self._speakers: dict[int, Person] = {}
        bot.add_listener(self.on_raw_message_delete)

    def speaker(self, message: discord.Message) -> Person:
        """Who speaks in `message`: the persona of a proxied message being run, else its
        author."""
        return self._speakers.get(message.id) or person(message.author)

    def saw(self, message: discord.Message) -> None:
        """A person's message in a server: remembered a while (Tupperbox's originals)."""
        if message.guild is None or not message.content:
            return
        author = message.author
        seen = Seen(message.id, author.id, author.display_name, message.content,
                    message.created_at)  # fmt: skip
        self.originals.saw(message.channel.id, seen)

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        """Discord says a message was deleted (a proxy takes its original away)."""
        self.originals.gone(payload.message_id)

    async def heard(self, message: discord.Message) -> None:
        """A message of a bot or a webhook: run when a trusted proxy posted it for a member,
        ignored or refused otherwise (see the module's text)."""
        own = self.bot.user.id if self.bot.user is not None else None
        if message.webhook_id is None or message.guild is None:
            return  # a bot's own message (ours included): never a command
        if message.application_id is not None and message.application_id == own:
            return
        ctx = await self.bot.get_context(message)
        if ctx.command is None:
            return  # role-play through a proxy, left alone
        trust = self.desk.proxy_trust
        trusted = await asyncio.to_thread(trust.trusted, message.guild.id)
        kind = trusted.get(message.application_id or 0)
        if kind is None and message.application_id not in DEFAULT_PROXIES:
            return  # a webhook of no known proxy (a feed, a bridge): never a command
        try:
            if kind is None:
                raise ForbiddenError(
                    "this server does not trust this proxy (~proxy); nothing changed"
                )
            if ctx.command.name not in PERSONA_COMMANDS:
                raise ForbiddenError(
                    f"a persona may join, act and quit through {KINDS[kind]}; give "
                    f"~{ctx.command.name} as yourself"
                )
            owner = await self.owner(kind, message)
        except RefereeError as err:
            await ctx.send(refusal(err.public))
            return
        self._speakers[message.id] = Person(owner, message.author.display_name, False, kind)
        try:
            await self.bot.invoke(ctx)
        finally:
            self._speakers.pop(message.id, None)

    async def owner(self, kind: str, message: discord.Message) -> int:
        """The Discord user who wrote what the proxy of `kind` posted as `message`."""
        if kind == PLURALKIT:
            return await self.pluralkit.sender(message.id, message.channel.id)
        found = await self.originals.author(message.channel.id, message.content, message.created_at)
        return found.author


def register_proxies(bot: Any, add: Callable[..., Any]) -> None:
    """Add `~proxy` to the bot: which proxies the server trusts (Manage Server changes it)."""

    def _proxy(ctx: commands.Context[Any], rest: str) -> Reply:
        door: ProxyDoor = bot.proxies
        trust: ProxyTrust = bot.desk.proxy_trust
        return trust.command(place(ctx.channel, ctx.guild), door.speaker(ctx.message), rest)

    add("proxy")(_proxy)
