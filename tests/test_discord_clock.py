"""The turn clock: a nudge or a skip (a ledger event) when the post time runs out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from referee.discord.clock import TurnClock, action_began, parse_at
from referee.discord.desk import Desk
from referee.ledger import utc_time
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
        player = "Tarl" if actor == "Tarl_1_nick" else "Pa-Kur"
        assert said[0] == f"{h.mention(player)}, it is your turn as {actor} (90s a post)."
        assert said[1].startswith("Scoreboard of Nudged")  # one nudge, then the scoreboard
        assert "skipped" not in [e["type"] for e in store.events(bout_id(store, "Nudged"))]

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_the_nudge_pings_the_player_or_for_an_npc_the_proctor(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Pinged")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Judge", "~spar:add Bandit 40")
        await h.text("Judge", "~spar:clock 90s")
        actor = fighter_to_act(await h.text("Judge", "~spar:begin"))
        bout = bout_id(store, "Pinged")
        _, at = last_turn_at(store, bout)
        [(_, nudge)] = h.bot.clock.tick(at + timedelta(seconds=91))
        if actor == "Tarl_1_nick":
            assert nudge.pings == [h.members["Tarl"].id]
            assert (
                nudge.text == f"{h.mention('Tarl')}, it is your turn as Tarl_1_nick (90s a post)."
            )
        else:
            assert nudge.pings == [h.members["Judge"].id]
            assert nudge.text == (
                f"{h.mention('Judge')}, it is Bandit's turn, yours to play (90s a post)."
            )

    play(store, ["Judge", "Tarl"], script)


def test_the_clock_stands_still_while_paused_and_restarts_at_the_resume(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Paused")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        await h.text("Judge", "~spar:clock 2m skip")
        await h.text("Judge", "~spar:begin")
        bout = bout_id(store, "Paused")
        _, at = last_turn_at(store, bout)
        await h.text("Judge", "~spar:pause")
        assert h.bot.clock.tick(at + timedelta(seconds=500)) == []  # paused: no skip
        await h.text("Judge", "~spar:resume")
        events = store.events(bout)
        resumed = parse_at(str([e for e in events if e["type"] == "resumed"][-1]["at"]))
        # The clock now runs from the resume, not from the turn (the pause's time not counted).
        assert action_began(events, h.bot.desk.service.state(bout))["type"] == "resumed"
        # 500 s after the turn, but 119 s after the resume: the time is not up.
        assert h.bot.clock.tick(max(resumed, at) + timedelta(seconds=119)) == []
        assert "skipped" not in [e["type"] for e in store.events(bout)]
        [(_, reply)] = h.bot.clock.tick(resumed + timedelta(seconds=121))
        assert reply.text.startswith("Time is up (2m) for ")
        assert [e["type"] for e in store.events(bout)].count("skipped") == 1

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_a_free_attack_has_its_own_clock_from_the_outcome_that_gave_it() -> None:
    from referee.bout.state import BoutState, Status

    records = [
        {"type": "initiative", "seq": 3, "at": "2026-01-01T00:00:00Z"},
        {"type": "turn", "seq": 4, "at": "2026-01-01T00:00:01Z"},
        {"type": "outcome", "seq": 7, "at": "2026-01-01T00:01:00Z"},
    ]
    free = BoutState(order=("Tarl", "Pa-Kur"), turn=0, status=Status.RUNNING,
                     free_attack="Tarl", last_outcome=7)  # fmt: skip
    assert action_began(records, free)["seq"] == 7
    plain = BoutState(order=("Tarl", "Pa-Kur"), turn=0, status=Status.RUNNING, last_outcome=7)
    assert action_began(records, plain)["seq"] == 4
    resumed = [*records, {"type": "resumed", "seq": 8, "at": "2026-01-01T00:05:00Z"}]
    assert action_began(resumed, free)["seq"] == 8


def test_the_clocks_skip_is_refused_when_the_turn_moved(tmp_path: Path) -> None:
    """The clock read the turn, then the fighter acted: its skip (guarded with the turn it
    timed) is refused by the service and stores nothing."""
    import pytest

    from referee.bout import commands as c
    from referee.discord.desk import REF
    from referee.errors import ConflictError

    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Raced")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        actor = fighter_to_act(await h.text("Judge", "~spar:begin"))
        bout = bout_id(store, "Raced")
        service = h.bot.desk.service
        read = service.state(bout)
        player = "Tarl" if actor == "Tarl_1_nick" else "Pa-Kur"
        await h.text(player, "~spar:attack")  # acts between the clock's look and its skip
        before = store.events(bout)
        with pytest.raises(ConflictError, match="the bout moved on since event"):
            service.command(bout, REF, c.Skip(expected=read.current, at_seq=read.next_seq))
        now = service.state(bout)
        if now.current != read.current:
            with pytest.raises(ConflictError, match="the turn moved"):
                service.command(bout, REF, c.Skip(expected=read.current, at_seq=now.next_seq))
        assert store.events(bout) == before
        service.command(bout, REF, c.Skip(expected=now.current, at_seq=now.next_seq))
        assert [e["type"] for e in store.events(bout)].count("skipped") == 1

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


class StoreClock:
    """The store's clock in a test: a moment the test moves on by hand (never the wall's)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> str:
        return utc_time(self.now)

    def wait(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


def test_a_pause_stops_the_clock_by_the_stores_own_time_stamps() -> None:
    """Through the store's clock: the turn begins at 0 s, a pause at 60 s, a resume at 600 s.
    The post time (200 s) runs again from the resume's own time stamp: at 690 s the turn is
    690 s old but only 90 s have run since the resume, so nothing is skipped; at 801 s it is.
    A clock running through the pause would have skipped at 690 s."""
    clock = StoreClock(datetime(2026, 12, 3, 20, 0, 0, tzinfo=UTC))
    store = Store.open("sqlite://", clock=clock)

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Paused clock")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        await h.text("Judge", "~spar:clock 200s skip")
        start = clock.now
        actor = fighter_to_act(await h.text("Judge", "~spar:begin"))
        bout = bout_id(store, "Paused clock")
        clock.wait(60)
        await h.text("Judge", "~spar:pause")
        await h.bot.clock_tick(clock.wait(400))  # paused: the clock stands still
        clock.wait(140)
        await h.text("Judge", "~spar:resume")
        resumed = [e for e in store.events(bout) if e["type"] == "resumed"][-1]
        assert parse_at(str(resumed["at"])) == start + timedelta(seconds=600)
        await h.bot.clock_tick(clock.wait(90))
        assert [e["type"] for e in store.events(bout)].count("skipped") == 0
        await h.bot.clock_tick(start + timedelta(seconds=600 + 201))
        skipped = [e for e in store.events(bout) if e["type"] == "skipped"]
        assert [e["payload"]["name"] for e in skipped] == [actor]

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_a_voided_turn_comes_back_with_its_clock_from_the_void() -> None:
    """Through the store's clock: the turn begins at 0 s, its fighter attacks at 100 s (the
    next turn begins), and the proctor voids the attack at 150 s: the turn is the first
    fighter's again, and its post time (120 s) runs from the void's own time stamp, so at
    269 s nothing is skipped and at 271 s it is. Timed from the voided turn event (100 s)
    or the first turn (0 s) it would have been skipped at 269 s."""
    clock = StoreClock(datetime(2026, 12, 7, 20, 0, 0, tzinfo=UTC))
    store = Store.open("sqlite://", clock=clock)

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Voided clock")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        await h.text("Judge", "~spar:clock 120s skip")
        start = clock.now
        actor = fighter_to_act(await h.text("Judge", "~spar:begin"))
        bout = bout_id(store, "Voided clock")
        clock.wait(100)
        player = "Tarl" if actor == "Tarl_1_nick" else "Pa-Kur"
        assert fighter_to_act(await h.text(player, "~spar:attack")) != actor
        clock.wait(50)
        assert fighter_to_act(await h.text("Judge", "~spar:void")) == actor
        await h.bot.clock_tick(start + timedelta(seconds=150 + 119))
        assert [e["type"] for e in store.events(bout)].count("skipped") == 0
        began = action_began(store.events(bout), h.bot.desk.service.state(bout))
        assert began["type"] == "voided"
        assert parse_at(str(began["at"])) == start + timedelta(seconds=150)
        await h.bot.clock_tick(start + timedelta(seconds=150 + 121))
        skipped = [e for e in store.events(bout) if e["type"] == "skipped"]
        assert [e["payload"]["name"] for e in skipped] == [actor]

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)
