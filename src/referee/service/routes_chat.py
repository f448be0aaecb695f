"""The chat endpoint: one plain-text line in, one plain-text answer out."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from referee.service.bouts import Caller
from referee.service.characters import KEY_HEADER
from referee.service.chat import answer_chat, read_line
from referee.service.routing import Ask, Writer


def routes(ask: Ask, router: APIRouter) -> None:
    """Add the routes of this module over `ask` (the service, its store and live hub) to
    `router`."""
    service = ask.service

    @router.post(
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
    async def chat(bout_id: str, request: Request, write: Writer) -> PlainTextResponse:
        """One chat line in (text/plain, UTF-8, at most 1,024 bytes), one plain-text answer
        out (at most 1,024 bytes); every error is one `error: ...` line. An
        `X-Character-Key: ck_...` header runs the character lines (`char list`, `char new`,
        `char set`, `join`) and acts for the fighter the key's character plays.

        The whole line is one transaction: a line that fails stores nothing.
        """
        line = read_line(await request.body())
        # A character key (`referee.service.chat_characters`), read as a header of the request
        # itself so the route keeps its lean lane; never said back.
        key = request.headers.get(KEY_HEADER)

        def run(caller: Caller) -> str:
            return answer_chat(service, bout_id, caller, line, key)

        answer = await write.once(line, run)
        return PlainTextResponse(str(answer))
