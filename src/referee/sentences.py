"""One sentence per event: how every part of the referee says what happened.

`sentence(event, system)` turns one ledger event (a record with `type`, `actor`, `payload`)
into the line people read; the service's answers, the chat endpoint and the Second Life HUD,
the chat export, the judge's report and the Discord bot all say events through it, and the
web console through its twin, static/js/sentences.js (tests/test_sentences.py renders every
event type of both rule systems through both and compares). A roll is said as the chat host
would say it (`roll_line`), with its receipt.

Shown, not decided: the words come from the payload read in its declared shape
(`referee.payloads`), and a redacted event is said as redacted (its hidden values "hidden").

>>> sentence({"type": "wound", "actor": "system",
...           "payload": {"target": "Orc", "amount": 3, "total": 5}}, "srp")
'Orc takes 3 hits (5 in all)'
>>> sentence({"type": "turn", "actor": "system", "payload": {"fighter": "Orc", "round": 2}})
"Round 2: Orc's turn"
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from referee.aol import mixed_line, receipt_text, signed
from referee.errors import NotFoundError
from referee.vocabulary import EventType

if TYPE_CHECKING:
    from referee.payloads import Shape
    from referee.payloads import events as p
    from referee.systems.base import RuleSystem

# The payloads' shapes and the rule systems are loaded by the functions that read an event:
# a caller of the phrases alone (the judge's report: `order_text`) starts without them.

Record = Mapping[str, Any]
#: Who the referee is in a sentence (its actor name in the ledger is "referee").
REFEREE = "Referee"


#: Stats that chat lines leave to the map (where a fighter stands and faces, the round of its
#: last extra attack): the console's log says them, the chat and the CLI's fight log do not.
QUIET_STATS = frozenset({"x_cm", "y_cm", "facing", "extra_attack_round"})


def who(actor: Any) -> str:
    """An actor as a sentence names it: the referee as `Referee`, a fighter by name.

    >>> who("referee"), who("Tarl")
    ('Referee', 'Tarl')
    """
    return REFEREE if actor == "referee" else str(actor)


def _system(name: str | None) -> type[RuleSystem] | None:
    from referee.systems.base import find_system

    try:
        return find_system(name) if name else None
    except NotFoundError:
        return None


def condition_words(name: str, system: str | None = None) -> str:
    """A condition as people read it: the rule system's words, else its name unbarred.

    >>> condition_words("lost_action", "srp"), condition_words("dazzled_badly")
    ('loses an action', 'dazzled badly')
    """
    rules = _system(system)
    words = rules.condition_words if rules is not None else {}
    return words.get(name, str(name).replace("_", " "))


def value_text(value: Any) -> str:
    """A stat's value in a sentence: text and numbers as they are, anything else as JSON.

    >>> value_text(90), value_text("hidden"), value_text([1, 2]), value_text(None)
    ('90', 'hidden', '[1,2]', 'null')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    import json  # a value neither text nor a number is rare (the judge's report has none)

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def receipt(payload: Mapping[str, Any], roller: str | None = None) -> str:
    """A roll's receipt: ` (nonce 4)`, with its stream when it is not the roller's actions
    (` (nonce 0, free:Tarl)`); none for dice the service did not throw
    (`referee.dice.chat.receipt_text`).

    >>> receipt({"nonce": 0, "stream": "free:Tarl"}, "Tarl"), receipt({"nonce": None})
    (' (nonce 0, free:Tarl)', '')
    """
    from referee.payloads import events as p

    roll = p.Roll.read({"nonce": None, "dice": (), "faces": (), **payload})
    return receipt_text(str(roller), roll.nonce, roll.stream)


