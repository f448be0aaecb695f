"""What every route module shares: the headers, and the one dependency that says who is asking.

A route never reads the `Authorization` or `Idempotency-Key` header itself. It takes one
dependency:

- `Reader`: the `Caller` the bearer token stands for in the path's bout (401 for an unknown
  token, 403 for another bout's), resolved before the route runs.
- `Writer`: a `Write`, whose `await once(body, run)` runs `run(caller)` as one transaction
  with the request's `Idempotency-Key` receipt, on a worker thread. The caller is resolved
  inside that transaction, after the receipt is looked up: a retry of a hand-over (whose
  first try revoked the very token it was sent with) gets its first answer again, with the
  new token, instead of a 401.

A write route is `async def`: its dependency reads only headers (no I/O). Where the store can
begin the write's transaction at once (SQLite, no other writer of the process holding or
waiting for the write lock, quick commits: `Store.unit_now`), the event loop runs the write
itself: a quick SQLite write costs less than a hand-off to a worker thread and back. Else
`once` takes the one trip to a worker thread that the database work needs, at most
`WRITE_THREADS` at once (the others wait their turn on the event loop), and the answer is
serialized back on the event loop. Each write route has a lean lane (`referee.service.lean`):
a well-formed request runs without FastAPI's per-request machinery, with the same answer.

What a caller may do is decided in one place, `referee.bout.permissions`. The route modules
(`routes_*.py`) each build an `APIRouter` over one `Ask`; `app.py` assembles them.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from anyio import CapacityLimiter, to_thread
from anyio.lowlevel import RunVar
from fastapi import Depends, Header, Request
from fastapi.routing import APIRoute
from pydantic import BaseModel, WithJsonSchema
from starlette.routing import Match

from referee.errors import AuthError
from referee.service import receipts
from referee.service.bouts import ANONYMOUS, Caller, RefereeService
from referee.service.limits import client_address
from referee.service.live import LiveHub
from referee.service.receipts import request_digest
from referee.store import Store

AuthHeader = Annotated[str | None, Header(description="Bearer TOKEN")]
#: The Idempotency-Key header as the schema states it: exactly what `receipts.check_key` takes
#: (anything else is 400), so a key the schema admits is never refused.
KeyHeader = Annotated[
    str | None,
    WithJsonSchema(
        {
            "type": "string",
            "minLength": 1,
            "maxLength": receipts.MAX_KEY,
            "pattern": receipts.KEY_PATTERN,
        }
    ),
    Header(
        alias="Idempotency-Key",
        description="any unique text (a UUID), 1 to 255 visible ASCII characters: a retry "
        "with the same key from the same caller gets the first answer again and changes "
        "nothing more",
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


#: Writes of one service process running in threads at once. More threads than a few only
#: contend for the interpreter with the requests being served, and on SQLite queue on its one
#: writer's lock; a few queued behind the writer still commit together (one fsync for the
#: group, see `referee.store.writers.transaction`). With 8 clients attacking
#: (`benchmarks/bench_service.py`), 4 threads did about 1.2x the attacks a second of 8 on
#: SQLite and 1.4x on PostgreSQL, with a p99 a third as long on SQLite.
WRITE_THREADS = 4


@dataclass(frozen=True, slots=True)
class Write:
    """One write request: its ASGI scope, bout, token and key; `once` runs it."""

    ask: Ask
    scope: MutableMapping[str, Any]
    bout_id: str | None
    token: str | None
    key: str | None

    @classmethod
    def of(
        cls, scope: MutableMapping[str, Any], authorization: str | None, idempotency_key: str | None
    ) -> Write:
        """The `Write` of a request (its ASGI scope) with the values of its `Authorization` and
        `Idempotency-Key` headers: what the `Writer` dependency gives, and what the write
        routes' lean lanes (`referee.service.lean`) make from the same two headers."""
        ask = scope["app"].state.ask
        assert isinstance(ask, Ask)
        bout_id = scope.get("path_params", {}).get("bout_id")
        return cls(ask, scope, bout_id, bearer(authorization), idempotency_key)

    def caller(self, appends: bool = False) -> Caller:
        """Who the token stands for in the bout (nobody for a request outside a bout);
        `appends`: read in the statement that locks the bout for the append the request makes
        next (`RefereeService.writer`)."""
        if self.bout_id is None:
            return ANONYMOUS
        service = self.ask.service
        who = service.writer if appends else service.caller
        return who(self.bout_id, self.token)

    async def once(self, body: Any, run: Callable[[Caller], Any], *, appends: bool = False) -> Any:
        """`run(caller)` as one transaction on a worker thread, or the first answer again for
        a retried key.

        `body` is what a retry's body is compared with (the request's model, the chat line, or
        None); it is turned into JSON only when there is a key to compare it under. `appends`:
        `run` begins by appending to the path's bout (an action, a roll), so the caller is read
        with the lock that append takes (`caller`).
        """
        unit = self.ask.store.unit_now()
        if unit is not None:  # begun already: run it here, on the event loop
            with unit:
                return self._once(body, run, appends)
        return await to_thread.run_sync(self._once, body, run, appends, limiter=self.ask.writes())

    def _once(self, body: Any, run: Callable[[Caller], Any], appends: bool = False) -> Any:
        ask = self.ask
        if self.key is None:
            # What `receipts.once` does without a key (run in a unit of work), without making
            # the receipt's caller scope and request digest, which only a key's receipt reads.
            with ask.store.unit():
                return run(self.caller(appends))
        # Only a keyed request is compared with its retries.
        request = Request(self.scope)
        fingerprint = request_digest(request.method, request.url.path, dumped(body))
        # A receipt is the caller's own: its token's, or without one its address's.
        scope = receipts.caller_scope(self.token, client_address(self.scope))
        return receipts.once(
            ask.store, self.key, scope, fingerprint, lambda: run(self.caller(appends)), ask.keep
        )


