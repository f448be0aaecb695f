"""`referee serve`: the HTTP service and web console on one address."""

from __future__ import annotations

import click

from referee.errors import RefereeError


@click.command("serve")
@click.option(
    "--db",
    "db_url",
    default=None,
    help="Database: a SQLite file path, sqlite:///PATH or postgresql://... "
    "[default: referee.db in the user data directory, or $REFEREE_DB]",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
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

    store = Store.open(db_url)
    app = create_app(store)
    click.echo(f"referee database: {store.url}")
    click.echo(f"referee is serving on http://{host}:{port}/  (Ctrl+C stops it)")
    # No access log: request lines may carry tokens in query strings (EventSource).
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False)
