"""A real referee service on 127.0.0.1, in a thread of the test process, over a real database."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from referee.rng import Entropy
from referee.service.app import create_app
from referee.service.bouts import ROTATE_EVERY
from referee.service.budgets import Budgets
from referee.service.limits import NO_RATE_LIMITS, Limits
from referee.store import Store
from tests.pg_fixtures import fresh_schema
from tests.seeds import EachTestsEntropy, for_test

SERVE = [sys.executable, "-m", "referee.cli.main", "serve"]
_SERVING = re.compile(r"referee is serving on (http://127\.0\.0\.1:[0-9]+)/")


def serve_process(
    db: str | Path, *extra: str, stderr: int = subprocess.PIPE
) -> tuple[subprocess.Popen[str], str]:
    """`referee serve --db DB --port 0 --rate off EXTRA...` in a process of its own; returns it
    with its base URL once it says it is serving (it says so only once it accepts connections).

    The kernel picks the port when the process binds it, so no other test (another xdist
    worker's, say) can take the same port first, as it could between a probe and the bind.
    """
    command = [*SERVE, "--db", str(db), "--port", "0", "--rate", "off", *extra]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
    assert proc.stdout is not None
    for _ in range(5):
        found = _SERVING.search(proc.stdout.readline())
        if found:
            return proc, found.group(1)
    proc.kill()
    raise AssertionError(f"the service did not start: {proc.communicate(timeout=30)}")


@dataclass
class LiveServer:
    """The running service: its base URL, its store, and a client bound to it."""

    url: str
    store: Store
    client: httpx.Client

    def post(self, path: str, token: str | None = None, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, token, **kwargs)

    def get(self, path: str, token: str | None = None, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, token, **kwargs)

    def request(
        self, method: str, path: str, token: str | None = None, **kwargs: Any
    ) -> httpx.Response:
        headers = {**_auth(token), **kwargs.pop("headers", {})}
        return self.client.request(method, path, headers=headers, **kwargs)

    def chat(self, bout_id: str, token: str | None, line: str) -> httpx.Response:
        headers = {"content-type": "text/plain"}
        return self.post(f"/api/bouts/{bout_id}/chat", token, content=line, headers=headers)


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class PromptServer(uvicorn.Server):
    """uvicorn's server, stopped at once by `stop()` (from any thread): uvicorn looks at
    `should_exit` every 0.1 s, and hundreds of tests each start and stop a server."""

    _wake: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        #: Set once the server has started and accepts connections (from its own thread).
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            self.ready.set()

    async def main_loop(self) -> None:
        self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864_000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.1)

    def stop(self) -> None:
        self.should_exit = True
        if self._loop is not None and self._wake is not None:
            with contextlib.suppress(RuntimeError):  # its loop has already closed
                self._loop.call_soon_threadsafe(self._wake.set)


def start_server(
    db_url: str,
    rotate_every: int = ROTATE_EVERY,
    limits: Limits = NO_RATE_LIMITS,
    poll_seconds: float | None = None,
    entropy: Entropy | None = None,
    budgets: Budgets | None = None,
) -> tuple[PromptServer, threading.Thread, Store, str]:
    """Start the service on a free port; return once it accepts connections.

    Rate limits are off unless `limits` are given (tests send bursts); stream caps stay on.
    Server seeds come from the running test's deterministic source unless `entropy` is given
    (tests/seeds.py): the same dice on every run.
    """
    store = Store.open(db_url)
    # Bound here, on a port the kernel picks, and handed to the server: nothing else can take
    # it between choosing it and binding it.
    sock = socket.socket()
    # Sent at once, as uvicorn's own sockets do: without it a reply waits for the client's
    # delayed acknowledgement (40 ms a request on Linux).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    app = create_app(
        store,
        rotate_every=rotate_every,
        limits=limits,
        poll_seconds=poll_seconds,
        entropy=for_test() if entropy is None else entropy,
        budgets=budgets,
    )
    # A test's streams may still be open when it ends: on exit the server gives them a second,
    # then cancels them, so that it has stopped when the fixture's join returns.
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="error", access_log=False,
        timeout_graceful_shutdown=1,
    )  # fmt: skip
    server = PromptServer(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60  # generous: a loaded CI machine starts slowly
    # Woken by the start itself; a server thread that died first is seen within half a second.
    while not server.ready.wait(0.5):
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
    return server, thread, store, f"http://127.0.0.1:{port}"


@pytest.fixture
def live(db_url: str, entropy: Entropy) -> Iterator[LiveServer]:
    """The service over a fresh SQLite file, then a fresh PostgreSQL schema."""
    with serving(db_url, entropy) as server:
        yield server


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def shared_live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """One service for the tests of a module, over SQLite, then PostgreSQL: for tests that each
    open bouts of their own and look at nothing else (no list of every bout, no limits, no
    seeds of their own choosing), where a server each would cost more than the test. Each test
    still draws its own deterministic seeds (`EachTestsEntropy`), as with `live`."""
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            url = str(tmp_path_factory.mktemp("shared") / "referee.db")
        else:
            url = stack.enter_context(fresh_schema(request.getfixturevalue("pg_base_url")))
        yield stack.enter_context(serving(url, EachTestsEntropy()))


@contextlib.contextmanager
def serving(db_url: str, entropy: Entropy, budgets: Budgets | None = None) -> Iterator[LiveServer]:
    """The service over `db_url` on 127.0.0.1, its dice from `entropy` (and a bout's bounds
    `budgets`, the default ones unless given), until the block ends."""
    server, thread, store, url = start_server(db_url, entropy=entropy, budgets=budgets)
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            yield LiveServer(url, store, client)
    finally:
        server.stop()
        thread.join(10)
        store.close()
