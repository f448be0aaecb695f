"""What whoever runs the server can do to a closed bout: fight it again and rewrite its export.

The operator drew the server seed, so it knows it from the start; after the close it is public
anyway. With it the operator can fight a bout again from the same fighters under another client
seed (the referee's part, which the server drew) or another dice scheme, and write an export of
that fight with the very bout id, commitment and times, every face, outcome and hash made
afresh: the export holds together by itself and its commitment is the one shown at the start.
Only what a player kept while the bout went on tells the two apart (docs/ledger.md, "Who can
learn what"): a hash of an event seen before the close, the client seed seen at the start.

`refight(export, ...)` is that operator: it reads the genuine export's header and joins, plays
the bout again with the bout engine (initiative, then each fighter attacking the other in turn
until one side is left), and writes the rewritten export.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from referee.bout import commands as c
from referee.bout.engine import decide
from referee.bout.events import Event
from referee.bout.fold import project
from referee.bout.state import BoutState, Status
from referee.ledger import SeedRecord, build_export, chain
from referee.ledger.record import opened_events
from referee.payloads import events as p
from referee.rng import VerifiableRng, VerifiableStreams, commitment
from referee.vocabulary import EventType

Doc = dict[str, Any]


def refight(genuine: Mapping[str, Any], *, referee_part: str | None = None, scheme: int = 2) -> Doc:
    """The export an operator writes by fighting `genuine`'s bout again: the same header (id,
    name, rules, time, commitment) and fighters, the referee's part of the client seed
    `referee_part` (default: the genuine one), dice scheme `scheme` (1: one nonce sequence,
    as before streams: the header then says nothing of a scheme)."""
    events = opened_events(genuine)
    header = dict(events[0]["payload"])
    server_seed = genuine["fairness"]["server_seed"]
    part = header["client_seed"] if referee_part is None else referee_part
    if scheme == 1:
        header.pop("dice_scheme", None)
    header["client_seed"] = part
    joins = [e for e in events if e["type"] == EventType.FIGHTER_ADDED]
    parts = [e["payload"]["seed_part"] for e in joins if "seed_part" in e["payload"]]
    client_seed = ":".join([part, *parts])
    rng: Any = (
        VerifiableStreams(server_seed, client_seed, lambda name: 0)
        if scheme == 2
        else VerifiableRng(server_seed, client_seed, 0)
    )
    clock = _Clock(events[0]["at"])
    chained: list[dict[str, Any]] = []
    state = BoutState()

    def write(new: list[Event]) -> None:
        for event in new:
            last = chained[-1] if chained else None
            chained.append(chain(last, str(event.type), event.actor, event.payload, clock()))

    def run(command: c.Command, by: str) -> None:
        nonlocal state
        decision = decide(state, command, rng, by=by)
        state = decision.state
        write(decision.events)

    first = Event(EventType.BOUT_OPENED, "referee", header)
    write([first])
    state = project([first])
    for join in joins:
        added = p.FighterAdded.read(join["payload"])
        command = c.AddFighter(
            str(added.name),
            dict(added.stats or {}),
            added.side,
            tuple(added.hidden or ()),
            seed_part=added.seed_part,
        )
        run(command, str(join["actor"]))
    run(c.RollInitiative(), "referee")
    for _ in range(400):
        actor = state.current
        if state.status is not Status.RUNNING or actor is None:
            break
        foe = next(f.name for f in state.fighters if f.name != actor and not f.defeated)
        run(c.Act(actor, "attack", {"target": foe}), actor)
    if state.status in (Status.RUNNING, Status.PAUSED):
        run(c.End(None, "closed by the referee"), "referee")
    last = chained[-1]
    closing = {"server_seed": server_seed, "commitment": commitment(server_seed)}
    chained.append(chain(last, EventType.CLOSED.value, "referee", closing, clock()))
    bout = {**genuine["bout"]}
    seeds = [SeedRecord(0, commitment(server_seed), server_seed, None)]
    return build_export(bout, seeds, client_seed, chained)


def winner(doc: Mapping[str, Any]) -> Any:
    """The side an export's bout ended with as the winner (None: no winner)."""
    ended = [e for e in doc["events"] if e["type"] == EventType.ENDED]
    return ended[-1]["payload"]["winner"] if ended else None


def loser_wins(genuine: Mapping[str, Any], scheme: int = 2) -> Doc:
    """The operator's search: a referee's part under which the genuine loser wins (the first of
    `forged-0`, `forged-1`, ... that gives another winner than the genuine export's)."""
    won = winner(genuine)
    for attempt in range(200):
        forged = refight(genuine, referee_part=f"forged-{attempt}", scheme=scheme)
        if winner(forged) not in (won, None):
            return forged
    raise AssertionError("no referee part made the loser win in 200 tries")


class _Clock:
    """Times that move on from `start` by a second an event (an operator may write any)."""

    def __init__(self, start: str) -> None:
        self.now = datetime.strptime(start, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)

    def __call__(self) -> str:
        self.now += timedelta(seconds=1)
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
