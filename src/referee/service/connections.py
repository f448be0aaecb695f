"""Bounds on the connections one service process holds: how many, and how long each may take
to send a request.

uvicorn (0.55) offers `limit_concurrency` (every request is answered 503 once that many
connections or tasks are open, half-sent ones included, so a flood of half-sent requests would
make `/healthz` 503 too), `timeout_keep_alive` (the idle time allowed between two requests of a
connection, but no timer before its first request or while a request's head trickles in),
`h11_max_incomplete_event_size` (the largest request head h11 buffers) and no read deadline at
all. So a client that opens connections and sends half a request on each held every one of
them until the process ran out of file descriptors (about 20,000 here): then nothing, not even
`/healthz`, was accepted any more.

`GuardedHTTP` is uvicorn's HTTP protocol with two bounds of its own (`Guard`):

- **a request deadline**: a connection waiting for a request (its head, or its body; the
  first or the next) gets `request_seconds` to send it, then it is closed. A request being
  answered (a live stream too) has no deadline.
- **a connection cap** below the process's file-descriptor limit (less one batch of accepts,
  whose size the listen backlog sets, and a reserve): a connection beyond
  `max_connections` makes the one that has waited longest for its request go; only when no
  connection waits is the new one closed at once. So a flood of half-sent requests churns
  among itself while a whole request, `/healthz` among them, is still accepted and answered.

Per-client caps belong to the reverse proxy, which sees the clients (docs/deploy.md): behind
it every connection comes from the proxy's own address.
"""

from __future__ import annotations

import asyncio
import resource
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import uvicorn

from referee.service.limits import KEEP_ALIVE_SECONDS, REQUEST_SECONDS

if TYPE_CHECKING:
    from uvicorn.protocols.http.h11_impl import H11Protocol as _BaseProtocol
else:  # the protocol uvicorn picks itself: httptools when installed, else h11
    from uvicorn.protocols.http.auto import AutoHTTPProtocol as _BaseProtocol

#: The largest request head (request line and headers) read, in bytes (h11's own default).
MAX_HEAD_BYTES = 16 * 1024


def open_file_limit() -> int:
    """This process's limit of open files (the soft one)."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 1 << 20 if soft == resource.RLIM_INFINITY else int(soft)


def default_backlog(soft_limit: int | None = None) -> int:
    """Connections waiting to be accepted: a sixteenth of the open-file limit, 16 to 1,024. It
    is also how many the event loop accepts in one go, before the protocol sees any of them.

    >>> default_backlog(20_000), default_backlog(1024), default_backlog(256)
    (1024, 64, 16)
    """
    soft = open_file_limit() if soft_limit is None else soft_limit
    return max(16, min(1024, soft // 16))


def default_max_connections(soft_limit: int | None = None) -> int:
    """The connection cap for a process whose open-file limit is `soft_limit` (default: this
    process's): that limit less room for the accepts of a few turns of the event loop (four
    `default_backlog`s, taken before the cap can act on them) and a reserve for everything else
    the process opens (an eighth of the limit, 32 to 256).

    >>> default_max_connections(20_000), default_max_connections(1024), default_max_connections(256)
    (15648, 640, 160)
    """
    soft = open_file_limit() if soft_limit is None else soft_limit
    reserve = max(32, min(256, soft // 8))
    return max(16, soft - 4 * default_backlog(soft) - reserve)


@dataclass(frozen=True, slots=True)
class Guard:
    """The bounds: at most `max_connections` open at once (None: from the open-file limit), and
    `request_seconds` for a waiting connection to send its request."""

    max_connections: int | None = None
    request_seconds: float = REQUEST_SECONDS

    def cap(self) -> int:
        """The connection cap in force."""
        return self.max_connections or default_max_connections()


class ServeConfig(uvicorn.Config):
    """uvicorn's settings with the service's own connection bounds (`guard`), taken by
    `GuardedHTTP`, which this config runs (picklable, for `--workers N`)."""

    def __init__(self, app: Any, *, guard: Guard = Guard(), **options: Any) -> None:
        options.setdefault("http", GuardedHTTP)
        options.setdefault("timeout_keep_alive", KEEP_ALIVE_SECONDS)
        options.setdefault("h11_max_incomplete_event_size", MAX_HEAD_BYTES)
        options.setdefault("backlog", default_backlog())
        super().__init__(app, **options)
        self.guard = guard


#: Where a route marks a response that never ends by itself: the key in the request's state.
ENDS_AT_SHUTDOWN = "referee_ends_at_shutdown"


def ends_at_shutdown(state: Any) -> None:
    """Mark the request whose `state` (Starlette's `request.state`) this is: its response is
    cut when the server begins to stop (a live stream)."""
    setattr(state, ENDS_AT_SHUTDOWN, True)


def _ends_at_shutdown(scope: Any) -> bool:
    state = scope.get("state") if isinstance(scope, dict) else None
    return isinstance(state, dict) and state.get(ENDS_AT_SHUTDOWN) is True


class _Waiting:
    """The connections of one server that wait for a request, longest waiting first."""

    def __init__(self) -> None:
        self.since: OrderedDict[GuardedHTTP, None] = OrderedDict()

    def oldest(self) -> GuardedHTTP | None:
        return next(iter(self.since), None)


#: Each running server's waiting connections (a server's state is the key; gone with it).
_WAITING: weakref.WeakKeyDictionary[Any, _Waiting] = weakref.WeakKeyDictionary()


class GuardedHTTP(_BaseProtocol):
    """uvicorn's HTTP protocol with a request deadline and a connection cap (`Guard`)."""

    def __init__(self, config: uvicorn.Config, server_state: Any, *args: Any, **kw: Any) -> None:
        super().__init__(config, server_state, *args, **kw)
        guard = getattr(config, "guard", None)
        self._guard = guard if isinstance(guard, Guard) else Guard()
        self._cap = self._guard.cap()
        waiting = _WAITING.get(server_state)
        if waiting is None:
            waiting = _WAITING[server_state] = _Waiting()
        self._waiting = waiting
        self._deadline: asyncio.TimerHandle | None = None

    # -- the protocol's events -------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self._cap:
            oldest = self._waiting.oldest()
            if oldest is None:  # every connection is being answered: this one must go
                transport.close()
                return
            oldest._drop()
        self._follow()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """The server begins to stop: a response that never ends by itself (a live stream,
        marked by `ends_at_shutdown`) is cut as a watcher's hang-up would cut it, and its
        EventSource comes back with Last-Event-ID to whichever process serves next; any other
        request is answered first, as uvicorn does. Without this a SIGTERM or Ctrl+C waited
        for every watcher to leave."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and _ends_at_shutdown(cycle.scope):
            self._drop()
            return
        super().shutdown()

    # -- waiting for a request -------------------------------------------------------------

    def _waits(self) -> bool:
        """Whether the connection waits for a request: none yet, the last one answered, or
        its body still arriving."""
        cycle = self.cycle
        return cycle is None or cycle.response_complete or cycle.more_body

    def _follow(self) -> None:
        """Start the deadline when the connection begins to wait; stop it when it stops."""
        if self.transport.is_closing() or not self._waits():
            self._stop_waiting()
        elif self._deadline is None:
            self._waiting.since[self] = None
            self._deadline = self.loop.call_later(self._guard.request_seconds, self._expire)

    def _stop_waiting(self) -> None:
        self._waiting.since.pop(self, None)
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if self._waits():
            self._drop()

    def _drop(self) -> None:
        """Close the connection (it sent no whole request in time, or made room)."""
        self._stop_waiting()
        self.transport.close()
