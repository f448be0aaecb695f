"""`referee serve`: the HTTP service and web console on one address.

The listening socket is bound before anything is said: a port in use is one clear line
(exit 2), and "serving" is printed only once connections are being accepted.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import json
import os
import socket
from collections.abc import Callable
from typing import Any

import click

from referee.errors import RefereeError
from referee.service.limits import KEEP_ALIVE_SECONDS, REQUEST_SECONDS, Limits, parse_limits


class AddressInUseError(RefereeError):
    """The address to listen on is taken or cannot be used."""

    code = "address_in_use"


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free port), or one clear error.

    >>> sock = bind("127.0.0.1", 0)
    >>> sock.getsockname()[1] > 0
    True
    >>> try:
    ...     bind("127.0.0.1", sock.getsockname()[1])
    ... except AddressInUseError as err:
    ...     "is in use" in str(err) and "--port" in str(err)
    True
    >>> sock.close()
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise AddressInUseError(f"cannot listen on host {host!r}: {err.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise AddressInUseError(
                f"port {port} on {host} is in use; stop what uses it or pick another "
                f"with --port (for example --port {port + 1 if port < 65535 else 8000})"
            ) from None
        if err.errno == errno.EACCES:
            raise AddressInUseError(
                f"no permission to listen on port {port} on {host}; pick a port above 1023 "
                "with --port"
            ) from None
        raise AddressInUseError(
            f"cannot listen on {host} port {port}: {err.strerror}; try another --host or --port"
        ) from None
    sock.set_inheritable(True)
    return sock


#: Environment variable carrying a worker's settings (JSON) from `serve --workers N`.
WORKER_ENV = "REFEREE_SERVE_WORKER"


@click.command("serve")
@click.option(
    "--db",
    "db_url",
    default=None,
    help="Database: a SQLite file path, sqlite:///PATH or postgresql://... "
    "[default: referee.db in the user data directory, or $REFEREE_DB]",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0: any free port, printed).",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Service processes on the one port (more than 1 needs PostgreSQL).",
)
@click.option(
    "--rate",
    "rates",
    multiple=True,
    metavar="KIND=N/TIME",
    help="A rate limit: token=25/20s (per token), address=600/1m (per client address), "
    "create=30/1h (new bouts per address), KIND=off, or off for all. Repeatable.",
)
@click.option(
    "--max-streams",
    default=Limits.streams_total,
    show_default=True,
    type=click.IntRange(1, 1_000_000),
    help="Live streams open at once, in all (per process).",
)
@click.option(
    "--max-streams-per-address",
    default=Limits.streams_per_address,
    show_default=True,
    type=click.IntRange(1, 1_000_000),
    help="Live streams open at once from one client address.",
)
@click.option(
    "--poll",
    "poll_seconds",
    default=None,
    type=click.FloatRange(0.05, 3600),
    help="Seconds between re-reads of a watched bout when no notification came "
    "[default: 0.25 on SQLite, 5 on PostgreSQL, where LISTEN/NOTIFY wakes streams]",
)
@click.option(
    "--receipt-hours",
    default=24.0,
    show_default=True,
    type=click.FloatRange(0.01, 24 * 366),
    help="Hours an Idempotency-Key's answer is kept for retries (then the key is forgotten).",
)
@click.option(
    "--max-connections",
    default=None,
    type=click.IntRange(16, 10_000_000),
    help="Connections one process holds at once; past it, the one that has waited longest for "
    "its request is closed [default: the open-file limit less a reserve]",
)
@click.option(
    "--request-timeout",
    default=REQUEST_SECONDS,
    show_default=True,
    type=click.FloatRange(0.5, 3600),
    help="Seconds a connection may take to send a request's head and body (or, idle, its next "
    "request); then it is closed.",
)
@click.option(
    "--keep-alive",
    default=KEEP_ALIVE_SECONDS,
    show_default=True,
    type=click.IntRange(1, 3600),
    help="Seconds an idle connection is kept open between two requests.",
)
@click.option(
    "--log-level",
    default="warning",
    show_default=True,
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
)
def serve(
    db_url: str | None,
    host: str,
    port: int,
    workers: int,
    rates: tuple[str, ...],
    max_streams: int,
    max_streams_per_address: int,
    poll_seconds: float | None,
    receipt_hours: float,
    max_connections: int | None,
    request_timeout: float,
    keep_alive: int,
    log_level: str,
) -> None:
    """Run the referee service: the HTTP API, the chat endpoint and the web console.

    \b
    Examples:
      referee serve
      referee serve --port 8080 --db ./spars.db
      referee serve --db postgresql://referee@localhost/referee --workers 4
      referee serve --rate token=50/20s --rate create=off
      referee serve --max-connections 4000 --request-timeout 10
    """
    try:
        import uvicorn

        from referee.service.connections import Guard, ServeConfig
        from referee.store import Store, default_url, engine_url
    except ImportError as err:  # pragma: no cover - the service extra is missing
        raise RefereeError(
            f"the service needs its extra: pip install 'referee[service]' ({err.name} is missing)"
        ) from None

    settings = {
        "db": db_url or default_url(),
        "rates": list(rates),
        "max_streams": max_streams,
        "max_streams_per_address": max_streams_per_address,
        "poll_seconds": poll_seconds,
        "receipt_hours": receipt_hours,
    }
    _limits(settings)  # a bad --rate is refused before anything starts
    if workers > 1 and not engine_url(str(settings["db"])).startswith("postgresql"):
        raise RefereeError(
            "--workers needs a PostgreSQL database (--db postgresql://...): SQLite has one "
            "writer at a time and cannot wake another process's live streams"
        )
    sock = bind(host, port)
    try:
        store = Store.open(str(settings["db"]))
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"referee database: {store.url}")
        # No access log: request lines may carry tokens in query strings (EventSource).
        options: dict[str, Any] = {
            "log_level": log_level,
            "access_log": False,
            "timeout_keep_alive": keep_alive,
            "guard": Guard(max_connections, request_timeout),
        }
        if workers == 1:
            config = ServeConfig(_app(store, settings), **options)
            server = uvicorn.Server(config)
            click.echo(_serving(shown, sock, workers))
            _until_stopped(lambda: server.run(sockets=[sock]))
            return
        store.close()  # each worker opens its own
        from uvicorn.supervisors import Multiprocess

        os.environ[WORKER_ENV] = json.dumps(settings)
        config = ServeConfig(f"{__name__}:worker_app", factory=True, workers=workers, **options)
        click.echo(_serving(shown, sock, workers))
        _until_stopped(Multiprocess(config, sockets=[sock]).run)
    finally:
        sock.close()


def _until_stopped(run: Callable[[], object]) -> None:
    """Serve until stopped. Ctrl+C ends it quietly with exit code 0: uvicorn shuts down
    gracefully, then raises the SIGINT it caught again, which would reach click as "Aborted!"
    (and `make run` would call it an error)."""
    with contextlib.suppress(KeyboardInterrupt):
        run()
    click.echo("referee stopped.")


def _serving(shown: str, sock: socket.socket, workers: int) -> str:
    processes = "" if workers == 1 else f" by {workers} processes"
    return (
        f"referee is serving on http://{shown}:{sock.getsockname()[1]}/{processes}  "
        "(Ctrl+C stops it)"
    )


def _limits(settings: dict[str, Any]) -> Limits:
    base = Limits(
        streams_total=int(settings["max_streams"]),
        streams_per_address=int(settings["max_streams_per_address"]),
    )
    return parse_limits(settings["rates"], base)


def _app(store: Any, settings: dict[str, Any]) -> Any:
    from referee.service.app import create_app
    from referee.service.receipts import Keep

    keep = Keep(seconds=float(settings.get("receipt_hours", 24.0)) * 3600)
    app = create_app(
        store, limits=_limits(settings), poll_seconds=settings["poll_seconds"], keep=keep
    )
    # Everything made so far (modules, the app, its routes) lives as long as the process:
    # the garbage collector's full passes need not walk it again and again while serving.
    gc.freeze()
    return app


def worker_app() -> Any:
    """The app of one `serve --workers N` process (settings from $REFEREE_SERVE_WORKER)."""
    from referee.store import Store

    settings = json.loads(os.environ[WORKER_ENV])
    return _app(Store.open(str(settings["db"])), settings)