@dataclass(frozen=True, slots=True)
class Ask:
    """The service, its store and live hub, as every route reaches them (`app.state.ask`)."""

    service: RefereeService
    store: Store
    hub: LiveHub
    keep: receipts.Keep
    #: The limiter of writes running at once, one per event loop (a limiter belongs to one).
    _writes: RunVar[CapacityLimiter] = field(
        default_factory=lambda: RunVar("referee_writes"), compare=False, repr=False
    )

    def writes(self) -> CapacityLimiter:
        """This event loop's limiter of writes running at once (`WRITE_THREADS`)."""
        limiter = self._writes.get(None)
        if limiter is None:
            limiter = CapacityLimiter(WRITE_THREADS)
            self._writes.set(limiter)
        return limiter


def _ask(request: Request) -> Ask:
    ask = request.app.state.ask
    assert isinstance(ask, Ask)
    return ask


def caller_of(request: Request, token: str | None) -> Caller:
    """The caller `token` stands for in the path's bout (401 unknown, 403 another bout's)."""
    return _ask(request).service.caller(str(request.path_params["bout_id"]), token)


def reading(request: Request, authorization: AuthHeader = None) -> Caller:
    """The dependency of a read: the caller, resolved now."""
    return caller_of(request, bearer(authorization))


async def writing(
    request: Request, authorization: AuthHeader = None, idempotency_key: KeyHeader = None
) -> Write:
    """The dependency of a write: the request, to be run `once` (headers only: no I/O, so it
    runs on the event loop)."""
    return Write.of(request.scope, authorization, idempotency_key)


class TailRoute(APIRoute):
    """FastAPI's route, which turns a request down at once when its path does not end in the
    route's literal last segment (`/attacks`): its pattern cannot match such a path (a router
    tries a request against its routes in turn, a dozen before an attack). Anything else is
    FastAPI's own match."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **options: Any) -> None:
        super().__init__(path, endpoint, **options)
        #: Every path the route matches ends in this (None: the last segment is a parameter).
        self.tail = literal_tail(path)

    def matches(self, scope: MutableMapping[str, Any]) -> tuple[Match, MutableMapping[str, Any]]:
        tail = self.tail
        if tail is not None and not scope["path"].endswith(tail):  # every route scope has one
            return Match.NONE, {}
        return super().matches(scope)


def literal_tail(path: str) -> str | None:
    """The last segment of a route's path with its slash, when it is literal text (no
    parameter): every path the route matches ends in it. None otherwise.

    >>> literal_tail("/api/bouts/{bout_id}/attacks"), literal_tail("/api/bouts/{bout_id}")
    ('/attacks', None)
    """
    last = path.rpartition("/")[2]
    return "/" + last if last and "{" not in last and "}" not in last else None


#: A read route's caller: `caller: Reader`.
Reader = Annotated[Caller, Depends(reading)]
#: A write route's request: `write: Writer`, then `await write.once(body, lambda caller: ...)`.
Writer = Annotated[Write, Depends(writing)]


def dumped(body: Any) -> Any:
    """A request body as JSON (what a retry's body is compared with): a model's dump, or the
    body itself (text, None)."""
    return body.model_dump(mode="json") if isinstance(body, BaseModel) else body


def events_answer(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer of a command: its events (seq, type, payload)."""
    return {
        "events": [{"seq": e["seq"], "type": e["type"], "payload": e["payload"]} for e in records]
    }
