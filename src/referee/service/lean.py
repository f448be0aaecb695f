"""The write routes' lean lane: a well-formed write run on Starlette's and pydantic's public
API, the route declared to FastAPI as any route (FastAPI documents it in the OpenAPI schema and
answers every request the lane does not take).

A write route is declared as FastAPI declares any route (path parameters, at most one JSON
body model, the one `routing.Writer` dependency, maybe the `Request`), and FastAPI makes its
OpenAPI schema from that declaration as usual. Per request, FastAPI's handler then builds
exit stacks, solves the dependencies parameter by parameter, validates the body, runs the
route and validates and serializes its answer: for a write, as much work again as the write
itself (`benchmarks/bench_service.py`).

`add_lanes` gives each such route, once the app has all its routes, a lane as its ASGI app
(`LeanWrite`, over the app FastAPI made for the route): the router finds the route as it always
has, the declaration stays what FastAPI documents. The lane does FastAPI's steps with the same
functions: the body read whole from the ASGI messages, parsed by `json.loads` (what Starlette's
`Request.json` and so FastAPI parse `application/json` with), validated by a pydantic
`TypeAdapter` of the parameter's own annotation (made once, its validator called as FastAPI's
field calls it); the `Write` made as the dependency makes it (`routing.Write.of`) from the same
two headers; the answer validated and serialized by a `TypeAdapter` of the declaration's
response model and sent as Starlette's `Response`. It takes
only what it can take exactly: a body that is empty where one is required, of another content
type (`application/merge-patch+json` too), not JSON or invalid goes to FastAPI's own handler,
whose answer (a 422 and its message) is the one the route has always given; so does every
request while the app's dependencies are overridden (`app.dependency_overrides`). So both ways
give the same answer, byte for byte (tests/test_service_lean.py). Errors the route raises reach
the app's exception handlers, as from any route.

A declaration the lane cannot run exactly (a query, header or cookie parameter of its own,
another dependency, a path parameter other than a plain string, a synchronous function, a
response option other than the defaults) gets no lane: FastAPI runs it entirely.
"""

from __future__ import annotations

import inspect
import json
import types
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Union, get_args, get_origin

from fastapi.datastructures import DefaultPlaceholder
from fastapi.routing import APIRoute
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.convertors import StringConvertor
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from referee.service.routing import Write, Writer

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def add_lanes(routes: list[BaseRoute]) -> None:
    """Give each route of `routes` declared to FastAPI that a lane can run its lane: the
    route's ASGI app becomes a `LeanWrite` over the app FastAPI made for it."""
    for route in routes:
        if isinstance(route, APIRoute) and not isinstance(route.app, LeanWrite):
            lane = LeanWrite.of(route)
            if lane is not None:
                route.app = lane


#: The body an optional body parameter leaves out: the parameter's default.
_REQUIRED = inspect.Parameter.empty


@dataclass(frozen=True, slots=True)
class LeanWrite:
    """The ASGI app of a lane: the route function `call` of the route `declared`, run with its
    arguments taken from the request as FastAPI takes them, its answer serialized as FastAPI
    serializes it; `standard` answers every request the lane does not take."""

    declared: APIRoute
    #: FastAPI's own handler of the declaration: what answers a request the lane does not take.
    standard: Callable[[Scope, Receive, Send], Awaitable[None]]
    takes: Parameters
    #: The body's validator (None: the route takes no body).
    body_adapter: TypeAdapter[Any] | None
    #: The response model's validator and serializer; None: the route returns a `Response`.
    answer: TypeAdapter[Any] | None
    status: int

    @classmethod
    def of(cls, declared: APIRoute) -> LeanWrite | None:
        """The lane of `declared`, or None when it cannot be run exactly as FastAPI runs it."""
        status = declared.status_code or 200
        if not inspect.iscoroutinefunction(declared.endpoint):
            return None
        if not _plain_options(declared, status):
            return None
        if not all(isinstance(c, StringConvertor) for c in declared.param_convertors.values()):
            return None
        signature = inspect.signature(declared.endpoint, eval_str=True)
        takes = Parameters.of(signature, frozenset(declared.param_convertors))
        if takes is None or not takes.write:
            return None
        if not _answers_exactly(declared, signature.return_annotation):
            return None
        body_adapter = None if takes.body_type is None else TypeAdapter(takes.body_type)
        model = declared.response_model
        answer = None if model is None else TypeAdapter(model)
        return cls(declared, declared.app, takes, body_adapter, answer, status)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        overrides = self.declared.dependency_overrides_provider
        if overrides is not None and overrides.dependency_overrides:
            await self.standard(scope, receive, send)  # FastAPI calls the overrides
            return
        body = await read_body(receive)
        if body is None:  # the client went away: nobody to answer, nothing to do
            return
        arguments = self.arguments(scope, body, receive, send)
        if arguments is None:  # FastAPI's own handler gives its own answer (a 422, ...)
            await self.standard(scope, replay(body, receive), send)
            return
        answer = await self.declared.endpoint(**arguments)
        if self.answer is None:
            if not isinstance(answer, Response):
                raise TypeError(f"{self.declared.path} must return a Response, not {answer!r}")
            await answer(scope, receive, send)
            return
        # As FastAPI's response field: an answer that does not fit raises (a 500).
        value = self.answer.validator.validate_python(answer, from_attributes=True)
        content = self.answer.serializer.to_json(value, by_alias=True)
        await Response(content, self.status, media_type="application/json")(scope, receive, send)

    def arguments(
        self, scope: Scope, body: bytes, receive: Receive, send: Send
    ) -> dict[str, Any] | None:
        """The route function's arguments, or None: let FastAPI's handler answer."""
        takes = self.takes
        params = scope["path_params"]
        arguments: dict[str, Any] = {name: params[name] for name in takes.paths}
        content_type, authorization, key = read_headers(scope)
        if takes.body:
            value = self.body_value(content_type, body)
            if value is _REFUSED:
                return None
            arguments[takes.body] = value
        if takes.request:  # it reads the body from the request again
            arguments[takes.request] = Request(scope, replay(body, receive), send)
        # What the `Writer` dependency (`routing.writing`) gives, from the same two headers.
        arguments[takes.write] = Write.of(scope, authorization, key)
        return arguments

    def body_value(self, content_type: str | None, body: bytes) -> Any:
        """The validated body, the default of an optional one left out (no body or `null`),
        or `_REFUSED`."""
        adapter = self.body_adapter
        assert adapter is not None
        parsed = None
        if body:
            if content_type is None or not _is_json(content_type):
                return _REFUSED
            try:
                parsed = json.loads(body)
            except ValueError:
                return _REFUSED
        if parsed is None:  # no body, or `null`: as FastAPI, the default of an optional one
            default = self.takes.body_default
            return _REFUSED if default is _REQUIRED else default
        try:
            return adapter.validator.validate_python(parsed, from_attributes=True)
        except ValidationError:
            return _REFUSED


