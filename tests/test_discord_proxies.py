"""Characters that speak through a proxy bot (issue 45, item 2): messages PluralKit and Tupperbox
post through a webhook act for the persona their owner holds, found by PluralKit's message
lookup (a real HTTP server on 127.0.0.1 answering as PluralKit's API does, 404s, rate limits
and a hang included) or by Tupperbox's deleted original; in turn, attributed in the ledger,
never for someone else, never a loop. dpytest through the real command tree; the webhook
messages are Discord's MESSAGE_CREATE payloads with `webhook_id` and `application_id`."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import discord
import discord.ext.test as dpytest
import pytest

from referee.bout.replay import check_export
from referee.discord.proxy_owners import PluralKit
from referee.discord.proxy_trust import DEFAULT_PROXIES, PLURALKIT, TUPPERBOX
from referee.ledger.verify import verify_export
from referee.store import Store
from tests.discord_harness import Harness, attachment_bytes, collect
from tests.test_discord_spar import play

PK_APP = next(a for a, k in DEFAULT_PROXIES.items() if k == PLURALKIT)
TB_APP = next(a for a, k in DEFAULT_PROXIES.items() if k == TUPPERBOX)
#: Each proxy's webhook in the channel (its own id, as Discord gives webhooks).
HOOKS = {PK_APP: 900000000000000001, TB_APP: 900000000000000002}
#: Message ids of our own making: Discord snowflakes near the harness's (10**17 on).
_next_id = iter(range(3 * 10**17, 4 * 10**17))


class FakePluralKit:
    """PluralKit's API on 127.0.0.1: `GET /v2/messages/{id}` answers the message object of a
    message it proxied (`proxied`), 404 for any other; `script` forces the next answers (a
    status, or "hang": no answer until the test ends)."""

    def __init__(self) -> None:
        self.proxied: dict[int, dict[str, Any]] = {}
        self.script: list[int | str] = []
        self.asked: list[tuple[str, str]] = []
        self.release = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake.asked.append((self.path, self.headers.get("User-Agent", "")))
                forced = fake.script.pop(0) if fake.script else None
                if forced == "hang":
                    fake.release.wait(30)
                    return
                found = re.fullmatch(r"/v2/messages/([0-9]+)", self.path)
                known = fake.proxied.get(int(found.group(1))) if found else None
                if forced == 429:
                    body = {"message": "429: too many requests", "retry_after": 19, "code": 0}
                    self._send(429, body)
                elif forced is not None or known is None:
                    self._send(int(forced or 404), {"message": "Message not found.", "code": 20006})
                else:
                    self._send(200, known)

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v2"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def pluralkit() -> Iterator[FakePluralKit]:
    fake = FakePluralKit()
    yield fake
    fake.close()


def use(h: Harness, fake: FakePluralKit, timeout: float = 5.0) -> None:
    """The bot asks `fake` for PluralKit's lookups, with no pauses between tries, and waits
    for no deleted original (the tests delete it before the copy arrives)."""
    h.bot.proxies.pluralkit = PluralKit(fake.url, timeout=timeout, pause=0, most_wait=0.01)
    h.bot.proxies.originals.wait = 0.0


async def webhook(
    h: Harness, app: int | None, persona: str, text: str, message_id: int | None = None,
    hook: int | None = None,
) -> str:  # fmt: skip
    """`text` posted by a webhook of the application `app` under the name `persona`, as
    Discord's MESSAGE_CREATE carries a proxied message; the bot's answer as one text."""
    chan = h.channels[0]
    hook = hook or HOOKS.get(app or 0, 900000000000000009)
    payload: dict[str, Any] = {
        "id": str(message_id or next(_next_id)), "channel_id": str(chan.id),
        "guild_id": str(h.guild.id), "webhook_id": str(hook),
        "author": {"id": str(hook), "username": persona, "discriminator": "0000",
                   "avatar": None, "bot": True},
        "content": text, "timestamp": "2026-01-01T00:00:00+00:00", "edited_timestamp": None,
        "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [],
        "attachments": [], "embeds": [], "pinned": False, "type": 0,
    }  # fmt: skip
    if app is not None:
        payload["application_id"] = str(app)
    h.bot._connection.parse_message_create(payload)  # type: ignore[arg-type]
    return "\n".join(m.content for m in await collect() if m.content)


async def deleted(h: Harness, message: int) -> None:
    """Discord's MESSAGE_DELETE for `message` (a proxy took the original away)."""
    chan = h.channels[0]
    payload = {"id": str(message), "channel_id": str(chan.id), "guild_id": str(h.guild.id)}
    h.bot._connection.parse_message_delete(payload)  # type: ignore[arg-type]
    await collect()


