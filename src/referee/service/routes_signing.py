"""The service's signing key, published, and a check of a signed roll line (no token).

`GET /api/signing-key`: the public key that signs every roll receipt the service says (its
base64url text, id, fingerprint and PEM). `POST /api/signatures/check` with `{"line": TEXT,
"bout"?: ID}`: whether the line's signature is the service's for what it says (and for that
bout); a table in Second Life asks it, since LSL has no Ed25519 (docs/secondlife.md).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import Field

from referee.ledger.signatures import KEY_URL, PURPOSE, check_line
from referee.service.bouts import RefereeService
from referee.service.models import Strict

#: Where a signed line is checked.
CHECK_PATH = "/api/signatures/check"

router = APIRouter()


class CheckLine(Strict):
    """A roll line of the service's to check, and the bout it should be of (its id)."""

    line: str = Field(max_length=2048, examples=["OnlineHost: Tarl rolled 1 100-sided die: 47"])
    bout: str | None = Field(default=None, max_length=64, examples=["AbCdEfGhIjKl"])


def _service(request: Request) -> RefereeService:
    service: RefereeService = request.app.state.service
    return service


@router.get(KEY_URL, tags=["signatures"])
def signing_key(request: Request) -> dict[str, Any]:
    """The service's public key: every roll receipt it says is signed by it."""
    key = _service(request).key.public
    return {**key.published(), "pem": key.pem, "signs": PURPOSE}


@router.post(CHECK_PATH, tags=["signatures"])
def check(body: CheckLine, request: Request) -> dict[str, Any]:
    """Whether a roll line's signature is this service's for what the line says."""
    key = _service(request).key.public
    found = check_line(body.line, key, body.bout)
    return {
        "genuine": found.genuine,
        "reason": found.reason,
        "bout_tag": found.tag,
        "key_id": key.key_id,
    }
