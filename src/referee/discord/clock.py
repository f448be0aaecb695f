"""The turn clock: a post time per spar; the fighter to act is nudged, or skipped, when it runs out.

`~spar:clock 2m` nudges; `~spar:clock 2m skip` skips the turn when the time is up (a `skipped`
event in the ledger, by the referee); `~spar:clock off` stops it. The time runs from the
ledger's own time stamp of the moment the fighter to act got their action (`action_began`: the
turn, a resume after a pause, the outcome that gave a critical's free attack, the void that gave
a voided turn back, whose clock starts again), so a restart keeps the clock where it was and a
pause stops it. The skip is guarded: it names the turn it timed, and the service refuses it if
the turn moved in between (`referee.bout.commands.Skip`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Column, Integer, Table, Text, delete, insert, select

from referee.bout import commands as c
from referee.bout.state import Status
from referee.discord.desk import REF, Desk
from referee.discord.links import METADATA, Links
from referee.discord.presses import action_began
from referee.discord.replies import Person, Place, Reply
from referee.errors import ConflictError, NotationError

CLOCKS = Table(
    "discord_clocks",
    METADATA,
    Column("bout_id", Text, primary_key=True),
    Column("channel_id", Text, nullable=False),
    Column("seconds", Integer, nullable=False),
    Column("skip", Integer, nullable=False),
)

#: Shortest and longest post time (a stated bound).
MIN_SECONDS, MAX_SECONDS = 10, 24 * 3600
_DURATION = re.compile(r"([0-9]{1,5})\s*(s|sec|m|min|h)?", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Clock:
    """A spar's post time and what happens when it runs out."""

    bout_id: str
    channel_id: int
    seconds: int
    skip: bool


def parse_duration(text: str) -> int:
    """`90s`, `2m`, `1h`, `45` (seconds) -> seconds, within 10 s .. 24 h.

    >>> parse_duration("2m"), parse_duration("90s"), parse_duration("1h")
    (120, 90, 3600)
    """
    found = _DURATION.fullmatch(text.strip())
    if found is None:
        raise NotationError(f"bad post time {text!r} (expected e.g. 90s, 2m or 1h)")
    unit = (found.group(2) or "s").lower()[0]
    seconds = int(found.group(1)) * {"s": 1, "m": 60, "h": 3600}[unit]
    if not MIN_SECONDS <= seconds <= MAX_SECONDS:
        raise NotationError(f"post time {text!r} is out of range (10s .. 24h)")
    return seconds


def shown(seconds: int) -> str:
    """120 -> "2m", 90 -> "90s".

    >>> shown(120), shown(90), shown(7200)
    ('2m', '90s', '2h')
    """
    if seconds % 3600 == 0:
        return f"{seconds // 3600}h"
    return f"{seconds // 60}m" if seconds % 60 == 0 else f"{seconds}s"


def parse_at(stamp: str) -> datetime:
    """A ledger time stamp as a moment."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(UTC)


class Clocks:
    """The stored clocks (one table beside the bot's others); writes join the command's unit."""

    def __init__(self, links: Links) -> None:
        self.store = links.store  # the table is the bot's version 2 (referee.discord.tables)

    def set(self, clock: Clock) -> None:
        conn = self.store.client_writes()
        conn.execute(delete(CLOCKS).where(CLOCKS.c.bout_id == clock.bout_id))
        conn.execute(
            insert(CLOCKS).values(
                bout_id=clock.bout_id, channel_id=str(clock.channel_id),
                seconds=clock.seconds, skip=int(clock.skip),
            )
        )  # fmt: skip

    def stop(self, bout_id: str) -> None:
        self.store.client_writes().execute(delete(CLOCKS).where(CLOCKS.c.bout_id == bout_id))

    def all(self) -> list[Clock]:
        with self.store.client_reads() as conn:
            rows = conn.execute(select(CLOCKS)).all()
        return [Clock(r.bout_id, int(r.channel_id), int(r.seconds), bool(r.skip)) for r in rows]


class TurnClock:
    """Sets the clocks and, on each tick, nudges or skips the fighters whose time ran out."""

    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        self.clocks = Clocks(desk.links)
        #: Turns (bout, seq of the turn event) the clock has already spoken about.
        self.nudged: set[tuple[str, int]] = set()

    def set(self, place: Place, who: Person, args: str) -> Reply:
        """`~spar:clock 2m [skip]` / `~spar:clock off` (proctor): the post time."""
        bout = self.desk.bout_of(place)
        self.desk.require_proctor(bout, who, "set the clock")
        words = args.lower().split()
        if words == ["off"]:
            self.clocks.stop(bout)
            return Reply(["The turn clock is off."])
        if not words or len(words) > 2 or (len(words) == 2 and words[1] != "skip"):
            raise NotationError("say ~spar:clock 2m, ~spar:clock 2m skip or ~spar:clock off")
        seconds = parse_duration(words[0])
        skip = len(words) == 2
        self.clocks.set(Clock(bout, place.channel, seconds, skip))
        then = "the turn is skipped" if skip else "the fighter is nudged"
        return Reply([f"Turn clock: {shown(seconds)} a post; when it runs out {then}."])

    def tick(self, now: datetime) -> list[tuple[int, Reply]]:
        """What the clock says at `now`: a nudge or a skip per spar whose time ran out."""
        out: list[tuple[int, Reply]] = []
        for clock in self.clocks.all():
            with self.desk.service.unit():  # each spar's look and skip: one transaction
                said = self._look(clock, now)
            if said is not None:
                out.append((clock.channel_id, said))
        return out

    def _look(self, clock: Clock, now: datetime) -> Reply | None:
        """What the clock says of one spar at `now`, if anything."""
        state = self.desk.service.state(clock.bout_id)
        if state.closed or state.status in (Status.ENDED, Status.CANCELLED):
            self.clocks.stop(clock.bout_id)
            return None
        if state.status is not Status.RUNNING or not state.current:
            return None  # paused (or not begun): the clock stands still
        records = self.desk.service.records(clock.bout_id)
        began = action_began(records, state)
        late = (now - parse_at(str(began["at"]))).total_seconds()
        key = (clock.bout_id, int(began["seq"]))
        if late < clock.seconds or key in self.nudged:
            return None
        if not clock.skip:
            self.nudged.add(key)
            return self._nudge(clock, state.current)
        guarded = c.Skip(expected=state.current, at_seq=state.next_seq)
        try:
            done = self.desk.service.command(clock.bout_id, REF, guarded)
        except ConflictError:
            return None  # the turn moved while the clock looked: the next tick reads again
        self.nudged.add(key)
        reply = self.desk.answer(clock.bout_id, done)
        reply.lines.insert(0, f"Time is up ({shown(clock.seconds)}) for {state.current}.")
        return reply

    def _nudge(self, clock: Clock, fighter: str) -> Reply:
        """The nudge, mentioning (and pinging) the member who plays `fighter`, or the proctor
        for a non-player fighter."""
        members = self.desk.links.members(clock.bout_id)
        player = next((m.user_id for m in members if m.fighter == fighter), None)
        post = shown(clock.seconds)
        if player is not None:
            text = f"<@{player}>, it is your turn as {fighter} ({post} a post)."
            return Reply([text], pings=[int(player)])
        proctor = self.desk.links.proctor(clock.bout_id)
        if proctor is None:
            return Reply([f"{fighter}, it is your turn ({post} a post)."])
        text = f"<@{proctor}>, it is {fighter}'s turn, yours to play ({post} a post)."
        return Reply([text], pings=[int(proctor)])
