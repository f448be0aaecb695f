"""A bout's events as an AOL-style chat log: OnlineHost lines and each roll's reading (MSV-1).

Shown, not decided: the lines are made from recorded events only.

>>> from types import SimpleNamespace as E
>>> spar_log([E(type="action", actor="Tarl", payload={"kind": "attack"}),
...           E(type="roll", actor="system", payload={"faces": [47]}),
...           E(type="outcome", actor="system", payload={"summary": "Tarl attacks Pa-Kur: ..."})],
...          15)
['OnlineHost: Tarl rolled 1 100-sided die: 47', '  Tarl attacks Pa-Kur: ...']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from referee.dice.chat import format_host_line


class EventLike(Protocol):
    """What the log reads of an event (`referee.bout.events.Event` has it)."""

    @property
    def type(self) -> str: ...

    @property
    def actor(self) -> str: ...

    @property
    def payload(self) -> Mapping[str, Any]: ...


def _initiative_lines(detail: dict[str, Any]) -> list[str]:
    lines = []
    for record in detail["rounds"]:
        if record["unrollable"]:
            lines.append(f"  {', '.join(record['group'])} have CS 0: kept in the order given")
            continue
        for roll in record["rolls"]:
            lines.append(format_host_line(roll["name"], 100, [roll["roll"]]))
            lines.append(
                f"  {roll['name']}: {roll['roll']} vs CS {roll['cs']}, effect {roll['effect']}"
            )
        lines.extend(f"  tied: {', '.join(tie)} - reroll" for tie in record["ties"])
    return lines


def spar_log(events: Sequence[EventLike], threshold: int) -> list[str]:
    """A played spar as a chat log: OnlineHost lines, each roll's reading, the result."""
    lines: list[str] = []
    actor, kind, round_ = "", "", 0
    for event in events:
        p: dict[str, Any] = dict(event.payload)
        if event.type == "action":
            actor, kind = event.actor, str(p.get("kind"))
        elif event.type == "roll" and kind == "attack":
            lines.append(format_host_line(actor, 100, list(p["faces"])))
        elif event.type == "initiative":
            lines += ["Initiative (MSV-5):", *_initiative_lines(p["detail"])]
            lines.append(f"Order: {', '.join(p['order'])}")
        elif event.type == "outcome":
            lines.append(f"  {p['summary']}")
        elif event.type == "wound":
            lines.append(f"  {p['target']}: {p['total']} of {threshold} damage")
        elif event.type == "defeated" and p.get("defeated"):
            lines.append(f"  {p['name']} is defeated")
        elif event.type == "turn" and p["round"] != round_:
            round_ = int(p["round"])
            lines.append(f"Round {round_}")
        elif event.type == "ended":
            lines.append(f"Result: {p['winner']} wins in round {round_} ({p['reason']})")
    return lines
