"""`LeanRoute`: a write route that runs a well-formed request without FastAPI's per-request
machinery, and hands everything else to FastAPI's own handler.

A write route is declared as FastAPI declares any route (path parameters, at most one JSON
body model, the one `routing.Writer` dependency, maybe the `Request`), and FastAPI makes its
OpenAPI schema from that declaration as usual. Per request, FastAPI's handler then builds a
`Request`, two exit stacks, solves the dependencies parameter by parameter, validates the
body, runs the route and validates and serializes its answer: for a write, as much work
again as the write itself (`benchmarks/bench_service.py`).

A `LeanRoute` does the same steps directly, with the same functions: the body read as
Starlette reads it, parsed as FastAPI parses it (JSON for `application/json`), validated by
the route's own body field, the `Write` made by `routing.write_for` from the same two
headers, the answer validated and serialized by the route's own response field. It takes
only what it can take exactly: a body that is missing, empty where one is required, of
another content type, not JSON, `null` or invalid goes, unread, to FastAPI's handler, whose
answer (a 422 and its message) is the one the route has always given. So both ways give
the same answer, byte for byte (tests/test_service_lean.py). Errors the route raises reach
the app's exception handlers, as from any route.

A route whose declaration it cannot run exactly (a query, header or cookie parameter of its
own, another dependency, a path parameter other than a plain string, a synchronous
function) is left entirely to FastAPI.

`RouteIndex` finds a request's lean route by its path's last segment instead of trying every
route before it, and leaves every other request to the router's own dispatch
(tests/test_service_route_index.py).
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi.routing import APIRoute
from pydantic import TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Mount, Route

from referee.service.routing import write_for, writing

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_JSON = b"application/json"
_JSON_HEADER = (b"content-type", _JSON)


class LeanRoute(APIRoute):
    """An `APIRoute` that runs well-formed writes directly (see the module's docstring)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **options: Any) -> None:
        super().__init__(path, endpoint, **options)
        #: FastAPI's own handler of the route: what answers a request the lean way does not take.
        self.standard = self.app
        self._plan = _Plan.of(self)
        if self._plan is not None:
            self.app = self._lean
        self._tail = literal_tail(path)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        """FastAPI's match, after a quick look at the path's last segment: a request's path
        that does not end in the route's literal last segment (`/attacks`) cannot match its
        pattern (a router tries its routes in turn, a dozen before the hot ones)."""
        tail = self._tail
        if tail is not None and not str(scope.get("path", "")).endswith(tail):
            return Match.NONE, {}
        return super().matches(scope)

    @property
    def lean(self) -> bool:
        """Whether well-formed requests take the direct way."""
        return self._plan is not None

    async def _lean(self, scope: Scope, receive: Receive, send: Send) -> None:
        plan = self._plan
        assert plan is not None
        body = await _read_body(receive)
        if body is None:  # the client went away: nobody to answer, nothing to do
            return
        arguments = plan.arguments(scope, body)
        if arguments is None:  # FastAPI's own handler gives its own answer (a 422, ...)
            await self.standard(scope, _replaying(body, receive), send)
            return
        if plan.request is not None:
            request = Request(scope, _replaying(body, receive), send)
            request._body = body  # what `await request.body()` gives, as Starlette caches it
            arguments[plan.request] = request
        answer = await self.endpoint(**arguments)
        if isinstance(answer, Response):
            await answer(scope, receive, send)
            return
        status = self.status_code or 200
        json_body = plan.response_json(answer)
        if status < 200 or status in (204, 304):  # no content-length: Starlette's own way
            await Response(json_body, status, media_type="application/json")(scope, receive, send)
            return
        await _send_json(send, json_body, status)


def literal_tail(path: str) -> str | None:
    """The last segment of a route's path with its slash, when it is literal text (no
    parameter): every path the route matches ends in it. None otherwise.

    >>> literal_tail("/api/bouts/{bout_id}/attacks"), literal_tail("/api/bouts/{bout_id}")
    ('/attacks', None)
    """
    last = path.rpartition("/")[2]
    return "/" + last if last and "{" not in last and "}" not in last else None


class _Plan:
    """What a `LeanRoute` takes from a request: its path parameters, its body (validated by
    the route's body field) and its `Write`; and how it answers."""

    __slots__ = (
        "body",
        "body_adapter",
        "body_field",
        "paths",
        "request",
        "required",
        "response_adapter",
        "response_field",
        "write",
    )

    def __init__(self, route: APIRoute) -> None:
        dependant = route.dependant
        self.paths = tuple(str(field.name) for field in dependant.path_params)
        self.write = str(dependant.dependencies[0].name)
        self.request = dependant.request_param_name
        self.body_field = route.body_field
        self.body = str(dependant.body_params[0].name) if dependant.body_params else None
        self.required = self.body_field is not None and self.body_field.field_info.is_required()
        self.response_field = route.response_field
        #: The fields' pydantic type adapters (FastAPI's `ModelField` keeps one), when there
        #: to call directly; else the fields' own methods are called.
        self.body_adapter = _adapter(self.body_field)
        self.response_adapter = _adapter(self.response_field)

    @classmethod
    def of(cls, route: APIRoute) -> _Plan | None:
        """The plan of `route`, or None when it cannot be run exactly as FastAPI runs it."""
        dependant = route.dependant
        if not _is_coroutine(route.endpoint):
            return None
        if dependant.query_params or dependant.header_params or dependant.cookie_params:
            return None
        if len(dependant.dependencies) != 1 or dependant.dependencies[0].call is not writing:
            return None
        if (
            dependant.websocket_param_name
            or dependant.http_connection_param_name
            or dependant.response_param_name
            or dependant.background_tasks_param_name
            or dependant.security_scopes_param_name
        ):
            return None
        if any(
            field.field_info.annotation is not str or field.field_info.metadata
            for field in dependant.path_params
        ):
            return None
        if len(dependant.body_params) > 1 or getattr(route, "_embed_body_fields", False):
            return None
        if dependant.body_params and route.body_field is None:
            return None
        if route.response_field is None and not _answers_a_response(route):
            return None
        return cls(route)

    def arguments(self, scope: Scope, body: bytes) -> dict[str, Any] | None:
        """The route function's arguments, or None: let FastAPI's handler answer."""
        params = scope["path_params"]
        arguments: dict[str, Any] = {name: params[name] for name in self.paths}
        if self.body is not None:
            value = self._body(scope, body)
            if value is _REFUSED:
                return None
            arguments[self.body] = value
        authorization = key = None
        for name, raw in scope["headers"]:
            if name == b"authorization" and authorization is None:
                authorization = raw.decode("latin-1")
            elif name == b"idempotency-key" and key is None:
                key = raw.decode("latin-1")
        arguments[self.write] = write_for(scope, authorization, key)
        return arguments

    def _body(self, scope: Scope, body: bytes) -> Any:
        """The validated body, None for an optional one left out, or `_REFUSED`."""
        field = self.body_field
        assert field is not None
        if not body:
            return _REFUSED if self.required else None
        if _content_type(scope) != _JSON:
            return _REFUSED
        try:
            parsed = json.loads(body)
        except ValueError:
            return _REFUSED
        if parsed is None:
            return _REFUSED
        adapter = self.body_adapter
        if adapter is None:
            value, errors = field.validate(parsed, {}, loc=("body",))
            return _REFUSED if errors else value
        try:  # what `field.validate` calls, called directly
            return adapter.validator.validate_python(parsed, from_attributes=True)
        except ValidationError:
            return _REFUSED

    def response_json(self, answer: Any) -> bytes:
        """The answer's JSON as FastAPI makes it: validated and serialized by the response
        field (its own type adapter's validator and serializer, called directly: the same
        calls without FastAPI's and pydantic's wrappers around them)."""
        field = self.response_field
        assert field is not None, "a route without a response model must return a Response"
        adapter = self.response_adapter
        if adapter is not None:
            try:
                value = adapter.validator.validate_python(answer, from_attributes=True)
            except ValidationError:
                pass  # the field's own call below says what is wrong, as it always has
            else:
                return bytes(adapter.serializer.to_json(value, by_alias=True))
        value, errors = field.validate(answer, {}, loc=("response",))
        if errors:
            raise TypeError(f"the route's answer does not match its response model: {errors}")
        return field.serialize_json(value)


async def _send_json(send: Send, body: bytes, status: int) -> None:
    """Send `body` (JSON) with `status` (one that has a body: not 1xx, 204 or 304) as
    `Response(body, status, media_type="application/json")` sends it: the same two messages,
    the same headers in the same order; without making the `Response` (a tenth of the route's
    own work for an attack)."""
    headers = [(b"content-length", str(len(body)).encode("latin-1")), _JSON_HEADER]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


#: A body FastAPI's own handler must answer.
_REFUSED = object()


def _content_type(scope: Scope) -> bytes | None:
    """The request's media type, lower case without parameters (None when not given)."""
    for name, raw in scope["headers"]:
        if name == b"content-type":
            return bytes(raw).partition(b";")[0].strip().lower()
    return None


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, read as Starlette's `Request.body` reads it; None if the client
    disconnected first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` that gives `body` once more first (for a handler that reads it again)."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _adapter(field: Any) -> TypeAdapter[Any] | None:
    """The pydantic `TypeAdapter` a FastAPI field validates and serializes with, if it has one
    (FastAPI keeps it in a private attribute; a FastAPI without it gets the field's methods)."""
    adapter = getattr(field, "_type_adapter", None)
    return adapter if isinstance(adapter, TypeAdapter) else None


def _is_coroutine(function: Any) -> bool:
    return inspect.iscoroutinefunction(function)


def _answers_a_response(route: APIRoute) -> bool:
    """Whether the route function is declared to return a `Response` itself."""
    try:
        returns = inspect.signature(route.endpoint, eval_str=True).return_annotation
    except (NameError, TypeError, ValueError):
        return False
    return isinstance(returns, type) and issubclass(returns, Response)


class RouteIndex:
    """A router's dispatch, quicker for the routes it finds by their path's last segment.

    A router tries a request against its routes in turn: an attack was matched after fourteen
    others. The index keeps, under each literal last segment (`/attacks`), the routes whose
    paths end in it and that no earlier route can take first (`_shadows`: an earlier route
    whose path can match one of theirs, with a method in common). A request whose path ends
    in such a segment is tried against those routes only, each by its own `matches`; a full
    match is handled as the router handles one (`scope["router"]`, the match's scope, then
    the route's `handle`). It is the route the router would pick: none before it can match
    the request fully. Anything else (no candidate, only a partial match: a 405; no match: a
    404 or a redirect of a trailing slash) goes to the router's own dispatch, unchanged.

    Installed as the router's `middleware_stack` (what `Router.__call__` runs: the router's
    own `app` unless the router has middleware); a route added later is found by the
    router's dispatch (the index is made again when the routes change in number).
    """

    def __init__(self, router: Any) -> None:
        self.router = router
        self.fallback = router.middleware_stack
        self._index(router)

    def _index(self, router: Any) -> None:
        routes = list(router.routes)
        self._count = len(routes)
        self._tails: dict[str, tuple[LeanRoute, ...]] = {}
        if getattr(router, "form_limits", None) or self.fallback != router.app:
            return  # the router does more per request than the index would: not indexed
        for at, route in enumerate(routes):
            tail = getattr(route, "_tail", None)
            if not isinstance(route, LeanRoute) or tail is None:
                continue
            if not any(_shadows(earlier, route) for earlier in routes[:at]):
                self._tails[tail[1:]] = (*self._tails.get(tail[1:], ()), route)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        router = self.router
        if scope["type"] == "http" and scope.get("fastapi.telemetry") is None:
            if len(router.routes) != self._count:
                self._index(router)
            for route in self._tails.get(str(scope["path"]).rpartition("/")[2], ()):
                match, child_scope = route.matches(scope)
                if match is Match.FULL and child_scope.keys() <= _CHILD_KEYS:
                    if "router" not in scope:
                        scope["router"] = router
                    scope.update(child_scope)
                    await route.handle(scope, receive, send)
                    return
        await self.fallback(scope, receive, send)


#: What a plain route's full match puts in the scope (the router's own dispatch would do more
#: with anything else).
_CHILD_KEYS = frozenset({"endpoint", "path_params", "route"})
#: The `matches` of a plain route: by its path and methods only.
_PLAIN_MATCHES = (Route.matches, APIRoute.matches, LeanRoute.matches)
#: A path parameter as a whole segment, of the default (string) type: `{bout_id}`.
_PARAMETER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(?::str)?\}")


def _shadows(earlier: Any, route: LeanRoute) -> bool:
    """Whether `earlier` (a route before `route` in a router) may match fully a request that
    `route` matches fully: True unless its path and methods show it cannot."""
    if isinstance(earlier, Mount):
        prefix = _segments(earlier.path)
        mine = _segments(route.path)
        if prefix is None or mine is None or len(prefix) >= len(mine):
            return True
        return _fit(prefix, mine[: len(prefix)])
    if not isinstance(earlier, Route) or type(earlier).matches not in _PLAIN_MATCHES:
        return True  # an included router, a websocket route, a route of its own kind: unknown
    if earlier.methods and route.methods and not (earlier.methods & route.methods):
        return False  # it matches only partially (a 405), which never goes before a full match
    theirs, mine = _segments(earlier.path), _segments(route.path)
    if theirs is None or mine is None or len(theirs) != len(mine):
        return theirs is None or mine is None
    return _fit(theirs, mine)


def _segments(path: str) -> list[str] | None:
    """A route path's segments, or None when one is neither literal nor a whole string
    parameter (`{name}`): a path this module does not reason about."""
    segments = path.split("/")[1:]
    for segment in segments:
        if ("{" in segment or "}" in segment) and not _PARAMETER.fullmatch(segment):
            return None
    return segments


def _fit(theirs: list[str], mine: list[str]) -> bool:
    """Whether one request path can match both segment lists (of the same length): at each
    place the same literal text, or a parameter (one or more characters other than `/`) and
    anything it can stand for."""
    for one, other in zip(theirs, mine, strict=True):
        one_literal, other_literal = not one.startswith("{"), not other.startswith("{")
        if one_literal and other_literal:
            if one != other:
                return False
        elif (one_literal and not one) or (other_literal and not other):
            return False  # an empty segment: no parameter matches it
    return True
