"""The memory a service holds for big bouts: bounded by events in all, or by bouts as before.

Fills `--bouts` bouts to about `--events` events each through the service layer (in process,
SQLite in a temporary directory; the referee's free rolls of `47d2!`, budgets widened so that
one roller may fill a bout), then measures what the process still holds (`tracemalloc`, after
a garbage collection) with the caches as they are now (at most `--held` events of all bouts in
each of the store's and the service's caches) and, in the same run, the baseline: caches bounded
only by a count of bouts, as before (`held` large enough for every bout). Prints both and the
ratio, with the resident size beside them.

    .venv/bin/python benchmarks/bench_memory.py [--bouts 3] [--events 30000] [--held 40000]

Bounded: fixed counts, one temporary SQLite file a run.
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
import tracemalloc
from pathlib import Path

from referee.errors import LimitError
from referee.service.bouts import Caller, RefereeService
from referee.service.budgets import Budgets
from referee.store import Role, Store

WIDE = Budgets(free_per_roller=10**6, free_per_bout=10**6, per_fighter=10**6)


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0


def fill(held: int, bouts: int, events: int, folder: str) -> tuple[float, float, float]:
    """Live MB, resident MB and seconds after filling `bouts` bouts with caches of `held`."""
    gc.collect()
    tracemalloc.start()
    begun = time.perf_counter()
    store = Store.open(f"sqlite:///{folder}/held-{held}.db", held_events=held)
    service = RefereeService(store, budgets=WIDE)
    referee = Caller(Role.REFEREE)
    for _ in range(bouts):
        bout = service.create_bout("msv", "Big")["id"]
        service.add_fighter(bout, referee, "Tarl", {"cs": 60})
        while len(service.records(bout)) < events:
            try:
                service.free_roll(bout, referee, "47d2!", actor="Tarl")
            except LimitError:
                break
    seconds = time.perf_counter() - begun
    gc.collect()
    live = tracemalloc.get_traced_memory()[0] / 1e6
    tracemalloc.stop()
    resident = resident_mb()
    store.close()
    del service, store
    gc.collect()
    return live, resident, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bouts", type=int, default=3)
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--held", type=int, default=40_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        everything = args.bouts * args.events * 2  # the baseline keeps every bout
        base_live, base_rss, base_s = fill(everything, args.bouts, args.events, folder)
        live, rss, seconds = fill(args.held, args.bouts, args.events, folder)
    print(f"{args.bouts} bouts of about {args.events:,} events each")
    print(f"  caches bounded by bouts (before): {base_live:7.1f} MB held ({base_s:.0f} s)")
    print(f"  caches bounded by {args.held:,} events:  {live:7.1f} MB held ({seconds:.0f} s)")
    print(f"  ratio held (bounded / before): {live / base_live:.2f}")
    print(f"  resident after each run: {base_rss:.0f} MB, then {rss:.0f} MB")


if __name__ == "__main__":
    main()
