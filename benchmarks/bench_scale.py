"""Several referee processes and instances on one PostgreSQL: attacks/s against a bare durable
append route run with the same process count, and live events across instances.

Needs a PostgreSQL server (`--pg URL` or $REFEREE_TEST_PG_URL, a role that may create
databases). Each run makes a fresh database (`referee_scale_<hex>`: notifications are per
database, so nothing else on the server hears this run's and nothing of theirs reaches it)
and drops it at the end. Everything talks to 127.0.0.1 only.

1. **Throughput.** For each process count (`--processes 1,2,4`): `referee serve --workers N
   --rate off` and, beside it, a bare FastAPI route (same framework, same server, the same
   N processes sharing one port) that appends one row to a table of the same database and
   commits, on a pool of `routing.WRITE_THREADS` connections per process (as many as the
   referee's writes at once). Then two separate `referee serve` instances (the "two hosts":
   two processes on two 127.0.0.1 ports) against two bare servers on two ports. `--clients`
   clients (spread evenly over the ports) each play their own MSV spar, going on to a new
   bout when one ends (so the load is spread over many bouts); the bouts are opened before
   the clock starts, so the timed window holds attacks only, request for request against
   the bare appends. Both sides answer a few attacks untimed first (imports, connections and
   caches warm), then each count is measured in `--rounds` rounds that alternate which side
   goes first (a drift of the machine's load hits both); each column is the median over the
   rounds and the ratio the median of the rounds' ratios (with an even count, the mean of the
   middle two), printed with every round's ratio and the load average.
2. **Across instances.** Two instances A and B; `--watchers` live streams (server-sent
   events) spread over `--bouts` bouts, half of the bouts watched on A and half on B. Every
   bout gets a free roll every `--every` seconds written through the *other* instance, so each
   delivery timed is of an event written through one instance and seen through the other
   (PostgreSQL LISTEN/NOTIFY). The baseline is the same with each bout's rolls written
   through the instance its watchers are on. Each in a quiet window, then while the
   attack clients run against both instances. Delivery time: from just before the roll's
   request is sent to the watcher reading the event.

3. **Notifications.** `--writers` threads, each committing one row per transaction on a
   session of its own: notifying inside each transaction, after the commits through one
   notifier session (as `referee.store.notify.Notifier`), and not at all (the baseline).

    .venv/bin/python benchmarks/bench_scale.py [--pg URL] [--processes 1,2,4] [--clients 32]
        [--requests 1600] [--rounds 3] [--watchers 1000] [--bouts 20] [--seconds 10]
        [--writers 8] [--commits 2000] [--only throughput|streams|notify]

Bounded: fixed request counts and windows, 30 s timeouts per request, only 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import secrets
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
BARE_ENV = "REFEREE_BENCH_BARE_DB"
#: The referee's writes at once per process (`referee.service.routing.WRITE_THREADS`).
BARE_CONNECTIONS = 4
TIMEOUT = 30.0
#: The bare route's sessions call themselves this (the referee's are counted apart).
BARE_NAME = "bench_bare"


# -- the bare route ----------------------------------------------------------------------------


def bare_factory() -> Any:
    """One process of the bare server: POST /api/bouts/{id}/attacks appends one row and commits
    (PostgreSQL, one connection of a pool of BARE_CONNECTIONS per request), then answers."""
    import psycopg
    from fastapi import FastAPI

    url = os.environ[BARE_ENV]
    pool: queue.Queue[psycopg.Connection[Any]] = queue.Queue()
    for _ in range(BARE_CONNECTIONS):
        pool.put(psycopg.connect(url, application_name=BARE_NAME))
    app = FastAPI()

    @app.post("/api/bouts/{bout_id}/attacks")
    def attack(bout_id: str, body: dict[str, Any]) -> dict[str, Any]:
        connection = pool.get()
        try:
            row = connection.execute(
                "INSERT INTO bench_bare_rows (bout, body) VALUES (%s, %s) RETURNING id",
                (bout_id, json.dumps(body)),
            ).fetchone()
            connection.commit()
        finally:
            pool.put(connection)
        return {"roll": 47, "success": True, "damage": 4, "seq": row[0] if row else 0}

    return app


def serve_bare(port: int, workers: int) -> None:
    import uvicorn

    uvicorn.run(
        "bench_scale:bare_factory",
        factory=True,
        app_dir=str(HERE),
        host="127.0.0.1",
        port=port,
        workers=workers,
        log_level="warning",
        access_log=False,
    )


# -- servers -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server on port {port} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the server on port {port} did not start")


class Servers:
    """Server processes started for one configuration, stopped together."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []

    def referee(self, db: str, workers: int) -> int:
        port = free_port()
        command = [sys.executable, "-m", "referee.cli.main", "serve", "--db", db]
        command += ["--port", str(port), "--workers", str(workers), "--rate", "off"]
        command += ["--max-streams", "5000", "--max-streams-per-address", "5000"]
        self._start(command, port, None)
        return port

    def bare(self, db: str, workers: int) -> int:
        port = free_port()
        command = [sys.executable, __file__, "--bare-server", str(port), "--bare-workers"]
        self._start([*command, str(workers)], port, {BARE_ENV: db})
        return port

    def _start(self, command: list[str], port: int, env: dict[str, str] | None) -> None:
        full_env = {**os.environ, **(env or {})}
        proc = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=full_env
        )
        self.procs.append(proc)
        wait_for(port, proc)

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        self.procs = []