async def original(h: Harness, who: str, text: str) -> int:
    """`who` writes `text` (a proxy's brackets around a command); its message id."""
    before = next(_next_id)  # the harness's own ids are lower: read the one it gives
    payload = h.message_payload(who, text, h.channels[0])
    payload["id"] = str(before)
    h.bot._connection.parse_message_create(payload)  # type: ignore[arg-type]
    assert await collect() == []  # not a command: the bot says nothing
    return before


async def through_pluralkit(
    h: Harness, fake: FakePluralKit, who: str, persona: str, text: str
) -> str:
    """`who` speaks as `persona` through PluralKit: PluralKit stores who sent it, posts it."""
    copy = next(_next_id)
    fake.proxied[copy] = {
        "timestamp": "2026-01-01T00:00:00Z", "id": str(copy), "original": str(copy - 1),
        "sender": str(h.members[who].id), "channel": str(h.channels[0].id),
        "guild": str(h.guild.id), "system": None, "member": None,
    }  # fmt: skip
    return await webhook(h, PK_APP, persona, text, copy)


async def through_tupperbox(h: Harness, who: str, persona: str, text: str) -> str:
    """`who` speaks as `persona` through Tupperbox: writes `k: TEXT`, Tupperbox deletes it
    and posts TEXT under the persona's name."""
    first = await original(h, who, f"k: {text}")
    await deleted(h, first)
    return await webhook(h, TB_APP, persona, text)


async def opened(h: Harness) -> str:
    await h.text("Judge", "~spar:open msv Masks")
    return h.bot.desk.bout_of(place_of(h))


def place_of(h: Harness) -> Any:
    from referee.discord.replies import Place

    return Place(h.channels[0].id, h.guild.id, h.channels[0].name)


def actions(store: Store, bout: str) -> list[dict[str, Any]]:
    return [e for e in store.events(bout) if e["type"] == "action"]


def test_a_persona_joins_and_acts_through_pluralkit_as_the_member_pluralkit_names(
    pluralkit: FakePluralKit,
) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        use(h, pluralkit)
        bout = await opened(h)
        assert await through_pluralkit(h, pluralkit, "Tarl", "Kamchak", "~spar:join 70") == (
            "Kamchak joins the spar (CS 70), through PluralKit."
        )
        assert await h.text("Elan", "~spar:join 60") == "Elan_2_nick joins the spar (CS 60)."
        await h.text("Judge", "~spar:begin")
        while h.bot.desk.service.state(bout).current != "Kamchak":
            await h.text("Elan", "~spar:attack Kamchak")
        answer = await through_pluralkit(h, pluralkit, "Tarl", "Kamchak", "~attack")
        assert "\nKamchak attacks Elan_2_nick" in answer, answer
        mine = [a for a in actions(store, bout) if a["actor"] == "Kamchak"]
        assert [a["payload"]["via"] for a in mine] == [
            {"member": f"discord:{h.members['Tarl'].id}", "proxy": "pluralkit"}
        ]
        assert mine[0]["payload"]["by"] == "Kamchak"
        # What PluralKit was asked: the copy's id, with the User-Agent its API requires.
        path, agent = pluralkit.asked[-1]
        assert re.fullmatch(r"/v2/messages/[0-9]+", path) and agent.startswith("referee")

    play(store, ["Judge", "Tarl", "Elan"], script)


