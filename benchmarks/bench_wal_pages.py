"""What WAL pages cost a durable SQLite commit: the referee's `events` layout against a bare append.

A verifiable attack appends about five events (some 250 bytes each) to its bout in one commit;
SQLite keeps `events` as a rowid table plus the automatic index of its primary key (bout_id,
seq), so a commit writes about four WAL pages where a bare one-row append writes one. This
benchmark commits the same rows, `--bouts` spars attacked in turn, in three layouts on one
machine in one process, each commit with WAL and synchronous=FULL as the referee runs it:

- bare: one row appended to a rowid table with no other index (the bare route of
  `bench_service.py`);
- events: the referee's table (schema version 1's DDL);
- without rowid: the same table as WITHOUT ROWID (the rows kept in primary-key order).

The three take turns commit by commit (the first of each turn going round), so a shared disk's
drift favours none. It prints the WAL frames (pages) written per commit, each layout's median
commit time and the ratio of the bare append's median to it. Read the pages as exact and the
times as this machine's.

    .venv/bin/python benchmarks/bench_wal_pages.py [--commits 600] [--bouts 8]

Bounded: a fixed number of commits per layout, in a temporary directory it removes.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

EVENTS = """CREATE TABLE events (
    bout_id TEXT NOT NULL,
    seq INTEGER NOT NULL CHECK (seq >= 0),
    type TEXT NOT NULL,
    actor TEXT,
    at TEXT NOT NULL,
    payload TEXT NOT NULL,
    extra TEXT,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (bout_id, seq)
)"""

LAYOUTS = {
    "bare": "CREATE TABLE rows (id INTEGER PRIMARY KEY, bout, body)",
    "events": EVENTS,
    "without rowid": EVENTS + " WITHOUT ROWID",
}

#: Events an attack appends (action, roll, outcome, wound, turn) and their payload sizes.
ATTACK = ((57, "action"), (57, "roll"), (300, "outcome"), (36, "wound"), (25, "turn"))
PAGE = 4096
WAL_FRAME = PAGE + 24


def connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute(f"PRAGMA page_size={PAGE}")
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("PRAGMA wal_autocheckpoint=0")  # the WAL's growth is the count
    return connection


class Spars:
    """One layout's database and the spars it appends to."""

    def __init__(self, layout: str, path: Path, bouts: int) -> None:
        self.layout, self.wal = layout, Path(f"{path}-wal")
        self.connection = connect(path)
        self.connection.execute(LAYOUTS[layout])
        self.names = [os.urandom(11).hex() for _ in range(bouts)]  # bout ids in random order
        self.seqs = dict.fromkeys(self.names, 0)
        self.commits = 0
        self.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.start = self.wal_size()

    def wal_size(self) -> int:
        return max(32, self.wal.stat().st_size) if self.wal.exists() else 32

    def commit(self) -> float:
        """Append one attack's rows in one commit; the seconds it took."""
        bout = self.names[self.commits % len(self.names)]
        self.commits += 1
        started = time.perf_counter()
        self.connection.execute("BEGIN IMMEDIATE")
        if self.layout == "bare":  # the bare route appends the request, one row
            self.connection.execute("INSERT INTO rows (bout, body) VALUES (?, ?)", (bout, "x" * 60))
        else:
            for size, kind in ATTACK:
                seq = self.seqs[bout]
                self.seqs[bout] = seq + 1
                self.connection.execute(
                    "INSERT INTO events (bout_id, seq, type, actor, at, payload, extra, prev, "
                    "hash) VALUES (?, ?, ?, 'A', '2026-12-03T18:00:00.000Z', ?, NULL, ?, ?)",
                    (bout, seq, kind, "p" * size, "0" * 64, "1" * 64),
                )
        self.connection.execute("COMMIT")
        return time.perf_counter() - started

    def pages_per_commit(self) -> float:
        return (self.wal_size() - self.start) / WAL_FRAME / self.commits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=600, help="commits per layout")
    parser.add_argument("--bouts", type=int, default=8, help="spars attacked in turn")
    args = parser.parse_args()
    order = list(LAYOUTS)
    with tempfile.TemporaryDirectory() as scratch:
        spars = {
            name: Spars(name, Path(scratch) / f"{name.replace(' ', '-')}.db", args.bouts)
            for name in order
        }
        took: dict[str, list[float]] = {name: [] for name in order}
        for n in range(args.commits):
            # Each layout's commits in turn, the first of each turn going round: a disk or
            # machine that speeds up or slows down favours none of them.
            for name in order[n % len(order) :] + order[: n % len(order)]:
                took[name].append(spars[name].commit())
        pages = {name: spars[name].pages_per_commit() for name in order}
        for each in spars.values():
            each.connection.close()
    bare = statistics.median(took["bare"])
    print(f"{'layout':<14} {'pages/commit':>12} {'p50 ms':>7} {'ratio':>6}")
    for name in order:
        p50 = statistics.median(took[name])
        print(f"{name:<14} {pages[name]:12.2f} {p50 * 1000:7.2f} {bare / p50:6.2f}")
    print(
        "ratio = the bare append's median commit time over the layout's (1.00 = as fast); "
        f"{args.bouts} spars attacked in turn, {len(ATTACK)} events an attack; "
        "WAL + synchronous=FULL"
    )


if __name__ == "__main__":
    main()
