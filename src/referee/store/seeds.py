"""The store's server seeds: read, revealed at the end, and rotated (docs/ledger.md).

>>> from referee.store import Store
>>> store = Store.open("sqlite://")
>>> _ = store.create_bout(system="msv", name="Spar", bout_id="b1", server_seed="00" * 32)
>>> store.rotate_seed("b1", actor="system", new_seed="11" * 32)["payload"]["index"]
1
>>> [(seed.index, seed.revealed) for seed in store.seeds("b1")]
[(0, True), (1, False)]
"""

from __future__ import annotations

from sqlalchemy import Connection, insert, update

from referee.ledger import SEED_ROTATED, Event, chain, rotation_payload
from referee.rng import check_server_seed, commitment, new_server_seed
from referee.store.core import StoreCore
from referee.store.records import ServerSeed
from referee.store.rows import Row, bout_row, insert_events, seed_records, seed_row
from referee.store.schema import BOUTS, SEEDS
from referee.store.units import forget_held, write_transaction


class Seeds(StoreCore):
    """The seeds part of the `Store`."""

    __slots__ = ()

    def seeds(self, bout_id: str) -> list[ServerSeed]:
        """Every server seed of the bout, first to current (secrets inside: do not log)."""
        with self._guard(), self._connect() as conn:
            bout_row(conn, bout_id)
            return seed_records(conn, bout_id)

    def current_seed(self, bout_id: str) -> ServerSeed:
        """The seed rolls use now."""
        return self.seeds(bout_id)[-1]

    def reveal_seed(self, bout_id: str) -> ServerSeed:
        """Reveal the current seed (at the bout's end): no more rolls until it is rotated."""
        forget_held(self._engine)
        with self._guard(), write_transaction(self._engine) as conn:
            bout = bout_row(conn, bout_id, lock=True)
            conn.execute(
                update(SEEDS)
                .where(SEEDS.c.bout_id == bout_id, SEEDS.c.idx == bout.seed_index)
                .values(revealed=1)
            )
            return seed_records(conn, bout_id)[-1]

    def rotate_seed(
        self,
        bout_id: str,
        *,
        actor: str | None,
        at: str | None = None,
        new_seed: str | None = None,
    ) -> Event:
        """Append a `seed_rotated` event revealing the current seed; later rolls use a new one."""
        fresh = check_server_seed(new_server_seed() if new_seed is None else new_seed)

        def work(
            conn: Connection, bout: Row, old: ServerSeed | None, current: list[Event]
        ) -> list[Event]:
            assert old is not None  # a seeded append
            index = old.index + 1
            payload = rotation_payload(index, old.server_seed, commitment(fresh))
            last = current[-1] if current else None
            event = chain(last, SEED_ROTATED, actor, payload, at or self.clock())
            insert_events(conn, bout_id, [event])
            conn.execute(
                update(SEEDS)
                .where(SEEDS.c.bout_id == bout_id, SEEDS.c.idx == old.index)
                .values(revealed=1)
            )
            conn.execute(insert(SEEDS).values(seed_row(bout_id, index, fresh, event["seq"])))
            conn.execute(update(BOUTS).where(BOUTS.c.id == bout_id).values(seed_index=index))
            return [event]

        return self._locked_append(bout_id, work, seeded=True)[0]
