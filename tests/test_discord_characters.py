"""`~char` as a client of the service's characters (dpytest, a real store): each member's key
is the bot's to hold; `~char key` sends it by direct message only; `/char key ck_...` (words
only the bot sees) takes a key moved from another door and a bad one changes nothing; a key
typed in a channel is refused and never said back; a character's hidden stats (an NPC's, made
in the console) stay hidden in the channel and in the export before the close, and its join
names it and its version."""

from __future__ import annotations

from pathlib import Path

import discord

from referee.discord.character_keys import characters, key_of
from referee.discord.links import Links
from referee.discord.messages import escape_markdown
from referee.discord.tables import MIGRATIONS, PART
from referee.service import characters as ch
from referee.store import Store, migrate_part
from tests.discord_harness import Harness, play


def words(text: str) -> dict[str, object]:
    return {"name": "words", "type": 3, "value": text}


def test_a_members_key_is_sent_privately_and_a_moved_key_is_taken() -> None:
    store = Store.open("sqlite://")
    moved = ch.create(store, None, "Pa-Kur", "msv", {"cs": 70}, ["crossbow"])["key"]

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~char set Tarl cs=65") == "Saved: Tarl (MSV)."
        mine = key_of(store, h.members["Tarl"].id)
        assert mine is not None
        sent = await h.say("Tarl", "~char key")
        public = [m.content for m in sent if not isinstance(m.channel, discord.DMChannel)]
        direct = [m.content for m in sent if isinstance(m.channel, discord.DMChannel)]
        assert public == ["Sent you your character key by direct message."]
        # (As every text the bot sends, with its markdown escaped: Discord shows it as it is.)
        assert direct == [
            escape_markdown(
                f"Your character key (a secret: whoever holds it plays your characters): {mine}"
            )
        ]
        # A second set of the same name is the character's next version, not a second one.
        assert await h.text("Tarl", "~char set tarl cs=66") == "Saved: tarl (MSV)."
        assert [(c.name, c.version) for c in ch_list(store, mine)] == [("tarl", 2)]
        # A key typed in a channel: refused, not said back, nothing changed.
        refused = await h.text("Tarl", f"~char key {moved}")
        assert refused.startswith("error: a key is a secret") and moved not in refused
        assert key_of(store, h.members["Tarl"].id) == mine
        # A key the service never made: refused, nothing changed.
        bad = await h.slash("Tarl", "char", words("key ck_" + "Q" * 32))
        assert bad["content"] == "error: that is not a key this referee made"
        assert key_of(store, h.members["Tarl"].id) == mine
        # The moved key: the bot holds it for Tarl now, and its characters are Tarl's.
        took = await h.slash("Tarl", "char", words(f"key {moved}"))
        assert took["content"] == "Your characters are now the key's: 1 of them (~char list)."
        assert await h.text("Tarl", "~char list") == (
            "Your characters: Pa-Kur (MSV) (~char show NAME sends the stats by direct message)."
        )
        await h.text("Judge", "~spar:open msv Moved")
        assert await h.text("Tarl", "~spar:join Pa-Kur") == "Pa-Kur joins the spar (CS 70)."

    play(store, ["Judge", "Tarl"], script)
    bout = next(b for b in store.list_bouts() if b.name == "Moved")
    joined = [e["payload"] for e in store.events(bout.id) if e["type"] == "fighter_added"]
    character = ch.listed(store, moved)[0]["id"]
    assert [(p["name"], p["character"], p["character_version"]) for p in joined] == [
        ("Pa-Kur", character, 1)
    ]


def ch_list(store: Store, key: str) -> list[ch.CharacterRecord]:
    with store.unit():
        return store.characters_of(key)


def test_an_npcs_hidden_stats_stay_hidden_when_the_proctor_fields_it() -> None:
    store = Store.open("sqlite://")
    made = ch.create(store, None, "Orc", "msv", {"cs": 83}, hidden=["cs"])
    key, orc = made["key"], made["character"]["id"]

    async def script(h: Harness) -> None:
        await h.slash("Judge", "char", words(f"key {key}"))
        assert await h.text("Judge", "~char list") == (
            "Your characters: Orc (MSV) (~char show NAME sends the stats by direct message)."
        )
        await h.text("Judge", "~spar:open msv Hidden")
        refused = await h.text("Judge", "~spar:join Orc")  # a player cannot field an NPC
        assert (
            refused == "error: Orc has hidden stats (an NPC's): the proctor fields it (~spar:npc)"
        )
        await h.text("Tarl", "~spar:join 65")
        said = await h.text("Judge", "~spar:npc Orc on raiders")
        assert said == ("Orc joins the spar (its CS hidden), added by the proctor.")
        assert "83" not in said

    play(store, ["Judge", "Tarl"], script)
    bout = next(b for b in store.list_bouts() if b.name == "Hidden")
    export = store.export(bout.id)
    from referee.service.bouts import RefereeService

    public = RefereeService(store).export(bout.id)
    added = next(e for e in public["events"] if e["payload"].get("name") == "Orc")
    assert added["payload"]["character"] == orc and "83" not in str(added["payload"])
    assert export["bout"]["status"] != "closed"


def test_the_characters_saved_before_move_into_the_service_nothing_lost(tmp_path: Path) -> None:
    # A bot's database at its tables' version 5, with characters saved by `~char set` then
    # (written once the members' ids are known); the bot then starts again on it (its links
    # made again, as at every start) and finds them in the service.
    store = Store.open(f"sqlite:///{tmp_path / 'bot.db'}")
    migrate_part(store.engine, PART, MIGRATIONS[:5])
    found: dict[str, int] = {}

    async def script(h: Harness) -> None:
        found.update({name: member.id for name, member in h.members.items()})
        with store.engine.begin() as conn:
            for user, name, stats in (
                (found["Tarl"], "Tarl", '{"cs": 65}'),
                (found["Tarl"], "Tarl Cabot", '{"cs": 72}'),
                (found["Bran"], "Bran", '{"cs": 55}'),
            ):
                conn.exec_driver_sql(
                    "INSERT INTO discord_characters (user_id, name, system, stats) "
                    "VALUES (?, ?, 'msv', ?)",
                    (str(user), name, stats),
                )
        Links(store)  # the bot's start: its tables brought up to date, old characters moved
        assert await h.text("Tarl", "~char list") == (
            "Your characters: Tarl (MSV), Tarl Cabot (MSV) (~char show NAME sends the stats by "
            "direct message)."
        )
        shown = await h.say("Bran", "~char show bran")
        assert [m.content for m in shown][-1] == "Bran (MSV): CS 55"
        await h.text("Tarl", "~spar:open msv Old friends")
        joined = await h.text("Tarl", "~spar:join Tarl Cabot")
        assert joined == "Tarl Cabot joins the spar (CS 72)."

    play(store, ["Tarl", "Bran"], script)
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM discord_characters").scalar() == 0
    keys = {name: key_of(store, found[name]) for name in ("Tarl", "Bran")}
    assert all(keys.values()) and keys["Tarl"] != keys["Bran"]
    Links(store)  # started again: nothing moves twice
    assert [c.name for c in characters(store, found["Tarl"])] == ["Tarl", "Tarl Cabot"]
    bout = next(b for b in store.list_bouts() if b.name == "Old friends")
    joined = next(e["payload"] for e in store.events(bout.id) if e["type"] == "fighter_added")
    assert joined["character_version"] == 1 and joined["stats"] == {"cs": 72}