def roll_line(roller: str, payload: Mapping[str, Any], signature: str | None = None) -> str:
    """A roll as the chat host says it, with its receipt (and the service's `signature` of
    it, when given: `referee.ledger.signatures`): dice all alike as the AOL host line (MSV-1),
    mixed dice (SRP's d20, d20, d6) one by one; both written by `referee.dice.chat`.

    >>> roll_line("Tarl", {"nonce": 3, "dice": ["d100"], "faces": [47], "stream": "act:Tarl"})
    'OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 3)'
    >>> roll_line("Ann", {"nonce": 0, "dice": ["d20", "d20", "d6"], "faces": [14, 3, 5]})
    'Ann rolls d20 d20 d6: 14 3 5 (nonce 0)'
    """
    from referee.payloads import events as p

    roll = p.Roll.read({"nonce": None, "dice": (), "faces": (), **payload})
    dice, faces = [str(d) for d in roll.dice], [int(f) for f in roll.faces]
    nonce = roll.nonce
    if dice and len(set(dice)) == 1:
        noun = "die" if len(dice) == 1 else "dice"
        said = " ".join(str(f) for f in faces)
        line = f"OnlineHost: {roller} rolled {len(dice)} {dice[0][1:]}-sided {noun}: {said}"
        return signed(line + receipt_text(roller, nonce, roll.stream), signature)
    return mixed_line(roller, dice, faces, nonce, roll.stream, signature)


def _stream_text(payload: Mapping[str, Any]) -> str:
    from referee.payloads import events as p

    roll = p.Roll.read({"nonce": None, "dice": (), "faces": (), **payload})
    nonce, stream = roll.nonce, roll.stream
    if nonce is None:
        return "unverifiable"
    return f"nonce {nonce} of {stream}" if stream else f"nonce {nonce}"


def roll_text(payload: Mapping[str, Any]) -> str:
    """A roll by itself: each die and its face, and where it stands in its dice.

    >>> roll_text({"nonce": 4, "dice": ["d20", "d6"], "faces": [14, 5], "stream": "act:Ann"})
    'd20 14 · d6 5 (nonce 4 of act:Ann)'
    """
    from referee.payloads import events as p

    roll = p.Roll.read(payload)
    faces = " · ".join(f"{d} {f}" for d, f in zip(roll.dice, roll.faces, strict=False))
    return f"{faces} ({_stream_text(payload)})"


def options_text(options: Mapping[str, Any] | None) -> str:
    """An action's options but its target: ` (weapon axe, defend none)`.

    >>> options_text({"target": "Orc", "weapon": "axe", "path": [[0, 150]]})
    ' (weapon axe, path [[0,150]])'
    """
    rest = [(k, v) for k, v in (options or {}).items() if k != "target"]
    return f" ({', '.join(f'{k} {value_text(v)}' for k, v in rest)})" if rest else ""


def order_text(order: Sequence[str]) -> str:
    """The settled order of initiative, as an `initiative` event says it (the judge's report
    says a log's order the same way).

    >>> order_text(["Tarl", "Pa-Kur"])
    'Initiative: Tarl > Pa-Kur'
    """
    return f"Initiative: {' > '.join(order)}"


def _action(e: Record, a: p.Action, system: str | None) -> str:
    actor = who(e.get("actor"))
    sent = f" (sent by {who(a.by)})" if a.by and a.by != e.get("actor") else ""
    failed = " (failed)" if a.failed else ""
    if a.kind == "initiative":
        return f"{actor} rolls initiative{failed}{sent}"
    label = f" - {a.label}" if a.label else ""
    if a.kind == "roll" and a.expression:
        total = "" if a.failed else f" = {a.total}"
        free = f"(free roll{', failed' if a.failed else ''})"
        return f"{actor} rolls {a.expression}{total} {free}{sent}{label}"
    if a.kind == "roll":
        dice = list(a.dice or ())
        shown = f"{len(dice)} × {dice[0] if dice else '?'}"
        return f"{actor} rolls {shown} (free roll{', failed' if a.failed else ''}){sent}{label}"
    options = a.options or {}
    target = f" → {options['target']}" if "target" in options else ""
    return f"{actor}: {a.kind}{target}{options_text(options)}{failed}{sent}"


def _updated(e: Record, u: p.FighterUpdated, system: str | None) -> str:
    changed = [
        *(["stats changed"] if u.stats is not None else []),
        *([f"wounds set to {u.wounds}"] if u.wounds is not None else []),
    ]
    why = f" ({u.reason})" if u.reason else ""
    return f"{u.name} is updated: {', '.join(changed) or 'nothing'}{why}"


