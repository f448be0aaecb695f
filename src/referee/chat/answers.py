"""How chat answers read: one short plain-text line from the service's records.

>>> said({"summary": "Tarl hits Pa-Kur for 2.", "rolls": [{"nonce": 3}], "next": "Pa-Kur"})
'Tarl hits Pa-Kur for 2. [nonce 3] Next: Pa-Kur.'
>>> score_line([{"name": "Tarl", "wounds": 2, "threshold": 5, "defeated": False}])
'Tarl 2/5'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from referee.dice import Odds, parse, render, roll, write
from referee.dice.render import number
from referee.rng import ScriptedRng

#: Largest answer (and line) the chat speaks, in UTF-8 bytes: a Second Life chat message.
MAX_CHAT_BYTES = 1024

HELP = (
    "referee chat: //roll -sides100 -dice1 | roll 2d20+1d6 | odds 2d6+3 | attack TARGET | "
    "spirit TARGET (SRP spirit combat, one round) | act KIND key=value.. | status | score | "
    "quit | help. Referee: init, add NAME CS [SIDE], update NAME key=value.., remove NAME, "
    "attack ATTACKER TARGET, spirit FIGHTER TARGET, pause, resume, skip, void, "
    "close joining, end bout [SIDE], cancel bout, close bout. Names need no quotes or capitals. "
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
    if answer.get("failed"):
        text = f"failed after its dice were thrown and recorded: {answer['failed']}"
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


def roll_line(
    who: str,
    expression: str,
    faces: Sequence[int],
    nonces: Sequence[int],
    failed: str | None = None,
) -> str:
    """A notation roll as said in chat, every face shown, from its recorded faces (or, for a
    roll that failed after its dice were thrown, the faces and why).

    >>> roll_line("Tarl", "2d20+1d6", [14, 3, 5], [4, 5])
    'Tarl rolled 2d20+1d6 = [14, 3] + [5] = 22 (nonce 4, 5)'
    >>> roll_line("Tarl", "1d6", [2], [7], failed="too deep")
    'Tarl rolled 1d6: faces 2, then it failed (recorded): too deep (nonce 7)'
    """
    numbers = f"(nonce {', '.join(str(n) for n in nonces)})"
    if failed is not None:
        shown = ", ".join(str(f) for f in faces)
        said = f"faces {shown}, then it failed (recorded): {failed}"
        return f"{who} rolled {expression}: {said} {numbers}"
    shown = render(roll(parse(expression), rng=ScriptedRng(faces)))
    return f"{who} rolled {shown} {numbers}"


#: Most totals whose P(>=) one odds answer lists (evenly spread when there are more).
ODDS_POINTS = 12


def _percent(p: Fraction) -> str:
    if p and p < Fraction(1, 10**4):
        return f"{float(p) * 100:.1e}%"
    return f"{float(p) * 100:.2f}".rstrip("0").rstrip(".") + "%"


def _exact(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    shown = f"{float(value):.4f}"
    return f"{shown} ({value})" if len(str(value)) <= 12 else shown


def odds_line(answer: Odds, dialect: str, limit: int = MAX_CHAT_BYTES) -> str:
    """The exact odds of a roll in one chat line: mean, sd, range, the likeliest totals and
    P(at least) at up to `ODDS_POINTS` totals (all of them when there are no more).

    >>> from referee.dice import odds
    >>> odds_line(odds(parse("2d6")), "roll20")  # doctest: +NORMALIZE_WHITESPACE
    'odds 2d6 (roll20, exact): mean 7, sd 2.4152, 2..12; most likely 7 16.67%, 6 13.89%,
     8 13.89%; P(>=) 2 100%, 3 97.22%, 4 91.67%, 5 83.33%, 6 72.22%, 7 58.33%, 8 41.67%,
     9 27.78%, 10 16.67%, 11 8.33%, 12 2.78%'
    """
    rows = answer.table()
    low, high = number(rows[0][0]), number(rows[-1][0])
    head = (
        f"odds {write(answer.expression, dialect)} ({dialect}, exact): mean {_exact(answer.mean)}, "
        f"sd {answer.sd:.4f}, {low}..{high}"
    )
    likely = sorted(rows, key=lambda r: (-r[1], r[0]))[:3]
    parts = [head, "most likely " + ", ".join(f"{number(t)} {_percent(p)}" for t, p, _ in likely)]
    if len(rows) <= ODDS_POINTS:
        picked = rows
    else:
        step = (len(rows) - 1) / (ODDS_POINTS - 1)
        picked = [rows[round(i * step)] for i in range(ODDS_POINTS)]
    parts.append("P(>=) " + ", ".join(f"{number(t)} {_percent(a)}" for t, _, a in picked))
    if answer.chained:
        parts.append(f"chains stop at depth {answer.depth}, reached {_percent(answer.capped)}")
    return clip("; ".join(parts), limit)
