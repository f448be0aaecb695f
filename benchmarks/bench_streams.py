"""The cost of 1,000 live watchers: server CPU and answer times, idle and while a bout is played.

Starts `referee serve` (a separate process, SQLite in a temporary directory) on 127.0.0.1 and
measures, in one run:

1. baseline: no watchers; the server's CPU share over a window and the p50/p99 of a bout read;
2. 1,000 watchers (`GET /api/bouts/ID/events`, spread over 10 bouts and 50 loopback addresses)
   held open and idle: the same figures;
3. the same 1,000 watchers while one bout gets a roll every 0.2 s: the same figures, and the
   delivery time of each roll to its watchers (p50/p99).

Prints each figure and the ratio to the baseline. Run it against another checkout's code (for a
before/after) with `--src OTHER/src` (that code's `serve` options are then not passed).

    .venv/bin/python benchmarks/bench_streams.py [--watchers 1000] [--seconds 8] [--src DIR]

Bounded: fixed counts and windows, 60 s timeouts, only 127.0.0.x.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start_server(db: Path, src: str | None) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "referee.cli.main", "serve", "--db", str(db), "--port"]
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
        command += ["8765"]
    else:
        command += ["0", "--rate", "off", "--max-streams", "5000"]
        command += ["--max-streams-per-address", "5000"]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    assert proc.stdout is not None
    for _ in range(3):
        line = proc.stdout.readline()
        if "is serving on" in line:
            url = line.split("is serving on ")[1].split()[0].rstrip("/")
            break
    else:
        proc.kill()
        raise SystemExit("the service did not start")
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{url}/healthz", timeout=5)
            return proc, url
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


async def watcher(
    host: str,
    port: int,
    path: str,
    source: str,
    seen: dict[int, list[float]],
    ready: asyncio.Event,
    count: list[int],
    total: int,
) -> None:
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    await reader.readuntil(b"\r\n\r\n")
    count[0] += 1
    if count[0] == total:
        ready.set()
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"data: ") and b'"type":"roll"' in line:
                seq = json.loads(line[6:])["seq"]
                seen.setdefault(seq, []).append(time.monotonic())
    except (ConnectionError, asyncio.CancelledError):
        return
    finally:
        writer.close()


async def read_times(client: httpx.AsyncClient, path: str, seconds: float) -> list[float]:
    """Bout reads one after another for `seconds`: each answer time."""
    times: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.monotonic()
        r = await client.get(path)
        r.raise_for_status()
        times.append(time.monotonic() - t)
        await asyncio.sleep(0.02)
    return times


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def window(
    pid: int, client: httpx.AsyncClient, path: str, seconds: float
) -> dict[str, float]:
    before, t0 = cpu_seconds(pid), time.monotonic()
    times = await read_times(client, path, seconds)
    cpu = (cpu_seconds(pid) - before) / (time.monotonic() - t0)
    return {
        "cpu": cpu,
        "p50": pct(times, 0.5) * 1000,
        "p99": pct(times, 0.99) * 1000,
        "n": len(times),
    }


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp) / "streams.db", args.src)
        host, port = url.removeprefix("http://").split(":")
        try:
            async with httpx.AsyncClient(base_url=url, timeout=60) as client:
                bouts = []
                for i in range(10):
                    made = (
                        await client.post("/api/bouts", json={"system": "msv", "name": f"B{i}"})
                    ).json()
                    bouts.append((made["id"], made["referee_token"]))
                read_path = f"/api/bouts/{bouts[0][0]}"
                results = {
                    "baseline (no watchers)": await window(
                        proc.pid, client, read_path, args.seconds
                    )
                }

                seen: dict[int, list[float]] = {}
                ready, count = asyncio.Event(), [0]
                tasks = [
                    asyncio.create_task(
                        watcher(
                            host,
                            int(port),
                            f"/api/bouts/{bouts[i % 10][0]}/events",
                            f"127.0.0.{10 + i % 50}",
                            seen,
                            ready,
                            count,
                            args.watchers,
                        )
                    )
                    for i in range(args.watchers)
                ]
                await asyncio.wait_for(ready.wait(), 120)
                await asyncio.sleep(1)  # let the streams' first reads settle
                results[f"{args.watchers} watchers, idle"] = await window(
                    proc.pid, client, read_path, args.seconds
                )

                bout, ref = bouts[0]
                sent: dict[int, float] = {}

                async def roller() -> None:
                    auth = {"Authorization": f"Bearer {ref}"}
                    end = time.monotonic() + args.seconds
                    while time.monotonic() < end:
                        t = time.monotonic()
                        r = await client.post(
                            f"/api/bouts/{bout}/rolls", json={"dice": "1d100"}, headers=auth
                        )
                        body = r.json()
                        # The roll's own event (the answer's seq may be the action before it).
                        sent[body["rolls"][0]["seq"] if body.get("rolls") else body["seq"]] = t
                        await asyncio.sleep(0.2)

                rolling = asyncio.create_task(roller())
                results[f"{args.watchers} watchers, a roll every 0.2 s"] = await window(
                    proc.pid, client, read_path, args.seconds
                )
                await rolling
                await asyncio.sleep(2)
                delays = [at - sent[seq] for seq, ats in seen.items() if seq in sent for at in ats]
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            proc.terminate()
            proc.communicate(timeout=30)

    base = results["baseline (no watchers)"]
    code = f"code at {args.src}" if args.src else "this checkout"
    print(f"bench_streams ({code}; {args.watchers} watchers over 10 bouts)")
    for name, r in results.items():
        print(
            f"  {name:<38} server CPU {r['cpu'] * 100:5.1f}%   bout read p50 {r['p50']:7.1f} ms"
            f"  p99 {r['p99']:7.1f} ms  ({int(r['n'])} reads; "
            f"p99 x{r['p99'] / base['p99']:.1f} baseline)"
        )
    watchers_of_bout = args.watchers // 10
    expected = len(sent) * watchers_of_bout
    print(
        f"  roll delivery to {watchers_of_bout} watchers of the rolling bout: "
        f"{len(delays)}/{expected} deliveries, p50 {pct(delays, 0.5) * 1000:.1f} ms, "
        f"p99 {pct(delays, 0.99) * 1000:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--src", default=None, help="run the server from this src directory")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