def _added(e: Record, f: p.FighterAdded, system: str | None) -> str:
    joins = f"{f.name} joins on side {f.side or f.name}"
    if not f.carried:
        return joins
    return f"{joins}, carried from the last fight with {f.wounds or 0} wounds taken"


def _wound(e: Record, w: p.Wound, system: str | None) -> str:
    rules = _system(system)
    one, many = rules.wound_words if rules is not None else ("wound", "wounds")
    return f"{w.target} takes {w.amount} {one if w.amount == 1 else many} ({w.total} in all)"


def _condition(e: Record, c: p.Condition, system: str | None) -> str:
    words = condition_words(c.condition, system)
    if c.rounds == 0:
        return f"{c.target}: {words} ends"
    if c.rounds is None:
        return f"{c.target}: {words} (until cleared)"
    return f"{c.target}: {words} ({c.rounds} turn{'' if c.rounds == 1 else 's'} left)"


def _stat(e: Record, s: p.Stat, system: str | None) -> str:
    if s.key == "holds":
        return f"{s.target} holds {s.value}" if s.value else f"{s.target} lets go"
    if s.key == "mounted" and isinstance(s.value, bool):
        return f"{s.target} is {'mounted' if s.value else 'on foot'}"
    return f"{s.target}'s {s.key} is now {value_text(s.value)}"


def _overridden(e: Record, o: p.Overridden, system: str | None) -> str:
    was = ", ".join(f"{w.target} {w.amount}" for w in o.original) or "no wounds"
    now = ", ".join(f"{w.target} {w.amount}" for w in o.wounds) or "no wounds"
    note = f' ("{o.note}")' if o.note else ""
    return f"Event {o.of} is overridden: wounds {was} → {now}{note}"


def _ended(e: Record, d: p.Ended, system: str | None) -> str:
    winner = f"side {d.winner} wins" if d.winner else "no winner"
    return f"Bout ended: {winner} ({d.reason})"


Say = Callable[[Record, Any, "str | None"], str]

_SAY: Mapping[EventType, Say] = {
    EventType.BOUT_OPENED: lambda e, o, s: f'Bout "{o.name}" opened ({o.system})',
    EventType.FIGHTER_ADDED: _added,
    EventType.FIGHTER_UPDATED: _updated,
    EventType.FIGHTER_REMOVED: lambda e, n, s: f"{n.name} leaves the bout",
    EventType.REVEALED: lambda e, r, s: (
        f"{r.name}'s {', '.join(r.keys or ()) or 'hidden stats'} revealed"
    ),
    EventType.CLIENT_SEED_FIXED: lambda e, f, s: f"The client seed is fixed: {f.client_seed}",
    EventType.ACTION: _action,
    EventType.ROLL: lambda e, r, s: roll_text(e.get("payload") or {}),
    EventType.INITIATIVE: lambda e, i, s: order_text(i.order),
    EventType.OUTCOME: lambda e, o, s: str(o.summary),
    EventType.FAILED: lambda e, f, s: (
        f"Could not be settled after its dice were recorded: {f.error}"
    ),
    EventType.WOUND: _wound,
    EventType.CONDITION: _condition,
    EventType.STAT: _stat,
    EventType.DEFEATED: lambda e, d, s: (
        f"{d.name} is defeated" if d.defeated else f"{d.name} is back on their feet"
    ),
    EventType.TURN: lambda e, t, s: f"Round {t.round}: {t.fighter}'s turn",
    EventType.SKIPPED: lambda e, k, s: f"{k.name}'s turn passes: {k.reason}",
    EventType.PAUSED: lambda e, n, s: "The bout is paused",
    EventType.RESUMED: lambda e, n, s: "The bout is resumed",
    EventType.JOINING_CLOSED: lambda e, n, s: "Joining is closed: no more fighters may join",
    EventType.OVERRIDDEN: _overridden,
    EventType.VOIDED: lambda e, v, s: f"Events {v.first}..{v.last} are voided (undone)",
    EventType.ENDED: _ended,
    EventType.CANCELLED: lambda e, c, s: f"Bout cancelled ({c.reason})",
    EventType.REFEREE_CHANGED: lambda e, n, s: "The bout was handed to another referee",
    EventType.SEED_ROTATED: lambda e, r, s: (
        f"Server seed {r.index - 1} revealed, nonces from 0; commitment {r.next_commitment}"
    ),
    EventType.CLOSED: lambda e, c, s: f"Bout closed: server seed {c.server_seed} revealed",
    EventType.TIME_PASSED: lambda e, t, s: (
        f"{t.minutes} minutes of play pass ({t.reason}): minute {t.clock} of the evening"
    ),
}


