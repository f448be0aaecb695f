"""`~luck` in Discord: the record and the luck of a member's fighter, from verified exports of the
bot's own bouts (a spar, and a table ledger: an export too), an open one refused with its
reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.discord.desk import REF
from referee.discord.messages import escape_markdown
from referee.lab.luck_exports import luck_report, reading, verified
from referee.lab.luck_text import report_lines
from referee.store import Store
from tests.discord_harness import Harness, play
from tests.test_discord_spar import run_spar

DOCS = "The method and its false-alarm rate: docs/luck.md."


def test_luck_reads_the_spars_and_table_ledgers_a_member_fought_in(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # dpytest keeps attachments in the working directory
    store = Store.open(db_url)

    async def script(h: Harness) -> None:
        desk = h.bot.desk
        chan = h.channels[0]
        tarl_id = h.members["Tarl"].id
        assert await h.text("Tarl", "~luck") == (
            "error: no closed spar or table ledger you fought in through this bot (~fair reveal "
            "closes your table ledger; or name bout ids: ~luck Tarl BOUT_ID ...)"
        )
        for _ in range(30):
            await h.text("Tarl", "~roll 1d100")
        await h.text("Pa-Kur", "~roll 3d6")
        table = desk.links.ledger(chan.id, tarl_id)
        assert table is not None
        member = desk.links.member(table, tarl_id)
        assert member is not None and member.fighter is not None
        tarl = member.fighter  # the name he shows in the server
        await h.say("Tarl", "~fair reveal")
        fresh = desk.links.ledger(chan.id, tarl_id)
        ledger = desk.service.export(table, REF)
        expected = report_lines(luck_report([reading(verified(ledger, "t"))], tarl))
        said = (await h.text("Tarl", "~luck")).split("\n")
        assert said == [*expected, DOCS]
        assert said[0] == f"luck of {tarl} over 1 verified export"
        assert said[2] == f"record: {tarl}: 1 bout, 0 won, 0 lost, 1 undecided"
        faces = [f for e in ledger["events"] if e["type"] == "roll" for f in e["payload"]["faces"]]
        lows = sum(f <= 50 for f in faces)
        assert said[3].startswith(f"primary: low halves {lows} of 30 dice, expected 15.0: p = ")
        # the same by its id, and by his mention asked by someone else
        assert (await h.text("Tarl", f"~luck {table}")).split("\n") == said
        assert (await h.text("Pa-Kur", f"~luck {h.mention('Tarl')}")).split("\n") == said
        # someone else's name over the same ledger: no dice of theirs in it
        other = (await h.text("Pa-Kur", f"~luck Rask {table}")).split("\n")
        assert other[:2] == ["luck of Rask over 1 verified export", "verdict: no dice to read"]
        assert await h.text("Tarl", f"~luck {fresh}") == "\n".join([
            "No export verified, so there is nothing to report.",
            escape_markdown(f"refused: bout {fresh} is not closed: its seed is not revealed yet"),
        ])  # fmt: skip
        # a whole spar, closed: now two bouts, the spar's result in his record
        await run_spar(h, tmp_path)()
        spar = json.loads((tmp_path / "spar.json").read_text("utf-8"))
        winner = next(e for e in spar["events"] if e["type"] == "ended")["payload"]["winner"]
        both = (await h.text("Tarl", "~luck")).split("\n")
        readings = [reading(verified(doc, "x")) for doc in (ledger, spar)]
        assert both == [*report_lines(luck_report(readings, tarl)), DOCS]
        won = int(winner == tarl)
        assert both[2] == f"record: {tarl}: 2 bouts, {won} won, {1 - won} lost, 1 undecided"
        by_name = (await h.text("Pa-Kur", f"~luck {tarl}")).split("\n")
        assert by_name == both

    play(store, ["Judge", "Tarl", "Pa-Kur", "Rask"], script)


def test_luck_of_a_members_character_reads_every_door_it_fought_through(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `~luck char NAME`: the member's saved character, over the closed bouts it fought in any
    # door (here one the character joined with the member's key, as the console does), under
    # whatever name; a bout still open is not read.
    from referee import chat as k
    from referee.discord.character_keys import characters, key_of
    from referee.lab.luck_exports import as_character
    from referee.service.bouts import ANONYMOUS
    from referee.service.characters import join_character
    from referee.service.chat import run_command

    monkeypatch.chdir(tmp_path)
    store = Store.open(db_url)

    async def script(h: Harness) -> None:
        service = h.bot.desk.service
        user = h.members["Tarl"].id
        assert await h.text("Tarl", "~char set Kai cs=65") == "Saved: Kai (MSV)."
        assert await h.text("Tarl", "~luck char Nobody") == (
            "error: you have no character called 'Nobody' (~char list)"
        )
        assert await h.text("Tarl", "~luck char Kai") == (
            "error: Kai has fought in no closed bout yet"
        )
        key, cid = key_of(store, user), characters(store, user)[0].id
        assert key is not None and cid is not None
        bouts = []
        for foe in ("Orc", "Troll"):
            bout = service.create_bout("msv", f"Kai and the {foe}")["id"]
            join_character(service, bout, ANONYMOUS, key, cid)
            service.add_fighter(bout, REF, foe, {"cs": 40})
            run_command(service, bout, REF, k.Init())
            for _ in range(4):
                turn = service.state(bout).current
                run_command(service, bout, REF, k.Attack("Kai" if turn == foe else foe, turn))
            bouts.append(bout)
        service.close(bouts[0], REF)
        exports = [service.export(bouts[0], ANONYMOUS)]
        kept, label = as_character([reading(verified(exports[0], "b"))], cid)
        said = (await h.text("Tarl", "~luck char kai")).split("\n")
        assert said == [*report_lines(luck_report(kept, label)), DOCS]
        assert said[2] == "record: Kai: 1 bout, 0 won, 0 lost, 1 undecided"

    play(store, ["Tarl"], script)
