"""Drive the Discord bot offline with dpytest: no network, a real store underneath."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import discord
import discord.ext.test as dpytest
from discord.ext.test import runner

from referee.discord import build_bot
from referee.discord.bot import RefereeBot
from referee.store import Store


def test_intents() -> discord.Intents:
    """The bot's own intents plus the member cache dpytest's fake server needs."""
    wanted = discord.Intents.none()
    wanted.guilds = wanted.guild_messages = wanted.message_content = wanted.members = True
    return wanted


class Harness:
    """One fake Discord server with members and channels, and the bot over `store`."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.bot: RefereeBot = build_bot(store, wanted=test_intents())

    async def start(self, members: list[str], channels: int = 1) -> None:
        await self.bot._async_setup_hook()
        dpytest.configure(self.bot, members=members, text_channels=channels, voice_channels=0)
        config = dpytest.get_config()
        self.members = {m.name: m for m in config.members}
        self.channels = list(config.channels)

    def mention(self, name: str) -> str:
        return f"<@{self.members[name].id}>"

    async def say(self, who: str, text: str, channel: int = 0) -> list[discord.Message]:
        """Post `text` as `who`; every message the bot sent in answer."""
        await dpytest.message(text, channel=self.channels[channel], member=self.members[who])
        out = []
        while not runner.sent_queue.empty():
            out.append(dpytest.get_message())
        return out

    async def text(self, who: str, text: str, channel: int = 0) -> str:
        """The bot's answer as one text."""
        return "\n".join(m.content for m in await self.say(who, text, channel) if m.content)

    async def stop(self) -> None:
        await dpytest.empty_queue()


def attachment_bytes(message: discord.Message) -> bytes:
    """The bytes of a message's first attachment (dpytest keeps them in a file in the cwd)."""
    return Path(urlparse(message.attachments[0].url).path).read_bytes()


def fighter_to_act(answer: str) -> str | None:
    """The fighter named by the last "Next: NAME's turn" line of an answer."""
    found = re.findall(r"^Next: (.+?)'s turn", answer, flags=re.MULTILINE)
    return found[-1] if found else None
