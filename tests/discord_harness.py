"""Drive the Discord bot offline with dpytest: no network, a real store underneath."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import discord
import discord.ext.test as dpytest
from discord.ext.test import factories, runner
from discord.webhook.async_ import async_context

from referee.discord import build_bot
from referee.discord.bot import RefereeBot
from referee.store import Store
from tests.seeds import for_test


class CapturedResponses:
    """Stands in for Discord's HTTP endpoint of interaction responses: keeps every answer."""

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.followups: list[dict[str, Any]] = []
        self._arrived = asyncio.Event()

    async def create_interaction_response(
        self, interaction_id: int, token: str, *, session: Any, proxy: Any = None,
        proxy_auth: Any = None, params: Any,
    ) -> dict[str, Any]:  # fmt: skip
        self.sent.append(params)
        self._arrived.set()
        return {"interaction": {"id": str(interaction_id), "type": 2}}

    async def execute_webhook(
        self, webhook_id: int, token: str, *, session: Any, proxy: Any = None,
        proxy_auth: Any = None, payload: dict[str, Any] | None = None, multipart: Any = None,
        files: Any = None, thread_id: Any = None, wait: bool = False,
        with_components: bool = False,
    ) -> dict[str, Any]:  # fmt: skip
        """A follow-up message to an answered interaction (kept in `followups`)."""
        self.followups.append(dict(payload or {}))
        return {"id": str(next(_ids)), "channel_id": "0", "type": 0, "content": "",
                "author": {"id": str(webhook_id), "username": "referee", "discriminator": "0",
                           "avatar": None},
                "timestamp": "2026-01-01T00:00:00+00:00", "edited_timestamp": None,
                "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [],
                "attachments": [], "embeds": [], "pinned": False, "flags": 0}  # fmt: skip

    async def answer(self, index: int, timeout: float = 60.0) -> Any:
        """The `index`-th answer, once it is sent (waits for it; generous timeout, no polling)."""

        async def sent() -> None:
            while len(self.sent) <= index:
                self._arrived.clear()
                await self._arrived.wait()

        await asyncio.wait_for(sent(), timeout)
        return self.sent[index]


_ids = itertools.count(10**17)
MENTION = re.compile(r"<@!?([0-9]+)>")


class _Answer:
    """The HTTP answer a `discord.HTTPException` is made from."""

    def __init__(self, status: int) -> None:
        self.status, self.reason = status, "refused"


