"""Rate limits under a flood: the other clients' p99 with and without one client flooding.

Starts `referee serve` with its default limits (a separate process, SQLite in a temporary
directory, or `--db` a fresh PostgreSQL database with `--workers N`, whose limits are shared)
on 127.0.0.1. Eight ordinary clients, each from its own loopback address (127.0.0.11..18)
with its own bout, read their bout five times a second and roll once a second
with their referee token (well inside the limits). The run has `--rounds` rounds
(3 by default) of two windows of equal length (`--seconds`, 10 by default), so that a machine
whose speed drifts favours neither:

1. without a flood;
2. with a flood from one more client (127.0.0.2, a separate process): `--flood` connections
   sending rolls with one token as fast as the answers come, bounded by `--flood-requests`
   and by the window. Nearly all of them get 429.

Prints the ordinary clients' p50/p99 without and with the flood over every round's answers, the
ratio of the p99s (the target is at most 2x) with each round's own ratio, and what the flood
got (200s and 429s).

Then the limiter's own cost per request, in this process: `RateLimits.check` of a request with
a token (two limits) in memory, and, when $REFEREE_TEST_PG_URL is set, with the counters
shared on PostgreSQL (one UPSERT per request, what `serve --workers N` uses there), as
microseconds per request and the ratio.

    .venv/bin/python benchmarks/bench_limits.py [--seconds 10] [--rounds 3] [--flood 8]
    .venv/bin/python benchmarks/bench_limits.py --db postgresql:///referee_bench --workers 2

Bounded: fixed windows and request counts, 60 s timeouts, only 127.0.0.x.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ORDINARY = [f"127.0.0.{n}" for n in range(11, 19)]
FLOOD_ADDRESS = "127.0.0.2"


def start_server(db: Path | str, workers: int = 1) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "referee.cli.main", "serve", "--db", str(db), "--port", "0"]
    command += ["--workers", str(workers)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    for _ in range(3):
        line = proc.stdout.readline()
        if "is serving on" in line:
            return proc, line.split("is serving on ")[1].split()[0].rstrip("/")
    proc.kill()
    raise SystemExit("the service did not start")


def client(url: str, source: str) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=source)
    return httpx.AsyncClient(base_url=url, transport=transport, timeout=60)


async def ordinary(url: str, source: str, seconds: float) -> list[float]:
    """Five reads and one roll a second for `seconds`: every answer time (all must be 2xx)."""
    async with client(url, source) as http:
        made = (await http.post("/api/bouts", json={"system": "msv", "name": source})).json()
        bout, auth = made["id"], {"Authorization": f"Bearer {made['referee_token']}"}
        times: list[float] = []
        start = time.monotonic()
        tick = 0
        while time.monotonic() - start < seconds:
            t = time.monotonic()
            if tick % 5 == 0:
                r = await http.post(
                    f"/api/bouts/{bout}/rolls", json={"dice": "1d100"}, headers=auth
                )
            else:
                r = await http.get(f"/api/bouts/{bout}")
            times.append(time.monotonic() - t)
            if r.status_code >= 300:
                raise SystemExit(f"an ordinary client got {r.status_code}: {r.text}")
            tick += 1
            await asyncio.sleep(max(0.0, start + tick * 0.2 - time.monotonic()))
        return times


def flood(url: str, connections: int, requests: int, seconds: float, out: dict[str, int]) -> None:
    """The flooding client (run in its own process)."""

    async def run() -> dict[str, int]:
        counts: dict[str, int] = {}
        left = [requests]
        async with client(url, FLOOD_ADDRESS) as http:
            made = (await http.post("/api/bouts", json={"system": "msv", "name": "flood"})).json()
            bout, auth = made["id"], {"Authorization": f"Bearer {made['referee_token']}"}
            end = time.monotonic() + seconds

            async def one() -> None:
                while left[0] > 0 and time.monotonic() < end:
                    left[0] -= 1
                    r = await http.post(
                        f"/api/bouts/{bout}/rolls", json={"dice": "1d100"}, headers=auth
                    )
                    counts[str(r.status_code)] = counts.get(str(r.status_code), 0) + 1

            await asyncio.gather(*(one() for _ in range(connections)))
        return counts

    out.update(asyncio.run(run()))


def flooded_window(url: str, args: argparse.Namespace) -> tuple[list[float], dict[str, int]]:
    """The ordinary clients' answer times while another process floods; what the flood got."""
    with multiprocessing.Manager() as manager:
        counts = manager.dict()
        flooder = multiprocessing.Process(
            target=flood,
            args=(url, args.flood, args.flood_requests, args.seconds + 2, counts),
        )
        flooder.start()
        time.sleep(1.0)  # the flood is under way before the window opens
        flooded = asyncio.run(window(url, args.seconds))
        flooder.join(120)
        return flooded, dict(counts)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def window(url: str, seconds: float) -> list[float]:
    runs = await asyncio.gather(*(ordinary(url, source, seconds) for source in ORDINARY))
    return [t for times in runs for t in times]