def test_pluralkit_asked_again_after_a_404_and_a_rate_limit_and_refused_when_it_never_says(
    pluralkit: FakePluralKit,
) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        use(h, pluralkit)
        bout = await opened(h)
        pluralkit.script = [404, 429]  # not stored yet, then busy, then the answer
        joined = await through_pluralkit(h, pluralkit, "Tarl", "Kamchak", "~spar:join 70")
        assert joined == "Kamchak joins the spar (CS 70), through PluralKit."
        assert len(pluralkit.asked) == 3
        before = store.events(bout)
        pluralkit.script = [429, 429, 429]
        assert await through_pluralkit(h, pluralkit, "Elan", "Vella", "~spar:join 60") == (
            "error: PluralKit is busy (rate limited); nothing changed: try again"
        )
        # A message PluralKit never proxied: 404 three times.
        assert await webhook(h, PK_APP, "Vella", "~spar:join 60") == (
            "error: PluralKit does not know this message; nothing changed"
        )
        pluralkit.script = [500]
        assert await through_pluralkit(h, pluralkit, "Elan", "Vella", "~spar:join 60") == (
            "error: PluralKit answered 500; nothing changed"
        )
        assert store.events(bout) == before
        assert h.bot.desk.personas.of(bout)[0].fighter == "Kamchak"
        assert len(h.bot.desk.personas.of(bout)) == 1

    play(store, ["Judge", "Tarl", "Elan"], script)


def test_pluralkit_that_does_not_answer_in_time_is_refused_and_nothing_changes(
    pluralkit: FakePluralKit,
) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        use(h, pluralkit, timeout=0.2)
        bout = await opened(h)
        pluralkit.script = ["hang"]
        before = store.events(bout)
        assert await through_pluralkit(h, pluralkit, "Tarl", "Kamchak", "~spar:join 70") == (
            "error: PluralKit did not answer who sent this message; nothing changed (try again)"
        )
        assert store.events(bout) == before and h.bot.desk.personas.of(bout) == []

    play(store, ["Judge", "Tarl"], script)


def test_pluralkit_placing_the_message_elsewhere_is_refused(pluralkit: FakePluralKit) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        use(h, pluralkit)
        await opened(h)
        copy = next(_next_id)
        pluralkit.proxied[copy] = {"id": str(copy), "sender": str(h.members["Tarl"].id),
                                   "channel": "1"}  # fmt: skip
        assert await webhook(h, PK_APP, "Kamchak", "~spar:join 70", copy) == (
            "error: PluralKit places this message in another channel; nothing changed"
        )

    play(store, ["Judge", "Tarl"], script)


def test_tupperbox_speaks_for_the_one_member_whose_original_it_deleted() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        h.bot.proxies.originals.wait = 0.0
        bout = await opened(h)
        assert await through_tupperbox(h, "Tarl", "Rask", "~spar:join 65") == (
            "Rask joins the spar (CS 65), through Tupperbox."
        )
        assert [(p.fighter, p.user_id, p.proxy) for p in h.bot.desk.personas.of(bout)] == [
            ("Rask", h.members["Tarl"].id, "tupperbox")
        ]
        before = store.events(bout)
        # Nobody wrote it: no original.
        assert await webhook(h, TB_APP, "Vella", "~spar:join 60") == (
            "error: I cannot tell who sent this through Tupperbox (I did not see the "
            "original); nothing changed"
        )
        # An original that was not deleted is not what Tupperbox posted.
        await original(h, "Elan", "v: ~spar:join 60")
        assert await webhook(h, TB_APP, "Vella", "~spar:join 60") == (
            "error: Tupperbox did not delete an original of this message; nothing changed"
        )
        # Two members wrote the same words, and both were deleted: whose is it?
        first, second = (
            await original(h, "Elan", "v: ~spar:join 61"),
            await original(h, "Tarl", "[~spar:join 61]"),
        )
        await deleted(h, first)
        await deleted(h, second)
        assert await webhook(h, TB_APP, "Vella", "~spar:join 61") == (
            "error: two members wrote these words just now: I cannot tell whose this "
            "Tupperbox message is; nothing changed"
        )
        assert store.events(bout) == before
        # Of two who wrote the same words, only one was deleted: that one's.
        await original(h, "Tarl", "k: ~spar:join 62")
        elan = await original(h, "Elan", "v: ~spar:join 62")
        await deleted(h, elan)
        assert await webhook(h, TB_APP, "Vella", "~spar:join 62") == (
            "Vella joins the spar (CS 62), through Tupperbox."
        )
        assert h.bot.desk.personas.named(bout, "vella").user_id == h.members["Elan"].id  # type: ignore[union-attr]

    play(store, ["Judge", "Tarl", "Elan"], script)


