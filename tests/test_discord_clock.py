"""The turn clock: a nudge or a skip (a ledger event) when the post time runs out."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from referee.discord.clock import TurnClock, parse_at
from referee.discord.desk import Desk
from referee.store import Store
from tests.discord_harness import Harness, fighter_to_act
from tests.test_discord_spar import bout_id, play


def last_turn_at(store: Store, bout: str) -> tuple[int, datetime]:
    turn = [e for e in store.events(bout) if e["type"] == "turn"][-1]
    return int(turn["seq"]), parse_at(str(turn["at"]))


def test_the_clock_skips_when_the_time_is_up(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Clocked")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        assert await h.text("Tarl", "~spar:clock 2m skip") == (
            "error: only the proctor (Judge_0_nick) can set the clock"
        )
        assert await h.text("Judge", "~spar:clock 2 weeks") == (
            "error: say ~spar:clock 2m, ~spar:clock 2m skip or ~spar:clock off"
        )
        assert await h.text("Judge", "~spar:clock 5s") == (
            "error: post time '5s' is out of range (10s .. 24h)"
        )
        assert await h.text("Judge", "~spar:clock 2m skip") == (
            "Turn clock: 2m a post; when it runs out the turn is skipped."
        )
        actor = fighter_to_act(await h.text("Judge", "~spar:begin"))
        bout = bout_id(store, "Clocked")
        seq, at = last_turn_at(store, bout)
        await h.bot.clock_tick(at + timedelta(seconds=119))
        said = [m.content for m in await h.say("Judge", "~spar:clock 2m skip")]
        assert said == ["Turn clock: 2m a post; when it runs out the turn is skipped."]
        assert [e["type"] for e in store.events(bout)].count("skipped") == 0
        await h.bot.clock_tick(at + timedelta(seconds=121))
        answer = "\n".join(m.content for m in await h.say("Tarl", "~spar:scoreboard"))
        assert answer.startswith(f"Time is up (2m) for {actor}.\n{actor}'s turn passes: ")
        skipped = [e for e in store.events(bout) if e["type"] == "skipped"]
        assert len(skipped) == 1 and skipped[0]["payload"]["name"] == actor
        # The next turn has its own clock, from its own time stamp in the ledger.
        next_seq, next_at = last_turn_at(store, bout)
        assert next_seq > seq
        await h.bot.clock_tick(next_at + timedelta(seconds=60))
        assert [e["type"] for e in store.events(bout)].count("skipped") == 1
        # A restarted bot finds the clock in the database.
        assert [c.seconds for c in TurnClock(Desk(store)).clocks.all()] == [120]
        assert await h.text("Judge", "~spar:clock off") == "The turn clock is off."
        await h.bot.clock_tick(next_at + timedelta(seconds=999))
        assert [e["type"] for e in store.events(bout)].count("skipped") == 1

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_the_clock_nudges_once(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Nudged")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        await h.text("Judge", "~spar:clock 90s")
        actor = fighter_to_act(await h.text("Judge", "~spar:begin"))
        _, at = last_turn_at(store, bout_id(store, "Nudged"))
        await h.bot.clock_tick(at + timedelta(seconds=91))
        await h.bot.clock_tick(at + timedelta(seconds=200))
        said = [m.content for m in await h.say("Tarl", "~spar:scoreboard")]
        assert said[0] == f"{actor}, it is your turn (90s a post)."
        assert said[1].startswith("Scoreboard of Nudged")  # one nudge, then the scoreboard
        assert "skipped" not in [e["type"] for e in store.events(bout_id(store, "Nudged"))]

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)