@contextmanager
def servers() -> Iterator[Servers]:
    started = Servers()
    try:
        yield started
    finally:
        started.stop()


# -- a small HTTP/1.1 client (keep-alive; cheap, so the servers get the machine) ----------------


#: Seconds a connection may have been idle and still be used: the servers close idle ones
#: after 5 s (`serve --keep-alive`, uvicorn's default), so an older one is opened anew.
IDLE_REUSE = 3.0


class Http:
    """One keep-alive connection to 127.0.0.1:port, one request at a time."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.used = 0.0

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        if self.writer is not None and time.monotonic() - self.used > IDLE_REUSE:
            self.close()
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        raw = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), TIMEOUT)
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await asyncio.wait_for(self.reader.readexactly(length), TIMEOUT)
        self.used = time.monotonic()
        answer = json.loads(payload) if payload else None
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {payload[:200]!r}")
        return status, answer

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


class Spar:
    """One client's bouts: attack for whoever has the turn; the next bout when one ends."""

    def __init__(self, port: int, bare: bool) -> None:
        self.http = Http(port)
        self.bare = bare
        self.bout, self.token, self.turn = "bare", "", "A"
        self.ready: list[tuple[str, str, str]] = []
        self.opened_in_window = 0

    async def new_bout(self) -> tuple[str, str, str]:
        _, made = await self.http.request("POST", "/api/bouts", {"system": "msv", "name": "s"})
        bout, token = made["id"], made["referee_token"]
        for name, cs in (("A", 65), ("B", 70)):
            body = {"name": name, "cs": cs}
            await self.http.request("POST", f"/api/bouts/{bout}/fighters", body, token)
        _, order = await self.http.request("POST", f"/api/bouts/{bout}/initiative", None, token)
        return bout, token, order["order"][0]

    async def prepare(self, bouts: int) -> None:
        if not self.bare:
            self.ready = [await self.new_bout() for _ in range(bouts)]
            await self.next_bout()

    async def next_bout(self) -> None:
        if not self.ready:
            self.opened_in_window += 1
            self.ready.append(await self.new_bout())
        self.bout, self.token, self.turn = self.ready.pop()

    async def attack(self) -> float:
        target = "B" if self.turn == "A" else "A"
        body = {"attacker": self.turn, "target": target}
        started = time.perf_counter()
        path = f"/api/bouts/{self.bout}/attacks"
        _, answer = await self.http.request("POST", path, body, self.token or None)
        elapsed = time.perf_counter() - started
        if not self.bare:
            if answer.get("winner"):
                await self.next_bout()
            else:
                self.turn = answer.get("next") or self.turn
        return elapsed


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def drive(
    ports: list[int],
    clients: int,
    requests: int,
    bare: bool,
    attacking: asyncio.Event | None = None,
    stop: asyncio.Event | None = None,
) -> dict[str, float]:
    """`requests` attacks from `clients` clients spread over `ports`: rate, p50, p99 (ms).
    `attacking` is set once the bouts are open; `stop` ends the attacks early."""
    spars = [Spar(ports[i % len(ports)], bare) for i in range(clients)]
    per_client = max(1, requests // clients)
    try:
        # An MSV spar of CS 65 against 70 lasts about 13.5 attacks; a spare few per client.
        await asyncio.gather(*(s.prepare(per_client // 6 + 2) for s in spars))
        latencies: list[float] = []
        if attacking is not None:
            attacking.set()

        async def run(spar: Spar) -> None:
            for _ in range(per_client):
                if stop is not None and stop.is_set():
                    return
                latencies.append(await spar.attack())

        started = time.perf_counter()
        await asyncio.gather(*(run(s) for s in spars))
        wall = time.perf_counter() - started
    finally:
        for spar in spars:
            spar.http.close()
    late = sum(s.opened_in_window for s in spars)
    if late:
        print(f"  ({late} spars had to be opened inside the timed window)", file=sys.stderr)
    return {
        "rate": len(latencies) / wall,
        "p50": statistics.median(latencies) * 1000,
        "p99": percentile(latencies, 0.99) * 1000,
    }


# -- live streams across instances -------------------------------------------------------------


async def watch(
    port: int, bout: str, seen: dict[tuple[str, int], list[float]], opened: list[int]
) -> None:
    """One live stream of `bout` on `port`: the time each roll event arrives, by (bout, seq)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    path = f"/api/bouts/{bout}/events"
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    try:
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
        if b" 200 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"stream refused: {head[:80]!r}")
        opened[0] += 1
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"data: ") and b'"type":"roll"' in line:
                seen.setdefault((bout, json.loads(line[6:])["seq"]), []).append(time.monotonic())
    except (ConnectionError, asyncio.CancelledError):
        return
    finally:
        writer.close()


async def roller(
    port: int,
    bout: str,
    token: str,
    every: float,
    seconds: float,
    sent: dict[tuple[str, int], float],
) -> None:
    """A free roll on `bout` through `port` every `every` seconds for `seconds`."""
    http = Http(port)
    try:
        await asyncio.sleep(secrets.randbelow(1000) / 1000 * every)  # not all at once
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t = time.monotonic()
            path = f"/api/bouts/{bout}/rolls"
            _, answer = await http.request("POST", path, {"dice": "1d100"}, token)
            seq = answer["rolls"][0]["seq"] if answer.get("rolls") else answer["seq"]
            sent[(bout, seq)] = t
            await asyncio.sleep(max(0.0, every - (time.monotonic() - t)))
    finally:
        http.close()


async def streams(
    a: int, b: int, args: argparse.Namespace, load_ports: list[int]
) -> list[tuple[str, dict[str, float]]]:
    """Delivery times of rolls to watchers on the other instance, and on the same one."""
    setup = Http(a)
    bouts: list[tuple[str, str]] = []
    for i in range(args.bouts):
        _, made = await setup.request("POST", "/api/bouts", {"system": "msv", "name": f"w{i}"})
        bouts.append((made["id"], made["referee_token"]))
    setup.close()
    seen: dict[tuple[str, int], list[float]] = {}
    opened = [0]
    # Bout i is watched on A when i is even, on B when odd.
    home = [a if i % 2 == 0 else b for i in range(len(bouts))]
    tasks = [
        asyncio.create_task(watch(home[i % len(bouts)], bouts[i % len(bouts)][0], seen, opened))
        for i in range(args.watchers)
    ]
    deadline = time.monotonic() + 120
    while opened[0] < args.watchers and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    if opened[0] < args.watchers:
        raise SystemExit(f"only {opened[0]} of {args.watchers} streams opened")
    await asyncio.sleep(1.0)  # the streams' first reads settle
    results: list[tuple[str, dict[str, float]]] = []
    try:
        for loaded in (False, True):
            for across in (False, True):
                sent: dict[tuple[str, int], float] = {}
                rollers = [
                    roller(
                        (b if h == a else a) if across else h,
                        bout,
                        token,
                        args.every,
                        args.seconds,
                        sent,
                    )
                    for (bout, token), h in zip(bouts, home, strict=True)
                ]
                load: asyncio.Task[dict[str, float]] | None = None
                attacking, stop = asyncio.Event(), asyncio.Event()
                if loaded:
                    # More attacks than the window holds (about 400 a second at most here).
                    requests = int(args.seconds * 600) + args.clients
                    load = asyncio.create_task(
                        drive(load_ports, args.clients, requests, False, attacking, stop)
                    )
                    await attacking.wait()  # the attack clients' bouts are open
                await asyncio.gather(*rollers)
                await asyncio.sleep(2.0)  # the last deliveries
                attack_rate = ""
                if load is not None:
                    stop.set()
                    attack_rate = f", {(await load)['rate']:.0f} attacks/s"
                delays = [at - sent[key] for key, ats in seen.items() if key in sent for at in ats]
                watchers_per_bout = args.watchers / len(bouts)
                expected = int(len(sent) * watchers_per_bout)
                name = ("other instance" if across else "same instance") + (
                    f", {args.clients} clients attacking{attack_rate}" if loaded else ", quiet"
                )
                results.append(
                    (
                        name,
                        {
                            "rolls": len(sent),
                            "delivered": len(delays),
                            "expected": expected,
                            "p50": percentile(delays, 0.5) * 1000,
                            "p99": percentile(delays, 0.99) * 1000,
                        },
                    )
                )
                seen.clear()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return results


# -- the run -----------------------------------------------------------------------------------


@contextmanager
def fresh_database(admin: str) -> Iterator[str]:
    """A new, empty database on the server of `admin` (a URL); dropped afterwards."""
    import psycopg

    name = f"referee_scale_{secrets.token_hex(4)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(admin)
    url = f"{parts.scheme}://{parts.netloc}/{name}" + (f"?{parts.query}" if parts.query else "")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                "CREATE TABLE bench_bare_rows (id BIGSERIAL PRIMARY KEY, bout TEXT, body TEXT)"
            )
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class Sessions:
    """The most PostgreSQL sessions the referee's processes held at once while counted: every
    session on the database but the bare route's and this one (sampled every 0.1 s)."""

    def __init__(self, db: str) -> None:
        import psycopg

        self.conn = psycopg.connect(db, autocommit=True)
        self.most = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _sample(self) -> None:
        while not self._stop.wait(0.1):
            row = self.conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND application_name <> %s AND pid <> pg_backend_pid()",
                (BARE_NAME,),
            ).fetchone()
            self.most = max(self.most, int(row[0]) if row else 0)

    @contextmanager
    def counting(self) -> Iterator[None]:
        self._stop.clear()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        try:
            yield
        finally:
            self._stop.set()
            self._thread.join()

    def close(self) -> None:
        self.conn.close()


#: What `drive` measures: attacks/s, p50 and p99 (ms).
KEYS = ("rate", "p50", "p99")


def warm_up(args: argparse.Namespace) -> int:
    """Attacks each side answers untimed before a setup's timed rounds: a tenth of a
    measurement, at least 8 a client."""
    return max(int(args.requests) // 10, 8 * int(args.clients))


def throughput(db: str, args: argparse.Namespace) -> None:
    configs: list[tuple[str, int, int]] = [
        (f"{n} process{'es' if n > 1 else ''}", n, 1) for n in args.process_counts
    ]
    configs.append(("2 instances x 1", 1, 2))
    header = ("setup", "attacks/s", "p50 ms", "p99 ms", "bare/s", "bare p50", "bare p99", "ratio")
    print("{:18} {:>9} {:>7} {:>7} {:>8} {:>8} {:>8} {:>6}".format(*header), " sessions")
    sessions = Sessions(db)
    for name, workers, instances in configs:
        sessions.most = 0
        with servers() as started:
            referee = [started.referee(db, workers) for _ in range(instances)]
            bare = [started.bare(db, workers) for _ in range(instances)]
            # Untimed: both sides' processes import, connect and warm their caches before the
            # first timed round, which would otherwise favour the side that went second.
            for ports, bare_turn in ((bare, True), (referee, False)):
                asyncio.run(drive(ports, args.clients, warm_up(args), bare_turn))
            rounds = []
            for round_ in range(args.rounds):
                pair: dict[bool, dict[str, float]] = {}
                for bare_turn in (True, False) if round_ % 2 == 0 else (False, True):
                    ports = bare if bare_turn else referee
                    with nullcontext() if bare_turn else sessions.counting():
                        pair[bare_turn] = asyncio.run(
                            drive(ports, args.clients, args.requests, bare_turn)
                        )
                rounds.append(pair)
            ratios = sorted(p[False]["rate"] / p[True]["rate"] for p in rounds)
            ref, base = (
                {k: statistics.median(p[side][k] for p in rounds) for k in KEYS}
                for side in (False, True)
            )
            spread = " ".join(f"{r:.2f}" for r in ratios)
            print(
                f"{name:18} {ref['rate']:9.0f} {ref['p50']:7.1f} {ref['p99']:7.1f} "
                f"{base['rate']:8.0f} {base['p50']:8.1f} {base['p99']:8.1f} "
                f"{statistics.median(ratios):6.2f}  ({spread})  {sessions.most}  load {load()}",
                flush=True,
            )
    sessions.close()
    print(
        f"ratio = referee attacks/s over the bare route's appends/s with the same processes, "
        f"the median of the rounds' ratios ({args.rounds} rounds' ratios in brackets, lowest "
        f"first; the other columns are medians over the rounds; both sides warmed up untimed "
        f"first); "
        f"{args.clients} clients, {args.requests} attacks per measurement; sessions: the most "
        f"PostgreSQL sessions the referee's processes held at once; load {load()}"
    )


def across(db: str, args: argparse.Namespace) -> None:
    with servers() as started:
        a, b = started.referee(db, 1), started.referee(db, 1)
        results = asyncio.run(streams(a, b, args, [a, b]))
    print(
        f"\nlive events, two instances (A and B: `referee serve` on two ports), "
        f"{args.watchers} watchers over {args.bouts} bouts (half watched on each), "
        f"a roll on every bout every {args.every} s for {args.seconds} s"
    )
    for name, r in results:
        line = (
            f"  {name:52} {r['delivered']:6d}/{r['expected']:<6d} deliveries "
            f"p50 {r['p50']:7.1f} ms  p99 {r['p99']:7.1f} ms"
        )
        if name.startswith("other"):
            same = next(
                s
                for n, s in results
                if n.startswith("same") and ("quiet" in n) == ("quiet" in name)
            )
            line += f"  (p99 x{r['p99'] / same['p99']:.2f} the same instance's)"
        print(line)
    print(f"delivery: from just before the roll's request to the watcher reading it; load {load()}")


def notifying(db: str, args: argparse.Namespace) -> None:
    """Commits per second of `--writers` threads, each appending one row per transaction on a
    session of its own: notifying inside the transaction (what the referee's writes did before),
    after it by one notifier session that sends every bout committed to since its last round
    trip (what `referee.store.notify.Notifier` does), and not notifying at all (the baseline)."""
    import psycopg

    def run(mode: str) -> float:
        due: set[str] = set()
        changed = threading.Condition()
        done = threading.Event()

        def notifier() -> None:
            with psycopg.connect(db, autocommit=True) as conn:
                conn.execute("SET synchronous_commit TO off")
                while True:
                    with changed:
                        while not due and not done.is_set():
                            changed.wait(1.0)
                        if not due:
                            return
                        batch = sorted(due)
                        due.clear()
                    conn.execute(
                        "SELECT pg_notify('bench_scale', b) FROM unnest(%s::text[]) AS b",
                        (batch,),
                    )

        def writer(i: int, count: int) -> None:
            bout = f"w{i}"
            with psycopg.connect(db) as conn:
                for n in range(count):
                    conn.execute(
                        "INSERT INTO bench_bare_rows (bout, body) VALUES (%s, %s)", (bout, str(n))
                    )
                    if mode == "inside":
                        conn.execute("SELECT pg_notify('bench_scale', %s)", (bout,))
                    conn.commit()
                    if mode == "after":
                        with changed:
                            due.add(bout)
                            changed.notify_all()

        sender = threading.Thread(target=notifier) if mode == "after" else None
        if sender is not None:
            sender.start()
        per_writer = max(1, int(args.commits) // int(args.writers))
        threads = [
            threading.Thread(target=writer, args=(i, per_writer)) for i in range(args.writers)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        rate = per_writer * int(args.writers) / (time.perf_counter() - started)
        done.set()
        if sender is not None:
            with changed:
                changed.notify_all()
            sender.join()
        return rate

    print(
        f"\nnotifications, {args.writers} writer threads, {args.commits} commits of one row "
        f"each per measurement, {args.rounds} rounds (median, rounds in brackets)"
    )
    rates: dict[str, list[float]] = {"none": [], "inside": [], "after": []}
    for round_ in range(args.rounds):
        order = list(rates) if round_ % 2 == 0 else list(reversed(rates))
        for mode in order:
            rates[mode].append(run(mode))
    base = statistics.median(rates["none"])
    for mode, label in (
        ("inside", "pg_notify inside each write transaction"),
        ("after", "one notifier session, after the commits"),
        ("none", "no notification (baseline)"),
    ):
        got = sorted(rates[mode])
        shown = " ".join(f"{r:.0f}" for r in got)
        print(
            f"  {label:42} {statistics.median(got):7.0f} commits/s  "
            f"ratio {statistics.median(got) / base:4.2f}  ({shown})"
        )
    print(f"load {load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", default=os.environ.get("REFEREE_TEST_PG_URL"))
    parser.add_argument("--processes", default="1,2,4", help="process counts (default 1,2,4)")
    parser.add_argument("--clients", type=int, default=32, help="attack clients (default 32)")
    parser.add_argument("--requests", type=int, default=1600, help="attacks per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--bouts", type=int, default=20, help="watched bouts (default 20)")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between rolls")
    parser.add_argument("--seconds", type=float, default=10.0, help="each stream window")
    parser.add_argument("--writers", type=int, default=8, help="notify: writer threads")
    parser.add_argument("--commits", type=int, default=2000, help="notify: commits per run")
    parser.add_argument("--only", choices=["throughput", "streams", "notify"], default=None)
    parser.add_argument("--bare-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--bare-workers", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server:
        serve_bare(args.bare_server, args.bare_workers)
        return
    if not args.pg:
        raise SystemExit("bench_scale needs PostgreSQL: --pg URL or $REFEREE_TEST_PG_URL")
    args.process_counts = [int(n) for n in args.processes.split(",")]
    print(f"bench_scale: {os.cpu_count()} cores; load at the start {load()}", flush=True)
    with fresh_database(args.pg) as db:
        if args.only in (None, "throughput"):
            throughput(db, args)
        if args.only in (None, "streams"):
            across(db, args)
        if args.only in (None, "notify"):
            notifying(db, args)


if __name__ == "__main__":
    main()
