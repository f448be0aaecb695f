"""The Discord bot: message commands and buttons, a thin layer over the `Desk`.

Each command turns the message into who/where/words, asks the desk, and sends its reply.
A `RefereeError` (bad input, a refusal) is answered with its reason and changes nothing.
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, cast

import discord
from discord.ext import commands

from referee.dice import DIALECTS, parse
from referee.discord.clock import TurnClock
from referee.discord.desk import Desk, pairs
from referee.discord.help import HELP, command_help
from referee.discord.messages import (
    MENTION,
    asker,
    fresh_link,
    member_name,
    mentioned,
    off_loop,
    person,
    place,
    refusal,
    send,
    without_mentions,
)
from referee.discord.presses import BUTTON_PREFIX
from referee.discord.proxies import ProxyDoor, register_proxies
from referee.discord.replies import Button, Person, Place, Reply
from referee.discord.slash import register_slash, respond
from referee.errors import ForbiddenError, NotationError, RefereeError
from referee.numerals import is_whole
from referee.rng import SECURE_ENTROPY, Entropy
from referee.store import Store

log = logging.getLogger("referee.discord")

#: Seconds between two looks at the turn clocks.
CLOCK_EVERY = 5

#: What `~spar:reveal NAME KEY...` may name: MSV's CS and the SRP-10 hidden stats.
REVEALABLE = ("cs", "skills", "defense", "avoid", "armor", "pm", "spirit")


def intents() -> discord.Intents:
    """Guild messages and their content (prefix commands need it); no privileged member list."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.guild_messages = True
    wanted.dm_messages = True
    wanted.message_content = True
    return wanted


