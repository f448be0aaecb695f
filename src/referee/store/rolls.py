"""The bout's dice as the store hands them to a draft, and what a roll must be to be stored.

A bout of dice scheme 1 rolls one verifiable sequence (`Thrown`), one of scheme 2 a stream per
owner (`ThrownStreams`); both keep what they threw, so that the store compares a new roll with
its throw (nonce, dice and faces) instead of deriving it from the seed again. Each stream's
next nonce is kept forwards (`rolls_of`), not read back through the events.

>>> rolls = rolls_of({}, [{"type": "roll", "payload": {"nonce": 4, "stream": "act:A"}}])
>>> next_nonce(rolls, "act:A"), next_nonce(rolls, "act:B")
(5, 0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import ConflictError, RuleError
from referee.ledger import ROLL, SEED_ROTATED, Event, SeedPosition, dice_scheme, stream_nonce
from referee.payloads import Given
from referee.payloads.events import Roll
from referee.rng import Throw, VerifiableRng, VerifiableStreams
from referee.rng.streams import STREAMS
from referee.store.records import ServerSeed


def dice_of(
    seed: ServerSeed,
    client_seed: str,
    current: list[Event],
    position: SeedPosition,
    rolls: Mapping[str, Any],
) -> Thrown | ThrownStreams:
    """The bout's dice at its current seed (`position`, where the ledger stands; `rolls`, its
    streams' last rolls, `rolls_of(current)`), by its dice scheme, keeping what they
    throw."""
    if dice_scheme(current) == STREAMS:
        return ThrownStreams(seed.server_seed, client_seed, rolls, position)
    return Thrown(seed.server_seed, client_seed, position)


def rolls_of(rolls: Mapping[str, Any], events: list[Event]) -> dict[str, Any]:
    """`rolls` (the nonce of each stream's last roll since the last rotation, as the roll's
    payload has it, in the events before `events`) moved on by `events`: a new dictionary.

    What `stream_nonce` reads back through the events for one stream, read forwards for all
    of them: a rotation forgets every stream; a later roll of a stream replaces its earlier
    one. Only streams that are text are kept (`stream_nonce` is asked for those only).
    """
    moved = dict(rolls)
    for event in events:
        kind = event.get("type")
        if kind == SEED_ROTATED:
            moved = {}
        elif kind == ROLL:
            roll = Roll.given(event.get("payload"))
            if isinstance(roll.stream, str):
                moved[roll.stream] = roll.nonce
    return moved


def next_nonce(rolls: Mapping[str, Any], stream: str) -> int:
    """`stream_nonce(events, stream)` for the events `rolls` is `rolls_of`."""
    return int(rolls[stream]) + 1 if stream in rolls else 0


def stream_start(current: list[Event], stream: str, rng: Thrown | ThrownStreams | None) -> int:
    """`stream_nonce(current, stream)`: the one the dice worked out for these same events when
    they drew from the stream (`ThrownStreams.starts`), else read from the events."""
    if isinstance(rng, ThrownStreams):
        start = rng.starts.get(stream)
        if start is not None:
            return start
    return stream_nonce(current, stream)


def stream_of(event: Event, streams: bool, roll: Given[Roll]) -> str | None:
    """The stream a new roll (`roll`, its payload) names: one in a bout with streams, none in
    one without."""
    stream = roll.stream
    if streams != isinstance(stream, str):
        raise RuleError(
            f"event {event['seq']} (roll): stream {stream!r} in a bout of dice scheme "
            f"{STREAMS if streams else 1} (a roll names its stream exactly when the bout has them)"
        )
    return stream if isinstance(stream, str) else None


class Thrown(VerifiableRng):
    """A VerifiableRng that keeps what it threw, by nonce (for `Events._check_rolls`), and the
    ledger's position it started from."""

    __slots__ = ("position", "thrown")

    def __init__(self, server_seed: str, client_seed: str, position: SeedPosition) -> None:
        super().__init__(server_seed, client_seed, position.nonce)
        self.position = position
        self.thrown: dict[tuple[str | None, int], Throw] = {}

    def throw(self, sides: Sequence[int]) -> Throw:
        done = super().throw(sides)
        self.thrown[None, done.nonce or 0] = done
        return done

    @property
    def rolls(self) -> int:
        """Rolls under the current seed, these included."""
        return self.nonce


class ThrownStreams(VerifiableStreams):
    """VerifiableStreams that say what they threw, by stream and nonce, and the ledger's
    position they started from (for `Events._check_rolls` and the rotation of long bouts)."""

    __slots__ = ("_rolls", "position", "starts")

    def __init__(
        self,
        server_seed: str,
        client_seed: str,
        rolls: Mapping[str, Any],
        position: SeedPosition,
    ) -> None:
        #: The nonce each stream drawn from started at: `stream_nonce(current, stream)`.
        self.starts: dict[str, int] = {}
        super().__init__(server_seed, client_seed, self._start)
        self.position = position
        self._rolls = rolls

    def _start(self, stream: str) -> int:
        start = self.starts[stream] = next_nonce(self._rolls, stream)
        return start

    @property
    def thrown(self) -> dict[tuple[str | None, int], Throw]:  # type: ignore[override]
        return {(t.stream, t.nonce or 0): t for t in self.throws}

    @property
    def rolls(self) -> int:
        """Rolls under the current seed, of every stream, these included."""
        return self.position.nonce + len(self.throws)


def was_thrown(
    roll: Given[Roll],
    stream: str | None,
    nonce: int,
    thrown: Mapping[tuple[str | None, int], Throw] | None,
) -> bool:
    """Whether a roll (`roll`, its payload) shows what the dice threw at (`stream`, `nonce`;
    `thrown`, their throws by stream and nonce): its dice and faces."""
    done = None if thrown is None else thrown.get((stream, nonce))
    if done is None:
        return False
    return roll.is_object and roll.dice == list(done.dice) and roll.faces == list(done.faces)


def check_unrevealed(bout_id: str, seed: ServerSeed) -> None:
    if seed.revealed:
        raise ConflictError(
            f"bout {bout_id!r}: server seed {seed.index} is revealed; rotate it before rolling"
        )
