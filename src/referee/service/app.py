"""The HTTP service: routes over `RefereeService`, one error handler, a body-size limit.

Routes are plain (sync) functions: FastAPI runs them in its thread pool, so the store's
blocking database calls never stall the event loop.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from referee import __version__
from referee.bout import commands as c
from referee.errors import AuthError, NotationError, RefereeError, RuleError
from referee.numerals import is_whole
from referee.service import models as m
from referee.service import receipts, routes_judge
from referee.service.bouts import ROTATE_EVERY, Caller, RefereeService, redact_hidden
from referee.service.chat import answer_chat, error_answer, read_line
from referee.service.limits import (
    Limits,
    RateLimitedError,
    RateLimits,
    client_address,
    refusal_headers,
)
from referee.service.live import LiveHub
from referee.service.receipts import request_digest
from referee.store import Role, Store
from referee.store.store import MAX_EVENTS_PER_BOUT
from referee.systems import find_system, system_names

log = logging.getLogger("referee.service")

#: Largest request body accepted, in bytes (a sheet, a chat line or a rule pack fits well).
MAX_BODY = 16 * 1024
STATIC = Path(__file__).resolve().parent / "static"
ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]


def error_body(code: str, message: str) -> dict[str, str]:
    """The JSON every error answer carries."""
    return {"error": code, "message": message}


class BodyLimit:
    """Refuse request bodies over `limit` bytes (`wider[path]` on the paths it names) with
    413, declared or streamed."""

    def __init__(
        self, app: ASGIApp, limit: int = MAX_BODY, wider: dict[str, int] | None = None
    ) -> None:
        self.app = app
        self.limit = limit
        self.wider = dict(wider or {})

    def _limit(self, scope: MutableMapping[str, Any]) -> int:
        return self.wider.get(str(scope.get("path", "")), self.limit)

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and (not is_whole(declared) or int(declared) > self._limit(scope)):
            await self._refuse(send, scope)
            return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self._limit(scope):
                raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await self._refuse(send, scope)

    async def _refuse(
        self, send: Callable[[Any], Awaitable[None]], scope: MutableMapping[str, Any]
    ) -> None:
        message = f"request body over {self._limit(scope)} bytes"
        if _is_chat(scope):
            body, kind = f"error: {message}".encode(), b"text/plain; charset=utf-8"
        else:
            body, kind = json.dumps(error_body("too_large", message)).encode(), b"application/json"
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", kind)],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


def _is_chat(scope: MutableMapping[str, Any]) -> bool:
    """Whether a request goes to the chat endpoint (whose answers are all plain text)."""
    return str(scope.get("path", "")).rstrip("/").endswith("/chat")


def chat_error(status: int, message: str) -> PlainTextResponse:
    """An error as the chat endpoint answers it: one `error: ...` line."""
    return PlainTextResponse(message, status_code=status)


#: The web console's pages load nothing from anywhere else (tested in a real browser).
CONSOLE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


#: Headers of an answer that may carry a secret (a token, a seed): never kept by a cache.
PRIVATE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class SecurityHeaders:
    """nosniff and no referrer everywhere; a strict Content-Security-Policy on the console;
    `Cache-Control: no-store` on every API answer (tokens and seeds are never cached)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        console = path == "/" or path.startswith("/static/")

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                headers.append((b"x-content-type-options", b"nosniff"))
                headers.append((b"referrer-policy", b"no-referrer"))
                if console:
                    headers.append((b"content-security-policy", CONSOLE_CSP.encode()))
                elif not any(name.lower() == b"cache-control" for name, _ in headers):
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


