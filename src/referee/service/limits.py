"""Rate limits: per token, per client address, and bout creation per address.

Each limit is a token bucket: `requests` may come at once, and the bucket refills at
`requests / seconds` per second, so "25/20s" allows a burst of 25 and then one request
every 0.8 s (Second Life's own limit on one object is about 25 requests per 20 seconds).
A request over any limit gets 429 with `Retry-After` (whole seconds) and the JSON error
`{"error": "rate_limited", ...}`; at the chat endpoint (paths ending in /chat) a plain-text
`error: ...` line. `/healthz` and the console's static files are not counted.

The client address is the connection's peer as uvicorn reports it: behind a reverse proxy on
the same machine, uvicorn takes it from `X-Forwarded-For` (see docs/deploy.md). On SQLite the
limits are kept in memory (one service process); on PostgreSQL in a table every process of
`serve --workers N` shares (store/counters.py), so N processes do not multiply them.

>>> limits = parse_limits(["token=5/10s", "create=off"])
>>> limits.token, limits.address, limits.create
(Rate(requests=5, seconds=10.0), Rate(requests=600, seconds=60.0), None)
>>> buckets = Buckets(Rate(2, 8))  # a burst of 2, then one every 4 s
>>> [buckets.take("a", now) for now in (0.0, 0.0, 0.0, 2.0, 4.0, 4.0)]
[0.0, 0.0, 4.0, 2.0, 0.0, 4.0]
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qs

import anyio.to_thread
from sqlalchemy.exc import SQLAlchemyError

from referee.errors import RefereeError
from referee.store import SharedCounters, counter_key

ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]

log = logging.getLogger("referee.service")

#: Buckets kept per limit before full (idle) ones are forgotten, and the hard bound.
PRUNE_AT = 10_000
MAX_KEYS = 100_000


class RateLimitedError(RefereeError):
    """Too many requests (or live streams) from one token or address: try again later."""

    code = "rate_limited"
    http_status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class BusyError(RateLimitedError):
    """The service as a whole holds as many live streams as it takes."""

    code = "busy"
    http_status = 503


@dataclass(frozen=True)
class Rate:
    """At most `requests` at once, refilled over `seconds`."""

    requests: int
    seconds: float

    def __str__(self) -> str:
        return f"{self.requests}/{self.seconds:g}s"


@dataclass(frozen=True)
class Limits:
    """Every limit of one service process; None turns a rate limit off."""

    #: Per token (Authorization: Bearer or ?token=): like Second Life's per-object limit.
    token: Rate | None = Rate(25, 20.0)
    #: Per client address: enough for a chat bot or a proxy serving a whole community.
    address: Rate | None = Rate(600, 60.0)
    #: Bout creation (POST /api/bouts) per client address.
    create: Rate | None = Rate(30, 3600.0)
    #: Live streams open at once from one address, and in all.
    streams_per_address: int = 20
    streams_total: int = 2000
    #: The clock (seconds): monotonic; the wall clock (`time.time`) instead with counters
    #: shared by processes on PostgreSQL. Tests pass their own.
    clock: Callable[[], float] = field(default=time.monotonic, compare=False, repr=False)

    @property
    def counts(self) -> bool:
        """Whether any rate limit is on (else requests are not counted at all)."""
        return bool(self.token or self.address or self.create)


#: Every rate limit off (stream caps stay): for tests and benchmarks that need bursts.
NO_RATE_LIMITS = Limits(token=None, address=None, create=None)

#: Seconds a connection may take to send a request's head and body (or, idle between two
#: requests, its next one); then it is closed (`referee.service.connections`). A HUD on a slow
#: link sends a request in well under a second.
REQUEST_SECONDS = 15.0
#: Seconds a connection may stay idle between two requests (uvicorn's `timeout_keep_alive`).
KEEP_ALIVE_SECONDS = 5

_RATE = re.compile(r"([0-9]{1,9})/([0-9]{1,9}(?:\.[0-9]{1,3})?)(s|m|h)?")
_UNITS = {"s": 1, "m": 60, "h": 3600}
KINDS = ("token", "address", "create")


class RateSpecError(RefereeError, ValueError):
    """A `--rate` that cannot be read."""

    code = "bad_rate"


def parse_rate(text: str) -> Rate | None:
    """`N/Ts` (or `/Tm`, `/Th`; seconds without a unit), or `off`.

    >>> parse_rate("25/20s"), parse_rate("300/1m"), parse_rate("off")
    (Rate(requests=25, seconds=20.0), Rate(requests=300, seconds=60.0), None)
    """
    if text.strip().lower() == "off":
        return None
    found = _RATE.fullmatch(text.strip())
    if not found:
        raise RateSpecError(f"rate {text!r} is not N/SECONDS like 25/20s, 300/1m or off")
    requests, seconds = int(found[1]), float(found[2]) * _UNITS[found[3] or "s"]
    if requests < 1 or seconds <= 0 or seconds > 86_400:
        raise RateSpecError(f"rate {text!r} needs at least 1 request per 0..86400 seconds")
    return Rate(requests, seconds)


def parse_limits(specs: Iterable[str], base: Limits | None = None) -> Limits:
    """`--rate` values (`token=25/20s`, `address=600/1m`, `create=30/1h`, `KIND=off`, `off`)
    applied over `base` (the defaults)."""
    limits = base or Limits()
    for spec in specs:
        if spec.strip().lower() == "off":
            limits = replace(limits, token=None, address=None, create=None)
            continue
        kind, sep, value = spec.partition("=")
        if not sep or kind.strip() not in KINDS:
            raise RateSpecError(
                f"--rate {spec!r} is not KIND=N/SECONDS with KIND one of {', '.join(KINDS)} "
                "(or off)"
            )
        rate = parse_rate(value)
        kind = kind.strip()
        if kind == "token":
            limits = replace(limits, token=rate)
        elif kind == "address":
            limits = replace(limits, address=rate)
        else:
            limits = replace(limits, create=rate)
    return limits


class Buckets:
    """Token buckets of one rate, one per key (a token or an address)."""

    __slots__ = ("_levels", "capacity", "per_second")

    def __init__(self, rate: Rate) -> None:
        self.capacity = float(rate.requests)
        self.per_second = rate.requests / rate.seconds
        # key -> (level, time of that level)
        self._levels: dict[str, tuple[float, float]] = {}

    def take(self, key: str, now: float) -> float:
        """Take one request for `key`: 0.0 if allowed, else the seconds until one is."""
        level, then = self._levels.get(key, (self.capacity, now))
        level = min(self.capacity, level + (now - then) * self.per_second)
        if level < 1.0:
            self._levels[key] = (level, now)
            return (1.0 - level) / self.per_second
        if key not in self._levels and len(self._levels) >= PRUNE_AT:
            self._prune(now)
        self._levels[key] = (level - 1.0, now)
        return 0.0

    def _prune(self, now: float) -> None:
        """Forget buckets that have refilled (they start full anyway), then the oldest."""
        full = [
            key
            for key, (level, then) in self._levels.items()
            if level + (now - then) * self.per_second >= self.capacity
        ]
        for key in full:
            del self._levels[key]
        while len(self._levels) >= MAX_KEYS:
            del self._levels[next(iter(self._levels))]


def client_address(scope: MutableMapping[str, Any]) -> str:
    """The peer address of the request (uvicorn has applied trusted X-Forwarded-For)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def request_token(scope: MutableMapping[str, Any]) -> str | None:
    """The bearer token of the request (`Authorization: Bearer` or `?token=`), if any."""
    for name, value in scope.get("headers") or ():
        if name == b"authorization":
            scheme, _, token = bytes(value).decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return str(token.strip())
    query = scope.get("query_string") or b""
    if b"token=" in query:
        tokens = parse_qs(query.decode("latin-1")).get("token")
        if tokens and tokens[0]:
            return str(tokens[0])
    return None