def explanation(event: Record, system: str | None) -> list[str]:
    """The lines an outcome explains itself with (SRP), read in its system's declared shape;
    none for another event, or an outcome that has none (or left them out, redacted).

    >>> explanation({"type": "outcome", "payload": {"kind": "break_free", "step": 2,
    ...     "roll": 4, "defense": 9, "freed": True, "explanation": ["4 <= 9: free"]}}, "srp")
    ['4 <= 9: free']
    """
    rules = _system(system)
    payload = event.get("payload") or {}
    if event.get("type") != EventType.OUTCOME or rules is None:
        return []
    part = rules.outcomes.get(str(payload.get("kind")))
    if part is None or part.field("explanation") is None or "explanation" not in payload:
        return []
    return [str(line) for line in getattr(part.read(payload), "explanation", None) or ()]


def initiative_readings(detail: Mapping[str, Any], system: str | None) -> list[tuple[str, str]]:
    """How an initiative's rolls read, in the order they were thrown: (roller, reading) for
    each roll, and ("", line) for a group that ties or cannot roll (MSV-5; SRP-19).

    >>> initiative_readings({"method": "roll", "rolls": [
    ...     {"name": "Ann", "d20": 11, "initiative": 2, "total": 13}]}, "srp")
    [('Ann', 'Ann: d20 11 + initiative 2 = 13')]
    """
    rules = _system(system)
    if rules is None or not detail:
        return []
    read = rules.initiative_detail.read(detail)
    out: list[tuple[str, str]] = []
    for record in getattr(read, "rounds", None) or ():  # MSV-5: rounds of d100 against CS
        if record.unrollable:
            out.append(("", f"{', '.join(record.group)} have CS 0: kept in the order given"))
            continue
        again = f" (reroll {record.round})" if record.round > 1 else ""
        for r in record.rolls:
            out.append((r.name, f"{r.name}: {r.roll} vs CS {r.cs}, effect {r.effect}{again}"))
        out += [("", f"tied: {', '.join(tie)} - they roll again") for tie in record.ties]
    for r in getattr(read, "rolls", None) or ():  # SRP-19: d20 + initiative
        out.append((r.name, f"{r.name}: d20 {r.d20} + initiative {r.initiative} = {r.total}"))
    return out


#: Every event type by its name (a type, which is its name, finds itself): a dict lookup where
#: `EventType(name)` is two calls in Python, for each sentence (the chat's answer to every action
#: has one or two). A name that is not a type's goes to `EventType`, which refuses it.
_TYPES: dict[str, EventType] = {kind.value: kind for kind in EventType}


def sentence(event: Record, system: str | None = None) -> str:
    """The sentence one event says (see the module text); `system` is the bout's rule system
    (its words for wounds and conditions)."""
    from referee.payloads import SHAPES

    named = event.get("type")
    kind = _TYPES.get(named) if isinstance(named, str) else None
    if kind is None:
        kind = EventType(str(named))
    shape: type[Shape] = SHAPES[kind]
    return _SAY[kind](event, shape.read(event.get("payload") or {}), system)


def sentences(events: Sequence[Record], system: str | None = None) -> list[str]:
    """Every event's sentence, in order (the system from the bout's opening event if it is
    among them and `system` is not given)."""
    from referee.payloads import events as p

    if system is None:
        opened = next((e for e in events if e.get("type") == EventType.BOUT_OPENED), None)
        system = str(p.BoutOpened.given(opened.get("payload")).system) if opened else None
    return [sentence(e, system) for e in events]
