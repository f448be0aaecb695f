"""Rate counters shared by every process on one PostgreSQL database (`serve --workers N`).

One counter per key is a GCRA cell, the token bucket's twin: it keeps the *theoretical arrival
time* `tat` of the next request. With `interval = seconds / requests` and `burst = seconds`,
a request at `now` is allowed when `max(tat, now) + interval - now <= burst`, and then moves
`tat` to `max(tat, now) + interval`; exactly the in-memory bucket of service/limits.py (a burst
of `requests`, then one every `interval`). All the keys of one request are taken in one
statement, an `INSERT ... ON CONFLICT DO UPDATE ... WHERE` outside any transaction: PostgreSQL
locks each row for the update, so two processes never both take the last request of a bucket.

The table is UNLOGGED (a crash may forget the counters, which then start full; nothing else
is lost) and is created on first use; keys are SHA-256 of the limit and the token or address,
so the database holds no token. Idle counters are deleted now and then.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence

from sqlalchemy import Engine, text

TABLE = "rate_counters"
#: Takes between two deletions of idle counters (per process).
PRUNE_EVERY = 1000

_CREATE = f"""CREATE UNLOGGED TABLE IF NOT EXISTS {TABLE} (
    key TEXT PRIMARY KEY,
    tat DOUBLE PRECISION NOT NULL,
    interval DOUBLE PRECISION NOT NULL,
    burst DOUBLE PRECISION NOT NULL
)"""

#: Take one request of each (key, interval, burst) at :now; the keys that were allowed.
_TAKE = f"""INSERT INTO {TABLE} AS c (key, tat, interval, burst)
SELECT v.key, CAST(:now AS DOUBLE PRECISION) + v.interval, v.interval, v.burst
FROM unnest(CAST(:keys AS TEXT[]), CAST(:intervals AS DOUBLE PRECISION[]),
            CAST(:bursts AS DOUBLE PRECISION[])) AS v (key, interval, burst)
ON CONFLICT (key) DO UPDATE
SET tat = greatest(c.tat, :now) + excluded.interval,
    interval = excluded.interval, burst = excluded.burst
WHERE greatest(c.tat, :now) + excluded.interval - :now <= excluded.burst
RETURNING c.key"""

_TATS = f"SELECT key, tat FROM {TABLE} WHERE key = ANY(CAST(:keys AS TEXT[]))"
_PRUNE = f"DELETE FROM {TABLE} WHERE tat < :now"


def counter_key(limit: str, who: str) -> str:
    """The stored key of `limit`'s counter for `who` (a token or an address): no token in it."""
    return hashlib.sha256(f"referee rate\0{limit}\0{who}".encode()).hexdigest()


class SharedCounters:
    """GCRA counters in a PostgreSQL table, one UPSERT per request."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        self._ready = False
        self._takes = 0
        self._lock = threading.Lock()

    def _create(self) -> None:
        with self._engine.connect() as conn:
            # Two processes starting at once would race on the catalog; a lock orders them.
            conn.execute(text("SELECT pg_advisory_lock(hashtext(:t))"), {"t": TABLE})
            try:
                conn.execute(text(_CREATE))
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(hashtext(:t))"), {"t": TABLE})
        self._ready = True

    def take(self, cells: Sequence[tuple[str, float, float]], now: float) -> dict[str, float]:
        """Take one request from each (key, interval, burst) cell at `now` (seconds, the same
        clock in every process): {key: seconds until one is allowed} for the refused ones."""
        if not cells:
            return {}
        if not self._ready:
            with self._lock:
                if not self._ready:
                    self._create()
        keys = [key for key, _, _ in cells]
        params = {
            "now": now,
            "keys": keys,
            "intervals": [interval for _, interval, _ in cells],
            "bursts": [burst for _, _, burst in cells],
        }
        with self._engine.connect() as conn:
            allowed = {row[0] for row in conn.execute(text(_TAKE), params)}
            refused: dict[str, float] = {}
            if len(allowed) < len(cells):
                waiting = [k for k in keys if k not in allowed]
                rows = conn.execute(text(_TATS), {"keys": waiting})
                tats = {str(row[0]): float(row[1]) for row in rows}
                for key, interval, burst in cells:
                    if key not in allowed:
                        tat = tats.get(key, now)
                        refused[key] = max(tat + interval - now - burst, 1e-9)
            self._takes += 1
            if self._takes % PRUNE_EVERY == 0:
                conn.execute(text(_PRUNE), {"now": now})
        return refused
