"""`/choose` and the `/table` group: interaction payloads through the real command tree, the
same desk calls, answers, errors and ledger events as `~choose` and `~table`; changing a table
needs Manage Server, read from the permissions Discord sends with the interaction."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from referee.cli.main import cli
from referee.store import Store
from referee.vocabulary import EventType
from tests.discord_harness import Harness, attachment_bytes
from tests.test_discord_spar import play

EPHEMERAL = 64
MANAGE_SERVER, ADMINISTRATOR = 0x20, 0x8
REFUSED = "error: only members with Manage Server can change roll tables"


def text(name: str, value: str) -> dict[str, object]:
    return {"name": name, "type": 3, "value": value}


def number(name: str, value: int) -> dict[str, object]:
    return {"name": name, "type": 4, "value": value}


def ledger(path: Path) -> list[dict[str, Any]]:
    """The table ledger's action and roll events, as its export says them."""
    doc = json.loads(path.read_text("utf-8"))
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    return [e for e in doc["events"] if e["type"] in (EventType.ACTION, EventType.ROLL)]


def test_slash_choose_makes_the_ledger_events_of_typed_choose(tmp_path: Path) -> None:
    store = Store.open("sqlite://")
    items = ["the tavern", "the docks", "the gate"]

    async def script(h: Harness) -> None:
        said = "the tavern,  the docks , the gate"
        await h.text("Tarl", f"~choose {said}")
        slashed = await h.slash("Tarl", "choose", text("items", said))
        found = re.fullmatch(
            r"OnlineHost: Tarl_0_nick rolled 1 3-sided die: ([1-3]) \(nonce 1, free:Tarl_0_nick\)"
            r" sig:\S+ - (.+)",
            slashed["content"],
        )
        assert found is not None, slashed
        assert found.group(2) == items[int(found.group(1)) - 1]
        assert "flags" not in slashed or not slashed["flags"] & EPHEMERAL  # said to the channel
        # The typed errors, word for word, ephemeral; nothing is rolled.
        for typed, options in [
            ("~choose the tavern", [text("items", "the tavern")]),
            ("~choose a,,b", [text("items", "a,,b")]),
            ("~choose", []),
            ("~choose nothing +2", [text("table", "nothing"), number("modifier", 2)]),
        ]:
            refused = await h.slash("Tarl", "choose", *options)
            assert refused["content"] == await h.text("Tarl", typed), typed
            assert refused["content"].startswith("error: ") and refused["flags"] == EPHEMERAL
        both = await h.slash("Tarl", "choose", text("items", "a, b"), text("table", "weather"))
        assert both["content"] == "error: give /choose items or a table, not both"
        stray = await h.slash("Tarl", "choose", text("items", "a, b"), number("modifier", 1))
        assert stray["content"] == (
            "error: a modifier is for a roll on a table: /choose table:NAME modifier:N"
        )
        messages = await h.say("Tarl", "~fair reveal")
        (tmp_path / "ledger.json").write_bytes(attachment_bytes(messages[-1]))

    play(store, ["Tarl"], script)
    events = ledger(tmp_path / "ledger.json")
    assert [e["type"] for e in events] == ["action", "roll"] * 2  # the refusals rolled nothing
    typed_action, typed_roll, slash_action, slash_roll = events
    assert slash_action["payload"] == typed_action["payload"]
    assert slash_action["payload"]["label"] == "choose: the tavern, the docks, the gate"
    assert [r["payload"]["dice"] for r in (typed_roll, slash_roll)] == [["d3"], ["d3"]]


