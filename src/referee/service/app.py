"""The HTTP service assembled: the route modules over `RefereeService`, one error handler,
a body-size limit, security headers and rate limits.

The routes live in `routes_*.py`, each adding its routes over one `routing.Ask` (who is
asking, and doing a write once). A read route is a plain (sync) function: FastAPI runs it in its
thread pool, so the store's blocking calls never stall the loop. A write route is `async` and
hands its transaction to `routing.Write.once`; each runs in its lean lane (`service.lean`).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    JSONResponse,
    Response,
)
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match

from referee import __version__
from referee.errors import NotationError, RefereeError, StorageError
from referee.rng import SECURE_ENTROPY, Entropy
from referee.service import (
    receipts,
    routes_actions,
    routes_bouts,
    routes_characters,
    routes_chat,
    routes_evening,
    routes_events,
    routes_fighters,
    routes_judge,
    routes_lab,
    routes_luck,
    routes_powers,
    routes_signing,
    routes_world,
)
from referee.service.bodies import MAX_BODY, ASGIApp, BodyLimit
from referee.service.bouts import ANONYMOUS, ROTATE_EVERY, RefereeService
from referee.service.budgets import Budgets
from referee.service.chat import error_answer
from referee.service.failures import chat_error, error_body, error_response, is_chat
from referee.service.lean import add_lanes
from referee.service.limits import (
    Limits,
    RateLimits,
)
from referee.service.live import LiveHub
from referee.service.routing import Ask, TailRoute
from referee.store import Store

log = logging.getLogger("referee.service")

STATIC = Path(__file__).resolve().parent / "static"


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


#: The raw headers `SecurityHeaders` adds: on every answer, on the console's, on an API answer
#: without a Cache-Control of its own.
_EVERYWHERE = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"))
_CONSOLE_POLICY = (b"content-security-policy", CONSOLE_CSP.encode())
_NO_STORE = (b"cache-control", b"no-store")


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
                headers = [*(message.get("headers") or ()), *_EVERYWHERE]
                if console:
                    headers.append(_CONSOLE_POLICY)
                else:
                    for name, _ in headers:
                        if name.lower() == b"cache-control":
                            break
                    else:  # no cache-control of the answer's own
                        headers.append(_NO_STORE)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


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


def telemetry_off() -> dict[str, Any]:
    """The keyword that turns FastAPI's native OpenTelemetry off, for a FastAPI that has it
    (0.16x; an older one has none to turn off). It looks up three global providers on every
    request (about 1% of an attack's work) to find that none is configured: the service
    neither ships nor documents OpenTelemetry."""
    if "telemetry" not in inspect.signature(FastAPI.__init__).parameters:
        return {}
    off = {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}
    return {"telemetry": off}


def create_app(
    store: Store,
    rotate_every: int = ROTATE_EVERY,
    limits: Limits | None = None,
    poll_seconds: float | None = None,
    keep: receipts.Keep = receipts.KEEP,
    entropy: Entropy = SECURE_ENTROPY,
    budgets: Budgets | None = None,
) -> FastAPI:
    """The referee service over `store`; server seeds rotate after `rotate_every` rolls.

    `limits`: rate limits and stream caps (default `Limits()`, see service/limits.py);
    `poll_seconds`: how often watched bouts are re-read when no notification came;
    `keep`: how long Idempotency-Key receipts are kept (service/receipts.py);
    `budgets`: a bout's bounds (`referee.service.budgets.Budgets()`; tests pass smaller ones);
    `entropy`: where server seeds come from, the OS's secure source; only tests pass another
    (`referee serve` never does, and no setting or request can: see `referee.rng.Entropy`).
    """
    service = RefereeService(store, rotate_every, entropy, budgets)
    limits = Limits() if limits is None else limits
    hub = LiveHub(
        service.records,
        lambda bout_id, after: service.visible_records(bout_id, ANONYMOUS, after),
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
        **telemetry_off(),
    )
    app.state.service = service
    app.state.live = hub
    app.add_middleware(
        BodyLimit, limit=MAX_BODY, wider={**routes_judge.BODY_LIMITS, **routes_luck.BODY_LIMITS}
    )
    if limits.counts:  # every rate off: no layer that would count nothing
        app.add_middleware(RateLimits, limits=limits, shared=store.shared_counters())
    app.add_middleware(SecurityHeaders)

    @app.exception_handler(RefereeError)
    async def referee_error(request: Request, err: RefereeError) -> Response:
        if isinstance(err, StorageError):
            log.warning("%s %s: %s", request.method, request.url.path, err)
        return error_response(request.scope, err)

    @app.exception_handler(RequestValidationError)
    async def bad_body(request: Request, err: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}" for e in err.errors()
        )
        if is_chat(request.scope):
            return chat_error(400, error_answer(NotationError(problems)))
        return JSONResponse(error_body("bad_request", problems[:500]), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> Response:
        code = "not_found" if err.status_code == 404 else "http_error"
        headers = dict(err.headers or {})
        if err.status_code == 405:
            headers["Allow"] = ", ".join(_allowed(app, request))
        if is_chat(request.scope):
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

    ask = Ask(service, store, hub, keep)
    app.state.ask = ask  # what the routes' one dependency (`routing.Reader`/`Writer`) reads
    # The bout routes go straight onto the app's own router: one list to match a request
    # against, not a walk through one included router per module; each turns a path with
    # another last segment down at once.
    app.router.route_class = TailRoute
    for module in (
        routes_bouts,
        routes_fighters,
        routes_actions,
        routes_powers,
        routes_events,
        routes_chat,
        routes_world,
        routes_characters,
        routes_evening,
    ):
        module.routes(ask, app.router)
    app.include_router(routes_judge.router)
    app.include_router(routes_signing.router)
    app.include_router(routes_lab.router)
    app.include_router(routes_luck.router)

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

        @app.get("/", include_in_schema=False)
        def home() -> FileResponse:
            return FileResponse(STATIC / "index.html")

        # Browsers ask for /favicon.ico by themselves (the pages also name favicon.svg).
        @app.get("/favicon.ico", include_in_schema=False)
        def favicon() -> FileResponse:
            return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon")

    # Each write's lean lane before its declaration: a well-formed write runs without
    # FastAPI's per-request machinery (service/lean.py).
    add_lanes(app.router.routes)
    return app


def _allowed(app: FastAPI, request: Request) -> list[str]:
    """Every method some route offers at the request's path (for a 405's Allow header)."""
    methods: set[str] = set()
    for route in _every_route(app.router.routes):
        match, _ = route.matches({**request.scope, "method": "\x00"})
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


def _every_route(routes: Iterable[BaseRoute]) -> Iterator[BaseRoute]:
    """The routes, with those of every included router (none has a prefix) in their place."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _every_route(inner.routes)
        else:
            yield route
