"""The slash forms of update, override, npc, target, act and reveal, `/odds` and `~odds`, and
the dice dialect per channel (`~dialect`, `/dialect`): interaction payloads through the real
command tree, message commands through dpytest."""

from __future__ import annotations

import re

from referee.dice import dialect, odds, parse
from referee.discord.odds import odds_message
from referee.store import Store
from tests.discord_harness import Harness, fighter_to_act
from tests.test_discord_spar import play

EPHEMERAL = 64
SECRET_TYPED = (
    "(Stats typed in a channel can be read there: for a secret NPC, save it with ~char set "
    "in a direct message to the bot, then ~spar:npc NAME hidden.)"
)


def text(name: str, value: str) -> dict[str, object]:
    return {"name": name, "type": 3, "value": value}


def test_odds_and_the_dialect_of_a_channel() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        two = await h.slash("Tarl", "odds", text("expression", "2d6"))
        assert two["content"] == "\n".join(odds_message(odds(parse("2d6")), "roll20"))
        assert two["content"].startswith(
            "Odds of 2d6 (roll20, exact): mean 7, sd 2.415, totals 2..12\n```\n"
            "total    P(=)    P(>=)\n2       2.78%  100.00%\n"
        )
        assert "\n7      16.67%   58.33%\n" in two["content"]
        long = await h.text("Tarl", "~odds 1d6!")
        assert "a chain reaches it with P = 4.6e-17." in long
        assert long.endswith("16 of 106 totals shown; referee roll EXPR --odds prints all.")
        assert len(long) <= 2000
        assert (await h.text("Tarl", "~odds 2d")).startswith("error: ")
        assert (
            await h.text("Tarl", "~odds")
            == "error: say what to work out: ~odds 2d6 or ~odds 4d6kh3"
        )
        assert store.list_bouts() == []  # odds roll nothing and record nothing
        # roll20 reads 4d6k3 as "keep the highest 3"; d20 as "keep the dice showing 3".
        assert "mean 12.245," in await h.text("Tarl", "~odds 4d6k3")
        shown = await h.slash("Tarl", "dialect")
        assert shown["content"] == (
            "Dice here are read as roll20 (~dialect d20|onlinehost|roll20 changes it)."
        )
        refused = await h.slash("Tarl", "dialect", text("name", "d20"))
        assert refused["content"] == (
            "error: only the proctor of this channel's spar or a member with Manage Server "
            "can set the dialect"
        )
        assert refused["flags"] == EPHEMERAL
        await h.text("Judge", "~spar:open msv First")
        assert await h.text("Tarl", "~dialect d20") == refused["content"]
        assert await h.text("Judge", "~dialect klingon") == (
            "error: " + str(_error(lambda: dialect("klingon")))
        )
        assert await h.text("Judge", "~dialect D20") == (
            "Dice here are now read as d20: ~roll, ~odds and spars opened here.\n"
            "The spar open now keeps its own dialect (roll20)."
        )
        assert "mean 2, " in await h.text("Tarl", "~odds 4d6k3")  # 4 dice x 1/6 x 3
        rolled = await h.text("Tarl", "~roll 4d6k3")
        assert re.fullmatch(r"Tarl_1_nick rolls .+ = \d+ \(nonce [0-9, ]+\)", rolled)
        kept = re.fullmatch(r"Tarl_1_nick rolls .+ = (\d+) \(nonce [0-9, ]+\)", rolled)
        assert kept is not None and int(kept.group(1)) in (0, 3, 6, 9, 12)  # only 3s are kept
        await h.text("Judge", "~spar:close bout")
        opened = await h.text("Judge", "~spar:open msv Second")
        assert "\nIts dice are read as d20." in opened
        second = next(b.id for b in store.list_bouts() if b.name == "Second")
        assert h.bot.desk.service.state(second).dialect == "d20"
        first = next(b.id for b in store.list_bouts() if b.name == "First")
        assert h.bot.desk.service.state(first).dialect == "roll20"
        assert (await h.text("Tarl", "~help odds")).startswith("~odds EXPR: the exact odds")
        assert (await h.text("Tarl", "~help dialect")).startswith("~dialect: how dice are read")
        # Another channel keeps the default.
        other = await h.text("Tarl", "~odds 4d6k3", channel=1)
        assert "(roll20, exact): mean 12.245," in other

    play(store, ["Judge", "Tarl"], script, channels=2)


