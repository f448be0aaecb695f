"""The one place a `RefereeError` becomes an HTTP answer: JSON `{"error", "message"}` with the
error's status, or one `error: ...` line at the chat endpoint."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from fastapi.responses import JSONResponse, PlainTextResponse, Response

from referee.errors import RefereeError
from referee.service.chat import error_answer
from referee.service.limits import RateLimitedError, refusal_headers


def error_body(code: str, message: str) -> dict[str, str]:
    """The JSON every error answer carries."""
    return {"error": code, "message": message}


def is_chat(scope: MutableMapping[str, Any]) -> bool:
    """Whether a request goes to the chat endpoint (whose answers are all plain text)."""
    return str(scope.get("path", "")).rstrip("/").endswith("/chat")


def chat_error(status: int, message: str) -> PlainTextResponse:
    """An error as the chat endpoint answers it: one `error: ...` line."""
    return PlainTextResponse(message, status_code=status)


def error_response(scope: MutableMapping[str, Any], err: RefereeError) -> Response:
    """A `RefereeError` as the service answers it, the one place its status and body are made:
    JSON `{"error", "message"}` (the chat endpoint: one `error: ...` line) with the error's
    status, and `Retry-After` for a refusal over a limit."""
    if is_chat(scope):
        answer: Response = chat_error(err.http_status, error_answer(err))
    else:
        answer = JSONResponse(error_body(err.code, err.public), status_code=err.http_status)
    if isinstance(err, RateLimitedError):
        answer.headers.update(refusal_headers(err))
    return answer
