"""`kill -9` at random points during a bounded load: what was acknowledged is kept, nothing is
half done, every export verifies. Prints counts (the target: every one of them 0).

Starts `referee serve` (a separate process, `--rate off`) on 127.0.0.1 over SQLite in a
temporary directory, and over PostgreSQL too when $REFEREE_TEST_PG_URL is set (in a fresh
schema, dropped afterwards). One client drives a seeded, bounded load of MSV bouts: create,
a fighter added by the referee and one that joins, free rolls, initiative, attacks by the
fighter whose turn it is (with its own token or the referee's), hand-overs, seed rotations and,
for most bouts, the close. Every write carries an Idempotency-Key. Before a write, with
probability `--kill-chance`, a timer sends SIGKILL to the server 0..`--kill-window` ms later
(by default up to 1.2 times the last write's answer time):
while the request is read, decided, stored or answered, or between two requests. A request
that got no answer is sent again, with the same key, to the restarted server until it is
answered. With probability `--drop-chance` an answered write is sent once more with its key
(the answer was "lost", as when a HUD times out): the same answer must come back.

At the end, with the server up once more, it counts:

- acknowledged writes lost: an answered write whose events (seq and type) are not in the log,
  whose fighter, hand-over, rotation or close is not there, or whose bout does not exist;
- writes applied twice: more fighters, hand-overs, rotations or closes in the log than were
  acknowledged, or action events in the log that no answer accounts for;
- half-done operations, read from the database itself: a status column that disagrees with
  the folded log, a close without its `closed` event or seed reveal (or the reverse), seeds
  that disagree with the rotations, a hand-over whose old referee token still works or whose
  new one does not, a fighter whose token does not speak for it;
- exports that fail `referee verify` (complete for closed bouts, `--partial` for open ones);
- unexpected answers (a 4xx or 5xx to a write the load knows to be valid).

    .venv/bin/python benchmarks/bench_crash.py [--bouts 12] [--kills 20] [--seed 1] [--json]

Bounded: `--bouts` bouts of at most `--steps` steps, at most `--kills` kills, at most
`--max-seconds` of load (then the running bout is finished without more kills), 60 s
timeouts, only 127.0.0.1. tests/test_service_crash.py runs it at a small scale and checks
that every count is 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from referee.service.bouts import RefereeService
from referee.store import Store

COUNTS = ("lost", "applied_twice", "half_done", "exports_failing", "unexpected_answers")
#: Events an answer to a roll, an attack or initiative reports, and that no other write makes.
ACTED = frozenset({"action", "roll", "outcome", "initiative", "wound", "defeated", "turn"})


@dataclass
class Bout:
    """What the client was told about one bout (only acknowledged answers)."""

    id: str
    referee: str
    old_referees: list[str] = field(default_factory=list)
    fighters: dict[str, str] = field(default_factory=dict)
    events: set[tuple[int, str]] = field(default_factory=set)
    acked: Counter[str] = field(default_factory=Counter)
    server_seed: str | None = None


class Server:
    """`referee serve` in a process that may be killed, and restarted on the same database."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.starts = 0

    def start(self) -> None:
        command = [sys.executable, "-m", "referee.cli.main", "serve", "--db", self.db]
        command += ["--port", "0", "--rate", "off"]
        proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        assert proc.stdout is not None
        for _ in range(5):
            line = proc.stdout.readline()
            if "is serving on" in line:
                self.proc, self.starts = proc, self.starts + 1
                self.url = line.split("is serving on ")[1].split()[0].rstrip("/")
                return
        proc.kill()
        raise SystemExit(f"the service did not start on {self.db}")

    def kill(self) -> bool:
        """SIGKILL the running process; whether it was still running."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return False
        proc.send_signal(signal.SIGKILL)
        return True

    def restart(self) -> None:
        if self.proc is not None:
            self.kill()
            self.proc.wait(60)
            if self.proc.stdout is not None:
                self.proc.stdout.close()
        self.start()

    def stop(self) -> None:
        if self.proc is not None:
            self.kill()
            self.proc.wait(60)
            if self.proc.stdout is not None:
                self.proc.stdout.close()
            self.proc = None


class Load:
    """The seeded load, its kills and its retries."""

    def __init__(self, server: Server, rng: random.Random, args: argparse.Namespace) -> None:
        self.server = server
        self.rng = rng
        self.kill_chance: float = args.kill_chance
        self.kill_window: float = args.kill_window / 1000
        #: The last answered write's time (s): kills are spread over 1.2 times it by default.
        self.latency = 0.02
        self.kills_left: int = args.kills
        self.kills = 0
        self.retried = 0
        self.drop_chance: float = args.drop_chance
        self.dropped = 0
        self.writes = 0
        self.unexpected: list[str] = []
        self._lock = threading.Lock()

    def _arm(self) -> threading.Timer | None:
        if self.kills_left <= 0 or self.rng.random() >= self.kill_chance:
            return None
        self.kills_left -= 1

        def fire() -> None:
            with self._lock:
                if self.server.kill():
                    self.kills += 1

        window = self.kill_window or 1.2 * self.latency
        timer = threading.Timer(self.rng.uniform(0, window), fire)
        timer.start()
        return timer

    def request(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: Any = None,
        write: bool = True,
        expect: int = 200,
    ) -> Any:
        """Send until answered (a write with one Idempotency-Key throughout); the JSON answer,
        or None (and an unexpected answer noted) when its status is not `expect`."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if write:
            headers["Idempotency-Key"] = str(uuid.UUID(int=self.rng.getrandbits(128)))
            self.writes += 1
        r = self._send(method, path, body, headers, self._arm() if write else None)
        if write and r.status_code < 300 and self.rng.random() < self.drop_chance:
            # The answer is dropped (as a HUD that timed out would): the same again.
            self.dropped += 1
            again = self._send(method, path, body, headers, None)
            if (again.status_code, again.content) != (r.status_code, r.content):
                self.unexpected.append(f"{method} {path}: the retry got another answer")
        if r.status_code != expect:
            self.unexpected.append(f"{method} {path}: {r.status_code} {r.text[:200]}")
            return None
        return r.json()

    def _send(
        self,
        method: str,
        path: str,
        body: Any,
        headers: dict[str, str],
        timer: threading.Timer | None,
    ) -> httpx.Response:
        """Send until answered, restarting the server when it is gone."""
        write = "Idempotency-Key" in headers
        for _attempt in range(100):
            try:
                sent = time.monotonic()
                r = httpx.request(
                    method, self.server.url + path, json=body, headers=headers, timeout=60
                )
                if write:
                    self.latency = time.monotonic() - sent
                return r
            except httpx.TransportError:
                if timer is not None:
                    timer.cancel()
                    timer = None
                with self._lock:
                    self.server.restart()
                if write:
                    self.retried += 1
        raise SystemExit(f"{method} {path} got no answer in 100 attempts")

    def bout(self, steps: int, close: bool) -> Bout | None:
        made = self.request(
            "POST", "/api/bouts", None, {"system": "msv", "name": "Crash"}, expect=201
        )
        if made is None:
            return None
        bout = Bout(made["id"], made["referee_token"])
        bout.acked["bout_opened"] += 1
        at = f"/api/bouts/{bout.id}"
        for name, cs, joins in (("Tarl", 65, False), ("Pa-Kur", 70, True)):
            token = None if joins else bout.referee
            where = f"{at}/join" if joins else f"{at}/fighters"
            added = self.request("POST", where, token, {"name": name, "cs": cs}, expect=201)
            if added is not None:
                bout.fighters[name] = added["token"]
                bout.acked["fighter_added"] += 1
        for _ in range(self.rng.randint(0, 2)):
            self._roll(bout)
        started = self.request("POST", f"{at}/initiative", bout.referee)
        if started is not None:
            self._remember(bout, started["events"])
        for _ in range(steps):
            view = self.request("GET", at, write=False)
            if view is None or view["status"] != "running":
                break
            step = self.rng.choices(("attack", "roll", "handover", "rotate"), (6, 2, 1, 1))[0]
            if step == "attack":
                attacker = str(view["turn"])
                target = next(n for n in bout.fighters if n != attacker)
                token = self.rng.choice((bout.referee, bout.fighters[attacker]))
                body = {"attacker": attacker, "target": target}
                hit = self.request("POST", f"{at}/attacks", token, body)
                if hit is not None:
                    self._remember(bout, hit["events"])
            elif step == "roll":
                self._roll(bout)
            elif step == "handover":
                handed = self.request("POST", f"{at}/handover", bout.referee)
                if handed is not None:
                    bout.old_referees.append(bout.referee)
                    bout.referee = handed["referee_token"]
                    bout.acked["referee_changed"] += 1
            else:
                rotated = self.request("POST", f"{at}/rotate-seed", bout.referee)
                if rotated is not None:
                    event = rotated["event"]
                    bout.events.add((event["seq"], event["type"]))
                    bout.acked["seed_rotated"] += 1
        if close:
            closed = self.request("POST", f"{at}/close", bout.referee)
            if closed is not None:
                bout.server_seed = closed["server_seed"]
                bout.acked["closed"] += 1
        return bout

    def _roll(self, bout: Bout) -> None:
        token = self.rng.choice((bout.referee, *bout.fighters.values()))
        rolled = self.request("POST", f"/api/bouts/{bout.id}/rolls", token, {"dice": "1d100"})
        if rolled is not None:
            bout.events.add((rolled["seq"], "action"))
            bout.events.update((r["seq"], "roll") for r in rolled["rolls"])

    @staticmethod
    def _remember(bout: Bout, events: list[dict[str, Any]]) -> None:
        bout.events.update((e["seq"], e["type"]) for e in events)


