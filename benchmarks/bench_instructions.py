"""Instructions per verifiable attack against the bare durable append, counted by callgrind.

`bench_service.py`'s ratio swings by a third from run to run on a shared machine, and so does
any CPU time; a count of the instructions run does not (some 0.1% run to run here). This runs
each side in a process of its own under valgrind's callgrind, its instrumentation switched on
only around the counted requests (not the imports, the start-up or the bouts opened first):

- referee: the service's app (`create_app`, a SQLite file, every rate limit off), MSV attacks
  sent to its ASGI interface in process, each as `referee serve` would hand it on, with the
  referee's token for whoever has the turn (a new bout, opened before the count, when one ends);
- bare: `bench_service.py`'s bare app (one FastAPI route that appends one row durably to a
  SQLite file, WAL and synchronous=FULL, one commit a request), sent the same requests.

No sockets: what serving over HTTP adds costs about the same on both sides (docs/deploy.md,
"Scaling"), and what is left is each side's own work. Both processes start as `referee serve`
leaves one (`gc.freeze()` after start-up) with a fixed hash seed; the referee's server seeds
come from a fixed stream (the same fights every run) and its writes all run on the event loop,
as while commits are quick (under valgrind they are not). It prints each side's
instructions per request (every thread of the process: the bare route's worker thread too), and
the ratio of the bare append's count to the referee's (1.00: an attack costs what a bare append
costs). The kernel's work (the commit's fsync, the socket writes) is not counted: it is about
the same on both sides.

    .venv/bin/python benchmarks/bench_instructions.py [--requests 300]

Needs valgrind (Debian's `valgrind` package); without it, it says so and stops, exit status 0
(`make bench` runs every benchmark). Bounded: a fixed number of requests a side, each process
under a time limit, in a temporary folder it removes.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

#: Seconds a side may take under valgrind, start-up included, before the run is given up.
LIMIT_S = 600

#: Requests each side answers, uncounted, before the count starts (caches warm on both sides).
WARM_UP = 30

App = Callable[..., Awaitable[None]]


async def call(app: App, method: str, path: str, body: Any = None, token: str = "") -> Any:
    """One request to an ASGI app in process: its JSON answer (AssertionError unless 2xx)."""
    raw = b"" if body is None else json.dumps(body).encode()
    headers = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(raw)).encode()),
    ]
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    messages = [{"type": "http.request", "body": raw, "more_body": False}]
    status: list[int] = []
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await asyncio.Event().wait()  # the request is whole: nothing more comes
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    answer = json.loads(b"".join(chunks) or b"null")
    assert status and 200 <= status[0] < 300, (method, path, status, answer)
    return answer


class Spars:
    """MSV bouts of two fighters (CS 65 and 70), initiative rolled, opened before the count;
    `attack` attacks for whoever has the turn, going on to the next bout when one ends."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.ready: list[tuple[str, str, str]] = []
        self.bout, self.token, self.turn = "", "", ""

    async def open(self, count: int) -> None:
        for _ in range(count):
            made = await call(self.app, "POST", "/api/bouts", {"system": "msv", "name": "bench"})
            bout, token = made["id"], made["referee_token"]
            for name, cs in (("A", 65), ("B", 70)):
                body = {"name": name, "cs": cs}
                await call(self.app, "POST", f"/api/bouts/{bout}/fighters", body, token)
            order = await call(self.app, "POST", f"/api/bouts/{bout}/initiative", None, token)
            self.ready.append((bout, token, order["order"][0]))
        self.bout, self.token, self.turn = self.ready.pop()

    async def attack(self) -> None:
        body = {"attacker": self.turn, "target": "B" if self.turn == "A" else "A"}
        path = f"/api/bouts/{self.bout}/attacks"
        answer = await call(self.app, "POST", path, body, self.token)
        if answer.get("winner"):
            self.bout, self.token, self.turn = self.ready.pop()
        else:
            self.turn = answer.get("next") or self.turn


class Seeded:
    """Server seeds (and bouts' default client seeds) from a fixed stream, SHAKE-256 of a
    counter, in place of the OS's: every run fights the same fights, so the count of one run
    is the count of the next (with the OS's seeds, bouts end at other attacks and the count
    moves by some 5%). For a benchmark only: `referee serve` always takes the OS's."""

    def __init__(self) -> None:
        self.draws = 0

    def __call__(self, n: int) -> bytes:
        self.draws += 1
        return hashlib.shake_256(f"bench_instructions {self.draws}".encode()).digest(n)