class RefereeBot(commands.Bot):
    """The bot: the desk, message commands, buttons."""

    def __init__(
        self, store: Store, prefix: str, public_url: str | None,
        wanted: discord.Intents | None = None, entropy: Entropy = SECURE_ENTROPY,
        proxy: str | None = None,
    ) -> None:  # fmt: skip
        self.desk = Desk(store, public_url, entropy)
        self.clock = TurnClock(self.desk)
        self.default_prefix = prefix
        super().__init__(
            command_prefix=self._prefix, intents=wanted or intents(), help_command=None,
            case_insensitive=True,
            allowed_mentions=discord.AllowedMentions.none(), proxy=proxy,
        )  # fmt: skip
        self.proxies = ProxyDoor(self, self.desk)
        _register(self)
        register_slash(self)
        self.desk.command_words = frozenset(self.aliases()) | {c.name for c in self.commands}

    async def setup_hook(self) -> None:
        """On login: publish the slash commands to Discord (global commands), start the clock."""
        await self.tree.sync()
        self._clock_task = asyncio.create_task(self._run_clock())

    async def _run_clock(self) -> None:
        while not self.is_closed():
            try:
                await self.clock_tick(datetime.now(UTC))
            except Exception as err:  # the clock must never stop the bot
                log.error("turn clock failed: %s", type(err).__name__)
            await asyncio.sleep(CLOCK_EVERY)

    async def clock_tick(self, now: datetime) -> None:
        """Say what the turn clock says at `now` in each channel concerned (the clock reads
        and skips on a worker thread, each spar in one transaction)."""
        for channel_id, reply in await asyncio.to_thread(self.clock.tick, now):
            channel = self.get_channel(channel_id)
            if isinstance(channel, discord.abc.Messageable):
                await send(channel, reply, self)

    async def _prefix(self, bot: commands.Bot, message: discord.Message) -> str:
        if message.guild is not None:
            own = await asyncio.to_thread(self.desk.links.prefix, message.guild.id)
            if own:
                return own
        return self.default_prefix

    async def process_commands(self, message: discord.Message) -> None:
        """Run a message that names one of the bot's commands; anything else is left alone
        (role-play lines may start with the prefix: `~sighs`)."""
        if message.author.bot or message.webhook_id is not None:
            await self.proxies.heard(message)  # a proxy's persona, or nothing
            return
        self.proxies.saw(message)
        ctx = await self.get_context(message)
        if ctx.command is not None:
            await self.invoke(ctx)
            return
        text = message.content.strip()
        if text.lower().startswith("//roll"):  # OnlineHost's own roll line, without a prefix
            where, who = place(message.channel, message.guild), person(message.author)
            await answer(ctx, lambda: self.desk.roll(where, who, text))
            return
        if ctx.prefix and ctx.invoked_with:
            rest = text[len(ctx.prefix) + len(ctx.invoked_with) :]
            who = person(message.author)
            word = ctx.invoked_with
            if await off_loop(self.desk, lambda: self.desk.rolls_alias(who, word)):
                where, line = place(message.channel, message.guild), ctx.invoked_with + rest
                await answer(ctx, lambda: self.desk.roll(where, who, line))  # `~hit`: an alias
                return
            guess = self.did_you_mean(ctx.invoked_with, rest)
            if guess is not None:
                await ctx.send(refusal(f"no command {ctx.prefix}{ctx.invoked_with}; "
                                       f"did you mean {ctx.prefix}{guess}?"))  # fmt: skip

    def aliases(self) -> dict[str, str]:
        """Each alias's command (`r` -> `roll`), from the command table."""
        return {a: c.name for c in self.commands for a in c.aliases}

    def did_you_mean(self, word: str, rest: str = "") -> str | None:
        """The command a mistyped word is closest to (`spar:atack` -> `spar:attack`), or None
        for a word like no command (`~sighs`: role-play, left alone) or a command's word with
        more after it (`~attacks wildly`: a role-play verb, not a typo), unless what follows
        (`rest`) reads as that command's arguments (`~rolll 1d6`: see `reads_as_arguments`).

        >>> from referee.store import Store
        >>> bot = build_bot(Store.open("sqlite://"))
        >>> bot.did_you_mean("spar:atack"), bot.did_you_mean("sighs"), bot.did_you_mean("atack")
        ('spar:attack', None, 'attack')
        >>> bot.did_you_mean("attacks", " wildly"), bot.did_you_mean("acts")  # role-play verbs
        (None, None)
        >>> bot.did_you_mean("rolll", " 1d6"), bot.did_you_mean("rolls", " her eyes")
        ('roll', None)
        """
        names = sorted({n for c in self.commands for n in (c.name, *c.aliases)})
        word = word.lower()
        close = difflib.get_close_matches(word, names, n=1, cutoff=0.8)
        if not close:
            return None
        if word.startswith(close[0]) and ":" not in word:
            command = self.get_command(close[0])
            name = command.name if command is not None else close[0]
            if not reads_as_arguments(name, rest):
                return None  # `~attacks wildly`, `~acts surprised`: role-play, not a typo
        return str(close[0])

    async def on_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        """Unknown commands stay silent (role-play lines may start with the prefix)."""
        if isinstance(error, commands.CommandNotFound):
            return
        if isinstance(error, commands.UserInputError):
            await ctx.send(refusal(f"{error} (~help {ctx.command or ''})".strip()))
            return
        log.error("command %s failed: %s", ctx.command, type(error).__name__)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """The buttons: `referee:attack:NAME` attacks NAME as the one who pressed it (any other
        action likewise, as `~spar:act ACTION @NAME` would), only on the turn it was made for
        (`referee.discord.presses`); a select menu's choice is `ACTION:NAME`. Refusals answer
        the presser only."""
        data: dict[str, Any] = dict(interaction.data or {})
        custom = str(data.get("custom_id", ""))
        if interaction.type is not discord.InteractionType.component:
            return
        if not custom.startswith(BUTTON_PREFIX):
            return
        values = [str(v) for v in data.get("values") or []]
        where, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: self.desk.press(where, who, custom, values))


#: The commands whose arguments can be told from role-play by their form alone: dice (in any
#: dialect the bot reads, or the AOL `//roll`). A fighter's name could be any word, so the
#: words after `~attacks` are never taken for a target.
DICE_COMMANDS = frozenset({"roll", "odds"})


