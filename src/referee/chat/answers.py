"""How chat answers read: one short plain-text line from the service's records.

>>> said({"summary": "Tarl hits Pa-Kur for 2.", "rolls": [{"nonce": 3}], "next": "Pa-Kur"})
'Tarl hits Pa-Kur for 2. [nonce 3] Next: Pa-Kur.'
>>> score_line([{"name": "Tarl", "wounds": 2, "threshold": 5, "defeated": False}])
'Tarl 2/5'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.dice import parse, render, roll
from referee.rng import ScriptedRng

#: Largest answer (and line) the chat speaks, in UTF-8 bytes: a Second Life chat message.
MAX_CHAT_BYTES = 1024

HELP = (
    "referee chat: //roll -sides100 -dice1 | roll 2d20+1d6 | attack TARGET | "
    "act KIND key=value.. | status | score | quit | help. Referee: init, add NAME CS [SIDE], "
    "update NAME key=value.., remove NAME, attack ATTACKER TARGET, pause, resume, skip, void, "
    "end bout [SIDE], cancel bout, close bout. Names need no quotes or capitals. "
    "Every line but help needs a token of the bout."
)


def clip(text: str, limit: int = MAX_CHAT_BYTES) -> str:
    """`text` cut to at most `limit` UTF-8 bytes, never inside a character.

    >>> len(clip("é" * 600).encode("utf-8")), clip("é" * 600)[-4:]
    (1023, 'é...')
    """
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[: limit - 3].decode("utf-8", "ignore") + "..."


def error_line(message: str) -> str:
    """The one plain-text line an error becomes: `error: ...`, on one line, clipped.

    >>> error_line("no fighter called 'Bob'\\n(fighters: Tarl)")
    "error: no fighter called 'Bob' (fighters: Tarl)"
    """
    return clip("error: " + " ".join(message.split()))


def said(answer: Mapping[str, Any]) -> str:
    """An action's answer: the rules' reading, the nonces, and who is next (or who won)."""
    text = str(answer.get("summary") or "done")
    rolls = answer.get("rolls") or []
    if rolls:
        nonces = ", ".join(str(r.get("nonce")) for r in rolls)
        text += f" [nonce {nonces}]"
    if answer.get("winner"):
        text += f" {answer['winner']} wins the bout."
    elif answer.get("extra_action"):
        text += f" {answer.get('actor')} acts again at once."
    elif answer.get("next"):
        text += f" Next: {answer['next']}."
    return text


def score_line(rows: Sequence[Mapping[str, Any]]) -> str:
    """Wounds against thresholds, `Tarl 2/5 | Pa-Kur 5/5 down`."""
    return " | ".join(
        f"{r['name']} {r['wounds']}/{r['threshold']}{' down' if r['defeated'] else ''}"
        for r in rows
    )


def status_line(
    name: str, status: str, round_: int, current: str | None, winner: str | None
) -> str:
    """`Spar: running, round 2, Tarl to act` (without the score).

    >>> status_line("Spar", "running", 2, "Tarl", None)
    'Spar: running, round 2, Tarl to act'
    """
    parts = [f"{name}: {status}"]
    if current:
        parts.append(f"round {round_}, {current} to act")
    if winner:
        parts.append(f"winner {winner}")
    return ", ".join(parts)


def roll_line(who: str, expression: str, faces: Sequence[int], nonces: Sequence[int]) -> str:
    """A notation roll as said in chat, every face shown, from its recorded faces.

    >>> roll_line("Tarl", "2d20+1d6", [14, 3, 5], [4, 5])
    'Tarl rolled 2d20+1d6 = [14, 3] + [5] = 22 (nonce 4, 5)'
    """
    shown = render(roll(parse(expression), rng=ScriptedRng(faces)))
    return f"{who} rolled {shown} (nonce {', '.join(str(n) for n in nonces)})"