def _error(work: object) -> Exception:
    try:
        work()  # type: ignore[operator]
    except Exception as err:
        return err
    raise AssertionError("no error")


def test_slash_npc_target_update_override_and_reveal_in_msv() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Slashed")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Rask", "~spar:join 60")
        refused = await h.slash("Tarl", "npc", text("character", "Orc cs=73"), group="spar")
        assert refused["content"] == "error: only the proctor (Judge_0_nick) can add fighters"
        assert refused["flags"] == EPHEMERAL
        added = await h.slash(
            "Judge", "npc", text("character", "Orc cs=73"), text("side", "raiders"),
            {"name": "hidden", "type": 5, "value": True}, group="spar",
        )  # fmt: skip
        assert added["content"] == (
            "Orc joins the spar (its CS hidden), added by the proctor.\n" + SECRET_TYPED
        )
        begun = await h.slash("Judge", "begin", group="spar")
        assert "CS 73" not in begun["content"] and "Orc: " in begun["content"]
        option, resolved = h.member_option("member", "Rask")
        aimed = await h.slash("Tarl", "target", option, group="spar", resolved=resolved)
        assert aimed["content"] == "Tarl_1_nick's rolls now attack Rask_2_nick."
        outsider = await h.slash("Judge", "target", option, group="spar", resolved=resolved)
        assert outsider["content"] == "error: you are not fighting in this spar (~spar:join first)"
        change = [text("fighter", "rask_2_NICK"), text("changes", "wounds=3")]
        no = await h.slash("Tarl", "update", *change, group="spar")
        assert no["content"] == "error: only the proctor (Judge_0_nick) can update fighters"
        updated = await h.slash("Judge", "update", *change, group="spar")
        assert updated["content"].startswith("Rask_2_nick is updated: ")
        assert "  Rask_2_nick: 3 of 15" in updated["content"]
        early = await h.slash("Judge", "override", text("wounds", "Rask_2_nick=0"), group="spar")
        assert early["content"] == "error: there is no outcome to override yet"
        actor = fighter_to_act(begun["content"])
        names = {"Tarl_1_nick": "Tarl", "Rask_2_nick": "Rask"}
        if actor == "Orc":
            struck = await h.text("Judge", "~spar:attack Orc Tarl_1_nick")
            hurt = "Tarl_1_nick"
        else:
            assert actor is not None
            foe = "Orc"
            struck = (
                await h.slash(names[actor], "attack", group="spar")
                if actor == "Tarl_1_nick"  # Tarl's target is Rask now
                else await h.interact(names[actor], 3, {"custom_id": f"referee:attack:{foe}",
                                                         "component_type": 2})
            )["content"]  # fmt: skip
            hurt = "Rask_2_nick" if actor == "Tarl_1_nick" else foe
        assert f"attacks {hurt}: " in struck
        bout = next(b.id for b in store.list_bouts() if b.name == "Slashed")
        last = h.bot.desk.service.state(bout).last_outcome
        overridden = await h.slash("Judge", "override", text("wounds", f"{hurt}=0"), group="spar")
        first = overridden["content"].splitlines()[0]
        was = f"(no wounds|{re.escape(hurt)} \\d+)"  # the attack may have missed: the dice decide
        assert re.fullmatch(
            rf"Event {last} is overridden: wounds {was} → {re.escape(hurt)} 0", first
        )
        bad = await h.slash("Judge", "override", text("wounds", "Nobody=0"), group="spar")
        assert bad["content"].startswith("error: ")
        assert (await h.slash("Tarl", "reveal", text("fighter", "orc"), group="spar"))[
            "content"
        ] == "error: only the proctor (Judge_0_nick) can reveal hidden stats"
        shown = await h.slash("Judge", "reveal", text("fighter", "orc"), group="spar")
        assert shown["content"] == "The proctor reveals Orc's stats: cs 73."

    play(store, ["Judge", "Tarl", "Rask"], script)


