"""The Discord bot offline (dpytest): rolls, the table ledger, a whole MSV spar, refusals."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.discord.desk import REF
from referee.discord.replies import Place
from referee.store import Store
from tests.discord_harness import Harness, attachment_bytes, fighter_to_act, play
from tests.seeds import for_test
from tests.service_fixtures import serving

#: A bout's host line in a channel, signed (tests/test_discord_signed.py checks the signature).
HOST = re.compile(
    r"^OnlineHost: (\S+) rolled 1 100-sided die: ([0-9]+) \(nonce ([0-9]+)(?:, free:\S+)?\)"
    r" sig:\S+$",
    re.M,
)


def verify_file(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["verify", str(path)])
    return result.exit_code, result.stdout + result.stderr


def head_line(export: dict[str, Any]) -> str:
    """The close's line, as issue #43 words it, from the export's last event."""
    last = export["events"][-1]
    assert last["type"] == "closed" and re.fullmatch("[0-9a-f]{64}", last["hash"])
    return (
        f"Head hash: {last['hash']} (event {last['seq']}). Keep it: referee verify "
        f"--expect-hash {last['hash']} checks any export of this ledger against it."
    )


def revealed_seed(export: dict[str, Any]) -> str:
    """The server seed the close revealed (its `closed` event says it)."""
    seed: str = export["events"][-1]["payload"]["server_seed"]
    return seed


def test_rolls_go_to_the_table_ledger_and_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = Store.open(f"sqlite:///{tmp_path / 'bot.db'}")

    async def script(h: Harness) -> None:
        answer = await h.text("Tarl", "~roll 2d20+1d6")
        assert re.fullmatch(
            r"Tarl_0_nick rolls 2d20\+1d6 = \[\d+, \d+\] \+ \[\d+\] = \d+ \(nonce 0, 1\)", answer
        )
        chat, scored = (await h.text("Tarl", "~r //roll -sides100 -dice1")).split("\n")
        host = HOST.fullmatch(chat)
        assert host is not None and host.group(3) == "2"
        assert scored == f"Rhy'Din score: {max(0, (int(host.group(2)) - 10) // 5)}"
        fair = await h.text("Tarl", "~fair")
        table = next(b for b in store.list_bouts() if b.name.startswith("table ledger"))
        assert f"commitment {table.commitment}" in fair and "3 roll(s) so far" in fair
        messages = await h.say("Tarl", "~fair reveal")
        assert f"(commitment {table.commitment})" in messages[0].content
        (tmp_path / "table.json").write_bytes(attachment_bytes(messages[-1]))
        again = await h.text("Tarl", "~fair")
        assert table.commitment not in again and "0 roll(s) so far" in again

    play(store, ["Tarl"], script)
    code, out = verify_file(tmp_path / "table.json")
    assert code == 0, out
    doc = json.loads((tmp_path / "table.json").read_text("utf-8"))
    rolls = [e["payload"]["faces"] for e in doc["events"] if e["type"] == "roll"]
    assert [len(f) for f in rolls] == [2, 1, 1]


def test_bad_rolls_are_one_line_and_record_nothing(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert (await h.text("Tarl", "~roll 2d")).startswith("error: ")
        assert (await h.text("Tarl", "~roll //roll -sides1000")).startswith("error: ")
        assert await h.say("Tarl", "~sighs and looks away") == []  # not a command: silence

    play(store, ["Tarl"], script)
    assert all(store.events(b.id) == store.events(b.id)[:1] for b in store.list_bouts())


def run_spar(h: Harness, tmp_path: Path) -> Callable[[], Awaitable[None]]:
    async def spar() -> None:
        opened = await h.text("Judge", "~spar:open msv Friday duel")
        assert opened.startswith("Spar 'Friday duel' (MSV) is open; the proctor is Judge_0_nick.")
        assert await h.text("Tarl", "~spar:join 65") == "Tarl_1_nick joins the spar (CS 65)."
        assert await h.text("Pa-Kur", "~spar:join 70") == "Pa-Kur_2_nick joins the spar (CS 70)."
        begun = await h.text("Judge", "~spar:begin")
        assert begun.startswith("OnlineHost: ")
        # each initiative roll with its receipt (each from its fighter's stream), then the order
        assert len(HOST.findall(begun + "\n")) >= 2
        assert "\nInitiative: " in begun
        actor = fighter_to_act(begun)
        members = {"Tarl_1_nick": "Tarl", "Pa-Kur_2_nick": "Pa-Kur"}
        turns = 0
        while actor is not None:
            me = members[actor]
            foe = "Pa-Kur" if me == "Tarl" else "Tarl"
            command = "~roll 1d100" if turns % 2 else f"~spar:attack {h.mention(foe)}"
            answer = await h.text(me, command)
            host = HOST.search(answer)
            assert host is not None and host.group(1) == actor, answer
            assert f"\n{actor} attacks " in answer
            if "Critical!" in answer:
                assert f"Critical! {actor} makes a free attack at once." in answer
            turns += 1
            if "Result: " in answer:
                break
            actor = fighter_to_act(answer)
        board = await h.text("Tarl", "~spar:scoreboard")
        assert "defeated" in board
        closing = await h.say("Judge", "~spar:close bout")
        assert "The spar is closed. Server seed: " in closing[0].content
        (tmp_path / "spar.json").write_bytes(attachment_bytes(closing[-1]))
        assert (await h.text("Tarl", "~spar:scoreboard")).startswith("error: no spar is open")

    return spar


def test_a_whole_msv_spar_verifies(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = Store.open(db_url)

    async def script(h: Harness) -> None:
        await run_spar(h, tmp_path)()

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)
    code, out = verify_file(tmp_path / "spar.json")
    assert code == 0, out
    spar = next(b for b in store.list_bouts() if b.name == "Friday duel")
    assert spar.status == "closed" and spar.system == "msv"
    doc = json.loads((tmp_path / "spar.json").read_text("utf-8"))
    assert doc["bout"]["id"] == spar.id
    assert doc["events"][-1]["type"] == "closed"


def test_refusals_name_the_reason_and_change_nothing(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~spar:join 65") == (
            "error: no spar is open in this channel (open one: ~spar:open msv NAME)"
        )
        await h.text("Judge", "~spar:open msv Duel")
        bout = next(b.id for b in store.list_bouts() if b.name == "Duel")
        assert await h.text("Tarl", "~spar:open msv Other") == (
            "error: a spar is already open in this channel (~spar:end ends it)"
        )
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        assert await h.text("Tarl", "~spar:join 60") == (
            "error: you already fight in this spar as Tarl_1_nick"
        )
        count = len(store.events(bout))
        for verb in ("begin", "pause", "close", "skip", "void", "cancel", "end"):
            what = {"begin": "begin the spar", "close": "close the spar"}.get(verb, verb)
            assert await h.text("Tarl", f"~spar:{verb}") == (
                f"error: only the proctor (Judge_0_nick) can {what}"
            )
        assert await h.text("Tarl", f"~spar:add {h.mention('Rask')} 60") == (
            "error: only the proctor (Judge_0_nick) can add fighters"
        )
        assert len(store.events(bout)) == count
        begun = await h.text("Judge", "~spar:begin")
        actor = fighter_to_act(begun)
        idle = "Pa-Kur" if actor == "Tarl_1_nick" else "Tarl"
        count = len(store.events(bout))
        tables = [b.id for b in store.list_bouts() if b.name.startswith("table")]
        refused = f"error: not your turn: {actor} acts now"
        idle_fighter = "Pa-Kur_2_nick" if idle == "Pa-Kur" else "Tarl_1_nick"
        assert await h.text(idle, "~spar:attack") == (  # the engine's refusal, as in chat
            f"error: out of turn: it is {actor}'s turn, not {idle_fighter}'s"
        )
        assert await h.text(idle, "~roll 1d100") == refused + " (nothing was rolled)"
        assert await h.text(idle, "~r //roll -sides100 -dice1") == refused + " (nothing was rolled)"
        assert await h.text("Rask", "~spar:attack") == (
            "error: you are not fighting in this spar (~spar:join first)"
        )
        assert await h.text("Rask", "~spar:quit") == (
            "error: you are not fighting in this spar (~spar:join first)"
        )
        assert len(store.events(bout)) == count
        assert [b.id for b in store.list_bouts() if b.name.startswith("table")] == tables

    play(store, ["Judge", "Tarl", "Pa-Kur", "Rask"], script)


def test_proctor_powers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Powers")
        await h.text("Tarl", "~spar:join 65")
        added = await h.text("Judge", f"~spar:add {h.mention('Rask')} 60 raiders")
        assert added == "Rask_2_nick joins the spar (CS 60), added by the proctor."
        assert await h.text("Judge", "~spar:add Bandit 40") == (
            "Bandit joins the spar (CS 40), added by the proctor."
        )
        removed = await h.text("Judge", "~spar:remove bandit")
        assert removed.startswith("Bandit leaves the spar")
        await h.text("Judge", "~spar:begin")
        paused = await h.text("Judge", "~spar:pause")
        assert paused.startswith("The spar is paused")
        assert (await h.text("Judge", "~spar:resume")).startswith("The spar is resumed")
        skipped = await h.text("Judge", "~spar:skip")
        assert "'s turn passes: skipped by the referee" in skipped
        updated = await h.text("Judge", f"~spar:update {h.mention('Tarl')} wounds=3")
        assert "Tarl_1_nick: 3 of 15" in updated
        overridden = await h.text("Judge", "~spar:override Tarl_1_nick=0")
        assert "error" in overridden or "is overridden" in overridden
        handed = await h.text("Judge", f"~spar:assign {h.mention('Tarl')}")
        assert handed == "Tarl_1_nick is the proctor now."
        assert await h.text("Judge", "~spar:pause") == (
            "error: only the proctor (Tarl_1_nick) can pause"
        )
        bout = bout_id(store, "Powers")
        count = len(store.events(bout))
        assert (
            await h.text("Judge", "~spar:end raiders")
            == "error: only the proctor (Tarl_1_nick) can end"
        )
        asked = await h.text("Tarl", "~spar:end raiders")
        assert asked == "End the spar (raiders wins)? The proctor's press on the button ends it."
        assert len(store.events(bout)) == count  # nothing ends before the press
        refused = await h.press("Judge", "referee:end:raiders")
        assert refused["content"] == "error: only the proctor (Tarl_1_nick) can end"
        assert refused["flags"] == 64 and len(store.events(bout)) == count
        ended = (await h.press("Tarl", "referee:end:raiders"))["content"]
        assert "Spar ended: side raiders wins (ended by the referee)" in ended
        assert "The spar is closed. Server seed: " in ended  # the press also closes it
        assert store.get_bout(bout).status == "closed"

    play(store, ["Judge", "Tarl", "Rask"], script)


def test_two_channels_never_mix(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv North", channel=0)
        await h.text("Judge", "~spar:open msv South", channel=1)
        await h.text("Tarl", "~spar:join 65", channel=0)
        await h.text("Pa-Kur", "~spar:join 70", channel=0)
        await h.text("Rask", "~spar:join 50", channel=1)
        assert await h.text("Tarl", "~spar:attack", channel=1) == (
            "error: you are not fighting in this spar (~spar:join first)"
        )
        north = await h.text("Tarl", "~spar:scoreboard", channel=0)
        south = await h.text("Tarl", "~spar:scoreboard", channel=1)
        assert "Tarl_1_nick" in north and "Rask" not in north
        assert "Rask_3_nick" in south and "Tarl" not in south
        await h.text("Tarl", "~roll 1d6", channel=0)
        first = await h.text("Tarl", "~fair", channel=0)
        second = await h.text("Tarl", "~fair", channel=1)
        assert "1 roll(s) so far" in first and "0 roll(s) so far" in second
        assert first.split("commitment ")[1][:64] != second.split("commitment ")[1][:64]

    play(store, ["Judge", "Tarl", "Pa-Kur", "Rask"], script, channels=2)
    names = sorted(b.name for b in store.list_bouts() if not b.name.startswith("table"))
    assert names == ["North", "South"]


def test_help_and_characters(tmp_path: Path) -> None:
    import discord

    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert (await h.text("Tarl", "~help")).startswith("referee: verifiable dice")
        assert (await h.text("Tarl", "~help r")).startswith("~roll EXPR (alias ~r)")
        # In a server's channel no stats are shown: they may be a hidden NPC's.
        assert await h.text("Tarl", "~char set Tarl Cabot cs=65") == "Saved: Tarl Cabot (MSV)."
        saved = await h.text("Tarl", "~char set Bran skill=13 defense=11 hits=10 weapon=mace")
        assert saved == "Saved: Bran (SRP)."
        assert await h.text("Tarl", "~char list") == (
            "Your characters: Bran (SRP), Tarl Cabot (MSV) (~char show NAME sends the stats by "
            "direct message)."
        )
        assert await h.text("Pa-Kur", "~char list") == (
            "You have no characters yet: ~char set NAME cs=65"
        )
        shown = await h.say("Tarl", "~char show tarl cabot")
        assert [(isinstance(m.channel, discord.DMChannel), m.content) for m in shown] == [
            (False, "Sent you Tarl Cabot's stats by direct message."),
            (True, "Tarl Cabot (MSV): CS 65"),
        ]
        dm = await h.slash("Tarl", "char", {"name": "words", "type": 3, "value": "show Bran"})
        assert dm["content"] == "Sent you Bran's stats by direct message."
        from discord.ext.test import runner

        sent = runner.sent_queue.get_nowait()
        assert isinstance(sent.channel, discord.DMChannel)
        assert sent.content.startswith("Bran (SRP): hits 10, defense 11")
        assert (await h.text("Tarl", "~char set X cs=abc")).startswith("error: ")
        await h.text("Judge", "~spar:open msv Named")
        joined = await h.text("Tarl", "~spar:join Tarl Cabot")
        assert joined == "Tarl Cabot joins the spar (CS 65)."
        assert await h.text("Tarl", "~char delete Bran") == "Deleted Bran."
        assert await h.text("Tarl", "~char show Bran") == (
            "error: you have no character called 'Bran' (~char list)"
        )

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_a_character_is_refused_when_saved_by_its_rule_systems_own_check() -> None:  # MSV-2
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~char set X cs=500") == (
            "error: CS must be 0..100 (MSV-2: CS 100 always succeeds), got 500"
        )
        assert await h.text("Tarl", "~char set X cs=-1") == (
            "error: CS must be a whole number >= 0 (MSV-2), got -1"
        )
        assert await h.text("Tarl", "~char set Bran skill=500 hits=10 weapon=mace") == (
            "error: character.skill = 500 is not a whole number 0..100"
        )
        assert await h.text("Tarl", "~char list") == (
            "You have no characters yet: ~char set NAME cs=65"
        )  # nothing was saved
        assert await h.text("Tarl", "~char set X cs=100") == "Saved: X (MSV)."
        await h.text("Judge", "~spar:open msv Bounded")
        assert await h.text("Tarl", "~spar:join X") == "X joins the spar (CS 100)."

    play(store, ["Judge", "Tarl"], script)


def test_an_srp_exchange_with_a_shield_and_an_override(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Ann", "~char set Ann weapon=spear skill=15 defense=12 hits=12 armor=leather")
        saved = await h.text(
            "Bran", "~char set Bran weapon=mace skill=13 defense=11 hits=10 defend=shield "
            "shield=medium"
        )  # fmt: skip
        assert saved == "Saved: Bran (SRP)."
        opened = await h.text("Judge", "~spar:open srp Yard fight")
        assert opened.startswith("Spar 'Yard fight' (SRP) is open")
        assert await h.text("Ann", "~spar:join") == "Ann joins the spar (sheet saved with ~char)."
        assert await h.text("Bran", "~spar:join bran") == (
            "Bran joins the spar (sheet saved with ~char)."
        )
        begun = await h.text("Judge", "~spar:begin")
        assert begun.endswith("Initiative: Ann > Bran\nNext: Ann's turn (round 1)")  # listed
        assert await h.text("Bran", f"~spar:attack {h.mention('Ann')}") == (
            "error: out of turn: it is Ann's turn, not Bran's"
        )
        struck = await h.text("Ann", f"~spar:attack {h.mention('Bran')}")
        assert re.search(r"^Ann rolls d20 d20 d6: \d+ \d+ \d+ \(nonce 0\) sig:\S+$", struck, re.M)
        assert "\n  defense (shield): d20 rolled " in struck
        assert struck.endswith("Next: Bran's turn (round 1)")
        overridden = await h.text("Judge", "~spar:override Bran=0")
        seq = next(e["seq"] for e in store.events(bout_id(store, "Yard fight"))[::-1]
                   if e["type"] == "outcome")  # fmt: skip
        assert overridden.startswith(f"Event {seq} is overridden: wounds ")
        assert overridden.splitlines()[0].endswith("→ Bran 0")
        assert "  Bran: 0 of 10" in overridden
        passed = await h.text("Bran", "~spar:act pass")
        assert passed.endswith("Next: Ann's turn (round 2)")

    play(store, ["Judge", "Ann", "Bran"], script)


def bout_id(store: Store, name: str) -> str:
    return next(b.id for b in store.list_bouts() if b.name == name)


def test_a_spar_opened_in_discord_is_watched_in_the_web_console(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'shared.db'}")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Watched")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        await h.text("Judge", "~spar:begin")

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)
    # The console's service, on 127.0.0.1 over the same database file, with its own store.
    with serving(f"sqlite:///{tmp_path / 'shared.db'}", for_test("web")) as web:
        listed = web.get("/api/bouts").json()
        bout = bout_id(web.store, "Watched")
        assert bout in json.dumps(listed)
        view = web.get(f"/api/bouts/{bout}").json()
        assert [f["name"] for f in view["fighters"]] == ["Tarl_1_nick", "Pa-Kur_2_nick"]
        assert view["status"] == "running"


def test_a_fresh_link_by_direct_message_and_the_old_one_stops(tmp_path: Path) -> None:
    import discord

    from referee.errors import AuthError
    from referee.service.bouts import RefereeService

    store = Store.open("sqlite://")
    service = RefereeService(store, entropy=for_test("service"))
    tokens: list[str] = []

    async def script(h: Harness) -> None:
        h.bot.desk.public_url = "https://referee.example.org"
        await h.text("Judge", "~spar:open msv Linked")
        await h.text("Tarl", "~spar:join 65")
        bout = bout_id(store, "Linked")
        for _ in range(2):
            sent = await h.say("Tarl", "~spar:link")
            public = [m for m in sent if not isinstance(m.channel, discord.DMChannel)]
            direct = [m for m in sent if isinstance(m.channel, discord.DMChannel)]
            assert [m.content for m in public] == [
                "Sent you a fresh link by direct message; the old one stops working."
            ]
            prefix = f"Your fighter page for Linked: https://referee.example.org/static/fighter.html#bout={bout}&token="
            assert len(direct) == 2 and direct[0].content == (
                "Your fresh fighter link for Linked follows; the old one stops working now."
            )
            assert direct[1].content.startswith(prefix)
            tokens.append(direct[1].content[len(prefix) :])
        assert service.caller(bout, tokens[1]).fighter == "Tarl_1_nick"
        with pytest.raises(AuthError):
            service.caller(bout, tokens[0])
        judge = await h.say("Judge", "~spar:link")
        page = [m.content for m in judge if isinstance(m.channel, discord.DMChannel)][-1]
        assert "Your referee page for Linked: " in page
        assert await h.text("Rask", "~spar:link") == (
            "error: only the proctor and the fighters of this spar have links"
        )
        # Tarl closes his direct messages: the channel says so and his link keeps working.
        h.close_dms("Tarl")
        before = store.events(bout)
        assert await h.text("Tarl", "~spar:link") == (
            "error: I could not send you a direct message (are direct messages from this "
            "server's members closed in your privacy settings?); nothing changed, your old link "
            "still works"
        )
        assert store.events(bout) == before
        assert service.caller(bout, tokens[1]).fighter == "Tarl_1_nick"
        # The bot found each member through Discord (fetch_user), not a member cache.
        assert set(h.fetched) == {h.members["Tarl"].id, h.members["Judge"].id}

    play(store, ["Judge", "Tarl", "Rask"], script)


def test_manage_server_may_use_proctor_powers_and_set_the_prefix(tmp_path: Path) -> None:
    import discord.ext.test as dpytest

    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~prefix !") == (
            "error: only members with Manage Server can set the prefix"
        )
        role = dpytest.backend.make_role("admins", h.guild, permissions=0x20)  # Manage Server
        h.grant("Admin", role)
        await h.text("Judge", "~spar:open msv Guarded")
        assert (await h.text("Admin", "~spar:pause")).startswith("error: ")  # not running yet
        assert (await h.text("Admin", "~spar:cancel bout")).startswith(
            "Spar cancelled (cancelled by the referee)"
        )
        assert await h.text("Admin", "~prefix !") == "The prefix here is now ! (e.g. !help)."
        assert (await h.text("Tarl", "!help")).startswith("referee: verifiable dice")
        assert await h.say("Tarl", "~help") == []

    play(store, ["Judge", "Tarl", "Admin"], script)


def test_hidden_srp_stats_reach_the_proctor_only_by_direct_message(tmp_path: Path) -> None:
    import discord

    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~char set Orc weapon=mace skill=13 defense=11 hits=10 armor=leather")
        await h.text("Ann", "~char set Ann weapon=spear skill=15 defense=12 hits=12")
        await h.text("Judge", "~spar:open srp Ambush")
        await h.text("Ann", "~spar:join Ann")
        assert await h.text("Ann", "~spar:npc Orc hidden") == (
            "error: only the proctor (Judge_0_nick) can add fighters"
        )
        assert await h.text("Judge", "~spar:npc Orc on raiders hidden") == (
            "Orc joins the spar (its skills, defense and armor hidden), added by the proctor."
        )
        await h.text("Judge", "~spar:begin")
        sent = await h.say("Ann", "~spar:attack orc")
        public = "\n".join(m.content for m in sent if not isinstance(m.channel, discord.DMChannel))
        direct = [m for m in sent if isinstance(m.channel, discord.DMChannel)]
        assert public.startswith("Ann rolls d20 d20 d6: ")
        assert "Ann attacks Orc with the spear: " in public
        assert "defense" not in public and " vs 11" not in public and "AP " not in public
        assert len(direct) == 1
        assert direct[0].content.startswith("Ambush, for the proctor:\n  attack: d20 rolled ")
        assert "\n  defense (weapon): d20 rolled " in direct[0].content
        # The desk addresses that message to the proctor, by Discord id.
        from referee.discord.messages import person, place

        judge = person(h.members["Judge"])
        here = place(h.channels[0], h.guild)
        reply = h.bot.desk.attack(here, judge, "Ann", "Orc")  # the proctor acts for the NPC
        assert "Orc attacks Ann with the mace: " in reply.text and "defense" not in reply.text
        assert [user for user, _ in reply.direct] == [h.members["Judge"].id]
        # The mace stuns at special level or better (S*, SRP-16): Ann then loses her next
        # action and Orc acts again. Each such typed attack keeps Orc's stats out of the
        # channel; once Ann has the turn, the proctor's attack for Orc is refused.
        bout = h.bot.desk.bout_of(here)
        for _ in range(50):
            if h.bot.desk.service.state(bout).current != "Orc":
                break
            sent = await h.say("Judge", "~spar:attack Orc Ann")
            public = "\n".join(
                m.content for m in sent if not isinstance(m.channel, discord.DMChannel)
            )
            direct = [m.content for m in sent if isinstance(m.channel, discord.DMChannel)]
            assert public.startswith("Orc rolls ") and "defense" not in public
            assert len(direct) == 1 and direct[0].startswith("Ambush, for the proctor:\n")
        state = h.bot.desk.service.state(bout)
        if state.current is None:  # stunned again and again until she fell: Orc won
            assert state.winner == "raiders"
        else:
            assert state.current == "Ann"
            typed = await h.text("Judge", "~spar:attack Orc Ann")
            assert typed == "error: out of turn: it is Ann's turn, not Orc's"

    play(store, ["Judge", "Ann"], script)


def test_void_and_the_target_of_a_roll(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Melee")
        for name, cs in (("Tarl", 65), ("Pa-Kur", 70), ("Rask", 60)):
            await h.text(name, f"~spar:join {cs}")
        actor = fighter_to_act(await h.text("Judge", "~spar:begin"))
        bout = bout_id(store, "Melee")
        names = {"Tarl_1_nick": "Tarl", "Pa-Kur_2_nick": "Pa-Kur", "Rask_3_nick": "Rask"}
        assert actor is not None
        me = names[actor]
        others = [f for f in names if f != actor]
        count = len(store.events(bout))
        assert await h.text(me, "~roll 1d100") == (
            f"error: name your target: {', '.join(others)} (~spar:attack @user)"
        )
        assert len(store.events(bout)) == count
        target = names[others[-1]]
        assert await h.text(me, f"~spar:target {h.mention(target)}") == (
            f"{actor}'s rolls now attack {others[-1]}."
        )
        struck = await h.text(me, "~roll 1d100")
        assert f"{actor} attacks {others[-1]}: " in struck
        voided = await h.text("Judge", "~spar:void")
        assert re.match(r"Events \d+\.\.\d+ are voided \(undone\)\n", voided)
        board = await h.text("Judge", "~spar:scoreboard")
        assert f"  {others[-1]}: 0 of 15" in board

    play(store, ["Judge", "Tarl", "Pa-Kur", "Rask"], script)


def test_the_proctors_rear_is_true_or_false_never_any_word(tmp_path: Path) -> None:
    """`~spar:act attack rear=false` is a rear attack of false (it was read as true, as was
    `rear=no`); a word that is not true or false is refused by name and stores nothing."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~char set Orc weapon=mace skill=13 defense=11 hits=30")
        await h.text("Ann", "~char set Ann weapon=spear skill=15 defense=12 hits=30")
        await h.text("Judge", "~spar:open srp Backs")
        await h.text("Ann", "~spar:join Ann")
        await h.text("Judge", "~spar:npc Orc on raiders")
        await h.text("Judge", "~spar:begin")  # listed order: Ann, Orc
        await h.text("Ann", "~spar:act pass")
        bout = bout_id(store, "Backs")
        before = len(store.events(bout))
        for word in ("no", "0", "yes"):
            said = await h.text("Judge", f"~spar:act attack {h.mention('Ann')} rear={word}")
            assert said.startswith(f"error: rear {int(word) if word.isdigit() else repr(word)} "
                                   "is not true or false"), said  # fmt: skip
        assert len(store.events(bout)) == before
        struck = await h.text("Judge", f"~spar:act attack {h.mention('Ann')} rear=false")
        assert "Orc attacks Ann with the mace: " in struck, struck
        action = next(e for e in store.events(bout)[before:] if e["type"] == "action")
        outcome = next(e for e in store.events(bout)[before:] if e["type"] == "outcome")
        assert action["payload"]["options"] == {"target": "Ann", "rear": False}
        assert outcome["payload"]["rear"] is False

    play(store, ["Judge", "Ann"], script)


