"""`~luck` in Discord: the record and the luck of a member's fighter, from verified exports of the
bot's own bouts (a table ledger is an export too), an open one refused with its reason."""

from __future__ import annotations

from referee.discord.desk import REF
from referee.lab.luck_exports import luck_report, reading, verified
from referee.lab.luck_text import report_lines
from referee.store import Store
from tests.discord_harness import Harness
from tests.test_discord_spar import play


def test_luck_reports_on_a_revealed_table_ledger_and_refuses_an_open_one(db_url: str) -> None:
    store = Store.open(db_url)

    async def script(h: Harness) -> None:
        desk = h.bot.desk
        chan = h.channels[0]
        assert await h.text("Tarl", "~luck") == (
            f"error: no closed spar or table ledger in #{chan.name} to read (~fair reveal closes "
            "your table ledger; or name bout ids: ~luck Tarl BOUT_ID ...)"
        )
        for _ in range(30):
            await h.text("Tarl", "~roll 1d100")
        await h.text("Pa-Kur", "~roll 3d6")
        table = desk.links.ledger(chan.id, h.members["Tarl"].id)
        assert table is not None
        await h.say("Tarl", "~fair reveal")
        fresh = desk.links.ledger(chan.id, h.members["Tarl"].id)
        export = desk.service.export(table, REF)
        member = desk.links.member(table, h.members["Tarl"].id)
        assert member is not None and member.fighter is not None
        tarl = member.fighter  # the name he shows in the server
        expected = report_lines(luck_report([reading(verified(export, "t"))], tarl))
        said = (await h.text("Tarl", f"~luck {table}")).split("\n")
        assert said == [*expected, "The method and its false-alarm rate: docs/luck.md."]
        assert said[0] == f"luck of {tarl} over 1 verified export"
        assert said[2] == f"record: {tarl}: 1 bout, 0 won, 0 lost, 1 undecided"
        faces = [f for e in export["events"] if e["type"] == "roll" for f in e["payload"]["faces"]]
        lows = sum(f <= 50 for f in faces)
        assert said[3].startswith(f"primary: low halves {lows} of 30 dice, expected 15.0: p = ")
        # someone else's name over the same ledger: no dice of theirs in it
        other = (await h.text("Pa-Kur", f"~luck Rask {table}")).split("\n")
        assert other[:2] == ["luck of Rask over 1 verified export", "verdict: no dice to read"]
        assert await h.text("Tarl", f"~luck {fresh}") == "\n".join([
            "No export verified, so there is nothing to report.",
            f"refused: bout {fresh} is not closed: its seed is not revealed yet",
        ])  # fmt: skip

    play(store, ["Tarl", "Pa-Kur", "Rask"], script)
