"""Judging a 100,000-line chat log, against a bare read of the same file, side by side.

Run: python benchmarks/bench_judge.py

- bare: decode the bytes, split them into lines and match one regular expression on each
  line (a time stamp, a speaker and the text), building nothing and deciding nothing: what
  any reader of the file must at least do.
- judge: `referee.transcripts.judge_log` on the same bytes: sniff the format, find every roll
  line and who posted it, check receipts, find the announcement, decide the spar, list every
  anomaly. The verdict keeps its readings and anomalies as columns and makes their objects
  when first looked at (`referee.transcripts.columns`); "judge, objects made" also makes every
  `Reading` and `Anomaly`, as the text report and `--json` do.

The log is made here from a seeded generator: time-stamped speech and roll lines of two
fighters in turn (a long spar: CS 1 each, defeat at 100), with outsiders' rolls, wrong dice and
host lines typed by a fighter mixed in. Timing only, no asserts: prints lines per second of
both, and the judge's rate as a share of the bare rate (issue 30 asks for at least a third),
the best of 7 alternating runs; and the same shares in this process's CPU time, which other
work on a shared machine moves less than the wall clock.
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
RUNS = 7
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


def judge_made(data: bytes) -> int:
    """The judge, and every reading and anomaly of its verdict made into its object."""
    verdict = judge_log(data, rules=RULES).verdict
    return len(tuple(verdict.rolls)) + len(tuple(verdict.anomalies))


def best(fns: list[Callable[[], object]]) -> tuple[list[float], list[float]]:
    """Best seconds of each function over RUNS alternating runs (robust to a busy machine):
    wall-clock seconds, and this process's CPU seconds (which other work on a shared machine
    moves less)."""
    times = [float("inf")] * len(fns)
    cpu = [float("inf")] * len(fns)
    for _ in range(RUNS):
        for i, fn in enumerate(fns):
            start, start_cpu = time.perf_counter(), time.process_time()
            fn()
            times[i] = min(times[i], time.perf_counter() - start)
            cpu[i] = min(cpu[i], time.process_time() - start_cpu)
    return times, cpu


def main() -> None:
    data = make_log()
    verdict = judge_log(data, rules=RULES).verdict
    print(
        f"log: {LINES} lines, {len(data) / 1e6:.1f} MB; {len(verdict.rolls)} roll lines, "
        f"{verdict.attacks} attacks counted, {len(verdict.anomalies)} anomalies, "
        f"winner {verdict.winner}"
    )
    walls, cpus = best([lambda: judge(data), lambda: judge_made(data), lambda: bare(data)])
    judged, made, read = walls
    print(f"judge: {LINES / judged:12,.0f} lines/s ({judged * 1e3:.0f} ms)")
    print(f"judge, objects made: {LINES / made:12,.0f} lines/s ({made * 1e3:.0f} ms)")
    print(f"bare : {LINES / read:12,.0f} lines/s ({read * 1e3:.0f} ms)")
    print(
        f"in CPU time: judge {cpus[0] * 1e3:.0f} ms, objects made {cpus[1] * 1e3:.0f} ms, "
        f"bare {cpus[2] * 1e3:.0f} ms: ratios {cpus[2] / cpus[0]:.2f}, {cpus[2] / cpus[1]:.2f}"
    )
    print(f"judge, objects made / bare rate: {read / made:.2f}")
    print(f"judge rate / bare rate: {read / judged:.2f} (at least 0.33 asked)")


if __name__ == "__main__":
    main()
