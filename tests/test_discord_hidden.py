"""An MSV NPC with a hidden CS (as SRP-10 lets the referee hide SRP stats): the channel never
carries its CS, in text, embeds or button labels, until `~spar:reveal` or the close; the
proctor reads it by direct message."""

from __future__ import annotations

import re
from typing import Any

import discord

from referee.service.bouts import ANONYMOUS, RefereeService
from referee.store import Store
from tests.discord_harness import Harness, fighter_to_act
from tests.seeds import for_test
from tests.test_discord_spar import play

SECRET_TYPED = (
    "(Stats typed in a channel can be read there: for a secret NPC, save it with ~char set "
    "in a direct message to the bot, then ~spar:npc NAME hidden.)"
)
#: Any way the hidden CS could be written.
SECRET = re.compile(r"CS 73\b|cs 73\b|\"cs\": 73\b|'cs': 73\b")


def visible(message: discord.Message) -> str:
    """Everything a reader of the channel sees of a message: its text and embeds (dpytest
    keeps no components: the buttons are read from the slash answers below)."""
    return "\n".join([message.content, *(str(e.to_dict()) for e in message.embeds)])


def answered(answer: dict[str, Any]) -> str:
    """An interaction answer as a reader sees it: text, embeds and every button label."""
    labels = [b.get("label", "") for row in answer.get("components") or []
              for b in row.get("components") or []]  # fmt: skip
    return "\n".join([str(answer.get("content", "")), str(answer.get("embeds", "")), *labels])


def test_a_hidden_msv_cs_stays_out_of_the_channel_until_revealed() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        channel: list[str] = []
        proctor: list[str] = []

        async def say(who: str, text: str) -> str:
            sent = await h.say(who, text)
            for m in sent:
                (proctor if isinstance(m.channel, discord.DMChannel) else channel).append(
                    visible(m)
                )
            return "\n".join(
                visible(m) for m in sent if not isinstance(m.channel, discord.DMChannel)
            )

        async def direct() -> list[str]:
            import discord.ext.test as dpytest
            from discord.ext.test import runner

            out = []
            while not runner.sent_queue.empty():
                m = dpytest.get_message()
                (proctor if isinstance(m.channel, discord.DMChannel) else channel).append(
                    visible(m)
                )
                out.append(visible(m))
            return out

        await say("Judge", "~spar:open msv Ambush")
        await say("Tarl", "~spar:join 65")
        refused = await say("Tarl", "~spar:npc Orc cs=73 hidden")
        assert refused == "error: only the proctor (Judge_0_nick) can add fighters"
        added = await say("Judge", "~spar:npc Orc cs=73 on raiders hidden")
        assert added == (
            "Orc joins the spar (its CS hidden), added by the proctor.\n" + SECRET_TYPED
        )
        begun = await say("Judge", "~spar:begin")
        assert "  Orc: " in begun and " vs CS hidden, effect " in begun
        assert "  Tarl_1_nick: " in begun and " vs CS 65, effect " in begun
        assert any("  Orc: " in d and " vs CS 73, effect " in d for d in proctor)
        actor, orc_attacked = fighter_to_act(begun), False
        for _ in range(6):
            if actor == "Orc":  # the proctor presses the NPC's button
                pressed = answered(await h.press("Judge", "referee:attack:Tarl_1_nick"))
                channel.append(pressed)
                await direct()
                answer = pressed
                assert re.search(r"Orc attacks Tarl_1_nick: \d+ vs CS hidden: ", answer)
                assert re.search(r"Orc attacks Tarl_1_nick: \d+ vs CS 73: ", proctor[-1])
                orc_attacked = True
            else:
                slashed = answered(await h.slash("Tarl", "attack", group="spar"))
                channel.append(slashed)
                answer = slashed + "\n" + "\n".join(await direct())
                assert (
                    "Attack Orc" in slashed
                    or "Attack Tarl_1_nick" in slashed
                    or "Result" in slashed
                )
                assert re.search(r"Tarl_1_nick attacks Orc: \d+ vs CS 65: ", answer)
            actor = fighter_to_act(answer)
            if actor is None or orc_attacked:
                break
        assert orc_attacked or actor is None
        board = await say("Tarl", "~spar:scoreboard")
        assert board.startswith("Scoreboard of Ambush")
        # Nothing the channel saw so far carries the CS; the web's public view neither.
        assert [text for text in channel if SECRET.search(text)] == []
        assert any(SECRET.search(text) for text in proctor)  # the pattern does find it
        bout = next(b.id for b in store.list_bouts() if b.name == "Ambush")
        service = RefereeService(store, entropy=for_test("service"))
        orc = next(f for f in service.view(bout, ANONYMOUS)["fighters"] if f["name"] == "Orc")  # type: ignore[union-attr]
        assert "cs" not in orc["stats"]  # type: ignore[index, operator]
        assert not any(SECRET.search(str(e)) for e in service.visible_records(bout))
        assert await say("Tarl", "~spar:reveal Orc") == (
            "error: only the proctor (Judge_0_nick) can reveal hidden stats"
        )
        assert await say("Judge", "~spar:reveal Orc") == "The proctor reveals Orc's stats: cs 73."
        if actor is not None:
            after = await say("Judge", "~spar:attack Orc Tarl_1_nick") if actor == "Orc" else (
                await say("Tarl", "~roll 1d100")
            )  # fmt: skip
            assert " vs CS 73: " in after or " vs CS 65: " in after
            assert not after.count("CS hidden")

        # A saved character (typed to the bot, not in the channel) gets no warning.
        await say("Judge", "~char set Wolf cs=55")
        assert await say("Judge", "~spar:npc wolf on raiders hidden") == (
            "Wolf joins the spar (its CS hidden), added by the proctor."
        )

    play(store, ["Judge", "Tarl"], script)


def test_a_proctor_whose_direct_messages_are_closed_is_told_in_the_channel() -> None:
    """Discord refuses the bot's direct message: the channel says so (the CS stays hidden),
    and a slash command's asker reads it privately."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        h.close_dms("Judge")
        await h.text("Judge", "~char set Orc cs=73")
        await h.text("Judge", "~spar:open msv Closed")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Judge", "~spar:npc Orc on raiders hidden")
        sent = await h.say("Judge", "~spar:begin")
        assert not any(isinstance(m.channel, discord.DMChannel) for m in sent)
        said = "\n".join(m.content for m in sent)
        assert said.endswith(
            f"<@{h.members['Judge'].id}>, I could not send you a direct message (are direct "
            "messages from this server's members closed in your privacy settings?)."
        )
        assert not SECRET.search(said)
        actor = fighter_to_act(said)
        while actor == "Tarl_1_nick":  # until the Orc's turn, whose reading is the proctor's
            actor = fighter_to_act((await h.slash("Tarl", "attack", group="spar"))["content"])
        assert actor == "Orc"
        pressed = await h.press("Judge", "referee:attack:Tarl_1_nick")
        assert re.search(r"Orc attacks Tarl_1_nick: \d+ vs CS hidden: ", pressed["content"])
        assert [f["content"] for f in h.responses.followups] == [
            f"<@{h.members['Judge'].id}>, I could not send you a direct message (are direct "
            "messages from this server's members closed in your privacy settings?)."
        ]
        assert h.responses.followups[0]["flags"] == 64  # ephemeral

    play(store, ["Judge", "Tarl"], script)