def wait_for(path: Path, process: subprocess.Popen[bytes] | None = None) -> None:
    """Wait until `path` exists (SystemExit if `process` ends first, or after `LIMIT_S`)."""
    deadline = time.monotonic() + LIMIT_S
    while not path.exists():
        if process is not None and process.poll() is not None:
            raise SystemExit(f"bench_instructions: the {path.stem} side stopped early")
        if time.monotonic() > deadline:
            raise SystemExit(f"bench_instructions: no {path.name} after {LIMIT_S} s")
        time.sleep(0.05)


async def run_side(side: str, folder: Path, requests: int) -> None:
    """One side, in the process callgrind runs: start, warm up, tell the parent it is ready,
    answer `requests` requests once it says go, tell it they are done."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    if side == "bare":
        from bench_service import bare_app

        app = bare_app(str(folder / "bare.db"))
        gc.freeze()  # as `referee serve` leaves its process after start-up

        async def one() -> None:
            await call(app, "POST", "/api/bouts/bare/attacks", {"attacker": "A", "target": "B"})

        await _count(folder, side, one, requests)
        return
    from referee.service.app import create_app
    from referee.service.limits import NO_RATE_LIMITS
    from referee.store import Store
    from referee.store.writers import writers_of

    store = Store.open(str(folder / "referee.db"))
    # Every write on the event loop, as `referee serve` runs them while commits are quick: the
    # store sends writes to worker threads while commits have been slow lately, by its clock,
    # and under valgrind the commit's own code runs some fifty times slower than it does.
    writers = writers_of(store.engine)
    assert writers is not None
    writers.clock = lambda: 0.0
    app = create_app(store, limits=NO_RATE_LIMITS, entropy=Seeded())
    gc.freeze()
    async with app.router.lifespan_context(app):
        spars = Spars(app)
        # An MSV spar of CS 65 against 70 lasts about 13.5 attacks; a few spare.
        await spars.open((requests + WARM_UP) // 6 + 4)
        await _count(folder, side, spars.attack, requests)
    store.close()


async def _count(folder: Path, side: str, one: Callable[[], Awaitable[None]], n: int) -> None:
    for _ in range(WARM_UP):
        await one()
    (folder / f"{side}.ready").touch()
    wait_for(folder / f"{side}.go")
    for _ in range(n):
        await one()
    (folder / f"{side}.done").touch()
    wait_for(folder / f"{side}.exit")


def count(side: str, folder: Path, requests: int) -> int:
    """Instructions per request of `side`, run under callgrind in a process of its own."""
    out = folder / f"{side}.callgrind"
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out}",
        sys.executable,
        __file__,
        "--side",
        side,
        "--folder",
        str(folder),
        "--requests",
        str(requests),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for(folder / f"{side}.ready", process)
        toggle = ["callgrind_control", "--instr=on", str(process.pid)]
        subprocess.run(toggle, check=True, capture_output=True, timeout=60)
        (folder / f"{side}.go").touch()
        wait_for(folder / f"{side}.done", process)
        toggle[1] = "--instr=off"
        subprocess.run(toggle, check=True, capture_output=True, timeout=60)
        (folder / f"{side}.exit").touch()
        process.wait(LIMIT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if process.returncode != 0:
        raise SystemExit(f"bench_instructions: the {side} side failed ({process.returncode})")
    return instructions(out) // requests


def instructions(out: Path) -> int:
    """The instructions a callgrind output file counted: its `totals:` line (its `summary:`
    line, written at the start, says 0 when the instrumentation was off then)."""
    counts = {}
    for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
        key, _, value = line.partition(": ")
        if key in ("summary", "totals"):
            counts[key] = int(value.split()[0])
    found = counts.get("totals", counts.get("summary"))
    if not found:
        raise SystemExit(f"bench_instructions: no instructions counted in {out}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="counted requests a side")
    parser.add_argument("--side", choices=["bare", "referee"], help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.requests < 1:
        parser.error("--requests must be at least 1")
    if args.side:
        asyncio.run(run_side(args.side, args.folder, args.requests))
        return
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print(
            "bench_instructions: valgrind is not installed (Debian: apt-get install valgrind); "
            "nothing counted"
        )
        return
    print(f"bench_instructions: callgrind, {args.requests} requests a side, in process")
    with tempfile.TemporaryDirectory() as tmp:
        bare = count("bare", Path(tmp), args.requests)
        ours = count("referee", Path(tmp), args.requests)
    print(f"{'side':8} {'instructions/request':>22}")
    print(f"{'bare':8} {bare:>22,}")
    print(f"{'referee':8} {ours:>22,}")
    print(
        f"ratio = bare append's count over the referee attack's: {bare / ours:.2f} "
        "(1.00: an attack costs what a bare append costs)"
    )


if __name__ == "__main__":
    main()