def reads_as_arguments(command: str, rest: str) -> bool:
    """Whether `rest` reads as the arguments of `command` (its name, not an alias): dice
    notation for `roll` and `odds`; for any other command, never.

    >>> reads_as_arguments("roll", " 4d6kh3"), reads_as_arguments("roll", " her eyes")
    (True, False)
    >>> reads_as_arguments("roll", " //roll -sides100 -dice1"), reads_as_arguments("attack", " Orc")
    (True, False)
    """
    text = rest.strip()
    if command not in DICE_COMMANDS or not text:
        return False
    if text.lower().startswith("//roll"):
        return True
    for name in DIALECTS:
        try:
            parse(text, dialect=name)
        except RefereeError:
            continue
        return True
    return False


async def answer(ctx: commands.Context[Any], work: Callable[[], Reply]) -> None:
    """Run one command's desk work (off the event loop, in one transaction); a refusal or
    bad input is its reason, in one line."""
    bot: RefereeBot = ctx.bot
    await answer_later(ctx, lambda: off_loop(bot.desk, work))


async def answer_later(ctx: commands.Context[Any], work: Callable[[], Awaitable[Reply]]) -> None:
    """As `answer`, for a command that asks Discord something first (its desk calls go
    through `off_loop` themselves)."""
    try:
        reply = await work()
    except RefereeError as err:
        await ctx.send(refusal(err.public))
        return
    await send(ctx, reply, ctx.bot)


