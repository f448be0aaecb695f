"""How many writes of one service process run in threads at once (`routing.WRITE_THREADS`).

PostgreSQL's writers do not queue on a lock of the process (SQLite's do, on its one
writer's), so there every admitted write is seen running at once. No clock: each write
waits, with a generous timeout, until the test has seen how many run together."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from referee.service.app import create_app
from referee.service.bouts import Caller
from referee.service.routing import WRITE_THREADS, Ask, Write
from referee.store import Store

WAIT = 60.0


@pytest.mark.postgres
def test_at_most_write_threads_writes_run_at_once(pg_url: str) -> None:
    with Store.open(pg_url) as store:
        ask = create_app(store).state.ask
        assert isinstance(ask, Ask)
        lock = threading.Lock()
        running, most, done = [0], [0], []
        release = threading.Event()

        def write(_caller: Caller) -> dict[str, Any]:
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            assert release.wait(WAIT), "the test never let the writes finish"
            with lock:
                running[0] -= 1
                done.append(1)
            return {}

        async def scenario() -> None:
            scope = {"type": "http", "method": "POST", "path": "/", "headers": []}
            writes = [Write(ask, scope, None, None, None) for _ in range(3 * WRITE_THREADS)]
            tasks = [asyncio.create_task(w.once(None, write)) for w in writes]
            for _ in range(int(WAIT * 100)):  # until as many run as may
                if running[0] >= WRITE_THREADS:
                    break
                await asyncio.sleep(0.01)
            # However long the others are given, none starts while the first ones run.
            for _ in range(20):
                await asyncio.sleep(0)
                await asyncio.to_thread(lambda: None)
            assert running[0] == WRITE_THREADS
            release.set()
            await asyncio.wait_for(asyncio.gather(*tasks), WAIT)

        asyncio.run(scenario())
        assert most[0] == WRITE_THREADS
        assert len(done) == 3 * WRITE_THREADS