def test_slash_act_sends_what_the_typed_form_sends() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Ann", "~char set Ann weapon=mace skill=15 defense=12 hits=12")
        await h.text("Bran", "~char set Bran weapon=mace skill=13 defense=11 hits=10")
        await h.text("Judge", "~spar:open srp Acts")
        await h.text("Ann", "~spar:join")
        await h.text("Bran", "~spar:join")
        actor = fighter_to_act(await h.text("Judge", "~spar:begin"))
        assert actor in ("Ann", "Bran")
        other = "Bran" if actor == "Ann" else "Ann"
        bout = next(b.id for b in store.list_bouts() if b.name == "Acts")
        count = len(store.events(bout))
        wrong = await h.slash(other, "act", text("kind", "pass"), group="spar")
        assert wrong["content"] == f"error: out of turn: it is {actor}'s turn, not {other}'s"
        assert wrong["flags"] == EPHEMERAL
        option, resolved = h.member_option("target", other)
        bad = await h.slash(
            actor, "act", text("kind", "attack"), option, text("options", "weapon=lance"),
            group="spar", resolved=resolved,
        )  # fmt: skip
        assert bad["content"].startswith("error: ") and "lance" in bad["content"]
        assert len(store.events(bout)) == count  # refusals store nothing
        passed = await h.slash(actor, "act", text("kind", "PASS"), group="spar")
        assert fighter_to_act(passed["content"]) == other
        typed = await h.text(other, "~spar:act pass")
        assert fighter_to_act(typed) == actor
        kinds = [(e["actor"], e["payload"]) for e in store.events(bout) if e["type"] == "action"]
        assert kinds[-2:] == [
            (actor, {"by": actor, "kind": "pass", "options": {}}),
            (other, {"by": other, "kind": "pass", "options": {}}),
        ]

    play(store, ["Judge", "Ann", "Bran"], script)


def test_a_roll_in_an_onlinehost_channel_is_echoed_in_onlinehost_notation() -> None:
    """OnlineHost reads `!>4` as "explode above 4"; the echo said `4d6!>5`, roll20's spelling
    of it, which OnlineHost reads as "explode above 5". The desk echoes the roll in the
    channel's dialect (`render(result, dialect)`)."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Hosted")  # the proctor may set the dialect
        assert await h.text("Judge", "~dialect onlinehost") == (
            "Dice here are now read as onlinehost: ~roll, ~odds and spars opened here.\n"
            "The spar open now keeps its own dialect (roll20)."
        )
        rolled = await h.text("Tarl", "~roll 4d6!>4")
        echo = r"Tarl_1_nick rolls 4d6!(>4|>=5) = \[[^]]*\] = \d+ \(nonce [0-9, ]+\)"
        assert re.fullmatch(echo, rolled), rolled  # not `4d6!>5`

    play(store, ["Judge", "Tarl"], script)


def test_slash_attack_and_act_reach_an_npc_by_name() -> None:
    """An NPC is no member: `/spar attack foe:NAME` (and `/spar act ... foe:NAME`) name it, as
    the typed form does; a member and a name at once is refused, and so is a name nobody has."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Raiders")
        await h.text("Tarl", "~spar:join 65")
        for npc in ("Orc cs=40", "Troll cs=45"):
            await h.slash("Judge", "npc", text("character", npc), text("side", "raiders"),
                          group="spar")  # fmt: skip
        actor = fighter_to_act((await h.slash("Judge", "begin", group="spar"))["content"])
        for _ in range(3):  # the NPCs' turns pass until Tarl's comes
            if actor == "Tarl_1_nick":
                break
            actor = fighter_to_act(await h.text("Judge", "~spar:skip"))
        assert actor == "Tarl_1_nick"
        bout = next(b.id for b in store.list_bouts() if b.name == "Raiders")
        count = len(store.events(bout))
        option, resolved = h.member_option("target", "Judge")
        both = await h.slash("Tarl", "attack", option, text("foe", "troll"), group="spar",
                             resolved=resolved)  # fmt: skip
        assert both["content"] == "error: name the foe once: a member or a name, not both"
        nobody = await h.slash("Tarl", "attack", text("foe", "Ogre"), group="spar")
        assert nobody["content"].startswith("error: no fighter called 'Ogre'")
        assert len(store.events(bout)) == count  # refusals store nothing
        struck = await h.slash("Tarl", "attack", text("foe", "troll"), group="spar")
        assert "Tarl_1_nick attacks Troll" in struck["content"], struck["content"]
        actions = [e["payload"] for e in store.events(bout) if e["type"] == "action"]
        assert actions[-1]["options"] == {"target": "Troll"}

    play(store, ["Judge", "Tarl"], script)