def read_headers(scope: Scope) -> tuple[str | None, str | None, str | None]:
    """The `Content-Type`, `Authorization` and `Idempotency-Key` of a request (its ASGI scope,
    whose header names are lower case), each as FastAPI's header parameters read it: the first
    one of its name, decoded as Latin-1; None when not given."""
    found: dict[bytes, str] = {}
    for name, value in scope["headers"]:
        if name in _READ and name not in found:
            found[name] = value.decode("latin-1")
    return found.get(b"content-type"), found.get(b"authorization"), found.get(b"idempotency-key")


_READ = frozenset({b"content-type", b"authorization", b"idempotency-key"})


def _is_json(content_type: str) -> bool:
    """Whether a Content-Type is `application/json` (any case, any parameters), which FastAPI
    reads as JSON.

    >>> _is_json("Application/JSON; charset=utf-8"), _is_json("application/merge-patch+json")
    (True, False)
    """
    return content_type.partition(";")[0].strip().lower() == "application/json"


async def read_body(receive: Receive) -> bytes | None:
    """The whole request body, read as Starlette's `Request.body` reads it; None when the client
    went away first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return b"".join(chunks)


#: A body FastAPI's own handler must answer.
_REFUSED = object()


@dataclass(frozen=True, slots=True)
class Parameters:
    """What a route function takes, by parameter name ("": not taken): its path parameters
    (plain strings), its `Writer`, its `Request`, its body (of `body_type`, `_REQUIRED` or
    its default)."""

    paths: tuple[str, ...]
    write: str
    request: str
    body: str
    body_type: Any
    body_default: Any

    @classmethod
    def of(cls, signature: inspect.Signature, path_names: frozenset[str]) -> Parameters | None:
        """Each parameter a path parameter of type `str`, the `Writer`, the `Request` or one
        body model (`Model`, or `Model | None = None`); None for any other parameter."""
        paths: list[str] = []
        write = request = body = ""
        body_type: Any = None
        body_default: Any = _REQUIRED
        for name, parameter in signature.parameters.items():
            annotation, default = parameter.annotation, parameter.default
            if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
                return None
            if name in path_names and annotation is str and default is _REQUIRED:
                paths.append(name)
            elif annotation is Writer and not write and default is _REQUIRED:
                write = name
            elif annotation is Request and not request and default is _REQUIRED:
                request = name
            elif not body and _is_body(annotation, default):
                body, body_type, body_default = name, annotation, default
            else:
                return None
        return cls(tuple(paths), write, request, body, body_type, body_default)


def _is_body(annotation: Any, default: Any) -> bool:
    """Whether a parameter is a JSON body FastAPI reads whole: a pydantic model without a
    default, or a model or None with the default None."""
    if _is_model(annotation):
        return default is _REQUIRED
    if get_origin(annotation) not in (Union, types.UnionType):
        return False
    members = get_args(annotation)
    return (
        default is None
        and len(members) == 2
        and type(None) in members
        and all(_is_model(m) or m is type(None) for m in members)
    )


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _plain_options(declared: APIRoute, status: int) -> bool:
    """Whether the declaration keeps FastAPI's defaults wherever they change what a request
    gets: no dependency of its own beside its parameters', no body limit of its own, its
    response model serialized whole by alias, a status with a body."""
    return (
        not declared.dependencies
        and declared.max_body_size is None
        and declared.response_model_include is None
        and declared.response_model_exclude is None
        and declared.response_model_by_alias
        and not declared.response_model_exclude_unset
        and not declared.response_model_exclude_defaults
        and not declared.response_model_exclude_none
        and 200 <= status < 600
        and status not in (204, 304)
    )


def _answers_exactly(declared: APIRoute, returns: Any) -> bool:
    """Whether the lane answers as FastAPI does: the function is declared to return a
    `Response` (sent as it is), or FastAPI serializes its response model to JSON itself (no
    response class of its own)."""
    if isinstance(returns, type) and issubclass(returns, Response):
        return declared.response_model is None
    response_class = declared.response_class
    return declared.response_model is not None and isinstance(response_class, DefaultPlaceholder)


def replay(body: bytes, receive: Receive) -> Receive:
    """`receive` that gives `body` whole first, then what the connection says (a disconnect)."""
    given = False

    async def replaying() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replaying
