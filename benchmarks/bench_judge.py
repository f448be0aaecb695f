"""Judging a 100,000-line chat log, against a bare read of the same file, side by side.

Run: python benchmarks/bench_judge.py

- bare: decode the bytes, split them into lines and match one regular expression on each
  line (a time stamp, a speaker and the text), building nothing and deciding nothing: what
  any reader of the file must at least do.
- judge: `referee.transcripts.judge_log` on the same bytes: sniff the format, find every roll
  line and who posted it, check receipts, find the announcement, decide the spar, list every
  anomaly.

The log is made here from a seeded generator: time-stamped speech and roll lines of two
fighters in turn (a long spar: CS 1 each, defeat at 100), with outsiders' rolls, wrong dice and
host lines typed by a fighter mixed in. Timing only, no asserts: prints lines per second of
both, and the judge's rate as a share of the bare rate (issue 30 asks for at least a third).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable

from referee.systems.msv.rules import rules_from_mapping
from referee.transcripts import judge_log
from referee.transcripts.decoding import decode_log, split_lines

LINES = 100_000
RUNS = 5
RULES = rules_from_mapping({"defeat_threshold": 100})

#: The bare pass's one regular expression: a stamp, a speaker, the text.
LINE = re.compile(r"(?:\[[\d:]+\] )?([^:]{1,64}): (.*)")


def make_log(lines: int = LINES, seed: int = 7) -> bytes:
    """A log of `lines` lines: speech, the fighters' rolls in turn, and some noise."""
    rng = random.Random(seed)
    names = ("Tarl Cabot", "PaKur")
    out = ["[20:59:58] Judge: Spar between Tarl Cabot (CS 1) and PaKur (CS 1)"]
    turn = 0
    while len(out) < lines:
        second = len(out) % 60
        stamp = f"[{21 + len(out) // 3600 % 3}:{len(out) // 60 % 60:02}:{second:02}] "
        pick = rng.random()
        if pick < 0.55:
            out.append(f"{stamp}{names[rng.randrange(2)]}: *circles, blade low, waiting*")
        elif pick < 0.9:
            face = rng.randint(1, 100)
            out.append(f"{stamp}OnlineHost: {names[turn % 2]} rolled 1 100-sided die: {face}")
            turn += 1
        elif pick < 0.95:
            out.append(f"{stamp}OnlineHost: Bosk rolled 1 100-sided die: {rng.randint(1, 100)}")
        elif pick < 0.98:
            out.append(f"{stamp}OnlineHost: PaKur rolled 2 20-sided dice: 14 17")
        else:
            out.append(f"{stamp}PaKur: OnlineHost: PaKur rolled 1 100-sided die: 100")
    return ("\r\n".join(out[:lines]) + "\r\n").encode("utf-8")


def bare(data: bytes) -> int:
    """Decode, split into lines, one regular expression on each; count the lines it fits."""
    match = LINE.match
    return sum(1 for line in split_lines(decode_log(data)) if match(line))


def judge(data: bytes) -> int:
    """The judge on the same bytes; the number of anomalies."""
    return len(judge_log(data, rules=RULES).verdict.anomalies)


def best(fns: list[Callable[[], object]]) -> list[float]:
    """Best seconds of each function over RUNS alternating runs (robust to a busy machine)."""
    times = [float("inf")] * len(fns)
    for _ in range(RUNS):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            times[i] = min(times[i], time.perf_counter() - start)
    return times


def main() -> None:
    data = make_log()
    verdict = judge_log(data, rules=RULES).verdict
    print(
        f"log: {LINES} lines, {len(data) / 1e6:.1f} MB; {len(verdict.rolls)} roll lines, "
        f"{verdict.attacks} attacks counted, {len(verdict.anomalies)} anomalies, "
        f"winner {verdict.winner}"
    )
    judged, read = best([lambda: judge(data), lambda: bare(data)])
    print(f"judge: {LINES / judged:12,.0f} lines/s ({judged * 1e3:.0f} ms)")
    print(f"bare : {LINES / read:12,.0f} lines/s ({read * 1e3:.0f} ms)")
    print(f"judge rate / bare rate: {read / judged:.2f} (at least 0.33 asked)")


if __name__ == "__main__":
    main()
