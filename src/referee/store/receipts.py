"""The store's receipts: the answer to a request kept under its Idempotency-Key's digest, in
the unit that wrote what the request did, so a retried request gets the same answer.

>>> from referee.store import Store
>>> store = Store.open("sqlite://")
>>> store.keep_receipt("k1", "request", "answer", at="2026-11-29T22:40:12Z")
>>> store.claim_receipt("k1")
('request', 'answer')
>>> store.forget_receipts(before="2026-11-30T00:00:00Z")
1
"""

from __future__ import annotations

from sqlalchemy import delete, insert, select

from referee.store.core import StoreCore
from referee.store.engine import advisory_lock, is_postgres
from referee.store.schema import RECEIPTS
from referee.store.units import write_transaction


class Receipts(StoreCore):
    """The receipts part of the `Store`."""

    __slots__ = ()

    def claim_receipt(self, digest: str, kept_since: str = "") -> tuple[str, str] | None:
        """The (request, answer) kept under `digest` at `kept_since` (an RFC 3339 UTC time) or
        later, or None; an older one is deleted (it has expired). Call it inside a unit.

        On PostgreSQL it first takes a transaction lock on the digest, so two requests with the
        same key wait for each other (however long the first takes: no lock timeout) and the
        second finds the first one's receipt.
        """
        with self._guard(), write_transaction(self._engine) as conn:
            if is_postgres(self._engine):
                advisory_lock(conn, "hashtextextended(:digest, 0)", {"digest": digest})
            row = conn.execute(
                select(RECEIPTS.c.request, RECEIPTS.c.answer, RECEIPTS.c.created_at).where(
                    RECEIPTS.c.digest == digest
                )
            ).first()
            if row is not None and str(row.created_at) < kept_since:
                conn.execute(delete(RECEIPTS).where(RECEIPTS.c.digest == digest))
                return None
        return None if row is None else (str(row.request), str(row.answer))

    def keep_receipt(self, digest: str, request: str, answer: str, at: str | None = None) -> None:
        """Keep the answer to a request under `digest` (in the unit that wrote its events),
        made `at` (default: now)."""
        row = {"digest": digest, "request": request, "answer": answer, "created_at": at}
        row["created_at"] = at or self.clock()
        with self._guard(), write_transaction(self._engine) as conn:
            conn.execute(insert(RECEIPTS).values(row))

    def forget_receipts(self, before: str) -> int:
        """Delete the receipts kept before `before` (an RFC 3339 UTC time); how many."""
        with self._guard(), write_transaction(self._engine) as conn:
            done = conn.execute(delete(RECEIPTS).where(RECEIPTS.c.created_at < before))
        return int(done.rowcount or 0)
