"""Drive the Discord bot offline with dpytest: no network, a real store underneath."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import discord
import discord.ext.test as dpytest
from discord.ext.test import runner
from discord.webhook.async_ import async_context

from referee.discord import build_bot
from referee.discord.bot import RefereeBot
from referee.store import Store
from tests.seeds import for_test


def test_intents() -> discord.Intents:
    """The bot's own intents plus the member cache dpytest's fake server needs."""
    wanted = discord.Intents.none()
    wanted.guilds = wanted.guild_messages = wanted.message_content = wanted.members = True
    return wanted


class CapturedResponses:
    """Stands in for Discord's HTTP endpoint of interaction responses: keeps every answer."""

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self._arrived = asyncio.Event()

    async def create_interaction_response(
        self, interaction_id: int, token: str, *, session: Any, proxy: Any = None,
        proxy_auth: Any = None, params: Any,
    ) -> dict[str, Any]:  # fmt: skip
        self.sent.append(params)
        self._arrived.set()
        return {"interaction": {"id": str(interaction_id), "type": 2}}

    async def answer(self, index: int, timeout: float = 60.0) -> Any:
        """The `index`-th answer, once it is sent (waits for it; generous timeout, no polling)."""

        async def sent() -> None:
            while len(self.sent) <= index:
                self._arrived.clear()
                await self._arrived.wait()

        await asyncio.wait_for(sent(), timeout)
        return self.sent[index]


_ids = itertools.count(10**17)


class Harness:
    """One fake Discord server with members and channels, and the bot over `store`."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.bot: RefereeBot = build_bot(store, wanted=test_intents(), entropy=for_test())

    async def start(self, members: list[str], channels: int = 1) -> None:
        await self.bot._async_setup_hook()
        dpytest.configure(self.bot, members=members, text_channels=channels, voice_channels=0)
        config = dpytest.get_config()
        self.members = {m.name: m for m in config.members}
        self.channels = list(config.channels)
        self.guild = config.guilds[0]
        # dpytest replaces the connection state; give it the bot's command tree back.
        self.bot._connection._command_tree = self.bot.tree
        self.responses = CapturedResponses()
        async_context.set(self.responses)  # type: ignore[arg-type]

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

    def user(self, name: str) -> dict[str, Any]:
        m = self.members[name]
        return {"id": str(m.id), "username": m.name, "discriminator": "0001", "avatar": None,
                "global_name": None}  # fmt: skip

    def member(self, name: str) -> dict[str, Any]:
        nick = self.members[name].nick
        return {"roles": [], "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False,
                "mute": False, "permissions": "0", "nick": nick, "flags": 0}  # fmt: skip

    async def interact(
        self, who: str, kind: int, data: dict[str, Any], channel: int = 0
    ) -> dict[str, Any]:
        """Dispatch one interaction payload (2: a slash command, 3: a button) as `who`; the
        JSON of the bot's answer (`content`, `flags`), with `files` added."""
        chan = self.channels[channel]
        payload = {
            "id": str(next(_ids)), "application_id": str(self.bot.user.id), "token": "t",
            "version": 1, "type": kind, "data": data, "guild_id": str(self.guild.id),
            "channel_id": str(chan.id),
            "channel": {"id": str(chan.id), "type": 0, "name": chan.name,
                        "guild_id": str(self.guild.id), "position": 0,
                        "permission_overwrites": [], "nsfw": False, "parent_id": None},
            "member": {**self.member(who), "user": self.user(who)},
            "locale": "en-US", "guild_locale": "en-US", "app_permissions": "0",
            "entitlements": [], "authorizing_integration_owners": {},
            "attachment_size_limit": 8 * 2**20,
        }  # fmt: skip
        before = len(self.responses.sent)
        self.bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        params = await self.responses.answer(before)
        payload = params.payload
        if payload is None:  # with files the JSON travels as the multipart's payload_json
            part = next(p for p in params.multipart if p["name"] == "payload_json")
            payload = json.loads(part["value"])
        answer: dict[str, Any] = dict(payload["data"])
        answer["files"] = [f.filename for f in params.files or []]
        return answer

    async def slash(
        self, who: str, name: str, *options: dict[str, Any], group: str | None = None,
        resolved: dict[str, Any] | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """`/name option...` or `/group name option...`."""
        opts: list[dict[str, Any]] = list(options)
        if group is not None:
            opts, name = [{"name": name, "type": 1, "options": opts}], group
        data: dict[str, Any] = {"id": "1", "name": name, "type": 1, "options": opts}
        if resolved:
            data["resolved"] = resolved
        return await self.interact(who, 2, data)

    def member_option(self, option: str, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """A user option and the `resolved` data Discord sends with it."""
        uid = str(self.members[name].id)
        resolved = {"users": {uid: self.user(name)}, "members": {uid: self.member(name)}}
        return {"name": option, "type": 6, "value": uid}, resolved

    async def press(self, who: str, custom_id: str) -> dict[str, Any]:
        """Press a button the bot sent."""
        return await self.interact(who, 3, {"custom_id": custom_id, "component_type": 2})

    async def stop(self) -> None:
        await dpytest.empty_queue()


def attachment_bytes(message: discord.Message) -> bytes:
    """The bytes of a message's first attachment (dpytest keeps them in a file in the cwd)."""
    return Path(urlparse(message.attachments[0].url).path).read_bytes()


def fighter_to_act(answer: str) -> str | None:
    """The fighter named by the last "Next: NAME's turn" line of an answer."""
    found = re.findall(r"^Next: (.+?)'s turn", answer, flags=re.MULTILINE)
    return found[-1] if found else None
