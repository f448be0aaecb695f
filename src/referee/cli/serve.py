"""`referee serve`: the HTTP service and web console on one address.

The listening socket is bound before anything is said: a port in use is one clear line
(exit 2), and "serving" is printed only once connections are being accepted.
"""

from __future__ import annotations

import errno
import socket

import click

from referee.errors import RefereeError


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
    "--log-level",
    default="warning",
    show_default=True,
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
)
def serve(db_url: str | None, host: str, port: int, log_level: str) -> None:
    """Run the referee service: the HTTP API, the chat endpoint and the web console.

    \b
    Examples:
      referee serve
      referee serve --port 8080 --db ./spars.db
      referee serve --db postgresql://referee@localhost/referee
    """
    try:
        import uvicorn

        from referee.service.app import create_app
        from referee.store import Store
    except ImportError as err:  # pragma: no cover - the service extra is missing
        raise RefereeError(
            f"the service needs its extra: pip install 'referee[service]' ({err.name} is missing)"
        ) from None

    sock = bind(host, port)
    try:
        store = Store.open(db_url)
        app = create_app(store)
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"referee database: {store.url}")
        click.echo(
            f"referee is serving on http://{shown}:{sock.getsockname()[1]}/  (Ctrl+C stops it)"
        )
        # No access log: request lines may carry tokens in query strings (EventSource).
        config = uvicorn.Config(app, log_level=log_level, access_log=False)
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