def _register(bot: RefereeBot) -> None:
    desk = bot.desk

    def where(ctx: commands.Context[Any]) -> Place:
        return place(ctx.channel, ctx.guild)

    def who(ctx: commands.Context[Any]) -> Person:
        return bot.proxies.speaker(ctx.message)  # a persona, through a proxy

    def add(
        name: str, aliases: tuple[str, ...] = ()
    ) -> Callable[[Callable[[commands.Context[Any], str], Reply | Awaitable[Reply]]], None]:
        def wrap(fn: Callable[[commands.Context[Any], str], Reply | Awaitable[Reply]]) -> None:
            later = inspect.iscoroutinefunction(fn)

            async def command(ctx: commands.Context[Any], *, rest: str = "") -> None:
                if later:
                    await answer_later(ctx, lambda: cast(Awaitable[Reply], fn(ctx, rest)))
                else:
                    await answer(ctx, lambda: cast(Reply, fn(ctx, rest)))

            bot.add_command(commands.Command(command, name=name, aliases=list(aliases)))

        return wrap

    def target_of(ctx: commands.Context[Any], rest: str) -> str | None:
        ids = mentioned(rest)
        if ids:
            return desk.fighter_of(where(ctx), ids[0])
        text = without_mentions(rest)
        return desk.fighter_named(where(ctx), text) if text else None

    @add("roll", ("r",))
    def _roll(ctx: commands.Context[Any], rest: str) -> Reply:
        return desk.roll(where(ctx), who(ctx), rest)

    @add("fair")
    def _fair(ctx: commands.Context[Any], rest: str) -> Reply:
        """`~fair`, `~fair part TEXT`, `~fair reveal`, `~fair reveal all`."""
        verb, _, part = rest.strip().partition(" ")
        words = rest.lower().split()
        if not words:
            return desk.fair(where(ctx), who(ctx))
        if verb.lower() == "part" and part.strip():
            return desk.fair_part(where(ctx), who(ctx), part.strip())
        if words in (["reveal"], ["reveal", "all"]):
            return desk.fair_reveal(where(ctx), who(ctx), every=len(words) == 2)
        raise NotationError("say ~fair, ~fair part TEXT, ~fair reveal or ~fair reveal all")

    @add("choose")
    def _choose(ctx: commands.Context[Any], rest: str) -> Reply:
        return desk.choose(where(ctx), who(ctx), rest)

    @add("table")
    def _table(ctx: commands.Context[Any], rest: str) -> Reply:
        return desk.table(where(ctx), who(ctx), rest)

    @add("alias")
    def _alias(ctx: commands.Context[Any], rest: str) -> Reply:
        return desk.alias(where(ctx), who(ctx), rest)

    @add("odds")
    def _odds(ctx: commands.Context[Any], rest: str) -> Reply:
        return desk.odds(where(ctx), rest)

    @add("dialect")
    def _dialect(ctx: commands.Context[Any], rest: str) -> Reply:
        return desk.dialect(where(ctx), who(ctx), rest)

    @add("help")
    def _help(ctx: commands.Context[Any], rest: str) -> Reply:
        return Reply([command_help(rest, bot.aliases()) if rest.strip() else HELP])

    @add("spar:open")
    def _open(ctx: commands.Context[Any], rest: str) -> Reply:
        return desk.open(where(ctx), who(ctx), rest)

    @add("spar:join")
    def _join(ctx: commands.Context[Any], rest: str) -> Reply:
        return desk.join(where(ctx), who(ctx), rest)

    def named(ctx: commands.Context[Any], text: str) -> str:
        """`text` with each mention replaced by the name of the fighter that member plays."""
        return MENTION.sub(lambda m: desk.fighter_of(where(ctx), int(m.group(1))), text)

    def chat_word(verb: str, name: str, aliases: tuple[str, ...]) -> None:
        """A word of the chat grammar, typed `~spar:VERB ...` or `~VERB ...` (the chat line)."""

        def typed(ctx: commands.Context[Any], rest: str) -> Reply:
            return desk.typed(where(ctx), who(ctx), verb, named(ctx, rest))

        add(name, aliases)(typed)

    # The chat grammar's words (`referee.chat`): one parser, the same names, errors and
    # answers as the chat endpoint and the HUD.
    chat_word("init", "spar:begin", ("spar:init", "init", "begin"))
    chat_word("quit", "spar:quit", ("quit",))
    chat_word("status", "spar:status", ("status",))
    chat_word("score", "spar:score", ("score",))
    chat_word("spirit", "spar:spirit", ("spirit",))
    chat_word("remove", "spar:remove", ("remove",))
    chat_word("update", "spar:update", ("update",))
    for verb in ("pause", "resume", "skip", "void", "cancel"):
        chat_word(verb, f"spar:{verb}", (verb,))

    @add("spar:attack", ("spar:roll", "attack"))
    def _attack(ctx: commands.Context[Any], rest: str) -> Reply:
        rest = desk.attack_dice(where(ctx), rest)  # `~spar:roll 1d100 @user`: its dice checked
        return desk.typed(where(ctx), who(ctx), "attack", named(ctx, rest))

    @add("spar:act", ("act",))
    def _act(ctx: commands.Context[Any], rest: str) -> Reply:
        """`act KIND key=value`; a foe named right after KIND is its `target=` (`~spar:act
        shoot @Orc`, `~spar:act disarm Orc Chief`)."""
        words = named(ctx, rest).split()
        keyed = next((i for i, w in enumerate(words) if "=" in w), len(words))
        if keyed > 1:
            words = [words[0], "target=" + " ".join(words[1:keyed]), *words[keyed:]]
        return desk.typed(where(ctx), who(ctx), "act", " ".join(words))

    @add("spar:target")
    def _target(ctx: commands.Context[Any], rest: str) -> Reply:
        target = target_of(ctx, rest)
        if target is None:
            raise NotationError("say ~spar:target @user")
        return desk.set_target(where(ctx), who(ctx), target)

    @add("spar:scoreboard")
    def _score(ctx: commands.Context[Any], rest: str) -> Reply:
        return desk.scoreboard(where(ctx))

    @add("spar:end", ("end",))
    def _end(ctx: commands.Context[Any], rest: str) -> Reply:
        """`~spar:end [SIDE]`: asks first; the proctor's press on the button ends the spar."""
        bout = desk.bout_of(where(ctx))  # the button ends this spar only (`presses`)
        desk.require_proctor(bout, who(ctx), "end")
        side = rest.strip()
        if side.lower().startswith("bout"):  # the chat grammar's `end bout [SIDE]`
            side = side[4:].strip()
        result = f" ({side} wins)" if side else ""
        return Reply([f"End the spar{result}? The proctor's press on the button ends it."],
                     buttons=[Button(f"End the spar{result}", "end", side)], mark=bout)  # fmt: skip

    @add("spar:add", ("add",))
    async def _add(ctx: commands.Context[Any], rest: str) -> Reply:
        """`add NAME CS [SIDE]` of the chat grammar; `@user` for NAME adds that member."""
        ids = mentioned(rest)
        user = ids[0] if ids else None
        if user is not None:
            name = await member_name(user, ctx.message.mentions, ctx.guild)
            rest = MENTION.sub(lambda m: f'"{name}"' if int(m.group(1)) == user else "", rest, 1)
        return await off_loop(
            desk, lambda: desk.typed(where(ctx), who(ctx), "add", rest, user=user)
        )

    @add("spar:npc")
    def _npc(ctx: commands.Context[Any], rest: str) -> Reply:
        return desk.npc(where(ctx), who(ctx), rest)

    @add("spar:reveal")
    def _reveal(ctx: commands.Context[Any], rest: str) -> Reply:
        words = without_mentions(rest).split()
        ids = mentioned(rest)
        keys = [w for w in words if w.lower() in REVEALABLE]
        named = " ".join(w for w in words if w not in keys)
        if ids:
            name = desk.fighter_of(where(ctx), ids[0])
        elif named:
            name = desk.fighter_named(where(ctx), named)
        else:
            raise NotationError(f"say ~spar:reveal NAME [{'|'.join(REVEALABLE)}]")
        return desk.reveal(where(ctx), who(ctx), name, [k.lower() for k in keys])

    @add("spar:override")
    def _override(ctx: commands.Context[Any], rest: str) -> Reply:
        words = rest.split()
        of = int(words.pop(0)) if words and is_whole(words[0]) else None
        wounds = {}
        for key, value in pairs(words).items():
            wounds[desk.fighter_named(where(ctx), key)] = value
        return desk.override(where(ctx), who(ctx), of, wounds)

    @add("spar:assign")
    async def _assign(ctx: commands.Context[Any], rest: str) -> Reply:
        ids = mentioned(rest)
        if not ids:
            raise NotationError("say ~spar:assign @user")
        name = await member_name(ids[0], ctx.message.mentions, ctx.guild)
        return await off_loop(desk, lambda: desk.assign(where(ctx), who(ctx), ids[0], name))

    @add("spar:clock")
    def _clock(ctx: commands.Context[Any], rest: str) -> Reply:
        reply: Reply = bot.clock.set(where(ctx), who(ctx), rest)
        return reply

    @add("spar:link")
    async def _link(ctx: commands.Context[Any], rest: str) -> Reply:
        return await fresh_link(bot, desk, where(ctx), who(ctx))

    @add("prefix")
    def _prefix(ctx: commands.Context[Any], rest: str) -> Reply:
        if ctx.guild is None:
            raise NotationError("the prefix is set per server")
        if not who(ctx).admin:
            raise ForbiddenError("only members with Manage Server can set the prefix")
        new = check_prefix(rest.strip())
        desk.links.set_prefix(ctx.guild.id, new)
        return Reply([f"The prefix here is now {new} (e.g. {new}help)."])

    @add("spar:close", ("close",))
    def _close(ctx: commands.Context[Any], rest: str) -> Reply:
        """`~spar:close`: no more joiners (OnlineHost); `~spar:close bout`: the chat grammar's
        close (end if need be, reveal the seed, attach the export)."""
        return desk.typed(where(ctx), who(ctx), "close", rest.strip() or "joining")

    from referee.discord.characters import register_characters
    from referee.discord.luck import register_luck

    register_characters(bot, add)
    register_proxies(bot, add)
    register_luck(bot, add, who)


def build_bot(
    store: Store, *, prefix: str = "~", public_url: str | None = None,
    wanted: discord.Intents | None = None, entropy: Entropy = SECURE_ENTROPY,
    proxy: str | None = None,
) -> RefereeBot:  # fmt: skip
    """The `discord.ext.commands.Bot` over `store`, ready to start with `bot.start(token)`.

    `wanted` replaces the intents (nothing in the project passes it: the tests run with the
    production intents); `entropy` the server seeds' source (the OS's; only tests pass a
    deterministic one); `proxy` the HTTP proxy that Discord is reached through (discord.py's).
    """
    return RefereeBot(store, check_prefix(prefix), public_url, wanted, entropy, proxy)


def check_prefix(prefix: str) -> str:
    """A command prefix: 1 to 5 characters without spaces.

    >>> check_prefix("!")
    '!'
    """
    if not prefix or len(prefix) > 5 or any(ch.isspace() for ch in prefix):
        raise NotationError(f"prefix {prefix!r} must be 1 to 5 characters without spaces")
    return prefix
