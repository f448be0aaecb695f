"""How chat answers read: one short plain-text line from the service's records.

An action's answer says its events as `referee.sentences` says them (the chat export, the
console's log and the Discord bot say the same words):

>>> said([{"type": "action", "actor": "Tarl", "payload": {"kind": "attack"}},
...       {"type": "roll", "actor": "Tarl", "payload": {"nonce": 3, "dice": ["d100"],
...        "faces": [47], "stream": "act:Tarl"}},
...       {"type": "outcome", "actor": "system", "payload": {"kind": "attack",
...        "actor": "Tarl", "summary": "Tarl attacks Pa-Kur: 47 vs CS 65: hit, 4 damage"}},
...       {"type": "turn", "actor": "system", "payload": {"fighter": "Pa-Kur", "round": 1}}])
"Tarl attacks Pa-Kur: 47 vs CS 65: hit, 4 damage (nonce 3). Round 1: Pa-Kur's turn."
>>> score_line([{"name": "Tarl", "wounds": 2, "threshold": 5, "defeated": False}])
'Tarl 2/5'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from referee.dice import Odds, parse, render, roll, write
from referee.dice.render import number
from referee.payloads import events as p
from referee.rng import ScriptedRng
from referee.sentences import receipt, sentence
from referee.vocabulary import EventType

#: Largest answer (and line) the chat speaks, in UTF-8 bytes: a Second Life chat message.
MAX_CHAT_BYTES = 1024

HELP = (
    "referee chat: //roll -sides100 -dice1 | roll 2d20+1d6 | odds 2d6+3 | attack TARGET | "
    "spirit TARGET (SRP spirit combat, one round) | act KIND key=value.. | status | score | "
    "quit | help. Referee: init, add NAME CS [SIDE], update NAME key=value.., remove NAME, "
    "attack ATTACKER TARGET, spirit FIGHTER TARGET, pause, resume, skip, void, "
    "close joining, end bout [SIDE], cancel bout, close bout. Characters (with your key): "
    "char list, char new NAME cs=65, char set NAME key=value.., join CHARACTER. Names need no "
    "quotes or capitals. Every line but help needs a token of the bout or a character key."
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


#: The events an action's chat answer says, each as `referee.sentences` says it: the rules'
#: reading (or why it failed) with its rolls' receipts, who fell, how the bout ended, whose
#: turn it is.
SAID = frozenset(
    {EventType.OUTCOME, EventType.FAILED, EventType.DEFEATED, EventType.ENDED, EventType.TURN}
)


#: The event types `said` looks at, read once (each `EventType.X` is a lookup on the class).
_ACTION, _ROLL, _TURN = EventType.ACTION, EventType.ROLL, EventType.TURN
_OUTCOME, _FAILED = EventType.OUTCOME, EventType.FAILED


def said(events: Sequence[Mapping[str, Any]], system: str | None = None) -> str:
    """An action's answer from its events (as the caller may see them): each of `SAID` as
    `referee.sentences` says it, the reading followed by its rolls' receipts, one sentence
    after another; an outcome that lets its actor act again at once says so."""
    # One pass over the events gathers what the answer needs (it is made for every action):
    # the first action's actor, the rolls and the events said, in order; then they are said.
    actor: Any = None
    acted = turned = False
    rolls: list[Mapping[str, Any]] = []
    spoken: list[Mapping[str, Any]] = []
    for event in events:
        kind = event.get("type")
        if kind == _ACTION:
            if not acted:
                actor, acted = event.get("actor"), True
        elif kind == _ROLL:
            rolls.append(event.get("payload") or {})
        elif kind in SAID:
            spoken.append(event)
            turned = turned or kind == _TURN
    if not spoken:
        return "done"
    roller = str(actor) if actor is not None else None
    receipts = "".join(receipt(payload, roller) for payload in rolls)
    parts: list[str] = []
    again: str | None = None
    for event in spoken:
        kind = event.get("type")
        text = sentence(event, system)
        if kind in (_OUTCOME, _FAILED):
            text += receipts
            receipts = ""
            if kind == _OUTCOME:
                outcome = p.Outcome.read(event.get("payload") or {})
                again = outcome.actor if outcome.extra_action else None
        parts.append(text if text.endswith((".", "!", "?")) else text + ".")
    if again is not None and not turned:
        parts.append(f"{again} acts again at once.")
    return " ".join(parts)


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