def test_an_original_older_than_the_window_is_not_the_copys() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        h.bot.proxies.originals.wait = 0.0
        bout = await opened(h)
        first = await original(h, "Tarl", "k: ~spar:join 65")
        await deleted(h, first)
        made = discord.utils.snowflake_time(first) + timedelta(seconds=11)
        late = discord.utils.time_snowflake(made)
        assert await webhook(h, TB_APP, "Rask", "~spar:join 65", late) == (
            "error: I cannot tell who sent this through Tupperbox (I did not see the "
            "original); nothing changed"
        )
        assert h.bot.desk.personas.of(bout) == []

    play(store, ["Judge", "Tarl"], script)


def test_only_a_trusted_proxys_webhook_is_heard_and_the_bots_own_never(
    pluralkit: FakePluralKit,
) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        use(h, pluralkit)
        bout = await opened(h)
        before = store.events(bout)
        # A webhook of another application (a feed, a bridge), or of none: never a command.
        assert await webhook(h, 123456789012345678, "Kamchak", "~spar:join 70") == ""
        assert await webhook(h, None, "Kamchak", "~spar:join 70") == ""
        assert await webhook(h, PK_APP, "Kamchak", "*waves*") == ""  # role-play: left alone
        own = h.bot.user.id  # type: ignore[union-attr]
        assert await webhook(h, own, "referee", "~spar:join 70", hook=own) == ""
        assert pluralkit.asked == []
        assert store.events(bout) == before

    play(store, ["Judge", "Tarl"], script)


def test_a_persona_gives_only_its_own_commands() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        h.bot.proxies.originals.wait = 0.0
        bout = await opened(h)
        await through_tupperbox(h, "Judge", "Nexus", "~spar:join 50")
        before = store.events(bout)
        # The proctor's own persona may not begin the spar, nor speak for the referee.
        assert await through_tupperbox(h, "Judge", "Nexus", "~spar:begin") == (
            "error: a persona may join, act and quit through Tupperbox; give ~spar:begin as "
            "yourself"
        )
        assert await through_tupperbox(h, "Judge", "Nexus", "~proxy distrust tupperbox") == (
            "error: a persona may join, act and quit through Tupperbox; give ~proxy as yourself"
        )
        assert store.events(bout) == before

    play(store, ["Judge", "Tarl"], script)


