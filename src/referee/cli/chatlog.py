"""A played bout as an AOL-style chat log for the terminal (`referee msv spar`): the host's
line for every roll, each reading indented under it, a line per round, in the words of
`referee.sentences` (presentation lives here and there, not in the rules).

>>> from referee.bout.events import Event
>>> spar_log([Event("action", "Tarl", {"kind": "attack"}),
...           Event("roll", "system", {"nonce": None, "dice": ["d100"], "faces": [47]}),
...           Event("outcome", "system",
...                 {"kind": "attack", "summary": "Tarl attacks Pa-Kur: ..."})],
...          "msv")
['OnlineHost: Tarl rolled 1 100-sided die: 47', '  Tarl attacks Pa-Kur: ...']
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.bout.events import Event
from referee.payloads import events as p
from referee.sentences import initiative_readings, roll_line, sentence, who
from referee.vocabulary import EventType

#: What the log leaves out: an action shows as its rolls, the fighters are in the header.
SILENT = frozenset({EventType.ACTION, EventType.BOUT_OPENED, EventType.FIGHTER_ADDED})


def spar_log(events: Sequence[Event], system: str) -> list[str]:
    """A played bout as a chat log: host lines, each roll's reading, a line per round."""
    lines: list[str] = []
    actor, initiative, round_ = "", False, 0
    pending: list[Event] = []
    for event in events:
        record = event.to_dict()
        if event.type == EventType.ACTION:
            actor, initiative = event.actor, p.Action.read(event.payload).kind == "initiative"
        elif event.type == EventType.ROLL and initiative:
            pending.append(event)
        elif event.type == EventType.ROLL:
            lines.append(roll_line(who(actor), event.payload))
        elif event.type == EventType.INITIATIVE:
            lines += ["Initiative (MSV-5):" if system == "msv" else "Initiative:"]
            lines += _readings(pending, p.Initiative.read(event.payload).detail, system)
            lines.append(sentence(record, system))
            initiative, pending = False, []
        elif event.type == EventType.TURN:
            turn = p.Turn.read(event.payload)
            if turn.round != round_:
                round_ = turn.round or round_
                lines.append(f"Round {round_}")
        elif event.type == EventType.ENDED:
            lines.append(sentence(record, system))
        elif event.type not in SILENT:
            lines.append(f"  {sentence(record, system)}")
    return lines


def _readings(rolls: Sequence[Event], detail: object, system: str) -> list[str]:
    lines: list[str] = []
    thrown = iter(rolls)
    for roller, reading in initiative_readings(detail if isinstance(detail, dict) else {}, system):
        roll = next(thrown, None) if roller else None
        if roll is not None:
            lines.append(roll_line(roller, roll.payload))
        lines.append(f"  {reading}")
    return lines
