"""Each member's own table ledger per channel (issue #43): a part of the client seed of their
own (given with `~fair part`, or drawn by the bot at their first roll), their own stream
`free:NAME`, `~fair`/`~fair reveal` on their own ledger, `~fair reveal all` for Manage Server;
the head hash said at every close; the one ledger per channel of the bot's tables version 3
kept, as the channel's ledger of nobody."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import discord.ext.test as dpytest
import pytest
from sqlalchemy import text

from referee.bout import commands as c
from referee.bout.replay import check_export
from referee.discord.desk import REF, Desk
from referee.discord.replies import Person, Place
from referee.discord.tables import MIGRATIONS, PART
from referee.errors import ForbiddenError
from referee.ledger import verify_export
from referee.rng import Entropy
from referee.service.bouts import RefereeService
from referee.store import Store, migrate_part
from tests.discord_harness import Harness, attachment_bytes
from tests.seeds import for_test
from tests.test_discord_spar import head_line, play, revealed_seed

MANAGE_SERVER = 0x20
EPHEMERAL = 64


class Draws:
    """The bot's own draws from its entropy source (the parts it draws), kept in order; the
    service's (server seeds, the referee's parts) go to the same source, uncounted."""

    def __init__(self, source: Entropy) -> None:
        self.source = source
        self.parts: list[str] = []

    def __call__(self, n: int) -> bytes:
        drawn = self.source(n)
        self.parts.append(drawn.hex())
        return drawn


def verified(doc: dict[str, Any]) -> None:
    report = verify_export(doc, replay=check_export)
    assert report.ok, report


def test_each_member_rolls_in_a_ledger_of_their_own(db_url: str, tmp_path: Path) -> None:
    store = Store.open(db_url)
    seen: dict[str, Any] = {}

    async def script(h: Harness) -> None:
        desk = h.bot.desk
        draws = Draws(desk.entropy)
        desk.entropy = draws
        chan = h.channels[0]
        ids = {name: member.id for name, member in h.members.items()}

        def ledger_of(name: str) -> str:
            found = desk.links.ledger(chan.id, ids[name])
            assert found is not None
            return found

        def seed_of(name: str) -> tuple[str, str]:
            record = store.get_bout(ledger_of(name))
            return record.commitment, record.client_seed

        # Tarl gives a part of his own: first his ledger's commitment, then the part.
        first = (await h.text("Tarl", "~fair part amber-7")).split("\n")
        commitment, referee_part = seed_of("Tarl")
        assert first == [
            f"Your table ledger in #{chan.name} is open: commitment {commitment}",
            "A part binds only a commitment published before it: now that this one is, say "
            "~fair part TEXT again to add yours.",
        ]
        assert await h.text("Tarl", "~fair part a:b") == (
            "error: client seed part 'a:b' must be 1 to 64 characters without ':'"
        )
        assert await h.text("Tarl", "~fair") == "\n".join([
            f"Your table ledger in #{chan.name}: commitment {commitment}",
            f"client seed {referee_part} (the bot's part; yours follows it: give your own with "
            "~fair part TEXT before your first roll, or the bot draws one at it), 0 roll(s) so "
            "far.",
            "~fair reveal reveals its server seed (and starts a new ledger), so anyone can check "
            "every roll: referee verify on the attached export.",
        ])  # fmt: skip
        assert await h.text("Tarl", "~fair part amber-7") == (
            f"Your part is in: your table ledger's client seed is {referee_part}:amber-7, fixed "
            "from your first roll on."
        )
        assert seed_of("Tarl") == (commitment, f"{referee_part}:amber-7")
        assert await h.text("Tarl", "~fair part other") == (
            f"error: your ledger's client seed is {referee_part}:amber-7 already, with your part "
            "in it, and stays so: ~fair reveal closes it and starts a new one, which takes a new "
            "part"
        )
        assert draws.parts == []  # a given part: the bot drew none
        # Tarl, Pa-Kur (a first roll: its part drawn), Tarl again, then Rask, who first rolls
        # after both of them have rolled, and still gets a part of his own.
        said = [
            ("Tarl", await h.text("Tarl", "~roll 1d20 to hit")),
            ("Pa-Kur", await h.text("Pa-Kur", "~roll 2d20+1d6")),
            ("Tarl", await h.text("Tarl", "~roll //roll -sides100 -dice1")),
            ("Tarl", await h.text("Tarl", "~choose the tavern, the docks")),
            ("Rask", await h.text("Rask", "~roll 1d6")),
            ("Pa-Kur", await h.text("Pa-Kur", "~roll 1d6")),
        ]
        assert len(draws.parts) == 2  # Pa-Kur's part, then Rask's
        # A nickname the service refuses as a fighter's name rolls nothing, opens nothing.
        bouts = len(store.list_bouts())
        h.rename("Admin", "0nlineHost")
        assert await h.text("Admin", "~roll 2d6") == (
            "error: fighter name '0nlineHost' is reserved (it looks like OnlineHost)"
        )
        assert len(store.list_bouts()) == bouts and desk.links.ledger(chan.id, ids["Admin"]) is None
        h.rename("Admin", "Admin_3_nick")
        for name, part in (("Pa-Kur", draws.parts[0]), ("Rask", draws.parts[1])):
            _, seed = seed_of(name)
            assert seed.endswith(f":{part}") and seed.count(":") == 1
        assert len({seed_of(n)[1].split(":")[0] for n in ("Tarl", "Pa-Kur", "Rask")}) == 3
        assert len({ledger_of(n) for n in ("Tarl", "Pa-Kur", "Rask")}) == 3
        refused = await h.slash(
            "Rask", "fair", {"name": "reveal", "type": 5, "value": True},
            {"name": "all", "type": 5, "value": True},
        )  # fmt: skip
        assert refused["content"] == (
            "error: only members with Manage Server can reveal every table ledger of the channel"
        )
        assert refused["flags"] == EPHEMERAL
        both = await h.slash(
            "Rask", "fair", {"name": "reveal", "type": 5, "value": True},
            {"name": "part", "type": 3, "value": "x"},
        )  # fmt: skip
        assert both["content"] == "error: give /fair a part or reveal, not both"
        assert await h.text("Rask", "~fair reveal everything") == (
            "error: say ~fair, ~fair part TEXT, ~fair reveal or ~fair reveal all"
        )
        # Tarl reveals his own ledger: the export, the head hash, a new ledger.
        tarl = ledger_of("Tarl")
        messages = await h.say("Tarl", "~fair reveal")
        export = desk.service.export(tarl, REF)
        again = seed_of("Tarl")[0]
        assert "\n".join(m.content for m in messages[:-1]).split("\n") == [
            f"Server seed revealed: {revealed_seed(export)} (commitment {commitment}).",
            head_line(export),
            "The export is attached: check it with referee verify.",
            f"New table ledger: commitment {again}",
        ]
        assert json.loads(attachment_bytes(messages[-1])) == json.loads(json.dumps(export))
        assert ledger_of("Tarl") != tarl and again != commitment
        fresh = await h.text("Tarl", "~fair")
        assert f"commitment {again}" in fresh and "0 roll(s) so far" in fresh
        # Manage Server reveals every ledger of the channel at once (Tarl's new one too).
        role = dpytest.backend.make_role("admins", h.guild, permissions=MANAGE_SERVER)
        h.grant("Admin", role)
        pakur, rask, tarl_new = ledger_of("Pa-Kur"), ledger_of("Rask"), ledger_of("Tarl")
        everything = await h.say("Admin", "~fair reveal all")
        exports = {t: desk.service.export(t, REF) for t in (pakur, rask, tarl_new)}
        lines = "\n".join(m.content for m in everything if m.content).split("\n")
        by_member = sorted((ids[n], n, t) for n, t in
                           (("Pa-Kur", pakur), ("Rask", rask), ("Tarl", tarl_new)))  # fmt: skip
        expected = []
        for _, name, table in by_member:
            doc, record = exports[table], store.get_bout(table)
            whose = "A table ledger with no roll yet" if table == tarl_new else (
                f"{name}_{list(ids).index(name)}_nick's table ledger"
            )  # fmt: skip
            expected += [
                f"{whose}:",
                f"Server seed revealed: {revealed_seed(doc)} (commitment {record.commitment}).",
                head_line(doc),
            ]
        assert lines == [
            *expected,
            "3 export(s) attached: check each with referee verify. Everyone's next roll here "
            "opens a new ledger.",
        ]
        attached = everything[-1].attachments
        assert [a.filename for a in attached] == [f"table-{t}.json" for _, _, t in by_member]
        assert desk.links.ledgers(chan.id) == []
        assert await h.text("Admin", "~fair reveal all") == (
            f"No table ledger of #{chan.name} is open: nothing to reveal."
        )
        seen.update(said=said, exports={"Tarl": export, "Pa-Kur": exports[pakur],
                                        "Rask": exports[rask]})  # fmt: skip
        seen["parts"] = {"Tarl": "amber-7", "Pa-Kur": draws.parts[0], "Rask": draws.parts[1]}

    play(store, ["Tarl", "Pa-Kur", "Rask", "Admin"], script)
    nick = {"Tarl": "Tarl_0_nick", "Pa-Kur": "Pa-Kur_1_nick", "Rask": "Rask_2_nick"}
    throws: dict[str, list[tuple[str, int]]] = {}
    for name, doc in seen["exports"].items():
        verified(doc)
        fighter = nick[name]
        seed = doc["fairness"]["client_seed"]
        assert seed.split(":")[1] == seen["parts"][name]
        kinds = [e["type"] for e in doc["events"][:3]]
        assert kinds == ["bout_opened", "fighter_added", "joining_closed"]
        assert doc["events"][1]["payload"]["name"] == fighter
        rolls = [e for e in doc["events"] if e["type"] == "roll"]
        throws[name] = [(e["payload"]["stream"], e["payload"]["nonce"]) for e in rolls]
        actors = {e["actor"] for e in doc["events"] if e["type"] == "action"}
        assert actors == {fighter}
    # Each member's rolls from their own stream, nonces from 0 whatever the others rolled.
    assert throws == {
        "Tarl": [("free:Tarl_0_nick", 0), ("free:Tarl_0_nick", 1), ("free:Tarl_0_nick", 2)],
        "Pa-Kur": [("free:Pa-Kur_1_nick", 0), ("free:Pa-Kur_1_nick", 1),
                   ("free:Pa-Kur_1_nick", 2)],
        "Rask": [("free:Rask_2_nick", 0)],
    }  # fmt: skip
    # What the channel was told is what each ledger recorded.
    faces = {name: [e["payload"]["faces"] for e in doc["events"] if e["type"] == "roll"]
             for name, doc in seen["exports"].items()}  # fmt: skip
    (t1,), (t2,), (t3,) = faces["Tarl"]
    (p1, p2), (p3,), (p4,) = faces["Pa-Kur"]
    ((r1,),) = faces["Rask"]
    choice = ["the tavern", "the docks"][t3 - 1]
    said = [re.sub(r" sig:\S+", " sig:S", line) for _, line in seen["said"]]
    assert said == [
        f"Tarl_0_nick rolls 1d20 = [{t1}] = {t1} (nonce 0) - to hit\n"
        f"Rhy'Din score: {max(0, (t1 - 10) // 5)}",
        f"Pa-Kur_1_nick rolls 2d20+1d6 = [{p1}, {p2}] + [{p3}] = {p1 + p2 + p3} (nonce 0, 1)",
        f"OnlineHost: Tarl_0_nick rolled 1 100-sided die: {t2} (nonce 1, free:Tarl_0_nick) sig:S\n"
        f"Rhy'Din score: {max(0, (t2 - 10) // 5)}",
        f"OnlineHost: Tarl_0_nick rolled 1 2-sided die: {t3} (nonce 2, free:Tarl_0_nick) sig:S - "
        f"{choice}",
        f"Rask_2_nick rolls 1d6 = [{r1}] = {r1} (nonce 0)",
        f"Pa-Kur_1_nick rolls 1d6 = [{p4}] = {p4} (nonce 2)",
    ]


HALL = Place(100, 7, "hall")
ADMIN, TARL = Person(1, "Admin", admin=True), Person(2, "Tarl")


def test_the_channels_one_ledger_migrates_as_the_ledger_of_nobody(db_url: str) -> None:
    store = Store.open(db_url)
    migrate_part(store.engine, PART, MIGRATIONS[:3])  # the bot's tables as version 3 left them
    service = RefereeService(store, entropy=for_test())
    old = service.create_bout("msv", "table ledger #hall")["id"]
    for sides in ((6,), (20, 20)):
        service.command(old, REF, c.FreeRoll("referee", sides))
    with store.engine.begin() as conn:  # the old mapping, as version 3 of the bot wrote it
        conn.execute(
            text("INSERT INTO discord_channels (channel_id, guild_id, spar_bout, table_bout, "
                 "dialect) VALUES ('100', '7', NULL, :old, NULL)"),
            {"old": old},
        )  # fmt: skip
    desk = Desk(store, entropy=for_test("bot"))  # the bot starts: its tables go to its last version
    with store.engine.connect() as conn:
        assert conn.execute(
            text("SELECT version FROM schema_parts WHERE part = 'discord'")
        ).all() == [(MIGRATIONS[-1][0],)]
        assert conn.execute(text("SELECT table_bout FROM discord_channels")).all() == [(None,)]
    assert desk.links.ledgers(100) == [(None, old)]
    assert desk.links.channel(100) == (None, old)
    record = store.get_bout(old)
    shown = desk.fair(HALL, TARL).lines
    assert shown[-1] == (
        f"The channel's shared table ledger from before (commitment {record.commitment}, 2 "
        "roll(s)) is still open: a member with Manage Server reveals it with ~fair reveal all."
    )
    # Tarl's own rolls go to his own ledger; the old one keeps its two.
    desk.roll(HALL, TARL, "1d6")
    assert len([e for e in store.events(old) if e["type"] == "roll"]) == 2
    with pytest.raises(ForbiddenError, match="only members with Manage Server can reveal every"):
        desk.fair_reveal(HALL, TARL, every=True)
    assert store.get_bout(old).status != "closed"
    revealed = desk.fair_reveal(HALL, ADMIN, every=True)
    export = service.export(old, REF)
    assert revealed.lines[:3] == [
        "The channel's shared table ledger from before:",
        f"Server seed revealed: {revealed_seed(export)} (commitment {record.commitment}).",
        head_line(export),
    ]
    assert revealed.attachments[0][0] == f"table-{old}.json"
    doc = json.loads(revealed.attachments[0][1])
    verified(doc)
    streams = [(e["payload"]["stream"], e["payload"]["nonce"]) for e in doc["events"]
               if e["type"] == "roll"]  # fmt: skip
    assert streams == [("referee", 0), ("referee", 1)]
    assert len(revealed.attachments) == 2  # and Tarl's own ledger
    assert desk.links.ledgers(100) == []
    assert desk.fair(HALL, TARL).lines[-1].startswith("~fair reveal reveals")  # none left