def test_which_proxies_a_server_trusts_is_its_admins_choice() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        h.bot.proxies.originals.wait = 0.0
        both = f"Proxies trusted here: Tupperbox ({TB_APP}), PluralKit ({PK_APP})."
        assert await h.text("Tarl", "~proxy") == both
        assert await h.text("Tarl", "~proxy distrust tupperbox") == (
            "error: only members with Manage Server can choose the proxies"
        )
        role = dpytest.backend.make_role("admins", h.guild, permissions=0x20)  # Manage Server
        h.grant("Admin", role)
        assert await h.text("Admin", "~proxy distrust tupperbox") == (
            f"Proxies trusted here: PluralKit ({PK_APP})."
        )
        await opened(h)
        assert await through_tupperbox(h, "Tarl", "Rask", "~spar:join 65") == (
            "error: this server does not trust this proxy (~proxy); nothing changed"
        )
        other = 223456789012345678
        assert await h.text("Admin", f"~proxy trust tupperbox {other}") == (
            f"Proxies trusted here: Tupperbox ({other}), PluralKit ({PK_APP})."
        )
        assert await h.text("Admin", "~proxy distrust pluralkit") == (
            f"Proxies trusted here: Tupperbox ({other})."
        )
        assert await h.text("Admin", f"~proxy distrust {other}") == (
            "No proxy is trusted here: messages of proxy bots are ignored (~proxy trust)."
        )
        assert await h.text("Admin", "~proxy trust webhooks") == (
            "error: no proxy kind 'webhooks' (expected pluralkit or tupperbox)"
        )
        assert await h.text("Admin", "~proxy trust tupperbox 12") == (
            "error: '12' is not a Discord application id (17 to 20 digits)"
        )
        assert await h.text("Admin", "~proxy default") == both

    play(store, ["Judge", "Tarl", "Admin"], script)


#: The personas of the scenario: name -> (owner, proxy).
PERSONAS = {"Kamchak": ("Tarl", PLURALKIT), "Rask": ("Tarl", TUPPERBOX),
            "Vella": ("Elan", TUPPERBOX)}  # fmt: skip