def is_counted(path: str) -> bool:
    """Whether requests to `path` count against the limits (not health checks, static files)."""
    return path != "/healthz" and not path.startswith("/static/")


def is_chat(path: str) -> bool:
    """The chat endpoint answers in plain text."""
    return path.rstrip("/").endswith("/chat")


class RateLimits:
    """ASGI middleware that refuses requests over the limits with 429.

    In memory, per process (cheaply: no database); with `shared` counters (PostgreSQL) every
    process of `serve --workers N` counts against the same limits, one UPSERT per request.
    """

    def __init__(self, app: ASGIApp, limits: Limits, shared: SharedCounters | None = None) -> None:
        self.app = app
        self.limits = limits
        # Shared counters need one clock in every process: the wall clock (unless a test's).
        default = limits.clock is time.monotonic
        self.clock = time.time if shared is not None and default else limits.clock
        self.counts = limits.counts
        self.shared = shared if self.counts else None
        self.by_token = Buckets(limits.token) if limits.token else None
        self.by_address = Buckets(limits.address) if limits.address else None
        self.creating = Buckets(limits.create) if limits.create else None
        self._buckets = {"address": self.by_address, "token": self.by_token}
        self._buckets["create"] = self.creating

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http" or not self.counts or not is_counted(str(scope.get("path", ""))):
            await self.app(scope, receive, send)
            return
        if self.shared is None:
            refused = self.check(scope)
        else:
            try:
                refused = await anyio.to_thread.run_sync(self.check, scope)
            except SQLAlchemyError as err:
                # The database is unreachable: the request goes on and gets the service's own
                # answer (503 storage_unavailable) rather than a bare 500 from the limiter.
                log.warning("rate counters unavailable: %s", type(err).__name__)
                refused = None
        if refused is None:
            await self.app(scope, receive, send)
            return
        await answer_refusal(send, str(scope.get("path", "")), refused)

    def wanted(self, scope: MutableMapping[str, Any]) -> list[tuple[str, str, str]]:
        """(limit, key, what) of every limit this request counts against, in order."""
        address = client_address(scope)
        out = []
        if self.limits.address is not None:
            out.append(("address", address, f"too many requests from {address}"))
        token = request_token(scope)
        if self.limits.token is not None and token is not None:
            out.append(("token", token, "too many requests with this token"))
        if (
            self.limits.create is not None
            and scope.get("method") == "POST"
            and str(scope.get("path", "")).rstrip("/") == "/api/bouts"
        ):
            out.append(("create", address, f"too many new bouts from {address}"))
        return out

    def check(self, scope: MutableMapping[str, Any]) -> RateLimitedError | None:
        """The refusal for this request, or None (and the request is counted)."""
        now = self.clock()
        wanted = self.wanted(scope)
        if self.shared is not None:
            return self._check_shared(wanted, now)
        for limit, key, what in wanted:
            bucket = self._buckets[limit]
            assert bucket is not None
            wait = bucket.take(key, now)
            if wait:
                return _refusal(what, wait)
        return None

    def _check_shared(
        self, wanted: list[tuple[str, str, str]], now: float
    ) -> RateLimitedError | None:
        assert self.shared is not None
        rates = {"address": self.limits.address, "token": self.limits.token}
        rates["create"] = self.limits.create
        cells = []
        for limit, key, _ in wanted:
            rate = rates[limit]
            assert rate is not None
            cells.append((counter_key(limit, key), rate.seconds / rate.requests, rate.seconds))
        refused = self.shared.take(cells, now)
        for (_, _, what), (key, _, _) in zip(wanted, cells, strict=True):
            if key in refused:
                return _refusal(what, refused[key])
        return None


def _refusal(what: str, wait: float) -> RateLimitedError:
    seconds = max(1, math.ceil(wait))
    return RateLimitedError(f"{what}; try again in {seconds} s", seconds)


def refusal_headers(err: RateLimitedError) -> dict[str, str]:
    """The headers of a 429/503 answer."""
    return {"Retry-After": str(err.retry_after), "Cache-Control": "no-store"}


async def answer_refusal(
    send: Callable[[Any], Awaitable[None]], path: str, err: RateLimitedError
) -> None:
    """Send the 429 (JSON, or one plain-text line at the chat endpoint)."""
    if is_chat(path):
        body, kind = f"error: {err.public}".encode(), b"text/plain; charset=utf-8"
    else:
        body = json.dumps({"error": err.code, "message": err.public}).encode()
        kind = b"application/json"
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in refusal_headers(err).items()]
    await send({"type": "http.response.start", "status": err.http_status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
