"""Verifiable attacks per second over HTTP, against a bare endpoint of the same framework.

Starts the referee service (a separate process, real database) and a bare FastAPI endpoint
(same framework, same server) on 127.0.0.1, then drives each with 1, 8 and 32 concurrent
clients for a fixed number of requests, in rounds. A shared machine's speed drifts within
a run, so each round is taken in slices (`--slices`, 10 by default), the two servers' slices
in turn, ABBA, each round starting with the other side: both sides get the same share of a
drift, not one side the first few seconds and the other the next. Each column is the median
over the rounds, the ratio the median of the rounds' ratios (with an even count of rounds, the
mean of the middle two), and both servers answer a few attacks untimed before the first round
(imports, caches and connections warm on both sides). The
load average is printed at the start and on every row. The bare route is durable too: it
appends one row to the same kind of database before it answers (SQLite with WAL,
synchronous=FULL, one commit per request; or the same PostgreSQL database, one commit per
request), as the referee does with every event it acknowledges; a route that writes nothing
is no baseline for a durable service.
Every client runs its own MSV bout and attacks with the referee's token for whoever has the
turn, going on to a new bout when one ends. The bouts are opened (created, two fighters,
initiative) before the clock starts: what is timed is attacks against the bare route's
appends, request for request. Prints throughput, p50 and p99 latency, each server's CPU
time per request (Linux), and the ratio to the bare endpoint.

    .venv/bin/python benchmarks/bench_service.py [--requests 600] [--rounds 3] [--slices 10]
        [--pg URL]

Bounded: a fixed number of requests per run, each with a 10 s timeout; only 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of process `pid` so far (Linux /proc), or None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bare_app(db: str) -> Any:
    """One FastAPI route that durably appends the request to SQLite (a file path) or to
    PostgreSQL (a postgresql:// URL), then answers."""
    import json
    import threading

    from fastapi import FastAPI

    append = _pg_append(db) if db.startswith("postgres") else _sqlite_append(db)
    lock = threading.Lock()
    app = FastAPI()

    @app.post("/api/bouts/{bout_id}/attacks")
    def attack(bout_id: str, body: dict[str, Any]) -> dict[str, Any]:
        with lock:
            seq = append(bout_id, json.dumps(body))
        return {"roll": 47, "success": True, "damage": 4, "seq": seq}

    return app


def _sqlite_append(db: str) -> Any:
    import sqlite3

    connection = sqlite3.connect(db, check_same_thread=False, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, bout, body)")

    def append(bout: str, body: str) -> int:
        connection.execute("BEGIN IMMEDIATE")
        cursor = connection.execute("INSERT INTO rows (bout, body) VALUES (?, ?)", (bout, body))
        connection.execute("COMMIT")
        return int(cursor.lastrowid or 0)

    return append


def _pg_append(url: str) -> Any:
    import psycopg

    connection = psycopg.connect(url)
    connection.execute(
        "CREATE TABLE IF NOT EXISTS bench_bare_rows "
        "(id BIGSERIAL PRIMARY KEY, bout TEXT, body TEXT)"
    )
    connection.commit()

    def append(bout: str, body: str) -> int:
        row = connection.execute(
            "INSERT INTO bench_bare_rows (bout, body) VALUES (%s, %s) RETURNING id", (bout, body)
        ).fetchone()
        connection.commit()
        return int(row[0]) if row else 0

    return append


def serve_bare(port: int, db: str) -> None:
    import uvicorn

    app = bare_app(db)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def start(command: list[str], port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"server on port {port} did not start")


class Spar:
    """One client's bout: attack for whoever has the turn; open a new bout at the end."""

    def __init__(self, client: httpx.AsyncClient, bare: bool) -> None:
        self.client, self.bare = client, bare
        self.bout, self.token, self.turn = "bare", "", "A"
        self.ready: list[tuple[str, str, str]] = []  # bouts opened before the clock starts
        self.opened_in_window = 0

    async def _new_bout(self) -> tuple[str, str, str]:
        r = await self.client.post("/api/bouts", json={"system": "msv", "name": "bench"})
        r.raise_for_status()
        bout, token = r.json()["id"], r.json()["referee_token"]
        auth = {"Authorization": f"Bearer {token}"}
        for name, cs in (("A", 65), ("B", 70)):
            body = {"name": name, "cs": cs}
            (
                await self.client.post(f"/api/bouts/{bout}/fighters", json=body, headers=auth)
            ).raise_for_status()
        r = await self.client.post(f"/api/bouts/{bout}/initiative", headers=auth)
        r.raise_for_status()
        return bout, token, r.json()["order"][0]

    async def prepare(self, bouts: int) -> None:
        """Open `bouts` spars before the clock starts: what is timed is attacks only."""
        if not self.bare:
            self.ready = [await self._new_bout() for _ in range(bouts)]
            await self.open()

    async def open(self) -> None:
        """The next prepared spar (one opened now, inside the timed window, if none is left)."""
        if self.bare:
            return
        if not self.ready:
            self.opened_in_window += 1
            self.ready.append(await self._new_bout())
        self.bout, self.token, self.turn = self.ready.pop()

    async def attack(self) -> float:
        target = "B" if self.turn == "A" else "A"
        body = {"attacker": self.turn, "target": target}
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        started = time.perf_counter()
        r = await self.client.post(f"/api/bouts/{self.bout}/attacks", json=body, headers=headers)
        elapsed = time.perf_counter() - started
        r.raise_for_status()
        answer = r.json()
        if not self.bare:
            if answer.get("winner"):
                await self.open()
            else:
                self.turn = answer.get("next") or self.turn
        return elapsed


class Side:
    """One server in a round: its clients' spars, and what its slices of the round took."""

    def __init__(self, url: str, clients: int, bare: bool, server: int) -> None:
        limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
        self.client = httpx.AsyncClient(base_url=url, timeout=10, limits=limits)
        self.spars = [Spar(self.client, bare) for _ in range(clients)]
        self.server = server
        self.wall = 0.0
        self.cpu: float | None = 0.0
        self.latencies: list[float] = []

    async def run(self, per_client: int) -> None:
        """One slice: every client attacks `per_client` times, all at once; timed."""

        async def one(spar: Spar) -> None:
            for _ in range(per_client):
                self.latencies.append(await spar.attack())

        cpu_before = cpu_seconds(self.server)
        started = time.perf_counter()
        await asyncio.gather(*(one(s) for s in self.spars))
        self.wall += time.perf_counter() - started
        cpu_after = cpu_seconds(self.server)
        if self.cpu is None or cpu_before is None or cpu_after is None:
            self.cpu = None
        else:
            self.cpu += cpu_after - cpu_before

    def measured(self) -> Measured:
        """Requests per second, p50 and p99 in ms, and the server's CPU ms per request."""
        late = sum(s.opened_in_window for s in self.spars)
        if late:
            print(f"  ({late} spars had to be opened inside the timed window)", file=sys.stderr)
        count = len(self.latencies)
        return (
            count / self.wall,
            statistics.median(self.latencies) * 1000,
            percentile(self.latencies, 0.99) * 1000,
            None if self.cpu is None else self.cpu * 1000 / count,
        )


def slice_plan(per_client: int, slices: int, bare_first: bool) -> list[tuple[bool, int]]:
    """A round's slices in the order they run: (whether the bare route's, each client's
    attacks in it). Each side's slices add up to `per_client`; the sides take turns ABBA, the
    bare route first when `bare_first`.

    >>> slice_plan(10, 3, bare_first=True)
    [(True, 3), (False, 3), (False, 3), (True, 3), (True, 4), (False, 4)]
    """
    plan = []
    order = (True, False) if bare_first else (False, True)
    count = max(1, min(slices, per_client))  # no slice without an attack
    for n in range(count):
        share = per_client * (n + 1) // count - per_client * n // count
        plan += [(bare, share) for bare in (order if n % 2 == 0 else order[::-1])]
    return plan


async def drive(
    servers: dict[bool, tuple[str, int]], clients: int, requests: int, slices: int, bare_first: bool
) -> dict[bool, Measured]:
    """One round: each server (True: the bare route) answers `requests` attacks in `slices`
    slices taken in turn, ABBA (`bare_first`: the bare route's slice first), so a machine that
    speeds up or slows down during the round favours neither side."""
    sides = {bare: Side(url, clients, bare, pid) for bare, (url, pid) in servers.items()}
    try:
        per_client = max(1, requests // clients)
        # An MSV spar of CS 65 against 70 lasts about 13.5 attacks; a spare few per client.
        for side in sides.values():
            await asyncio.gather(*(s.prepare(per_client // 6 + 3) for s in side.spars))
        for bare, share in slice_plan(per_client, slices, bare_first):
            await sides[bare].run(share)
        return {bare: side.measured() for bare, side in sides.items()}
    finally:
        for side in sides.values():
            await side.client.aclose()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def shown(cpu_ms: float | None) -> str:
    return f"{cpu_ms:8.2f}" if cpu_ms is not None else f"{'-':>8}"


#: Attacks each server answers, untimed, before a client count's timed rounds (at least 8 a
#: client).
WARM_UP = 100

#: One measurement: requests/s, p50 ms, p99 ms, server CPU ms per request (or None).
Measured = tuple[float, float, float, float | None]


def middle(values: list[float | None]) -> float | None:
    """The median (of an even count, the mean of the middle two), or None if any is None."""
    known = [v for v in values if v is not None]
    return statistics.median(known) if known and len(known) == len(values) else None


def row(name: str, clients: int, rounds: list[dict[bool, Measured]]) -> str:
    """A table row: each column the median over the rounds; the ratio the median of the rounds'
    ratios (every round's ratio after it, lowest first); the load average now."""
    ours = [pair[False] for pair in rounds]
    bare = [pair[True] for pair in rounds]
    ratios = sorted(o[0] / b[0] for o, b in zip(ours, bare, strict=True))
    rate, p50, p99, cpu = (middle([m[i] for m in ours]) for i in range(4))
    base_rate, _, base_p99, base_cpu = (middle([m[i] for m in bare]) for i in range(4))
    assert rate is not None and p50 is not None and p99 is not None
    assert base_rate is not None and base_p99 is not None
    spread = " ".join(f"{r:.2f}" for r in ratios)
    return (
        f"{name:9} {clients:7d} {rate:10.0f} {p50:8.1f} {p99:8.1f} "
        f"{shown(cpu)} {base_rate:8.0f} {base_p99:8.1f} {shown(base_cpu)} "
        f"{statistics.median(ratios):6.2f}  ({spread})  load {load()}"
    )


def load() -> str:
    """The load average over 1, 5 and 15 minutes."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=600, help="attacks per measurement")
    parser.add_argument(
        "--pg", default=os.environ.get("REFEREE_TEST_PG_URL"), help="PostgreSQL URL"
    )
    parser.add_argument(
        "--clients", default="1,8,32", help="comma-separated client counts (default 1,8,32)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds per client count, bare and referee alternating; the median is shown",
    )
    parser.add_argument(
        "--slices",
        type=int,
        default=10,
        help="slices of a round, the two servers' taken in turn, ABBA (1: each side's whole "
        "round at once, then the other's)",
    )
    parser.add_argument("--bare-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--bare-db", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server:
        serve_bare(args.bare_server, args.bare_db)
        return
    counts = [int(n) for n in args.clients.split(",")]
    bare_dir = tempfile.TemporaryDirectory()
    databases = [("sqlite", None)] + ([("postgres", args.pg)] if args.pg else [])
    header = (
        "database",
        "clients",
        "attacks/s",
        "p50 ms",
        "p99 ms",
        "cpu ms",
        "bare/s",
        "bare p99",
        "bare cpu",
        "ratio",
    )
    print(f"bench_service: {os.cpu_count()} cores; load at the start {load()}")
    print("{:9} {:>7} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6}".format(*header))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, url in databases:
                db = url or str(Path(tmp) / "bench.db")
                # The bare route appends to the same kind of database as the referee.
                bare_port = free_port()
                bare_db = url or str(Path(bare_dir.name) / "bare.db")
                bare = start(
                    [
                        sys.executable,
                        __file__,
                        "--bare-server",
                        str(bare_port),
                        "--bare-db",
                        bare_db,
                    ],
                    bare_port,
                )
                port = free_port()
                command = [
                    sys.executable,
                    "-m",
                    "referee.cli.main",
                    "serve",
                    "--db",
                    db,
                    "--port",
                    str(port),
                    "--rate",
                    "off",  # bursts from one address are the point here
                ]
                service = start(command, port)
                try:
                    servers = {
                        True: (f"http://127.0.0.1:{bare_port}", bare.pid),
                        False: (f"http://127.0.0.1:{port}", service.pid),
                    }
                    for clients in counts:
                        # Untimed: both servers' lazy imports, caches and connections are warm
                        # before the first timed round, so that round favours neither side.
                        asyncio.run(
                            drive(servers, clients, max(WARM_UP, clients * 8), 1, bare_first=True)
                        )
                        rounds = [
                            asyncio.run(
                                drive(
                                    servers,
                                    clients,
                                    args.requests,
                                    args.slices,
                                    # Each round the other side first: neither is always first.
                                    bare_first=round_ % 2 == 0,
                                )
                            )
                            for round_ in range(args.rounds)
                        ]
                        print(row(name, clients, rounds), flush=True)
                finally:
                    service.terminate()
                    service.wait(10)
                    bare.terminate()
                    bare.wait(10)
    finally:
        bare_dir.cleanup()
    print(
        "ratio = referee attacks/s over the bare durable route's requests/s (target >= 0.9), "
        "the median of the rounds' ratios (each in brackets, lowest first); the other columns "
        "are medians over the rounds too; both servers answer a few attacks untimed first"
    )
    print(
        "bare route: one row appended per request to the same kind of database "
        "(SQLite: WAL, synchronous=FULL; PostgreSQL: the same database, one commit each);"
    )
    print("referee: SQLite WAL + synchronous FULL, PostgreSQL default fsync.")
    print(
        "cpu ms: the server process's CPU time (user + system) per request in the timed "
        "window; steadier than the rates on a busy machine (PostgreSQL's own work is not in it)"
    )
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    main()