def test_three_personas_of_two_members_fight_100_attacks_each_attributed_none_out_of_turn(
    pluralkit: FakePluralKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scenario of issue 45: three personas owned by two members fight 100 attacks; every
    action's event names its persona and its owner and proxy; before each attack, a persona
    out of turn and a persona through a member who does not hold it try, and are refused
    with nothing changed."""
    monkeypatch.chdir(tmp_path)
    store = Store.open("sqlite://")
    tally = {"attacks": 0, "refused": 0, "accepted out of turn": 0, "accepted for another": 0}

    async def speak(h: Harness, who: str, persona: str, text: str) -> str:
        if PERSONAS[persona][1] == PLURALKIT:
            return await through_pluralkit(h, pluralkit, who, persona, text)
        return await through_tupperbox(h, who, persona, text)

    async def script(h: Harness) -> None:
        use(h, pluralkit)
        bout = await opened(h)
        for name, (owner, _) in PERSONAS.items():
            assert (await speak(h, owner, name, "~spar:join 30")).startswith(f"{name} joins")
        await h.text("Judge", "~spar:begin")
        service = h.bot.desk.service
        while tally["attacks"] < 100:
            state = service.state(bout)
            if state.winner is not None or state.status.value != "running":
                break
            actor = state.current
            assert actor is not None
            owner = PERSONAS[actor][0]
            foes = [f.name for f in state.enemies_of(actor)]
            before = store.events(bout)
            for other in (n for n in PERSONAS if n != actor):  # out of turn, by its owner
                said = await speak(h, PERSONAS[other][0], other, f"~attack {actor}")
                changed = store.events(bout) != before
                tally["accepted out of turn"] += changed
                tally["refused"] += said.startswith("error: out of turn") and not changed
            thief = "Elan" if owner == "Tarl" else "Tarl"  # the member who does not hold it
            said = await speak(h, thief, actor, f"~attack {foes[0]}")
            tally["accepted for another"] += store.events(bout) != before
            refusal = f"error: {actor} is not yours to play; nothing changed"
            tally["refused"] += said == refusal and store.events(bout) == before
            answer = await speak(h, owner, actor, f"~attack {foes[0]}")
            assert f"\n{actor} attacks {foes[0]}" in answer, answer
            tally["attacks"] += 1
            for name in PERSONAS:  # keep all three up: the proctor heals between attacks
                if service.state(bout).fighter(name).wounds:
                    await h.text("Judge", f"~spar:update {name} wounds=0")
        attacks = [a for a in actions(store, bout) if a["payload"]["kind"] == "attack"]
        assert tally["attacks"] == 100 and len(attacks) == 100
        rightly = [
            a
            for a in attacks
            if a["payload"]["by"] == a["actor"]
            and a["payload"]["via"]
            == {
                "member": f"discord:{h.members[PERSONAS[a['actor']][0]].id}",
                "proxy": PERSONAS[a["actor"]][1],
            }
        ]
        assert len(rightly) == len(attacks)  # 100% attributed right
        closing = await h.say("Judge", "~spar:close bout")
        doc = json.loads(attachment_bytes(closing[-1]))
        assert verify_export(doc, replay=check_export).ok

    play(store, ["Judge", "Tarl", "Elan"], script)
    assert tally == {"attacks": 100, "refused": 300, "accepted out of turn": 0,
                     "accepted for another": 0}  # fmt: skip


def test_a_persona_that_quit_acts_no_more_and_may_join_again() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        h.bot.proxies.originals.wait = 0.0
        bout = await opened(h)
        await through_tupperbox(h, "Tarl", "Rask", "~spar:join 65")
        assert await h.text("Tarl", "~spar:join 40") == "Tarl_1_nick joins the spar (CS 40)."
        assert (await through_tupperbox(h, "Tarl", "Rask", "~quit")).startswith("Rask leaves")
        fighters = [f.name for f in h.bot.desk.service.state(bout).fighters]
        assert "Rask" not in fighters and "Tarl_1_nick" in fighters  # its owner's own stays
        assert await through_tupperbox(h, "Tarl", "Rask", "~spar:join 66") == (
            "Rask joins the spar (CS 66), through Tupperbox."
        )
        assert [(p.fighter, p.user_id) for p in h.bot.desk.personas.of(bout)] == [
            ("Rask", h.members["Tarl"].id)
        ]

    play(store, ["Judge", "Tarl"], script)


def test_a_pluralkit_api_that_is_no_web_address_stops_the_bot_before_it_connects(
    tmp_path: Path,
) -> None:
    from click.testing import CliRunner

    from referee.cli.main import cli

    shaped = "A" * 24 + "." + "B" * 6 + "." + "C" * 27  # the shape of a token, not a real one
    runner = CliRunner(env={"DISCORD_TOKEN": shaped})
    db = f"sqlite:///{tmp_path}/x.db"
    result = runner.invoke(cli, ["discord", "--db", db, "--pluralkit-api", "pluralkit.me"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: --pluralkit-api 'pluralkit.me' is not an http(s) address like "
        "https://api.pluralkit.me/v2\n"
    )
    assert not (tmp_path / "x.db").exists()


def test_a_tupperbox_copy_that_comes_before_the_deletion_waits_for_it() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        h.bot.proxies.originals.wait = 60.0  # a bound only: the deletion comes at once
        bout = await opened(h)
        first = await original(h, "Tarl", "k: ~spar:join 65")
        chan, copy = h.channels[0], next(_next_id)
        payload: dict[str, Any] = {
            "id": str(copy), "channel_id": str(chan.id), "guild_id": str(h.guild.id),
            "webhook_id": str(HOOKS[TB_APP]), "application_id": str(TB_APP),
            "author": {"id": str(HOOKS[TB_APP]), "username": "Rask", "discriminator": "0000",
                       "avatar": None, "bot": True},
            "content": "~spar:join 65", "timestamp": "2026-01-01T00:00:00+00:00",
            "edited_timestamp": None, "tts": False, "mention_everyone": False,
            "mentions": [], "mention_roles": [], "attachments": [], "embeds": [],
            "pinned": False, "type": 0,
        }  # fmt: skip
        h.bot._connection.parse_message_create(payload)  # type: ignore[arg-type]
        deletion = {"id": str(first), "channel_id": str(chan.id), "guild_id": str(h.guild.id)}
        h.bot._connection.parse_message_delete(deletion)  # type: ignore[arg-type]
        said = "\n".join(m.content for m in await collect() if m.content)
        assert said == "Rask joins the spar (CS 65), through Tupperbox."
        assert h.bot.desk.personas.named(bout, "Rask") is not None

    play(store, ["Judge", "Tarl"], script)
