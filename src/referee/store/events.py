"""The store's events: read, appended (linked into the chain inside the bout's write lock)
and exported.

`extend` is the one way events are appended: `draft(events, dice)` returns new events
without their links, and the store gives each its `seq`, `prev`, `at` and `hash`, so what
it appends extends the chain by construction. A roll must be one of the throws of the dice
the store handed out (`referee.store.rolls`).

>>> from dataclasses import dataclass
>>> from referee.store import Store
>>> @dataclass(frozen=True)
... class Note:
...     type: str
...     actor: str | None
...     payload: dict
>>> store = Store.open("sqlite://")
>>> _ = store.create_bout(system="msv", name="Spar", bout_id="b1")
>>> [e["seq"] for e in store.extend("b1", lambda events, dice: [Note("note", None, {})])]
[0]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, update

from referee.errors import ConflictError, LimitError, RuleError
from referee.ledger import (
    ROLL,
    SEED_ROTATED,
    Event,
    build_export,
    check_roll,
    dice_scheme,
    link,
)
from referee.ledger.seal import Draft, SealedDraft, chained, link_sealed, opening
from referee.payloads.events import ClientSeedFixed, Roll
from referee.rng import VerifiableRng, VerifiableStreams
from referee.rng.streams import STREAMS
from referee.store.core import StoreCore
from referee.store.engine import is_postgres
from referee.store.fields import check_text, check_time
from referee.store.records import Role, ServerSeed
from referee.store.rolls import (
    Thrown,
    ThrownStreams,
    check_unrevealed,
    dice_of,
    stream_of,
    stream_start,
    was_thrown,
)
from referee.store.rows import (
    Row,
    bout_record,
    bout_row,
    insert_events,
    read_events,
    seed_records,
)
from referee.store.schema import BOUTS
from referee.store.tokens import insert_token, role_named
from referee.store.units import ambient
from referee.vocabulary import EventType

#: The dice `Store.extend` hands its draft: one verifiable sequence (a bout of dice scheme 1)
#: or a stream per owner (scheme 2), at the bout's current seed; None when nothing may roll.
Dice = VerifiableRng | VerifiableStreams
#: draft(all events so far, the bout's dice or None without dice) -> the new events,
#: unlinked. May run more than once.
DraftBuild = Callable[[list[Event], "Dice | None"], Sequence[Draft]]

#: Stated bounds.
MAX_EVENTS_PER_BOUT = 100_000
#: The most events one append may add: more than any command writes (a free roll of the most
#: dice the notation allows, 1,000 throws, with its action, its failure and the client seed's
#: fixing), so that no roll is refused by this bound once its dice are thrown.
MAX_NEW_EVENTS = 1_100


class Events(StoreCore):
    """The events part of the `Store`."""

    __slots__ = ()

    def events(self, bout_id: str, after_seq: int = -1) -> list[Event]:
        """The bout's events with seq > after_seq, in order."""
        with self._guard(), self._connect() as conn:
            bout_row(conn, bout_id)
            if after_seq < 0:
                return self._all_events(conn, bout_id)
            return read_events(conn, bout_id, after_seq)

    def extend(
        self,
        bout_id: str,
        build: DraftBuild,
        *,
        dice: bool = True,
        at: str | None = None,
        client_seed_part: str | None = None,
        grant: tuple[str, Role, str | None] | None = None,
    ) -> list[Event]:
        """Link the events `build(events, rng)` drafts into the chain and append them,
        atomically; retried on a race. The stored events come back.

        The store gives each event its `seq`, `prev` and `hash` (all at `at`, default now)
        inside the bout's write lock, so what it appends extends the chain by construction and
        nothing is checked twice. `build` gets the bout's dice at its current seed (None when
        `dice` is False: nothing may roll): a VerifiableRng at the next nonce in a bout of
        dice scheme 1, a VerifiableStreams whose every stream stands at its next nonce in
        scheme 2 (the bout's first event says which). Each roll event must be one of their
        throws (stream, nonce, dice and faces), else it is refused like any roll that would not
        verify. `build` may run more than once, so it must only compute from its arguments.
        `client_seed_part` and `grant` are as in `append`.
        """

        def work(
            conn: Connection, bout: Row, seed: ServerSeed | None, current: list[Event]
        ) -> list[Event]:
            rng: Thrown | ThrownStreams | None = None
            if seed is not None:
                rng = dice_of(seed, bout.client_seed, current, *self._position(bout.id, current))
            drafts = build(current, rng)
            self._check_size(bout.id, current, len(drafts))
            when = check_time(at, self.clock)
            last = current[-1] if current else None
            new: list[Event] = []
            texts: list[str] = []
            for draft in drafts:
                if type(draft) is SealedDraft:
                    last, text = link_sealed(last, draft, when)
                else:
                    if draft.type == _SEED_FIXED:
                        _check_fixed(bout, draft.payload)
                    last, text = link(last, draft.type, draft.actor, draft.payload, when)
                new.append(last)
                texts.append(text)
            if new:
                self._check_rolls(conn, bout, current, new, seed, rng)
                insert_events(conn, bout.id, new, texts)
            self._join(conn, bout, current, client_seed_part, grant)
            return new

        return self._locked_append(bout_id, work, seeded=dice)

    def export(self, bout_id: str) -> dict[str, Any]:
        """The bout's export document (see `referee.ledger.build_export`), one snapshot: every
        event as the chain holds it, and the opening of every sealed one (secret until the
        reveal or the close: the service gives them only to whoever may see them)."""
        with self._guard(), self._connect() as conn:
            if is_postgres(self._engine) and ambient(self._engine) is None:
                conn.execution_options(isolation_level="REPEATABLE READ")
            bout = bout_record(bout_row(conn, bout_id))
            seeds = [seed.published() for seed in seed_records(conn, bout_id)]
            records = read_events(conn, bout_id, -1)
        openings = {}
        for record in records:
            found = opening(record)
            if found is not None:
                openings[str(record["seq"])] = found
        events = [chained(record) for record in records]
        return build_export(bout.as_json(), seeds, bout.client_seed, events, openings)

    def _join(
        self,
        conn: Connection,
        bout: Row,
        current: list[Event],
        client_seed_part: str | None,
        grant: tuple[str, Role, str | None] | None,
    ) -> None:
        """Add a part to the client seed and grant a token, in the append's transaction."""
        if client_seed_part is not None:
            if any(event["type"] in (ROLL, _SEED_FIXED) for event in current):
                raise ConflictError(f"bout {bout.id!r} has rolled: its client seed is fixed")
            joined = check_text("client seed", f"{bout.client_seed}:{client_seed_part}", 2000)
            conn.execute(update(BOUTS).where(BOUTS.c.id == bout.id).values(client_seed=joined))
        if grant is not None:
            token, role, fighter = grant
            insert_token(conn, bout.id, token, role_named(role), fighter)

    @staticmethod
    def _check_size(bout_id: str, current: list[Event], count: int) -> None:
        if count > MAX_NEW_EVENTS or len(current) + count > MAX_EVENTS_PER_BOUT:
            raise LimitError(f"bout {bout_id!r}: too many events (at most {MAX_EVENTS_PER_BOUT})")

    def _check_rolls(
        self,
        conn: Connection,
        bout: Row,
        current: list[Event],
        new: list[Event],
        seed: ServerSeed | None = None,
        rng: Thrown | ThrownStreams | None = None,
    ) -> None:
        """Refuse rolls that would not verify: nonces in order from the ledger's position (per
        stream in a bout of dice scheme 2, whose every roll names its stream), at the store's
        current seed, unrevealed, and faces that the seed gives (a throw of `rng` is compared,
        not derived again)."""
        if not any(event["type"] in (ROLL, SEED_ROTATED) for event in new):
            return
        if seed is None:
            seed = seed_records(conn, bout.id)[-1]
        position = rng.position if rng is not None else self._position(bout.id, current)[0]
        if position.index != seed.index:
            raise ConflictError(
                f"bout {bout.id!r}: the ledger is at seed {position.index}, the store at "
                f"seed {seed.index}; refusing to roll"
            )
        # The dice were made for these same events (`dice_of`), by their dice scheme: which
        # kind they are says the scheme, without reading the bout's header again.
        by_scheme = rng is None
        streams = dice_scheme(current) == STREAMS if by_scheme else isinstance(rng, ThrownStreams)
        thrown = None if rng is None else rng.thrown
        nonces: dict[str | None, int] = {None: position.nonce}
        for event in new:
            if event["type"] == SEED_ROTATED:
                raise RuleError(f"event {event['seq']}: rotate seeds with Store.rotate_seed")
            if event["type"] != ROLL:
                continue
            check_unrevealed(bout.id, seed)
            payload = event["payload"]
            roll = Roll.given(payload)
            stream = stream_of(event, streams, roll)
            nonce = nonces.get(stream)
            if nonce is None:
                nonce = nonces[stream] = stream_start(current, str(stream), rng)
            nonces[stream] = nonce + 1
            if was_thrown(roll, stream, nonce, thrown) and not check_roll(
                payload, nonce, None, "", stream
            ):
                continue
            found = check_roll(payload, nonce, seed.server_seed, bout.client_seed, stream)
            if found is not None:
                raise RuleError(f"event {event['seq']} (roll) would not verify: {found[1]}")


#: The event that fixes a bout's client seed before its first roll (ledger 2).
_SEED_FIXED = EventType.CLIENT_SEED_FIXED.value


def _check_fixed(bout: Row, payload: Mapping[str, Any]) -> None:
    """Refuse a `client_seed_fixed` event that fixes another client seed than the one the
    bout's dice are made from (the chain and the dice must tell one story)."""
    fixed = ClientSeedFixed.given(payload).client_seed
    if fixed != bout.client_seed:
        raise RuleError(
            f"bout {bout.id!r}: the client seed fixed in the chain is not the bout's client seed"
        )
