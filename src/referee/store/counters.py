"""Rate counters shared by every process on one PostgreSQL database (`serve --workers N`).

One counter per key is a GCRA cell, the token bucket's twin: it keeps the *theoretical arrival
time* `tat` of the next request. With `interval = seconds / requests` and `burst = seconds`,
a request at `now` is allowed when `max(tat, now) + interval - now <= burst`, and then moves
`tat` to `max(tat, now) + interval`; exactly the in-memory bucket of service/limits.py (a burst
of `requests`, then one every `interval`). All the limits of one request are taken in one
statement, a chain of `INSERT ... ON CONFLICT DO UPDATE ... WHERE` outside any transaction, each
limit only when the ones before it allowed the request (as in memory: a request refused by one
limit counts against none after it). PostgreSQL locks each row for the update, so two processes
never both take the last request of a bucket.

The table is UNLOGGED (a crash may forget the counters, which then start full; nothing else
is lost) and is created on first use; keys are SHA-256 of the limit and the token or address,
so the database holds no token. Idle counters are deleted now and then.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence

from sqlalchemy import Engine, text

from referee.store.engine import advisory_lock

TABLE = "rate_counters"
#: Takes between two deletions of idle counters (per process).
PRUNE_EVERY = 1000

_CREATE = f"""CREATE UNLOGGED TABLE IF NOT EXISTS {TABLE} (
    key TEXT PRIMARY KEY,
    tat DOUBLE PRECISION NOT NULL,
    interval DOUBLE PRECISION NOT NULL,
    burst DOUBLE PRECISION NOT NULL
)"""


def _take_sql(cells: int) -> str:
    """One statement taking one request from each of `cells` cells in order, each only when the
    ones before it allowed theirs (a chain of data-modifying CTEs): a request refused by one
    limit counts against none after it, as in memory. It answers how many cells allowed."""
    steps = []
    for n in range(cells):
        after = f" WHERE EXISTS (SELECT 1 FROM c{n - 1})" if n else ""
        steps.append(
            f"""c{n} AS (
    INSERT INTO {TABLE} AS c (key, tat, interval, burst)
    SELECT :k{n}, CAST(:now AS DOUBLE PRECISION) + :i{n}, :i{n}, :b{n}{after}
    ON CONFLICT (key) DO UPDATE
    SET tat = greatest(c.tat, :now) + excluded.interval,
        interval = excluded.interval, burst = excluded.burst
    WHERE greatest(c.tat, :now) + excluded.interval - :now <= excluded.burst
    RETURNING c.key)"""
        )
    counts = " + ".join(f"(SELECT count(*) FROM c{n})" for n in range(cells))
    return f"WITH {', '.join(steps)} SELECT {counts}"


_TAT = f"SELECT tat FROM {TABLE} WHERE key = :key"
_PRUNE = f"DELETE FROM {TABLE} WHERE tat < :now"


def counter_key(limit: str, who: str) -> str:
    """The stored key of `limit`'s counter for `who` (a token or an address): no token in it."""
    return hashlib.sha256(f"referee rate\0{limit}\0{who}".encode()).hexdigest()


class SharedCounters:
    """GCRA counters in a PostgreSQL table, one UPSERT per request."""

    def __init__(self, engine: Engine) -> None:
        self._made_by = engine  # its table is made in a transaction of its own
        self._engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        self._ready = False
        self._takes = 0
        self._lock = threading.Lock()

    def _create(self) -> None:
        with self._made_by.begin() as conn:
            # Two processes starting at once would race on the catalog; a lock orders them.
            advisory_lock(conn, "hashtext(:t)", {"t": TABLE})
            conn.execute(text(_CREATE))
        self._ready = True

    def take(self, cells: Sequence[tuple[str, float, float]], now: float) -> dict[str, float]:
        """Take one request from each (key, interval, burst) cell at `now` (seconds, the same
        clock in every process), in order, up to the first that refuses: {} when all allowed,
        else {that key: seconds until one is allowed}."""
        if not cells:
            return {}
        if not self._ready:
            with self._lock:
                if not self._ready:
                    self._create()
        params: dict[str, float | str] = {"now": now}
        for n, (key, interval, burst) in enumerate(cells):
            params.update({f"k{n}": key, f"i{n}": interval, f"b{n}": burst})
        with self._engine.connect() as conn:
            allowed = int(conn.execute(text(_take_sql(len(cells))), params).scalar_one())
            refused: dict[str, float] = {}
            if allowed < len(cells):
                key, interval, burst = cells[allowed]
                tat = conn.execute(text(_TAT), {"key": key}).scalar()
                wait = (now if tat is None else float(tat)) + interval - now - burst
                refused[key] = max(wait, 1e-9)
            self._takes += 1
            if self._takes % PRUNE_EVERY == 0:
                conn.execute(text(_PRUNE), {"now": now})
        return refused
