"""What every route module shares: the headers, who is asking, and doing a request once.

`Ask` is the one place a route turns a bearer token into a `Caller` (`who`: 401 for an unknown
token, 403 for another bout's; what that caller may do is the service's one permission layer,
`RefereeService`) and runs a write as one transaction with its `Idempotency-Key` receipt
(`once`). The route modules (`routes_*.py`) each build an `APIRouter` over one `Ask`; `app.py`
assembles them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Header, Request

from referee.errors import AuthError
from referee.service import receipts
from referee.service.bouts import Caller, RefereeService
from referee.service.live import LiveHub
from referee.service.receipts import request_digest
from referee.store import Store

AuthHeader = Annotated[str | None, Header(description="Bearer TOKEN")]
KeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="any unique text (a UUID): a retry with the same key gets the first "
        "answer again and changes nothing more",
    ),
]


def bearer(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer TOKEN` header."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("the Authorization header must be 'Bearer TOKEN'")
    return token.strip()


@dataclass(frozen=True, slots=True)
class Ask:
    """The service, its store and live hub, as every route reaches them."""

    service: RefereeService
    store: Store
    hub: LiveHub
    keep: receipts.Keep

    def who(self, bout_id: str, authorization: str | None) -> Caller:
        """The caller the Authorization header stands for in this bout."""
        return self.service.caller(bout_id, bearer(authorization))

    def once(
        self,
        request: Request,
        key: str | None,
        authorization: str | None,
        body: Any,
        run: Callable[[], Any],
    ) -> Any:
        """`run()` as one transaction, or the first answer again for a retried key."""
        # Only a keyed request is compared with its retries: no digest without a key.
        fingerprint = "" if key is None else request_digest(request.method, request.url.path, body)
        return receipts.once(self.store, key, bearer(authorization), fingerprint, run, self.keep)


def dumped(body: Any) -> Any:
    """A request body model as JSON (what a retry's body is compared with)."""
    return None if body is None else body.model_dump(mode="json")


def events_answer(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer of a command: its events (seq, type, payload)."""
    return {
        "events": [{"seq": e["seq"], "type": e["type"], "payload": e["payload"]} for e in records]
    }