def check(load: Load, bouts: list[Bout], store: Store) -> tuple[dict[str, int], list[str]]:
    """The counts, and a line for each problem found."""
    counts = dict.fromkeys(COUNTS, 0)
    problems: list[str] = []

    def problem(kind: str, text: str) -> None:
        counts[kind] += 1
        problems.append(f"{kind}: {text}")

    service = RefereeService(store)
    for bout in bouts:
        at = f"/api/bouts/{bout.id}"
        log = load.request("GET", f"{at}/log", bout.referee, write=False)
        if not isinstance(log, list):
            problem("lost", f"{bout.id}: the acknowledged bout has no log")
            continue
        seen = {(e["seq"], e["type"]) for e in log}
        types = Counter(e["type"] for e in log)
        for seq, kind in sorted(bout.events - seen):
            problem("lost", f"{bout.id}: acknowledged {kind} #{seq} is not in the log")
        for kind, acked in sorted(bout.acked.items()):
            if types[kind] < acked:
                problem("lost", f"{bout.id}: {acked} {kind} acknowledged, {types[kind]} stored")
            if types[kind] > acked:
                problem("applied_twice", f"{bout.id}: {types[kind]} {kind}, {acked} acknowledged")
        extra = sorted(s for s, t in seen - bout.events if t in ACTED and t != "turn")
        if extra:
            problem("applied_twice", f"{bout.id}: events {extra} answer no acknowledged write")
        half_done(bout, store, service, problem)
        export = load.request("GET", f"{at}/export", bout.referee, write=False)
        closed = bout.acked["closed"] > 0
        verify = [
            sys.executable,
            "-m",
            "referee.cli.main",
            "verify",
            *(["--partial"] * (not closed)),
        ]
        done = subprocess.run(
            [*verify, "-"], input=json.dumps(export), capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            problem("exports_failing", f"{bout.id}: {done.stdout.strip()[:300]}")
    for text in load.unexpected:
        problem("unexpected_answers", text)
    return counts, problems


def half_done(bout: Bout, store: Store, service: RefereeService, problem: Any) -> None:
    """What the database holds of the bout, against its own log."""
    record = store.get_bout(bout.id)
    state = service.state(bout.id)
    events = store.events(bout.id)
    types = Counter(e["type"] for e in events)
    if record.status != state.status_name:
        problem("half_done", f"{bout.id}: status {record.status}, the log says {state.status_name}")
    seeds = store.seeds(bout.id)
    if len(seeds) != 1 + types["seed_rotated"] or record.seed_index != len(seeds) - 1:
        problem("half_done", f"{bout.id}: {len(seeds)} seeds, {types['seed_rotated']} rotations")
    if not all(s.revealed for s in seeds[:-1]):
        problem("half_done", f"{bout.id}: a rotated seed is not revealed")
    closed = record.status == "closed"
    if closed != (types["closed"] == 1) or closed != seeds[-1].revealed:
        problem(
            "half_done",
            f"{bout.id}: status {record.status}, {types['closed']} closed events, "
            f"last seed revealed {seeds[-1].revealed}",
        )
    if closed and bout.server_seed not in (None, seeds[-1].server_seed):
        problem("half_done", f"{bout.id}: the close answered another seed than was revealed")
    current = store.lookup_token(bout.referee)
    if current is None or current.bout_id != bout.id or current.role.value != "referee":
        problem("half_done", f"{bout.id}: the acknowledged referee token does not work")
    for old in bout.old_referees:
        if store.lookup_token(old) is not None:
            problem("half_done", f"{bout.id}: a handed-over referee token still works")
    for name, token in bout.fighters.items():
        found = store.lookup_token(token)
        if found is None or found.bout_id != bout.id or found.fighter != name:
            problem("half_done", f"{bout.id}: {name}'s token does not speak for {name}")


@contextmanager
def database(kind: str, tmp: str) -> Iterator[str]:
    """A fresh database URL: a SQLite file, or a PostgreSQL schema dropped afterwards."""
    if kind == "sqlite":
        yield str(Path(tmp) / "crash.db")
        return
    import psycopg

    base = os.environ["REFEREE_TEST_PG_URL"]
    schema = f"referee_crash_{secrets.token_hex(6)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    joiner = "&" if "?" in base else "?"
    try:
        yield f"{base}{joiner}options={quote(f'-csearch_path={schema}', safe='')}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def run(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    """The load, the kills and the counts over one database."""
    rng = random.Random(f"{args.seed}:{kind}")
    with tempfile.TemporaryDirectory() as tmp, database(kind, tmp) as db:
        server = Server(db)
        server.start()
        load = Load(server, rng, args)
        bouts: list[Bout] = []
        start = time.monotonic()
        try:
            for n in range(args.bouts):
                if time.monotonic() - start > args.max_seconds:
                    break
                made = load.bout(args.steps, close=n % 4 != 3)
                if made is not None:
                    bouts.append(made)
            seconds = time.monotonic() - start
            load.kills_left = 0
            with Store.open(db) as store:
                counts, problems = check(load, bouts, store)
        finally:
            server.stop()
    return {
        "database": kind,
        "bouts": len(bouts),
        "closed": sum(1 for b in bouts if b.acked["closed"]),
        "writes": load.writes,
        "kills": load.kills,
        "retried": load.retried,
        "dropped": load.dropped,
        "starts": server.starts,
        "seconds": round(seconds, 1),
        **counts,
        "problems": problems,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bouts", type=int, default=12)
    parser.add_argument("--steps", type=int, default=16, help="steps per bout at most")
    parser.add_argument("--kills", type=int, default=20, help="SIGKILLs at most")
    parser.add_argument("--kill-chance", type=float, default=0.15, help="per write")
    parser.add_argument(
        "--kill-window",
        type=float,
        default=0.0,
        help="ms after the send [default: 1.2x the last write's answer time]",
    )
    parser.add_argument(
        "--drop-chance", type=float, default=0.1, help="per answered write: sent again"
    )
    parser.add_argument("--max-seconds", type=float, default=240.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--database",
        choices=("all", "sqlite", "postgresql"),
        default="all",
        help="all: SQLite, and PostgreSQL when $REFEREE_TEST_PG_URL is set",
    )
    parser.add_argument("--json", action="store_true", help="one JSON line per database")
    args = parser.parse_args()
    kinds = ["sqlite", *(["postgresql"] if os.environ.get("REFEREE_TEST_PG_URL") else [])]
    if args.database != "all":
        kinds = [args.database]
    for kind in kinds:
        result = run(kind, args)
        if args.json:
            print(json.dumps(result), flush=True)
            continue
        print(f"bench_crash on {kind} (seed {args.seed}, load average {os.getloadavg()[0]:.2f})")
        print(
            f"  {result['bouts']} bouts ({result['closed']} closed), {result['writes']} writes "
            f"in {result['seconds']} s; {result['kills']} kill -9, {result['retried']} writes "
            f"retried unanswered, {result['dropped']} answers dropped and asked again, "
            f"{result['starts']} server starts"
        )
        for name in COUNTS:
            print(f"  {name.replace('_', ' ')}: {result[name]}")
        for text in result["problems"]:
            print(f"    {text}")


if __name__ == "__main__":
    main()
