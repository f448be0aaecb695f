"""One verifiable attack through the service layer, against one bare durable append.

No HTTP here: this isolates what `RefereeService.act` costs (token lookup, the bout engine, the
rules, the HMAC dice, the hash chain, the checks, one transaction) over the least a durable
write of one event can cost in the same store (one chained event appended in one transaction).
It also prints what of an attack its answer's signatures take (`ServiceKey.signed_rolls`, the
Ed25519 signature and the signed line of each roll, docs/ledger.md): each answer's rolls signed
again right after the attack, timed apart.

    .venv/bin/python benchmarks/bench_service_layer.py [--attacks 400] [--db URL]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.bout import commands as c
from referee.service.bouts import RefereeService
from referee.store import Store


def open_spar(service: RefereeService) -> tuple[str, str, str]:
    """A new MSV bout with two fighters and initiative rolled: (id, token, whose turn)."""
    bout = service.create_bout("msv", "bench")
    referee = service.caller(bout["id"], bout["referee_token"])
    service.add_fighter(bout["id"], referee, "A", {"cs": 65})
    service.add_fighter(bout["id"], referee, "B", {"cs": 70})
    service.command(bout["id"], referee, c.RollInitiative())
    return bout["id"], bout["referee_token"], str(service.state(bout["id"]).current)


def attacks(service: RefereeService, count: int) -> tuple[float, float]:
    """Seconds per attack, each with its own token lookup, opening a new spar when one ends;
    and seconds per attack of signing its answer's rolls (done again after it, timed apart)."""
    bout, token, turn = open_spar(service)
    spent = signing = 0.0
    for _ in range(count):
        started = time.perf_counter()
        answer = service.act(
            bout,
            service.caller(bout, token),
            turn,
            "attack",
            {"target": "B" if turn == "A" else "A"},
        )
        spent += time.perf_counter() - started
        rolls = [
            {k: v for k, v in roll.items() if k not in ("signature", "line")}
            for roll in answer["rolls"]
        ]
        started = time.perf_counter()
        service.key.signed_rolls(bout, turn, rolls)
        signing += time.perf_counter() - started
        if answer.get("winner"):
            bout, token, turn = open_spar(service)
        else:
            turn = answer.get("next") or turn
    return spent / count, signing / count


@dataclass(frozen=True)
class Note:
    """One event as the store links it: type, actor, payload."""

    type: str
    actor: str | None
    payload: dict[str, Any]


def bare_appends(store: Store, count: int) -> float:
    """Seconds per durable append of one chained event to one bout."""
    bout = store.create_bout(system="msv", name="bare").id

    def one(events: list[dict[str, Any]], dice: object) -> list[Note]:
        return [Note("note", "referee", {"n": len(events)})]

    started = time.perf_counter()
    for _ in range(count):
        store.extend(bout, one, dice=False)
    return (time.perf_counter() - started) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacks", type=int, default=400)
    parser.add_argument("--db", help="database URL (default: a SQLite file in a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(args.db or str(Path(tmp) / "bench.db"))
        service = RefereeService(store)
        attacks(service, 20)  # warm up caches and prepared statements
        bare = bare_appends(store, args.attacks)
        ours, signing = attacks(service, args.attacks)
        store.close()
    print(f"bare durable append of one event: {bare * 1000:6.2f} ms")
    print(f"verifiable attack (service layer): {ours * 1000:6.2f} ms")
    print(f"  of which its rolls' signatures:  {signing * 1000:6.3f} ms ({signing / ours:.0%})")
    print(f"ratio: an attack costs {ours / bare:.1f}x a bare append")


if __name__ == "__main__":
    main()
