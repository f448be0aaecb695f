"""`Idempotency-Key`: a retried request gets its first answer again and changes nothing more.

A Second Life HUD or a bot that timed out does not know whether its attack was stored; it sends
the same request again with the same key. The first answer is kept (a receipt) in the very
transaction that stored the request's events, so either both are stored or neither, and a
retry finds the receipt and gets that answer back without deciding anything again.

A receipt belongs to its caller (`caller_scope`): the bearer token when the request has one,
else the client's address. It is found by SHA-256 of (that scope and the key), and holds
SHA-256 of the request (method, path, body) and the answer sealed with a key derived from the
scope and the `Idempotency-Key`: the database alone does not give away a token or a seed an
answer carried. Another caller sending the same key (and the same request) has a receipt of its
own to find, or none: its request runs for it, and never gets someone else's answer (a bout's
referee token, say). The same key with another request from the same caller is refused (409).
A request that failed keeps no receipt (it stored nothing, so sending it again is safe).

Receipts expire: after `Keep.seconds` (24 hours unless `referee serve --receipt-hours` says
otherwise) a key is forgotten, and the same key with the same request is a new request. Every
`Keep.prune_every` receipts kept, the expired ones are deleted.

>>> box = seal("k1", "tok", '{"token": "secret"}')
>>> "secret" in box, unseal("k1", "tok", box)
(False, '{"token": "secret"}')
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from referee.errors import ConflictError, RuleError
from referee.ledger.canonical import utc_time
from referee.store import Store

#: The longest Idempotency-Key.
MAX_KEY = 255
#: An Idempotency-Key: 1 to 255 visible ASCII characters (a UUID is a good one); the same
#: pattern in the OpenAPI schema (JSON Schema's regular expressions are ECMA 262's).
KEY_PATTERN = f"^[!-~]{{1,{MAX_KEY}}}$"
KEY = re.compile(f"[!-~]{{1,{MAX_KEY}}}")


def check_key(key: str) -> str:
    """The key, or RuleError (400) when it is not 1 to 255 visible ASCII characters."""
    if not KEY.fullmatch(key):
        raise RuleError("Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID)")
    return key


def caller_scope(token: str | None, address: str) -> str:
    """Whose receipts a request finds: its bearer token's, or, without a token, its client
    address's (`\\0address ...`: a NUL, which no header can carry, keeps the two apart).

    >>> caller_scope("tok", "203.0.113.7"), caller_scope(None, "203.0.113.7")
    ('tok', '\\x00address 203.0.113.7')
    """
    return token if token is not None else f"\0address {address}"


def _material(purpose: str, key: str, caller: str | None) -> bytes:
    caller = "" if caller is None else caller  # None: a caller of the service in Python
    return hashlib.sha256(f"referee {purpose}\0{caller}\0{key}".encode()).digest()


def digest(key: str, caller: str | None) -> str:
    """Where the receipt of (caller, key) is kept."""
    return _material("receipt", key, caller).hex()


def _stream(secret: bytes, length: int) -> bytes:
    blocks = (length + 31) // 32
    return b"".join(hashlib.sha256(secret + n.to_bytes(8, "big")).digest() for n in range(blocks))


def seal(key: str, caller: str | None, text: str) -> str:
    """`text` sealed with (caller, key): base64 of it XOR a SHA-256 counter stream."""
    data = text.encode("utf-8")
    pad = _stream(_material("seal", key, caller), len(data))
    return base64.b64encode(bytes(a ^ b for a, b in zip(data, pad, strict=False))).decode()


def unseal(key: str, caller: str | None, box: str) -> str:
    """The text `seal` sealed."""
    data = base64.b64decode(box)
    pad = _stream(_material("seal", key, caller), len(data))
    return bytes(a ^ b for a, b in zip(data, pad, strict=False)).decode("utf-8")


def request_digest(method: str, path: str, body: Any) -> str:
    """SHA-256 hex of a request: the same key must come with the same request."""
    text = json.dumps([method, path, body], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: How long a receipt is kept unless configured: a day covers any client's retries.
DEFAULT_SECONDS = 24 * 3600


@dataclass
class Keep:
    """How long receipts are kept, and the clock (seconds since the epoch) that says so."""

    seconds: float = DEFAULT_SECONDS
    clock: Callable[[], float] = field(default=time.time, repr=False)
    #: Receipts kept (per process) between two deletions of the expired ones.
    prune_every: int = 1000
    _kept: int = field(default=0, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def times(self) -> tuple[str, str]:
        """(now, the oldest time a receipt still counts from), as stored."""
        now = self.clock()
        return _stamp(now), _stamp(now - self.seconds)

    def count(self) -> bool:
        """Count one receipt kept; whether it is time to delete the expired ones."""
        with self._lock:
            self._kept += 1
            return self._kept % self.prune_every == 0


#: The default: 24 hours by the wall clock.
KEEP = Keep()


def _stamp(seconds: float) -> str:
    return utc_time(datetime.fromtimestamp(max(seconds, 0.0), UTC))


def once(
    store: Store,
    key: str | None,
    caller: str | None,
    request: str,
    run: Callable[[], Any],
    keep: Keep = KEEP,
) -> Any:
    """`run()` in one unit of work with its receipt, or the first answer again for a retry
    from the same `caller` (`caller_scope`: its token, or its address) within `keep.seconds`
    of the first.

    `run` returns the answer (JSON: a dict, a list or text). Without a key it simply runs
    in a unit of work, so that nothing of a failed request is stored either.
    """
    with store.unit():
        if key is None:
            return run()
        where = digest(check_key(key), caller)
        now, since = keep.times()
        kept = store.claim_receipt(where, since)
        if kept is not None:
            first_request, box = kept
            if first_request != request:
                raise ConflictError(
                    "this Idempotency-Key was already used for another request; use a new key"
                )
            return json.loads(unseal(key, caller, box))
        answer = run()
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        store.keep_receipt(where, request, seal(key, caller, text), now)
        if keep.count():
            store.forget_receipts(since)
        return answer
