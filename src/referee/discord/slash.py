"""Slash commands: the same desk calls as the message commands, as Discord application commands.

`/roll`, `/odds`, `/dialect`, `/fair [reveal] [part] [all]`, `/help`, `/char`, `/choose`, the
`/table` group (`list`, `info`, `new`, `add`, `rewrite`, `remove`, `delete`) and the `/spar`
group (`open`, `join`, `begin`, `attack`, `act`, `target`, `scoreboard`, `quit`, `power`,
`close`, `link`, `clock`, `add`, `npc`, `remove`, `update`, `override`, `reveal`, `assign`). A
refusal is answered to the one who asked only (ephemeral) and changes nothing. Manage Server
is read from the permissions Discord sends with each interaction.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal, cast

import discord
from discord import app_commands

from referee.discord import rolltables as rolls
from referee.discord.characters import character_reply
from referee.discord.desk import pairs
from referee.discord.help import HELP, command_help
from referee.discord.messages import (
    MAX_FILES,
    UNDELIVERED,
    asker,
    chunks,
    files_of,
    fresh_link,
    off_loop,
    place,
    refusal,
    send_direct,
    shown,
    view_for,
)
from referee.discord.replies import Place, Reply
from referee.errors import NotationError, RefereeError

if TYPE_CHECKING:
    from referee.discord.bot import RefereeBot


async def respond(interaction: discord.Interaction, work: Callable[[], Reply]) -> None:
    """Run one desk call (off the event loop, in one transaction) and answer the interaction
    with its reply (or the refusal)."""
    desk = cast("RefereeBot", interaction.client).desk
    await respond_later(interaction, lambda: off_loop(desk, work))


async def respond_later(
    interaction: discord.Interaction, work: Callable[[], Awaitable[Reply]]
) -> None:
    """As `respond`, for a command that asks Discord something first; a direct message that
    cannot be delivered is said to the one who asked only (ephemeral)."""
    try:
        reply = await work()
    except RefereeError as err:
        await interaction.response.send_message(refusal(err.public), ephemeral=True)
        return
    # a long answer in pieces Discord accepts, as a message command's: the first answers the
    # interaction (with the files), the rest follow it; the buttons go under the last
    parts = chunks(shown(reply.text or "done")) or ["done"]
    files, view = files_of(reply), view_for(reply) or discord.utils.MISSING
    await interaction.response.send_message(
        parts[0], files=files[:MAX_FILES] or discord.utils.MISSING,
        view=view if len(parts) == 1 else discord.utils.MISSING,
    )  # fmt: skip
    for number, part in enumerate(parts[1:], start=2):
        await interaction.followup.send(
            part, view=view if number == len(parts) else discord.utils.MISSING
        )
    for start in range(MAX_FILES, len(files), MAX_FILES):
        await interaction.followup.send(files=files[start : start + MAX_FILES])
    for user in await send_direct(reply, interaction.client):
        await interaction.followup.send(UNDELIVERED.format(user=user), ephemeral=True)


def register_slash(bot: RefereeBot) -> None:
    """Add the application commands to the bot's tree."""
    desk = bot.desk
    tree = bot.tree

    def aimed_at(here: Place, member: discord.Member | None, name: str) -> str | None:
        """The foe a slash command names: a member, or a fighter by name (an NPC is no
        member); not both."""
        if member is not None and name.strip():
            raise NotationError("name the foe once: a member or a name, not both")
        if member is not None:
            return desk.fighter_of(here, member.id)
        return desk.fighter_named(here, name) if name.strip() else None

    @tree.command(name="roll", description="Roll dice notation or an AOL //roll, verifiably")
    @app_commands.describe(expression="2d20+1d6, 4d6kh3 or //roll -sides100 -dice1")
    async def roll(interaction: discord.Interaction, expression: str) -> None:
        await respond(
            interaction,
            lambda: desk.roll(place(interaction.channel, interaction.guild),
                              asker(interaction), expression),
        )  # fmt: skip

    @tree.command(name="fair", description="Your table ledger here: show it, add your part, reveal")
    @app_commands.describe(
        reveal="reveal its server seed, attach its export and start a new ledger",
        part="your own part of its client seed (before its first roll)",
        every="with reveal (Manage Server): every table ledger of this channel",
    )
    @app_commands.rename(every="all")
    async def fair(
        interaction: discord.Interaction, reveal: bool = False, part: str = "", every: bool = False
    ) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)

        def work() -> Reply:
            if part and (reveal or every):
                raise NotationError("give /fair a part or reveal, not both")
            if every and not reveal:
                raise NotationError("all is for reveal: /fair reveal:True all:True")
            if part:
                return desk.fair_part(here, who, part)
            if reveal:
                return desk.fair_reveal(here, who, every)
            return desk.fair(here, who)

        await respond(interaction, work)

    @tree.command(name="odds", description="The exact odds of a roll (nothing is rolled)")
    @app_commands.describe(expression="2d6, 4d6kh3, 1d20+5 (in this channel's dialect)")
    async def odds(interaction: discord.Interaction, expression: str) -> None:
        here = place(interaction.channel, interaction.guild)
        await respond(interaction, lambda: desk.odds(here, expression))

    @tree.command(name="dialect", description="How dice are read here; set it (proctor, admins)")
    async def dialect(
        interaction: discord.Interaction,
        name: Literal["roll20", "onlinehost", "d20"] | None = None,
    ) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: desk.dialect(here, who, name or ""))

    @tree.command(name="help", description="What the referee bot can do")
    async def help_(interaction: discord.Interaction, command: str = "") -> None:
        aliases = bot.aliases()
        await respond(
            interaction, lambda: Reply([command_help(command, aliases) if command else HELP])
        )

    @tree.command(
        name="char", description="Your characters: set NAME cs=65 | list | show | delete | key"
    )
    async def char(interaction: discord.Interaction, words: str = "list") -> None:
        here = interaction.guild is not None
        await respond(
            interaction,
            lambda: character_reply(
                desk.links, interaction.user.id, words, here, private=True, url=desk.public_url
            ),
        )

    @tree.command(name="choose", description="One of your items, or a roll on a roll table")
    @app_commands.describe(
        items="item 1, item 2, ... (split by commas): one of them by a verifiable 1dN",
        table="or one of this server's roll tables (/table list)",
        modifier="added to the table's roll (kept within its sides)",
    )
    async def choose(
        interaction: discord.Interaction, items: str = "", table: str = "",
        modifier: app_commands.Range[int, -9999, 9999] = 0,
    ) -> None:  # fmt: skip
        here, who = place(interaction.channel, interaction.guild), asker(interaction)

        def work() -> Reply:
            return desk.choose(here, who, choice_words(items, table, modifier))

        await respond(interaction, work)

    tables = app_commands.Group(name="table", description="This server's roll tables")

    @tables.command(name="list", description="This server's roll tables: each one's die")
    async def table_list(interaction: discord.Interaction) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: desk.table(here, who, "list"))

    @tables.command(name="info", description="One table's entries and its gaps")
    async def table_info(interaction: discord.Interaction, name: str) -> None:
        await on_table(interaction, "info", name)

    @tables.command(name="new", description="Manage Server: make a roll table")
    @app_commands.describe(name="1 to 40 letters, digits, - or _", description="what it is for")
    async def table_new(interaction: discord.Interaction, name: str, description: str = "") -> None:
        await on_table(interaction, "new", name, description)

    @tables.command(name="add", description="Manage Server: add entries (one side each, or [s,e])")
    @app_commands.describe(items="item 1, item 2 (the sides after the last) or [2,5]Fog, Sun")
    async def table_add(interaction: discord.Interaction, name: str, items: str) -> None:
        await on_table(interaction, "add", name, items)

    @tables.command(name="rewrite", description="Manage Server: a new text for a side's entry")
    async def table_rewrite(
        interaction: discord.Interaction, name: str, side: int, text: str
    ) -> None:
        await on_table(interaction, "rewrite", name, f"{side} {text}")

    @tables.command(name="remove", description="Manage Server: remove the entry holding a side")
    async def table_remove(interaction: discord.Interaction, name: str, side: int) -> None:
        await on_table(interaction, "remove", name, str(side))

    @tables.command(name="delete", description="Manage Server: delete a roll table")
    async def table_delete(interaction: discord.Interaction, name: str) -> None:
        await on_table(interaction, "delete", name)

    async def on_table(
        interaction: discord.Interaction, verb: str, name: str, rest: str = ""
    ) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)

        def work() -> Reply:
            return desk.table(here, who, f"{verb} {rolls.table_name(name.strip())} {rest}")

        await respond(interaction, work)

    tree.add_command(tables)

    spar = app_commands.Group(name="spar", description="MSV and SRP spars in this channel")

    @spar.command(name="open", description="Open a spar here; you become its proctor")
    async def open_(
        interaction: discord.Interaction, system: Literal["msv", "srp"] = "msv", name: str = ""
    ) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: desk.open(here, who, f"{system} {name}"))

    @spar.command(name="join", description="Join with your CS (MSV) or a saved character")
    async def join(interaction: discord.Interaction, entry: str = "") -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: desk.join(here, who, entry))

    @spar.command(name="begin", description="Proctor: roll initiative and start")
    async def begin(interaction: discord.Interaction) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: desk.begin(here, who))

    @spar.command(name="attack", description="Attack on your turn")
    @app_commands.describe(
        target="the foe, a member", foe="or the foe by name (an NPC, who is no member)"
    )
    async def attack(
        interaction: discord.Interaction, target: discord.Member | None = None, foe: str = ""
    ) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)

        def work() -> Reply:
            return desk.attack(here, who, aimed_at(here, target, foe))

        await respond(interaction, work)

    @spar.command(name="scoreboard", description="Wounds against thresholds, whose turn it is")
    async def scoreboard(interaction: discord.Interaction) -> None:
        here = place(interaction.channel, interaction.guild)
        await respond(interaction, lambda: desk.scoreboard(here))

    @spar.command(name="quit", description="Leave the spar")
    async def quit_(interaction: discord.Interaction) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: desk.quit(here, who))

    @spar.command(name="power", description="Proctor: pause, resume, skip, void, cancel, end")
    async def power(
        interaction: discord.Interaction,
        verb: Literal["pause", "resume", "skip", "void", "cancel", "end"],
        side: str = "",
    ) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: desk.power(here, who, verb, side))

    @spar.command(name="close", description="Proctor: no more joiners; or end, reveal, export")
    @app_commands.describe(what="joining: no more joiners (OnlineHost); bout: end and reveal")
    async def close(
        interaction: discord.Interaction, what: Literal["joining", "bout"] = "joining"
    ) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: desk.typed(here, who, "close", what))

    @spar.command(name="link", description="A fresh web link by direct message")
    async def link(interaction: discord.Interaction) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond_later(interaction, lambda: fresh_link(bot, desk, here, who))

    @spar.command(name="clock", description="Proctor: a post time (2m), skip or not; off")
    async def clock(interaction: discord.Interaction, time: str, skip: bool = False) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        words = time if time.strip().lower() == "off" else f"{time} {'skip' if skip else ''}"
        await respond(interaction, lambda: bot.clock.set(here, who, words.strip()))

    @spar.command(name="add", description="Proctor: add a member with a CS (MSV)")
    async def add(
        interaction: discord.Interaction, member: discord.Member, cs: int, side: str = ""
    ) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(
            interaction,
            lambda: desk.add(here, who, member.display_name, member.id, cs, side or None),
        )

    @spar.command(name="remove", description="Proctor: remove a member's fighter")
    async def remove(interaction: discord.Interaction, member: discord.Member) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: desk.remove(here, who, desk.fighter_of(here, member.id)))

    @spar.command(name="assign", description="Proctor: hand the spar over")
    async def assign(interaction: discord.Interaction, member: discord.Member) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(interaction, lambda: desk.assign(here, who, member.id, member.display_name))

    @spar.command(name="target", description="Whom your 1d100 attacks when you have several foes")
    async def target(interaction: discord.Interaction, member: discord.Member) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(
            interaction, lambda: desk.set_target(here, who, desk.fighter_of(here, member.id))
        )

    @spar.command(name="act", description="An SRP action on your turn: shoot, disarm, pass...")
    @app_commands.describe(
        kind="attack, shoot, disarm, entangle, grapple, unhorse, break_free, pick_up, release, "
        "move, step, charge, face, spirit, pass",
        target="the foe, a member",
        foe="or the foe by name (an NPC, who is no member)",
        options="key=value words, e.g. weapon=dagger fire=volley",
    )
    async def act(
        interaction: discord.Interaction, kind: str, target: discord.Member | None = None,
        options: str = "", foe: str = "",
    ) -> None:  # fmt: skip
        here, who = place(interaction.channel, interaction.guild), asker(interaction)

        def work() -> Reply:
            aimed = aimed_at(here, target, foe)
            return desk.act(here, who, kind.strip().lower(), aimed, pairs(options.split()))

        await respond(interaction, work)

    @spar.command(name="update", description="Proctor: change a fighter (wounds=3 cs=70)")
    @app_commands.describe(fighter="the fighter's name", changes="key=value words")
    async def update(interaction: discord.Interaction, fighter: str, changes: str) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)

        def work() -> Reply:
            return desk.update(here, who, desk.fighter_named(here, fighter),
                               pairs(changes.split()))  # fmt: skip

        await respond(interaction, work)

    @spar.command(name="override", description="Proctor: replace an outcome's wounds (Tarl=0)")
    @app_commands.describe(wounds="NAME=WOUNDS words", event="the outcome's event (default: last)")
    async def override(
        interaction: discord.Interaction, wounds: str, event: int | None = None
    ) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)

        def work() -> Reply:
            named = {desk.fighter_named(here, k): v for k, v in pairs(wounds.split()).items()}
            return desk.override(here, who, event, named)

        await respond(interaction, work)

    @spar.command(name="npc", description="Proctor: add an NPC (a saved character or cs=70)")
    @app_commands.describe(
        character="a saved character's name, or NAME cs=70", side="its side",
        hidden="keep its CS (MSV) or skills, defense and armor (SRP) to you until revealed",
    )  # fmt: skip
    async def npc(
        interaction: discord.Interaction, character: str, side: str = "", hidden: bool = False
    ) -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        words = " ".join([character, *(["on", side] if side else []), *(["hidden"] * hidden)])
        await respond(interaction, lambda: desk.npc(here, who, words))

    @spar.command(name="reveal", description="Proctor: show an NPC's hidden stats to everyone")
    async def reveal(interaction: discord.Interaction, fighter: str, keys: str = "") -> None:
        here, who = place(interaction.channel, interaction.guild), asker(interaction)
        await respond(
            interaction,
            lambda: desk.reveal(here, who, desk.fighter_named(here, fighter),
                                [k.lower() for k in keys.split()]),
        )  # fmt: skip

    tree.add_command(spar)


def choice_words(items: str, table: str, modifier: int) -> str:
    """What `~choose` would be given for `/choose`'s options: the items, or a table's name and
    its modifier.

    >>> choice_words("", "weather", -2), choice_words("a, b", "", 0)
    ('weather -2', 'a, b')
    """
    if items.strip() and table.strip():
        raise NotationError("give /choose items or a table, not both")
    if table.strip():
        name = rolls.table_name(table.strip())
        return f"{name} {modifier:+d}" if modifier else name
    if modifier:
        raise NotationError("a modifier is for a roll on a table: /choose table:NAME modifier:N")
    return items