def test_slash_table_group_and_choose_from_a_table(tmp_path: Path) -> None:
    import discord.ext.test as dpytest

    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        guild = h.guild.id
        refused = await h.slash("Tarl", "new", text("name", "weather"), group="table")
        assert refused == {**refused, "content": REFUSED, "flags": EPHEMERAL}
        assert h.bot.desk.links.roll_tables(guild) == []
        role = dpytest.backend.make_role("admins", h.guild, permissions=MANAGE_SERVER)
        h.grant("Admin", role)
        made = await h.slash(
            "Admin", "new", text("name", "Weather"), text("description", "what the sky does"),
            group="table",
        )  # fmt: skip
        assert made["content"] == "Table Weather is made: ~table add Weather item 1, item 2"
        again = await h.slash("Admin", "new", text("name", "weather"), group="table")
        assert again["content"] == "error: this server has a table called weather already"
        add = [text("name", "weather"), text("items", "Rain, [2,5]Fog, [8,8]Storm")]
        added = await h.slash("Admin", "add", *add, group="table")
        lines = [
            "Table Weather: 1d8 - what the sky does",
            "  1: Rain",
            "  2-5: Fog",
            "  8: Storm",
            "Gaps (sides no entry holds): 6, 7",
        ]
        assert added["content"].split("\n") == lines
        # A member without Manage Server changes nothing, whatever the subcommand.
        for verb, options in [
            ("add", [text("name", "weather"), text("items", "Sun")]),
            ("rewrite", [text("name", "weather"), number("side", 1), text("text", "Snow")]),
            ("remove", [text("name", "weather"), number("side", 1)]),
            ("delete", [text("name", "weather")]),
            ("new", [text("name", "other")]),
        ]:
            no = await h.slash("Tarl", verb, *options, group="table")
            assert (no["content"], no["flags"]) == (REFUSED, EPHEMERAL), verb
        info = await h.slash("Tarl", "info", text("name", "WEATHER"), group="table")
        assert info["content"].split("\n") == lines  # unchanged
        assert await h.text("Tarl", "~table info weather") == info["content"]
        overlap = await h.slash(
            "Admin", "add", text("name", "weather"), text("items", "[4,6]Sun"), group="table"
        )
        assert overlap["content"] == (
            "error: sides 4-6 overlap 2-5 (Fog): ~table rewrite or ~table remove it first"
        )
        rewrite = [text("name", "weather"), number("side", 8), text("text", "Hail")]
        assert (
            "  8: Hail" in (await h.slash("Admin", "rewrite", *rewrite, group="table"))["content"]
        )
        gap = await h.slash(
            "Admin", "remove", text("name", "weather"), number("side", 7), group="table"
        )
        assert gap["content"] == await h.text("Admin", "~table remove weather 7")
        assert gap["content"].startswith("error: ")
        removed = await h.slash(
            "Admin", "remove", text("name", "weather"), number("side", 1), group="table"
        )
        assert "  1: Rain" not in removed["content"]
        listed = await h.slash("Tarl", "list", group="table")
        assert listed["content"] == "Weather (1d8) - what the sky does"
        spaced = await h.slash("Tarl", "info", text("name", "my weather"), group="table")
        assert spaced["content"] == (
            "error: a table's name is 1 to 40 letters, digits, - or \\_ (got 'my weather')"
        )
        for modifier in (0, 3, -9):
            chosen = await h.slash(
                "Tarl", "choose", text("table", "WEATHER"),
                *([number("modifier", modifier)] if modifier else []),
            )  # fmt: skip
            found = re.fullmatch(
                r"OnlineHost: Tarl_1_nick rolled 1 8-sided die: ([1-8])"
                r" \(nonce \d, free:Tarl_1_nick\)"
                r" sig:\S+"
                r"(?: [+-]\d = (\d))? - (.+)",
                chosen["content"],
            )
            assert found is not None, chosen
            face = int(found.group(1))
            side = min(max(face + modifier, 1), 8)
            assert int(found.group(2) or face) == side
            expected = {2: "Fog", 3: "Fog", 4: "Fog", 5: "Fog", 8: "Hail"}.get(side)
            assert found.group(3) == (expected or f"side {side} is a gap in table Weather")
        await h.text("Tarl", "~choose weather +3")
        # Administrator (or Manage Server) as Discord sends it with the interaction counts,
        # with no role the bot could look up.
        owner = await h.slash(
            "Tarl", "new", text("name", "loot"), group="table", permissions=ADMINISTRATOR
        )
        assert owner["content"] == "Table loot is made: ~table add loot item 1, item 2"
        gone = await h.slash(
            "Tarl", "delete", text("name", "loot"), group="table", permissions=MANAGE_SERVER
        )
        assert gone["content"] == "Table loot is deleted."
        deleted = await h.slash("Admin", "delete", text("name", "weather"), group="table")
        assert deleted["content"] == "Table Weather is deleted."
        empty = await h.slash("Tarl", "list", group="table")
        assert empty["content"] == "No roll tables on this server yet (~table new NAME)."
        assert h.bot.desk.links.roll_tables(guild) == []
        messages = await h.say("Tarl", "~fair reveal")
        (tmp_path / "ledger.json").write_bytes(attachment_bytes(messages[-1]))

    play(store, ["Admin", "Tarl"], script)
    events = ledger(tmp_path / "ledger.json")
    labels = [e["payload"].get("label") for e in events if e["type"] == "action"]
    assert labels == [
        "choose from table Weather",
        "choose from table Weather +3",
        "choose from table Weather -9",
        "choose from table Weather +3",  # ~choose weather +3: the same label
    ]
    assert [e["payload"]["dice"] for e in events if e["type"] == "roll"] == [["d8"]] * 4