class Harness:
    """One fake Discord server with members and channels, and the bot over `store`."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.bot: RefereeBot = build_bot(store, entropy=for_test())

    async def start(self, members: list[str], channels: int = 1) -> None:
        """The fake server: `members` (each nicknamed NAME_i_nick) and `channels` text channels.

        The bot runs with its production intents, so it keeps no member list: dpytest builds
        the server's members in the bot's cache, and the harness then takes them out of it
        (they stay the fake server's, answering `fetch_member`/`fetch_user`), so the bot sees
        a member only as Discord shows one: in a message, a mention or an interaction.
        """
        await self.bot._async_setup_hook()
        pings = self.bot.allowed_mentions  # the bot's own: nobody
        dpytest.configure(self.bot, members=0, text_channels=channels, voice_channels=0)
        config = dpytest.get_config()
        self.guild = config.guilds[0]
        self.channels = list(config.channels)
        state = dpytest.backend.get_state()
        made = []
        for num, name in enumerate(members):
            user = dpytest.backend.make_user(name, f"{num + 1:04}")
            data = factories.make_member_dict(self.guild, user, [], nick=f"{name}_{num}_nick")
            made.append(discord.Member(data=data, guild=self.guild, state=state))  # type: ignore[arg-type]
            state._users.pop(user.id, None)  # as on Discord: nobody cached before they speak
        self.members = {m.name: m for m in made}
        self.by_id = {m.id: m for m in made}
        self.roles: dict[str, list[int]] = {name: [] for name in self.members}
        # The bot's own member, which Discord sends with the server (GUILD_CREATE).
        me = factories.make_member_dict(self.guild, state.user, [], nick="referee")
        self.guild._add_member(discord.Member(data=me, guild=self.guild, state=state))  # type: ignore[arg-type]
        # dpytest replaces the connection state; give it the bot's command tree back.
        self.bot._connection._command_tree = self.bot.tree
        self.bot.allowed_mentions = pings  # and its mentions that ping nobody
        self.responses = CapturedResponses()
        async_context.set(self.responses)  # type: ignore[arg-type]
        self.fetched: list[int] = []
        self.closed_dms: set[int] = set()
        self.bot.http.get_user = self._get_user  # type: ignore[method-assign]
        self.bot.http.get_member = self._get_member  # type: ignore[method-assign]
        self.bot.http.start_private_message = self._open_dm  # type: ignore[method-assign]
        # dpytest finds the members a sent message mentions in the bot's cache; the fake
        # server keeps them itself.
        self._found_mentions = dpytest.backend.find_user_mentions
        dpytest.backend.find_user_mentions = self._mentions

    async def _get_user(self, user_id: int) -> dict[str, Any]:
        """Discord's `GET /users/{id}`."""
        self.fetched.append(int(user_id))
        if int(user_id) not in self.by_id:
            raise discord.NotFound(_Answer(404), {"code": 10013, "message": "Unknown User"})
        return self.user(self.by_id[int(user_id)].name)

    async def _get_member(self, guild_id: int, user_id: int) -> dict[str, Any]:
        """Discord's `GET /guilds/{guild}/members/{id}`."""
        self.fetched.append(int(user_id))
        if int(user_id) not in self.by_id:
            raise discord.NotFound(_Answer(404), {"code": 10007, "message": "Unknown Member"})
        name = self.by_id[int(user_id)].name
        return {**self.member(name), "user": self.user(name)}

    async def _open_dm(self, user_id: int) -> dict[str, Any]:
        """Discord's `POST /users/@me/channels`: a direct-message channel to a member. For a
        member whose direct messages are closed the harness refuses here what Discord refuses
        when the message is sent (403, code 50007): either way nothing reaches them."""
        if int(user_id) in self.closed_dms:
            refused = {"code": 50007, "message": "Cannot send messages to this user"}
            raise discord.Forbidden(_Answer(403), refused)  # type: ignore[arg-type]
        return factories.make_dm_channel_dict(self.by_id[int(user_id)]._user)

    def close_dms(self, name: str) -> None:
        """`name` accepts no direct message from the bot (their privacy settings)."""
        user = self.members[name].id
        self.closed_dms.add(user)
        state = self.bot._connection
        opened = state._private_channels_by_user.pop(user, None)
        if opened is not None:  # the bot must open it again, and is refused then
            state._private_channels.pop(opened.id, None)

    def rename(self, name: str, nick: str) -> None:
        """`name` takes the server nickname `nick` (what the bot reads as their name)."""
        self.members[name].nick = nick

    def grant(self, name: str, role: discord.Role) -> None:
        """Give `name` a role (as the server's admins would)."""
        self.roles[name].append(role.id)

    def mention(self, name: str) -> str:
        return f"<@{self.members[name].id}>"

    async def say(self, who: str, text: str, channel: int = 0) -> list[discord.Message]:
        """Post `text` as `who`, as Discord's MESSAGE_CREATE carries it (the author's member,
        each mention's member); every message the bot sent in answer."""
        payload = self.message_payload(who, text, self.channels[channel])
        self.bot._connection.parse_message_create(payload)  # type: ignore[arg-type]
        return await collect()

    def message_payload(self, who: str, text: str, chan: Any) -> dict[str, Any]:
        """`text` posted by `who` in `chan`, as Discord's MESSAGE_CREATE carries it."""
        mentioned = [self.by_id[int(i)].name for i in MENTION.findall(text)
                     if int(i) in self.by_id]  # fmt: skip
        return {
            "id": str(next(_ids)), "channel_id": str(chan.id), "guild_id": str(self.guild.id),
            "author": self.user(who), "member": self.member(who), "content": text,
            "timestamp": "2026-01-01T00:00:00+00:00", "edited_timestamp": None, "tts": False,
            "mention_everyone": False,
            "mentions": [{**self.user(n), "member": self.member(n)} for n in mentioned],
            "mention_roles": [], "attachments": [], "embeds": [], "pinned": False, "type": 0,
        }  # fmt: skip

    async def text(self, who: str, text: str, channel: int = 0) -> str:
        """The bot's answer as one text."""
        return "\n".join(m.content for m in await self.say(who, text, channel) if m.content)

    def user(self, name: str) -> dict[str, Any]:
        m = self.members[name]
        return {"id": str(m.id), "username": m.name, "discriminator": "0001", "avatar": None,
                "global_name": None}  # fmt: skip

    def member(self, name: str) -> dict[str, Any]:
        nick = self.members[name].nick
        roles = [str(r) for r in self.roles[name]]
        # An interaction's member carries its permissions in the channel (its roles' here).
        granted = 0
        for role in self.roles[name]:
            found = self.guild.get_role(role)
            granted |= found.permissions.value if found is not None else 0
        return {"roles": roles, "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False,
                "mute": False, "permissions": str(granted), "nick": nick, "flags": 0}  # fmt: skip

    async def interact(
        self, who: str, kind: int, data: dict[str, Any], channel: int = 0,
        permissions: int | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """Dispatch one interaction payload (2: a slash command, 3: a button) as `who`; the
        JSON of the bot's answer (`content`, `flags`), with `files` added. `permissions`: what
        Discord says `who` may do in the channel (else their roles' permissions)."""
        chan = self.channels[channel]
        payload = {
            "id": str(next(_ids)), "application_id": str(self.bot.user.id), "token": "t",
            "version": 1, "type": kind, "data": data, "guild_id": str(self.guild.id),
            "channel_id": str(chan.id),
            "channel": {"id": str(chan.id), "type": 0, "name": chan.name,
                        "guild_id": str(self.guild.id), "position": 0,
                        "permission_overwrites": [], "nsfw": False, "parent_id": None},
            "member": {**self.member(who), "user": self.user(who),
                       **({} if permissions is None else {"permissions": str(permissions)})},
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
        resolved: dict[str, Any] | None = None, permissions: int | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """`/name option...` or `/group name option...`."""
        opts: list[dict[str, Any]] = list(options)
        if group is not None:
            opts, name = [{"name": name, "type": 1, "options": opts}], group
        data: dict[str, Any] = {"id": "1", "name": name, "type": 1, "options": opts}
        if resolved:
            data["resolved"] = resolved
        return await self.interact(who, 2, data, permissions=permissions)

    def member_option(self, option: str, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """A user option and the `resolved` data Discord sends with it."""
        uid = str(self.members[name].id)
        resolved = {"users": {uid: self.user(name)}, "members": {uid: self.member(name)}}
        return {"name": option, "type": 6, "value": uid}, resolved

    async def press(self, who: str, custom_id: str) -> dict[str, Any]:
        """Press a button the bot sent."""
        return await self.interact(who, 3, {"custom_id": custom_id, "component_type": 2})

    def _mentions(self, content: str | None, guild: Any) -> list[discord.Member]:
        return [self.by_id[int(i)] for i in MENTION.findall(content or "") if int(i) in self.by_id]

    async def stop(self) -> None:
        dpytest.backend.find_user_mentions = self._found_mentions
        await dpytest.empty_queue()


async def collect() -> list[discord.Message]:
    """Run the bot's pending events (raising the first error one raised); every message it
    sent meanwhile."""
    await runner.run_all_events()
    if not runner.error_queue.empty():
        raise (await runner.error_queue.get())[1]
    out = []
    while not runner.sent_queue.empty():
        out.append(dpytest.get_message())
    return out


def attachment_bytes(message: discord.Message) -> bytes:
    """The bytes of a message's first attachment (dpytest keeps them in a file in the cwd)."""
    return Path(urlparse(message.attachments[0].url).path).read_bytes()


def fighter_to_act(answer: str) -> str | None:
    """The fighter named by the last "Next: NAME's turn" line of an answer."""
    found = re.findall(r"^Next: (.+?)'s turn", answer, flags=re.MULTILINE)
    return found[-1] if found else None


def play(
    store: Store,
    members: list[str],
    script: Callable[[Harness], Awaitable[None]],
    channels: int = 1,
) -> None:
    """Run `script` against a harness of the bot on `store`, with `members` on a server of
    `channels` channels, and stop the harness whatever happens."""

    async def run() -> None:
        harness = Harness(store)
        await harness.start(members, channels)
        try:
            await script(harness)
        finally:
            await harness.stop()

    asyncio.run(run())
