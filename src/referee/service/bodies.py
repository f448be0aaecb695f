"""What a request's body may be: at most `MAX_BODY` bytes (wider on the paths that say so),
and JSON nested at most `MAX_JSON_DEPTH` deep, refused by `BodyLimit` before any route, parser
or digest sees it."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from referee.errors import RefereeError, TooLargeError
from referee.numerals import is_whole
from referee.service.failures import error_response, is_chat

ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]

#: Largest request body accepted, in bytes (a sheet, a chat line or a rule pack fits well).
MAX_BODY = 16 * 1024

#: Deepest nesting of arrays and objects in a JSON request body. Every body the routes take is
#: far shallower (an action's options: 4 levels inside the request; an export given to the judge:
#: its events' 32 and a few more); a body nested deeper is refused before it is parsed, so no
#: parser, validator or digest ever recurses that deep (1,000 levels was a 500).
MAX_JSON_DEPTH = 64
#: The characters that open or close a level, start or end a string, or escape within one.
_JSON_MARKS = re.compile(rb'["\\\[\]{}]')


def json_depth_over(body: bytes, most: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON text `body` nests arrays and objects more than `most` deep (brackets
    inside strings do not count). Reads the marks only, whatever the rest; not JSON at all is
    the parser's to say.

    >>> json_depth_over(b'{"a": [[1]]}', 3), json_depth_over(b'{"a": [[[1]]]}', 3)
    (False, True)
    >>> json_depth_over(b'{"log": "[[[[[[ \\\\" [[[["}', 1)
    False
    """
    # Quick and exact: no nesting is deeper than the body has opening brackets (those inside
    # strings only add to the count), and two counts in C cost far less than the walk below
    # (an attack's body has one).
    if body.count(b"[") + body.count(b"{") <= most:
        return False
    depth = 0
    skip = -1
    in_string = False
    for mark in _JSON_MARKS.finditer(body):
        at = mark.start()
        if at <= skip:
            continue
        char = body[at]
        if in_string:
            if char == 0x5C:  # a backslash: the next character is escaped
                skip = at + 1
            elif char == 0x22:
                in_string = False
        elif char == 0x22:
            in_string = True
        elif char in (0x5B, 0x7B):
            depth += 1
            if depth > most:
                return True
        elif char in (0x5D, 0x7D):
            depth -= 1
    return False


class BodyLimit:
    """Refuse request bodies over `limit` bytes (`wider[path]` on the paths it names) with
    413, declared or streamed; and a JSON body nested more than `MAX_JSON_DEPTH` deep with 400,
    read whole (it is bounded) before the app sees it. Both are answered as the service's one
    exception handler answers (`error_response`)."""

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
        limit = self._limit(scope)
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and (not is_whole(declared) or int(declared) > limit):
            await self._refuse(scope, receive, send, self._too_large(scope))
            return
        has_body = (declared is not None and declared.strip() != b"0") or (
            b"transfer-encoding" in headers
        )
        if has_body and _may_be_json(scope, headers.get(b"content-type")):
            await self._json(scope, receive, send, limit)
            return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await self._refuse(scope, receive, send, self._too_large(scope))

    async def _json(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
        limit: int,
    ) -> None:
        """A JSON body: read whole (at most `limit` bytes), its nesting checked, then given on."""
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: let the app see it
                await self.app(scope, _given([message], receive), send)
                return
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > limit:
                await self._refuse(scope, receive, send, self._too_large(scope))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if json_depth_over(body):
            too_deep = RefereeError(
                f"the request body nests JSON arrays and objects more than {MAX_JSON_DEPTH} "
                "deep; nothing was stored"
            )
            await self._refuse(scope, receive, send, too_deep)
            return
        whole = {"type": "http.request", "body": body, "more_body": False}
        await self.app(scope, _given([whole], receive), send)

    def _too_large(self, scope: MutableMapping[str, Any]) -> TooLargeError:
        return TooLargeError(f"request body over {self._limit(scope)} bytes")

    async def _refuse(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
        err: RefereeError,
    ) -> None:
        await error_response(scope, err)(scope, receive, send)


class _TooLarge(Exception):
    pass


def _may_be_json(scope: MutableMapping[str, Any], kind: bytes | None) -> bool:
    """Whether a body may be read as JSON by a route: `application/json`, `application/*+json`
    or no content type (the chat endpoint's lines are text, whatever their type says)."""
    if is_chat(scope):
        return False
    if kind is None:
        return True
    media = kind.partition(b";")[0].strip().lower()
    return media == b"application/json" or (
        media.startswith(b"application/") and media.endswith(b"+json")
    )


def _given(
    messages: list[Any], receive: Callable[[], Awaitable[Any]]
) -> Callable[[], Awaitable[Any]]:
    """`receive` that gives `messages` first, then what the connection says (a disconnect)."""
    waiting = list(messages)

    async def replay() -> Any:
        if waiting:
            return waiting.pop(0)
        return await receive()

    return replay
