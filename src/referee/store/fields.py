"""What a caller hands the store, checked before it is stored: bout ids, texts, times, rules.

>>> check_id("b1"), check_text("name", "Spar", 200)
('b1', 'Spar')
>>> check_id("a b")
Traceback (most recent call last):
...
referee.errors.RuleError: bout id 'a b' must be 1..64 letters, digits, '-' or '_'
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from referee.errors import LimitError, RuleError
from referee.ledger import is_utc_time

_BOUT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def new_bout_id() -> str:
    """A fresh bout id: 12 URL-safe random characters, never starting with `-` (so that every
    command line takes it as an argument, not an option: `referee export -EYGVDQ_VdEx` would
    be read as options).

    >>> all(not new_bout_id().startswith("-") for _ in range(200))
    True
    """
    while True:
        bout_id = secrets.token_urlsafe(9)
        if not bout_id.startswith("-"):
            return bout_id


def check_id(bout_id: Any) -> str:
    if not isinstance(bout_id, str) or not _BOUT_ID.fullmatch(bout_id):
        raise RuleError(f"bout id {bout_id!r} must be 1..64 letters, digits, '-' or '_'")
    return bout_id


def check_text(what: str, value: Any, limit: int, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise RuleError(f"{what} must be a {'' if empty else 'non-empty '}string, got {value!r}")
    if len(value) > limit:
        raise LimitError(f"{what} {value[:40]!r}... is longer than {limit} characters")
    return value


def check_time(at: str | None, clock: Callable[[], str]) -> str:
    if at is None:
        return clock()
    if not is_utc_time(at):
        raise RuleError(f"time {at!r} is not RFC 3339 UTC like '2026-11-29T22:40:12.123456Z'")
    return at


def rules_text(rules: Mapping[str, Any]) -> str:
    try:
        return json.dumps(dict(rules), sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise RuleError(f"rules {rules!r} are not JSON: {err}") from None
