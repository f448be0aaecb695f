"""The export document, and the seeds of a bout (with rotation for long bouts).

An export is one JSON document:

    {"bout": {"id", "system", "name", "rules", "created_at", "status"},
     "fairness": {"commitment", "client_seed", "server_seed" (null until revealed),
                  "rotations": [...]  (only when the seed was rotated)},
     "events": [...]}

`fairness.commitment` / `fairness.server_seed` are the bout's first seed (seed 0), the one
committed to before the first roll. Rotation: an event of type `seed_rotated` with payload
`{"index": k, "server_seed": <seed k-1, revealed>, "next_commitment": <commitment of seed k>}`
retires seed k-1; the rolls after it use seed k with nonces from 0 again. Each later seed
is listed in `fairness.rotations` as `{"index", "seq", "commitment", "server_seed"}`, `seq`
being the `seed_rotated` event that published it.

>>> seed0 = SeedRecord(0, "c0" * 32, None, None)
>>> doc = build_export({"id": "b1"}, [seed0], "table", [])
>>> doc["fairness"]["client_seed"], doc["fairness"]["server_seed"], "rotations" in doc["fairness"]
('table', None, False)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.errors import LimitError, NotationError, RuleError
from referee.ledger.chain import Event
from referee.ledger.printable import shown
from referee.payloads.events import BoutOpened, Roll, SeedRotated
from referee.rng.streams import ONE_SEQUENCE, SCHEME_KEY, STREAMS
from referee.vocabulary import EventType

#: The event type that reveals the old server seed and publishes the next commitment.
SEED_ROTATED = EventType.SEED_ROTATED.value

#: The event type that closes a bout; its payload may reveal the current seed as `server_seed`.
CLOSED = EventType.CLOSED.value

#: The event type of one verifiable roll; its payload has `nonce`, `dice` and `faces` (and
#: `stream` in a bout of dice scheme 2).
ROLL = EventType.ROLL.value

#: The event a bout's chain opens with; its payload carries the header (and the dice scheme).
OPENED = EventType.BOUT_OPENED.value

#: The bout fields an export carries, in order.
BOUT_FIELDS = ("id", "system", "name", "rules", "created_at", "status")


@dataclass(frozen=True, slots=True)
class SeedRecord:
    """One server seed of a bout as it may be published: its commitment, the seed once revealed.

    `index` 0 is the first seed; `seq` is the `seed_rotated` event that published a later
    seed's commitment (None for seed 0).
    """

    index: int
    commitment: str
    server_seed: str | None
    seq: int | None

    def as_rotation(self) -> dict[str, Any]:
        """The entry of `fairness.rotations` for a later seed.

        >>> SeedRecord(1, "ab" * 32, None, 9).as_rotation()["seq"]
        9
        """
        return {
            "index": self.index,
            "seq": self.seq,
            "commitment": self.commitment,
            "server_seed": self.server_seed,
        }


@dataclass(frozen=True, slots=True)
class SeedPosition:
    """Where the next roll stands: which seed (0, 1, ...) and which nonce of that seed (in
    scheme 1; in scheme 2 `nonce` counts the rolls under that seed, of every stream)."""

    index: int
    nonce: int


def build_export(
    bout: Mapping[str, Any],
    seeds: Sequence[SeedRecord],
    client_seed: str,
    events: Sequence[Event],
    openings: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The export document of a bout: its fields, its fairness record and every event (as the
    chain holds it), with the `openings` of sealed events given (`referee.ledger.seal`; the
    key only when there are some). A bout of ledger 2 (its header says) states its dice scheme
    in `fairness.dice_scheme` too.

    >>> doc = build_export({"id": "b1", "status": "ended"}, [SeedRecord(0, "c" * 64, "s", None)],
    ...                    "table", [])
    >>> list(doc), doc["bout"], doc["fairness"]["server_seed"]
    (['bout', 'fairness', 'events'], {'id': 'b1', 'status': 'ended'}, 's')
    """
    if not seeds or seeds[0].index != 0:
        raise RuleError(
            f"an export needs the bout's first seed (index 0), got {shown(list(seeds))}"
        )
    first = seeds[0]
    fairness: dict[str, Any] = {
        "commitment": first.commitment,
        "client_seed": client_seed,
        "server_seed": first.server_seed,
    }
    if len(seeds) > 1:
        fairness["rotations"] = [seed.as_rotation() for seed in seeds[1:]]
    if ledger_format(events) >= WHOLE_RECORD:
        fairness["dice_scheme"] = dice_scheme(events)
    doc: dict[str, Any] = {
        "bout": {key: bout[key] for key in BOUT_FIELDS if key in bout},
        "fairness": fairness,
        "events": [dict(event) for event in events],
    }
    if openings:
        doc["openings"] = dict(openings)
    return doc


#: The ledger format whose chain carries every input of every face (the client seed's parts and
#: its fixing) and seals hidden values (`referee.ledger.seal`); 1 is a bout made before.
WHOLE_RECORD = 2
#: The ledger formats this code reads.
LEDGER_FORMATS = (1, WHOLE_RECORD)


def ledger_format(events: Sequence[Mapping[str, Any]]) -> Any:
    """The ledger format a bout's header names (`ledger`; 1 when it names none, as before).

    >>> ledger_format([{"type": "bout_opened", "payload": {"ledger": 2}}]), ledger_format([])
    (2, 1)
    """
    first = events[0] if events else None
    if not isinstance(first, Mapping) or first.get("type") != OPENED:
        return 1
    opened = BoutOpened.given(first.get("payload"))
    return opened.ledger if opened.has("ledger") else 1