def limiter_cost(requests: int) -> None:
    """Microseconds per `RateLimits.check` in memory and, with PostgreSQL, shared."""
    from referee.service.limits import Limits, Rate, RateLimits
    from referee.store import Store

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/api/bouts/x",
        "client": ("127.0.0.9", 1),
        "headers": [(b"authorization", f"Bearer bench-{os.getpid()}-{time.time()}".encode())],
    }
    limits = Limits(token=Rate(10**9, 60.0), address=Rate(10**9, 60.0))

    def per_request(limiter: RateLimits) -> float:
        limiter.check(scope)  # warm: the table exists, a connection is pooled
        start = time.perf_counter()
        for _ in range(requests):
            if limiter.check(scope) is not None:
                raise SystemExit("the cost run was refused")
        return (time.perf_counter() - start) / requests * 1e6

    memory = per_request(RateLimits(lambda *_: None, limits))  # type: ignore[arg-type]
    print(f"  limiter per request, in memory: {memory:.1f} us ({requests} requests)")
    url = os.environ.get("REFEREE_TEST_PG_URL")
    if not url:
        print("  (set $REFEREE_TEST_PG_URL to measure the counters shared on PostgreSQL)")
        return
    with Store.open(url) as store:
        shared = store.shared_counters()
        assert shared is not None
        cost = per_request(RateLimits(lambda *_: None, limits, shared))  # type: ignore[arg-type]
    print(
        f"  limiter per request, shared on PostgreSQL: {cost:.1f} us "
        f"({cost / memory:.0f}x in memory; +{(cost - memory) / 1000:.2f} ms a request)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each window")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds of a window without the flood then one with it (the machine's speed "
        "drifts; every round's answers count)",
    )
    parser.add_argument("--flood", type=int, default=8, help="flooding connections")
    parser.add_argument("--flood-requests", type=int, default=50_000)
    parser.add_argument("--cost-requests", type=int, default=2000)
    parser.add_argument(
        "--db", default=None, help="a PostgreSQL URL (default: SQLite in a temporary directory)"
    )
    parser.add_argument("--workers", type=int, default=1, help="with --db: serve --workers N")
    args = parser.parse_args()
    rounds: list[tuple[list[float], list[float], dict[str, int]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(args.db or Path(tmp) / "limits.db", args.workers)
        try:
            for _ in range(args.rounds):
                quiet = asyncio.run(window(url, args.seconds))
                rounds.append((quiet, *flooded_window(url, args)))
        finally:
            proc.terminate()
            proc.communicate(timeout=30)
    quiet = [t for q, _, _ in rounds for t in q]
    flooded = [t for _, f, _ in rounds for t in f]
    q50, q99 = pct(quiet, 0.5) * 1000, pct(quiet, 0.99) * 1000
    f50, f99 = pct(flooded, 0.5) * 1000, pct(flooded, 0.99) * 1000
    where = f"PostgreSQL, {args.workers} workers" if args.db else "SQLite"
    print(f"bench_limits (default limits, {where}; 8 ordinary clients on their own addresses)")
    print(f"  {args.rounds} rounds of a {args.seconds:g} s window without a flood, then one with")
    print(f"  without flood: {len(quiet)} answers, p50 {q50:.1f} ms, p99 {q99:.1f} ms")
    print(f"  with flood:    {len(flooded)} answers, p50 {f50:.1f} ms, p99 {f99:.1f} ms")
    got: dict[str, int] = {}
    for _, _, counts in rounds:
        for status, count in counts.items():
            got[status] = got.get(status, 0) + count
    print(
        f"  flood from {FLOOD_ADDRESS} ({args.flood} connections, each round): "
        f"{sum(got.values())} requests, answers {json.dumps(dict(sorted(got.items())))}"
    )
    each = sorted(pct(f, 0.99) / pct(q, 0.99) for q, f, _ in rounds)
    print(
        f"  p99 with flood / without: {f99 / q99:.2f}x over every round's answers "
        f"(target <= 2x; each round's, lowest first: {' '.join(f'{r:.2f}' for r in each)})"
    )
    print(f"  load average {os.getloadavg()[0]:.2f}")
    limiter_cost(args.cost_requests)


if __name__ == "__main__":
    main()
