"""What the bot's messages and interactions are made of: who asks and where, mentions, answers
cut to Discord's size, buttons and menus, and sending a reply (message commands and slash
commands alike: `referee.discord.bot`, `referee.discord.slash`).
"""

from __future__ import annotations

import io
import logging
import re
from typing import Any

import discord

from referee.discord.replies import Person, Place, Reply

log = logging.getLogger("referee.discord")

MENTION = re.compile(r"<@!?([0-9]+)>")
#: Discord's limit on one message.
MAX_MESSAGE = 2000
BUTTON_PREFIX = "referee:"


def person(user: discord.abc.User) -> Person:
    """Who asks; Manage Server counts as the proctor's powers."""
    admin = isinstance(user, discord.Member) and user.guild_permissions.manage_guild
    return Person(user.id, user.display_name, bool(admin))


def place(channel: Any, guild: discord.Guild | None) -> Place:
    """Where a command was given."""
    return Place(channel.id, guild.id if guild else None, str(getattr(channel, "name", "dm")))


def mentioned(text: str) -> list[int]:
    """User ids mentioned in `text`, in the order written.

    >>> mentioned("<@12> hits <@!34>")
    [12, 34]
    """
    return [int(m) for m in MENTION.findall(text)]


def without_mentions(text: str) -> str:
    """`text` with every mention taken out.

    >>> without_mentions("<@12> 65 red")
    '65 red'
    """
    return " ".join(MENTION.sub(" ", text).split())


def chunks(text: str, size: int = MAX_MESSAGE) -> list[str]:
    """A long answer cut at line ends into messages Discord accepts.

    >>> [len(c) for c in chunks("a" * 10 + "\\n" + "b" * 10, 12)]
    [10, 10]
    """
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > size:
            out.append(line[:size])
            line = line[size:]
        if current and len(current) + 1 + len(line) > size:
            out.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        out.append(current)
    return out


def view_for(reply: Reply) -> discord.ui.View | None:
    """Buttons under the answer (Attack per foe; SRP: Shoot, what undoes the actor's own
    conditions, Pass) and the select menus (SRP: special actions per foe)."""
    if not reply.buttons:
        return None
    view = discord.ui.View(timeout=None)
    menus: dict[str, list[discord.SelectOption]] = {}
    for button in reply.buttons:
        value = f"{button.action}:{button.target}"[:100]
        if button.menu is not None:
            menus.setdefault(button.menu, []).append(
                discord.SelectOption(label=button.label[:100], value=value)
            )
        elif len(view.children) < 20:
            custom = f"{BUTTON_PREFIX}{value}"[:100]
            view.add_item(discord.ui.Button(label=button.label[:80], custom_id=custom))
    for placeholder, choices in menus.items():
        view.add_item(
            discord.ui.Select(
                custom_id=f"{BUTTON_PREFIX}menu:{placeholder}"[:100],
                placeholder=placeholder[:150],
                options=choices[:25],
            )
        )
    return view


async def send(target: discord.abc.Messageable, reply: Reply, client: discord.Client) -> None:
    """Send a reply: text in pieces Discord accepts, the file, buttons, direct messages."""
    parts = chunks(reply.text) or ["done"]
    for number, part in enumerate(parts):
        view = view_for(reply) if number == len(parts) - 1 else None
        if view is not None:
            await target.send(part, view=view)
        else:
            await target.send(part)
    if reply.file is not None:
        await target.send(file=discord.File(io.BytesIO(reply.file[1]), filename=reply.file[0]))
    await send_direct(reply, client)


async def send_direct(reply: Reply, client: discord.Client) -> None:
    """The reply's direct messages (fresh links, what only the proctor may see)."""
    for user_id, text in reply.direct:
        user = client.get_user(user_id)
        if user is None:
            continue
        try:
            await user.send(text)
        except discord.HTTPException as err:  # DMs closed: the channel's answer stands
            log.warning("direct message not sent (%s)", type(err).__name__)