def client_seed_part_of(events: Sequence[Mapping[str, Any]]) -> str | None:
    """The referee's part of the client seed, as a bout's header carries it (ledger 2), or
    None for a chain whose header does not."""
    first = events[0] if events else None
    if not isinstance(first, Mapping) or first.get("type") != OPENED:
        return None
    part = BoutOpened.given(first.get("payload")).client_seed
    return part if isinstance(part, str) else None


def rotation_payload(index: int, old_server_seed: str, next_commitment: str) -> dict[str, Any]:
    """The payload of a `seed_rotated` event that starts seed `index`.

    >>> sorted(rotation_payload(1, "a" * 64, "b" * 64))
    ['index', 'next_commitment', 'server_seed']
    """
    return SeedRotated(
        index=index, server_seed=old_server_seed, next_commitment=next_commitment
    ).to_json()


def roll_payload(nonce: int, dice: Sequence[str], faces: Sequence[int]) -> dict[str, Any]:
    """The payload core of a `roll` event (add any other keys the bout engine needs).

    >>> roll_payload(0, ["d20", "d20", "d6"], [14, 3, 5])
    {'nonce': 0, 'dice': ['d20', 'd20', 'd6'], 'faces': [14, 3, 5]}
    """
    return Roll(nonce=nonce, dice=tuple(dice), faces=tuple(faces)).to_json()


def seed_position(events: Sequence[Mapping[str, Any]]) -> SeedPosition:
    """The seed and nonce the next roll uses, after these events.

    >>> seed_position([{"type": "roll"}, {"type": "roll"}])
    SeedPosition(index=0, nonce=2)
    >>> seed_position([{"type": "roll"}, {"type": "seed_rotated"}, {"type": "roll"}])
    SeedPosition(index=1, nonce=1)
    """
    return advance(SeedPosition(0, 0), events)


def advance(position: SeedPosition, events: Sequence[Mapping[str, Any]]) -> SeedPosition:
    """`position` moved on by more events: how a store that knows where a bout stood reads only
    its new events.

    >>> advance(SeedPosition(0, 2), [{"type": "roll"}, {"type": "seed_rotated"}])
    SeedPosition(index=1, nonce=0)
    """
    index, nonce = position.index, position.nonce
    for event in events:
        kind = event.get("type")
        if kind == SEED_ROTATED:
            index, nonce = index + 1, 0
        elif kind == ROLL:
            nonce += 1
    return SeedPosition(index, nonce)


def dice_scheme(events: Sequence[Mapping[str, Any]]) -> Any:
    """The dice scheme of a bout's events (`referee.rng.streams`): what its first event, the
    header, says (`dice_scheme`; 1 when it says nothing, as before streams). A bare chain with
    no header is of scheme 2 when a roll names its stream.

    >>> dice_scheme([{"type": "bout_opened", "payload": {"dice_scheme": 2}}])
    2
    >>> dice_scheme([{"type": "roll", "payload": {"nonce": 0}}])
    1
    """
    first = events[0] if events else None
    if isinstance(first, Mapping) and first.get("type") == OPENED:
        opened = BoutOpened.given(first.get("payload"))
        if not opened.is_object:
            return ONE_SEQUENCE
        return opened.dice_scheme if opened.has(SCHEME_KEY) else ONE_SEQUENCE
    for event in events:
        if not isinstance(event, Mapping) or event.get("type") != ROLL:
            continue
        if Roll.given(event.get("payload")).has("stream"):
            return STREAMS
    return ONE_SEQUENCE


def stream_nonce(events: Sequence[Mapping[str, Any]], stream: str) -> int:
    """The nonce the next roll of `stream` takes under the current seed (scheme 2): one more
    than the stream's last roll since the last rotation, else 0. Reads back from the end and
    stops at that roll, so a fighter's next nonce costs a few events, not the whole bout.

    >>> roll = {"type": "roll", "payload": {"stream": "act:Tarl", "nonce": 4}}
    >>> stream_nonce([roll, {"type": "turn"}], "act:Tarl"), stream_nonce([roll], "free:Tarl")
    (5, 0)
    >>> stream_nonce([roll, {"type": "seed_rotated"}], "act:Tarl")
    0
    """
    for event in reversed(events):
        kind = event.get("type")
        if kind == SEED_ROTATED:
            return 0
        if kind == ROLL:
            # `Roll.given(payload).stream`, without making a `Given` of every roll passed by
            payload = event.get("payload")
            if type(payload) is not dict and not isinstance(payload, Mapping):
                continue  # a roll that is not an object names no stream
            if payload.get(_STREAM) == stream:
                nonce: Any = payload.get(_NONCE)
                return int(nonce) + 1
    return 0


#: The keys of a roll's stream and nonce (`stream_nonce`).
_STREAM, _NONCE = Roll.json_key("stream"), Roll.json_key("nonce")


def parse_export(text: str, name: str = "the export") -> Any:
    """Read an export's JSON text; NotationError (or LimitError) says why it cannot be read.

    >>> parse_export('{"bout": {}}')
    {'bout': {}}
    >>> parse_export("[1, ")
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: the export is not JSON: Expecting value at line 1 column 5
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise NotationError(
            f"{name} is not JSON: {err.msg} at line {err.lineno} column {err.colno}"
        ) from None
    except RecursionError:
        raise LimitError(f"{name} nests JSON too deeply") from None
    except ValueError as err:  # an integer beyond Python's digit limit for reading numbers
        raise LimitError(f"{name} holds a number too long to read ({err})") from None