def bearer(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer TOKEN` header."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("the Authorization header must be 'Bearer TOKEN'")
    return token.strip()


AuthHeader = Annotated[str | None, Header(description="Bearer TOKEN")]
KeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="any unique text (a UUID): a retry with the same key gets the first "
        "answer again and changes nothing more",
    ),
]

#: The largest seq a cursor (`after`, `Last-Event-ID`) may name: a bout holds at most this
#: many events, so anything past it is a mistake (400), never a database error.
MAX_CURSOR = MAX_EVENTS_PER_BOUT

_ERROR_SCHEMA = {
    "type": "object",
    "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
    "required": ["error", "message"],
}


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {
            "application/json": {"schema": _ERROR_SCHEMA},
            "text/plain": {"schema": {"type": "string"}},
        },
    }


#: The error answers every operation may give (JSON; plain text at the chat endpoint).
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error("bad input: a value the rules or the stated bounds do not allow"),
    401: _error("no token, or an unknown or revoked token"),
    403: _error("a token that may not do this (another bout's; a fighter's for the referee's)"),
    404: _error("no such bout or fighter"),
    405: _error("method not allowed (the Allow header lists the allowed ones)"),
    409: _error("does not fit the bout's state: out of turn, paused, ended, closed"),
    413: _error("a request body or value past a stated bound"),
    422: _error("a body that does not match the schema"),
    429: _error("too many requests (Retry-After says when to try again)"),
    503: _error("the database is unavailable, or too many live streams"),
}


def _cursor(value: str | None, what: str) -> int | None:
    """A seq cursor from text: -1..MAX_CURSOR, or RuleError (400)."""
    if value is None:
        return None
    text = value.strip()
    if not text.lstrip("-").isdigit() or not text.isascii() or len(text) > 12:
        raise RuleError(f"{what} {value[:40]!r} is not a whole number -1..{MAX_CURSOR}")
    number = int(text)
    if not -1 <= number <= MAX_CURSOR:
        raise RuleError(f"{what} {number} is out of range (-1..{MAX_CURSOR})")
    return number


def create_app(
    store: Store,
    rotate_every: int = ROTATE_EVERY,
    limits: Limits | None = None,
    poll_seconds: float | None = None,
    keep: receipts.Keep = receipts.KEEP,
) -> FastAPI:
    """The referee service over `store`; server seeds rotate after `rotate_every` rolls.

    `limits`: rate limits and stream caps (default `Limits()`, see service/limits.py);
    `poll_seconds`: how often watched bouts are re-read when no notification came;
    `keep`: how long Idempotency-Key receipts are kept (service/receipts.py).
    """
    service = RefereeService(store, rotate_every)
    limits = Limits() if limits is None else limits
    hub = LiveHub(
        service.records,
        redact_hidden,
        watch=store.watch,
        notified=store.notifies_across_processes,
        poll_seconds=poll_seconds,
        per_address=limits.streams_per_address,
        total=limits.streams_total,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        hub.close()

    app = FastAPI(
        lifespan=lifespan,
        title="referee",
        version=__version__,
        description="Role-play combat refereed by the MSV and SRP rules, with verifiable dice. "
        "See docs/api.md.",
        # FastAPI's browsable docs pages load their scripts from a CDN; the service loads
        # nothing from outside, so it offers the schema itself at /openapi.json only.
        docs_url=None,
        redoc_url=None,
        responses=ERROR_RESPONSES,
    )
    app.state.service = service
    app.state.live = hub
    app.add_middleware(BodyLimit, limit=MAX_BODY, wider=routes_judge.BODY_LIMITS)
    app.add_middleware(RateLimits, limits=limits, shared=store.shared_counters())
    app.include_router(routes_judge.router)
    app.include_router(__import__("referee.service.routes_lab", fromlist=["router"]).router)
    app.add_middleware(SecurityHeaders)

    @app.exception_handler(RefereeError)
    async def referee_error(request: Request, err: RefereeError) -> Response:
        if _is_chat(request.scope):
            answer: Response = chat_error(err.http_status, error_answer(err))
        else:
            answer = JSONResponse(error_body(err.code, str(err)), status_code=err.http_status)
        if isinstance(err, RateLimitedError):
            answer.headers.update(refusal_headers(err))
        return answer

    @app.exception_handler(RequestValidationError)
    async def bad_body(request: Request, err: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}" for e in err.errors()
        )
        if _is_chat(request.scope):
            return chat_error(400, error_answer(NotationError(problems)))
        return JSONResponse(error_body("bad_request", problems[:500]), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> Response:
        code = "not_found" if err.status_code == 404 else "http_error"
        headers = dict(err.headers or {})
        if err.status_code == 405:
            headers["Allow"] = ", ".join(_allowed(app, request))
        if _is_chat(request.scope):
            answer = chat_error(err.status_code, error_answer(RefereeError(str(err.detail))))
            answer.headers.update(headers)
            return answer
        return JSONResponse(
            error_body(code, str(err.detail)), status_code=err.status_code, headers=headers
        )

    @app.exception_handler(Exception)
    async def server_error(request: Request, err: Exception) -> Response:
        # Outside every middleware: the headers SecurityHeaders adds are set here too.
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return JSONResponse(
            error_body("server_error", "the referee failed on this request; nothing was stored"),
            status_code=500,
            headers=PRIVATE_HEADERS,
        )

    def who(bout_id: str, authorization: str | None) -> Caller:
        return service.caller(bout_id, bearer(authorization))

    def once(
        request: Request, key: str | None, authorization: str | None, body: Any, run: Any
    ) -> Any:
        """`run()` as one transaction, or the first answer again for a retried key."""
        # Only a keyed request is compared with its retries: no digest without a key.
        fingerprint = "" if key is None else request_digest(request.method, request.url.path, body)
        return receipts.once(store, key, bearer(authorization), fingerprint, run, keep)

    def dumped(body: Any) -> Any:
        return None if body is None else body.model_dump(mode="json")

    @app.get("/healthz", tags=["service"])
    def healthz() -> dict[str, str]:
        """200 while the service is up."""
        return {"status": "ok", "version": __version__}

    @app.get("/api/systems", tags=["service"])
    def systems() -> list[dict[str, Any]]:
        """The rule systems a bout may use: name, title, actions, stats a referee may hide."""
        out = []
        for name in system_names():
            system = find_system(name)()
            out.append(
                {
                    "name": name,
                    "title": system.title,
                    "actions": list(system.actions),
                    "hidden_stats": list(system.hidden_stats()),
                }
            )
        return out

    @app.post("/api/bouts", status_code=201, tags=["bouts"])
    def create_bout(
        request: Request, body: m.CreateBout, idempotency_key: KeyHeader = None
    ) -> dict[str, Any]:
        """Open a bout; the answer holds the referee's token (shown once) and the commitment."""
        return dict(
            once(
                request,
                idempotency_key,
                None,
                dumped(body),
                lambda: service.create_bout(
                    body.system, body.name, body.client_seed, body.rules, body.dialect or "roll20"
                ),
            )
        )

    @app.get("/api/bouts", tags=["bouts"])
    def list_bouts(limit: Annotated[int, Query(ge=1, le=200)] = 50) -> list[dict[str, Any]]:
        """Recent bouts (public fields only)."""
        return [b.as_json() for b in store.list_bouts(limit=limit)]

    @app.get("/api/bouts/{bout_id}", tags=["bouts"])
    def get_bout(bout_id: str, authorization: AuthHeader = None) -> dict[str, Any]:
        """The bout's state; hidden stats only with the referee's token."""
        return service.view(bout_id, who(bout_id, authorization))

    @app.get("/api/bouts/{bout_id}/scoreboard", tags=["bouts"])
    def scoreboard(bout_id: str) -> list[dict[str, Any]]:
        """Wounds against thresholds, standing fighters first."""
        return service.scoreboard(bout_id)

    @app.post("/api/bouts/{bout_id}/fighters", status_code=201, tags=["fighters"])
    def add_fighter(
        request: Request,
        bout_id: str,
        body: m.AddFighter,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee adds a fighter (MSV: `cs`; SRP: `sheet`); its token comes back once."""

        def run() -> dict[str, Any]:  # the service checks it is the referee's token
            caller = who(bout_id, authorization)
            return service.add_fighter(
                bout_id, caller, body.name, body.stats(), body.side, body.hidden, body.client_seed
            )

        return dict(once(request, idempotency_key, authorization, dumped(body), run))

    @app.post("/api/bouts/{bout_id}/join", status_code=201, tags=["fighters"])
    def join(
        request: Request,
        bout_id: str,
        body: m.AddFighter,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """A fighter joins an open bout by itself, optionally adding its part to the client seed."""

        def run() -> dict[str, Any]:
            caller = who(bout_id, authorization)
            return service.add_fighter(
                bout_id, caller, body.name, body.stats(), body.side, (), body.client_seed, True
            )

        return dict(once(request, idempotency_key, authorization, dumped(body), run))

    @app.patch("/api/bouts/{bout_id}/fighters/{name}", tags=["fighters"])
    def update_fighter(
        request: Request,
        bout_id: str,
        name: str,
        body: m.UpdateFighter,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee changes a fighter's stats or wounds."""
        command = c.UpdateFighter(name, body.stats(), body.wounds)
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: _events(service.command(bout_id, who(bout_id, authorization), command)),
            )
        )

    @app.delete("/api/bouts/{bout_id}/fighters/{name}", tags=["fighters"])
    def remove_fighter(
        request: Request,
        bout_id: str,
        name: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee removes a fighter, or a fighter quits (its own token, then revoked)."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                None,
                lambda: _events(service.remove(bout_id, who(bout_id, authorization), name)),
            )
        )

    @app.post("/api/bouts/{bout_id}/fighters/{name}/token", tags=["fighters"])
    def reissue_token(
        request: Request,
        bout_id: str,
        name: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee reissues a fighter's link: `{"name", "token"}`; the old token stops
        working."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                None,
                lambda: service.reissue_token(bout_id, who(bout_id, authorization), name),
            )
        )

    @app.post("/api/bouts/{bout_id}/fighters/{name}/reveal", tags=["fighters"])
    def reveal(
        request: Request,
        bout_id: str,
        name: str,
        body: m.Reveal | None = None,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee reveals a fighter's hidden stats (all, or the named `keys`)."""
        keys = tuple(body.keys) if body else ()
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: _events(
                    service.command(bout_id, who(bout_id, authorization), c.Reveal(name, keys))
                ),
            )
        )

    @app.post("/api/bouts/{bout_id}/initiative", tags=["actions"])
    def initiative(
        request: Request,
        bout_id: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """The referee rolls initiative; the bout starts."""

        def run() -> dict[str, Any]:
            events = service.command(bout_id, who(bout_id, authorization), c.RollInitiative())
            settled = next(e for e in events if e["type"] == "initiative")
            return {"order": settled["payload"]["order"], **_events(events)}

        return dict(once(request, idempotency_key, authorization, None, run))

    @app.post("/api/bouts/{bout_id}/attacks", tags=["actions"])
    def attack(
        request: Request,
        bout_id: str,
        body: m.Attack,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """An attack by `attacker` (its own token, or the referee's) on `target`.

        Circumstance options (`modifier`, `rear`, `defend`, `range`) are the referee's: a
        fighter's token that sets one gets 403.
        """
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: service.act(
                    bout_id, who(bout_id, authorization), body.attacker, "attack", body.options()
                ),
            )
        )

    @app.post("/api/bouts/{bout_id}/actions", tags=["actions"])
    def action(
        request: Request,
        bout_id: str,
        body: m.Action,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """Any action the bout's rule system offers (SRP: shoot, disarm, grapple, move, ...)."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: service.act(
                    bout_id, who(bout_id, authorization), body.actor, body.kind, body.options
                ),
            )
        )

    @app.post("/api/bouts/{bout_id}/rolls", tags=["actions"])
    def free_roll(
        request: Request,
        bout_id: str,
        body: m.FreeRoll,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """A recorded roll outside the rules (the chat's `roll`), by a fighter or the referee:
        any dice notation; every throw is a roll event with its nonce and faces."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: service.free_roll(
                    bout_id, who(bout_id, authorization), body.dice, body.actor
                ),
            )
        )

    def referee_power(path: str, command: Callable[[], c.Command], doc: str) -> None:
        def route(
            request: Request,
            bout_id: str,
            authorization: AuthHeader = None,
            idempotency_key: KeyHeader = None,
        ) -> dict[str, Any]:
            return dict(
                once(
                    request,
                    idempotency_key,
                    authorization,
                    None,
                    lambda: _events(
                        service.command(bout_id, who(bout_id, authorization), command())
                    ),
                )
            )

        route.__doc__ = doc
        route.__name__ = path.replace("-", "_")
        app.post(f"/api/bouts/{{bout_id}}/{path}", tags=["referee"])(route)

    referee_power("pause", c.Pause, "Pause the bout.")
    referee_power("resume", c.Resume, "Resume a paused bout.")
    referee_power("skip", c.Skip, "Pass the current fighter's turn.")
    referee_power("void", c.Void, "Take back the last action (an undo event; nothing is erased).")
    referee_power("cancel", c.Cancel, "Call the bout off.")

    @app.post("/api/bouts/{bout_id}/end", tags=["referee"])
    def end(
        request: Request,
        bout_id: str,
        body: m.End | None = None,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """End the bout, naming the winning side (or none)."""
        command = c.End(
            body.winner if body else None, (body.reason if body else None) or "ended by the referee"
        )
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: _events(service.command(bout_id, who(bout_id, authorization), command)),
            )
        )

    @app.post("/api/bouts/{bout_id}/override", tags=["referee"])
    def override(
        request: Request,
        bout_id: str,
        body: m.Override,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """Replace an outcome's wounds (SRP-20); the original stays in the log beside it."""
        command = c.Override(body.of, body.wounds, body.note)
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                dumped(body),
                lambda: _events(service.command(bout_id, who(bout_id, authorization), command)),
            )
        )

    @app.post("/api/bouts/{bout_id}/handover", tags=["referee"])
    def handover(
        request: Request,
        bout_id: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """Hand the bout to another referee: a new referee token; the old one stops working."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                None,
                lambda: service.hand_over(bout_id, who(bout_id, authorization)),
            )
        )

    @app.post("/api/bouts/{bout_id}/rotate-seed", tags=["fairness"])
    def rotate(
        request: Request,
        bout_id: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """Reveal the current server seed and commit to a new one."""
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                None,
                lambda: service.rotate_seed(bout_id, who(bout_id, authorization)),
            )
        )

    @app.post("/api/bouts/{bout_id}/close", tags=["fairness"])
    def close(
        request: Request,
        bout_id: str,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> dict[str, Any]:
        """End the bout if needed and reveal its server seed: now anyone can verify it.

        Once closed, nothing changes the bout: every write answers 409.
        """
        return dict(
            once(
                request,
                idempotency_key,
                authorization,
                None,
                lambda: service.close(bout_id, who(bout_id, authorization)),
            )
        )

    @app.get("/api/bouts/{bout_id}/export", tags=["fairness"])
    def export(bout_id: str, authorization: AuthHeader = None) -> dict[str, Any]:
        """The export document: bout, fairness (commitment, client seed, seeds once revealed)
        and every event."""
        return service.export(bout_id, who(bout_id, authorization))

    @app.get("/api/bouts/{bout_id}/log", tags=["events"])
    def event_log(
        bout_id: str,
        after: Annotated[int, Query(ge=-1, le=MAX_CURSOR)] = -1,
        authorization: AuthHeader = None,
    ) -> list[dict[str, Any]]:
        """The ledger's events after seq `after` (JSON; for polling clients)."""
        return service.visible_records(bout_id, who(bout_id, authorization), after)

    @app.get(
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
        last_event_id: Annotated[str | None, Header()] = None,
    ) -> StreamingResponse:
        """Live events as server-sent events (`id` = seq, `event` = type, `data` = the event)."""
        caller = await run_in_threadpool(service.caller, bout_id, bearer(authorization) or token)
        await run_in_threadpool(store.get_bout, bout_id)  # 404 now, not inside the stream
        resumed = _cursor(last_event_id, "Last-Event-ID")
        start = after if resumed is None else resumed
        referee = caller.role is Role.REFEREE
        stream = hub.open(bout_id, start, referee, client_address(request.scope))
        return StreamingResponse(
            stream,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    @app.post(
        "/api/bouts/{bout_id}/chat",
        tags=["chat"],
        response_class=PlainTextResponse,
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"text/plain": {"schema": {"type": "string", "maxLength": 1024}}},
            }
        },
    )
    async def chat(
        bout_id: str,
        request: Request,
        authorization: AuthHeader = None,
        idempotency_key: KeyHeader = None,
    ) -> PlainTextResponse:
        """One chat line in (text/plain, UTF-8, at most 1,024 bytes), one plain-text answer
        out (at most 1,024 bytes); every error is one `error: ...` line.

        The whole line is one transaction: a line that fails stores nothing.
        """
        line = read_line(await request.body())

        def run() -> str:
            return answer_chat(service, bout_id, who(bout_id, authorization), line)

        answer = await run_in_threadpool(once, request, idempotency_key, authorization, line, run)
        return PlainTextResponse(str(answer))

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

        @app.get("/", include_in_schema=False)
        def home() -> FileResponse:
            return FileResponse(STATIC / "index.html")

    return app


def _allowed(app: FastAPI, request: Request) -> list[str]:
    """Every method some route offers at the request's path (for a 405's Allow header)."""
    methods: set[str] = set()
    for route in app.router.routes:
        match, _ = route.matches({**request.scope, "method": "\x00"})
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


def _events(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "events": [{"seq": e["seq"], "type": e["type"], "payload": e["payload"]} for e in records]
    }