def test_names_that_pass_for_someone_else_are_refused_before_anything_is_stored() -> None:
    """A nickname that is a host line, a look-alike of a fighter or of OnlineHost is refused
    at the door with nothing stored; a name Discord would format is shown letter for letter."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Names")
        bout = bout_id(store, "Names")
        h.rename("Tarl", "Tarl")
        await h.text("Tarl", "~spar:join 65")
        before = store.events(bout)
        h.rename("Forger", "Tarl rolled 1 100-sided die: 99")
        assert await h.text("Forger", "~spar:join 70") == (
            "error: fighter name 'Tarl rolled 1 100-sided die: 99' has '-sided' in it, the word "
            "of the host's roll lines"
        )
        h.rename("Twin", "\u0422\u0430rl")
        assert await h.text("Twin", "~spar:join 70") == (
            "error: fighter name '\u0422\u0430rl' looks like 'Tarl', who is already fighting"
        )
        for host in ("0nlineHost", "\u041enlineHost"):
            h.rename("Host", host)
            assert await h.text("Host", "~spar:join 70") == (
                f"error: fighter name '{host}' is reserved (it looks like OnlineHost)"
            )
        assert store.events(bout) == before
        tables = len(store.list_bouts())
        assert await h.text("Forger", "~roll //roll -sides100 -dice1") == (
            "error: screen name 'Tarl rolled 1 100-sided die: 99' has a control character or "
            "'-sided' in it"
        )
        assert len(store.list_bouts()) == tables  # no table ledger was even opened
        h.rename("Kamchak", "**Kamchak**")
        assert await h.text("Kamchak", "~spar:join 60") == (
            "\\*\\*Kamchak\\*\\* joins the spar (CS 60)."
        )
        assert await h.text("Tarl", "~spar:target **kamchak**") == (
            "Tarl's rolls now attack \\*\\*Kamchak\\*\\*."
        )

    play(store, ["Judge", "Tarl", "Forger", "Twin", "Host", "Kamchak"], script)


def test_onlinehost_habits(tmp_path: Path) -> None:
    """A bare ~roll, notes after a roll, a bare //roll line, typos, rolls while paused and the
    wrong dice for a spar, as OnlineHost's regulars type them."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        bare = await h.text("Tarl", "~roll")
        assert re.fullmatch(
            r"OnlineHost: Tarl_1_nick rolled 2 6-sided dice: [1-6] [1-6] \(nonce 0,"
            r" free:Tarl_1_nick\)"
            r" sig:\S+",
            bare,
        )
        noted = await h.text("Tarl", "~roll 1d20+5 to hit")
        assert re.fullmatch(
            r"Tarl_1_nick rolls 1d20\+5 = \[\d+\] \+ 5 = \d+ \(nonce 1\) - to hit", noted
        )
        line = await h.text("Tarl", "//roll -sides20 -dice1")  # no prefix: the host's own line
        assert re.fullmatch(
            r"OnlineHost: Tarl_1_nick rolled 1 20-sided die: \d+ \(nonce 2, free:Tarl_1_nick\)"
            r" sig:\S+"
            r"\nRhy'Din score: \d",
            line,
        )
        assert (await h.text("Tarl", "~roll //roll -sides1000")).startswith("error: ")
        assert await h.text("Tarl", "~spar:atack") == (
            "error: no command ~spar:atack; did you mean ~spar:attack?"
        )
        assert await h.say("Tarl", "~sighs and looks away") == []  # role-play: left alone
        await h.text("Judge", "~spar:open msv Habits")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        # Before the spar begins, a fighter's 1d100 is no plain roll in the table ledger.
        early = {b.id: len(store.events(b.id)) for b in store.list_bouts()}
        assert await h.text("Tarl", "~roll 1d100") == (
            "error: the spar has not begun: the proctor begins it (~spar:begin) before any "
            "attack (nothing was rolled)"
        )
        assert {b.id: len(store.events(b.id)) for b in store.list_bouts()} == early
        actor = fighter_to_act(await h.text("Judge", "~spar:begin"))
        player = "Tarl" if actor == "Tarl_1_nick" else "Pa-Kur"
        bout = bout_id(store, "Habits")
        count = len(store.events(bout))
        tables = {b.id: len(store.events(b.id)) for b in store.list_bouts()}
        assert await h.text(player, f"~spar:roll 2d22 {h.mention('Judge')}") == (
            "error: 2d22 is not this spar's attack (1d100); nothing was rolled: say "
            "~spar:attack @user"
        )
        await h.text("Judge", "~spar:pause")
        count = len(store.events(bout))
        assert await h.text(player, "~roll 1d100") == (
            "error: the spar is paused: no attacks now (nothing was rolled)"
        )
        assert len(store.events(bout)) == count
        assert {b.id: len(store.events(b.id)) for b in store.list_bouts()} == {
            **tables,
            bout: count,
        }  # nothing went to the table ledger either
        await h.text("Judge", "~spar:resume")
        attacked = await h.text(player, "~spar:roll 1d100")
        assert f"{actor} attacks " in attacked

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_srp_players_share_a_side_against_an_npc_named_with_spaces() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~char set Orc Chief weapon=mace skill=13 defense=11 hits=10")
        await h.text("Ann", "~char set Ann weapon=spear skill=15 defense=12 hits=12")
        await h.text("Cal", "~char set Cal weapon=spear skill=14 defense=12 hits=12")
        await h.text("Judge", "~spar:open srp Ambush")
        assert await h.text("Ann", "~spar:join Ann on heroes") == (
            "Ann joins the spar on the side heroes (sheet saved with ~char)."
        )
        await h.text("Cal", "~spar:join Cal on heroes")
        await h.text("Judge", "~spar:npc Orc Chief on raiders")
        await h.text("Judge", "~spar:begin")
        bout = bout_id(store, "Ambush")
        desk = h.bot.desk
        for _ in range(6):
            state = desk.service.state(bout)
            actor = state.current
            if actor is None:
                break
            attacks = sorted(b.label for b in desk.answer(bout, []).buttons
                             if b.action == "attack")  # fmt: skip
            if actor == "Orc Chief":
                assert attacks == ["Attack Ann", "Attack Cal"]
                said = await h.text("Judge", "~spar:act attack ann")
                assert "Orc Chief attacks Ann with the mace: " in said
            else:
                assert attacks == ["Attack Orc Chief"]  # never the one on their own side
                said = await h.text(actor, "~spar:act attack orc chief")
                assert f"{actor} attacks Orc Chief with the spear: " in said

    play(store, ["Judge", "Ann", "Cal"], script)


def test_the_head_hash_is_said_when_a_spar_closes(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Friday duel")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        bout = h.bot.desk.bout_of(_place(h))
        closing = await h.say("Judge", "~spar:close bout")
        export = h.bot.desk.service.export(bout, REF)
        said = "\n".join(m.content for m in closing if m.content).split("\n")
        line = head_line(export)
        assert said[-3:] == [
            f"The spar is closed. Server seed: {revealed_seed(export)}",
            line,
            "The export is attached: anyone can check it with referee verify.",
        ]
        assert export["events"][-1]["seq"] == len(export["events"]) - 1
        # The End button closes it the same way.
        await h.text("Judge", "~spar:open msv Saturday duel")
        second = h.bot.desk.bout_of(_place(h))
        pressed = await h.press("Judge", "referee:end:")
        ended = h.bot.desk.service.export(second, REF)
        assert head_line(ended) in pressed["content"].split("\n")
        assert pressed["files"] == [f"spar-{second}.json"]

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def _place(h: Harness) -> Place:
    chan = h.channels[0]
    return Place(chan.id, h.guild.id, chan.name)
