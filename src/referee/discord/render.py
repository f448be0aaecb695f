"""Stored events as the lines a chat fighter expects: the host line first, then the reading.

Shown, not decided: every line is made from recorded ledger events.

>>> lines = lines_for([
...     {"type": "action", "actor": "Tarl", "payload": {"kind": "attack"}},
...     {"type": "roll", "actor": "system",
...      "payload": {"faces": [47], "dice": ["d100"], "nonce": 3}},
...     {"type": "outcome", "actor": "system",
...      "payload": {"summary": "Tarl attacks Pa-Kur: 47 vs CS 65: hit, 4 damage"}},
...     {"type": "wound", "actor": "system", "payload": {"target": "Pa-Kur", "total": 4}},
...     {"type": "turn", "actor": "system", "payload": {"fighter": "Pa-Kur", "round": 1}},
... ], "msv")
>>> for line in lines:
...     print(line)
OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 3)
Tarl attacks Pa-Kur: 47 vs CS 65: hit, 4 damage
Pa-Kur: 4 damage in all
Next: Pa-Kur's turn (round 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.dice.chat import format_host_line


def _initiative(detail: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for record in detail.get("rounds") or []:
        if record.get("unrollable"):
            lines.append(f"{', '.join(record['group'])} have CS 0: kept in the order given")
            continue
        number = record.get("round", record.get("number", 1))
        for roll in record.get("rolls") or []:
            lines.append(format_host_line(roll["name"], 100, [roll["roll"]]))
            lines.append(
                f"  {roll['name']}: {roll['roll']} vs CS {roll['cs']}, effect {roll['effect']}"
                + (f" (reroll {number})" if number > 1 else "")
            )
        lines.extend(
            f"  tied: {', '.join(tie)} - they roll again" for tie in record.get("ties") or []
        )
    return lines


def _roll_line(actor: str, kind: str, system: str, p: Mapping[str, Any]) -> str:
    faces = [int(f) for f in p.get("faces") or []]
    dice = [str(d) for d in p.get("dice") or []]
    nonce = f" (nonce {p['nonce']})" if p.get("nonce") is not None else ""
    if system == "msv" and kind == "attack" and dice == ["d100"]:
        return format_host_line(actor, 100, faces) + nonce
    return f"{actor} rolls {' '.join(dice)}: {' '.join(str(f) for f in faces)}{nonce}"


def lines_for(records: Sequence[Mapping[str, Any]], system: str) -> list[str]:
    """The lines for the events one command stored."""
    lines: list[str] = []
    actor, kind, next_turn = "", "", ""
    for record in records:
        kind_of = str(record["type"])
        p: Mapping[str, Any] = record.get("payload") or {}
        if kind_of == "action":
            actor, kind = str(record["actor"]), str(p.get("kind"))
        elif kind_of == "roll" and kind != "initiative":
            lines.append(_roll_line(actor, kind, system, p))
        elif kind_of == "initiative":
            lines += ["Initiative:", *_initiative(p.get("detail") or {})]
            lines.append(f"Order: {', '.join(p.get('order') or [])}")
        elif kind_of == "outcome":
            lines.append(str(p.get("summary")))
            lines += [f"  {line}" for line in p.get("explanation") or []]
            if p.get("extra_action"):
                lines.append(f"Critical! {p.get('actor')} makes a free attack at once.")
        elif kind_of == "wound":
            lines.append(f"{p['target']}: {p['total']} damage in all")
        elif kind_of == "defeated":
            lines.append(
                f"{p['name']} is defeated" if p.get("defeated", True) else f"{p['name']} is up"
            )
        elif kind_of == "turn":
            next_turn = f"Next: {p['fighter']}'s turn (round {p['round']})"
        elif kind_of == "skipped":
            lines.append(f"{p.get('name')} loses the turn: {p.get('reason')}")
        elif kind_of == "ended":
            winner = p.get("winner")
            lines.append(
                f"Result: {winner + ' wins' if winner else 'no winner'} ({p.get('reason')})"
            )
        elif kind_of in ("paused", "resumed", "cancelled"):
            lines.append(f"The spar is {kind_of}.")
        elif kind_of == "voided":
            lines.append("The last action is void: it no longer counts.")
        elif kind_of == "overridden":
            changed = ", ".join(
                f"{w.get('target')} {w.get('amount')}" for w in p.get("wounds") or []
            )
            lines.append(f"The proctor overrides event {p.get('of')}: wounds now {changed}")
        elif kind_of == "fighter_removed":
            lines.append(f"{p.get('name')} has left the spar.")
        elif kind_of == "fighter_updated":
            lines.append(f"{p.get('name')} is updated.")
    if next_turn:
        lines.append(next_turn)
    return lines
