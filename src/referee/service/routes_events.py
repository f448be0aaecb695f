"""Routes that read the ledger: the export, the log (polling) and live server-sent events."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import WithJsonSchema
from starlette.concurrency import run_in_threadpool

from referee.errors import AuthError, ForbiddenError, RuleError
from referee.service.bouts import Caller
from referee.service.connections import ends_at_shutdown
from referee.service.limits import client_address
from referee.service.live import Grant
from referee.service.routing import Ask, AuthHeader, Reader, bearer, caller_of
from referee.store import MAX_EVENTS_PER_BOUT, Role

#: The largest seq a cursor (`after`, `Last-Event-ID`) may name: a bout holds at most this
#: many events, so anything past it is a mistake (400), never a database error.
MAX_CURSOR = MAX_EVENTS_PER_BOUT
#: A `Last-Event-ID` as the service sends ids (a seq) and takes them back: -1..MAX_CURSOR,
#: written plainly (no sign but -1's, no leading zeros, no spaces). The OpenAPI schema states
#: this very pattern, so an id the schema admits is never refused.
CURSOR_PATTERN = "^(-1|0|[1-9][0-9]{0,4}|100000)$"
_CURSOR = re.compile(CURSOR_PATTERN.strip("^$"))
assert MAX_CURSOR == 100_000, "CURSOR_PATTERN spells out -1..100000"

LastEventId = Annotated[
    str | None,
    WithJsonSchema({"type": "string", "maxLength": 6, "pattern": CURSOR_PATTERN}),
    Header(description=f"the seq of the last event seen, -1..{MAX_CURSOR}"),
]


def _cursor(value: str | None, what: str) -> int | None:
    """A seq cursor from text: -1..MAX_CURSOR written plainly, or RuleError (400).

    >>> _cursor("41", "Last-Event-ID"), _cursor("-1", "Last-Event-ID"), _cursor(None, "x")
    (41, -1, None)
    >>> _cursor("--1", "Last-Event-ID")
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: Last-Event-ID '--1' is not a whole number -1..100000
    """
    if value is None:
        return None
    if not _CURSOR.fullmatch(value):
        raise RuleError(f"{what} {value[:40]!r} is not a whole number -1..{MAX_CURSOR}")
    return int(value)


def routes(ask: Ask, router: APIRouter) -> None:
    """Add the routes of this module over `ask` (the service, its store and live hub) to
    `router`."""
    service, store = ask.service, ask.store

    def _still(bout_id: str, given: str, caller: Caller) -> Callable[[], bool]:
        """Whether the token `given` still stands for `caller` in the bout (blocking)."""

        def still() -> bool:
            try:
                return service.caller(bout_id, given) == caller
            except (AuthError, ForbiddenError):  # revoked, or not this bout's
                return False

        return still

    @router.get("/api/bouts/{bout_id}/export", tags=["fairness"])
    def export(bout_id: str, caller: Reader) -> dict[str, Any]:
        """The export document: bout, fairness (commitment, client seed, seeds once revealed)
        and every event."""
        return service.export(bout_id, caller)

    @router.get("/api/bouts/{bout_id}/log", tags=["events"])
    def event_log(
        bout_id: str,
        caller: Reader,
        after: Annotated[int, Query(ge=-1, le=MAX_CURSOR)] = -1,
    ) -> list[dict[str, Any]]:
        """The ledger's events after seq `after` (JSON; for polling clients)."""
        return service.visible_records(bout_id, caller, after)

    @router.get(
        "/api/bouts/{bout_id}/events",
        tags=["events"],
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}}},
    )
    async def live(
        bout_id: str,
        request: Request,
        after: Annotated[int, Query(ge=-1, le=MAX_CURSOR)] = -1,
        token: Annotated[
            str | None, Query(description="for EventSource, which cannot set headers")
        ] = None,
        authorization: AuthHeader = None,
        last_event_id: LastEventId = None,
    ) -> StreamingResponse:
        """Live events as server-sent events (`id` = seq, `event` = type, `data` = the event)."""
        # The one route that may take its token from the query: EventSource sets no headers.
        given = bearer(authorization) or token
        caller = await run_in_threadpool(caller_of, request, given)
        await run_in_threadpool(store.get_bout, bout_id)  # 404 now, not inside the stream
        resumed = _cursor(last_event_id, "Last-Event-ID")
        start = after if resumed is None else resumed
        referee = caller.role is Role.REFEREE
        # A stream shows what its token grants only while it does: asked again before it sends
        # events it has not sent (a hand-over, a removal, a reissued link end it).
        grant = (
            None
            if not given or caller.role is None
            else Grant(given, _still(bout_id, given, caller))
        )
        address = client_address(request.scope)
        stream = ask.hub.open(bout_id, start, referee, address, grant)
        ends_at_shutdown(request.state)
        return StreamingResponse(
            stream,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )
